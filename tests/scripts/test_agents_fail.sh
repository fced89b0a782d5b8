#!/usr/bin/env bash
# test_agents_fail.sh - load agents through real mpirun when things go
# wrong (docs/agents.md), against `gauntlet target` replicas on loopback:
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
source "$(dirname "$0")/agents_lib.sh"

# --- 2. an agent SIGKILLed mid-run ---------------------------------------------------------------
# 20 s: killed about 5 s in, the relaunch (mpirun's teardown of the dead
# rank, then a new mpirun) must connect before the end; with 12 s a loaded
# machine can get no relaunch at all.
start_target kill-a --ttft-ms 20 --itl-ms 2 --max-seqs 1000; ADDR1=$ADDR
start_target kill-b --ttft-ms 20 --itl-ms 2 --max-seqs 1000; ADDR2=$ADDR
scenario "$T/kill.json" 20s "\"arrival\": {\"mode\": \"poisson\", \"rate\": 100}, \"trace\": null, \"input_tokens\": 20, \"output_tokens\": 4, \"agents\": {\"launcher\": \"mpirun\", \"count\": 2, \"launcher_args\": [$MPI_ARGS]}"
python3 -c "
import json; p='$T/kill.json'; s=json.load(open(p)); i=s['workloads']['inference']
del i['trace'], i['trace_format']; json.dump(s, open(p,'w'))"
"$GAUNTLET" run "$T/kill.json" --out "$T/kill" >"$T/kill.log" 2>&1 &
KPID=$!; PIDS+=("$KPID")
wait_connected "$T/kill" 2
# mid-run: two windows of both agents' figures stored, then the kill
wait_windows "$T/kill/run.db" 2
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
scenario "$T/tok.json" 20s "\"agents\": {\"launcher\": \"mpirun\", \"count\": 1, \"launcher_args\": [$MPI_ARGS]}"
"$GAUNTLET" run "$T/tok.json" --out "$T/tok" >"$T/tok.log" 2>&1 &
TPID=$!; PIDS+=("$TPID")
wait_connected "$T/tok" 1
dial=$(sql "$T/tok/run.db" "select message from events where source='agents' and message like '%dialing%'" | grep -o "dialing [^ ]*" | cut -d' ' -f2)
# the intruder first, while the run surely listens (the scan below reads
# every process: seconds on a loaded machine, which can outlast the run)
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
TOKEN=""
for p in $(run_procs "$(sql "$T/tok/run.db" 'select id from run')"); do
	t=$({ tr '\0' '\n' < /proc/$p/environ; } 2>/dev/null | sed -n 's/^GAUNTLET_AGENT_TOKEN=//p')
	[ -n "$t" ] && TOKEN=$t
	if tr '\0' ' ' < /proc/$p/cmdline | grep -q "[0-9a-f]\{64\}"; then CMDLINE_HAS=1; fi
done
check "tok: the token is in the launcher's environment (${#TOKEN} hex digits)" [ ${#TOKEN} -eq 64 ]
check "tok: no launcher or agent carries a token on its command line" [ -z "${CMDLINE_HAS:-}" ]
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
# mid-run: two windows stored while the agents run, then the kill
wait_windows "$T/res/run.db" 2
RID=$(sql "$T/res/run.db" "select id from run")
kill -9 "$RPID"; wait "$RPID" 2>/dev/null
left() { run_procs "$RID"; }
none_left() { [ -z "$(left)" ]; }
until_ok 30 none_left
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
      "targets": {"steady": {"storage.write_gbps": ">= 0", "storage.read_gbps": ">= 0", "agents.delivered_ratio": ">= 0.5"}}}
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
