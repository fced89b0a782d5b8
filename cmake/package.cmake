# Installation and the Debian package (README.md, "Install").
#
# `cmake --install build [--prefix P]` puts, in GNUInstallDirs' places:
#   bin/gauntlet, bin/gauntlet-train (when OpenMPI was found: the training
#     workload looks for it next to gauntlet, docs/training.md)
#   share/gauntlet/scenarios/   the scenario library (traces, runbooks)
#   share/gauntlet/contrib/     the Grafana dashboard and the Prometheus
#     alert rules (contrib/)
#   share/doc/gauntlet/         README.md and docs/*.md
#   share/man/man1/gauntlet.1.gz   the manual page (docs/gauntlet.1,
#     compressed at build time with gzip -9n: no file name, no time stamp,
#     so the same page gives the same bytes), and gauntlet-train.1.gz
#     pointing to it when gauntlet-train is built
# `cpack -G DEB --config build/CPackConfig.cmake` makes gauntlet_VERSION_ARCH.deb
# of the same files under /usr, stripped, its Depends computed by
# dpkg-shlibdeps from the libraries the binaries link (runtime packages only).
# tests/package.cmake (test_package) checks all of it.
include(GNUInstallDirs)

# Modes whatever the umask of whoever installs or packages: directories
# 0755, bin/ 0755, every other file 0644. install() sets the mode of each
# file it copies, but the directories it has to create (bin/, share/,
# share/gauntlet/, share/man/man1/ ...) take the installer's umask: under
# umask 000 the scenario library's directory, whose scenarios run faults as
# root, and bin/ would be world-writable, in `cmake --install` and in the .deb
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
# Man pages are installed compressed (gzip -9n, as Debian's policy asks):
# each is copied into build/man/ and gzipped there by the build (target
# manpages, part of all), so that a page edited in docs/ is compressed again.
find_program(GL_GZIP gzip)
if(NOT GL_GZIP)
  message(FATAL_ERROR "gauntlet: gzip not found: the man page is installed gzip-compressed")
endif()
set(GL_MAN_DIR ${CMAKE_BINARY_DIR}/man)
set(GL_MAN_PAGES ${GL_MAN_DIR}/gauntlet.1.gz)
add_custom_command(OUTPUT ${GL_MAN_DIR}/gauntlet.1.gz
  COMMAND ${CMAKE_COMMAND} -E make_directory ${GL_MAN_DIR}
  COMMAND ${CMAKE_COMMAND} -E copy ${CMAKE_SOURCE_DIR}/docs/gauntlet.1 ${GL_MAN_DIR}/gauntlet.1
  COMMAND ${GL_GZIP} -9nf ${GL_MAN_DIR}/gauntlet.1
  DEPENDS ${CMAKE_SOURCE_DIR}/docs/gauntlet.1
  COMMENT "gzip -9n docs/gauntlet.1" VERBATIM)
if(TARGET gauntlet-train)
  # `man gauntlet-train`: the same page (its GAUNTLET-TRAIN section); man
  # finds man1/gauntlet.1 compressed
  file(WRITE ${GL_MAN_DIR}/gauntlet-train.1.in ".so man1/gauntlet.1\n")
  add_custom_command(OUTPUT ${GL_MAN_DIR}/gauntlet-train.1.gz
    COMMAND ${CMAKE_COMMAND} -E copy ${GL_MAN_DIR}/gauntlet-train.1.in ${GL_MAN_DIR}/gauntlet-train.1
    COMMAND ${GL_GZIP} -9nf ${GL_MAN_DIR}/gauntlet-train.1
    DEPENDS ${GL_MAN_DIR}/gauntlet-train.1.in
    COMMENT "gzip -9n gauntlet-train.1" VERBATIM)
  list(APPEND GL_MAN_PAGES ${GL_MAN_DIR}/gauntlet-train.1.gz)
endif()
add_custom_target(manpages ALL DEPENDS ${GL_MAN_PAGES})
install(FILES ${GL_MAN_PAGES} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

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
