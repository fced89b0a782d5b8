# The published contract of report.json and manifest.json (docs/report.schema.json,
# docs/manifest.schema.json): the schemas valid, a short real run's files
# valid, and a key or type the schema does not say refused, naming the
# path. Every script test also validates what it wrote (lib.sh's finish).
gl_script_test(test_schema ${GL_TESTS_DIR}/scripts/test_schema.sh TIMEOUT 120)
# The C validator (harness/lib/jschema.c) on files, set beside
# python3-jsonschema in test_schema.sh.
add_executable(gl_jschema_check ${GL_TESTS_DIR}/tools/jschema_check.c)
target_link_libraries(gl_jschema_check PRIVATE gauntlet_core)
# The validator itself and the schema embedded in the binary
# (harness/core/report_schema.c): every keyword, schemas refused, bounds.
gl_unit_test(test_jschema ${GL_TESTS_DIR}/unit/test_jschema.c TIMEOUT 60)
# The validator on outside documents (a report.json against the embedded
# schema) and on outside schemas.
gl_fuzz_target(fuzz_jschema)
# Option tables (harness/scenario/opts.c): a section validated with the
# getters' messages, the key list, the config struct's defaults and values.
gl_unit_test(test_opts ${GL_TESTS_DIR}/unit/test_opts.c TIMEOUT 60)
# docs/scenario.md's key tables against the workloads' option tables: the
# same keys for null, inference (and arrival), training and storage.
gl_unit_test(test_opts_docs ${GL_TESTS_DIR}/unit/test_opts_docs.c TIMEOUT 60)
