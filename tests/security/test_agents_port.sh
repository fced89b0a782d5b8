#!/usr/bin/env bash
# test_agents_port.sh - hostile peers on the load agents' port (docs/agents.md,
# docs/security.md), each against a real run through real mpirun and
# `gauntlet target` replicas on loopback:
#  1. flood: 64 connections that each announce a 16 MiB frame and send its
#     body, redialing, for the whole run: the controller's peak RSS stays
#     under 100 MB, and the run's figures are the trace's exactly (the
#     replicas served the same), every agent-window delivered;
#  2. crowd: 70 connections that hold waiting places and redial when
#     dropped: agent 1, SIGKILLed, is relaunched and gets in; the refusals
#     are counted by cause and logged once a window, not once each; the
#     launch token and the API key are gone from the agent's
#     /proc/PID/environ;
#  3. forger: a launcher that runs a forger as agent 1 with that launch's
#     real token: negative counters, INT64_MAX, a window of 2^62, a series
#     of the controller's own, rows with endpoint 99999 and status 999999
#     each close its connection and are counted; nothing of them is in the
#     store (the requests are what the replicas served); 15,000 events are
#     logged 20 a window and counted;
#  4. kept out: agent 1 lost and its relaunch never connecting
#     (max_restarts 0), the run fails its agents.delivered_ratio target.
source "$(dirname "$0")/../scripts/lib.sh"
source "$(dirname "$0")/../scripts/agents_lib.sh"
[ -x "$GAUNTLET" ] || skip "no gauntlet binary at $GAUNTLET"

# hostile HOST:PORT MODE N SECONDS: N connections until the stop file or
# SECONDS; MODE big (announce 16 MiB, send the body) or hold (send nothing)
cat > "$T/hostile.py" <<'PY'
import os, socket, struct, sys, threading, time
host, port = sys.argv[1].rsplit(":", 1)
mode, n, secs, stop = sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
end = time.time() + secs
dials = [0] * n
def one(i):
    chunk = b"\0" * 65536
    while time.time() < end and not os.path.exists(stop):
        try:
            s = socket.create_connection((host, int(port)), timeout=2)
            dials[i] += 1
            if mode == "big":
                s.sendall(struct.pack(">I", 16 << 20) + b"D")
                sent = 0
                while sent < (16 << 20) - 2 and time.time() < end:
                    s.sendall(chunk)
                    sent += len(chunk)
            s.settimeout(1)
            while time.time() < end and not os.path.exists(stop):
                try:
                    if not s.recv(4096):
                        break
                except socket.timeout:
                    pass
        except OSError:
            time.sleep(0.01)
        finally:
            try:
                s.close()
            except Exception:
                pass
th = [threading.Thread(target=one, args=(i,), daemon=True) for i in range(n)]
for t in th:
    t.start()
for t in th:
    t.join()
print("dials", sum(dials))
PY

# dial_of DIR: the address the run's agents dial
dial_of() { sql "$1/run.db" "select message from events where source='agents' and message like '%dialing%'" | grep -o "dialing [^ ]*" | cut -d' ' -f2; }
# peak_rss PID OUT: the process's peak RSS (VmHWM, kB), last read before it ended
peak_rss() {
	local v
	while [ -e "/proc/$1/status" ]; do
		v=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status" 2>/dev/null)
		[ -n "$v" ] && echo "$v" > "$2"
		sleep 0.1
	done
}
counter() { sql "$1/run.db" "select coalesce(sum(counter),0) from window_metrics where name='$2'"; }
# after_window DIR N: until window N of the run is written (60 s at most)
after_window() { until_ok 60 sql_is "$1/run.db" "select count(*) >= $2 from windows" 1; }

start_target a --ttft-ms 10 --itl-ms 1 --max-seqs 1000; ADDR1=$ADDR
start_target b --ttft-ms 10 --itl-ms 1 --max-seqs 1000; ADDR2=$ADDR

