#!/usr/bin/env bash
# test.sh - the whole test suite: set up, build, run every ctest test
# (unit, fuzz-corpus replays, integration scripts), then the same suite
# under address + undefined-behaviour sanitizers in build-asan/.
# Set GL_NO_SANITIZE=1 to skip the sanitizer pass.
set -uo pipefail
cd "$(dirname "$0")/.."
rc=0
GL_TEST_PKGS=1 bash scripts/setup.sh || exit 1
(cd build && ctest --output-on-failure -j 2 --timeout 600) || rc=1
if [ "${GL_NO_SANITIZE:-0}" != 1 ]; then
	GL_BUILD_DIR=build-asan bash scripts/setup.sh -DGL_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug || exit 1
	(cd build-asan && ASAN_OPTIONS=detect_leaks=0 ctest --output-on-failure -j 2 --timeout 600) || rc=1
fi
exit $rc
