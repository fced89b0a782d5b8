#!/usr/bin/env bash
# store.sh - benchmark of the run store's growth (harness/core/store.c,
# store_keep.c; docs/store.md) under the inference workload against the
# bundled target server (`gauntlet target`). Not a pass/fail test and not
# registered in ctest: it prints figures side by side, then a summary table
# (mode, bytes/s, 168-hour projection, goal, met/missed). A missed goal is
# printed as missed; the exit status is 0 whenever every part ran.
#
# Each mode runs 60 s at 2,000 req/s (open loop, constant arrival,
# non-streaming, 4 output tokens) with the scenario's default window (10 s):
#   default   "store" not set: requests "sample", events "info"
#   all       "store": {"requests": "all"}, every request kept, for contrast
# The store is measured from 10 s into the run to its last second, as the
# bytes of the database's pages in use that a reader sees (page_count less
# freelist_count, times page_size: what run.db holds once the WAL is
# copied into it): bytes/s of growth, times 604,800 for a 168-hour run,
# against the goal of 2 GiB. Beside it the files on disk (run.db + -wal +
# -shm) at the end, the WAL's peak during the run (bounded by the store,
# not growth), and per table the bytes the finished store holds (dbstat).
#
# Environment:
#   GAUNTLET=path         the binary (default: build/gauntlet, else /tmp/b/gauntlet)
#   GL_BENCH_SECONDS=S    length of each run (default 60)
#   GL_BENCH_RATE=R       requests per second (default 2000)
#   GL_BENCH_MODES="default all"  the modes to run
#   GL_BENCH_KEEP=1       keep the temp dir (run stores, logs) and print its path
#
# Every process it starts is killed on exit (by pid); all traffic is on
# 127.0.0.1; every run is bounded in time.
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
command -v python3 >/dev/null || { echo "bench: python3 is needed to read stores" >&2; exit 2; }

SECS=${GL_BENCH_SECONDS:-60}
RATE=${GL_BENCH_RATE:-2000}
MODES=${GL_BENCH_MODES:-default all}
GOAL=$((2 * 1024 * 1024 * 1024))
HOURS168=604800

W=$(mktemp -d /tmp/gl-bench.XXXXXX)
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do
		for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null
	done
	if [ "${GL_BENCH_KEEP:-0}" = 1 ]; then echo "bench: kept $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null

TPID=
start_target() {
	rm -f "$W/t.ready"
	"$G" target --listen 127.0.0.1:0 --ready-file "$W/t.ready" --max-seqs 100000 \
		--prefill-us-per-token 0 --ttft-ms 5 --itl-ms 1 > "$W/target.log" 2>&1 &
	TPID=$!
	PIDS+=("$TPID")
	for _ in $(seq 100); do [ -s "$W/t.ready" ] && break; sleep 0.1; done
	[ -s "$W/t.ready" ] || { echo "bench: target did not start:" >&2; cat "$W/target.log" >&2; exit 4; }
}
store_bytes() { # DIR: run.db + -wal + -shm
	local n=0 f s
	for f in "$1/run.db" "$1/run.db-wal" "$1/run.db-shm"; do
		s=$(stat -c %s "$f" 2>/dev/null) && n=$((n + s))
	done
	echo "$n"
}
wal_bytes() { stat -c %s "$1/run.db-wal" 2>/dev/null || echo 0; }
used_bytes() { # DIR: pages in use, as a reader sees the store now
	python3 -c "
import sqlite3, sys
c = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True, timeout=5)
ps, pc, fl = (c.execute('PRAGMA ' + p).fetchone()[0] for p in ('page_size', 'page_count', 'freelist_count'))
print((pc - fl) * ps)" "$1/run.db" 2>/dev/null || echo 0
}