# --- 1. flood: 64 connections announcing 16 MiB frames ---------------------------------------
scenario "$T/flood.json" 12s "\"agents\": {\"launcher\": \"mpirun\", \"count\": 2, \"launcher_args\": [$MPI_ARGS]}"
"$GAUNTLET" run "$T/flood.json" --out "$T/flood" >"$T/flood.log" 2>&1 &
FPID=$!; PIDS+=("$FPID")
peak_rss "$FPID" "$T/flood.rss" &
RSS_PID=$!
wait_connected "$T/flood" 2
python3 "$T/hostile.py" "$(dial_of "$T/flood")" big 64 30 "$T/flood.stop" >"$T/flood.hostile" 2>&1 &
HPID=$!; PIDS+=("$HPID")
wait "$FPID"; rc=$?
touch "$T/flood.stop"; wait "$HPID"; wait "$RSS_PID"
log_unless $rc 0 "$T/flood.log"
RSS=$(cat "$T/flood.rss" 2>/dev/null || echo 0)
check "flood: the run passes beside 64 connections announcing 16 MiB frames (exit $rc; $(cat "$T/flood.hostile"))" [ $rc -eq 0 ]
check "flood: the controller's peak RSS stays under 100 MB ($((RSS / 1024)) MB)" [ "$RSS" -gt 0 -a "$RSS" -lt 102400 ]
read -r req tok _ < <(figures flood)
check "flood: requests and output tokens are the trace's ($req of $N_REQ, $tok of $N_TOK)" [ "$req" = "$N_REQ" -a "$tok" = "$N_TOK" ]
s1=$(served "$ADDR1"); s2=$(served "$ADDR2")
check "flood: the replicas served the same ($s1 + $s2)" [ $(( ${s1% *} + ${s2% *} )) -eq "$N_REQ" ]
check "flood: every agent-window delivered, the oversized frames counted as refused" python3 -c "
import json; a=json.load(open('$T/flood/report.json'))['metrics']['agents']
assert a['missing_agent_windows'] == 0 and a['delivered_ratio'] == 1, a
assert a['refused_by_cause'].get('bad_length', 0) >= 64, a"

# --- 2. crowd: 70 connections holding waiting places; agent 1 killed ---------------------------
start_target c --ttft-ms 10 --itl-ms 1 --max-seqs 1000; ADDR1=$ADDR
start_target d --ttft-ms 10 --itl-ms 1 --max-seqs 1000; ADDR2=$ADDR
scenario "$T/crowd.json" 20s "\"arrival\": {\"mode\": \"poisson\", \"rate\": 100}, \"trace\": null, \"input_tokens\": 20, \"output_tokens\": 4, \"api_key_env\": \"GL_PORT_KEY\", \"agents\": {\"launcher\": \"mpirun\", \"count\": 2, \"backoff\": \"200ms\", \"launcher_args\": [$MPI_ARGS]}"
python3 -c "
import json; p='$T/crowd.json'; s=json.load(open(p)); i=s['workloads']['inference']
del i['trace'], i['trace_format']; json.dump(s, open(p,'w'))"
KEY=port-key-$RANDOM$RANDOM$RANDOM
GL_PORT_KEY=$KEY "$GAUNTLET" run "$T/crowd.json" --out "$T/crowd" >"$T/crowd.log" 2>&1 &
CPID=$!; PIDS+=("$CPID")
wait_connected "$T/crowd" 2
RID=$(sql "$T/crowd/run.db" 'select id from run')
python3 "$T/hostile.py" "$(dial_of "$T/crowd")" hold 70 40 "$T/crowd.stop" >"$T/crowd.hostile" 2>&1 &
HPID=$!; PIDS+=("$HPID")
# the crowd is in once the controller has dropped some of it
until_ok 30 sql_is "$T/crowd/run.db" "select coalesce(sum(counter),0) > 0 from window_metrics where name='agents.refused'" 1
after_window "$T/crowd" 2
victim=$(run_procs "$RID" 1 | head -1)
check "crowd: agent 1 found by its environment (pid ${victim:-none})" [ -n "$victim" ]
ENV1=$(tr '\0' '\n' < "/proc/$victim/environ" 2>/dev/null)
check "crowd: the agent's /proc/PID/environ no longer shows its token" \
	bash -c "! grep -q '^GAUNTLET_AGENT_TOKEN=' <<< \"\$1\" && ! grep -qE '[0-9a-f]{64}' <<< \"\$1\"" _ "$ENV1"
