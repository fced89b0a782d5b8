# The include layers (scripts/layers.py): no upward include in the tree,
# and a planted one is caught.
gl_script_test(test_layers ${GL_TESTS_DIR}/scripts/test_layers.sh TIMEOUT 60)
