# inference_lib.sh - helpers of the inference tests (sourced after lib.sh):
# write a one-workload scenario, run it, read metrics.inference of its
# report (start_target is lib.sh's).
# scenario FILE DURATION ENDPOINT EXTRA_INFERENCE_JSON (keys override the
# base). Its steady targets fail a broken workload: no request answered
# (no TTFT at all) or more than 1 % errors; a healthy run against
# `gauntlet target` passes them with room (TTFT p99 within 5 s even with a
# 2 s server stall). An all-errors case (test_inference_errors) fails them.
scenario() {
	python3 - "$@" <<'PY'
import json, sys
path, duration, endpoint, extra = sys.argv[1:5]
inf = {"endpoints": [endpoint], "model": "gauntlet-target", "input_tokens": 200,
       "output_tokens": 20, "timeout": "10s"}
inf.update(json.loads("{" + extra + "}"))
# "store": every request row kept (docs/store.md): the tests read them
sc = {"name": "inf-test", "duration": duration, "window": "1s",
      "store": {"requests": "all"},
      "workloads": {"inference": inf},
      "targets": {"steady": {"inference.ttft_ms.p99": "<= 5000", "inference.error_rate": "<= 0.01"}}}
json.dump(sc, open(path, "w"), indent=1)
PY
}

# target_answers ADDR: the chat answers (status 200) a `gauntlet target`
# started, from its /metrics
target_answers() {
	curl -sS "http://$1/metrics" |
		sed -n 's|^gauntlet_target_requests_total{endpoint="/v1/chat/completions",status="200"} ||p'
}

run() { # OUT SCENARIO -> rc
	"$GAUNTLET" run "$2" --out "$T/$1" >"$T/$1.log" 2>&1
}

# m RUN 'python expression over i = metrics.inference': like lib.sh's json,
# prints the value (nothing for True), exits 1 when it is falsy or raises
m() {
	python3 -c "
import json,sys; r=json.load(open('$T/$1/report.json')); i=r['metrics']['inference']
v=($2)
if v is not True: print(v)
sys.exit(0 if v else 1)"
}

