#!/usr/bin/env bash
# test_store.sh - the run store's retention (docs/store.md) on real runs
# against `gauntlet target` on loopback: what is kept of the per-request
# rows under "sample" (the default), "all" and "none", errors kept up to
# their cap and every request not kept counted (kept + dropped equals the
# harness's own request counter per window, and the target's count of
# chat requests it answered, less those cut at the stop); debug events
# rate-limited per source and minute; the WAL cut back while a reader
# holds snapshots; the "store" key refused with its path when wrong.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/inference_lib.sh"

# a third of the answers are 500s: errors of one class in every window
start_target st --misbehave http_500 --misbehave-rate 0.3 --verbose --output-tokens 4
# store_scenario FILE DURATION RATE STORE_JSON
store_scenario() {
	scenario "$1" "$2" "http://$ADDR/v1" "\"stream\": false, \"output_tokens\": 4, \"input_tokens\": 20, \"arrival\": { \"mode\": \"constant\", \"rate\": $3 }"
	python3 - "$1" "$4" <<'PY'
import json, sys
sc = json.load(open(sys.argv[1]))
sc["targets"]["steady"]["inference.error_rate"] = "<= 1"
sc.pop("store", None)            # the helper's "all": here the store's own default
if sys.argv[2]:
    sc["store"] = json.loads(sys.argv[2])
json.dump(sc, open(sys.argv[1], "w"), indent=1)
PY
}
chats() { grep -c 'request [0-9]* /v1/chat/completions' "$T/st.log"; }
# q RUN 'SQL' -> rows
q() { sql "$T/$1/run.db" "$2"; }
# per window: harness count | rows kept | kept | dropped (retention)
per_window() {
	q "$1" "SELECT w.idx, w.counter,
		(SELECT count(*) FROM requests r WHERE r.window = w.idx),
		(SELECT coalesce(sum(kept),0) FROM retention t WHERE t.what='requests' AND t.bucket = w.idx),
		(SELECT coalesce(sum(dropped),0) FROM retention t WHERE t.what='requests' AND t.bucket = w.idx)
		FROM window_metrics w WHERE w.name = 'inference.requests' ORDER BY w.idx"
}
# every window: kept + dropped == the harness's request counter, and the
# rows in the table are the kept ones
counts_exact() {
	local bad=0 idx n rows kept dropped
	while IFS='|' read -r idx n rows kept dropped; do
		if [ "$((kept + dropped))" -ne "$n" ] || [ "$rows" -ne "$kept" ]; then
			echo "  window $idx: $n requests, $rows rows, kept $kept + dropped $dropped"; bad=1
		fi
	done < <(per_window "$1")
	[ "$(per_window "$1" | wc -l)" -ge 3 ] && [ "$bad" = 0 ]
}
total() { q "$1" "SELECT sum(counter) FROM window_metrics WHERE name='inference.requests'"; }
offered() { q "$1" "SELECT coalesce(sum(kept+dropped),0) FROM retention WHERE what='requests'"; }

# ---- default: "sample" ----------------------------------------------------
store_scenario "$T/def.json" 4s 300 ""
before=$(chats)
run def "$T/def.json"; rc=$?
sent=$(( $(chats) - before ))
check "default run finished (exit $rc)" [ "$rc" = 0 ]
echo "default: per window (idx|requests|rows|kept|dropped):"; per_window def | sed 's/^/  /'
q def "SELECT bucket, class, kept, dropped, stride FROM retention WHERE what='requests' ORDER BY bucket, class" | sed 's/^/  retention /'
check "default: at most 50 successful rows per window" \
	[ "$(q def "SELECT count(*) FROM (SELECT window FROM requests WHERE error_class IS NULL GROUP BY window HAVING count(*) > 50)")" = 0 ]
check "default: at most 20 failed rows per window and class" \
	[ "$(q def "SELECT count(*) FROM (SELECT window FROM requests WHERE error_class IS NOT NULL GROUP BY window, error_class HAVING count(*) > 20)")" = 0 ]
check "default: errors kept in every full window (up to the cap: 10 to 20 of http_5xx)" \
	[ "$(q def "SELECT count(*) FROM (SELECT window, count(*) n FROM requests WHERE error_class='http_5xx' GROUP BY window HAVING n >= 10 AND n <= 20)")" -ge 3 ]
check "default: kept + dropped == requests in every window, rows == kept" counts_exact def
t=$(total def); o=$(offered def)
check "default: $o counted by the store == $t finished (harness) <= $sent the target answered, at most 64 cut at the stop" \
	[ "$o" = "$t" -a "$t" -le "$sent" -a $((sent - t)) -le 64 ]
