#!/usr/bin/env bash
# test_inference.sh - the inference load generator against real servers on
# loopback: `gauntlet target` (whose timings are a known model) and its
# misbehaviour modes, a closed port and a TLS mismatch.
#  1. measured TTFT, ITL, TPOT, latency and output tokens agree with the
#     target's model (streaming and not, chat and completions);
#  2. every error class of DESIGN section 4 is produced and counted while
#     the run goes on, memory bounded under 2 MiB SSE lines;
#  3. coordinated omission: a 2 s server stall under 100 req/s open loop
#     shows in ttft_ms (from the intended send) and not in ttft_from_send_ms;
#  4. trace replay sends the trace's token counts; closed loop; phase load;
#     the API key appears nowhere in the run's outputs.
source "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || true

TARGETS=()
start_target() { # NAME ARGS... -> sets ADDR
	local name=$1; shift
	rm -f "$T/$name.ready"
	"$GAUNTLET" target --listen 127.0.0.1:0 --ready-file "$T/$name.ready" "$@" >"$T/$name.log" 2>&1 &
	PIDS+=("$!")
	wait_for "$T/$name.ready" 10 || { echo "target $name did not start"; cat "$T/$name.log"; skip "gauntlet target cannot start"; }
	ADDR=$(cat "$T/$name.ready")
}

# scenario FILE DURATION ENDPOINT EXTRA_INFERENCE_JSON (keys override the base)
scenario() {
	python3 - "$@" <<'PY'
import json, sys
path, duration, endpoint, extra = sys.argv[1:5]
inf = {"endpoints": [endpoint], "model": "gauntlet-target", "input_tokens": 200,
       "output_tokens": 20, "timeout": "10s"}
inf.update(json.loads("{" + extra + "}"))
sc = {"name": "inf-test", "duration": duration, "window": "1s",
      "workloads": {"inference": inf},
      "targets": {"steady": {"inference.ttft_ms.p99": "<= 100000", "inference.error_rate": "<= 1"}}}
json.dump(sc, open(path, "w"), indent=1)
PY
}

run() { # OUT SCENARIO -> rc
	"$GAUNTLET" run "$2" --out "$T/$1" >"$T/$1.log" 2>&1
}

m() { # RUN 'python expression over i = metrics.inference'
	python3 -c "import json,sys; r=json.load(open('$T/$1/report.json')); i=r['metrics']['inference']; print($2)"
}

# --- 1. timings against the model ----------------------------------------------
# TTFT = 80 ms + 200 prompt tokens x 100 us = 100 ms; ITL 15 ms; 20 tokens.
start_target model --ttft-ms 80 --prefill-us-per-token 100 --itl-ms 15 --max-seqs 1000
for api in chat completions; do
	for stream in true false; do
		n=t-$api-$stream
		scenario "$T/$n.json" 6s "http://$ADDR/v1" "\"api\": \"$api\", \"stream\": $stream, \"arrival\": { \"mode\": \"constant\", \"rate\": 20 }"
		run $n "$T/$n.json"
		check "$n: run completed" [ -s "$T/$n/report.json" ]
		check "$n: no errors, > 100 requests" python3 -c "
import json; i=json.load(open('$T/$n/report.json'))['metrics']['inference']
assert i['errors'] == 0 and i['requests'] > 100, (i['errors'], i['requests'], i['errors_by_class'])"
		if [ $stream = true ]; then
			# first token within [model, model + 15 ms] at the median, ITL and TPOT within 2 ms
			check "$n: ttft_from_send p50 = 100 ms (+15)" m $n "100 <= i['ttft_from_send_ms']['p50'] <= 115 or sys.exit(1)"
			check "$n: itl p50 = 15 ms (+-2)" m $n "13 <= i['itl_ms']['p50'] <= 17 or sys.exit(1)"
			check "$n: tpot p50 = 15 ms (+-1)" m $n "14 <= i['tpot_ms']['p50'] <= 16 or sys.exit(1)"
			check "$n: latency p50 = 100 + 19 x 15 = 385 ms (+20)" m $n "385 <= i['latency_ms']['p50'] <= 405 or sys.exit(1)"
		else
			# the whole body arrives when the last token would: 385 ms
			check "$n: latency p50 = 385 ms (+20)" m $n "385 <= i['latency_ms']['p50'] <= 405 or sys.exit(1)"
			check "$n: ttft (first body byte) = latency" m $n "abs(i['ttft_from_send_ms']['p50'] - i['latency_ms']['p50']) < 5 or sys.exit(1)"
		fi
		check "$n: output tokens exactly 20, from usage" python3 -c "
import sqlite3; c=sqlite3.connect('$T/$n/run.db')
rows=list(c.execute('select output_tokens, tokens_estimated from requests where error_class is null'))
assert rows and all(r == (20, 0) for r in rows), rows[:5]"
	done
done

