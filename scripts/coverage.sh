#!/usr/bin/env bash
# coverage.sh - line and branch coverage of the test suite, per source folder.
#
#   bash scripts/coverage.sh                      build, run every test, report
#   bash scripts/coverage.sh -E 'test_lab'        extra arguments go to ctest
#   bash scripts/coverage.sh --keep -R test_lab   add to the counts already there
#   bash scripts/coverage.sh --no-run             report the counts already there
#
# Builds with gcov instrumentation (Debug, -O0 --coverage, atomic counters:
# the controller, fault executor and target are multi-threaded) into its
# own build directory ($GL_COV_BUILD, default build-cov/), runs the suite
# there with ctest (-j $GL_TEST_JOBS, default 5, as scripts/test.sh; the
# plain build's tests only: no sanitizer twin, no libFuzzer; the fuzz
# corpus replays do run), then prints line and branch coverage per source
# folder (harness/, loadgen/ with loadgen/train/ also on its own row,
# faults/, reports/) and in total, and per folder the files with the most
# uncovered lines ($GL_COV_WORST, default 5). tests/ is not counted.
#
# Every process the tests start writes its counts: the gauntlet binary,
# `gauntlet target`, gauntlet-train under mpirun, fault executors, children
# forked by the transports. The object paths compiled in are absolute, so
# a child in another working directory (or network namespace) writes into
# build-cov/ too, and libgcov merges concurrent writers under a file lock.
# A process that dies by a signal it does not catch or leaves by _exit()
# writes nothing: that is lost, not corrupt. SIGKILL is common here: the
# torture test's kills, and lib.sh's cleanup, which kills every background
# process (a `gauntlet target` a script started) with -9. gcovr merges the two compilations of harness/lib/util.c, units.c
# and sha256.c (gauntlet_core and gauntlet-train).
#
# Counters are zeroed before a run unless --keep is given. Full reports go
# to build-cov/coverage/ (coverage.txt, summary.json, coverage.json, and
# index.html with a page per file). Installs gcovr from Debian when missing.
# Exit status: ctest's (the figures print either way); with --no-run, 0.
# GL_COV_CHECK=1: also exit 1 when a folder is below 85 % lines or 70 %
# branches (the goal in docs/testing.md, "Coverage").
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${GL_COV_BUILD:-build-cov}
JOBS=${GL_TEST_JOBS:-5}
WORST=${GL_COV_WORST:-5}
RUN=1
KEEP=0
CTEST_ARGS=()
for a in "$@"; do
	case "$a" in
	--no-run) RUN=0 ;;
	--keep) KEEP=1 ;;
	-h|--help) sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	*) CTEST_ARGS+=("$a") ;;
	esac
done
t0=$(date +%s)

if ! command -v gcovr >/dev/null; then
	echo "coverage: installing gcovr"
	if [ "$(id -u)" -ne 0 ]; then
		echo "coverage: gcovr is missing and installing it needs root (apt-get install gcovr)" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends gcovr >/dev/null || exit 1
fi

rc=0
if [ "$RUN" = 1 ]; then
	# setup.sh installs what the build and the tests need, then configures
	# and builds; the arguments after its own -DCMAKE_BUILD_TYPE override it.
	mkdir -p "$BUILD" && touch "$BUILD/.cov-stamp"
	GL_TEST_PKGS=1 GL_BUILD_DIR="$BUILD" bash scripts/setup.sh \
		-DCMAKE_BUILD_TYPE=Debug -DGL_SANITIZE=OFF -DGL_FUZZ=OFF \
		-DCMAKE_C_FLAGS="--coverage -O0 -fprofile-update=atomic" \
		-DCMAKE_EXE_LINKER_FLAGS="--coverage" || exit 1
	echo "coverage: built $BUILD in $(( $(date +%s) - t0 )) s"
	if [ "$KEEP" = 0 ]; then
		find "$BUILD" -name '*.gcda' -delete
	else
		# A file compiled again has a new stamp: its kept counts are dropped
		# (libgcov overwrites them), so --keep adds up only over one source.
		changed=$(find "$BUILD" -name '*.gcno' -newer "$BUILD/.cov-stamp" | sed 's|.*\.dir/||; s|^\(__/\)*||; s|\.gcno$||' | sort -u)
		[ -n "$changed" ] && echo "coverage: --keep: compiled again since the kept counts, their earlier counts are lost:" $changed >&2
	fi
	rm -rf "$BUILD/results" && mkdir -p "$BUILD/results"
	(cd "$BUILD" && GL_RESULTS_DIR="$PWD/results" \
		ctest --output-on-failure -j "$JOBS" --timeout 600 "${CTEST_ARGS[@]}")
	rc=$?
	bash tests/scripts/totals.sh "$BUILD"
	echo "coverage: tests done in $(( $(date +%s) - t0 )) s (ctest exit $rc)"
