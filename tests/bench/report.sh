#!/usr/bin/env bash
# report.sh - benchmark of `gauntlet report DIR` on a week of data: the
# store of a finished 168-hour run (60,480 windows of 10 s; inference,
# training and storage with realistic per-window histograms and counters;
# ten faults in the journal), written through the real store code by
# tests/bench/gen_store.c (target gl_gen_store), then rendered by the whole
# command, every report it writes included. Not a pass/fail test and not
# registered in ctest: it prints figures, then a summary table (metric,
# measured, goal, met/missed). A missed goal is printed as missed; the exit
# status is 0 whenever every part ran.
#
#   wall seconds of `gauntlet report DIR`, page cache warm (best and median
#   of GL_BENCH_REPS runs) and cold (the store's pages evicted first with
#   posix_fadvise DONTNEED: no root needed, nothing else is touched)
#   (goal: under 10 s); CPU seconds (user + sys); max RSS (goal: under 256 MiB)
#
# Environment:
#   GAUNTLET=path          the binary (default: build/gauntlet, else /tmp/b/gauntlet)
#   GL_GEN_STORE=path      the generator (default: next to $GAUNTLET; built there
#                          with `cmake --build` when missing)
#   GL_BENCH_HOURS=168     hours of run to generate (1..168)
#   GL_BENCH_REQUESTS=1    also write one requests row per request (12 M rows a
#                          week, ~2 GB more; nothing in the reports reads them today)
#   GL_BENCH_REPS=3        warm runs
#   GL_BENCH_DIR=/tmp      where the store goes (about 0.9 GB for a week)
#   GL_BENCH_PROFILE=1     also `perf record` one warm run and print its top symbols
#   GL_BENCH_KEEP=1        keep the temp dir (store, reports) and print its path
set -u

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
G=${GAUNTLET:-}
if [ -z "$G" ]; then
	for c in "$REPO/build/gauntlet" /tmp/b/gauntlet; do
		if [ -x "$c" ]; then G=$c; break; fi
	done
fi
if [ -z "$G" ] || [ ! -x "$G" ]; then
	echo "bench: no gauntlet binary (build it with scripts/setup.sh, or set GAUNTLET)" >&2
	exit 2
fi
command -v python3 >/dev/null || { echo "bench: python3 is needed to time and read reports" >&2; exit 2; }
GEN=${GL_GEN_STORE:-$(dirname "$G")/gl_gen_store}
if [ ! -x "$GEN" ]; then
	echo "bench: building gl_gen_store in $(dirname "$G")"
	cmake --build "$(dirname "$G")" --target gl_gen_store >/dev/null 2>&1 || true
fi
[ -x "$GEN" ] || { echo "bench: no gl_gen_store (cmake --build BUILD --target gl_gen_store, or set GL_GEN_STORE)" >&2; exit 2; }

