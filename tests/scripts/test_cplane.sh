#!/usr/bin/env bash
# test_cplane.sh - the control_plane_loss fault kind end to end, against a
# real 3-member etcd cluster on 127.0.0.1 (Debian etcd-server 3.4) and a mock
# BMC: (1) signal KILL of the current Raft leader, restarted on revert from
# its data dir: the probe sees the member gone and the cluster accept writes
# again (re-election), and all 3 members healthy after; (1b) STOP/CONT;
# (1c) the controller SIGKILLed, `gauntlet revert` restarts the member; (1d)
# the controller SIGKILLed and never resumed, the fault's watcher (dead-man's
# switch) restarts it (lib.sh dm_never_resumed); (2) exec stop/start
# of a follower; (3) a KILL that loses quorum: verify fails because writes
# never recover; (4) redfish ForceOff/On against tests/scripts/redfish_mock.py,
# which checks the exact requests, a wrong password refused at preflight,
# and a BMC refusing the reset (401) failing the inject cleanly; (4b) the
# kubernetes probe (/readyz with a bearer token) against a stand-in server;
# (5) validate names bad params; the dry run describes each step.
# Every etcd is started here (its pid recorded) and stopped by pid at the end.
source "$(dirname "$0")/lib.sh"

command -v etcd >/dev/null || skip "etcd is not installed (Debian: apt-get install etcd-server etcd-client)"
command -v etcdctl >/dev/null || skip "etcdctl is not installed (Debian: apt-get install etcd-client)"
command -v setsid >/dev/null || skip "setsid (util-linux) is needed to restart members detached"
[ -x "$GAUNTLET" ] || skip "no gauntlet binary at $GAUNTLET"
export ETCDCTL_API=3

MOCK_PID=
cplane_cleanup() {
	local p
	for i in 1 2 3; do
		for p in $(member_pids "$i"); do kill -9 "$p" 2>/dev/null; done
	done
	[ -n "$MOCK_PID" ] && kill "$MOCK_PID" 2>/dev/null
	cleanup
}
trap cplane_cleanup EXIT

# Six free ports on 127.0.0.1 (client, peer for each member).
read -r C1 P1 C2 P2 C3 P3 < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(6)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')
EP1=http://127.0.0.1:$C1 EP2=http://127.0.0.1:$C2 EP3=http://127.0.0.1:$C3
EPS=$EP1,$EP2,$EP3
CLUSTER="m1=http://127.0.0.1:$P1,m2=http://127.0.0.1:$P2,m3=http://127.0.0.1:$P3"
ep() { local v="EP$1"; echo "${!v}"; }

# member_argv I STATE: the exact etcd command line of member I, one word a line
member_argv() {
	local c="C$1" p="P$1"
	printf '%s\n' etcd --name "m$1" --data-dir "$T/m$1" \
		--listen-client-urls "http://127.0.0.1:${!c}" --advertise-client-urls "http://127.0.0.1:${!c}" \
		--listen-peer-urls "http://127.0.0.1:${!p}" --initial-advertise-peer-urls "http://127.0.0.1:${!p}" \
		--initial-cluster "$CLUSTER" --initial-cluster-state "$2" --initial-cluster-token "gl-cp-$$" \
		--heartbeat-interval 100 --election-timeout 1000
}
member_json() { member_argv "$1" "$2" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read().splitlines()))'; }
# pids of member I's etcd: the processes whose command line names its data dir
# (unique to this test's temp dir)
member_pids() { pgrep -f -- "--data-dir $T/m$1( |$)" 2>/dev/null; }

# A helper the exec method runs: member.sh start|stop I
cat > "$T/member.sh" <<EOF
#!/bin/sh
# start: member I detached, pid into $T/mI.pid; stop: SIGTERM it, wait until
# gone (its pidfd readable: the process ended; 30 s at most)
set -u
i=\$2
case \$1 in
start)
	set -- \$(cat "$T/m\$i.argv")
	setsid -f sh -c 'echo \$\$ > "\$0"; exec "\$@"' "$T/m\$i.pid" "\$@" < /dev/null >> "$T/m\$i.log" 2>&1 ;;
