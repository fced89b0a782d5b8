#!/usr/bin/env bash
# test_gpu_xid.sh - the gpu_xid fault kind end to end against stand-ins
# that keep state and check exact arguments (real DCGM needs a GPU:
# tests/gpu/run.sh does that part):
#   tests/gpuxid/bin/dcgmi     `dcgmi test --inject ...` records injections,
#                              `dcgmi dmon -e F -c 1 -i G` reads them back,
#                              a value only while its injection is younger
#                              than GL_DCGMI_EXPIRE (3 s): the expiry that
#                              makes gpu_xid re-inject; anything else is
#                              refused and logged;
#   tests/gpuxid/exporter.py   a DCGM exporter serving that state, scraped
#                              by gauntlet's own telemetry workload;
#   tests/gpuxid/automation.py "cluster automation": cordons the node on
#                              tests/scripts/k8s_mock.py (or drains it for
#                              the scontrol stand-in) DELAY s after it sees
#                              the XID: the ground truth for detected_s.
#  1. validate refuses bad params, naming the path; the dry run shows the
#     dcgmi commands, the loop and the detection;
#  2. preflight without dcgmi on PATH stops the run (exit 4) naming it;
#  3. kubernetes detection (automation on, 1.5 s): the value is renewed
#     through the hold, the telemetry workload sees the XID in the fault's
#     windows (kept per GPU, and naming no GPU: the fault explains it),
#     revert injects 0, detected_s is the automation's delay;
#     at the same time slurm detection with the automation off: "not
#     detected" (cluster_reacted 0, no detected_s);
#  4. controller SIGKILLed during the fault: the loop keeps injecting until
#     "for" has passed, then injects 0 and ends (dead-man's switch); and
#     `gauntlet revert DIR` after a SIGKILL stops it at once.
source "$(dirname "$0")/lib.sh"

GX=$GL_SOURCE_DIR/tests/gpuxid
export PATH="$GX/bin:$PATH" GL_DCGMI_EXPIRE=3 GL_DCGMI_GPUS=0,1
TOKEN=gpu-xid-test-token-5d1e
export GL_TEST_K8S_TOKEN=$TOKEN