# --- 2. error classes ------------------------------------------------------------------
# class MODE-ARGS... : each request of the run must end in CLASS
err_case() { # NAME CLASS INFERENCE_EXTRA TARGET_ARGS...
	local name=$1 cls=$2 extra=$3; shift 3
	start_target "e-$name" "$@"
	scenario "$T/e-$name.json" 3s "http://$ADDR/v1" "\"arrival\": { \"mode\": \"constant\", \"rate\": 10 }, $extra"
	run "e-$name" "$T/e-$name.json"
	check "error $name -> $cls: every finished request classed $cls, run finished" python3 -c "
import json; r=json.load(open('$T/e-$name/report.json')); i=r['metrics']['inference']
assert r['run']['state'] == 'finished', r['run']['state']
assert i['requests'] >= 3 and i['errors'] == i['requests'] and i['errors_by_class']['$cls'] == i['requests'], (i['requests'], i['errors_by_class'])"
}
err_case 429 http_429 '"stream": true' --misbehave http_429
err_case 500 http_5xx '"stream": true' --misbehave http_500
err_case 503 http_5xx '"stream": false' --misbehave http_503
err_case killed truncated '"stream": true' --misbehave close_mid_stream
err_case garbage malformed '"stream": true' --misbehave garbage_sse
err_case no-done truncated '"stream": true' --misbehave no_done
err_case in-stream stream_error '"stream": true' --misbehave stream_error
err_case hang timeout_total '"stream": true, "timeout": "1500ms"' --misbehave hang
err_case drip timeout_ttft '"stream": true, "ttft_timeout": "1s"' --misbehave slow_drip
# a server that stops sending mid-stream: tokens flow, then 3 s of nothing
start_target idle --itl-ms 100 --ttft-ms 10 --output-tokens 1000 --misbehave stall_ms=30000 --stall-at-s 1
scenario "$T/e-idle.json" 4s "http://$ADDR/v1" '"arrival": { "mode": "constant", "rate": 5 }, "output_tokens": 1000, "idle_timeout": "500ms"'
run e-idle "$T/e-idle.json"
check "error idle -> timeout_idle counted" m e-idle "i['errors_by_class']['timeout_idle'] >= 3 or sys.exit(1)"
# 4xx: a model the server does not serve
start_target e-model
scenario "$T/e-4xx.json" 3s "http://$ADDR/v1" '"arrival": { "mode": "constant", "rate": 10 }'
sed -i 's/"model": "gauntlet-target"/"model": "no-such-model"/' "$T/e-4xx.json"
run e-4xx "$T/e-4xx.json"
check "error 4xx -> http_4xx" m e-4xx "i['errors_by_class']['http_4xx'] == i['requests'] >= 3 or sys.exit(1)"
# connect: nothing listens there (a port we bind and close)
FREE=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1]); s.close()")
scenario "$T/e-conn.json" 3s "http://127.0.0.1:$FREE/v1" '"arrival": { "mode": "constant", "rate": 10 }, "preflight": false'
run e-conn "$T/e-conn.json"
check "error connect -> connect" m e-conn "i['errors_by_class']['connect'] == i['requests'] >= 3 or sys.exit(1)"
# the same endpoint with the preflight gate on: the run does not start
sed -i 's/"preflight": false/"preflight": true/' "$T/e-conn.json"
run e-conn-pf "$T/e-conn.json"; rc=$?
check "preflight: an endpoint that does not answer stops the run (exit 4), naming it" bash -c "[ $rc -eq 4 ] && grep -q 'preflight: http://127.0.0.1:$FREE/v1: answers GET /models: FAILED' '$T/e-conn-pf.log'"
check "preflight: report says so, no request sent" python3 -c "
import json; r=json.load(open('$T/e-conn-pf/report.json'))
assert r['preflight_passed'] is False and r['verdict'] == 'fail' and r['run']['windows'] == 0, r['preflight']"
# tls: https to a plain HTTP server
scenario "$T/e-tls.json" 3s "https://$ADDR/v1" '"arrival": { "mode": "constant", "rate": 10 }, "preflight": false'
run e-tls "$T/e-tls.json"
check "error tls -> tls" m e-tls "i['errors_by_class']['tls'] == i['requests'] >= 3 or sys.exit(1)"
# oversized SSE lines (2 MiB): malformed, and memory stays bounded
start_target e-big --misbehave oversized_line
scenario "$T/e-big.json" 4s "http://$ADDR/v1" '"arrival": { "mode": "constant", "rate": 20 }'
bg run "$T/e-big.json" --out "$T/e-big"
peak=0
while kill -0 "$BG_PID" 2>/dev/null; do
	r=$(awk '/^VmRSS:/ {print $2}' /proc/$BG_PID/status 2>/dev/null)
	[ -n "$r" ] && [ "$r" -gt "$peak" ] && peak=$r
	sleep 0.2
