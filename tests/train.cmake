# gauntlet-train (loadgen/train) end to end under mpirun on loopback: step
# lines and bandwidth arithmetic at np 2 and 4, injected corruption,
# checkpoints (save, restore, a corrupted shard, a rank killed mid-save,
# retention), the world and host checks, the nccl backend without a GPU,
# bad arguments. Always registered: without gauntlet-train (no OpenMPI at
# build time) it skips, and fails under GL_STRICT=1.
gl_script_test(test_train ${GL_TESTS_DIR}/scripts/test_train.sh TIMEOUT 300)
gl_test_asan_long(test_train)
# The checkpoint manifest's parser (loadgen/train/manifest.c): gauntlet-train
# reads MANIFEST.json back from shared storage before trusting a checkpoint.
# It has no MPI in it, so it is fuzzed whether or not OpenMPI was found.
gl_fuzz_target(fuzz_ckpt_manifest)
foreach(t fuzz_ckpt_manifest fuzz_ckpt_manifest_replay)
  if(TARGET ${t})
    target_sources(${t} PRIVATE ${CMAKE_SOURCE_DIR}/loadgen/train/manifest.c)
    target_include_directories(${t} PRIVATE ${CMAKE_SOURCE_DIR}/loadgen/train)
  endif()
endforeach()
