#!/usr/bin/env bash
# test_mut_inference.sh - inference checks against ground truth that
# scripts/mutate.sh needs in a short test (test_inference runs alone and
# long); each judged against a number known before the run:
#  1. coordinated omission: a 2 s server stall under 100 req/s open loop
#     (at most 50 in flight) shows in ttft_ms, measured from the intended
#     send time, and not in ttft_from_send_ms;
#  2. trace replay at "speed": 20 sends each request at the trace's own
#     offset / 20 (the CSV's timestamps, read here), within 5 ms;
#  3. a phase with "load": 3 triples the open-loop arrival rate: the
#     intended send times of a constant 20 req/s schedule, counted per
#     phase from the store, are 60 and 180 (+-4).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/inference_lib.sh"

# --- 1. coordinated omission -----------------------------------------------------------------
start_target co --ttft-ms 10 --itl-ms 2 --output-tokens 5 --max-seqs 1000 --misbehave stall_ms=2000 --stall-at-s 3
scenario "$T/co.json" 8s "http://$ADDR/v1" '"arrival": { "mode": "poisson", "rate": 100 }, "output_tokens": 5, "max_in_flight": 50, "input_tokens": 10'
run co "$T/co.json"
check "CO: run completed" [ -s "$T/co/report.json" ]
m co "'ttft_ms p50/p90/p99 %.0f/%.0f/%.0f; from send %.0f/%.0f/%.0f' % tuple(i[k][p] for k in ('ttft_ms','ttft_from_send_ms') for p in ('p50','p90','p99'))"
check "CO: p99 ttft includes the 2 s stall (>= 1500 ms)" m co "i['ttft_ms']['p99'] >= 1500 or sys.exit(1)"
check "CO: the queued requests' wait shows in ttft_ms, not in ttft_from_send_ms (p90 differs by > 500 ms)" \
	m co "i['ttft_ms']['p90'] - i['ttft_from_send_ms']['p90'] > 500 or sys.exit(1)"
check "CO: latency_ms also counts from the intended send (p99 >= 1500 ms)" m co "i['latency_ms']['p99'] >= 1500 or sys.exit(1)"

# --- 2. trace replay timing ------------------------------------------------------------------
start_target misc --ttft-ms 5 --itl-ms 1 --max-seqs 1000
TRACE=$T/azure-conv-2023-sample.csv
cp "$GL_SOURCE_DIR/scenarios/traces/azure-conv-2023-sample.csv" "$TRACE"
scenario "$T/trace.json" 4s "http://$ADDR/v1" '"arrival": { "mode": "trace", "speed": 20, "loop": false }, "trace": "azure-conv-2023-sample.csv", "output_tokens": 4'
run trace "$T/trace.json"
check "trace: run completed" [ -s "$T/trace/report.json" ]
check "trace: every row sent at its trace offset / 20 (within 5 ms)" python3 - "$TRACE" "$T/trace/run.db" <<'PY'
import csv, datetime, sqlite3, sys
ts = [datetime.datetime.strptime(r['TIMESTAMP'][:26], '%Y-%m-%d %H:%M:%S.%f') for r in csv.DictReader(open(sys.argv[1]))]
want = [(t - ts[0]).total_seconds() / 20 for t in ts]
got = [r[0] / 1e9 for r in sqlite3.connect(sys.argv[2]).execute('select t_intended_ns from requests order by t_intended_ns')]
assert len(got) == len(want), ('rows', len(got), len(want))
off = [g - got[0] for g in got]
worst = max(abs(a - b) for a, b in zip(off, want))
print('trace: %d rows over %.3f s (trace span / 20 = %.3f s); worst offset error %.1f ms' % (len(got), off[-1], want[-1], worst * 1e3))
assert worst < 0.005, worst
PY

# --- 3. phase load ---------------------------------------------------------------------------
cat > "$T/phases.json" <<JSON
{ "name": "phases", "duration": "6s", "window": "1s", "store": { "requests": "all" },
  "workloads": { "inference": { "endpoints": ["http://$ADDR/v1"], "model": "gauntlet-target",
      "arrival": { "mode": "constant", "rate": 20 }, "output_tokens": 4 } },
  "phases": [ { "name": "steady", "for": "3s" }, { "name": "shock", "for": "3s", "load": 3 } ],
  "targets": { "steady": { "inference.error_rate": "<= 0.01" } } }
JSON
run phases "$T/phases.json"
check "phases: run completed" [ -s "$T/phases/report.json" ]
check "phases: 20 req/s in the first 3 s (60 +-4), 60 req/s under load 3 in the next 3 s (180 +-4)" python3 - "$T/phases/run.db" <<'PY'
import sqlite3, sys
t = [r[0] / 1e9 for r in sqlite3.connect(sys.argv[1]).execute('select t_intended_ns from requests')]
a = sum(1 for x in t if x < 3.0)       # run elapsed time: the phase changes at 3 s
b = sum(1 for x in t if 3.0 <= x < 6.0)
print('phases: %d requests intended in 0-3 s, %d in 3-6 s (first at %.3f s)' % (a, b, min(t)))
assert abs(a - 60) <= 4 and abs(b - 180) <= 4, (a, b)
PY
finish
