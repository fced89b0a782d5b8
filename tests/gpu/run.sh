#!/bin/bash
# tests/gpu/run.sh - the GPU checks, for a machine with a GPU (the device
# machine some sessions get). One prepared script:
#   dcgm: when DCGM's dcgmi is installed, the real `dcgmi diag -r 1 -j` runs
#     as a before gate (docs/gates.md) of a 2 s null soak on the local host,
#     and gauntlet must read its JSON per GPU and per test; skipped, with
#     the reason, when dcgmi is absent (not a failure, also under
#     GL_STRICT=1: DCGM is not part of the CUDA toolkit).
#   throttle: the gpu_throttle fault kind (docs/faults.md) for real on GPU
#     0: a power cap between power.min_limit and the limit in force, set
#     during a 4 s null soak, read back with nvidia-smi, and the limit from
#     before restored after; skipped, with the reason, without nvidia-smi
#     or root (nvidia-smi -pl needs root), or when the GPU has no settable
#     power limit.
#   xid: when dcgmi is installed and accepts field injection, a gpu_xid
#     fault (docs/faults.md) injects XID 79 into field 230 of GPU 0 for
#     4 s: gauntlet's verify reads it back through `dcgmi dmon`, the test
#     reads it too while the fault is held, and after revert (0 injected)
#     it must be gone; skipped, with the reason, without dcgmi or when this
#     DCGM refuses injection.
#   nccl: it builds gauntlet-train with the NCCL backend (unless GL_TRAIN
#     names a binary), then runs a short 1-rank NCCL loop with checkpoints,
#     restores from them, and checks every step's reduced values and the
#     restore.
# It prints what it saw and ends with "N passed, N failed"; exit 77 when
# there is no usable GPU (exit 1 under GL_STRICT=1, naming what was
# missing).
#
#   bash tests/gpu/run.sh            # build into build-gpu/ and run
#   GL_TRAIN=path/to/gauntlet-train bash tests/gpu/run.sh
#   GAUNTLET=build/gauntlet GL_GPU_PARTS=dcgm bash tests/gpu/run.sh
#   GAUNTLET=build/gauntlet GL_GPU_PARTS=throttle bash tests/gpu/run.sh
#   GAUNTLET=build/gauntlet GL_GPU_PARTS=xid bash tests/gpu/run.sh
set -u
cd "$(dirname "$0")/../.."
PASS=0 FAIL=0
ok() { PASS=$((PASS + 1)); echo "ok: $*"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL: $*"; }
T=$(mktemp -d /tmp/gl-gpu.XXXXXX)
trap 'rm -rf "$T"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

echo "== machine"
if command -v nvidia-smi >/dev/null; then
	nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -8
else
	echo "nvidia-smi not found"
fi
ls /usr/local/cuda/lib64/libnccl.so* 2>/dev/null | head -2

PARTS=${GL_GPU_PARTS:-dcgm throttle xid nccl}

# gauntlet_bin: $GAUNTLET, or a build of it in build-gpu/; sets G ("" when it
# does not build).
gauntlet_bin() {
	G=${GAUNTLET:-}
	[ -n "$G" ] && return
	[ -x build-gpu/gauntlet ] && { G=build-gpu/gauntlet; return; }
	if cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$T/cmake-g.log" 2>&1 &&
	   cmake --build build-gpu -j "$(nproc)" --target gauntlet > "$T/build-g.log" 2>&1; then
		G=build-gpu/gauntlet
	else
		tail -20 "$T/cmake-g.log" "$T/build-g.log"
	fi
}

if [[ " $PARTS " == *" dcgm "* ]]; then
	echo "== dcgm: dcgmi diag -r 1 -j as a gate"
	if ! command -v dcgmi >/dev/null; then
		echo "SKIP part dcgm: dcgmi not found (DCGM is not installed here)"
	else
		gauntlet_bin
		started_he=0
		if ! pgrep -x nv-hostengine >/dev/null && command -v nv-hostengine >/dev/null; then
			nv-hostengine > "$T/he.log" 2>&1 && started_he=1
			sleep 2
		fi
		dcgmi --version 2>&1 | head -3
		cat > "$T/gate.json" <<'JSON'
{ "name": "gpu-gate", "duration": "2s", "window": "1s", "hosts": { "here": { "local": true } },
  "workloads": { "null": { "rate": 100 } }, "targets": { "steady": { "null.ticks": ">= 1" } },
  "gates": [ { "id": "dcgm-r1", "kind": "dcgm_diag", "level": 1, "hosts": ["here"], "when": ["before"],
               "timeout": "10m" } ] }
JSON
		if [ -z "$G" ] || [ ! -x "$G" ]; then
			bad "gauntlet builds for the dcgm part"
		else
			"$G" run "$T/gate.json" --out "$T/gate" > "$T/gate.log" 2>&1
			rc=$?
			grep "gates:" "$T/gate.log" | head -10
			python3 - "$T/gate/report.json" > "$T/gate.check" 2>&1 <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))["gates"][0]
