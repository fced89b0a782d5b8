#!/usr/bin/env bash
# test_train.sh - gauntlet-train (loadgen/train) end to end under mpirun on
# loopback, MPI backend, small messages and checkpoints:
# (a) np 2 and np 4: the start line's world, an exact step count, every step
#     checked with no errors, a heartbeat from every rank, and algbw/busbw
#     recomputed from the printed message size and comm_s;
# (b) --inject-corruption STEP:RANK makes that step's errors > 0, only it;
# (c) checkpoints every 2 steps to step 6, then a new mpirun with --restore
#     goes on from step 6; each manifest names its hash ("xxh3", the default)
#     and has one hash per rank, equal to the chunked XXH3-128 recomputed
#     here (python, through ctypes on Debian's libxxhash.so.0);
# (d) one flipped byte in the newest checkpoint's shard of rank 1: that rank
#     reports ckpt_corrupt, the checkpoint is rejected (quarantined) and the
#     previous one is restored;
# (d2) --ckpt-hash sha256: the manifest says "sha256" and matches hashlib's
#     chunked SHA-256; a flipped byte is caught the same way; the same
#     checkpoint in the first manifest format (no "hash" key) restores as
#     SHA-256; a manifest whose "hash" was changed to another name's is
#     skipped, not trusted;
# (e) --kill-in-save: a rank SIGKILLed mid-save, mpirun fails, the step dir
#     has no manifest, and the next restore skips it as incomplete;
# (f) retention: --ckpt-keep 2 (and 3) leaves exactly that many checkpoints;
# (g) the world check: N separate single-rank processes (MPI singletons, the
#     "separate single-rank jobs" pitfall) with --expect-world N exit 5 with
#     what=world; --expect-hosts 1 passes on one host, 2 exits 5 (what=hosts);
# (h) --backend nccl without a GPU exits 3 with what=backend naming
#     cudaGetDeviceCount (or saying it is not built); with a GPU it runs;
# (i) bad arguments exit 2 naming the flag;
# (j) the scenario key workloads.training.checkpoint.hash: gauntlet validate
#     rejects an unknown name, and a 2 s controller run with "sha256" passes
#     it to gauntlet-train (its manifests say sha256).
source "$(dirname "$0")/lib.sh"

BIN_DIR=${GL_BINARY_DIR:-$(dirname "$GAUNTLET")}
TRAIN=$BIN_DIR/gauntlet-train
[ -x "$TRAIN" ] || skip "no gauntlet-train at $TRAIN (built only when OpenMPI is found)"
command -v mpirun >/dev/null || skip "mpirun is not installed (OpenMPI's launcher runs the ranks)"
command -v timeout >/dev/null || skip "timeout (coreutils) is needed to bound each run"
# As root OpenMPI refuses to start without these; harmless otherwise.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# mpi NP LOG ARGS...: mpirun on this host, stdout to LOG, stderr to LOG.err;
# sets RC (124/137: it ran past 60 s) and ELAPSED (whole seconds).
mpi() {
	local np=$1 log=$2 t0=$SECONDS
	shift 2
	timeout -k 5 60 mpirun -np "$np" --oversubscribe --bind-to none "$TRAIN" "$@" </dev/null >"$log" 2>"$log.err"
	RC=$?
	ELAPSED=$((SECONDS - t0))
}

# glt LOG 'python expression': the GLT1 lines of LOG parsed into dicts of
# strings (kind, k=v fields, msg= to the end of the line); helpers: lines(K),
# first(K), steps() (step lines, n as int), bw_ok(step, world, message).
cat > "$T/glt.py" <<'PY'
import sys

def parse(path):
    out = []
    for l in open(path, errors="replace"):
        l = l.rstrip("\n")
        p = l.split(" ", 2)
        if len(p) < 2 or p[0] != "GLT1":
            continue
        d = {"kind": p[1]}
        rest = " " + (p[2] if len(p) > 2 else "")
        i = rest.find(" msg=")
        if i >= 0:
            d["msg"] = rest[i + 5:]
            rest = rest[:i]
        for kv in rest.split():
            if "=" in kv:
                k, v = kv.split("=", 1)
                d[k] = v
        out.append(d)
    return out

L = parse(sys.argv[1])