declare -A BPS PROJ ROWS REQS WALPEAK
start_target
ADDR=$(cat "$W/t.ready")
for mode in $MODES; do
	case $mode in
	default) store='' ;;
	all) store=', "store": { "requests": "all" }' ;;
	*) echo "bench: unknown mode $mode" >&2; exit 2 ;;
	esac
	cat > "$W/$mode.json" <<JSON
{
  "name": "bench-store-$mode",
  "duration": "${SECS}s",
  "workloads": {
    "inference": {
      "endpoints": ["http://$ADDR/v1"],
      "model": "gauntlet-target",
      "arrival": { "mode": "constant", "rate": $RATE },
      "input_tokens": 16,
      "output_tokens": 4,
      "max_in_flight": 10000,
      "stream": false,
      "timeout": "10s"
    }
  },
  "targets": { "steady": { "inference.ttft_ms.p99": "<= 60000", "inference.error_rate": "<= 1" } }$store
}
JSON
	echo "== $mode: ${SECS} s at $RATE req/s =="
	"$G" run "$W/$mode.json" --out "$W/$mode" > "$W/$mode.log" 2>&1 &
	RPID=$!
	PIDS+=("$RPID")
	t0=$(date +%s.%N)
	b10= t10= blast= tlast= peak=0
	while kill -0 "$RPID" 2>/dev/null; do
		t=$(date +%s.%N)
		el=$(python3 -c "print(float('$t') - float('$t0'))")
		b=$(used_bytes "$W/$mode")
		wb=$(wal_bytes "$W/$mode")
		[ "$wb" -gt "$peak" ] && peak=$wb
		if [ -z "$b10" ] && python3 -c "import sys; sys.exit(0 if $el >= 10 else 1)"; then b10=$b t10=$t; fi
		if python3 -c "import sys; sys.exit(0 if $el <= $SECS - 1 else 1)"; then blast=$b tlast=$t; fi
		sleep 0.5
	done
	wait "$RPID"
	rc=$?
	WALPEAK[$mode]=$peak
	bps=$(python3 -c "print(round(($blast - $b10) / ($tlast - $t10)))")
	BPS[$mode]=$bps
	PROJ[$mode]=$((bps * HOURS168))
	REQS[$mode]=$(python3 -c "
import sqlite3; c = sqlite3.connect('$W/$mode/run.db')
print(c.execute(\"SELECT sum(counter) FROM window_metrics WHERE name='inference.requests'\").fetchone()[0])")
	ROWS[$mode]=$(python3 -c "
import sqlite3; c = sqlite3.connect('$W/$mode/run.db')
print(c.execute('SELECT count(*) FROM requests').fetchone()[0])")
	echo "  run exit $rc; $(tail -1 "$W/$mode.log")"
	echo "  requests finished ${REQS[$mode]} ($(python3 -c "print(round(${REQS[$mode]} / $SECS))") req/s), request rows stored ${ROWS[$mode]}"
	echo "  store (pages in use) from 10 s to $((SECS - 1)) s: $(python3 -c "print($b10)") -> $blast bytes, $bps bytes/s"
	echo "  files at the end (run.db + -wal + -shm): $(store_bytes "$W/$mode") bytes; WAL peak during the run ${peak} bytes"
	echo "  bytes per table in the finished store (dbstat):"
	python3 - "$W/$mode/run.db" "$SECS" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
secs = float(sys.argv[2])
try:
    rows = c.execute("SELECT name, sum(pgsize), sum(payload) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
except sqlite3.Error as e:
    print("    (no dbstat in this SQLite: %s)" % e); sys.exit(0)
tables = {n for (n,) in c.execute("SELECT name FROM sqlite_schema WHERE type='table'")}
print("    %-24s %8s %10s %10s %14s" % ("table/index", "rows", "bytes", "payload", "bytes/hour"))
for name, size, payload in rows:
    n = c.execute('SELECT count(*) FROM "%s"' % name).fetchone()[0] if name in tables else ""
    print("    %-24s %8s %10d %10d %14.0f" % (name, n, size, payload, size / secs * 3600))
nw = c.execute("SELECT count(*) FROM windows").fetchone()[0]
wm = c.execute("SELECT sum(length(hist)) + sum(length(name)) + 16 * count(*) FROM window_metrics").fetchone()[0] or 0
print("    windows %d; window_metrics payload %.0f bytes per window" % (nw, wm / max(nw, 1)))
PY
done

echo "== summary =="
printf '  %-10s %12s %12s %18s %10s %s\n' mode req/s bytes/s "168 h projection" goal verdict
for mode in $MODES; do
	p=${PROJ[$mode]}
	printf '  %-10s %12s %12s %14.2f GiB %6s GiB %s\n' "$mode" "$(python3 -c "print(round(${REQS[$mode]} / $SECS))")" \
		"${BPS[$mode]}" "$(python3 -c "print($p / 2**30)")" 2 "$([ "$p" -le "$GOAL" ] && echo met || echo missed)"
done
exit 0
