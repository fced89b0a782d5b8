#!/usr/bin/env bash
# test_gpu_faults.sh - the gpu_throttle fault kind with the null workload,
# against a stand-in nvidia-smi on PATH (tests/gpufaults/bin) whose state
# files are the ground truth: one per GPU (power limit, its bounds, clock
# lock), every call logged, unknown arguments refused. (1) validate refuses
# bad params naming their path; the dry run shows the commands. (2) power:
# GPU 0 starts at a non-default 450 W (max 700 W), is capped to 300 W
# during the fault and comes back to 450 W, not 700; GPU 2, not named,
# untouched. (3) clocks on "all": locked during, reset (-rgc) after. (4)
# the controller SIGKILLed during a power cap: still capped, then `gauntlet
# revert DIR` restores 450 W (after one whose -pl did not take failed
# verify_revert); a second revert changes nothing. (5)
# preflight: nvidia-smi missing from PATH, watts above power.max_limit, a
# GPU that does not exist: exit 4 naming why, nothing changed.
# fabric_port, against stand-in ibportstate and ibstat (one port whose
# state file is the ground truth, every call logged, other LIDs, ports and
# CAs refused): (6) validate and dry run; (7) ib: Down during the fault,
# Active after; (8) the controller SIGKILLed, then a `gauntlet revert`
# that leaves the port Down (a stand-in port that stays down) fails, and
# the next one enables the port and ends the dead-man loop; (9) the controller SIGKILLed
# and nobody reverting: the dead-man loop enables the port by itself when
# "for" is up; (10) preflight without ibportstate; (11) roce on a dummy
# (or veth) interface in a network namespace the test makes (skipped
# without one).
source "$(dirname "$0")/lib.sh"

STANDIN="$GL_SOURCE_DIR/tests/gpufaults/bin"
export GL_FAKE_GPU_DIR="$T/gpus"
BASE_PATH=$PATH
export PATH="$STANDIN:$PATH"
SD="$T/state"   # the faults' state_dir

# gpu N PL [PMAX]: (re)write GPU N's state file
gpu() { mkdir -p "$GL_FAKE_GPU_DIR"; echo "pl=$2 pmin=200.00 pmax=${3:-700.00} smmax=1980 lgc=-" > "$GL_FAKE_GPU_DIR/gpu$1"; }
# field N KEY: a value from GPU N's state file
field() { ( . "$GL_FAKE_GPU_DIR/gpu$1"; eval "echo \$$2" ); }
is() { [ "$(field "$1" "$2")" = "$3" ]; }
fresh() { rm -rf "$GL_FAKE_GPU_DIR" "$SD"; gpu 0 450.00; gpu 1 700.00; gpu 2 600.00; }
# Write a scenario: FILE DURATION FAULTS-JSON
scenario() {
	cat > "$1" <<JSON
{ "name": "gpu-faults", "duration": "$2", "window": "1s", "hold": 1,
  "hosts": { "me": { "local": true } },
  "workloads": { "null": { "rate": 50 } },
  "faults": [ $3 ],
  "targets": { "steady": { "null.ticks": ">= 10" }, "degraded": { "null.ticks": ">= 10" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } } }
JSON
}
no_record() { [ -z "$(ls -A "$SD" 2>/dev/null)" ]; }

# --- 1. validate and dry run -------------------------------------------------------------
scenario "$T/bad.json" 20s '
  { "id": "g0", "at": "1s", "for": "5s", "kind": "gpu_throttle", "target": "me",
    "params": { "gpus": [0, 0], "watts": 0, "bogus": 1 } },
  { "id": "g1", "at": "1s", "kind": "gpu_throttle", "target": "me", "params": { "gpus": "some" } },
  { "id": "g2", "at": "1s", "for": "5s", "kind": "gpu_throttle", "method": "clocks", "target": "me",
    "params": { "gpus": [1], "sm_clock_mhz": [1500, 1000], "state_dir": "run/x", "watts": 300 } },
  { "id": "g3", "at": "1s", "for": "5s", "kind": "gpu_throttle", "method": "clocks", "target": "me",
    "params": { "gpus": [-1] } }'