check "crowd: ...nor the API key" bash -c "! grep -qF '$KEY' <<< \"\$1\"" _ "$ENV1"
[ -n "$victim" ] && kill -9 "$victim"
# the relaunched agent is in when a third hello was taken
until_ok 60 sql_is "$T/crowd/run.db" "select count(*) from events where source='agents' and message like '%connected from%'" 3
wait "$CPID"; rc=$?
touch "$T/crowd.stop"; wait "$HPID"
log_unless $rc 0 "$T/crowd.log"
check "crowd: the run passes beside 70 connections holding places (exit $rc; $(cat "$T/crowd.hostile"))" [ $rc -eq 0 ]
check "crowd: agent 1 lost once, relaunched once and connected again" python3 -c "
import sqlite3; c=sqlite3.connect('$T/crowd/run.db')
f=lambda n: c.execute('select coalesce(sum(counter),0) from window_metrics where name=?', (n,)).fetchone()[0]
n=c.execute(\"select count(*) from events where source='agents' and message like '%connected from%'\").fetchone()[0]
assert (f('agents.lost'), f('agents.relaunched'), n) == (1, 1, 3), (f('agents.lost'), f('agents.relaunched'), n)"
check "crowd: refusals counted by cause, and logged at most once a window (plus the first)" python3 -c "
import json, sqlite3; c=sqlite3.connect('$T/crowd/run.db')
a=json.load(open('$T/crowd/report.json'))['metrics']['agents']
by=a['refused_by_cause']; total=sum(by.values())
assert total == a['refused_connections'] and total >= 70, a
wins=c.execute('select count(*) from windows').fetchone()[0]
ev=c.execute(\"select count(*) from events where source='agents' and message like '%refused%'\").fetchone()[0]
assert ev <= wins + 1, (ev, wins, total)
print('refused', total, by, 'in', ev, 'event(s) over', wins, 'windows')"
check "crowd: the API key is nowhere in the run directory" bash -c "! grep -rqF '$KEY' '$T/crowd' '$T/crowd.log'"

# --- 3. a forger with a launch's real token ---------------------------------------------------------
start_target e --ttft-ms 10 --itl-ms 1 --max-seqs 1000; ADDR1=$ADDR
start_target f --ttft-ms 10 --itl-ms 1 --max-seqs 1000; ADDR2=$ADDR
cat > "$T/forger.py" <<'PY'
import json, os, socket, struct, sys, time
# one attack per launch, counted in a file
nf = sys.argv[1]
n = int(open(nf).read()) if os.path.exists(nf) else 0
open(nf, "w").write(str(n + 1))
host, port = os.environ["GAUNTLET_AGENT_CONTROLLER"].rsplit(":", 1)
s = socket.create_connection((host, int(port)), timeout=10)
def frame(t, p):
    s.sendall(struct.pack(">I", len(p) + 1) + t + p)
hello = {"proto": 1, "token": os.environ["GAUNTLET_AGENT_TOKEN"], "index": int(os.environ["GAUNTLET_AGENT_INDEX"]),
         "pid": os.getpid(), "host": "forger"}
frame(b"H", json.dumps(hello).encode())
buf = b""
while True:                       # wait for the plan
    d = s.recv(65536)
    if not d:
        sys.exit(3)
    buf += d
    if len(buf) >= 5 and len(buf) >= 4 + struct.unpack(">I", buf[:4])[0]:
        break
plan = json.loads(buf[5:4 + struct.unpack(">I", buf[:4])[0]])
win = int(plan["elapsed_ns"] // 2e9)
def data(w, series, final=0):
    p = struct.pack(">qBI", w, final, len(series))
    for name, v in series:
        p += struct.pack(">BB", 0, len(name)) + name.encode() + struct.pack(">q", v)
    frame(b"D", p)
def row(**kw):
    r = {"window": win, "endpoint": 0, "t_intended": 1, "t_send": 1, "t_headers": 2, "t_first_event": 3,
         "t_first_token": 3, "t_last_token": 4, "t_end": 5, "input_tokens": 10, "output_tokens": 4,
         "tokens_estimated": 0, "http_status": 200, "error_class": None, "max_stall_ns": 0}
    r.update(kw)
    frame(b"R", json.dumps([r]).encode())
attacks = [
    lambda: data(win, [("inference.requests", -5)]),
    lambda: data(win, [("inference.requests", 2**63 - 1)]),
    lambda: data(2**62, [("inference.requests", 1)], 1),
    lambda: data(win, [("agents.missing", 1000)]),
    lambda: row(endpoint=99999),
    lambda: row(http_status=999999),
]
if n > len(attacks):               # done: later launches stay quiet
    time.sleep(120)
    sys.exit(0)
if n < len(attacks):
    attacks[n]()
else:
    for i in range(15000):
        frame(b"E", json.dumps({"level": "warn", "msg": "forged event %d" % i}).encode())
s.settimeout(30)
try:                               # until the controller closes or stops it
    while s.recv(65536):
        pass
except OSError:
    pass
PY
cat > "$T/launch.sh" <<SH
#!/bin/sh
# agent 1 is the forger; the others are real agents through mpirun
if [ "\$GAUNTLET_AGENT_INDEX" = 1 ]; then exec python3 "$T/forger.py" "$T/forge.n"; fi
exec mpirun "\$@"
SH
chmod 755 "$T/launch.sh"
scenario "$T/forge.json" 20s "\"arrival\": {\"mode\": \"poisson\", \"rate\": 50}, \"trace\": null, \"input_tokens\": 20, \"output_tokens\": 4, \"agents\": {\"launcher\": \"mpirun\", \"launcher_path\": \"$T/launch.sh\", \"count\": 2, \"backoff\": \"200ms\", \"max_restarts\": 50, \"launcher_args\": [$MPI_ARGS]}"
python3 -c "
import json; p='$T/forge.json'; s=json.load(open(p)); i=s['workloads']['inference']
del i['trace'], i['trace_format']; s['targets']['steady']['agents.delivered_ratio'] = '>= 0'; json.dump(s, open(p,'w'))"
"$GAUNTLET" run "$T/forge.json" --out "$T/forge" >"$T/forge.log" 2>&1; rc=$?
log_unless $rc 0 "$T/forge.log"
check "forge: the run ends normally (exit $rc, $(cat "$T/forge.n" 2>/dev/null) forger launches)" [ $rc -eq 0 ]
check "forge: each of the 6 bad frames closed its connection and was counted (agents.bad_frames)" python3 -c "
import sqlite3; c=sqlite3.connect('$T/forge/run.db')
n=c.execute(\"select coalesce(sum(counter),0) from window_metrics where name='agents.bad_frames'\").fetchone()[0]
ev=[r[0] for r in c.execute(\"select message from events where source='agents' and message like '%connection closed'\")]
assert n == 6 and len(ev) == 6, (n, ev)
for want in ('-5 is out of', '9223372036854775807 is out of', 'window 4611686018427387904', 'agents.missing is not one',
             'endpoint 99999', 'http_status 999999'):
    assert any(want in m for m in ev), (want, ev)"
check "forge: no counter in the store is negative, none past 2^40, agents.missing never above expected" python3 -c "
import sqlite3; c=sqlite3.connect('$T/forge/run.db')
bad=c.execute('select name, idx, counter from window_metrics where counter < 0 or counter > 1099511627776').fetchall()
assert not bad, bad
m=c.execute(\"select max(counter) from window_metrics where name='agents.missing'\").fetchone()[0]
assert m is not None and m <= 2, m"
s1=$(served "$ADDR1"); s2=$(served "$ADDR2")
req=$(counter "$T/forge" inference.requests); cut=$(counter "$T/forge" inference.cut_at_end)
# a request in flight at the stop may have been answered by its replica
# but has no outcome at the client: counted as cut, not as finished
check "forge: the requests stored are those the replicas served ($req finished + $cut cut; served $s1 + $s2)" \
	[ "$req" -gt 0 -a "$req" -le $(( ${s1% *} + ${s2% *} )) -a $(( ${s1% *} + ${s2% *} )) -le $(( req + cut )) ]
check "forge: no stored row has an endpoint or status out of range" \
	sql_is "$T/forge/run.db" "select count(*) from requests where endpoint not between 0 and 1 or http_status > 599" 0
check "forge: the 15,000 events were logged 20 a window at most, the rest counted" python3 -c "
import sqlite3; c=sqlite3.connect('$T/forge/run.db')
per=c.execute(\"select count(*) from events where source='agent inference/1' group by elapsed_ns / 2000000000 order by 1 desc limit 1\").fetchone()
logged=c.execute(\"select count(*) from events where source='agent inference/1'\").fetchone()[0]
dropped=c.execute(\"select coalesce(sum(counter),0) from window_metrics where name='agents.events_dropped'\").fetchone()[0]
assert per and per[0] <= 20 and logged + dropped == 15000, (per, logged, dropped)
print('logged', logged, 'dropped', dropped)"
check "forge: the log stayed small (under 200 KB: $(stat -c %s "$T/forge.log") bytes)" [ "$(stat -c %s "$T/forge.log")" -lt 204800 ]

# --- 4. agents kept out fail the run -------------------------------------------------------------------
start_target g --ttft-ms 10 --itl-ms 1 --max-seqs 1000; ADDR1=$ADDR
start_target h --ttft-ms 10 --itl-ms 1 --max-seqs 1000; ADDR2=$ADDR
cat > "$T/keepout.sh" <<SH
#!/bin/sh
# agent 1's relaunches never start
if [ "\$GAUNTLET_AGENT_INDEX" = 1 ] && [ -e "$T/ko.launched" ]; then exit 1; fi
[ "\$GAUNTLET_AGENT_INDEX" = 1 ] && touch "$T/ko.launched"
exec mpirun "\$@"
SH
chmod 755 "$T/keepout.sh"
scenario "$T/ko.json" 16s "\"arrival\": {\"mode\": \"poisson\", \"rate\": 50}, \"trace\": null, \"input_tokens\": 20, \"output_tokens\": 4, \"agents\": {\"launcher\": \"mpirun\", \"launcher_path\": \"$T/keepout.sh\", \"count\": 2, \"backoff\": \"200ms\", \"max_restarts\": 0, \"launcher_args\": [$MPI_ARGS]}"
python3 -c "
import json; p='$T/ko.json'; s=json.load(open(p)); i=s['workloads']['inference']
del i['trace'], i['trace_format']; s['targets']['steady']['agents.delivered_ratio'] = '>= 0.99'; json.dump(s, open(p,'w'))"
"$GAUNTLET" run "$T/ko.json" --out "$T/ko" >"$T/ko.log" 2>&1 &
KPID=$!; PIDS+=("$KPID")
wait_connected "$T/ko" 2
after_window "$T/ko" 1
victim=$(run_procs "$(sql "$T/ko/run.db" 'select id from run')" 1 | head -1)
[ -n "$victim" ] && kill -9 "$victim"
wait "$KPID"; rc=$?
log_unless $rc 1 "$T/ko.log"
check "kept out: the run fails (exit $rc)" [ $rc -eq 1 ]
check "kept out: on its agents.delivered_ratio target, measured below 0.99" python3 -c "
import json; r=json.load(open('$T/ko/report.json'))
t=[t for t in r['targets'] if t['metric'] == 'agents.delivered_ratio']
assert t and not t[0]['pass'] and t[0]['measured'] < 0.99, t
print('measured', t[0]['measured'])"
finish