# scenario FILE DURATION FOR PARAMS-JSON [WORKLOADS-JSON [TARGETS-EXTRA]]
scenario() {
	local wl=${5:-'"null": { "rate": 50 }'}
	cat > "$1" <<JSON
{ "name": "gpu-xid", "duration": "$2", "window": "1s", "hold": 1,
  "hosts": { "gpu-a": { "local": true } },
  "workloads": { $wl },
  "faults": [ { "id": "xid", "at": "1s", "for": "$3", "kind": "gpu_xid", "target": "gpu-a", "params": $4 } ],
  "targets": { "steady": { "null.ticks": ">= 10" ${6:-} }, "degraded": { "null.ticks": ">= 10" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } } }
JSON
}
# inj STATE-LOG 'python expression over L (the injections: t, gpu, field, value)'
inj() { python3 -c "
import json, sys
L=[json.loads(l) for l in open(sys.argv[1])]
v=($2)
if v is not True: print(v)
sys.exit(0 if v else 1)" "$1"; }
no_errors() { [ ! -s "$1.errors" ] || { cat "$1.errors"; return 1; }; }

# --- 1. validate and dry run ---------------------------------------------------------
bad_params() { # NAME PARAMS-JSON EXPECTED-TEXT [FOR]
	scenario "$T/bad.json" 6s "${4:-3s}" "$2"
	"$GAUNTLET" validate "$T/bad.json" >"$T/bad.log" 2>&1
	local rc=$?
	check "validate: $1 (exit 2, names it)" bash -c "[ $rc -eq 2 ] && grep -qF -- '$3' '$T/bad.log'" ||
		cat "$T/bad.log"
}
bad_params "empty gpus" '{ "gpus": [] }' 'faults[0].params.gpus: expected a list of 1 to 16 different DCGM GPU ids'
bad_params "negative gpu" '{ "gpus": [-1] }' 'faults[0].params.gpus: expected a list'
bad_params "duplicate gpu" '{ "gpus": [1, 1] }' 'faults[0].params.gpus: expected a list'
bad_params "xid 0" '{ "xid": 0 }' 'faults[0].params.xid: expected the XID to inject'
bad_params "field as a string" '{ "field": "230" }' 'faults[0].params.field: expected a DCGM field id'
bad_params "every too short" '{ "every": "5ms" }' 'faults[0].params.every: expected a duration from 100ms to 60s'
bad_params "unknown key" '{ "gpu": 0 }' "faults[0].params.gpu: unknown key"
bad_params "relative state_dir" '{ "state_dir": "run/x" }' 'faults[0].params.state_dir: expected an absolute path'
bad_params "two detections" '{ "detect": { "slurm": {}, "kubernetes": { "api": "http://127.0.0.1:1" } } }' \
	'faults[0].params.detect: expected exactly one of "kubernetes" or "slurm"'
bad_params "kubernetes without api" '{ "detect": { "kubernetes": { "node": "gpu-a" } } }' \
	'faults[0].params.detect.kubernetes.api: detect.kubernetes needs "api"'
bad_params "bad slurm node" '{ "detect": { "slurm": { "node": "-x" } } }' 'faults[0].params.detect.slurm.node: expected a Slurm node name'
bad_params "no for" '{}' 'faults[0].for: kind gpu_xid needs "for"' 0s

scenario "$T/dry.json" 6s 3s '{ "gpus": [0, 1], "xid": 48, "detect": { "slurm": { "node": "gpu-a" } } }'
"$GAUNTLET" run "$T/dry.json" --dry-run >"$T/dry.log" 2>&1
check "dry run: exit 0" [ $? -eq 0 ]
check "dry run: the exact dcgmi injection per GPU, the read-back, the clearing 0" bash -c "
grep -qF 'inject: dcgmi test --inject --gpuid 1 -f 230 -v 48' '$T/dry.log' &&
grep -qF 'verify: dcgmi dmon -e 230 -c 1 -i 0' '$T/dry.log' &&
grep -qF 'revert: dcgmi test --inject --gpuid 0 -f 230 -v 0' '$T/dry.log' &&
grep -qF 'detect: scontrol show node gpu-a every second' '$T/dry.log' &&
grep -qF 'setsid sh -c' '$T/dry.log'"

# --- 2. preflight names a missing dcgmi ------------------------------------------------
scenario "$T/pf.json" 4s 2s '{ "state_dir": "'"$T"'/pf" }'
env PATH="$(dirname "$(command -v python3)"):/usr/bin:/bin" GL_DCGMI_STATE="$T/pf.log" \
	"$GAUNTLET" run "$T/pf.json" --out "$T/rpf" >"$T/rpf.log" 2>&1
rc=$?
check "preflight: no dcgmi on the host stops the run (exit 4)" [ $rc -eq 4 ]
check "preflight: the message names dcgmi" grep -q "tool 'dcgmi' present: FAIL\|tool 'dcgmi' present.*not found" "$T/rpf.log" ||
	tail -5 "$T/rpf.log"
check "preflight: nothing was injected" [ ! -e "$T/pf.log" ]

# --- 3. detection: kubernetes (automation on) and slurm (automation off) ----------------
python3 "$GL_SOURCE_DIR/tests/scripts/k8s_mock.py" "$T/k8s.port" "$T/k8s.log" "$T/k8s.state" "$TOKEN" gpu-a \
	>"$T/k8s.out" 2>&1 &
PIDS+=("$!")
GL_DCGMI_STATE="$T/k.log" python3 "$GX/exporter.py" "$T/exp.port" >"$T/exp.out" 2>&1 &
PIDS+=("$!")
wait_for "$T/k8s.port" 10 && wait_for "$T/exp.port" 10 || skip "python3 cannot serve HTTP on 127.0.0.1"
KAPI="http://127.0.0.1:$(cat "$T/k8s.port")"
EXP="http://127.0.0.1:$(cat "$T/exp.port")/metrics"
DELAY=1.5
GL_DCGMI_STATE="$T/k.log" python3 "$GX/automation.py" "$T/auto.k" "$DELAY" kubernetes "$KAPI" gpu-a "$TOKEN" \
	>"$T/auto.out" 2>&1 &
PIDS+=("$!")

# The telemetry probe needs an XID target; ">= 0" because the XID shows as
# soon as inject starts, in the window before the one that holds the end
# of inject and verify (where degraded judging begins, docs/scenario.md):
# the check below finds the windows that saw it in the store instead.
scenario "$T/k.json" 9s 4s '{ "gpus": [0, 1], "xid": 79, "state_dir": "'"$T"'/kst",
  "detect": { "kubernetes": { "api": "'"$KAPI"'", "node": "gpu-a", "token_env": "GL_TEST_K8S_TOKEN" } } }' \
	'"null": { "rate": 50 }, "telemetry": { "dcgm": ["'"$EXP"'"], "every": "500ms", "timeout": "400ms" }' \
	', "dcgm.xid_errors.delta": ">= 0"'
