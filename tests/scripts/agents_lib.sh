# agents_lib.sh - what test_agents.sh and test_agents_fail.sh share (sourced
# after lib.sh): the trace with its known counts, the scenario writer, the
# figures of a run and of the replicas, the processes of a run.
command -v mpirun >/dev/null || skip "mpirun is not installed (Debian: openmpi-bin)"
MPI_ARGS='"--oversubscribe"'

# --- the trace: 900 requests at about 150/s, output tokens 4..19 ----------------------------
python3 - "$T/trace.jsonl" "$T/trace.truth" <<'PY'
import json, random, sys
rnd = random.Random(17)
t = 0.0; out = 0
with open(sys.argv[1], "w") as f:
    for i in range(900):
        t += rnd.expovariate(150.0)
        o = rnd.randint(4, 19); out += o
        f.write(json.dumps({"timestamp": int(t * 1000), "input_length": rnd.randint(20, 120),
                            "output_length": o, "hash_ids": [i]}) + "\n")
open(sys.argv[2], "w").write("%d %d\n" % (900, out))
PY
read -r N_REQ N_TOK < "$T/trace.truth"

# scenario FILE DURATION EXTRA_JSON(keys merged into workloads.inference)
scenario() {
	python3 - "$@" "$ADDR1" "$ADDR2" "$T/trace.jsonl" <<'PY'
import json, sys
path, duration, extra, a1, a2, trace = sys.argv[1:7]
inf = {"endpoints": ["http://%s/v1" % a1, "http://%s/v1" % a2], "model": "gauntlet-target",
       "timeout": "10s", "trace": trace, "trace_format": "mooncake",
       "arrival": {"mode": "trace", "loop": False}, "stream": True}
inf.update(json.loads("{" + extra + "}"))
sc = {"name": "agents", "duration": duration, "window": "2s", "workloads": {"inference": inf},
      "targets": {"steady": {"inference.ttft_ms.p99": "<= 5000", "inference.error_rate": "<= 0.01"}}}
if "agents" in inf:
    # required with agents: a run whose agents were kept out fails
    sc["targets"]["steady"]["agents.delivered_ratio"] = ">= 0.5"
json.dump(sc, open(path, "w"), indent=1)
PY
}
# figures RUN -> "requests output_tokens ttft_p50 ttft_p99" from its store and report
figures() {
	python3 - "$T/$1" <<'PY'
import json, sqlite3, sys
d = sys.argv[1]
c = sqlite3.connect(d + "/run.db")
req = c.execute("select coalesce(sum(counter),0) from window_metrics where name='inference.requests'").fetchone()[0]
tok = c.execute("select coalesce(sum(counter),0) from window_metrics where name='inference.output_tokens_total'").fetchone()[0]
i = json.load(open(d + "/report.json"))["metrics"]["inference"]
print(req, tok, i["ttft_ms"]["p50"], i["ttft_ms"]["p99"])
PY
}
# served ADDR -> "requests tokens" the replica counted
served() {
	python3 - "$1" <<'PY'
import re, sys, urllib.request
t = urllib.request.urlopen("http://%s/metrics" % sys.argv[1], timeout=5).read().decode()
req = sum(int(m.group(2)) for m in re.finditer(r'gauntlet_target_requests_total\{endpoint="([^"]*)",status="200"\} (\d+)', t)
          if m.group(1) == "/v1/chat/completions")
tok = int(re.search(r"^gauntlet_target_tokens_generated_total (\d+)", t, re.M).group(1))
print(req, tok)
PY
}

# run_procs RUN_ID [INDEX]: the gauntlet agents (and, without INDEX, the
# launchers too) that carry the run's mark
run_procs() {
	local p pids
	# an agent is a process named gauntlet: with INDEX only those are read
	# (every /proc entry takes seconds on a loaded machine)
	if [ -n "${2:-}" ]; then pids=$(pgrep -x gauntlet); else pids=$(ls /proc | grep -x '[0-9]*'); fi
	for p in $pids; do
		{ tr '\0' '\n' < /proc/$p/environ; } 2>/dev/null | grep -qx "GAUNTLET_RUN_ID=$1" || continue
		if [ -n "${2:-}" ]; then
			[ "$(basename "$(readlink /proc/$p/exe 2>/dev/null)")" = gauntlet ] || continue
		[ "$({ tr '\0' ' ' < /proc/$p/cmdline; } 2>/dev/null | cut -d' ' -f2)" = agent ] || continue
			{ tr '\0' '\n' < /proc/$p/environ; } 2>/dev/null | grep -qx "GAUNTLET_AGENT_INDEX=$2" || continue
		fi
		[ "$p" = $$ ] || echo "$p"
	done
}
# wait_connected DIR N: until N agents said hello (store events), 60 s at most
wait_connected() {
	until_ok 60 sql_is "$1/run.db" "select count(*) from events where source='agents' and message like '%connected from%'" "$2"
}

