#!/usr/bin/env bash
# test.sh - the whole test suite: set up, build, run every ctest test
# (unit, fuzz-corpus replays, integration scripts), then the same suite
# under address + undefined-behaviour sanitizers in build-asan/.
# Set GL_NO_SANITIZE=1 to skip the sanitizer pass. To keep CI within its
# 20 minutes, the sanitizer pass leaves out the tests labelled "long"
# (timeline-bound runs whose C paths other tests take under the sanitizers
# too) and runs test_lab without its two-minute soak (GL_LAB_SOAK=0);
# GL_SANITIZE_ALL=1 runs everything there.
set -uo pipefail
cd "$(dirname "$0")/.."
rc=0
GL_TEST_PKGS=1 bash scripts/setup.sh || exit 1
(cd build && ctest --output-on-failure -j 2 --timeout 600) || rc=1
if [ "${GL_NO_SANITIZE:-0}" != 1 ]; then
	GL_BUILD_DIR=build-asan bash scripts/setup.sh -DGL_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug || exit 1
	if [ "${GL_SANITIZE_ALL:-0}" = 1 ]; then
		(cd build-asan && ASAN_OPTIONS=detect_leaks=0 ctest --output-on-failure -j 2 --timeout 600) || rc=1
	else
		(cd build-asan && GL_LAB_SOAK=0 ASAN_OPTIONS=detect_leaks=0 ctest --output-on-failure -j 2 --timeout 600 -LE long) || rc=1
	fi
fi
exit $rc