def lines(kind):
    return [d for d in L if d["kind"] == kind]

def first(kind):
    v = lines(kind)
    return v[0] if v else {}

def steps():
    return [int(d["n"]) for d in lines("step")]

def half_ulp(x):
    """Half a unit in the last printed digit of the number string x."""
    return 0.5 * 10 ** -(len(x.split(".")[1]) if "." in x else 0)

bw_shown = 0

def bw_ok(s, world, message):
    """algbw == message/1e9/comm_s and busbw == algbw*2(n-1)/n, within the
    rounding of the printed digits (bounds derived, not guessed)."""
    c, a, b = float(s["comm_s"]), float(s["algbw"]), float(s["busbw"])
    dc, da, db = half_ulp(s["comm_s"]), half_ulp(s["algbw"]), half_ulp(s["busbw"])
    if c <= dc:
        return False
    calc = message / 1e9 / c
    tol_a = da + calc * dc / (c - dc) + 1e-12
    f = 2.0 * (world - 1) / world
    tol_b = db + f * da + 1e-12
    good = abs(a - calc) <= tol_a and abs(b - a * f) <= tol_b
    global bw_shown
    if not good and bw_shown < 3:
        bw_shown += 1
        print("    step %s: algbw %s vs %.6f (tol %.2g), busbw %s vs %.6f (tol %.2g)"
              % (s["n"], s["algbw"], calc, tol_a, s["busbw"], a * f, tol_b), file=sys.stderr)
    return good

ok = eval(sys.argv[2])
if ok is not True:
    print("    false: %s  [log %s]" % (sys.argv[2], sys.argv[1]), file=sys.stderr)
    sys.exit(1)
PY
glt() { python3 "$T/glt.py" "$@"; }

# --- a. np 2 and np 4, MPI backend on loopback ----------------------------------
for NP in 2 4; do
	if [ "$NP" = 2 ]; then MSG=4MiB MB=4194304; else MSG=1MiB MB=1048576; fi
	L=$T/a$NP.log
	mpi "$NP" "$L" --message "$MSG" --steps 20 --heartbeat 200ms
	check "np $NP: mpirun exits 0 (exit $RC, ${ELAPSED}s)" [ "$RC" -eq 0 ]
	check "np $NP: start line says world=$NP hosts=1 backend=mpi message=$MB" \
		glt "$L" "(lambda s: (s.get('world'), s.get('hosts'), s.get('backend'), s.get('message')) == ('$NP', '1', 'mpi', '$MB'))(first('start'))"
	check "np $NP: exactly 20 step lines, n = 1..20 in order, end steps=20" \
		glt "$L" "steps() == list(range(1, 21)) and first('end').get('steps') == '20'"
	check "np $NP: every step errors=0 checked=1" \
		glt "$L" "len(lines('step')) == 20 and all(s['errors'] == '0' and s['checked'] == '1' for s in lines('step'))"
	check "np $NP: algbw = message/1e9/comm_s and busbw = algbw*2(n-1)/n on every step" \
		glt "$L" "len(lines('step')) == 20 and all([bw_ok(s, $NP, $MB) for s in lines('step')])"
	check "np $NP: a heartbeat from every rank 0..$((NP - 1))" \
		glt "$L" "sorted(set(int(h['rank']) for h in lines('hb'))) == list(range($NP))"
done

# --- b. injected corruption --------------------------------------------------------
L=$T/b.log
mpi 4 "$L" --message 1MiB --steps 6 --heartbeat 10s --inject-corruption 3:1
check "corruption: the run completes all 6 steps (exit $RC, ${ELAPSED}s)" glt "$L" "steps() == list(range(1, 7))"
check "corruption: step 3 has errors > 0" glt "$L" "[int(s['errors']) > 0 for s in lines('step') if s['n'] == '3'] == [True]"
check "corruption: every other step has errors=0, all checked" \
	glt "$L" "len(lines('step')) == 6 and all(s['errors'] == '0' and s['checked'] == '1' for s in lines('step') if s['n'] != '3')"