scenario "$T/s.json" 9s 4s '{ "gpus": [0], "xid": 48, "state_dir": "'"$T"'/sst", "detect": { "slurm": { "node": "gpu-a" } } }'
GL_DCGMI_STATE="$T/k.log" "$GAUNTLET" run "$T/k.json" --out "$T/rk" >"$T/rk.log" 2>&1 &
KP=$!; PIDS+=("$KP")
GL_DCGMI_STATE="$T/s.log" GL_SCONTROL_NODE=gpu-a GL_SCONTROL_DRAIN="$T/s.drained" \
	"$GAUNTLET" run "$T/s.json" --out "$T/rs" >"$T/rs.log" 2>&1 &
SP=$!; PIDS+=("$SP")
wait "$KP"; krc=$?
wait "$SP"; src=$?
KF=$(json "$T/rk/report.json" "json.dumps(r['faults'][0]['measured'])" 2>/dev/null)
SF=$(json "$T/rs/report.json" "json.dumps(r['faults'][0]['measured'])" 2>/dev/null)
echo "kubernetes run: exit $krc measured $KF; ground truth: $(cat "$T/auto.k" 2>/dev/null)"
echo "slurm run: exit $src measured $SF"
check "kubernetes: the run passes (exit 0)" [ $krc -eq 0 ] || tail -20 "$T/rk.log"
check "kubernetes: the fault verified both ways" json "$T/rk/report.json" \
	"(lambda f: (f['state'], f['verified'], f['verified_revert']) == ('reverted', True, True))(r['faults'][0])"
check "kubernetes: every dcgmi call had the exact arguments" no_errors "$T/k.log"
check "kubernetes: XID 79 injected on GPUs 0 and 1, renewed through the 4 s hold (>= 3 each, gaps < 3 s: never expired)" inj "$T/k.log" "
all(len([r for r in L if r['gpu']==g and r['value']==79]) >= 3 for g in (0, 1)) and
all(max(b['t']-a['t'] for a, b in zip(X, X[1:])) < 3 for X in [[r for r in L if r['gpu']==g and r['value']==79] for g in (0, 1)])"
check "kubernetes: revert leaves field 230 at 0 on both GPUs" inj "$T/k.log" "
all([r for r in L if r['gpu']==g][-1]['value'] == 0 and [r for r in L if r['gpu']==g][-1]['field'] == 230 for g in (0, 1))"
check "kubernetes: the loop is gone (no record left)" bash -c "[ -z \"\$(ls -A '$T/kst' 2>/dev/null)\" ]"
check "kubernetes: the automation cordoned the node (mock state)" json "$T/k8s.state" "r['unschedulable']"
check "kubernetes: every API request passed the mock's checks" python3 -c "
import json, sys
L=[json.loads(l) for l in open('$T/k8s.log')]
bad=[l for l in L if l['error'] or l['status'] >= 400]
sys.exit(1 if bad or not any(l['method']=='GET' and l['path']=='/api/v1/nodes/gpu-a' for l in L) else 0)"
check "kubernetes: cluster_reacted 1, detected_s not below the automation's delay ($DELAY s)" \
	json "$T/rk/report.json" "(lambda m: m.get('cluster_reacted') == 1 and $DELAY - 0.2 <= m.get('detected_s', -1))(r['faults'][0]['measured'])"
# polls are 1 s apart, and the first comes once the loop started
timing "kubernetes: detected_s is the automation's delay within one poll (+ the loop's start)" \
	json "$T/rk/report.json" "r['faults'][0]['measured'].get('detected_s', 99) <= $DELAY + 1.6"