"$GAUNTLET" validate "$T/bad.json" >/dev/null 2>"$T/bad.err"; rc=$?
check "validate: bad params exit 2" [ $rc -eq 2 ]
while IFS= read -r p; do
	check "validate names $p" grep -qF -- "$p" "$T/bad.err"
done <<'EOF2'
faults[0].params.gpus: a GPU index is listed twice
faults[0].params.watts: expected the power limit in watts
faults[0].params.bogus: unknown key 'bogus' for gpu_throttle method power
faults[1].params.gpus: expected "all" or a non-empty array of GPU indices
faults[1].params.watts: method power needs params.watts
faults[1]: kind gpu_throttle needs "for"
faults[2].params.sm_clock_mhz: expected [MIN, MAX] in MHz
faults[2].params.state_dir: expected an absolute directory path
faults[2].params.watts: unknown key 'watts' for gpu_throttle method clocks
faults[3].params.gpus: expected GPU indices
faults[3].params.sm_clock_mhz: method clocks needs params.sm_clock_mhz
EOF2
[ "$FAIL" -eq 0 ] || cat "$T/bad.err"

scenario "$T/dry.json" 20s "{ \"id\": \"gp\", \"at\": \"1s\", \"for\": \"5s\", \"kind\": \"gpu_throttle\", \"target\": \"me\",
  \"params\": { \"gpus\": [0, 1], \"watts\": 300, \"state_dir\": \"$SD\" } },
  { \"id\": \"gc\", \"at\": \"8s\", \"for\": \"5s\", \"kind\": \"gpu_throttle\", \"method\": \"clocks\", \"target\": \"me\",
  \"params\": { \"gpus\": \"all\", \"sm_clock_mhz\": [1000, 1500] } }"
"$GAUNTLET" run "$T/dry.json" --dry-run >"$T/dry.log" 2>&1
check "dry run: the power cap and the record" grep -qF "GPU(s) 0,1: 'GPU WATTS' lines > $SD/gpu_throttle-gp-" "$T/dry.log"
check "dry run: nvidia-smi -pl and the restore" bash -c "grep -qF 'nvidia-smi -i N -pl 300' '$T/dry.log' && grep -qF 'nvidia-smi -i N -pl <the recorded WATTS>' '$T/dry.log'"
check "dry run: the clock lock on all GPUs in /run/gauntlet, then -rgc" bash -c "grep -qF 'nvidia-smi -i N -lgc 1000,1500' '$T/dry.log' && grep -qF '> /run/gauntlet/gpu_throttle-gc-' '$T/dry.log' && grep -qF 'nvidia-smi -i N -rgc' '$T/dry.log'"
check "dry run: nvidia-smi never ran" [ ! -e "$GL_FAKE_GPU_DIR/calls.log" ]

# --- 2. power: capped, read back, restored to the values from before ---------------------
# (The short runs here last 7 s at time scale 1 with a fault held 2 s: an
# inject a loaded machine slows by a second still leaves a whole window
# under the fault for the degraded targets and a healthy one after it for
# the recovery figures. At 4 s and time scale 2, or held 1 s, they do not,
# and the run fails: degraded judged on no window, or recovery missing.)
fresh
scenario "$T/pw.json" 7s "{ \"id\": \"gp\", \"at\": \"1s\", \"for\": \"2s\", \"kind\": \"gpu_throttle\", \"target\": \"me\",
  \"params\": { \"gpus\": [0, 1], \"watts\": 300, \"state_dir\": \"$SD\" } }"
bg run "$T/pw.json" --out "$T/rp"
check "power: GPU 0 capped to 300 W during the fault" until_ok 10 is 0 pl 300.00
check "power: GPU 1 capped to 300 W" until_ok 5 is 1 pl 300.00
check "power: the record holds the limits from before (GPU 0 450, GPU 1 700)" \
	bash -c "[ \"\$(cat '$SD'/gpu_throttle-gp-*.pids)\" = \"\$(printf '0 450.00\n1 700.00')\" ]"
wait "$BG_PID"; rc=$?
check "power: run exits 0" [ $rc -eq 0 ]
check "power: GPU 0 back to its 450 W, not the 700 W default" is 0 pl 450.00
check "power: GPU 1 back to 700 W" is 1 pl 700.00
check "power: GPU 2 (not named) never touched" bash -c "is() { :; }; ! grep -q -- '-i 2 ' '$GL_FAKE_GPU_DIR/calls.log' && grep -q 'pl=600.00' '$GL_FAKE_GPU_DIR/gpu2'"
check "power: the exact restore commands ran (-pl 450.00, -pl 700.00)" \
	bash -c "grep -qxF -- '-i 0 -pl 450.00' '$GL_FAKE_GPU_DIR/calls.log' && grep -qxF -- '-i 1 -pl 700.00' '$GL_FAKE_GPU_DIR/calls.log'"
check "power: the record is gone after verify_revert" no_record
check "power: report says reverted, verified both ways" fault_is "$T/rp" 0 "(f['state'], f['verified'], f['verified_revert']) == ('reverted', True, True)"

# --- 3. clocks on all GPUs ----------------------------------------------------------------
fresh
scenario "$T/ck.json" 7s "{ \"id\": \"gc\", \"at\": \"1s\", \"for\": \"2s\", \"kind\": \"gpu_throttle\", \"method\": \"clocks\",
  \"target\": \"me\", \"params\": { \"gpus\": \"all\", \"sm_clock_mhz\": [1000, 1500], \"state_dir\": \"$SD\" } }"
bg run "$T/ck.json" --out "$T/rc"
check "clocks: GPU 0 locked to 1000,1500 during the fault" until_ok 10 is 0 lgc 1000,1500
check "clocks: GPU 2 locked too (\"all\")" until_ok 5 is 2 lgc 1000,1500
wait "$BG_PID"; rc=$?
check "clocks: run exits 0" [ $rc -eq 0 ]
check "clocks: every lock reset after" bash -c "! grep -q 'lgc=[0-9]' '$GL_FAKE_GPU_DIR'/gpu[0-9]"
check "clocks: reset with -rgc on each GPU" bash -c "[ \$(grep -cE -- '^-i [012] -rgc\$' '$GL_FAKE_GPU_DIR/calls.log') -eq 3 ]"
check "clocks: power limits never changed" bash -c "is() { :; }; ! grep -q -- '-pl' '$GL_FAKE_GPU_DIR/calls.log'"
check "clocks: report says reverted, verified both ways" fault_is "$T/rc" 0 "(f['state'], f['verified'], f['verified_revert']) == ('reverted', True, True)"

# --- 4. controller SIGKILLed during the cap; gauntlet revert restores ----------------------
fresh
scenario "$T/crash.json" 60s "{ \"id\": \"gk\", \"at\": \"1s\", \"for\": \"50s\", \"kind\": \"gpu_throttle\", \"target\": \"me\",
  \"params\": { \"gpus\": [0], \"watts\": 250, \"state_dir\": \"$SD\" } }"
bg run "$T/crash.json" --out "$T/rk"
check "crash: GPU 0 capped to 250 W" until_ok 10 is 0 pl 250.00
until_ok 10 sql_is "$T/rk/run.db" "select state from faults" injected
kill -9 "$BG_PID"; wait "$BG_PID" 2>/dev/null
check "crash: still capped after the controller died" is 0 pl 250.00
touch "$GL_FAKE_GPU_DIR/ignore_pl"   # -pl answers success but the limit stays
"$GAUNTLET" revert "$T/rk" >"$T/rk0.log" 2>&1; rc=$?
check "crash: a revert whose -pl did not take fails (exit $rc)" [ $rc -ne 0 ]
check "crash: ... verify_revert names the limit it read" grep -qF "not restored: GPU 0 power.limit 250.00 W (want 450.00)" "$T/rk0.log"
check "crash: ... and the journal does not say reverted" [ "$(sql "$T/rk/run.db" "select state from faults")" != reverted ]
rm -f "$GL_FAKE_GPU_DIR/ignore_pl"
"$GAUNTLET" revert "$T/rk" >"$T/rk.log" 2>&1; rc=$?
check "crash: gauntlet revert exits 0" [ $rc -eq 0 ]
check "crash: GPU 0 back to 450 W (read before the fault, in a process that died)" is 0 pl 450.00
check "crash: journal says reverted" [ "$(sql "$T/rk/run.db" "select state from faults")" = reverted ]
check "crash: the record is gone" no_record
n_before=$(wc -l < "$GL_FAKE_GPU_DIR/calls.log")
gpu 0 333.00   # an operator's change after the revert must survive a second one
"$GAUNTLET" revert "$T/rk" >"$T/rk2.log" 2>&1; rc=$?
check "crash: a second revert exits 0" [ $rc -eq 0 ]
check "crash: a second revert sets no limit" bash -c "is() { :; }; ! tail -n +$((n_before + 1)) '$GL_FAKE_GPU_DIR/calls.log' | grep -q -- '-pl'"
check "crash: ... and GPU 0 keeps the operator's 333 W" is 0 pl 333.00

# --- 5. preflight -------------------------------------------------------------------------
fresh
pf() { # NAME WATTS GPUS [PATH]
	scenario "$T/$1.json" 5s "{ \"id\": \"gf\", \"at\": \"1s\", \"for\": \"2s\", \"kind\": \"gpu_throttle\", \"target\": \"me\",
	  \"params\": { \"gpus\": $3, \"watts\": $2, \"state_dir\": \"$SD\" } }"
	PATH=${4:-$PATH} "$GAUNTLET" run "$T/$1.json" --out "$T/$1" >"$T/$1.log" 2>&1
}
if PATH=$BASE_PATH command -v nvidia-smi >/dev/null; then
	part_skip "preflight without nvidia-smi" "a real nvidia-smi is on PATH ($(PATH=$BASE_PATH command -v nvidia-smi))"
else
	pf nosmi 300 '[0]' "$BASE_PATH"; rc=$?
	check "preflight: nvidia-smi missing: exit 4 (got $rc)" [ $rc -eq 4 ]
	check "preflight: names the tool" grep -q "tool 'nvidia-smi' present: FAILED" "$T/nosmi.log"
fi
pf toomuch 800 '[0, 1]'; rc=$?
check "preflight: 800 W above power.max_limit: exit 4 (got $rc)" [ $rc -eq 4 ]
check "preflight: says the watts are outside the GPU's limits" grep -qF "GPU 0: 800 W is outside its power.min_limit..power.max_limit, 200.00..700.00 W" "$T/toomuch.log"
pf nogpu 300 '[0, 7]'; rc=$?
check "preflight: GPU 7 missing: exit 4 (got $rc)" [ $rc -eq 4 ]
check "preflight: names the GPU" grep -qF "no GPU 7 (nvidia-smi lists: 0 1 2)" "$T/nogpu.log"
check "preflight: nothing changed (no -pl, no record)" bash -c "! grep -q -- '-pl' '$GL_FAKE_GPU_DIR/calls.log' && [ -z \"\$(ls -A '$SD' 2>/dev/null)\" ]"

# --- 6-11. fabric_port ----------------------------------------------------------------------
export GL_FAKE_IB_DIR="$T/ib"
mkdir -p "$GL_FAKE_IB_DIR"
echo "5 1" > "$GL_FAKE_IB_DIR/id"
echo "mlx5_0 1" > "$GL_FAKE_IB_DIR/ca"
echo Active > "$GL_FAKE_IB_DIR/state"
port_is() { [ "$(cat "$GL_FAKE_IB_DIR/state")" = "$1" ]; }
FID="fp$$"   # fault ids: the loops' pid files are /run/gauntlet/fabric_port.ID.*.pid
NS=
fp_cleanup() {
	local f p
	for f in /run/gauntlet/fabric_port."$FID"*.pid; do
		[ -f "$f" ] && p=$(cat "$f") && [ -n "$p" ] && kill -TERM -- "-$p" 2>/dev/null
		rm -f "$f"
	done
	[ -n "$NS" ] && ip netns del "$NS" 2>/dev/null
	cleanup
}
trap fp_cleanup EXIT
# loop_runs ID: a dead-man loop of fault ID runs (its pid file names a live process)
loop_runs() {
	local f p
	for f in /run/gauntlet/fabric_port."$1".*.pid; do
		[ -s "$f" ] && p=$(cat "$f") && tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null | grep -qF "$f" && return 0
	done
	return 1
}

scenario "$T/fbad.json" 20s '
  { "id": "b0", "at": "1s", "for": "5s", "kind": "fabric_port", "target": "me",
    "params": { "lid": 0, "port": 300, "ca": "-x", "bogus": 1, "active_wait": "2h" } },
  { "id": "b1", "at": "1s", "kind": "fabric_port", "target": "me", "params": { "lid": 5, "port": 1 } },
  { "id": "b2", "at": "1s", "for": "5s", "kind": "fabric_port", "method": "roce", "target": "me",
    "params": { "interface": "a b", "down": "soon", "lid": 5 } }'
"$GAUNTLET" validate "$T/fbad.json" >/dev/null 2>"$T/fbad.err"; rc=$?
check "fabric validate: bad params exit 2" [ $rc -eq 2 ]
while IFS= read -r p; do
	check "fabric validate names $p" grep -qF -- "$p" "$T/fbad.err"
done <<'EOF2'
faults[0].params.lid: expected a unicast LID
faults[0].params.port: expected a port number from 1 to 254
faults[0].params.ca: expected a CA name
faults[0].params.bogus: unknown key 'bogus' for fabric_port method ib
faults[0].params.active_wait: expected a duration from 1s to 10m
faults[1].params.ca: method ib needs params.ca
faults[1]: kind fabric_port needs "for" or params.down
faults[2].params.interface: expected an interface name
faults[2].params.down: expected a duration above 0s
faults[2].params.lid: unknown key 'lid' for fabric_port method roce
EOF2
[ "$FAIL" -eq 0 ] || cat "$T/fbad.err"

IBP='"lid": 5, "port": 1, "ca": "mlx5_0"'
scenario "$T/fdry.json" 20s "{ \"id\": \"fd\", \"at\": \"1s\", \"kind\": \"fabric_port\", \"target\": \"me\",
  \"params\": { $IBP, \"down\": \"4s\" } }"
"$GAUNTLET" run "$T/fdry.json" --dry-run >"$T/fdry.log" 2>&1
check "fabric dry run: disable, the loop that enables after \"down\", ibstat" bash -c "grep -qF 'ibportstate 5 1 disable; setsid sh -c' '$T/fdry.log' && grep -qF 'sleep 4.000; ibportstate 5 1 enable;' '$T/fdry.log' && grep -qF 'verify: ibstat mlx5_0 1' '$T/fdry.log'"
check "fabric dry run: \"down\" is the fault's length" grep -q "inject 'fd': fabric_port/ib on me, for 4s" "$T/fdry.log"

# 7. ib: down during the fault, active after
scenario "$T/ib.json" 7s "{ \"id\": \"${FID}a\", \"at\": \"1s\", \"for\": \"2s\", \"kind\": \"fabric_port\", \"target\": \"me\",
  \"params\": { $IBP } }"
bg run "$T/ib.json" --out "$T/ri"
check "ib: port Down during the fault" until_ok 10 port_is Down
wait "$BG_PID"; rc=$?
check "ib: run exits 0" [ $rc -eq 0 ]
check "ib: port Active after" port_is Active
check "ib: exactly 'ibportstate 5 1 disable' and '... enable' ran" \
	bash -c "grep -qxF 'ibportstate 5 1 disable' '$GL_FAKE_IB_DIR/calls.log' && grep -qxF 'ibportstate 5 1 enable' '$GL_FAKE_IB_DIR/calls.log'"
check "ib: state read with 'ibstat mlx5_0 1'" grep -qxF 'ibstat mlx5_0 1' "$GL_FAKE_IB_DIR/calls.log"
check "ib: report says reverted, verified both ways" fault_is "$T/ri" 0 "(f['state'], f['verified'], f['verified_revert']) == ('reverted', True, True)"
check "ib: no dead-man loop left" bash -c "$(declare -f loop_runs); ! loop_runs ${FID}a"

# 8. controller SIGKILLed; gauntlet revert enables the port and ends the loop
scenario "$T/ibk.json" 60s "{ \"id\": \"${FID}k\", \"at\": \"1s\", \"for\": \"50s\", \"kind\": \"fabric_port\", \"target\": \"me\",
  \"params\": { $IBP, \"active_wait\": \"1s\" } }"
bg run "$T/ibk.json" --out "$T/rik"
check "ib/crash: port Down" until_ok 10 port_is Down
until_ok 10 sql_is "$T/rik/run.db" "select state from faults" injected
kill -9 "$BG_PID"; wait "$BG_PID" 2>/dev/null
check "ib/crash: still Down after the controller died, its loop running" bash -c "[ \"\$(cat '$GL_FAKE_IB_DIR/state')\" = Down ] && $(declare -f loop_runs); loop_runs ${FID}k"
touch "$GL_FAKE_IB_DIR/stuck"   # enable answers as usual, the port stays Down
"$GAUNTLET" revert "$T/rik" >"$T/rik0.log" 2>&1; rc=$?
check "ib/crash: a revert that leaves the port Down fails (exit $rc) after active_wait" [ $rc -ne 0 ]
check "ib/crash: ... verify_revert says so" grep -qF "port 1 of LID 5 on host 'me' is not back (State: Down)" "$T/rik0.log"
rm -f "$GL_FAKE_IB_DIR/stuck"
"$GAUNTLET" revert "$T/rik" >"$T/rik.log" 2>&1; rc=$?
check "ib/crash: gauntlet revert exits 0" [ $rc -eq 0 ]
check "ib/crash: port Active" port_is Active
check "ib/crash: the dead-man loop is gone" bash -c "$(declare -f loop_runs); ! loop_runs ${FID}k"
check "ib/crash: journal says reverted" [ "$(sql "$T/rik/run.db" "select state from faults")" = reverted ]

# 9. the dead-man's switch: controller SIGKILLed, nobody reverts
scenario "$T/ibd.json" 60s "{ \"id\": \"${FID}d\", \"at\": \"1s\", \"for\": \"2s\", \"kind\": \"fabric_port\", \"target\": \"me\",
  \"params\": { $IBP } }"
bg run "$T/ibd.json" --out "$T/rid"
check "ib/dead-man: port Down" until_ok 10 port_is Down
until_ok 10 sql_is "$T/rid/run.db" "select state from faults" injected
kill -9 "$BG_PID"; wait "$BG_PID" 2>/dev/null
check "ib/dead-man: still Down just after the controller died" port_is Down
check "ib/dead-man: Active again by itself once \"for\" (2s) is up" until_ok 6 port_is Active
check "ib/dead-man: the loop ended and removed its pid file" until_ok 3 bash -c "! ls /run/gauntlet/fabric_port.${FID}d.*.pid >/dev/null 2>&1"
"$GAUNTLET" revert "$T/rid" >"$T/rid.log" 2>&1; rc=$?
check "ib/dead-man: a later gauntlet revert exits 0, port still Active" bash -c "[ $rc -eq 0 ] && [ \"\$(cat '$GL_FAKE_IB_DIR/state')\" = Active ]"

# 10. preflight without ibportstate
scenario "$T/ibnt.json" 5s "{ \"id\": \"${FID}n\", \"at\": \"1s\", \"for\": \"2s\", \"kind\": \"fabric_port\", \"target\": \"me\",
  \"params\": { $IBP } }"
if PATH=$BASE_PATH command -v ibportstate >/dev/null; then
	part_skip "fabric preflight without ibportstate" "a real ibportstate is on PATH"
else
	PATH=$BASE_PATH "$GAUNTLET" run "$T/ibnt.json" --out "$T/ibnt" >"$T/ibnt.log" 2>&1; rc=$?
	check "fabric preflight: ibportstate missing: exit 4 (got $rc)" [ $rc -eq 4 ]
	check "fabric preflight: names the tool" grep -q "tool 'ibportstate' present: FAILED" "$T/ibnt.log"
fi
sed -i 's/mlx5_0 1/mlx5_1 1/' "$GL_FAKE_IB_DIR/ca"
"$GAUNTLET" run "$T/ibnt.json" --out "$T/ibnc" >"$T/ibnc.log" 2>&1; rc=$?
check "fabric preflight: no CA mlx5_0: exit 4 naming the ibstat check" bash -c "[ $rc -eq 4 ] && grep -q 'ibstat mlx5_0 1 answers: FAILED' '$T/ibnc.log'"
sed -i 's/mlx5_1 1/mlx5_0 1/' "$GL_FAKE_IB_DIR/ca"

# 11. roce on a dummy interface in a private network namespace
NSN="gl-fp-$$"
if ! command -v ip >/dev/null || ! ip netns add "$NSN" 2>/dev/null; then
	part_skip "fabric_port roce" "cannot make a network namespace (ip netns add needs root)"
else
	NS=$NSN
	# a dummy interface where the kernel has the module, else a veth pair
	# (both ends inside the namespace)
	{ ip -n "$NS" link add r0 type dummy 2>/dev/null || ip -n "$NS" link add r0 type veth peer name r1; } &&
		ip -n "$NS" link set r0 up
	up_flag() { ip -n "$NS" -o link show dev r0 | grep -q '<[^>]*\bUP\b'; }
	cat > "$T/roce.json" <<JSON
{ "name": "roce", "duration": "7s", "window": "1s", "hold": 1,
  "hosts": { "me": { "local": true, "netns": "$NS" } },
  "workloads": { "null": { "rate": 50 } },
  "faults": [ { "id": "${FID}r", "at": "1s", "for": "2s", "kind": "fabric_port", "method": "roce", "target": "me",
                "params": { "interface": "r0" } } ],
  "targets": { "steady": { "null.ticks": ">= 10" }, "degraded": { "null.ticks": ">= 10" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } } }
JSON
	bg run "$T/roce.json" --out "$T/rr"
	check "roce: r0 down during the fault" until_ok 10 bash -c "! ip -n '$NS' -o link show dev r0 | grep -q '<[^>]*\bUP\b'"
	wait "$BG_PID"; rc=$?
	check "roce: run exits 0" [ $rc -eq 0 ]
	check "roce: r0 UP after" up_flag
	check "roce: report says reverted, verified both ways" fault_is "$T/rr" 0 "(f['state'], f['verified'], f['verified_revert']) == ('reverted', True, True)"
fi

finish
