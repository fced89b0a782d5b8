# The gpu_throttle and fabric_port fault kinds end to end against stand-in
# nvidia-smi, ibportstate and ibstat (tests/gpufaults/bin) that keep their
# state in files and refuse arguments the kinds do not use: power caps and
# clock locks injected, read back and restored to the values from before
# the fault; an IB port disabled and enabled; both restored by `gauntlet
# revert` after the controller is SIGKILLed, and the port by the dead-man
# loop alone; roce on a veth/dummy interface in a private netns; preflight
# and validation refusals.
gl_script_test(test_gpu_faults ${GL_TESTS_DIR}/scripts/test_gpu_faults.sh TIMEOUT 240)
gl_test_asan_long(test_gpu_faults)
