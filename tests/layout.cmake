# The include layers (scripts/layers.py): no upward include in the tree,
# and a planted one is caught.
gl_script_test(test_layers ${GL_TESTS_DIR}/scripts/test_layers.sh TIMEOUT 300)
# The plug-in contract and the size rules (scripts/contract.py): no
# violation beyond tests/contract-debt.txt, and each kind planted is caught.
gl_script_test(test_contract ${GL_TESTS_DIR}/scripts/test_contract.sh TIMEOUT 300)
# The house style (.clang-format): every C file as clang-format writes it,
# and a planted line out of style is caught.
gl_script_test(test_format ${GL_TESTS_DIR}/scripts/test_format.sh TIMEOUT 300)
