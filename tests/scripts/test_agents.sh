#!/usr/bin/env bash
# test_agents.sh - load agents through real mpirun against two `gauntlet
# target` replicas on loopback (docs/agents.md).
#  1. one trace of known requests (1200 rows, known output tokens) replayed
#     by one process, by 2 agents and by 4 agents: each run counts exactly
#     the trace's requests and output tokens, the replicas' own counters
#     agree, and TTFT p50 and p99 of the agent runs are within 5 % of the
#     one-process run's;
#  2. an agent SIGKILLed mid-run: counted (agents.lost), the windows it
#     missed marked partial and named, relaunched through mpirun
#     (agents.relaunched) and its share goes on;
#  3. the token: a connection with a wrong one is refused and counted; the
#     token is on no command line and nowhere in the run directory;
#  4. the controller SIGKILLed while agents run: its agents stop, `resume`
#     launches them again and the run ends with every process gone;
#  5. storage through 2 agents: each does its own I/O in a directory of its
#     own (removed at the end), each held to the scenario's rate cap.
source "$(dirname "$0")/lib.sh"

command -v mpirun >/dev/null || skip "mpirun is not installed (Debian: openmpi-bin)"
MPI_ARGS='"--oversubscribe"'

# --- the trace: 1200 requests at about 150/s, output tokens 4..19 ----------------------------
python3 - "$T/trace.jsonl" "$T/trace.truth" <<'PY'
import json, random, sys
rnd = random.Random(17)
t = 0.0; out = 0
with open(sys.argv[1], "w") as f:
    for i in range(1200):
        t += rnd.expovariate(150.0)
        o = rnd.randint(4, 19); out += o
        f.write(json.dumps({"timestamp": int(t * 1000), "input_length": rnd.randint(20, 120),
                            "output_length": o, "hash_ids": [i]}) + "\n")
open(sys.argv[2], "w").write("%d %d\n" % (1200, out))
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
	local p
	for p in $(ls /proc | grep -x '[0-9]*'); do
		{ tr '\0' '\n' < /proc/$p/environ; } 2>/dev/null | grep -qx "GAUNTLET_RUN_ID=$1" || continue
		if [ -n "${2:-}" ]; then
			[ "$(basename "$(readlink /proc/$p/exe 2>/dev/null)")" = gauntlet ] || continue
		[ "$({ tr '\0' ' ' < /proc/$p/cmdline; } 2>/dev/null | cut -d' ' -f2)" = agent ] || continue
			{ tr '\0' '\n' < /proc/$p/environ; } 2>/dev/null | grep -qx "GAUNTLET_AGENT_INDEX=$2" || continue
		fi
		[ "$p" = $$ ] || echo "$p"
	done
}
# wait_connected DIR N: until N agents said hello (store events), 20 s at most
wait_connected() {
	local i
	for i in $(seq 200); do
		[ -s "$1/run.db" ] && [ "$(sql "$1/run.db" "select count(*) from events where source='agents' and message like '%connected from%'" 2>/dev/null)" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# --- 1. one process, 2 agents, 4 agents: the same trace, the same figures ------------------------
# TTFT = 200 ms + input x 50 us; ITL 5 ms: a 5 % band is 10 ms and more (the
# tail of a loaded two-core machine moves by a few ms)
for n in one ag2 ag4; do
	start_target "$n-a" --ttft-ms 200 --prefill-us-per-token 50 --itl-ms 5 --max-seqs 1000; ADDR1=$ADDR
	start_target "$n-b" --ttft-ms 200 --prefill-us-per-token 50 --itl-ms 5 --max-seqs 1000; ADDR2=$ADDR
	case $n in
	one) scenario "$T/$n.json" 11s '' ;;
	ag2) scenario "$T/$n.json" 11s "\"agents\": {\"launcher\": \"mpirun\", \"count\": 2, \"launcher_args\": [$MPI_ARGS]}" ;;
	ag4) scenario "$T/$n.json" 11s "\"agents\": {\"launcher\": \"mpirun\", \"count\": 4, \"launcher_args\": [$MPI_ARGS]}" ;;
	esac
	"$GAUNTLET" run "$T/$n.json" --out "$T/$n" >"$T/$n.log" 2>&1; rc=$?
	check "$n: the run passes (exit $rc)" [ $rc -eq 0 ]
	read -r req tok p50 p99 < <(figures $n)
	read -r s1 k1 < <(served "$ADDR1"); read -r s2 k2 < <(served "$ADDR2")
	echo "$n: client $req requests $tok tokens, ttft p50 $p50 p99 $p99; replicas $s1+$s2 requests $k1+$k2 tokens"
	check "$n: every request of the trace counted once ($req, trace $N_REQ)" [ "$req" -eq "$N_REQ" ]
	check "$n: output tokens exact ($tok, trace $N_TOK)" [ "$tok" -eq "$N_TOK" ]
	check "$n: the replicas served the same ($((s1 + s2)) requests, $((k1 + k2)) tokens)" \
		[ $((s1 + s2)) -eq "$N_REQ" -a $((k1 + k2)) -eq "$N_TOK" ]
	eval "P50_$n=$p50 P99_$n=$p99"
