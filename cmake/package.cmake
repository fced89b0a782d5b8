# Installation and the Debian package (README.md, "Install").
#
# `cmake --install build [--prefix P]` puts, in GNUInstallDirs' places:
#   bin/gauntlet, bin/gauntlet-train (when OpenMPI was found: the training
#     workload looks for it next to gauntlet, docs/training.md)
#   share/gauntlet/scenarios/   the scenario library (traces, runbooks)
#   share/gauntlet/contrib/     the Grafana dashboard and the Prometheus
#     alert rules (contrib/)
#   share/doc/gauntlet/         README.md and docs/*.md
#   share/man/man1/gauntlet.1   the manual page (docs/gauntlet.1), and
#     gauntlet-train.1 pointing to it when gauntlet-train is built
# `cpack -G DEB --config build/CPackConfig.cmake` makes gauntlet_VERSION_ARCH.deb
# of the same files under /usr, stripped, its Depends computed by
# dpkg-shlibdeps from the libraries the binaries link (runtime packages only).
# tests/package.cmake (test_package) checks all of it.
include(GNUInstallDirs)

# Modes whatever the umask of whoever installs or packages: directories
# 0755, bin/ 0755, every other file 0644. install() sets the mode of each
# file it copies, but the directories it has to create (bin/, share/,
# share/gauntlet/, share/man/man1/ ...) took the installer's umask: under
# umask 000 the scenario library's directory, whose scenarios run faults as
# root, and bin/ were world-writable, in `cmake --install` and in the .deb
# (cpack stages the package by the same install). Set before any install();
# CPack's CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS, for the directories
# of its staging tree, takes the same value from it.
set(CMAKE_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

install(TARGETS gauntlet RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET gauntlet-train)
  install(TARGETS gauntlet-train RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(DIRECTORY ${CMAKE_SOURCE_DIR}/scenarios/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gauntlet/scenarios)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/contrib/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gauntlet/contrib)
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}
        PATTERN gauntlet.1 EXCLUDE)
install(FILES ${CMAKE_SOURCE_DIR}/docs/gauntlet.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
if(TARGET gauntlet-train)
  # `man gauntlet-train`: the same page (its GAUNTLET-TRAIN section)
  file(WRITE ${CMAKE_BINARY_DIR}/gauntlet-train.1 ".so man1/gauntlet.1\n")
  install(FILES ${CMAKE_BINARY_DIR}/gauntlet-train.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()

set(CPACK_PACKAGE_NAME gauntlet)
set(CPACK_PACKAGE_VENDOR "gauntlet")
set(GL_PACKAGE_MAINTAINER "gauntlet maintainers <maintainers@users.noreply.a-seed-dd58f8b8.example>"
    CACHE STRING "the .deb's Maintainer field (cpack -G DEB)")
set(CPACK_PACKAGE_CONTACT "${GL_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "soak and chaos test harness for GPU clusters")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
    "gauntlet runs a mixed load on a GPU cluster (LLM inference replay, MPI or NCCL\n"
    "training loops, storage I/O) for up to 168 hours, injects scheduled faults,\n"
    "measures latency, recovery and restore against written targets, and leaves\n"
    "reports a cluster handover can be signed on. The scenario library is in\n"
    "/usr/share/gauntlet/scenarios, the documentation in /usr/share/doc/gauntlet.")
if(TARGET gauntlet-train)
  string(APPEND CPACK_PACKAGE_DESCRIPTION
         "\ngauntlet-train, its MPI training worker, is started through mpirun or srun.")
endif()
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_PACKAGE_NAME gauntlet)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CPACK_PACKAGE_CONTACT}")
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
find_program(GL_DPKG dpkg)
if(GL_DPKG)
  execute_process(COMMAND ${GL_DPKG} --print-architecture
                  OUTPUT_VARIABLE CPACK_DEBIAN_PACKAGE_ARCHITECTURE OUTPUT_STRIP_TRAILING_WHITESPACE)
endif()
if(TARGET gauntlet-train)
  # gauntlet-train is started through mpirun (docs/training.md)
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "openmpi-bin")
endif()
include(CPack)
