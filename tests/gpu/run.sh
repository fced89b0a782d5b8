#!/bin/bash
# tests/gpu/run.sh - the NCCL checks, for a machine with a GPU (the device
# machine some sessions get). One prepared script: it builds gauntlet-train
# with the NCCL backend (unless GL_TRAIN names a binary), then runs a short
# 1-rank NCCL loop with checkpoints, restores from them, and checks every
# step's reduced values and the restore. It prints what it saw and ends
# with "N passed, N failed"; exit 77 when there is no usable GPU (exit 1
# under GL_STRICT=1, naming what was missing).
#
#   bash tests/gpu/run.sh            # build into build-gpu/ and run
#   GL_TRAIN=path/to/gauntlet-train bash tests/gpu/run.sh
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