done
wait "$BG_PID"
echo "oversized lines: peak RSS ${peak} KiB"
check "error oversized line -> malformed" m e-big "i['errors_by_class']['malformed'] == i['requests'] >= 10 or sys.exit(1)"
[ "${GL_SANITIZE:-OFF}" = ON ] || check "oversized lines: peak RSS under 64 MiB (80 x 2 MiB lines were sent)" [ "$peak" -lt 65536 ]

# --- 3. coordinated omission ---------------------------------------------------------------
# The server freezes for 2 s at t=3 s; 100 req/s open loop, at most 50 in flight.
start_target co --ttft-ms 10 --itl-ms 2 --output-tokens 5 --max-seqs 1000 --misbehave stall_ms=2000 --stall-at-s 3
scenario "$T/co.json" 8s "http://$ADDR/v1" '"arrival": { "mode": "poisson", "rate": 100 }, "output_tokens": 5, "max_in_flight": 50, "input_tokens": 10'
run co "$T/co.json"
m co "'ttft_ms p50/p90/p99 %.0f/%.0f/%.0f; from send %.0f/%.0f/%.0f' % tuple(i[k][p] for k in ('ttft_ms','ttft_from_send_ms') for p in ('p50','p90','p99'))"
check "CO: p99 ttft includes the stall (>= 1500 ms)" m co "i['ttft_ms']['p99'] >= 1500 or sys.exit(1)"
check "CO: queued requests' wait shows in ttft_ms, not in ttft_from_send_ms (p90 differs by > 500 ms)" m co "i['ttft_ms']['p90'] - i['ttft_from_send_ms']['p90'] > 500 or sys.exit(1)"
check "CO: no request lost (errors 0)" m co "i['errors'] == 0 or sys.exit(1)"

# --- 4. trace replay, closed loop, phases, secrets ----------------------------------------------
start_target misc --ttft-ms 5 --itl-ms 1 --max-seqs 1000
TRACE=$GL_SOURCE_DIR/scenarios/traces/azure-conv-2023-sample.csv
scenario "$T/trace.json" 20s "http://$ADDR/v1" "\"arrival\": { \"mode\": \"trace\", \"speed\": 20, \"loop\": false }, \"trace\": \"$TRACE\""
run trace "$T/trace.json"
check "trace: the requests carry the trace's token counts, in order" python3 - "$TRACE" "$T/trace/run.db" <<'PY'
import csv, sqlite3, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = [int(r['ContextTokens']) for r in rows]
got = [r[0] for r in sqlite3.connect(sys.argv[2]).execute('select input_tokens from requests order by t_intended_ns')]
assert got == want, (len(got), len(want), got[:5], want[:5])
PY
scenario "$T/closed.json" 4s "http://$ADDR/v1" '"arrival": { "mode": "closed", "users": 4 }, "output_tokens": 10'
run closed "$T/closed.json"
check "closed loop: at most 4 in flight at any time" python3 - "$T/closed/run.db" <<'PY'
import sqlite3, sys
ev = []
for s, e in sqlite3.connect(sys.argv[1]).execute('select t_send_ns, t_end_ns from requests'):
    ev += [(s, 1), (e, -1)]
cur = peak = 0
for _, d in sorted(ev, key=lambda x: (x[0], x[1])):
    cur += d; peak = max(peak, cur)
assert 3 <= peak <= 4, peak
PY
cat > "$T/phases.json" <<JSON
{ "name": "phases", "duration": "6s", "window": "1s",
  "workloads": { "inference": { "endpoints": ["http://$ADDR/v1"], "model": "gauntlet-target",
      "api_key_env": "GL_TEST_SECRET", "arrival": { "mode": "constant", "rate": 20 }, "output_tokens": 4 } },
  "phases": [ { "name": "steady", "for": "3s" }, { "name": "shock", "for": "3s", "load": 3 } ],
  "targets": { "steady": { "inference.ttft_ms.p99": "<= 1000", "inference.error_rate": "<= 0.01" } } }
JSON
export GL_TEST_SECRET="sk-gauntlet-test-$RANDOM$RANDOM-secret"
"$GAUNTLET" run "$T/phases.json" --out "$T/phases" >"$T/phases.log" 2>&1
check "phases: the shock phase runs at 3x the rate" python3 -c "
import json; r=json.load(open('$T/phases/report.json'))
a, b = (p['metrics']['inference']['requests'] / p['measured_s'] for p in r['phases'])
assert 2.5 < b / a < 3.5, (a, b)"
check "secret: the API key is nowhere in the run's files or log" bash -c "! grep -rqa -- \"$GL_TEST_SECRET\" \"$T/phases\" \"$T/phases.log\""
unset GL_TEST_SECRET
"$GAUNTLET" run "$T/phases.json" --out "$T/nokey" >"$T/nokey.log" 2>&1; rc=$?
check "secret: a missing key variable is a clear error (exit 4), naming the variable not a value" bash -c "[ $rc -eq 4 ] && grep -q 'GL_TEST_SECRET is not set' '$T/nokey.log'"
finish
