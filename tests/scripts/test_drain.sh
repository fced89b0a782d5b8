#!/usr/bin/env bash
# test_drain.sh - the drain_worker fault kind end to end, with the null
# workload: (1) validate refuses bad params naming their path, and the dry
# run prints the commands and requests; (2) method exec with marker files;
# (3) method kubernetes against tests/scripts/k8s_mock.py, a local HTTP
# server that checks every request exactly (real Kubernetes cannot run
# here): cordon, pod list, evictions (DaemonSet and mirror pods left alone,
# a 429 retried), uncordon, and uncordon by `gauntlet revert` after the
# controller is SIGKILLed; (4) method slurm via slurmrestd against a mock of
# its node API that checks each request; (5) method slurm against a real private
# single-machine Slurm cluster (munged on a private socket, slurmctld and
# slurmd on free loopback ports, all state in the temp dir): DRAIN during
# the fault, idle without DRAIN after, RESUME by `gauntlet revert` after
# a SIGKILL, and RESUME by the fault's watcher (the dead-man's switch) after
# a SIGKILL never resumed. A part that cannot start is a part_skip (lib.sh: counted
# skipped, a failure under GL_STRICT=1) and the others still run; the test
# is skipped as a whole only when no part could run.
source "$(dirname "$0")/lib.sh"

RAN=0
MUNGED_PID= CTLD_PID= SLURMD_PID= MOCK_PID= RESTD_PID=

drain_cleanup() {
	[ -n "${NETNS_MADE:-}" ] && ip netns del "$NETNS_MADE" 2>/dev/null
	for p in $CTLD_PID $SLURMD_PID $MUNGED_PID $MOCK_PID $RESTD_PID; do
		kill "$p" 2>/dev/null
	done
	for p in $CTLD_PID $SLURMD_PID $MUNGED_PID $MOCK_PID $RESTD_PID; do
		wait_gone "$p" 10
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	cleanup
}
trap drain_cleanup EXIT

