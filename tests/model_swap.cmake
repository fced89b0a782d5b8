# The model_swap fault kind end to end: `gauntlet target`'s LoRA API, method
# lora (unload, swap) under inference load with the model_not_found class
# counted against the server's own 404s, method kubernetes against a
# request-checking stand-in (k8s_deploy_mock.py), method exec; runbooks in
# validate, the reports and the manifest (git blob ids).
gl_script_test(test_model_swap ${GL_TESTS_DIR}/scripts/test_model_swap.sh TIMEOUT 180)
