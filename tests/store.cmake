# The run store's retention (harness/core/store_keep.c, docs/store.md) on
# real runs against `gauntlet target` on loopback: request rows sampled,
# errors capped, everything not kept counted; debug events rate-limited;
# the WAL cut back while a reader holds snapshots; the "store" key's errors.
gl_script_test(test_store ${GL_TESTS_DIR}/scripts/test_store.sh TIMEOUT 300)
