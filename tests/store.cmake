# The run store's retention (harness/core/store_keep.c, docs/store.md) on
# real runs against `gauntlet target` on loopback: request rows sampled,
# errors capped, everything not kept counted; debug events rate-limited;
# the WAL cut back while a reader holds snapshots; the "store" key's errors.
gl_script_test(test_store ${GL_TESTS_DIR}/scripts/test_store.sh TIMEOUT 300)
# Plug-in record types (harness/core/store_record.c): the training steps'
# table as every store has had it, rows written and read back across a
# reopen, an unregistered type refused, the bound per window.
gl_unit_test(test_store_record ${GL_TESTS_DIR}/unit/test_store_record.c TIMEOUT 60)
# The request rows (harness/core/store_rows.c): every row put read back
# field by field in the order put, whether the store held it to insert
# several at once or inserted it at once, committed part-way or not.
gl_unit_test(test_store_requests ${GL_TESTS_DIR}/unit/test_store_requests.c TIMEOUT 60)
