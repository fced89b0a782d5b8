#!/usr/bin/env bash
# test.sh - the whole test suite, three ways, in one ctest run:
#   build/        plain (RelWithDebInfo): every test;
#   build-asan/   address + undefined-behaviour sanitizers: the tests again
#                 (names end in _asan; timings are judged by the plain build
#                 only, see tests/common.cmake gl_test_alone), all but the
#                 twins of the long integration tests (label asan_long, see
#                 gl_test_asan_long), which GL_ASAN_ALL=1 adds;
#   build-fuzz/   clang + libFuzzer: each fuzz target fuzzed briefly
#                 (NAME_libfuzzer, GL_FUZZ_CI_SECONDS, 5 s), beside the
#                 gcc-built corpus replays (NAME_corpus) of the other two.
# One ctest over the three (build-all/CTestTestfile.cmake) lets RUN_SERIAL
# and RESOURCE_LOCK hold across builds, and lets tests that mostly wait
# (time-scaled soaks) run side by side: -j GL_TEST_JOBS (default 5; the
# machine stays below 2 busy cores: most tests wait).
#
# GL_NO_SANITIZE=1: the plain build only (quick local runs).
# GL_NO_FUZZ=1: no libFuzzer build (when clang is not at hand).
# GL_ASAN_ALL=1: every sanitizer twin, the asan_long ones included (about
#   2,020 test-seconds more, measured on two cores; for a release or a
#   change to memory handling in the controller, the faults or the load
#   generators).
# GL_STRICT=1: every skip, whole test or part, is a failure that names what
#   was missing (.ci/run sets it: setup installs everything the suite needs).
# Extra arguments go to ctest (e.g. -R test_live).
#
# The closing lines add up the parts every test counted (passed, failed,
# skipped; tests/scripts/lib.sh and tests/unit/check.h leave them in
# build-all/results/), beside ctest's count of whole tests.
set -uo pipefail
cd "$(dirname "$0")/.."
JOBS=${GL_TEST_JOBS:-5}
t0=$(date +%s)
GL_TEST_PKGS=1 bash scripts/setup.sh || exit 1
dirs=(build)
if [ "${GL_NO_SANITIZE:-0}" != 1 ]; then
	GL_BUILD_DIR=build-asan bash scripts/setup.sh -DGL_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug || exit 1
	dirs+=(build-asan)
fi
if [ "${GL_NO_FUZZ:-0}" != 1 ]; then
	GL_FUZZ_BUILD=build-fuzz bash scripts/fuzz.sh --build-only || exit 1
	dirs+=(build-fuzz)
fi
echo "test: built ${dirs[*]} in $(( $(date +%s) - t0 )) s"
mkdir -p build-all
{
	echo "# written by scripts/test.sh: the tests of every build, in one ctest"
	for d in "${dirs[@]}"; do
		echo "subdirs(\"$PWD/$d\")"
	done
} > build-all/CTestTestfile.cmake
# Leaks are left to the fuzzers (LeakSanitizer on there): the suite's tests
# kill processes on purpose, and a process killed reports nothing anyway.
rm -rf build-all/results && mkdir -p build-all/results
[ "${GL_STRICT:-0}" = 1 ] && echo "test: strict mode (GL_STRICT=1): a skip is a failure"
left_out=()
if [ "${GL_ASAN_ALL:-0}" != 1 ] && [ -d build-asan ]; then
	mapfile -t left_out < <(cd build-all && ctest -N -L asan_long | sed -n 's/^ *Test *#[0-9]*: //p')
	left_out_args=(-LE asan_long)
else
	left_out_args=()
fi
(cd build-all && GL_RESULTS_DIR="$PWD/results" ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
	ctest --output-on-failure -j "$JOBS" --timeout 600 "${left_out_args[@]}" "$@")
rc=$?
bash tests/scripts/totals.sh build-all
if [ ${#left_out[@]} -gt 0 ]; then
	echo "test: ${#left_out[@]} sanitizer twins of long integration tests not run (GL_ASAN_ALL=1 runs them; their plain tests ran): ${left_out[*]}"
fi
echo "test: done in $(( $(date +%s) - t0 )) s (exit $rc)"
exit $rc