stop)
	p=\$(cat "$T/m\$i.pid") || exit 1
	python3 -c '
import os, select, signal, sys
try:
    fd = os.pidfd_open(int(sys.argv[1]))
except ProcessLookupError:
    sys.exit(0)
try:
    os.kill(int(sys.argv[1]), signal.SIGTERM)
except ProcessLookupError:
    sys.exit(0)
sys.exit(0 if select.select([fd], [], [], 30)[0] else 1)' "\$p" ;;
*) exit 2 ;;
esac
EOF
chmod +x "$T/member.sh"

for i in 1 2 3; do
	member_argv "$i" new | tr '\n' ' ' > "$T/m$i.argv"
	"$T/member.sh" start "$i"
done
healthy() { # all three members answer healthy
	etcdctl --endpoints "$EPS" --dial-timeout 1s --command-timeout 2s endpoint health >/dev/null 2>&1
}
wait_healthy() { until_ok "$1" healthy; }
wait_healthy 60 || { tail -5 "$T"/m*.log; skip "the 3-member etcd cluster did not become healthy within 60 s"; }
echo "etcd cluster up: $EPS ($(etcd --version | head -1))"
for i in 1 2 3; do member_argv "$i" existing | tr '\n' ' ' > "$T/m$i.argv"; done

# the index (1-3) of the current leader
leader() {
	etcdctl --endpoints "$EPS" --dial-timeout 1s --command-timeout 2s endpoint status -w json 2>/dev/null | python3 -c '
import json, sys
eps = sys.argv[1].split(",")
for s in json.load(sys.stdin):
    if s["Status"]["header"]["member_id"] == s["Status"]["leader"]:
        print(eps.index(s["Endpoint"]) + 1)
        break' "$EPS"
}
n_members() { etcdctl --endpoints "$EPS" --dial-timeout 1s --command-timeout 2s member list 2>/dev/null | grep -c started; }
pid_alive() { kill -0 "$1" 2>/dev/null && [ "$(ps -o stat= -p "$1" | cut -c1)" != Z ]; }

scenario() { # FILE DURATION FAULT-JSON
	cat > "$1" <<JSON
{ "name": "cplane", "duration": "$2", "window": "1s", "hold": 1,
  "hosts": { "me": { "local": true } },
  "workloads": { "null": { "rate": 50 } },
  "faults": [ $3 ],
  "targets": { "steady": { "null.ticks": ">= 10" }, "degraded": { "null.ticks": ">= 10" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } } }
JSON
}
show_fault() { json "$1/report.json" "{k: r['faults'][0].get(k) for k in ('state', 'verified', 'verified_revert', 'error')}"; }
probe_json() { # MEMBER-INDEX [TIMEOUT]
	echo "{ \"etcd\": [\"$EP1\", \"$EP2\", \"$EP3\"], \"member\": \"$(ep "$1")\", \"timeout\": \"${2:-30s}\" }"
}

# --- 1. signal KILL of the leader, restarted on revert ---------------------------
L=$(leader)
check "a leader is elected (member ${L:-none})" [ -n "$L" ]
L=${L:-1}
LPID=$(cat "$T/m$L.pid")
echo "leader: m$L at $(ep "$L"), pid $LPID"
scenario "$T/kill.json" 12s "{ \"id\": \"kill-leader\", \"at\": \"1s\", \"for\": \"5s\", \"kind\": \"control_plane_loss\",
  \"method\": \"signal\", \"target\": \"me\",
  \"params\": { \"pid\": $LPID, \"signal\": \"KILL\", \"start\": $(member_json "$L" existing),
                \"state_dir\": \"$T/state\", \"log\": \"$T/m$L.log\", \"probe\": $(probe_json "$L") } }"