print("status %s, reason: %s" % (g["status"], g["reason"] or "-"))
res = g.get("results") or []
for x in res:
    print("  %-14s %-28s %s %s" % ("GPU %s" % x["id"] if x["id"] is not None else "all", x["test"], x["status"], x["detail"][:80]))
# the reader must understand what this DCGM printed: rows, or DCGM's own
# runtime error (host engine not reachable), never "not usable"
sys.exit(0 if res or "DCGM could not run" in g["reason"] else 1)
PY
			prc=$?
			cat "$T/gate.check"
			if [ $prc -eq 0 ]; then
				ok "the real dcgmi diag -r 1 -j output read by gauntlet (run exit $rc)"
			else
				bad "the real dcgmi diag -r 1 -j output read by gauntlet (run exit $rc; kept below)"
				head -c 4000 "$T/gate/gates/dcgm-r1-here-before.json" 2>/dev/null
				tail -5 "$T/gate.log"
			fi
		fi
		[ $started_he -eq 1 ] && nv-hostengine -t > /dev/null 2>&1
	fi
fi
if [[ " $PARTS " == *" throttle "* ]]; then
	echo "== throttle: gpu_throttle power cap on GPU 0, read back, restored"
	Q=index,power.limit,power.min_limit,power.max_limit
	line=$(nvidia-smi --query-gpu=$Q --format=csv,noheader,nounits -i 0 2>/dev/null | head -1)
	IFS=', ' read -r _ pl pmin pmax <<< "$line"
	if ! command -v nvidia-smi >/dev/null; then
		echo "SKIP part throttle: nvidia-smi not found"
	elif [ "$(id -u)" != 0 ]; then
		echo "SKIP part throttle: not root (nvidia-smi -pl needs root)"
	elif ! [[ $pl =~ ^[0-9]+(\.[0-9]+)?$ && $pmin =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
		echo "SKIP part throttle: GPU 0 has no settable power limit ('$line')"
	else
		gauntlet_bin
		W=$(( (${pl%%.*} + ${pmin%%.*}) / 2 ))
		[ "$W" -lt "${pmin%%.*}" ] && W=${pmin%%.*}
		echo "GPU 0: power.limit $pl W (min $pmin, max $pmax); the cap: $W W"
		cat > "$T/thr.json" <<JSON
{ "name": "gpu-throttle", "duration": "4s", "window": "1s", "hold": 1, "hosts": { "here": { "local": true } },
  "workloads": { "null": { "rate": 100 } },
  "faults": [ { "id": "cap", "at": "1s", "for": "2s", "kind": "gpu_throttle", "target": "here",
                "params": { "gpus": [0], "watts": $W, "state_dir": "$T/state" } } ],
  "targets": { "steady": { "null.ticks": ">= 1" }, "degraded": { "null.ticks": ">= 1" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } } }
JSON
		if [ -z "$G" ] || [ ! -x "$G" ]; then
			bad "gauntlet builds for the throttle part"
		else
			"$G" run "$T/thr.json" --out "$T/thr" > "$T/thr.log" 2>&1 &
			gp=$!
			seen=
			for _ in $(seq 1 60); do
				now=$(nvidia-smi --query-gpu=power.limit --format=csv,noheader,nounits -i 0 2>/dev/null)
				[ "${now%%.*}" = "$W" ] && { seen=$now; break; }
				sleep 0.1
			done
			wait $gp; rc=$?
			after=$(nvidia-smi --query-gpu=power.limit --format=csv,noheader,nounits -i 0 2>/dev/null)
			grep "fault:" "$T/thr.log"
			[ -n "$seen" ] && ok "power.limit read back as $seen W during the fault" ||
				bad "power.limit read back as $W W during the fault"
			[ $rc -eq 0 ] && ok "run exits 0" || { bad "run exits 0 (rc $rc)"; tail -5 "$T/thr.log"; }
			[ "$after" = "$pl" ] && ok "power.limit restored to $pl W (what was in force before)" || {
				bad "power.limit restored to $pl W (now $after W)"
				nvidia-smi -i 0 -pl "$pl" > /dev/null 2>&1   # leave the machine as we found it
			}
			python3 -c "import json,sys; f=json.load(open(sys.argv[1]))['faults'][0]; sys.exit(not (f['state'], f['verified'], f['verified_revert']) == ('reverted', True, True))" "$T/thr/report.json" &&
				ok "report: reverted, verified both ways" || bad "report: reverted, verified both ways"
		fi
	fi
fi
if [[ " $PARTS " == *" xid "* ]]; then
	echo "== xid: gpu_xid injects XID 79 into DCGM field 230 of GPU 0 and reads it back"
	if ! command -v dcgmi >/dev/null; then
		echo "SKIP part xid: dcgmi not found (DCGM is not installed here)"
	else
		started_he=0
		if ! pgrep -x nv-hostengine >/dev/null && command -v nv-hostengine >/dev/null; then
			nv-hostengine > "$T/he-x.log" 2>&1 && started_he=1
			sleep 2
		fi
		# a harmless probe first: 0 is "no XID"
		probe=$(dcgmi test --inject --gpuid 0 -f 230 -v 0 2>&1)
		if ! printf '%s' "$probe" | grep -q "Successfully injected"; then
			echo "SKIP part xid: this DCGM refuses field injection: $(printf '%s' "$probe" | head -3)"
		else
			gauntlet_bin
			cat > "$T/xid.json" <<JSON
{ "name": "gpu-xid", "duration": "8s", "window": "1s", "hold": 1, "hosts": { "here": { "local": true } },
  "workloads": { "null": { "rate": 100 } },
  "faults": [ { "id": "xid", "at": "1s", "for": "4s", "kind": "gpu_xid", "target": "here",
                "params": { "gpus": [0], "xid": 79, "state_dir": "$T/xst" } } ],
  "targets": { "steady": { "null.ticks": ">= 1" }, "degraded": { "null.ticks": ">= 1" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } } }
JSON
			if [ -z "$G" ] || [ ! -x "$G" ]; then
				bad "gauntlet builds for the xid part"
			else
				"$G" run "$T/xid.json" --out "$T/xid" > "$T/xid.log" 2>&1 &
				gp=$!
				sleep 4
				held=$(dcgmi dmon -e 230 -c 1 -i 0 2>&1)
				wait $gp
				rc=$?
				after=$(dcgmi dmon -e 230 -c 1 -i 0 2>&1)
				echo "while held:"; printf '%s\n' "$held" | head -4
				echo "after revert:"; printf '%s\n' "$after" | head -4
				grep "fault:" "$T/xid.log" | head -6
				python3 -c "
import json, sys
f = json.load(open(sys.argv[1]))['faults'][0]
print('state', f['state'], 'verified', f['verified'], 'verified_revert', f['verified_revert'])
sys.exit(0 if (f['state'], f['verified'], f['verified_revert']) == ('reverted', True, True) else 1)" "$T/xid/report.json" &&
					ok "gpu_xid injected, verified through dcgmi dmon, reverted and verified (run exit $rc)" ||
					{ bad "gpu_xid injected, verified and reverted on the real DCGM (run exit $rc)"; tail -8 "$T/xid.log"; }
				printf '%s\n' "$held" | grep -Eq "^ *GPU 0 +79( |$)" && ok "dcgmi dmon reads XID 79 on GPU 0 while held" ||
					bad "dcgmi dmon reads XID 79 on GPU 0 while held"
				printf '%s\n' "$after" | grep -Eq "^ *GPU 0 +79( |$)" && bad "XID 79 still read after revert" ||
					ok "XID 79 no longer read after revert"
			fi
		fi
		[ $started_he -eq 1 ] && nv-hostengine -t > /dev/null 2>&1
	fi
fi
if [[ " $PARTS " != *" nccl "* ]]; then
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ]
	exit $?
fi

BIN=${GL_TRAIN:-}
if [ -z "$BIN" ]; then
	echo "== build (build-gpu, NCCL on)"
	if cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGL_WITH_NCCL=ON > "$T/cmake.log" 2>&1 &&
	   cmake --build build-gpu -j "$(nproc)" --target gauntlet-train > "$T/build.log" 2>&1; then
		BIN=build-gpu/gauntlet-train
		grep -E "NCCL found|NCCL/CUDA not found" "$T/cmake.log"
	else
		echo "build failed:"; tail -20 "$T/cmake.log" "$T/build.log"
		bad "gauntlet-train builds with NCCL"
		echo "$PASS passed, $FAIL failed"; exit 1
	fi
fi
[ -x "$BIN" ] || { bad "gauntlet-train at $BIN"; echo "$PASS passed, $FAIL failed"; exit 1; }
ok "gauntlet-train: $BIN"

run() { # run LOG args...: one rank, under mpirun when there is one
	local log=$1; shift
	if command -v mpirun >/dev/null; then
		timeout 300 mpirun --allow-run-as-root --oversubscribe -np 1 "$BIN" "$@" > "$log" 2>&1
	else
		timeout 300 "$BIN" "$@" > "$log" 2>&1
	fi
}
COMMON=(--backend nccl --message 256MiB --compute 20ms --heartbeat 500ms
	--ckpt-dir "$T/ckpt" --ckpt-size 1GiB --ckpt-every-steps 10)

echo "== 20 steps, checkpoints every 10"
run "$T/a.log" "${COMMON[@]}" --steps 20
rc=$?
grep -v " hb " "$T/a.log" | head -40
if [ $rc -eq 3 ] && grep -q "what=backend" "$T/a.log"; then
	if [ "${GL_STRICT:-0}" = 1 ]; then
		bad "no usable GPU here (GL_STRICT=1: a skip is a failure): $(grep -o 'msg=.*' "$T/a.log" | head -1)"
		echo "$PASS passed, $FAIL failed"; exit 1
	fi
	echo "SKIP: no usable GPU here ($(grep -o 'msg=.*' "$T/a.log" | head -1))"
	exit 77
fi
[ $rc -eq 0 ] && ok "first run exits 0" || bad "first run exits 0 (rc $rc)"
steps=$(grep -c "^GLT1 step " "$T/a.log")
[ "$steps" -eq 20 ] && ok "20 steps reported" || bad "20 steps reported (got $steps)"
# (exact: steps reported, every one with errors=0 checked=1)
exact() { [ "$(grep -c "^GLT1 step " "$1")" -gt 0 ] && ! grep "^GLT1 step " "$1" | grep -v " errors=0 " | grep -q . &&
	! grep "^GLT1 step " "$1" | grep -qv " checked=1"; }
exact "$T/a.log" && ok "every step's reduced values exact" || bad "every step's reduced values exact"
grep -q "^GLT1 ckpt step=20 " "$T/a.log" && ok "checkpoint at step 20 committed" || bad "checkpoint at step 20"
grep -o "save_gbps=[0-9.]*" "$T/a.log" | tail -1
grep -o "comm_s=[0-9.]*" "$T/a.log" | tail -1

echo "== restore and 10 more steps"
run "$T/b.log" "${COMMON[@]}" --steps 30 --restore
rc=$?
grep -v " hb " "$T/b.log" | head -30
[ $rc -eq 0 ] && ok "restore run exits 0" || bad "restore run exits 0 (rc $rc)"
grep -q "^GLT1 restore step=20 " "$T/b.log" && ok "restored step 20 (shard hash verified)" || bad "restored step 20"
first=$(grep -m1 "^GLT1 step " "$T/b.log" | grep -o " n=[0-9]*")
[ "$first" = " n=21" ] && ok "continues at step 21" || bad "continues at step 21 (got$first)"
exact "$T/b.log" && ok "restored run's values exact" || bad "restored run's values exact"

echo "== a corrupted value is caught on the GPU path too"
run "$T/c.log" --backend nccl --message 64MiB --steps 5 --inject-corruption 3:0
grep "^GLT1 step n=3 " "$T/c.log" | grep -q " errors=[1-9]" && ok "corruption at step 3 detected" ||
	bad "corruption at step 3 detected"

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