done
for n in ag2 ag4; do
	eval "p50=\$P50_$n p99=\$P99_$n"
	timing "$n: ttft p50 within 5 % of one process ($p50 vs $P50_one)" \
		python3 -c "import sys; sys.exit(abs($p50 - $P50_one) > 0.05 * $P50_one)"
	timing "$n: ttft p99 within 5 % of one process ($p99 vs $P99_one)" \
		python3 -c "import sys; sys.exit(abs($p99 - $P99_one) > 0.05 * $P99_one)"
done
# window by window: a request counts in the window it ended in, wherever
# it was sent from; only requests ending within a few ms of a boundary
# may fall on the other side of it
for n in ag2 ag4; do
	check "$n: each window counts what the one-process run's did (within 1 % of the requests)" python3 -c "
import sqlite3
def per(d):
    c = sqlite3.connect(d + '/run.db')
    return dict(c.execute(\"select idx, counter from window_metrics where name='inference.requests'\"))
a, b = per('$T/one'), per('$T/$n')
diff = sum(abs(a.get(k, 0) - b.get(k, 0)) for k in set(a) | set(b))
print('$n: windows', [b.get(k, 0) for k in sorted(b)], 'one process', [a.get(k, 0) for k in sorted(a)], 'moved', diff)
assert diff <= 0.01 * $N_REQ, diff"
done
check "ag4: 4 agents connected, each window names 4 expected and 0 missing" python3 -c "
import sqlite3; c=sqlite3.connect('$T/ag4/run.db')
e=set(r[0] for r in c.execute(\"select counter from window_metrics where name='agents.expected'\"))
m=sum(r[0] for r in c.execute(\"select counter from window_metrics where name='agents.missing'\"))
assert e == {4} and m == 0, (e, m)"
check "ag4: 4 launchers recorded, all ended" python3 -c "
import sqlite3; c=sqlite3.connect('$T/ag4/run.db')
rows=list(c.execute(\"select ended_wall_ns from children where source='agents'\"))
assert len(rows) == 4 and all(r[0] for r in rows), rows"

# --- 2. an agent SIGKILLed mid-run ---------------------------------------------------------------
start_target kill-a --ttft-ms 20 --itl-ms 2 --max-seqs 1000; ADDR1=$ADDR
start_target kill-b --ttft-ms 20 --itl-ms 2 --max-seqs 1000; ADDR2=$ADDR
scenario "$T/kill.json" 12s "\"arrival\": {\"mode\": \"poisson\", \"rate\": 100}, \"trace\": null, \"input_tokens\": 20, \"output_tokens\": 4, \"agents\": {\"launcher\": \"mpirun\", \"count\": 2, \"launcher_args\": [$MPI_ARGS]}"
python3 -c "
import json; p='$T/kill.json'; s=json.load(open(p)); i=s['workloads']['inference']
del i['trace'], i['trace_format']; json.dump(s, open(p,'w'))"
"$GAUNTLET" run "$T/kill.json" --out "$T/kill" >"$T/kill.log" 2>&1 &
KPID=$!; PIDS+=("$KPID")
wait_connected "$T/kill" 2
sleep 3
victim=$(run_procs "$(sql "$T/kill/run.db" 'select id from run')" 1 | head -1)
check "agent 1 of the run found by its environment (pid ${victim:-none})" [ -n "$victim" ]
[ -n "$victim" ] && kill -9 "$victim"
wait "$KPID"; rc=$?
check "kill: the run still passes (exit $rc)" [ $rc -eq 0 ]
check "kill: the agent counted lost once and relaunched once" python3 -c "
import sqlite3; c=sqlite3.connect('$T/kill/run.db')
f=lambda n: c.execute('select coalesce(sum(counter),0) from window_metrics where name=?', (n,)).fetchone()[0]
assert (f('agents.lost'), f('agents.relaunched')) == (1, 1), (f('agents.lost'), f('agents.relaunched'))"
check "kill: the window it died in is marked partial and names agent 1" python3 -c "
import sqlite3; c=sqlite3.connect('$T/kill/run.db')
ev=[r[0] for r in c.execute(\"select message from events where source='agents' and message like 'window % is partial%'\")]
assert ev and all('agent(s) 1 ' in m for m in ev), ev
m=c.execute(\"select count(*) from window_metrics where name='agents.missing' and counter>0\").fetchone()[0]
assert m == len(ev), (m, ev)"
check "kill: its share went on after the relaunch (requests from agent 1 in the last window)" python3 -c "
import sqlite3; c=sqlite3.connect('$T/kill/run.db')
last=c.execute('select max(idx) from windows').fetchone()[0]
n=c.execute(\"select counter from window_metrics where idx=? and name='inference.requests'\", (last-1,)).fetchone()[0]
# both shares: about 100/s over 2 s; one share alone would be about 100
assert n > 150, n"
check "kill: report.json and report.md show the loss (lost 1, relaunched 1, the partial windows)" python3 -c "
import json, sqlite3; a=json.load(open('$T/kill/report.json'))['metrics']['agents']
c=sqlite3.connect('$T/kill/run.db')
m=c.execute(\"select coalesce(sum(counter),0) from window_metrics where name='agents.missing'\").fetchone()[0]
assert (a['lost'], a['relaunched'], a['missing_agent_windows']) == (1, 1, m) and m >= 1, (a, m)
md=open('$T/kill/report.md').read()
assert '## Load agents' in md and '| %d | %d | 1 | 1 |' % (a['agent_windows'], m) in md, md[-600:]"
check "kill: two launches of agent 1 recorded" python3 -c "
import sqlite3; c=sqlite3.connect('$T/kill/run.db')
n=c.execute(\"select count(*) from children where source='agents'\").fetchone()[0]
assert n == 3, n"

# --- 3. the token ----------------------------------------------------------------------------------
scenario "$T/tok.json" 6s "\"agents\": {\"launcher\": \"mpirun\", \"count\": 1, \"launcher_args\": [$MPI_ARGS]}"
"$GAUNTLET" run "$T/tok.json" --out "$T/tok" >"$T/tok.log" 2>&1 &
TPID=$!; PIDS+=("$TPID")
wait_connected "$T/tok" 1
dial=$(sql "$T/tok/run.db" "select message from events where source='agents' and message like '%dialing%'" | grep -o "dialing [^ ]*" | cut -d' ' -f2)
TOKEN=""
for p in $(run_procs "$(sql "$T/tok/run.db" 'select id from run')"); do
	t=$({ tr '\0' '\n' < /proc/$p/environ; } 2>/dev/null | sed -n 's/^GAUNTLET_AGENT_TOKEN=//p')
	[ -n "$t" ] && TOKEN=$t
	if tr '\0' ' ' < /proc/$p/cmdline | grep -q "[0-9a-f]\{64\}"; then CMDLINE_HAS=1; fi
done
check "tok: the token is in the launcher's environment (${#TOKEN} hex digits)" [ ${#TOKEN} -eq 64 ]
check "tok: no launcher or agent carries a token on its command line" [ -z "${CMDLINE_HAS:-}" ]
python3 - "$dial" <<'PY'
import json, socket, struct, sys
host, port = sys.argv[1].rsplit(":", 1)
s = socket.create_connection((host, int(port)), timeout=5)
body = json.dumps({"proto": 1, "token": "0" * 64, "index": 0, "pid": 1, "host": "intruder"}).encode()
s.sendall(struct.pack(">I", len(body) + 1) + b"H" + body)
s.settimeout(5)
try:
    print("intruder got %d byte(s) back" % len(s.recv(100)))
except Exception as e:
    print("intruder:", e)
PY
wait "$TPID"; rc=$?
check "tok: the run passes beside the intruder (exit $rc)" [ $rc -eq 0 ]
check "tok: the wrong token was refused and counted" python3 -c "
import sqlite3; c=sqlite3.connect('$T/tok/run.db')
n=c.execute(\"select coalesce(sum(counter),0) from window_metrics where name='agents.refused'\").fetchone()[0]
ev=[r[0] for r in c.execute(\"select message from events where message like '%refused (wrong token)%'\")]
assert n == 1 and ev, (n, ev)"
if [ ${#TOKEN} -eq 64 ]; then
	check "tok: the token is nowhere in the run directory (store, logs, reports)" \
		bash -c "! grep -rl '$TOKEN' '$T/tok' '$T/tok.log'"
fi

# --- 4. the controller SIGKILLed while its agents run, then resume -----------------------------------
start_target res-a --ttft-ms 20 --itl-ms 2 --max-seqs 1000; ADDR1=$ADDR
start_target res-b --ttft-ms 20 --itl-ms 2 --max-seqs 1000; ADDR2=$ADDR
cp "$T/kill.json" "$T/res.json"
"$GAUNTLET" run "$T/res.json" --out "$T/res" >"$T/res.log" 2>&1 &
RPID=$!; PIDS+=("$RPID")
wait_connected "$T/res" 2
sleep 4
RID=$(sql "$T/res/run.db" "select id from run")
kill -9 "$RPID"; wait "$RPID" 2>/dev/null
left() { run_procs "$RID"; }
for _ in $(seq 50); do [ -z "$(left)" ] && break; sleep 0.1; done
check "res: the agents and their launchers stopped with the controller (left: $(left | tr '\n' ' '))" [ -z "$(left)" ]
"$GAUNTLET" resume "$T/res" >"$T/res.resume.log" 2>&1; rc=$?
check "res: resume finishes the run (exit $rc)" [ $rc -eq 0 ]
check "res: resume launched both agents again" python3 -c "
import sqlite3; c=sqlite3.connect('$T/res/run.db')
n=c.execute(\"select count(*) from events where source='agents' and message like '%connected from%'\").fetchone()[0]
assert n == 4, n"
check "res: the windows after the resume have both agents' figures" python3 -c "
import sqlite3; c=sqlite3.connect('$T/res/run.db')
last=c.execute('select max(idx) from windows').fetchone()[0]
n=c.execute(\"select counter from window_metrics where idx=? and name='inference.requests'\", (last-1,)).fetchone()[0]
assert n > 150, n"
check "res: no process of the run is left" [ -z "$(left)" ]

# --- 5. storage through 2 agents ----------------------------------------------------------------------
mkdir -p "$T/sto"
python3 - "$T/sto.json" "$T/sto" <<'PY'
import json, sys
sc = {"name": "sto", "duration": "6s", "window": "2s",
      "workloads": {"storage": {"path": sys.argv[2], "threads": 1, "bs": "64KiB", "file_size": "8MiB", "files": 2,
                                "direct": False, "rate_cap": "10MB", "pattern": "mixed",
                                "agents": {"launcher": "mpirun", "count": 2, "launcher_args": ["--oversubscribe"]}}},
      "targets": {"steady": {"storage.write_gbps": ">= 0", "storage.read_gbps": ">= 0"}}}
json.dump(sc, open(sys.argv[1], "w"))
PY
"$GAUNTLET" run "$T/sto.json" --out "$T/sto-run" >"$T/sto.log" 2>&1; rc=$?
check "sto: the run passes (exit $rc)" [ $rc -eq 0 ]
check "sto: each agent laid out its files in a directory of its own" python3 -c "
import sqlite3; c=sqlite3.connect('$T/sto-run/run.db')
ev=' '.join(r[0] for r in c.execute(\"select message from events where source like 'agent storage/%' and message like '%laying out%'\"))
assert '-agent0 ' in ev + ' ' and '-agent1 ' in ev + ' ', ev"
check "sto: both directories removed at the end" [ -z "$(ls -A "$T/sto")" ]
read -r bytes secs < <(python3 -c "
import sqlite3; c=sqlite3.connect('$T/sto-run/run.db')
b=c.execute(\"select sum(counter) from window_metrics where name in ('storage.read_bytes','storage.write_bytes')\").fetchone()[0]
t=c.execute('select (max(end_ns)-min(start_ns))/1e9 from windows').fetchone()[0]
print(b, t)")
echo "sto: $bytes bytes in $secs s through 2 agents capped at 10 MB/s each"
timing "sto: the two agents together moved 2 x the cap (20 MB/s, +-15 %)" python3 -c "
import sys; r=$bytes/$secs/1e6; print('%.2f MB/s' % r); sys.exit(not 17 <= r <= 23)"

finish