"$GAUNTLET" run "$T/kill.json" --dry-run >"$T/dry.log" 2>&1
check "dry run: kill -KILL, the restart and the write probe are described" \
	bash -c "grep -q 'kill -KILL' '$T/dry.log' && grep -q 'setsid -f etcd --name m$L' '$T/dry.log' && grep -q 'v3/kv/put' '$T/dry.log'"
"$GAUNTLET" run "$T/kill.json" --out "$T/r1" >"$T/r1.log" 2>&1; rc=$?
check "KILL leader: run completes (exit $rc)" [ $rc -le 1 ]
show_fault "$T/r1"
check "KILL leader: report says verified and reverted, verified_revert" \
	fault_is "$T/r1" 0 "(f['state'], f['verified'], f['verified_revert']) == ('reverted', True, True)"
check "KILL leader: the control plane's own recovery is in the report (0 < s < 30)" \
	fault_is "$T/r1" 0 "0 < f['measured']['control_plane_recovery_s'] < 30 and 0 <= f['measured']['control_plane_back_s'] < 30"
json "$T/r1/report.json" "'control-plane recovery after the leader was killed: %.3f s' % r['faults'][0]['measured']['control_plane_recovery_s']"
REC=$(sed -n "s/.*control-plane recovery: etcd accepted a write \([0-9.]*\) s after inject.*/\1/p" "$T/r1.log" | head -1)
echo "measured control-plane recovery after SIGKILL of the leader: ${REC:-?} s"
check "KILL leader: recovery measured and logged (${REC:-none} s, under 10 s)" \
	python3 -c "import sys; sys.exit(0 if 0 < float(sys.argv[1] or 0) < 10 else 1)" "${REC:-0}"
check "KILL leader: the old pid is gone" bash -c "! kill -0 $LPID 2>/dev/null || grep -q '^[^)]*) Z' /proc/$LPID/stat"
NEWPID=$(member_pids "$L" | head -1)
check "KILL leader: member m$L runs again (pid ${NEWPID:-none})" [ -n "$NEWPID" ]
[ -n "$NEWPID" ] && echo "$NEWPID" > "$T/m$L.pid"
check "KILL leader: 3 healthy members after the revert" wait_healthy 60
check "KILL leader: member list shows 3 started" [ "$(n_members)" = 3 ]
check "KILL leader: no pid record left" [ -z "$(ls "$T/state" 2>/dev/null)" ]