elif [ ${#CTEST_ARGS[@]} -gt 0 ]; then
	echo "coverage: --no-run: ignoring ${CTEST_ARGS[*]}" >&2
fi

if [ ! -d "$BUILD" ] || [ -z "$(find "$BUILD" -name '*.gcda' -print -quit)" ]; then
	echo "coverage: no counts (.gcda) under $BUILD: run without --no-run first" >&2
	exit 1
fi

OUT=$BUILD/coverage
rm -rf "$OUT" && mkdir -p "$OUT"
# The object files live under $BUILD; the sources under the four folders
# are the figures (tests/ and anything outside the tree are left out).
# Branches on lines without useful code (compiler-made) are not counted.
gcovr --root "$ROOT" --object-directory "$ROOT/$BUILD" \
	--filter "$ROOT/harness/" --filter "$ROOT/loadgen/" \
	--filter "$ROOT/faults/" --filter "$ROOT/reports/" \
	--exclude-unreachable-branches -j "$(nproc)" \
	--txt "$OUT/coverage.txt" \
	--json-summary-pretty --json-summary "$OUT/summary.json" \
	--json "$OUT/coverage.json" \
	--html-details "$OUT/index.html" --html-title "gauntlet coverage" \
	--exclude-directories "$ROOT/$BUILD/CMakeFiles/[0-9][^/]*" \
	"$ROOT/$BUILD" || { echo "coverage: gcovr failed" >&2; exit 1; }

python3 - "$OUT/summary.json" "$ROOT" "$BUILD" "$WORST" "${GL_COV_CHECK:-0}" <<'PY'
import json, os, sys
summary, root, build, worst, check = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5] == "1"
GOAL_L, GOAL_B = 85.0, 70.0
files = json.load(open(summary))["files"]
FOLDERS = ["harness/", "loadgen/", "loadgen/train/", "faults/", "reports/"]

def pct(c, t):
    return 100.0 * c / t if t else 100.0

def agg(fs):
    lt = sum(f["line_total"] for f in fs); lc = sum(f["line_covered"] for f in fs)
    bt = sum(f["branch_total"] for f in fs); bc = sum(f["branch_covered"] for f in fs)
    return lt, lc, bt, bc

def row(name, fs, goal=True):
    lt, lc, bt, bc = agg(fs)
    mark = ""
    if goal:
        low = [w for w, ok in (("lines", pct(lc, lt) >= GOAL_L), ("branches", pct(bc, bt) >= GOAL_B)) if not ok]
        mark = "  below goal: " + ", ".join(low) if low else "  goal met"
    print("%-16s %5d %7d/%-6d %5.1f%%  %7d/%-6d %5.1f%%%s"
          % (name, len(fs), lc, lt, pct(lc, lt), bc, bt, pct(bc, bt), mark))
    return not mark.startswith("  below")

def infolder(f, d):
    if d == "loadgen/":
        return f["filename"].startswith("loadgen/")
    return f["filename"].startswith(d)

print()
print("coverage (gcovr; goal: %.0f %% lines, %.0f %% branches per folder)" % (GOAL_L, GOAL_B))
print("%-16s %5s %14s %6s  %14s %6s" % ("folder", "files", "lines", "", "branches", ""))
ok = True
for d in FOLDERS:
    fs = [f for f in files if infolder(f, d)]
    name = ("  " + d) if d == "loadgen/train/" else d
    # loadgen/train/ is part of loadgen/ (the goal is judged there)
    r = row(name, fs, goal=(d != "loadgen/train/"))
    ok = ok and r
row("total", files, goal=False)

# Sources under the folders that no build here compiled (no .gcno): not in
# the figures above.
seen = {f["filename"] for f in files}
unbuilt = []
for d in ("harness", "loadgen", "faults", "reports"):
    for dp, _, names in os.walk(os.path.join(root, d)):
        for n in names:
            if n.endswith(".c"):
                rel = os.path.relpath(os.path.join(dp, n), root)
                if rel not in seen:
                    unbuilt.append(rel)
if unbuilt:
    print("not built here, not counted: " + ", ".join(sorted(unbuilt)))

print()
print("least covered files per folder (most uncovered lines first)")
for d in ("harness/", "loadgen/", "faults/", "reports/"):
    fs = sorted((f for f in files if infolder(f, d)),
                key=lambda f: (-(f["line_total"] - f["line_covered"]), f["filename"]))
    print(d)
    for f in fs[:worst]:
        lt, lc, bt, bc = f["line_total"], f["line_covered"], f["branch_total"], f["branch_covered"]
        print("  %-32s %4d lines uncovered  lines %5.1f%% (%d/%d)  branches %5.1f%% (%d/%d)"
              % (f["filename"], lt - lc, pct(lc, lt), lc, lt, pct(bc, bt), bc, bt))
print()
print("coverage: per-file report %s/coverage/coverage.txt, pages %s/coverage/index.html" % (build, build))
sys.exit(1 if (check and not ok) else 0)
PY
prc=$?
echo "coverage: done in $(( $(date +%s) - t0 )) s (exit $(( rc ? rc : prc )))"
[ "$rc" != 0 ] && exit "$rc"
exit $prc