# --- c. checkpoint, then restore in a new mpirun ------------------------------------
CK=$T/ck
CKA=(--message 1MiB --heartbeat 10s --ckpt-dir "$CK" --ckpt-size 8MiB)
sd() { printf '%s/step-%012d' "$1" "$2"; }
# manifest_ok DIR WORLD HASH: the manifest names HASH (xxh3, sha256, or
# "none": the first format, no "hash" key, SHA-256), one entry per rank,
# each digest recomputed here independently: the hash of the hashes of the
# shard's chunk_bytes pieces (SHA-256 with hashlib; XXH3-128 by ctypes on
# libxxhash.so.0, digests in canonical big-endian form)
manifest_ok() {
	local d=$1
	[ -f "$d/MANIFEST.json" ] || { echo "    no $d/MANIFEST.json" >&2; return 1; }
	python3 - "$d/MANIFEST.json" "$2" "$3" <<'PY'
import ctypes, glob, hashlib, json, os, sys
m = json.load(open(sys.argv[1]))
d = os.path.dirname(sys.argv[1])
world = int(sys.argv[2])
want = sys.argv[3]
cb = m.get("chunk_bytes", 0)
class H128(ctypes.Structure):
    _fields_ = [("low64", ctypes.c_uint64), ("high64", ctypes.c_uint64)]
def xxh3(b):
    lib = ctypes.CDLL("libxxhash.so.0")
    lib.XXH3_128bits.restype = H128
    lib.XXH3_128bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    h = lib.XXH3_128bits(b, len(b))
    return h.high64.to_bytes(8, "big") + h.low64.to_bytes(8, "big")
def sha(b):
    return hashlib.sha256(b).digest()
H = xxh3 if want == "xxh3" else sha
key = "xxh3_chunks" if want == "xxh3" else "sha256_chunks"
def chunked(path):
    ds = b""
    with open(path, "rb") as f:
        while True:
            b = f.read(cb)
            if not b:
                break
            ds += H(b)
    return H(ds).hex()
files = sorted(os.path.basename(p) for p in glob.glob(os.path.join(d, "shard-*.bin")))
sh = m["shards"]
bad = []
if m.get("hash", "none") != want:
    bad.append("hash %s, want %s" % (m.get("hash", "none"), want))
if cb <= 0:
    bad.append("no chunk_bytes")
if m.get("world") != world or len(sh) != world:
    bad.append("world %s, %d shards, want %d" % (m.get("world"), len(sh), world))
if sorted(s["rank"] for s in sh) != list(range(world)):
    bad.append("ranks %s" % [s["rank"] for s in sh])
if len(files) != world:
    bad.append("%d shard files" % len(files))
for s in sh:
    p = os.path.join(d, s["file"])
    got = chunked(p) if cb > 0 and os.path.exists(p) else None
    if got != s.get(key) or s["file"] != "shard-%05d.bin" % s["rank"] or os.path.getsize(p) != s["bytes"]:
        bad.append("rank %s: %s manifest %s, recomputed %s" % (s["rank"], s["file"], s.get(key), got))
if bad:
    print("    " + sys.argv[1] + ": " + "; ".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}
L=$T/c1.log
mpi 2 "$L" "${CKA[@]}" --steps 6 --ckpt-every-steps 2
check "ckpt: run to step 6 exits 0 (exit $RC, ${ELAPSED}s)" [ "$RC" -eq 0 ]
check "ckpt: saved at steps 2, 4, 6, each 8388608 bytes in 4194304-byte shards" \
	glt "$L" "[(c['step'], c['bytes'], c['shard_bytes']) for c in lines('ckpt')] == [(str(s), '8388608', '4194304') for s in (2, 4, 6)]"
check "ckpt: every ckpt line says hash=xxh3 (the default)" glt "$L" "[c.get('hash') for c in lines('ckpt')] == ['xxh3'] * 3"
check "ckpt: step 6 manifest: hash xxh3, one XXH3-128 list per rank, equal to the recomputed hash of each shard" \
	manifest_ok "$(sd "$CK" 6)" 2 xxh3
check "ckpt: step 4 manifest: the same" manifest_ok "$(sd "$CK" 4)" 2 xxh3
L=$T/c2.log
mpi 2 "$L" "${CKA[@]}" --steps 8 --ckpt-every-steps 2 --restore
check "restore: new mpirun exits 0 (exit $RC, ${ELAPSED}s)" [ "$RC" -eq 0 ]
check "restore: restore step=6 tried=1 hash=xxh3" \
	glt "$L" "(first('restore').get('step'), first('restore').get('tried'), first('restore').get('hash')) == ('6', '1', 'xxh3')"
check "restore: ready step=6 restored=1" glt "$L" "(first('ready').get('step'), first('ready').get('restored')) == ('6', '1')"
check "restore: first step line is n=7, then 8, and no other" glt "$L" "steps() == [7, 8]"
check "restore: restored steps are checked and correct" glt "$L" "all(s['errors'] == '0' and s['checked'] == '1' for s in lines('step'))"
check "restore: step 8 saved, its manifest matches the recomputed hashes" manifest_ok "$(sd "$CK" 8)" 2 xxh3

# --- d. a corrupted shard ------------------------------------------------------------
flip() { # FILE: one bit of one byte in the middle of the shard
	python3 - "$1" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(1234567)
    b = f.read(1)
    f.seek(1234567)
    f.write(bytes([b[0] ^ 0x01]))
PY
}
flip "$(sd "$CK" 8)/shard-00001.bin"
if manifest_ok "$(sd "$CK" 8)" 2 xxh3 2>/dev/null; then
	bad "corrupt: the flipped shard still matches its manifest (the flip did not happen)"
else
	ok "corrupt: the flipped shard no longer matches its manifest"
fi
L=$T/d.log
mpi 2 "$L" "${CKA[@]}" --steps 7 --restore
check "corrupt: restore run exits 0 (exit $RC, ${ELAPSED}s)" [ "$RC" -eq 0 ]
check "corrupt: ckpt_corrupt step=8 names rank 1, and only rank 1" \
	glt "$L" "[(c['step'], c['rank']) for c in lines('ckpt_corrupt')] == [('8', '1')] and ': xxh3 ' in first('ckpt_corrupt').get('msg', '')"
check "corrupt: ckpt_rejected step=8 ranks=1" glt "$L" "[(c['step'], c['ranks']) for c in lines('ckpt_rejected')] == [('8', '1')]"
check "corrupt: restore falls back to step 6 (tried=2)" glt "$L" "(first('restore').get('step'), first('restore').get('tried')) == ('6', '2')"
check "corrupt: ready step=6, first step n=7" glt "$L" "first('ready').get('step') == '6' and steps() == [7]"
check "corrupt: the rejected manifest is quarantined as MANIFEST.json.corrupt" \
	bash -c "[ -f '$(sd "$CK" 8)/MANIFEST.json.corrupt' ] && [ ! -e '$(sd "$CK" 8)/MANIFEST.json' ]"

# --- d2. SHA-256 by option, and the first manifest format -----------------------------
CS=$T/cs
CSA=(--message 1MiB --heartbeat 10s --ckpt-dir "$CS" --ckpt-size 8MiB --ckpt-hash sha256)
L=$T/d2a.log
mpi 2 "$L" "${CSA[@]}" --steps 4 --ckpt-every-steps 2
check "sha256: run to step 4 exits 0, ckpt lines say hash=sha256 (exit $RC)" \
	glt "$L" "$RC == 0 and [(c['step'], c.get('hash')) for c in lines('ckpt')] == [('2', 'sha256'), ('4', 'sha256')]"
check "sha256: step 4 manifest: hash sha256, equal to hashlib's chunked SHA-256 of each shard" \
	manifest_ok "$(sd "$CS" 4)" 2 sha256
flip "$(sd "$CS" 4)/shard-00000.bin"
L=$T/d2b.log
mpi 2 "$L" "${CSA[@]}" --steps 3 --restore
check "sha256: a flipped byte: ckpt_corrupt step=4 rank 0 says sha256, rejected, step 2 restored (exit $RC)" \
	glt "$L" "$RC == 0 and [(c['step'], c['rank']) for c in lines('ckpt_corrupt')] == [('4', '0')] and ': sha256 ' in first('ckpt_corrupt').get('msg', '') and [c['ranks'] for c in lines('ckpt_rejected')] == ['0'] and (first('restore').get('step'), first('restore').get('hash')) == ('2', 'sha256')"
# step 2 in the first format: the same manifest without "hash" (what the
# SHA-256-only writer wrote), restored with an xxh3 default in force
python3 - "$(sd "$CS" 2)/MANIFEST.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
del m["hash"]
json.dump(m, open(sys.argv[1], "w"), indent=1)
PY
check "first format: step 2 manifest has no \"hash\" and still matches SHA-256" manifest_ok "$(sd "$CS" 2)" 2 none
L=$T/d2c.log
mpi 2 "$L" --message 1MiB --heartbeat 10s --ckpt-dir "$CS" --ckpt-size 8MiB --steps 3 --restore
check "first format: restores step 2 as sha256 (tried=1), goes on to step 3 (exit $RC)" \
	glt "$L" "$RC == 0 and (first('restore').get('step'), first('restore').get('hash'), first('restore').get('tried')) == ('2', 'sha256', '1') and steps() == [3] and lines('ckpt_corrupt') == []"
# a manifest claiming the other hash has no digest of that kind: skipped
sed -i 's/"hash":[[:space:]]*"xxh3"/"hash": "sha256"/' "$(sd "$CK" 6)/MANIFEST.json"
L=$T/d2d.log
mpi 2 "$L" "${CKA[@]}" --steps 7 --restore
check "renamed hash: step 6 (xxh3 digests, \"hash\" edited to sha256) skipped naming sha256_chunks (step 8, quarantined, skipped as incomplete), none restored (exit $RC)" \
	bash -c "[ $RC -eq 0 ] && grep -q '^GLT1 ckpt_skip step=6 reason=shard 0: no sha256_chunks of 64 lowercase hex digits' '$L'" &&
	glt "$L" "[c['step'] for c in lines('ckpt_skip')] == ['8', '6'] and first('restore').get('step') == '0'"

# --- e. a rank killed mid-save ------------------------------------------------------
CE=$T/ce
CEA=(--message 1MiB --heartbeat 10s --ckpt-dir "$CE" --ckpt-size 16MiB --ckpt-every-steps 2)
mpi 2 "$T/e1.log" "${CEA[@]}" --steps 4
check "kill-in-save: setup run to step 4 exits 0 (exit $RC, ${ELAPSED}s)" [ "$RC" -eq 0 ]
L=$T/e2.log
mpi 2 "$L" "${CEA[@]}" --steps 8 --restore --kill-in-save 6:1
check "kill-in-save: mpirun exits non-zero (exit $RC, ${ELAPSED}s)" [ "$RC" -ne 0 ]
check "kill-in-save: ... on its own, well before the 60 s timeout (${ELAPSED}s)" [ "$ELAPSED" -lt 30 ]
check "kill-in-save: mpirun reports rank 1 killed by signal 9" grep -q "rank 1 .*signal 9" "$L.err"
check "kill-in-save: steps 5 and 6 ran, no ckpt line for step 6" glt "$L" "steps() == [5, 6] and lines('ckpt') == []"
check "kill-in-save: step 6 dir exists with shards but no MANIFEST.json" \
	bash -c "[ -d '$(sd "$CE" 6)' ] && ls '$(sd "$CE" 6)'/shard-*.bin >/dev/null 2>&1 && [ ! -e '$(sd "$CE" 6)/MANIFEST.json' ]"
check "kill-in-save: rank 1's shard is short (half written)" \
	bash -c "[ \"\$(stat -c %s '$(sd "$CE" 6)/shard-00001.bin')\" -lt 8388608 ]"
# (a function: pgrep -f would match a bash -c whose command line holds the pattern)
no_rank_left() { ! pgrep -f -- "--ckpt-dir $CE " >/dev/null; }
check "kill-in-save: no rank of that job is left running" no_rank_left
L=$T/e3.log
mpi 2 "$L" "${CEA[@]}" --steps 5 --restore
check "kill-in-save: next restore exits 0 (exit $RC, ${ELAPSED}s)" [ "$RC" -eq 0 ]
check "kill-in-save: ckpt_skip step=6 reason=incomplete" glt "$L" "[(c['step'], c['reason']) for c in lines('ckpt_skip')] == [('6', 'incomplete')]"
check "kill-in-save: restores step 4 (tried=1), first step n=5" \
	glt "$L" "(first('restore').get('step'), first('restore').get('tried')) == ('4', '1') and first('ready').get('step') == '4' and steps() == [5]"

# --- f. retention ------------------------------------------------------------------
complete_steps() { # DIR -> space-separated steps of dirs with a MANIFEST.json
	local d out=
	for d in "$1"/step-*; do [ -f "$d/MANIFEST.json" ] && out="$out $((10#${d##*/step-}))"; done
	echo "${out# }"
}
for K in 2 3; do
	CF=$T/cf$K
	L=$T/f$K.log
	mpi 2 "$L" --message 1MiB --heartbeat 10s --ckpt-dir "$CF" --ckpt-size 8MiB --ckpt-every-steps 2 --steps 10 --ckpt-keep "$K"
	check "keep $K: run exits 0 (exit $RC, ${ELAPSED}s)" [ "$RC" -eq 0 ]
	if [ "$K" = 2 ]; then want="8 10"; else want="6 8 10"; fi
	got=$(complete_steps "$CF")
	check "keep $K: complete checkpoints left are steps $want (got: $got)" [ "$got" = "$want" ]
	check "keep $K: no other step dir is left" [ "$(ls -d "$CF"/step-* | wc -l)" -eq "$K" ]
	check "keep $K: ckpt_removed for each older one" \
		glt "$L" "sorted(int(c['step']) for c in lines('ckpt_removed')) == [s for s in (2, 4, 6, 8) if s < 10 - 2 * ($K - 1)]"
done

# --- g. the world check -------------------------------------------------------------
# Two separate single-rank processes, no mpirun: each is an MPI singleton.
SPIDS=()
for i in 0 1; do
	timeout -k 5 60 "$TRAIN" --message 1MiB --steps 3 --heartbeat 10s --expect-world 2 </dev/null >"$T/g$i.log" 2>"$T/g$i.log.err" &
	SPIDS+=($!)
	PIDS+=($!)
done
for i in 0 1; do
	wait "${SPIDS[$i]}"; rc=$?
	check "singleton $i: exits 5 (exit $rc)" [ "$rc" -eq 5 ]
	check "singleton $i: start world=1, then GLT1 error what=world, no step" \
		glt "$T/g$i.log" "first('start').get('world') == '1' and first('error').get('what') == 'world' and 'expected 2' in first('error').get('msg', '') and steps() == []"
done
L=$T/g2.log
mpi 2 "$L" --message 1MiB --steps 3 --heartbeat 10s --expect-world 2 --expect-hosts 1
check "one mpirun, --expect-world 2 --expect-hosts 1: exits 0 (exit $RC, ${ELAPSED}s)" [ "$RC" -eq 0 ]
check "one mpirun: no error line, 3 steps" glt "$L" "lines('error') == [] and steps() == [1, 2, 3]"
L=$T/g3.log
mpi 2 "$L" --message 1MiB --steps 3 --heartbeat 10s --expect-world 2 --expect-hosts 2
check "--expect-hosts 2 on one host: exits 5 (exit $RC, ${ELAPSED}s)" [ "$RC" -eq 5 ]
check "--expect-hosts 2: GLT1 error what=hosts, no step" \
	glt "$L" "first('error').get('what') == 'hosts' and 'expected 2' in first('error').get('msg', '') and steps() == []"
L=$T/g4.log
mpi 2 "$L" --message 1MiB --steps 3 --heartbeat 10s --expect-world 4
check "one mpirun of 2 with --expect-world 4: exits 5 (exit $RC, ${ELAPSED}s)" [ "$RC" -eq 5 ]
check "--expect-world 4: what=world" glt "$L" "first('error').get('what') == 'world'"

# --- h. the nccl backend ---------------------------------------------------------------
L=$T/h.log
if grep -qa ncclAllReduce "$TRAIN"; then NCCL_BUILT=1; else NCCL_BUILT=0; fi
GPUS=0
if command -v nvidia-smi >/dev/null; then GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU '); fi
if [ "$NCCL_BUILT" = 1 ] && [ "$GPUS" -gt 0 ]; then
	NP=$(( GPUS < 2 ? GPUS : 2 ))
	echo "nccl backend built and $GPUS GPU(s) visible: a short run on $NP rank(s)"
	mpi "$NP" "$L" --backend nccl --message 4MiB --steps 3 --heartbeat 10s
	check "nccl on a GPU: exits 0 (exit $RC, ${ELAPSED}s)" [ "$RC" -eq 0 ]
	check "nccl on a GPU: 3 steps, errors=0 checked=1" \
		glt "$L" "steps() == [1, 2, 3] and all(s['errors'] == '0' and s['checked'] == '1' for s in lines('step'))"
else
	mpi 2 "$L" --backend nccl --message 4MiB --steps 3 --heartbeat 10s
	check "nccl without a GPU: exits 3 (exit $RC, ${ELAPSED}s)" [ "$RC" -eq 3 ]
	if [ "$NCCL_BUILT" = 1 ]; then
		check "nccl (built): GLT1 error what=backend naming cudaGetDeviceCount" \
			glt "$L" "lines('error') != [] and all(e.get('what') == 'backend' and 'cudaGetDeviceCount' in e.get('msg', '') for e in lines('error'))"
	else
		check "nccl (not built): GLT1 error what=backend saying it is not built" \
			glt "$L" "first('error').get('what') == 'backend' and 'not built' in first('error').get('msg', '')"
	fi
	check "nccl without a GPU: no step ran" glt "$L" "steps() == []"
fi

# --- i. bad arguments ---------------------------------------------------------------------
badarg() { # DESCRIPTION FLAG-IN-MESSAGE ARGS...
	local what=$1 flag=$2 rc
	shift 2
	timeout -k 5 30 "$TRAIN" "$@" </dev/null >"$T/i.log" 2>"$T/i.err"; rc=$?
	check "$what: exits 2 (exit $rc)" [ "$rc" -eq 2 ]
	check "$what: the message names $flag" grep -q -- "$flag" "$T/i.err"
}
badarg "--message 3" "--message: must be a positive multiple of 4" --message 3
badarg "--steps x" "--steps: expected a whole number" --steps x
badarg "--kill-in-save 5" "--kill-in-save: expected STEP:RANK" --kill-in-save 5
badarg "--ckpt-hash md5" "--ckpt-hash: expected xxh3 or sha256" --ckpt-hash md5

# --- j. the scenario key checkpoint.hash, through the controller ---------------------
if [ -x "$GAUNTLET" ]; then
	cat > "$T/j.json" <<JSON
{
  "name": "ckpt-hash",
  "duration": "8s",
  "window": "1s",
  "hosts": { "me": { "local": true } },
  "workloads": {
    "training": { "launcher": "mpirun", "hosts": ["me:2"], "backend": "mpi", "binary": "$TRAIN",
                  "message": "1MiB", "compute": "25ms", "heartbeat": "200ms",
                  "launcher_args": ["--oversubscribe"],
                  "checkpoint": { "dir": "$T/cj", "every_steps": 10, "size": "8MiB", "hash": "sha256" } }
  },
  "phases": [ { "name": "warmup", "for": "4s" }, { "name": "steady", "for": "4s" } ],
  "targets": { "steady": { "training.steps": ">= 1", "training.step_time_s.p95": "<= 10" } }
}
JSON
	sed 's/"hash": "sha256"/"hash": "md5"/' "$T/j.json" > "$T/j-bad.json"
	timeout -k 5 30 "$GAUNTLET" validate "$T/j-bad.json" >"$T/j-bad.log" 2>&1; rc=$?
	check "scenario: checkpoint.hash md5 is refused (exit $rc), naming the key and the choices" \
		bash -c "[ $rc -eq 2 ] && grep -q 'checkpoint.hash: .md5. is not one of: xxh3, sha256' '$T/j-bad.log'"
	timeout -k 5 60 "$GAUNTLET" run "$T/j.json" --out "$T/j-out" >"$T/j.log" 2>&1; rc=$?
	check "scenario: the run with checkpoint.hash sha256 passes (exit $rc)" [ "$rc" -eq 0 ]
	check "scenario: it wrote manifests, each saying hash sha256" \
		bash -c "ls '$T'/cj/*/step-*/MANIFEST.json >/dev/null 2>&1 && ! grep -L '\"hash\":[[:space:]]*\"sha256\"' '$T'/cj/*/step-*/MANIFEST.json | grep -q ."
else
	part_skip "scenario checkpoint.hash" "no gauntlet binary at $GAUNTLET"
fi

finish