# Write a scenario: FILE DURATION FAULTS-JSON [HOSTS-JSON]
scenario() {
	local hosts=${4:-'{ "me": { "local": true } }'}
	cat > "$1" <<JSON
{ "name": "drain", "duration": "$2", "window": "1s", "hold": 1,
  "hosts": $hosts,
  "workloads": { "null": { "rate": 50 } },
  "faults": [ $3 ],
  "targets": { "steady": { "null.ticks": ">= 10" }, "degraded": { "null.ticks": ">= 10" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } } }
JSON
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# Poll a command until it succeeds: SECONDS COMMAND...

# --- 1. validate and dry run ----------------------------------------------------------
RAN=$((RAN + 1))
scenario "$T/bad.json" 20s '
  { "id": "b0", "at": "1s", "for": "5s", "kind": "drain_worker", "method": "slurm", "target": "me",
    "params": { "node": "-rf", "bogus": 1, "url": "https://x:6820" } },
  { "id": "b1", "at": "1s", "kind": "drain_worker", "method": "slurm", "target": "me", "params": { "node": "n1" } },
  { "id": "b2", "at": "1s", "for": "5s", "kind": "drain_worker", "method": "slurm", "target": "me",
    "params": { "via": "slurmrestd", "url": "https://127.0.0.1:6820/slurm", "api_version": "40" } },
  { "id": "b3", "at": "1s", "for": "5s", "kind": "drain_worker", "method": "kubernetes", "target": "me",
    "params": { "api": "ftp://x/y", "node": "Bad_Node", "token_env": "T", "token_file": "/t", "evict": "yes" } },
  { "id": "b4", "at": "1s", "for": "5s", "kind": "drain_worker", "method": "exec", "target": "me",
    "params": { "drain": "not argv", "check_drained": [] } },
  { "id": "b5", "at": "1s", "for": "5s", "kind": "drain_worker", "method": "kubernetes", "target": "me",
    "params": { "node": "n1", "reason": "x" } }'
"$GAUNTLET" validate "$T/bad.json" >/dev/null 2>"$T/bad.err"; rc=$?
check "validate: bad params exit 2" [ $rc -eq 2 ]
while IFS= read -r p; do
	check "validate names $p" grep -qF -- "$p" "$T/bad.err"
done <<'EOF'
faults[0].params.node: expected a Slurm node name
faults[0].params.bogus: unknown key 'bogus' for drain_worker method slurm
faults[1].for: kind drain_worker needs "for"
faults[0].params.url: "url" applies to "via": "slurmrestd" only
faults[2].params.url: expected the slurmrestd URL
faults[2].params.api_version: expected an API version
faults[2].params.token_env: "via": "slurmrestd" needs exactly one of "token_env" or "token_file"
faults[3].params.api: expected the API server URL
faults[3].params.node: expected a Kubernetes node name
faults[3].params.token_file: give one of "token_env" or "token_file"
faults[3].params.evict: expected true
faults[4].params.drain: expected a non-empty argv array
faults[4].params.resume: method exec needs params.resume
faults[4].params.check_drained: expected a non-empty argv array
faults[5].params.api: method kubernetes needs params.api
faults[5].params.reason: unknown key 'reason' for drain_worker method kubernetes
EOF
[ "$FAIL" -eq 0 ] || cat "$T/bad.err"

scenario "$T/dry.json" 20s '
  { "id": "d-slurm", "at": "1s", "for": "5s", "kind": "drain_worker", "method": "slurm", "target": "ctl",
    "params": { "reason": "maintenance test" } },
  { "id": "d-k8s", "at": "8s", "for": "5s", "kind": "drain_worker", "method": "kubernetes", "target": "ctl",
    "params": { "api": "https://10.0.0.1:6443", "token_env": "KTOKEN" } }' \
	'{ "ctl": { "local": true, "slurm_node": "gpu-07", "k8s_node": "gpu-07.example" } }'
"$GAUNTLET" run "$T/dry.json" --dry-run >"$T/dry.log" 2>&1
check "dry run: the slurm drain with the host's slurm_node and the reason" \
	grep -qF "scontrol update NodeName=gpu-07 State=DRAIN 'Reason=maintenance test'" "$T/dry.log"
check "dry run: the slurm resume" grep -qF "scontrol update NodeName=gpu-07 State=RESUME" "$T/dry.log"
check "dry run: the cordon of the host's k8s_node" \
	grep -qF 'PATCH https://10.0.0.1:6443/api/v1/nodes/gpu-07.example (application/merge-patch+json) {"spec":{"unschedulable":true}}' "$T/dry.log"
check "dry run: the evictions and the uncordon" bash -c "grep -q 'eviction (policy/v1 Eviction)' '$T/dry.log' && grep -qF '{\"spec\":{\"unschedulable\":false}}' '$T/dry.log'"
check "dry run: names the token's variable, never a value" grep -qF 'bearer token from $KTOKEN' "$T/dry.log"

# --- 2. method exec -----------------------------------------------------------------------
RAN=$((RAN + 1))
M="$T/drained.marker"
scenario "$T/exec.json" 5s "{ \"id\": \"dx\", \"at\": \"1s\", \"for\": \"2s\", \"kind\": \"drain_worker\", \"method\": \"exec\",
  \"target\": \"me\", \"params\": { \"drain\": [\"touch\", \"$M\"], \"resume\": [\"rm\", \"-f\", \"$M\"],
  \"check_drained\": [\"test\", \"-e\", \"$M\"] } }"
bg run "$T/exec.json" --out "$T/rx"
check "exec: drained during the fault (marker made)" wait_for "$M" 10
wait "$BG_PID"; rc=$?
check "exec: run exits 0" [ $rc -eq 0 ]
check "exec: resumed after (marker gone)" [ ! -e "$M" ]
check "exec: report says reverted, verified both ways" fault_is "$T/rx" 0 "(f['state'], f['verified'], f['verified_revert']) == ('reverted', True, True)"

# --- 3. method kubernetes against the checking mock -----------------------------------------
RAN=$((RAN + 1))
export GL_TEST_K8S_TOKEN="tok-$$-$RANDOM"
KNODE=gpu-node-1
python3 "$GL_SOURCE_DIR/tests/scripts/k8s_mock.py" "$T/k8s.port" "$T/k8s.log" "$T/k8s.state" \
	"$GL_TEST_K8S_TOKEN" "$KNODE" 2>"$T/k8s.err" &
MOCK_PID=$!
if ! wait_for "$T/k8s.port" 10; then
	bad "kubernetes: the mock API server did not start: $(head -c 300 "$T/k8s.err")"
else
	KAPI="http://127.0.0.1:$(cat "$T/k8s.port")"
	kstate() { json "$T/k8s.state" "$1 or sys.exit(1)" >/dev/null; }
	scenario "$T/k8s.json" 6s "{ \"id\": \"dk\", \"at\": \"1s\", \"for\": \"3s\", \"kind\": \"drain_worker\",
	  \"method\": \"kubernetes\", \"target\": \"me\",
	  \"params\": { \"api\": \"$KAPI\", \"node\": \"$KNODE\", \"token_env\": \"GL_TEST_K8S_TOKEN\" } }"
	bg run "$T/k8s.json" --out "$T/rk"
	check "kubernetes: cordoned during the fault" until_ok 10 kstate "r['unschedulable']"
	wait "$BG_PID"; rc=$?
	check "kubernetes: run exits 0" [ $rc -eq 0 ]
	check "kubernetes: uncordoned after" kstate "not r['unschedulable']"
	check "kubernetes: the two ReplicaSet pods were evicted" kstate "'default/web-1' not in r['pods'] and 'default/web-2' not in r['pods']"
	check "kubernetes: DaemonSet, mirror, finished and other-node pods left alone" \
		kstate "sorted(r['pods']) == sorted(['kube-system/node-agent-x7k2p', 'kube-system/kube-apiserver-$KNODE', 'default/job-done', 'default/web-3'])"
	check "kubernetes: every request passed the mock's checks (method, path, type, body, token)" \
		python3 -c "import json,sys; e=[l for l in map(json.loads, open(sys.argv[1])) if l['error']]; e and print(*e, sep='\n'); sys.exit(bool(e))" "$T/k8s.log"
	check "kubernetes: one 429 for web-1, then evicted on retry" \
		python3 -c "
import json,sys
L=[l for l in map(json.loads, open(sys.argv[1])) if l['path'].endswith('/pods/web-1/eviction')]
sys.exit(not ([l['status'] for l in L] == [429, 201]))" "$T/k8s.log"
	check "kubernetes: cordon, list, evictions, uncordon in that order" \
		python3 -c "
import json,sys
L=[(l['method'], l['path'].split('?')[0]) for l in map(json.loads, open(sys.argv[1])) if l['method'] != 'GET' or 'pods' in l['path']]
want=[('PATCH','/api/v1/nodes/$KNODE'), ('GET','/api/v1/pods')]
sys.exit(not (L[:2] == want and L[-1] == ('PATCH','/api/v1/nodes/$KNODE') and len([x for x in L if x[1].endswith('/eviction')]) == 3))" "$T/k8s.log"
	check "kubernetes: report says reverted, verified both ways" fault_is "$T/rk" 0 "(f['state'], f['verified'], f['verified_revert']) == ('reverted', True, True)"

	# controller SIGKILLed while cordoned; gauntlet revert uncordons from the store
	scenario "$T/k8s2.json" 60s "{ \"id\": \"dk2\", \"at\": \"1s\", \"for\": \"50s\", \"kind\": \"drain_worker\",
	  \"method\": \"kubernetes\", \"target\": \"me\",
	  \"params\": { \"api\": \"$KAPI\", \"node\": \"$KNODE\", \"token_env\": \"GL_TEST_K8S_TOKEN\", \"evict\": false } }"
	bg run "$T/k8s2.json" --out "$T/rk2"
	check "kubernetes/crash: cordoned" until_ok 10 kstate "r['unschedulable']"
	until_ok 10 sql_is "$T/rk2/run.db" "select state from faults" injected
	kill -9 "$BG_PID"; wait "$BG_PID" 2>/dev/null
	check "kubernetes/crash: still cordoned after the controller died" kstate "r['unschedulable']"
	"$GAUNTLET" revert "$T/rk2" >"$T/rk2.log" 2>&1; rc=$?
	check "kubernetes/crash: gauntlet revert exits 0" [ $rc -eq 0 ]
	check "kubernetes/crash: uncordoned" kstate "not r['unschedulable']"
	check "kubernetes/crash: journal says reverted" [ "$(sql "$T/rk2/run.db" "select state from faults")" = reverted ]
fi

# --- 4. method slurm via slurmrestd against a checking mock ---------------------------------
# slurmrestd needs slurmdbd and a JWT key setup that the private cluster in
# part 5 does not have, so its node API is played by this server, which
# checks method, path, content type, body and bearer token of each request.
RAN=$((RAN + 1))
cat > "$T/restd_mock.py" <<'PY'
import json, os, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
PORT_FILE, LOG, STATE, TOKEN, NODE = sys.argv[1:6]
node = {"drained": False, "reason": None}
def save():
    with open(STATE + ".tmp", "w") as f: json.dump(node, f)
    os.replace(STATE + ".tmp", STATE)
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def reply(self, code, obj, error, body):
        data = json.dumps(obj).encode()
        self.send_response(code); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data))); self.end_headers(); self.wfile.write(data)
        with open(LOG, "a") as f:
            f.write(json.dumps({"method": self.command, "path": self.path, "body": body, "status": code, "error": error}) + "\n")
        save()
    def fail(self, code, msg, body, error):
        self.reply(code, {"errors": [{"error": msg, "description": "Failure to update node " + NODE,
                                      "error_number": 2016, "source": "slurm_update_node"}], "warnings": []}, error, body)
    def any(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n).decode() if n else None
        if self.path == "/_test/resume":   # an operator resumes the node by hand
            node.update(drained=False, reason=None); return self.reply(200, {}, None, raw)
        if self.headers.get("Authorization") != "Bearer " + TOKEN or self.headers.get("X-SLURM-USER-TOKEN"):
            return self.reply(401, {"errors": [{"error": "Authentication failure"}]}, "bad auth headers", raw)
        if self.path != "/slurm/v0.0.40/node/" + NODE:
            return self.reply(404, {"errors": [{"error": "Unable to find path"}]}, "unexpected path " + self.path, raw)
        if self.command == "GET" and raw is None:
            st = ["IDLE", "DRAIN"] if node["drained"] else ["IDLE"]
            return self.reply(200, {"nodes": [{"name": NODE, "state": st, "reason": node["reason"] or ""}],
                                    "errors": [], "warnings": []}, None, raw)
        if self.command != "POST" or (self.headers.get("Content-Type") or "").split(";")[0] != "application/json":
            return self.reply(415, {"errors": [{"error": "bad request"}]}, "not a JSON POST", raw)
        try: body = json.loads(raw or "")
        except ValueError: return self.reply(400, {"errors": [{"error": "bad json"}]}, "body is not JSON", raw)
        if body == {"state": ["RESUME"]}:
            if not node["drained"]: return self.fail(500, "Invalid node state specified", raw, None)
            node.update(drained=False, reason=None); return self.reply(200, {"errors": [], "warnings": []}, None, raw)
        if set(body) == {"state", "reason"} and body["state"] == ["DRAIN"] and isinstance(body["reason"], str) and body["reason"]:
            node.update(drained=True, reason=body["reason"]); return self.reply(200, {"errors": [], "warnings": []}, None, raw)
        return self.reply(400, {"errors": [{"error": "unexpected update"}]}, "unexpected body " + raw, raw)
    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = any
srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
save()
with open(PORT_FILE + ".tmp", "w") as f: f.write(str(srv.server_address[1]))
os.replace(PORT_FILE + ".tmp", PORT_FILE)
srv.serve_forever()
PY
export GL_TEST_SLURM_JWT="jwt-$$-$RANDOM"
python3 "$T/restd_mock.py" "$T/restd.port" "$T/restd.log" "$T/restd.state" "$GL_TEST_SLURM_JWT" gpu-09 2>"$T/restd.err" &
RESTD_PID=$!
if ! wait_for "$T/restd.port" 10; then
	bad "slurmrestd: the mock did not start: $(head -c 300 "$T/restd.err")"
else
	RURL="http://127.0.0.1:$(cat "$T/restd.port")"
	rstate() { json "$T/restd.state" "$1 or sys.exit(1)" >/dev/null; }
	rfault() { # ID FOR
		echo "{ \"id\": \"$1\", \"at\": \"1s\", \"for\": \"$2\", \"kind\": \"drain_worker\", \"method\": \"slurm\", \"target\": \"ctl\",
		  \"params\": { \"via\": \"slurmrestd\", \"url\": \"$RURL\", \"token_env\": \"GL_TEST_SLURM_JWT\" } }"
	}
	RHOSTS='{ "ctl": { "local": true, "slurm_node": "gpu-09" } }'
	scenario "$T/restd.json" 5s "$(rfault dr 2s)" "$RHOSTS"
	"$GAUNTLET" run "$T/restd.json" --dry-run >"$T/restd-dry.log" 2>&1
	check "slurmrestd: dry run prints the POST" grep -qF "POST $RURL/slurm/v0.0.40/node/gpu-09 (application/json) {\"state\":[\"DRAIN\"],\"reason\":\"gauntlet fault dr\"}" "$T/restd-dry.log"
	bg run "$T/restd.json" --out "$T/rr"
	check "slurmrestd: drained during the fault, with the default reason" until_ok 10 rstate "r['drained'] and r['reason'] == 'gauntlet fault dr'"
	wait "$BG_PID"; rc=$?
	check "slurmrestd: run exits 0" [ $rc -eq 0 ]
	check "slurmrestd: resumed after" rstate "not r['drained']"
	check "slurmrestd: report says reverted, verified both ways" fault_is "$T/rr" 0 "(f['state'], f['verified'], f['verified_revert']) == ('reverted', True, True)"
	scenario "$T/restd2.json" 60s "$(rfault dr2 50s)" "$RHOSTS"
	bg run "$T/restd2.json" --out "$T/rr2"
	check "slurmrestd/crash: drained" until_ok 10 rstate "r['drained']"
	until_ok 10 sql_is "$T/rr2/run.db" "select state from faults" injected
	kill -9 "$BG_PID"; wait "$BG_PID" 2>/dev/null
	python3 -c "import urllib.request,sys; urllib.request.urlopen(urllib.request.Request(sys.argv[1] + '/_test/resume', data=b'', method='POST'))" "$RURL"
	"$GAUNTLET" revert "$T/rr2" >"$T/rr2.log" 2>&1; rc=$?
	check "slurmrestd/resumed by hand: gauntlet revert exits 0 ('Invalid node state specified' is done)" [ $rc -eq 0 ]
	check "slurmrestd/resumed by hand: journal says reverted" [ "$(sql "$T/rr2/run.db" "select state from faults")" = reverted ]
	check "slurmrestd: the mock saw the Invalid node state answer" grep -q '"status": 500' "$T/restd.log"
	check "slurmrestd: every request passed the mock's checks (path, type, body, bearer JWT)" \
		python3 -c "import json,sys; e=[l for l in map(json.loads, open(sys.argv[1])) if l['error']]; e and print(*e, sep='\n'); sys.exit(bool(e))" "$T/restd.log"