check "default: failures counted per class match the harness's (inference.errors)" [ \
	"$(q def "SELECT coalesce(sum(kept+dropped),0) FROM retention WHERE what='requests' AND class <> 'ok'")" = \
	"$(q def "SELECT sum(counter) FROM window_metrics WHERE name='inference.errors'")" ]
# spread, not the first N: the kept successes of a full window reach its last quarter
check "default: the sample spans each full window (kept successes in its first and last quarter)" [ "$(q def "
	SELECT count(*) FROM windows w WHERE w.idx >= 1 AND w.end_ns - w.start_ns >= 900000000 AND NOT (
	  EXISTS (SELECT 1 FROM requests r WHERE r.window = w.idx AND r.error_class IS NULL
	          AND r.t_end_ns < w.start_ns + (w.end_ns - w.start_ns) / 4) AND
	  EXISTS (SELECT 1 FROM requests r WHERE r.window = w.idx AND r.error_class IS NULL
	          AND r.t_end_ns > w.end_ns - (w.end_ns - w.start_ns) / 4))")" = 0 ]

# ---- a controller killed mid-window, then resumed -------------------------------
# the resumed process reads the window's counts and kept rows back: the
# caps and kept + dropped == requests hold across the kill. Killed once 2
# windows are closed and the open one (complete = 0) has counts and kept
# rows in the store: mid-window, its first part committed.
store_scenario "$T/res.json" 6s 300 ""
"$GAUNTLET" run "$T/res.json" --out "$T/res" >"$T/res.log" 2>&1 &
RES_PID=$!
PIDS+=("$RES_PID")
mid_window() {
	sql_is "$T/res/run.db" "SELECT (SELECT count(*) FROM windows WHERE complete = 1) >= 2 AND EXISTS (
		SELECT 1 FROM windows w WHERE w.complete = 0
		AND EXISTS (SELECT 1 FROM retention t WHERE t.what = 'requests' AND t.bucket = w.idx)
		AND EXISTS (SELECT 1 FROM requests r WHERE r.window = w.idx))" 1
}
check "resume: the run reached a window half stored (2 closed before it)" until_ok 60 mid_window
kill -9 "$RES_PID" 2>/dev/null
wait "$RES_PID" 2>/dev/null
"$GAUNTLET" resume "$T/res" >"$T/res2.log" 2>&1; rc=$?
check "resume after SIGKILL finished (exit $rc)" [ "$rc" = 0 ]
check "resume: at most 50 successful and 20 failed rows per window and class" \
	[ "$(q res "SELECT count(*) FROM (SELECT window FROM requests GROUP BY window, error_class
		HAVING count(*) > CASE WHEN error_class IS NULL THEN 50 ELSE 20 END)")" = 0 ]
check "resume: kept + dropped == requests in every window, rows == kept" counts_exact res

# ---- a commit past the window's boundary, killed before the window closed -----
# A fault step's journal commits the open window when the step happens; at
# a window boundary that commit can come before the window timer, writing
# the open window a little past its boundary. A controller killed between
# the two leaves that row open (complete = 0) with the run's clock past the
# boundary: the resumed run must close that window at its boundary, not
# open the next one beside it. The state is made exactly: a run killed
# mid-window, its open row and clock moved 3 ms past the boundary, as that
# commit writes them.
store_scenario "$T/past.json" 5s 100 ""
"$GAUNTLET" run "$T/past.json" --out "$T/past" >"$T/past.log" 2>&1 &
PAST_PID=$!
PIDS+=("$PAST_PID")
check "past: the run reached an open window (2 closed before it)" until_ok 60 sql_is "$T/past/run.db" \
	"SELECT (SELECT count(*) FROM windows WHERE complete = 1) >= 2 AND EXISTS (SELECT 1 FROM windows WHERE complete = 0)" 1