HOURS=${GL_BENCH_HOURS:-168}
REPS=${GL_BENCH_REPS:-3}
W=$(mktemp -d "${GL_BENCH_DIR:-/tmp}/gl-bench-report.XXXXXX")
cleanup() {
	if [ "${GL_BENCH_KEEP:-0}" = 1 ]; then echo "bench: kept $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# measure OUT CMD...: run CMD (stdout to OUT.out), print "rc wall user sys maxrss_kb"
# from the child's rusage (the same numbers /usr/bin/time -v prints).
measure() {
	local out=$1; shift
	python3 - "$out" "$@" <<'PY'
import resource, subprocess, sys, time
out = sys.argv[1]
t = time.monotonic()
with open(out + ".out", "w") as o, open(out + ".err", "w") as e:
    rc = subprocess.call(sys.argv[2:], stdout=o, stderr=e)
wall = time.monotonic() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(rc, "%.2f" % wall, "%.2f" % r.ru_utime, "%.2f" % r.ru_stime, r.ru_maxrss)
PY
}
evict() { python3 -c "
import os, sys
for p in sys.argv[1:]:
    if os.path.exists(p):
        fd = os.open(p, os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)" "$@"; }

echo "bench: $("$G" version 2>/dev/null | head -1), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bench: generating a ${HOURS} h store in $W/run ..."
GEN_ARGS=("$W/run" --hours "$HOURS")
[ "${GL_BENCH_REQUESTS:-0}" = 1 ] && GEN_ARGS+=(--requests)
"$GEN" "${GEN_ARGS[@]}" || { echo "bench: gl_gen_store failed" >&2; exit 2; }
python3 - "$W/run/run.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
q = lambda s: c.execute(s).fetchone()[0]
print("bench: store: %d windows, %d window_metrics rows (%d histograms, %.0f MB of histogram blobs), "
      "%d faults, %d train_steps rows, %d requests rows" % (
      q("select count(*) from windows"), q("select count(*) from window_metrics"),
      q("select count(*) from window_metrics where hist is not null"),
      q("select coalesce(sum(length(hist)),0) from window_metrics") / 1e6,
      q("select count(*) from faults"), q("select count(*) from train_steps"), q("select count(*) from requests")))
PY

# cold first (the generator just wrote the file: evict it), then warm runs
evict "$W/run/run.db" "$W/run/run.db-wal"
read -r rc c_wall c_user c_sys c_rss < <(measure "$W/cold" "$G" report "$W/run")
[ "$rc" = 0 ] || { echo "bench: gauntlet report failed (exit $rc):"; cat "$W/cold.err"; exit 2; }
echo "bench: cold: ${c_wall} s wall, ${c_user} s user, ${c_sys} s sys, max RSS $((c_rss / 1024)) MiB"
WALLS=()
W_USER=0; W_SYS=0; W_RSS=0
for i in $(seq "$REPS"); do
	read -r rc wall user sys rss < <(measure "$W/warm$i" "$G" report "$W/run")
	[ "$rc" = 0 ] || { echo "bench: gauntlet report failed (exit $rc):"; cat "$W/warm$i.err"; exit 2; }
	echo "bench: warm $i: ${wall} s wall, ${user} s user, ${sys} s sys, max RSS $((rss / 1024)) MiB"
	WALLS+=("$wall")
	W_USER=$user; W_SYS=$sys
	[ "$rss" -gt "$W_RSS" ] && W_RSS=$rss
done
read -r best median < <(printf '%s\n' "${WALLS[@]}" | sort -n | awk '{a[NR]=$1} END {print a[1], a[int((NR+1)/2)]}')
echo "bench: reports written:"
for f in report.json report.md report.html junit.xml timeseries.csv manifest.json; do
	[ -e "$W/run/$f" ] && printf '  %-16s %10d bytes\n' "$f" "$(stat -c %s "$W/run/$f")"
done
for f in "$W"/run/*; do
	case $(basename "$f") in run.db*|report.json|report.md|report.html|junit.xml|timeseries.csv|manifest.json) ;;
	*) printf '  %-16s %10d bytes\n' "$(basename "$f")" "$(stat -c %s "$f")" ;; esac
done
python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
print('bench: report.json: verdict %s, %d windows, %d faults, %d targets' % (r['verdict'], r['run']['windows'], len(r['faults']), len(r['targets'])))" "$W/run/report.json"

if [ "${GL_BENCH_PROFILE:-0}" = 1 ]; then
	if command -v perf >/dev/null; then
		perf record -o "$W/perf.data" "$G" report "$W/run" >/dev/null 2>&1
		echo "bench: top symbols of one warm run (perf):"
		perf report -i "$W/perf.data" --no-children --sort symbol 2>/dev/null | grep -E '^ +[0-9]' | head -15
	else
		echo "bench: GL_BENCH_PROFILE=1 but no perf"
	fi
fi

met() { python3 -c "import sys; print('met' if float(sys.argv[1]) < float(sys.argv[2]) else 'MISSED')" "$1" "$2"; }
echo
printf '%-44s %-18s %-14s %s\n' "metric" "measured" "goal" "result"
printf '%-44s %-18s %-14s %s\n' "report wall, ${HOURS} h store, warm (best)" "${best} s" "< 10 s" "$(met "$best" 10)"
printf '%-44s %-18s %-14s %s\n' "report wall, warm (median of $REPS)" "${median} s" "< 10 s" "$(met "$median" 10)"
printf '%-44s %-18s %-14s %s\n' "report wall, cold page cache" "${c_wall} s" "< 10 s" "$(met "$c_wall" 10)"
printf '%-44s %-18s %-14s %s\n' "report CPU (user + sys), last warm run" "$(python3 -c "print('%.2f s' % ($W_USER + $W_SYS))")" "" ""
printf '%-44s %-18s %-14s %s\n' "report max RSS" "$((W_RSS / 1024)) MiB" "< 256 MiB" "$(met "$W_RSS" $((256 * 1024)))"
exit 0
