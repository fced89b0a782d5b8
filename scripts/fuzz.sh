#!/usr/bin/env bash
# fuzz.sh - build the libFuzzer targets with clang and fuzz each for a while.
#
# usage: scripts/fuzz.sh [--seconds N] [--merge] [--build-only | --no-build] [TARGET...]
#
# Every tests/fuzz/fuzz_*.c is a target (or only the TARGETs named). They are
# built with -DGL_FUZZ=ON (ASan + UBSan + libFuzzer coverage in every parser)
# into build-fuzz/ (or $GL_FUZZ_BUILD), only the fuzz binaries. Each target
# then runs N seconds (default 60) over a scratch corpus kept in the build
# dir plus its seed corpus tests/fuzz/corpus/TARGET, which is only read:
# new inputs stay in the scratch corpus unless --merge is given, which
# afterwards adds to the seed corpus the scratch inputs that reach new
# coverage. Per target it prints runs, coverage and the verdict; a crash,
# leak, UB report, timeout or out-of-memory leaves its input under
# BUILD/fuzz-artifacts/TARGET/ (the path is printed) and makes the script
# exit 1. Reproduce one with: BUILD/TARGET FILE (or the gcc-built
# TARGET_replay FILE). --build-only stops after the build; --no-build uses
# the binaries already there (CI builds once, then each target's brief run
# is a ctest test of its own: TARGET_libfuzzer, 5 s, in scripts/test.sh).
#
# Environment: GL_FUZZ_BUILD (build dir), GL_FUZZ_MAX_LEN (bytes per input,
# default 65536), GL_FUZZ_RSS_MB (default 2048), GL_FUZZ_TIMEOUT (seconds
# per input, default 10), CC (default clang).
set -uo pipefail
cd "$(dirname "$0")/.."

SECONDS_EACH=60
MERGE=0
BUILD_STEP=1
RUN_STEP=1
TARGETS=()
while [ $# -gt 0 ]; do
	case "$1" in
	--seconds) SECONDS_EACH=${2:?--seconds needs a number}; shift 2 ;;
	--seconds=*) SECONDS_EACH=${1#*=}; shift ;;
	--merge) MERGE=1; shift ;;
	--build-only) RUN_STEP=0; shift ;;
	--no-build) BUILD_STEP=0; shift ;;
	-h|--help) sed -n '2,/^set /p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
	*) TARGETS+=("${1%.c}"); shift ;;
	esac
done
case "$SECONDS_EACH" in ''|*[!0-9]*) echo "fuzz.sh: --seconds takes whole seconds" >&2; exit 2 ;; esac
if [ ${#TARGETS[@]} -eq 0 ]; then
	for f in tests/fuzz/fuzz_*.c; do
		TARGETS+=("$(basename "$f" .c)")
	done
fi
for t in "${TARGETS[@]}"; do
	[ -f "tests/fuzz/$t.c" ] || { echo "fuzz.sh: no tests/fuzz/$t.c" >&2; exit 2; }
done

BUILD=${GL_FUZZ_BUILD:-build-fuzz}
MAX_LEN=${GL_FUZZ_MAX_LEN:-65536}
RSS_MB=${GL_FUZZ_RSS_MB:-2048}
TIMEOUT=${GL_FUZZ_TIMEOUT:-10}
CC=${CC:-clang}
command -v "$CC" >/dev/null || { echo "fuzz.sh: $CC not found (Debian: apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }

if [ "$BUILD_STEP" = 1 ]; then
# Release-like code with debug info: faster runs, still readable stacks.
if ! cmake -S . -B "$BUILD" -DGL_FUZZ=ON -DCMAKE_C_COMPILER="$CC" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	>"$BUILD.configure.log" 2>&1; then
	cat "$BUILD.configure.log" >&2
	echo "fuzz.sh: configuring $BUILD failed" >&2
	exit 1
fi
rm -f "$BUILD.configure.log"
# A target file that no tests/*.cmake registers would be neither replayed nor fuzzed.
known=$(cmake --build "$BUILD" --target help 2>/dev/null)
for t in "${TARGETS[@]}"; do
	if ! grep -qE "(^|[ .:])$t(:|\$| )" <<<"$known"; then
		echo "fuzz.sh: tests/fuzz/$t.c is not registered: add gl_fuzz_target($t) to a tests/*.cmake" >&2
		exit 1
	fi
done
cmake --build "$BUILD" -j "$(nproc)" --target "${TARGETS[@]}" >"$BUILD/fuzz-build.log" 2>&1 || {
	tail -n 40 "$BUILD/fuzz-build.log" >&2
	echo "fuzz.sh: build failed (log: $BUILD/fuzz-build.log)" >&2
	exit 1
}
echo "fuzz.sh: built ${#TARGETS[@]} libFuzzer target(s) in $BUILD"
fi
[ "$RUN_STEP" = 1 ] || exit 0
for t in "${TARGETS[@]}"; do
	[ -x "$BUILD/$t" ] || { echo "fuzz.sh: $BUILD/$t is not built (run without --no-build)" >&2; exit 1; }
done

# UBSan reports are bugs too: stop at the first one, like ASan does.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1"   # leaks count here, whatever the caller set
rc=0
summary=()
for t in "${TARGETS[@]}"; do
	work="$BUILD/fuzz-corpus/$t" art="$BUILD/fuzz-artifacts/$t" log="$BUILD/fuzz-logs/$t.log"
	mkdir -p "$work" "$art" "$(dirname "$log")"
	dict=()
	[ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
	before=$(ls "$art" | wc -l)
	echo "== $t: ${SECONDS_EACH}s"
	"$BUILD/$t" -max_total_time="$SECONDS_EACH" -max_len="$MAX_LEN" -timeout="$TIMEOUT" \
		-rss_limit_mb="$RSS_MB" -print_final_stats=1 -artifact_prefix="$art/" "${dict[@]}" \
		"$work" "tests/fuzz/corpus/$t" >"$log" 2>&1
	code=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -n 1)
	new=$(ls -t "$art" | head -n $(( $(ls "$art" | wc -l) - before )) 2>/dev/null)
	if [ "$code" -eq 0 ] && [ -z "$new" ]; then
		verdict="ok"
	else
		verdict="FAILED (exit $code)"
		rc=1
		grep -m 1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|SUMMARY:' "$log" | sed 's/^/   /'
		for a in $new; do
			echo "   input: $art/$a"
		done
		echo "   log: $log"
	fi
	line=$(printf '%-22s runs %-10s %-34s %s' "$t" "${runs:-?}" "${cov:-cov: ?}" "$verdict")
	echo "$line"
	summary+=("$line")
	if [ "$MERGE" = 1 ] && [ "$code" -eq 0 ]; then
		"$BUILD/$t" -merge=1 -max_len="$MAX_LEN" -timeout="$TIMEOUT" -rss_limit_mb="$RSS_MB" \
			"tests/fuzz/corpus/$t" "$work" >>"$log" 2>&1 &&
			echo "   merged into tests/fuzz/corpus/$t ($(ls "tests/fuzz/corpus/$t" | wc -l) files)"
	fi
done
echo "== summary (${SECONDS_EACH}s per target)"
printf '%s\n' "${summary[@]}"
exit $rc