fi

# --- 5. method slurm against a private Slurm cluster ------------------------------------------
slurm_part() {
	local H P1 P2 n
	if [ "$(id -u)" -ne 0 ]; then part_skip 5 "slurm: needs root (slurmctld and slurmd run as SlurmUser root)"; return; fi
	if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null ||
	   ! command -v scontrol >/dev/null; then
		command -v apt-get >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y slurm-wlm munge >"$T/apt.log" 2>&1
	fi
	for p in slurmctld slurmd munged munge scontrol; do
		command -v $p >/dev/null || { part_skip 5 "slurm: $p is not installed (apt-get install slurm-wlm munge failed or is not possible)"; return; }
	done
	H=$(hostname -s)
	if ! [[ "$H" =~ ^[A-Za-z0-9][A-Za-z0-9_.-]*$ ]]; then part_skip 5 "slurm: hostname '$H' is not a usable node name"; return; fi
	mkdir -p "$T/slurm/munge" "$T/slurm/state" "$T/slurm/spool"
	chmod 700 "$T/slurm/munge"
	dd if=/dev/urandom bs=1 count=1024 of="$T/slurm/munge/key" 2>/dev/null
	chmod 400 "$T/slurm/munge/key"
	# a private munged: own key, socket, pid and seed files; -f because it runs as root
	munged -F -f --key-file="$T/slurm/munge/key" --socket="$T/slurm/munge/sock" --pid-file="$T/slurm/munge/pid" \
		--seed-file="$T/slurm/munge/seed" --log-file="$T/slurm/munge/log" >"$T/slurm/munged.out" 2>&1 &
	MUNGED_PID=$!
	if ! until_ok 10 bash -c "munge -S '$T/slurm/munge/sock' -n | unmunge -S '$T/slurm/munge/sock' >/dev/null"; then
		part_skip 5 "slurm: munged did not start: $(tail -n 2 "$T/slurm/munged.out" | tr '\n' ' ')"; return
	fi
	P1=$(free_port); P2=$(free_port)
	[ "$P1" != "$P2" ] || P2=$((P1 + 1))
	cat > "$T/slurm/slurm.conf" <<EOF
ClusterName=gltest
SlurmctldHost=$H(127.0.0.1)
SlurmctldPort=$P1
SlurmdPort=$P2
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/slurm/munge/sock
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$T/slurm/state
SlurmdSpoolDir=$T/slurm/spool
SlurmctldPidFile=$T/slurm/slurmctld.pid
SlurmdPidFile=$T/slurm/slurmd.pid
SlurmctldLogFile=$T/slurm/slurmctld.log
SlurmdLogFile=$T/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/linear
NodeName=$H NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
	# the local transport passes the controller's environment on to scontrol
	export SLURM_CONF="$T/slurm/slurm.conf"
	slurmctld -D -f "$SLURM_CONF" >"$T/slurm/slurmctld.out" 2>&1 &
	CTLD_PID=$!
	slurmd -D -f "$SLURM_CONF" -N "$H" >"$T/slurm/slurmd.out" 2>&1 &
	SLURMD_PID=$!
	node_state() { scontrol show node "$H" 2>/dev/null | grep -o 'State=[^ ]*' | head -n 1; }
	idle_clean() { local s; s=$(node_state); [[ "$s" == State=IDLE* && "$s" != *DRAIN* && "$s" != *NOT_RESPONDING* ]]; }
	drained() { [[ "$(node_state)" == *DRAIN* ]]; }
	if ! until_ok 20 idle_clean; then
		part_skip 5 "slurm: the node did not come up idle ($(node_state)): $(tail -n 2 "$T/slurm/slurmctld.log" "$T/slurm/slurmd.log" 2>/dev/null | tr '\n' ' ')"
		return
	fi
	RAN=$((RAN + 1))
	echo "slurm: private cluster up, node $H $(node_state)"

	scenario "$T/slurm.json" 6s "{ \"id\": \"ds\", \"at\": \"1s\", \"for\": \"3s\", \"kind\": \"drain_worker\",
	  \"method\": \"slurm\", \"target\": \"ctl\", \"params\": { \"reason\": \"gauntlet test $$\" } }" \
		"{ \"ctl\": { \"local\": true, \"slurm_node\": \"$H\" } }"
	bg run "$T/slurm.json" --out "$T/rs"
	check "slurm: DRAIN during the fault" until_ok 10 drained
	check "slurm: the reason is set" bash -c "scontrol show node '$H' | grep -q 'Reason=gauntlet test $$'"
	wait "$BG_PID"; rc=$?
	check "slurm: run exits 0" [ $rc -eq 0 ]
	check "slurm: idle without DRAIN after the run" until_ok 10 idle_clean
	check "slurm: report says reverted, verified both ways" fault_is "$T/rs" 0 "(f['state'], f['verified'], f['verified_revert']) == ('reverted', True, True)"

	# controller SIGKILLed while drained; gauntlet revert resumes the node
	scenario "$T/slurm2.json" 60s "{ \"id\": \"ds2\", \"at\": \"1s\", \"for\": \"50s\", \"kind\": \"drain_worker\",
	  \"method\": \"slurm\", \"target\": \"ctl\" }" "{ \"ctl\": { \"local\": true, \"slurm_node\": \"$H\" } }"
	bg run "$T/slurm2.json" --out "$T/rs2"
	check "slurm/crash: drained" until_ok 10 drained
	until_ok 10 sql_is "$T/rs2/run.db" "select state from faults" injected
	kill -9 "$BG_PID"; wait "$BG_PID" 2>/dev/null
	check "slurm/crash: still drained after the controller died" drained
	check "slurm/crash: default reason names the fault" bash -c "scontrol show node '$H' | grep -q 'Reason=gauntlet fault ds2'"
	"$GAUNTLET" revert "$T/rs2" >"$T/rs2.log" 2>&1; rc=$?
	check "slurm/crash: gauntlet revert exits 0" [ $rc -eq 0 ]
	check "slurm/crash: resumed (idle, no DRAIN)" until_ok 10 idle_clean
	check "slurm/crash: journal says reverted" [ "$(sql "$T/rs2/run.db" "select state from faults")" = reverted ]
	"$GAUNTLET" revert "$T/rs2" >"$T/rs2b.log" 2>&1; rc=$?
	check "slurm: revert again (node not drained) exits 0" [ $rc -eq 0 ]
	# an operator resumed the node by hand before `gauntlet revert` ran: the
	# revert's RESUME gets "Invalid node state specified", which counts as done
	scenario "$T/slurm4.json" 60s "{ \"id\": \"ds4\", \"at\": \"1s\", \"for\": \"50s\", \"kind\": \"drain_worker\",
	  \"method\": \"slurm\", \"target\": \"ctl\" }" "{ \"ctl\": { \"local\": true, \"slurm_node\": \"$H\" } }"
	bg run "$T/slurm4.json" --out "$T/rs4"
	check "slurm/resumed by hand: drained" until_ok 10 drained
	until_ok 10 sql_is "$T/rs4/run.db" "select state from faults" injected
	kill -9 "$BG_PID"; wait "$BG_PID" 2>/dev/null
	scontrol update NodeName="$H" State=RESUME
	until_ok 10 idle_clean
	scontrol update NodeName="$H" State=RESUME >"$T/resume2.out" 2>&1
	grep -q "Invalid node state specified" "$T/resume2.out" || echo "note: RESUME of an idle node said: $(cat "$T/resume2.out")"
	"$GAUNTLET" revert "$T/rs4" >"$T/rs4.log" 2>&1; rc=$?
	check "slurm/resumed by hand: gauntlet revert exits 0 (RESUME of an undrained node is done)" [ $rc -eq 0 ]
	check "slurm/resumed by hand: journal says reverted" [ "$(sql "$T/rs4/run.db" "select state from faults")" = reverted ]
	check "slurm/resumed by hand: the node is idle" until_ok 10 idle_clean
	# a node name Slurm does not know stops the run at preflight
	scenario "$T/slurm5.json" 5s "{ \"id\": \"ds5\", \"at\": \"1s\", \"for\": \"2s\", \"kind\": \"drain_worker\",
	  \"method\": \"slurm\", \"target\": \"ctl\", \"params\": { \"node\": \"no-such-node\" } }" '{ "ctl": { "local": true } }'
	"$GAUNTLET" run "$T/slurm5.json" --out "$T/rs5" >"$T/rs5.log" 2>&1; rc=$?
	check "slurm: an unknown node fails preflight (exit $rc, nothing injected)" \
		bash -c "[ $rc -ne 0 ] && grep -q 'scontrol show node no-such-node: FAIL' '$T/rs5.log'"
	scenario "$T/slurm3.json" 5s "{ \"id\": \"ds3\", \"at\": \"1s\", \"for\": \"2s\", \"kind\": \"drain_worker\",
	  \"method\": \"slurm\", \"target\": \"ctl\", \"params\": { \"node\": \"$H\" } }" '{ "ctl": { "local": true } }'
	"$GAUNTLET" run "$T/slurm3.json" --out "$T/rs3" >"$T/rs3.log" 2>&1; rc=$?
	check "slurm: params.node overrides the host name; run exits 0" [ $rc -eq 0 ]
	check "slurm: the node ends idle" until_ok 10 idle_clean

	# controller SIGKILLed while drained and never resumed: the dead-man's
	# switch (lease renewed every 1 s, grace 3 s), started over ssh on the
	# host scontrol runs on (a private sshd on loopback, whose sessions see
	# this cluster's SLURM_CONF), resumes the node itself
	if ! start_sshd "SetEnv SLURM_CONF=$SLURM_CONF"; then
		part_skip 5 "slurm over ssh: $SSHD_WHY"
		return
	fi
	cat > "$T/slurm-dm.json" <<JSON
{ "name": "drain-dm", "duration": "60s", "window": "1s", "hold": 1,
  "hosts": { "ctl": { "ssh": "root@127.0.0.1:$SSHD_PORT", "key": "$T/client_key", "known_hosts": "$T/known_hosts",
                      "slurm_node": "$H" } },
  "workloads": { "null": { "rate": 50 } },
  "faults": [ { "id": "ds-dm", "at": "1s", "for": "50s", "kind": "drain_worker", "method": "slurm", "target": "ctl" } ],
  "targets": { "steady": { "null.ticks": ">= 10" }, "degraded": { "null.ticks": ">= 10" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } },
  "safety": { "deadman_renew": "1s", "deadman_grace": "3s" } }
JSON
	bg run "$T/slurm-dm.json" --out "$T/rs-dm"
	check "slurm/never resumed: drained" until_ok 10 drained
	until_ok 10 sql_is "$T/rs-dm/run.db" "select state from faults" injected
	dm_never_resumed "slurm over ssh/never resumed" "$T/rs-dm" 3 1 idle_clean
	check "slurm over ssh/never resumed: the watcher ran on the ssh host" \
		[ "$(sql "$T/rs-dm/run.db" "select json_extract(plan, '$.transport')||' '||json_extract(plan, '$.deadman.host') from faults")" = "ssh ctl" ]

	# Two faults live at once (a link down in a namespace, the node drained),
	# the controller SIGKILLed: `gauntlet revert` brings both back.
	local NS=gl-dr-$$ VA=gldra$$ VB=gldrb$$
	if ip netns add "$NS" 2>/dev/null; then
		NETNS_MADE=$NS
		ip link add "$VA" type veth peer name "$VB" netns "$NS" &&
			ip -n "$NS" link set "$VB" up && ip link set "$VA" up
		cat > "$T/both.json" <<JSON
{ "name": "both", "duration": "60s", "window": "1s", "hold": 1,
  "hosts": { "ctl": { "local": true, "slurm_node": "$H" }, "w": { "local": true, "netns": "$NS" } },
  "workloads": { "null": { "rate": 50 } },
  "faults": [ { "id": "drain", "at": "1s", "for": "50s", "kind": "drain_worker", "method": "slurm", "target": "ctl" },
              { "id": "link", "at": "2s", "for": "50s", "kind": "link_flap", "target": "w",
                "params": { "interface": "$VB", "down": "50s", "up": "1s", "count": 1 } } ],
  "targets": { "steady": { "null.ticks": ">= 10" }, "degraded": { "null.ticks": ">= 10" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } },
  "safety": { "max_concurrent_faults": 2 } }
JSON
		# (the link must exist: a vanished veth is not "down")
		link_down() { local l; l=$(ip -n "$NS" -o link show dev "$VB") && [ -n "$l" ] && ! grep -q '[<,]UP[,>]' <<< "$l"; }
		bg run "$T/both.json" --out "$T/both"
		check "both: node drained" until_ok 10 drained
		check "both: link down" until_ok 10 link_down
		until_ok 10 sql_is "$T/both/run.db" "select group_concat(state) from faults" "injected,injected"
		kill -9 "$BG_PID"; wait "$BG_PID" 2>/dev/null
		check "both: after SIGKILL the node is still drained and the link still down" bash -c "$(declare -f node_state drained link_down); H='$H'; NS='$NS'; VB='$VB'; drained && link_down"
		"$GAUNTLET" revert "$T/both" >"$T/both-revert.log" 2>&1; rc=$?
		check "both: gauntlet revert exits 0" [ $rc -eq 0 ]
		check "both: node resumed" until_ok 10 idle_clean
		check "both: link up" until_ok 10 bash -c "ip -n '$NS' -o link show dev '$VB' | grep -q '[<,]UP[,>]'"
		check "both: journal says both reverted" [ "$(sql "$T/both/run.db" "select group_concat(state) from faults")" = "reverted,reverted" ]
		ip netns del "$NS" 2>/dev/null
		NETNS_MADE=
	else
		part_skip 5b "slurm+link: cannot create a network namespace"
	fi
}
slurm_part

if [ "$RAN" -eq 0 ]; then
	skip "no part could run ($SKIPS parts skipped, reasons above)"
fi
finish