# --- 1b. signal STOP of the leader chosen by pattern, CONT on revert -----------------
pstate() { local l; { read -r l < "/proc/$1/stat"; } 2>/dev/null || { echo ""; return; }; l=${l##*) }; echo "${l%% *}"; }
L=$(leader); L=${L:-1}
LPID=$(cat "$T/m$L.pid")
scenario "$T/stop.json" 10s "{ \"id\": \"stop-leader\", \"at\": \"1s\", \"for\": \"4s\", \"kind\": \"control_plane_loss\",
  \"method\": \"signal\", \"target\": \"me\",
  \"params\": { \"pattern\": \"--data-dir $T/m$L( |\$)\", \"signal\": \"STOP\", \"state_dir\": \"$T/state\",
                \"probe\": $(probe_json "$L") } }"
bg run "$T/stop.json" --out "$T/r1b"
stopped() { [ "$(pstate "$1")" = T ]; }
check "STOP leader: m$L (pid $LPID) is stopped during the fault" until_ok 30 stopped "$LPID"
wait "$BG_PID"; rc=$?
check "STOP leader: run completes (exit $rc)" [ $rc -le 1 ]
show_fault "$T/r1b"
check "STOP leader: verified (writes recovered while the leader was frozen) and reverted" \
	fault_is "$T/r1b" 0 "(f['state'], f['verified'], f['verified_revert']) == ('reverted', True, True)"
check "STOP leader: the same process runs again" bash -c "[ -n '$(pstate "$LPID")' ] && [ '$(pstate "$LPID")' != T ]"
check "STOP leader: 3 healthy members after" wait_healthy 60

# --- 1c. the controller SIGKILLed mid-fault, then `gauntlet revert` restarts the member ---
L=$(leader); L=${L:-1}
F=$(( L % 3 + 1 ))
FPID=$(cat "$T/m$F.pid")
scenario "$T/crash.json" 60s "{ \"id\": \"kill-crash\", \"at\": \"1s\", \"for\": \"50s\", \"kind\": \"control_plane_loss\",
  \"method\": \"signal\", \"target\": \"me\",
  \"params\": { \"pidfile\": \"$T/m$F.pid\", \"start\": $(member_json "$F" existing), \"state_dir\": \"$T/state\",
                \"log\": \"$T/m$F.log\", \"probe\": $(probe_json "$F") } }"
bg run "$T/crash.json" --out "$T/r1c"
check "crash: the journal says injected" until_ok 30 sql_is "$T/r1c/run.db" "select state from faults" injected
kill -9 "$BG_PID"; wait "$BG_PID" 2>/dev/null
# (a killed member whose parent has not reaped it yet is a zombie: state Z)
member_down() { [[ "$(pstate "$FPID")" == @(|Z|X) ]] && [ -z "$(member_pids "$F")" ]; }
check "crash: member m$F (pid $FPID) is down after the controller died" member_down
"$GAUNTLET" revert "$T/r1c" >"$T/r1c.log" 2>&1; rc=$?
check "crash: gauntlet revert exits 0" [ $rc -eq 0 ]
check "crash: journal says reverted" [ "$(sql "$T/r1c/run.db" "select state from faults")" = reverted ]
NEWPID=$(member_pids "$F" | head -1)
check "crash: member m$F runs again (pid ${NEWPID:-none})" [ -n "$NEWPID" ]
[ -n "$NEWPID" ] && echo "$NEWPID" > "$T/m$F.pid"
check "crash: 3 healthy members after" wait_healthy 60
"$GAUNTLET" revert "$T/r1c" >"$T/r1c2.log" 2>&1; rc=$?
check "crash: revert again has nothing to do (exit $rc)" [ $rc -eq 0 ]
check "crash: still exactly one m$F process" [ "$(member_pids "$F" | wc -l)" -eq 1 ]

# --- 1d. the controller SIGKILLed mid-fault and never resumed: the fault's watcher
# (lease renewed every 1 s, grace 3 s) restarts the member itself ---
L=$(leader); L=${L:-1}
F=$(( L % 3 + 1 ))
cat > "$T/dm.json" <<JSON
{ "name": "cplane-dm", "duration": "60s", "window": "1s", "hold": 1,
  "hosts": { "me": { "local": true } },
  "workloads": { "null": { "rate": 50 } },
  "faults": [ { "id": "kill-dm", "at": "1s", "for": "50s", "kind": "control_plane_loss",
    "method": "signal", "target": "me",
    "params": { "pidfile": "$T/m$F.pid", "start": $(member_json "$F" existing), "state_dir": "$T/state",
                "log": "$T/m$F.log", "probe": $(probe_json "$F") } } ],
  "targets": { "steady": { "null.ticks": ">= 10" }, "degraded": { "null.ticks": ">= 10" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } },
  "safety": { "deadman_renew": "1s", "deadman_grace": "3s" } }
JSON
bg run "$T/dm.json" --out "$T/r1d"
check "KILL never resumed: the journal says injected" until_ok 30 sql_is "$T/r1d/run.db" "select state from faults" injected
member_back() { [ -n "$(member_pids "$F")" ] && healthy; }
dm_never_resumed "KILL never resumed" "$T/r1d" 3 1 member_back
NEWPID=$(member_pids "$F" | head -1)
check "KILL never resumed: member m$F runs again, once (pid ${NEWPID:-none})" [ "$(member_pids "$F" | wc -l)" -eq 1 ]
[ -n "$NEWPID" ] && echo "$NEWPID" > "$T/m$F.pid"
check "KILL never resumed: 3 healthy members after" wait_healthy 60

# --- 2. exec stop/start of a follower ---------------------------------------------
L=$(leader); L=${L:-1}
F=$(( L % 3 + 1 ))
FPID=$(cat "$T/m$F.pid")
scenario "$T/exec.json" 10s "{ \"id\": \"stop-follower\", \"at\": \"1s\", \"for\": \"4s\", \"kind\": \"control_plane_loss\",
  \"method\": \"exec\", \"target\": \"me\",
  \"params\": { \"stop\": [\"$T/member.sh\", \"stop\", \"$F\"], \"start\": [\"$T/member.sh\", \"start\", \"$F\"],
                \"probe\": $(probe_json "$F") } }"
"$GAUNTLET" run "$T/exec.json" --out "$T/r2" >"$T/r2.log" 2>&1; rc=$?
check "exec follower: run completes (exit $rc)" [ $rc -le 1 ]
show_fault "$T/r2"
check "exec follower: verified and reverted" \
	fault_is "$T/r2" 0 "(f['state'], f['verified'], f['verified_revert']) == ('reverted', True, True)"
check "exec follower: recovery logged" grep -q "control-plane recovery: etcd accepted a write" "$T/r2.log"
check "exec follower: the old process is gone, a new one runs" \
	bash -c "! kill -0 $FPID 2>/dev/null && kill -0 \$(cat '$T/m$F.pid') 2>/dev/null"
check "exec follower: 3 healthy members after" wait_healthy 60

# --- 3. quorum lost: writes never recover, so verify fails ----------------------------
# m$A is stopped by hand, then the fault KILLs m$B: one member of three left.
# m$A comes back once the verify has failed (journaled), while the fault
# lasts, so the revert (restart m$B) completes.
# The probe lists m$B and m$C only (preflight wants every listed member healthy).
A=1 B=2
BPID=$(cat "$T/m$B.pid")
"$T/member.sh" stop "$A"
scenario "$T/quorum.json" 14s "{ \"id\": \"no-quorum\", \"at\": \"1s\", \"for\": \"8s\", \"kind\": \"control_plane_loss\",
  \"method\": \"signal\", \"target\": \"me\",
  \"params\": { \"pid\": $BPID, \"start\": $(member_json "$B" existing), \"state_dir\": \"$T/state\",
                \"log\": \"$T/m$B.log\",
                \"probe\": { \"etcd\": [\"$(ep "$B")\", \"$(ep 3)\"], \"member\": \"$(ep "$B")\", \"timeout\": \"3s\" } } }"
bg run "$T/quorum.json" --out "$T/r3"
check "no quorum: the journal has it injected, its verify failed" \
	until_ok 60 sql_is "$T/r3/run.db" "select state||' '||verified||' '||(error like 'verify:%accepted no write%') from faults" "injected 0 1"
"$T/member.sh" start "$A"
wait "$BG_PID"; rc=$?
check "no quorum: run completes (exit $rc)" [ $rc -le 1 ]
show_fault "$T/r3"
check "no quorum: verify failed naming the write probe" \
	fault_is "$T/r3" 0 "f['verified'] is False and 'accepted no write' in (f.get('error') or '')"
check "no quorum: reverted all the same" fault_is "$T/r3" 0 "f['state'] == 'reverted'"
NEWPID=$(member_pids "$B" | head -1)
[ -n "$NEWPID" ] && echo "$NEWPID" > "$T/m$B.pid"
check "no quorum: 3 healthy members after" wait_healthy 60

# --- 4. redfish against the mock BMC ----------------------------------------------------
redfish_test() {
	command -v openssl >/dev/null || { part_skip 4 "redfish: openssl is needed for the mock BMC's certificate"; return; }
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/bmc.key" -out "$T/bmc.crt" -days 1 \
		-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1 ||
		{ part_skip 4 "redfish: openssl could not make a certificate"; return; }
	mock() { # LOG [--refuse-reset]
		rm -f "$T/bmc.port"
		python3 "$GL_SOURCE_DIR/tests/scripts/redfish_mock.py" --cert "$T/bmc.crt" --key "$T/bmc.key" \
			--user admin --password s3cret --log "$1" --port-file "$T/bmc.port" ${2:-} &
		MOCK_PID=$!
		PIDS+=("$MOCK_PID")
		wait_for "$T/bmc.port" 10 || return 1
		BMC="https://127.0.0.1:$(cat "$T/bmc.port")"
	}
	stop_mock() { kill "$MOCK_PID" 2>/dev/null; wait "$MOCK_PID" 2>/dev/null; MOCK_PID=; }
	rf_scenario() { # FILE
		scenario "$1" 6s "{ \"id\": \"bmc-off\", \"at\": \"1s\", \"for\": \"2s\", \"kind\": \"control_plane_loss\",
  \"method\": \"redfish\", \"target\": \"me\",
  \"params\": { \"bmc\": \"$BMC\", \"system\": \"/redfish/v1/Systems/1\", \"user_env\": \"GL_BMC_USER\",
                \"pass_env\": \"GL_BMC_PASS\", \"ca_bundle\": \"$T/bmc.crt\", \"timeout\": \"10s\" } }"
	}
	mock "$T/bmc1.log" || { bad "redfish: the mock BMC did not start"; return; }
	rf_scenario "$T/rf.json"
	GL_BMC_USER=admin GL_BMC_PASS=s3cret "$GAUNTLET" run "$T/rf.json" --out "$T/r4" >"$T/r4.log" 2>&1; rc=$?
	stop_mock
	check "redfish: run completes (exit $rc)" [ $rc -le 1 ]
	show_fault "$T/r4"
	check "redfish: verified and reverted" \
		fault_is "$T/r4" 0 "(f['state'], f['verified'], f['verified_revert']) == ('reverted', True, True)"
	python3 - "$T/bmc1.log" > "$T/bmc1.check" 2>&1 <<'EOF'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert reqs, "no requests"
assert not any(r["violation"] for r in reqs), [r for r in reqs if r["violation"]]
assert all(r["auth_ok"] for r in reqs), "a request without the right basic auth"
posts = [r for r in reqs if r["method"] == "POST"]
assert [json.loads(r["body"]) for r in posts] == [{"ResetType": "ForceOff"}, {"ResetType": "On"}], posts
assert all(r["path"] == "/redfish/v1/Systems/1/Actions/ComputerSystem.Reset" and r["status"] == 204
           and r["content_type"].split(";")[0] == "application/json" for r in posts), posts
gets = [r for r in reqs if r["method"] == "GET"]
assert gets and all(r["path"] == "/redfish/v1/Systems/1" and r["status"] == 200 for r in gets), gets
i_off, i_on = reqs.index(posts[0]), reqs.index(posts[1])
assert any(r["method"] == "GET" for r in reqs[:i_off]), "no preflight GET before the power-off"
assert any(r["method"] == "GET" for r in reqs[i_off + 1:i_on]), "power-off not verified by GET"
assert reqs[-1]["method"] == "GET", "power-on not verified by GET"
print("requests ok:", len(reqs))
EOF
	check "redfish: the mock saw exactly GET, POST ForceOff, GETs, POST On, GETs, all authenticated ($(tail -1 "$T/bmc1.check"))" \
		grep -q "requests ok" "$T/bmc1.check"

	# wrong password: refused at preflight, nothing posted
	mock "$T/bmc2.log" || { bad "the mock BMC did not start again"; return; }
	rf_scenario "$T/rf2.json"
	GL_BMC_USER=admin GL_BMC_PASS=wrong "$GAUNTLET" run "$T/rf2.json" --out "$T/r5" >"$T/r5.log" 2>&1; rc=$?
	stop_mock
	check "redfish wrong password: the run stops at preflight (exit $rc = 4)" [ $rc -eq 4 ]
	check "redfish wrong password: preflight names HTTP 401" grep -q "preflight: .*bmc-off.*HTTP 401" "$T/r5.log"
	# (the mock logs every request: the preflight GET must be there, no POST)
	check "redfish wrong password: the preflight GET reached the BMC, nothing was posted" \
		bash -c "grep -q '\"GET\"' '$T/bmc2.log' && ! grep -q '\"POST\"' '$T/bmc2.log'"

	# the BMC refuses the reset itself (401): inject fails, the fault is 'failed', not stuck
	mock "$T/bmc3.log" --refuse-reset || { bad "the mock BMC did not start again"; return; }
	rf_scenario "$T/rf3.json"
	GL_BMC_USER=admin GL_BMC_PASS=s3cret "$GAUNTLET" run "$T/rf3.json" --out "$T/r6" >"$T/r6.log" 2>&1; rc=$?
	stop_mock
	show_fault "$T/r6"
	check "redfish refused reset: run ends (exit $rc, not a crash)" [ $rc -le 4 ]
	check "redfish refused reset: fault failed cleanly with HTTP 401 named" \
		fault_is "$T/r6" 0 "f['state'] == 'failed' and 'HTTP 401' in (f.get('error') or '')"
	check "redfish refused reset: the reset was posted and refused (401), none accepted" \
		bash -c "grep -q '\"POST\".*\"status\": 401' '$T/bmc3.log' && ! grep -q '\"status\": 204' '$T/bmc3.log'"
}
redfish_test

# --- 4b. the kubernetes probe against a stand-in API server -----------------------------
# /readyz answers 503 for the first 5 requests after the "member" is stopped
# (a file appears), then 200; every request must carry the bearer token.
k8s_test() {
	rm -f "$T/k8s.port" "$T/k8s.down"
	python3 - "$T" > "$T/k8s.out" 2>&1 <<'EOF2' &
import http.server, os, sys, json
T = sys.argv[1]
state = {"since_down": 0, "bad_auth": 0}
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        if self.headers.get("Authorization") != "Bearer tok-123":
            state["bad_auth"] += 1
            code = 401
        elif self.path != "/readyz":
            code = 404
        elif os.path.exists(T + "/k8s.down") and state["since_down"] < 5:
            state["since_down"] += 1
            code = 503
        else:
            code = 200
        with open(T + "/k8s.log", "a") as f:
            f.write(json.dumps({"path": self.path, "code": code, "bad_auth": state["bad_auth"]}) + "\n")
        body = b"ok" if code == 200 else b"not ready"
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(T + "/k8s.port.tmp", "w").write(str(srv.server_address[1]))
os.rename(T + "/k8s.port.tmp", T + "/k8s.port")
srv.serve_forever()
EOF2
	local kpid=$!
	PIDS+=("$kpid")
	wait_for "$T/k8s.port" 10 || { bad "the stand-in API server did not start"; return; }
	scenario "$T/k8s.json" 6s "{ \"id\": \"apiserver\", \"at\": \"1s\", \"for\": \"2s\", \"kind\": \"control_plane_loss\",
  \"method\": \"exec\", \"target\": \"me\",
  \"params\": { \"stop\": [\"touch\", \"$T/k8s.down\"], \"start\": [\"rm\", \"-f\", \"$T/k8s.down\"],
                \"probe\": { \"kubernetes\": \"http://127.0.0.1:$(cat "$T/k8s.port")\", \"token_env\": \"GL_K8S_TOKEN\" } } }"
	GL_K8S_TOKEN=tok-123 "$GAUNTLET" run "$T/k8s.json" --out "$T/r7" >"$T/r7.log" 2>&1; rc=$?
	kill "$kpid" 2>/dev/null; wait "$kpid" 2>/dev/null
	check "kubernetes probe: run completes (exit $rc)" [ $rc -le 1 ]
	show_fault "$T/r7"
	check "kubernetes probe: verified and reverted" \
		fault_is "$T/r7" 0 "(f['state'], f['verified'], f['verified_revert']) == ('reverted', True, True)"
	check "kubernetes probe: /readyz polled through the 503s (6 tries)" \
		grep -q "control-plane recovery: kubernetes /readyz answered 200 .* (6 tries)" "$T/r7.log"
	check "kubernetes probe: every request carried the bearer token (requests logged, no 401)" \
		bash -c "grep -q '\"code\": 200' '$T/k8s.log' && ! grep -q '\"code\": 401' '$T/k8s.log'"
}
k8s_test

# --- 5. validate -------------------------------------------------------------------------
scenario "$T/bad.json" 20s "
  { \"id\": \"b0\", \"at\": \"1s\", \"for\": \"1s\", \"kind\": \"control_plane_loss\", \"method\": \"signal\", \"target\": \"me\",
    \"params\": { \"pattern\": \".*\", \"bogus\": 1 } },
  { \"id\": \"b1\", \"at\": \"3s\", \"for\": \"1s\", \"kind\": \"control_plane_loss\", \"method\": \"signal\", \"target\": \"me\",
    \"params\": { \"pid\": 1234 } },
  { \"id\": \"b2\", \"at\": \"5s\", \"for\": \"1s\", \"kind\": \"control_plane_loss\", \"method\": \"redfish\", \"target\": \"me\",
    \"params\": { \"bmc\": \"http://bmc\", \"system\": \"/redfish/v1/Systems/1\", \"user_env\": \"U\", \"pass_env\": \"P\", \"off\": \"Explode\" } },
  { \"id\": \"b3\", \"at\": \"7s\", \"for\": \"1s\", \"kind\": \"control_plane_loss\", \"method\": \"exec\", \"target\": \"me\",
    \"params\": { \"stop\": [\"true\"], \"probe\": { \"etcd\": [\"ftp://x\"] } } },
  { \"id\": \"b4\", \"at\": \"9s\", \"for\": \"1s\", \"kind\": \"control_plane_loss\", \"method\": \"signal\", \"target\": \"me\",
    \"params\": { \"pid\": 1234, \"signal\": \"HUP\" } }"
"$GAUNTLET" validate "$T/bad.json" >"$T/bad.out" 2>"$T/bad.err"; rc=$?
check "validate: bad params exit 2" [ $rc -eq 2 ]
check "validate: unknown key named" grep -q "faults\[0\].params.bogus: unknown key 'bogus'" "$T/bad.err"
check "validate: broad pattern refused" grep -q "faults\[0\].params.pattern: " "$T/bad.err"
check "validate: KILL with for needs start" grep -q "faults\[1\].params.start: missing" "$T/bad.err"
check "validate: redfish needs https" grep -q "faults\[2\].params.bmc: expected an https://" "$T/bad.err"
check "validate: unknown ResetType" grep -q "faults\[2\].params.off: " "$T/bad.err"
check "validate: exec needs start with for" grep -q "faults\[3\].params.start: missing" "$T/bad.err"
check "validate: probe URL checked" grep -q "faults\[3\].params.probe.etcd\[0\]: " "$T/bad.err"
check "validate: signal HUP refused" grep -q "faults\[4\].params.signal: unknown signal 'HUP'" "$T/bad.err"

# --- stop every etcd this test started, by pid ----------------------------------------------
for i in 1 2 3; do
	for p in $(member_pids "$i"); do kill -TERM "$p" 2>/dev/null; done
done
no_etcd_left() { [ -z "$(member_pids 1)$(member_pids 2)$(member_pids 3)" ]; }
check "every etcd of this test stopped" until_ok 30 no_etcd_left
finish
