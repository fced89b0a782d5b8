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
# caps and kept + dropped == requests hold across the kill
store_scenario "$T/res.json" 6s 300 ""
"$GAUNTLET" run "$T/res.json" --out "$T/res" >"$T/res.log" 2>&1 &
RES_PID=$!
PIDS+=("$RES_PID")
sleep 3.3
kill -9 "$RES_PID" 2>/dev/null
wait "$RES_PID" 2>/dev/null
"$GAUNTLET" resume "$T/res" >"$T/res2.log" 2>&1; rc=$?
check "resume after SIGKILL finished (exit $rc)" [ "$rc" = 0 ]
check "resume: at most 50 successful and 20 failed rows per window and class" \
	[ "$(q res "SELECT count(*) FROM (SELECT window FROM requests GROUP BY window, error_class
		HAVING count(*) > CASE WHEN error_class IS NULL THEN 50 ELSE 20 END)")" = 0 ]
check "resume: kept + dropped == requests in every window, rows == kept" counts_exact res

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
# has grown past 1.25 MiB (its limit is 1 MiB) and 1 s more, 12 s at most
# (6 s flat was not enough for the sanitizer build beside other tests:
# 1.18 MB), then lets go for 4 s: the checkpoints at the window closes
# copy it, the next commit cuts it back.
store_scenario "$T/wal.json" 20s 1000 '{"requests": "all"}'
"$GAUNTLET" run "$T/wal.json" --out "$T/wal" >"$T/wal.log" 2>&1 &
WAL_PID=$!
PIDS+=("$WAL_PID")
python3 - "$T/wal/run.db" >"$T/wal.figures" <<'PY'
import os, sqlite3, sys, time
db = sys.argv[1]
for _ in range(100):
    if os.path.exists(db + "-wal"): break
    time.sleep(0.05)
time.sleep(1.5)
def size():
    try: return os.path.getsize(db + "-wal")
    except OSError: return 0
peak, free_min = 0, 1 << 62
c = sqlite3.connect(db, isolation_level=None)
c.execute("BEGIN"); c.execute("SELECT count(*) FROM requests").fetchone()
t = time.time(); grown = None
while time.time() - t < 12 and (grown is None or time.time() - grown < 1):
    peak = max(peak, size()); time.sleep(0.05)
    if grown is None and peak > 1310720: grown = time.time()
c.execute("COMMIT")
t = time.time()
while time.time() - t < 4:
    peak = max(peak, size()); free_min = min(free_min, size()); time.sleep(0.05)
print(peak, free_min, size())
PY
wait "$WAL_PID"
read -r wal_peak wal_free wal_last < "$T/wal.figures"
echo "wal: peak ${wal_peak:-?} bytes while a reader held a snapshot; after it let go: smallest ${wal_free:-?}, last ${wal_last:-?} bytes"
check "wal: grew past its 1 MiB limit while the reader held its snapshot (peak ${wal_peak:-?}), never past 8 MiB" \
	[ "${wal_peak:-0}" -gt 1310720 -a "${wal_peak:-0}" -le 8388608 ]
check "wal: cut back to 1 MiB or less within 4 s after the reader let go (${wal_free:-?} bytes)" \
	[ "${wal_free:-99999999}" -le 1048576 ]

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
