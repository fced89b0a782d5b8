# Evidence: junit.xml and report.md agreeing with report.json target by
# target; manifest.json's scenario SHA-256, git provenance (committed, then
# dirty) and host inventory; seal into a git repository and verify,
# including a changed byte, a missing file, a changed store, a moved tag;
# report.pdf rendered twice by Chromium (the same bytes), sealed and verified.
gl_script_test(test_evidence ${GL_TESTS_DIR}/scripts/test_evidence.sh TIMEOUT 240)