check "kubernetes: the telemetry workload saw the XID (delta 79) in a window inside the fault" python3 -c "
import sqlite3, sys
c=sqlite3.connect('$T/rk/run.db')
inj, rev = c.execute('select at_ns, reverted_elapsed_ns from faults').fetchone()
W=c.execute(\"select w.start_ns, w.end_ns, m.counter from window_metrics m join windows w on w.idx = m.idx where m.name = 'dcgm.xid_errors.delta' and m.counter > 0\").fetchall()
print('windows with an XID:', W, 'fault:', inj, rev)
sys.exit(0 if W and sum(x[2] for x in W) >= 79 and all(s >= inj - 0.5e9 and e <= rev + 1.5e9 for s, e, _ in W) else 1)"
check "kubernetes: the injected XID is kept per GPU (code 79) and, in the windows the fault explains, names no GPU" \
	json "$T/rk/report.json" "r['suspects'] == [] and any(n['kind'] == 'gpu' and n['figure'] == 'xid' and n['max'] == 79 for n in r['nodes']['list'])"

check "slurm: the run passes (exit 0)" [ $src -eq 0 ] || tail -20 "$T/rs.log"
check "slurm: every dcgmi and scontrol call had the exact arguments" bash -c "$(declare -f no_errors); no_errors '$T/s.log' && no_errors '$T/s.drained'"
check "slurm: XID 48 injected on GPU 0 only" inj "$T/s.log" "{r['gpu'] for r in L} == {0} and any(r['value'] == 48 for r in L)"
check "slurm: automation off: not detected (cluster_reacted 0, no detected_s, polls made)" \
	json "$T/rs/report.json" "(lambda m: m.get('cluster_reacted') == 0 and 'detected_s' not in m and m.get('detect_polls', 0) >= 3)(r['faults'][0]['measured'])"

# --- 4. controller SIGKILLed: the dead-man's switch, and revert stops the loop at once ---
scenario "$T/c1.json" 30s 4s '{ "gpus": [0], "state_dir": "'"$T"'/c1st" }'
scenario "$T/c2.json" 30s 20s '{ "gpus": [1], "state_dir": "'"$T"'/c2st" }'
GL_DCGMI_STATE="$T/c1.log" "$GAUNTLET" run "$T/c1.json" --out "$T/rc1" >"$T/rc1.log" 2>&1 &
C1=$!; PIDS+=("$C1")
GL_DCGMI_STATE="$T/c2.log" "$GAUNTLET" run "$T/c2.json" --out "$T/rc2" >"$T/rc2.log" 2>&1 &
C2=$!; PIDS+=("$C2")
# both loops run (their records are written once inject started them)
has_record() { [ -n "$(ls -A "$1" 2>/dev/null)" ]; }
# loop_pid DIR: the loop's pid from its record (pid and start time), the
# leader of its process group (setsid): its injections run in that group
loop_pid() { local f p _w; for f in "$1"/gpu_xid-*.pids; do [ -s "$f" ] && read -r p _w < "$f" && echo "$p"; done; }
has_loop_pid() { [ -n "$(loop_pid "$1")" ]; }
# group_gone PID: no process left in the process group PID leads
group_gone() { ! kill -0 -- "-$1" 2>/dev/null; }
quiet() { "$@" >/dev/null; }
until_ok 30 has_loop_pid "$T/c1st"
until_ok 30 has_loop_pid "$T/c2st"
P1=$(loop_pid "$T/c1st"); P2=$(loop_pid "$T/c2st")
kill -9 "$C1" "$C2"; wait "$C1" 2>/dev/null; wait "$C2" 2>/dev/null
KILLED=$(date +%s.%N)
check "crash: the loop keeps injecting after the controller died" until_ok 30 quiet inj "$T/c1.log" \
	"len([r for r in L if r['value'] == 79 and r['t'] > $KILLED]) >= 1"
# c2: gauntlet revert stops it at once
GL_DCGMI_STATE="$T/c2.log" "$GAUNTLET" revert "$T/rc2" >"$T/rc2-revert.log" 2>&1
rc=$?
REVERTED=$(date +%s.%N)
check "crash/revert: gauntlet revert exits 0, journal says reverted" bash -c \
	"[ $rc -eq 0 ] && [ \"\$($(declare -f sql); sql '$T/rc2/run.db' 'select state from faults')\" = reverted ]" || cat "$T/rc2-revert.log"
check "crash/revert: no record left" bash -c "[ -z \"\$(ls -A '$T/c2st' 2>/dev/null)\" ]"
check "crash/revert: GPU 1 cleared to 0 at revert" inj "$T/c2.log" "L[-1]['value'] == 0 and L[-1]['gpu'] == 1"
loop_ends() { [ -n "$1" ] && until_ok 30 group_gone "$1"; }
check "crash/revert: the loop is gone, not just quiet: no process left in its group (${P2:-none})" loop_ends "$P2"
check "crash/revert: no injection after revert" inj "$T/c2.log" \
	"not [r for r in L if r['t'] > $REVERTED] and L[-1]['value'] == 0"
# c1: nobody reverts; the loop ends by itself once "for" (4 s) has passed
check "crash: the loop ends by itself after \"for\" (record gone)" until_ok 30 not has_record "$T/c1st"
check "crash: its last act is injecting 0, within for + 2 s of the first injection" inj "$T/c1.log" \
	"L[-1]['value'] == 0 and L[-1]['t'] - L[0]['t'] <= 4 + 2 and L[-1]['t'] - L[0]['t'] >= 3"
N1=$(wc -l < "$T/c1.log")
check "crash: then the loop and its injections end: no process left in its group (${P1:-none})" loop_ends "$P1"
check "crash: nothing injected after the loop ended" [ "$(wc -l < "$T/c1.log")" = "$N1" ]
check "crash: every dcgmi call had the exact arguments" bash -c "$(declare -f no_errors); no_errors '$T/c1.log' && no_errors '$T/c2.log'"
GL_DCGMI_STATE="$T/c1.log" "$GAUNTLET" revert "$T/rc1" >"$T/rc1-revert.log" 2>&1
check "crash: gauntlet revert after the switch fired is a no-op that succeeds" [ $? -eq 0 ]

finish
