#!/usr/bin/env bash
# test_inference_errors.sh - every error class of docs/metrics.md produced
# by a real server on loopback (`gauntlet target` misbehaving, a model it
# does not serve, a body too large for it, a closed port, https to plain HTTP, 2 MiB SSE lines) and
# counted while the run goes on; the preflight gate on a dead endpoint;
# memory bounded under oversized lines. The cases are independent and time
# nothing, so they run side by side (in two batches).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/inference_lib.sh"

CASES=()
RUNS=()
declare -A RC=()     # each run's exit code, by case name
# case NAME CLASS DURATION INFERENCE_EXTRA TARGET_ARGS... : every finished
# request of the run must end in CLASS
err_case() {
	local name=$1 cls=$2 dur=$3 extra=$4; shift 4
	start_target "e-$name" "$@"
	scenario "$T/e-$name.json" "$dur" "http://$ADDR/v1" "\"arrival\": { \"mode\": \"constant\", \"rate\": 10 }, $extra"
	CASES+=("$name:$cls")
}
launch() { # run every scenario written so far and not yet run, side by side
	local names=() pids=() n k
	for c in "${CASES[@]}"; do
		n=${c%%:*}
		[[ " ${RUNS[*]} " == *" $n "* ]] && continue
		RUNS+=("$n")
		"$GAUNTLET" run "$T/e-$n.json" --out "$T/e-$n" >"$T/e-$n.log" 2>&1 &
		pids+=("$!")
		names+=("$n")
	done
	for k in "${!pids[@]}"; do wait "${pids[$k]}"; RC[${names[$k]}]=$?; done
}
err_case 429 http_429 3s '"stream": true' --misbehave http_429
err_case 500 http_5xx 3s '"stream": true' --misbehave http_500
err_case 503 http_5xx 3s '"stream": false' --misbehave http_503
err_case killed truncated 3s '"stream": true' --misbehave close_mid_stream
err_case garbage malformed 3s '"stream": true' --misbehave garbage_sse
err_case no-done truncated 3s '"stream": true' --misbehave no_done
err_case in-stream stream_error 3s '"stream": true' --misbehave stream_error
launch
err_case hang timeout_total 3s '"stream": true, "timeout": "1500ms"' --misbehave hang
err_case drip timeout_ttft 3s '"stream": true, "ttft_timeout": "1s"' --misbehave slow_drip
# model_not_found: a model the server does not serve (its own class: a
# model swapped out under load); http_4xx: any other refusal (413 here)
err_case model model_not_found 3s '"model": "no-such-model"'
err_case 4xx http_4xx 3s '"stream": true' --max-body-bytes 16
# connect: nothing listens there (a port bound and closed); tls: https to plain HTTP
FREE=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1]); s.close()")
scenario "$T/e-conn.json" 3s "http://127.0.0.1:$FREE/v1" '"arrival": { "mode": "constant", "rate": 10 }, "preflight": false'
CASES+=("conn:connect")
scenario "$T/e-tls.json" 3s "https://$ADDR/v1" '"arrival": { "mode": "constant", "rate": 10 }, "preflight": false'
CASES+=("tls:tls")
# the dead endpoint with the preflight gate on: the run does not start
sed 's/"preflight": false/"preflight": true/' "$T/e-conn.json" > "$T/e-conn-pf.json"
CASES+=("conn-pf:-")
# a server that stops sending mid-stream: tokens flow for 6 s after it
# starts, then 30 s of nothing (the run, started at once, must send before
# then: a loaded machine's run can take 3 s to send anything)
start_target e-idle-srv --itl-ms 100 --ttft-ms 10 --output-tokens 1000 --misbehave stall_ms=30000 --stall-at-s 6
scenario "$T/e-idle.json" 10s "http://$ADDR/v1" '"arrival": { "mode": "constant", "rate": 5 }, "output_tokens": 1000, "idle_timeout": "500ms"'
CASES+=("idle:-")
launch
# oversized SSE lines (2 MiB): malformed, and memory stays bounded. Alone,
# after the others: beside eight runs on a loaded machine none of its
# requests finish in 8 s (alone it finishes 76 of 80 in 4 s)
start_target e-big-srv --misbehave oversized_line
# 8 s: beside the suite's other tests a 4 s run finishes 8 requests, or
# none at all (alone it finishes 76 of its 80)
scenario "$T/e-big.json" 8s "http://$ADDR/v1" '"arrival": { "mode": "constant", "rate": 20 }'
RUNS+=("big")
# its peak RSS from the kernel (wait4's ru_maxrss, KiB): every moment of
# the run, where sampling VmRSS could miss a short peak
python3 - "$T/big.peak" "$GAUNTLET" run "$T/e-big.json" --out "$T/e-big" >"$T/e-big.log" 2>&1 <<'PY' &
import os, signal, sys
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_RDONLY); os.dup2(fd, 0)
    os.execv(sys.argv[2], sys.argv[2:])
