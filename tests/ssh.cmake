# The ssh transport (harness/transport/transport_ssh.c) against a private sshd on
# 127.0.0.1; skips when sshd or ssh-keygen is missing.
gl_unit_test(test_ssh ${GL_TESTS_DIR}/unit/test_ssh.c TIMEOUT 120)
gl_script_test(test_ssh_faults ${GL_TESTS_DIR}/scripts/test_ssh_faults.sh TIMEOUT 180)