kill -9 "$PAST_PID" 2>/dev/null
wait "$PAST_PID" 2>/dev/null
python3 - "$T/past/run.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
idx, start = c.execute("SELECT idx, start_ns FROM windows WHERE complete = 0 ORDER BY idx DESC LIMIT 1").fetchone()
win = c.execute("SELECT end_ns - start_ns FROM windows WHERE idx = 0").fetchone()[0]
end = start + win + 3000000
c.execute("UPDATE windows SET end_ns = ?, scn_end_ns = ? WHERE idx = ?", (end, end, idx))
c.execute("UPDATE run SET elapsed_ns = ?", (end,))
c.commit()
print("past: window %d open to %.3f s, 3 ms past its boundary %.3f s" % (idx, end / 1e9, (start + win) / 1e9))
PY
"$GAUNTLET" resume "$T/past" >"$T/past2.log" 2>&1; rc=$?
check "past: resume finished (exit $rc)" [ "$rc" = 0 ]
past_bad=$(q past "SELECT group_concat(w.idx || ' [' || w.start_ns || ', ' || w.end_ns || '] complete ' || w.complete, '; ')
	FROM windows w LEFT JOIN windows p ON p.idx = w.idx - 1
	WHERE w.complete = 0 OR (w.idx > 0 AND (p.idx IS NULL OR p.end_ns <> w.start_ns))")
check "past: windows 0..4 contiguous and complete, none beside another (${past_bad:-none}; $(q past "SELECT count(*) FROM windows") rows)" \
	[ -z "$past_bad" -a "$(q past "SELECT count(*) || ':' || max(idx) || ':' || max(end_ns) FROM windows")" = "5:4:5000000000" ]

# ---- errors under their cap are all kept --------------------------------------
store_scenario "$T/err.json" 3s 300 '{"requests": "sample", "sample_per_window": 5, "errors_per_window": 100000}'
run err "$T/err.json"
check "errors_per_window 100000: every failed request kept, none dropped" [ \
	"$(q err "SELECT count(*) FROM requests WHERE error_class IS NOT NULL")" = \
	"$(q err "SELECT sum(counter) FROM window_metrics WHERE name='inference.errors'")" -a \
	"$(q err "SELECT coalesce(sum(dropped),0) FROM retention WHERE what='requests' AND class <> 'ok'")" = 0 ]
check "sample_per_window 5: at most 5 successes per window" \
	[ "$(q err "SELECT coalesce(max(n),0) FROM (SELECT count(*) n FROM requests WHERE error_class IS NULL GROUP BY window)")" -le 5 ]
check "sample_per_window 5: kept + dropped == requests in every window" counts_exact err

# ---- "all" and "none" ---------------------------------------------------------
store_scenario "$T/all.json" 3s 300 '{"requests": "all"}'
run all "$T/all.json"
check "all: one row per request ($(q all "SELECT count(*) FROM requests") rows, $(total all) requests), none dropped" [ \
	"$(q all "SELECT count(*) FROM requests")" = "$(total all)" -a \
	"$(q all "SELECT coalesce(sum(dropped),0) FROM retention WHERE what='requests'")" = 0 ]
store_scenario "$T/none.json" 3s 300 '{"requests": "none"}'
run none "$T/none.json"
check "none: no row, every request counted as dropped ($(offered none) of $(total none))" [ \
	"$(q none "SELECT count(*) FROM requests")" = 0 -a "$(offered none)" = "$(total none)" -a "$(total none)" -gt 100 ]
check "none: kept + dropped == requests in every window" counts_exact none

# ---- debug events -------------------------------------------------------------
dbg_scenario() { # FILE STORE_JSON
	python3 - "$1" "$2" <<'PY'
import json, sys
sc = {"name": "store-debug", "duration": "3s", "window": "1s",
      "workloads": {"null": {"rate": 200, "debug_every": 2}},
      "targets": {"steady": {"null.tick_lag_ms.p99": "<= 5000"}}}
if sys.argv[2]:
    sc["store"] = json.loads(sys.argv[2])
json.dump(sc, open(sys.argv[1], "w"))
PY
}
dbg_scenario "$T/dbg.json" ""
run dbg "$T/dbg.json"
ticks=$(q dbg "SELECT sum(counter) FROM window_metrics WHERE name='null.ticks'")
kept=$(q dbg "SELECT count(*) FROM events WHERE level='debug' AND source='null'")
counted=$(q dbg "SELECT coalesce(sum(kept+dropped),0) FROM retention WHERE what='events' AND class='null'")
echo "debug: $ticks ticks, $((ticks / 2)) debug events, $kept stored, $counted counted"
check "debug events: 6 stored per source and minute, the rest counted (kept + dropped == $((ticks / 2)) offered)" \
	[ "$kept" = 6 -a "$counted" = "$((ticks / 2))" -a "$ticks" -gt 100 ]
check "debug events: info and above all stored" [ "$(q dbg "SELECT count(*) FROM events WHERE level='info'")" -ge 1 ]
dbg_scenario "$T/dbgall.json" '{"events": "debug"}'
run dbgall "$T/dbgall.json"
check "events \"debug\": every debug event stored" [ \
	"$(q dbgall "SELECT count(*) FROM events WHERE level='debug' AND source='null'")" = \
	"$(( $(q dbgall "SELECT sum(counter) FROM window_metrics WHERE name='null.ticks'") / 2 ))" ]

# ---- the WAL while a reader holds snapshots -------------------------------------
# "all" at 1,000 req/s; a reader holds a read transaction until the WAL
# has grown past 1.25 MiB (its limit is 1 MiB) and a window has closed
# after that, then lets go: the checkpoints at the window closes copy it,
# the next commit cuts it back, while the run (20 windows) still runs.
store_scenario "$T/wal.json" 20s 1000 '{"requests": "all"}'
"$GAUNTLET" run "$T/wal.json" --out "$T/wal" >"$T/wal.log" 2>&1 &
WAL_PID=$!
PIDS+=("$WAL_PID")
WAL=$T/wal/run.db-wal WAL_PEAK=0
# wal_over BYTES: the WAL is larger (its size read into WAL_SIZE, the peak
# kept)
wal_over() {
	WAL_SIZE=$(stat -c %s "$WAL" 2>/dev/null) || return 1
	[ "$WAL_SIZE" -gt "$WAL_PEAK" ] && WAL_PEAK=$WAL_SIZE
	[ "$WAL_SIZE" -gt "$1" ]
}
closed() { sql "$T/wal/run.db" "SELECT count(*) FROM windows WHERE complete = 1"; }
has_requests() { sql_is "$T/wal/run.db" "SELECT count(*) > 0 FROM requests" 1; }
check "wal: the run stores requests" until_ok 60 has_requests
# the reader: a snapshot taken, held until it reads a line from its fifo
mkfifo "$T/wal.ctl"
exec {WAL_CTL}<>"$T/wal.ctl"
python3 -c '
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN"); c.execute("SELECT count(*) FROM requests").fetchone()
print("held", flush=True)
sys.stdin.readline()
c.execute("COMMIT")
print("released", flush=True)' "$T/wal/run.db" <&"$WAL_CTL" >"$T/wal.reader" 2>&1 &
PIDS+=("$!")
check "wal: the reader holds a snapshot" until_ok 60 grep -q held "$T/wal.reader"
check "wal: grows past 1.25 MiB while the reader holds it" until_ok 60 wal_over 1310720
n0=$(closed)
grown_closed() { wal_over 0; [ "$(closed)" -gt "$n0" ]; }
check "wal: a window closes after that, the snapshot still held" until_ok 60 grown_closed
held_size=$WAL_SIZE
echo go >&"$WAL_CTL"
check "wal: the reader let go" until_ok 60 grep -q released "$T/wal.reader"
exec {WAL_CTL}>&-
n1=$(closed)
# wal_cut: 1 MiB or less while the run is still in its windows (the store
# closed at the end would take the WAL away as well)
wal_cut() { ! wal_over 1048576 && [ -e "$WAL" ] && [ "$(closed)" -lt 20 ]; }
until_ok 60 wal_cut; cut=$?
wal_free=$WAL_SIZE n2=$(closed)
wait "$WAL_PID"
echo "wal: peak $WAL_PEAK bytes while a reader held a snapshot ($held_size when it let go after window $n1); cut back to ${wal_free:-?} bytes by window $n2"
check "wal: grew past its 1 MiB limit while the reader held its snapshot (peak $WAL_PEAK), never past 8 MiB" \
	[ "$WAL_PEAK" -gt 1310720 -a "$WAL_PEAK" -le 8388608 ]
check "wal: cut back to 1 MiB or less after the reader let go, while the run ran (${wal_free:-?} bytes, $((n2 - n1)) window(s) later)" \
	[ "$cut" = 0 ]

# ---- validation ---------------------------------------------------------------
printf '{"name":"v","duration":"1m","workloads":{"null":{}},"targets":{"steady":{"null.tick_lag_ms.p99":"<= 5"}},"store":{"requests":"some"}}' > "$T/v1.json"
"$GAUNTLET" validate "$T/v1.json" >"$T/v1.out" 2>&1; rc=$?
check "validate: store.requests 'some' refused naming the path and the choices (exit $rc)" \
	bash -c "[ $rc = 2 ] && grep -q 'store.requests: expected one of sample, all, none' '$T/v1.out'"
printf '{"name":"v","duration":"1m","workloads":{"null":{}},"targets":{"steady":{"null.tick_lag_ms.p99":"<= 5"}},"store":{"requests":"all","sample_per_window":-1,"event":"x"}}' > "$T/v2.json"
"$GAUNTLET" validate "$T/v2.json" >"$T/v2.out" 2>&1; rc=$?
check "validate: a negative sample_per_window and a misspelt key refused with their paths (exit $rc)" \
	bash -c "[ $rc = 2 ] && grep -q 'store.sample_per_window' '$T/v2.out' && grep -q \"store.event: unknown key 'event' (did you mean 'events'?)\" '$T/v2.out'"
printf '{"name":"v","duration":"1m","workloads":{"null":{}},"targets":{"steady":{"null.tick_lag_ms.p99":"<= 5"}},"store":{"requests":"all","sample_per_window":10}}' > "$T/v3.json"
"$GAUNTLET" validate "$T/v3.json" >"$T/v3.out" 2>&1; rc=$?
check "validate: sample_per_window with requests \"all\" refused (exit $rc)" \
	bash -c "[ $rc = 2 ] && grep -q 'store.sample_per_window: only with \"requests\": \"sample\"' '$T/v3.out'"
finish