signal.signal(signal.SIGTERM, lambda *a: os.kill(pid, signal.SIGKILL))
_, st, ru = os.wait4(pid, 0)
open(sys.argv[1], "w").write("%d\n" % ru.ru_maxrss)
sys.exit(os.WEXITSTATUS(st) if os.WIFEXITED(st) else 128 + os.WTERMSIG(st))
PY
BIG=$!
PIDS+=("$BIG")
wait "$BIG"; RC[big]=$?

for c in "${CASES[@]}"; do
	name=${c%%:*} cls=${c#*:}
	[ "$cls" = - ] && continue
	check "error $name -> $cls: every finished request classed $cls, run finished" python3 -c "
import json; r=json.load(open('$T/e-$name/report.json')); i=r['metrics']['inference']
assert r['run']['state'] == 'finished', r['run']['state']
assert i['requests'] >= 3 and i['errors'] == i['requests'] and i['errors_by_class']['$cls'] == i['requests'], (i['requests'], i['errors_by_class'])"
	# the run goes on to its end and fails its verdict: error rate 1 > 0.01
	check "error $name: the run fails its error-rate target (exit ${RC[$name]:-none}, want 1)" \
		bash -c "[ '${RC[$name]:-}' = 1 ] && python3 -c \"
import json, sys; r = json.load(open('$T/e-$name/report.json'))
t = [t for t in r['targets'] if t['metric'] == 'inference.error_rate']
sys.exit(0 if r['verdict'] == 'fail' and t and t[0]['measured'] == 1 and not t[0]['pass'] else 1)\""
done
check "error idle -> timeout_idle counted" python3 -c "
import json; i=json.load(open('$T/e-idle/report.json'))['metrics']['inference']
assert i['errors_by_class']['timeout_idle'] >= 3, (i['requests'], {k: v for k, v in i['errors_by_class'].items() if v})"
check "error idle: the run fails on its errors (exit ${RC[idle]:-none}, want 1)" [ "${RC[idle]:-}" = 1 ]
check "preflight: an endpoint that does not answer stops the run (exit ${RC[conn-pf]:-none}, want 4), naming it" \
	bash -c "[ '${RC[conn-pf]:-}' = 4 ] && grep -q 'preflight: http://127.0.0.1:$FREE/v1: answers GET /models: FAILED' '$T/e-conn-pf.log'"
check "preflight: report says so, no request sent" python3 -c "
import json; r=json.load(open('$T/e-conn-pf/report.json'))
assert r['preflight_passed'] is False and r['verdict'] == 'fail' and r['run']['windows'] == 0, r['preflight']"
peak=$(cat "$T/big.peak")
echo "oversized lines: peak RSS ${peak} KiB"
big_malformed() { python3 -c "
import json; i=json.load(open('$T/e-big/report.json'))['metrics']['inference']
assert i['errors_by_class']['malformed'] == i['requests'] >= 3, (i['requests'], {k: v for k, v in i['errors_by_class'].items() if v})"; }
check "error oversized line -> malformed" big_malformed
big_malformed 2>/dev/null || tail -12 "$T/e-big.log"
check "oversized lines: the run goes on to its end and fails on its errors (exit ${RC[big]:-none}, want 1)" [ "${RC[big]:-}" = 1 ]
check "oversized lines: the run's peak RSS was read (${peak:-none} KiB)" [ "${peak:-0}" -gt 0 ]
[ "${GL_SANITIZE:-OFF}" = ON ] || check "oversized lines: peak RSS under 64 MiB (160 x 2 MiB lines were sent)" [ "${peak:-0}" -gt 0 -a "${peak:-0}" -lt 65536 ]
finish
