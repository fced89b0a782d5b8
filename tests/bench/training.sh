#!/usr/bin/env bash
# training.sh - benchmark of gauntlet-train (loadgen/train) against bare
# baselines on this machine. Not a pass/fail test and not registered in
# ctest: it prints figures and ratios side by side, then a summary table
# (metric, measured, goal, met/missed). A missed goal is printed as missed;
# the exit status is 0 whenever every part ran.
#
#   (1) all-reduce busbw of the mpi backend (median over steps of the printed
#       busbw, --compute 0, --check-every 0 so no fill or check between
#       steps) against a bare MPI_Allreduce loop (tests/bench/allreduce_bare.c,
#       built here with mpicc) of the same message size and rank count,
#       timed with the same clock and the same busbw formula
#       (goal: ratio >= 0.95)
#   (2) checkpoint write GB/s: one checkpoint of --ckpt-size S over NP ranks
#       (save_gbps, the slowest rank's own rate, and the aggregate
#       bytes / save_s) against fio writing the same bytes the same way:
#       NP sequential writers of S/NP each, bs 4MiB, buffered, fsync at the
#       end (goal: aggregate ratio >= 0.95, median of GL_BENCH_REPS runs)
#
# The first GL_BENCH_WARMUP steps / iterations of each all-reduce run are
# left out of its median (the same number on both sides). Checkpoint and fio
# runs alternate, each on fresh files, with the page cache dropped before
# each one when running as root and then GL_BENCH_SETTLE seconds of rest
# before either starts: on a VM whose balloon reports free memory to the
# host (virtio free page reporting), memory freed by the drop is taken back
# by the host within seconds and the next writer pays a host fault per page
# it fills, so a writer that starts at once (fio, ~0.1 s) and one that
# starts a second later (mpirun) would not see the same memory; the figures
# are medians over the runs.
#
# Environment:
#   GAUNTLET_TRAIN=path   the binary (default: next to $GAUNTLET, build/, /tmp/b)
#   GL_BENCH_NP=2         ranks for (1)
#   GL_BENCH_SIZES="16MiB 64MiB"  all-reduce message sizes for (1)
#   GL_BENCH_STEPS=40     timed steps per all-reduce run; GL_BENCH_WARMUP=3
#   GL_BENCH_CKPT_NP=2    ranks (and fio jobs) for (2)
#   GL_BENCH_CKPT_SIZE=2GiB  checkpoint size for (2), split over the ranks
#   GL_BENCH_REPS=5       checkpoint runs and fio runs for (2)
#   GL_BENCH_CKPT_HASH=xxh3  gauntlet-train's --ckpt-hash for (2) (xxh3 or sha256)
#   GL_BENCH_SETTLE=5     seconds of rest after each cache drop, before (2)'s runs
#   GL_BENCH_DISK_DIR=/var/tmp  where (2) writes (a local disk, not tmpfs)
#   GL_BENCH_PARTS="1 2"  the parts to run
#   GL_BENCH_KEEP=1       keep the temp dir (logs) and print its path
#
# Every process it starts is bounded in time and killed on exit (by pid);
# the files it writes are removed.
set -u

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TR=${GAUNTLET_TRAIN:-}
if [ -z "$TR" ]; then
	for c in ${GAUNTLET:+"$(dirname "$GAUNTLET")/gauntlet-train"} "$REPO/build/gauntlet-train" /tmp/b/gauntlet-train; do
		if [ -x "$c" ]; then TR=$c; break; fi
	done
fi
if [ -z "$TR" ] || [ ! -x "$TR" ]; then
	echo "bench: no gauntlet-train binary (built when OpenMPI is found; set GAUNTLET_TRAIN)" >&2
	exit 2
fi
for c in mpirun mpicc python3 timeout; do
	command -v "$c" >/dev/null || { echo "bench: $c is needed" >&2; exit 2; }
done
# As root OpenMPI refuses to start without these; harmless otherwise.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

NP=${GL_BENCH_NP:-2}
SIZES=${GL_BENCH_SIZES:-16MiB 64MiB}
STEPS=${GL_BENCH_STEPS:-40}
WARM=${GL_BENCH_WARMUP:-3}
CNP=${GL_BENCH_CKPT_NP:-2}
CSIZE=${GL_BENCH_CKPT_SIZE:-2GiB}
REPS=${GL_BENCH_REPS:-5}
CHASH=${GL_BENCH_CKPT_HASH:-xxh3}
SETTLE=${GL_BENCH_SETTLE:-5}
DISK=${GL_BENCH_DISK_DIR:-/var/tmp}
PARTS=" ${GL_BENCH_PARTS:-1 2} "
want() { case "$PARTS" in *" $1 "*) return 0 ;; esac; return 1; }

W=$(mktemp -d /tmp/gl-bench-train.XXXXXX)
D=
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do
		for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null
	done
	[ -n "$D" ] && rm -rf "$D"
	if [ "${GL_BENCH_KEEP:-0}" = 1 ]; then echo "bench: kept $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

calc() { python3 -c "import sys; print($1)" "${@:2}"; }
bytes_of() { # SIZE like 16MiB, 2GiB, 4096
	python3 - "$1" <<'PY'
import re, sys
m = re.fullmatch(r"\s*(\d+)\s*([KMGT]?)(i?B?)\s*", sys.argv[1], re.I)
if not m:
    sys.exit("bench: cannot read size '%s'" % sys.argv[1])
n, u, i = int(m.group(1)), m.group(2).upper(), m.group(3)
base = 1024 if (i.lower().startswith("i") or (u and not i)) else 1000
print(n * base ** " KMGT".index(u or " "))
PY
}
# run LIMIT_S LOG CMD...: in the background (killed on exit), bounded; RC
run() {
	local limit=$1 log=$2
	shift 2
	timeout -k 5 "$limit" "$@" </dev/null >"$log" 2>"$log.err" &
	local pid=$!
	PIDS+=("$pid")
	wait "$pid"
	RC=$?
}
mpi() { # NP LIMIT_S LOG PROGRAM ARGS...
	local np=$1 limit=$2 log=$3
	shift 3
	run "$limit" "$log" mpirun -np "$np" --oversubscribe --bind-to none "$@"
}
failed() { # WHAT LOG
	echo "bench: $1 failed (exit $RC); its output:" >&2
	tail -15 "$2" "$2.err" >&2
	exit 4
}
drop_caches() {
	sync
	[ "$(id -u)" = 0 ] && echo 3 > /proc/sys/vm/drop_caches 2>/dev/null
	sleep "$SETTLE"
	return 0
}
if [ "$(id -u)" = 0 ] && echo 3 > /proc/sys/vm/drop_caches 2>/dev/null; then
	CACHE="dropped before each checkpoint and fio run, then ${SETTLE}s of rest"
else
	CACHE="NOT dropped (needs root and a writable /proc/sys/vm/drop_caches)"
fi

SUMMARY=()
row() { SUMMARY+=("$1|$2|$3|$4"); }
verdict() { if [ "$(calc "$1")" = True ]; then echo met; else echo MISSED; fi; }

echo "gauntlet-train benchmark"
echo "  binary:   $TR"
echo "  mpi:      $(mpirun --version 2>/dev/null | head -1)"
echo "  host:     $(uname -n), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  temp dir: $W"
echo

# ---- (1) all-reduce busbw versus a bare MPI_Allreduce loop -----------------------
if want 1; then
echo "== (1) all-reduce busbw, mpi backend, np $NP, median over $STEPS steps after $WARM warm-up ones =="
if ! mpicc -O2 -o "$W/allreduce_bare" "$REPO/tests/bench/allreduce_bare.c" > "$W/mpicc.log" 2>&1; then
	echo "bench: mpicc could not build tests/bench/allreduce_bare.c:" >&2
	cat "$W/mpicc.log" >&2
	exit 4
fi
printf '  %-8s %16s %16s %14s %14s %8s\n' message gauntlet-busbw bare-busbw gauntlet-comm bare-comm ratio
for S in $SIZES; do
	B=$(bytes_of "$S") || exit 2
	mpi "$NP" 300 "$W/bare-$S.log" "$W/allreduce_bare" "$B" "$STEPS" "$WARM"
	[ "$RC" -eq 0 ] || failed "bare MPI_Allreduce loop, $S" "$W/bare-$S.log"
	mpi "$NP" 300 "$W/train-$S.log" "$TR" --message "$B" --steps $((STEPS + WARM)) --compute 0 \
		--check-every 0 --heartbeat 1h
	[ "$RC" -eq 0 ] || failed "gauntlet-train, $S" "$W/train-$S.log"
	read -r gbus gcomm bbus bcomm < <(python3 - "$W/train-$S.log" "$W/bare-$S.log" "$WARM" "$STEPS" <<'PY'
import statistics, sys
def kv(line):
    return dict(x.split("=", 1) for x in line.split()[2:] if "=" in x)
steps = [kv(l) for l in open(sys.argv[1]) if l.startswith("GLT1 step ")]
warm, want = int(sys.argv[3]), int(sys.argv[4])
timed = [s for s in steps if int(s["n"]) > warm]
if len(timed) != want:
    sys.exit("bench: gauntlet-train printed %d timed steps, expected %d" % (len(timed), want))
bare = [l.split() for l in open(sys.argv[2]) if l.startswith("BARE ")]
b = dict(x.split("=", 1) for x in bare[0][1:])
print(statistics.median(float(s["busbw"]) for s in timed),
      statistics.median(float(s["comm_s"]) for s in timed), b["busbw"], b["comm_s"])
PY
) || { echo "bench: could not read the all-reduce results for $S" >&2; exit 4; }
	ratio=$(calc 'round(float(sys.argv[1]) / float(sys.argv[2]), 3)' "$gbus" "$bbus")
	printf '  %-8s %11.3f GB/s %11.3f GB/s %12.6f s %12.6f s %8s\n' "$S" "$gbus" "$bbus" "$gcomm" "$bcomm" "$ratio"
	row "(1) busbw np $NP $S vs bare MPI_Allreduce" "$ratio ($(printf '%.3f / %.3f' "$gbus" "$bbus") GB/s)" ">= 0.95" \
		"$(verdict "$ratio >= 0.95")"
done
echo "  (busbw = algbw * 2(n-1)/n, algbw = message bytes / 1e9 / seconds of one all-reduce on rank 0;"
echo "   gauntlet-train: its printed per-step busbw; bare: the same formula over each MPI_Allreduce call)"
echo
fi

# ---- (2) checkpoint write GB/s versus fio ------------------------------------------
if want 2; then
CB=$(bytes_of "$CSIZE") || exit 2
PER=$(( (CB + CNP - 1) / CNP ))
mkdir -p "$DISK" && D=$(mktemp -d "$DISK/gl-bench-ckpt.XXXXXX") || { echo "bench: cannot create a directory under $DISK" >&2; exit 4; }
FST=$(stat -f -c %T "$D" 2>/dev/null)
echo "== (2) checkpoint write, $CSIZE over $CNP ranks ($PER bytes each), --ckpt-hash $CHASH, $REPS runs each, median =="
echo "  directory: $D ($FST on $(df --output=source "$D" 2>/dev/null | tail -1)); page cache $CACHE"
case "$FST" in tmpfs|ramfs) echo "  WARNING: $D is in memory ($FST): these figures are not disk figures (set GL_BENCH_DISK_DIR)" ;; esac
HAVE_FIO=0
if command -v fio >/dev/null; then
	HAVE_FIO=1
	echo "  fio: $(fio --version 2>/dev/null), $CNP jobs x $PER bytes, rw=write bs=4MiB ioengine=psync, buffered, end_fsync=1"
else
	echo "  fio is NOT installed (apt-get install fio): gauntlet-train figures only, no ratio"
fi
: > "$W/ckpt.txt"
: > "$W/fio.txt"
for rep in $(seq "$REPS"); do
	rm -rf "$D/ckpt"
	drop_caches
	mpi "$CNP" 600 "$W/ckpt-$rep.log" "$TR" --message 4KiB --steps 1 --check-every 0 --heartbeat 1h \
		--ckpt-dir "$D/ckpt" --ckpt-size "$CB" --ckpt-every-steps 1 --ckpt-hash "$CHASH"
	[ "$RC" -eq 0 ] || failed "gauntlet-train checkpoint run $rep" "$W/ckpt-$rep.log"
	python3 - "$W/ckpt-$rep.log" >> "$W/ckpt.txt" <<'PY' || { echo "bench: no ckpt line in run $rep" >&2; exit 4; }
import sys
c = [dict(x.split("=", 1) for x in l.split()[2:] if "=" in x) for l in open(sys.argv[1]) if l.startswith("GLT1 ckpt ")]
if not c:
    sys.exit(1)
c = c[0]
print(float(c["save_gbps"]), int(c["bytes"]) / 1e9 / float(c["save_s"]), c["save_s"], c["bytes"])
PY
	rm -rf "$D/ckpt"
	if [ "$HAVE_FIO" = 1 ]; then
		rm -rf "$D/fio"; mkdir -p "$D/fio"
		drop_caches
		run 600 "$W/fio-$rep.json" fio --name=ckpt --directory="$D/fio" --rw=write --bs=4M --size="$PER" \
			--numjobs="$CNP" --ioengine=psync --end_fsync=1 --output-format=json
		[ "$RC" -eq 0 ] || failed "fio run $rep" "$W/fio-$rep.json"
		# per job: its bytes over its own runtime (end_fsync included); the
		# aggregate: all bytes over the longest job, as bytes / save_s above
		python3 - "$W/fio-$rep.json" >> "$W/fio.txt" <<'PY' || { echo "bench: cannot read fio's JSON (run $rep)" >&2; exit 4; }
import json, sys
jobs = json.load(open(sys.argv[1]))["jobs"]
per = [j["write"]["io_bytes"] / 1e9 / (j["write"]["runtime"] / 1e3) for j in jobs]
total = sum(j["write"]["io_bytes"] for j in jobs)
longest = max(j["write"]["runtime"] for j in jobs) / 1e3
print(min(per), total / 1e9 / longest, longest, total)
PY
		rm -rf "$D/fio"
	fi
done
read -r cmin cagg csave < <(python3 - "$W/ckpt.txt" <<'PY'
import statistics, sys
r = [l.split() for l in open(sys.argv[1]) if l.strip()]
print(statistics.median(float(x[0]) for x in r), statistics.median(float(x[1]) for x in r),
      statistics.median(float(x[2]) for x in r))
PY
)
echo "  per run, gauntlet-train (min-rank GB/s, aggregate GB/s, save_s, bytes), alternating with fio's below:"
sed 's/^/    /' "$W/ckpt.txt"
if [ "$HAVE_FIO" = 1 ]; then
	echo "  per run, fio (min-job GB/s, aggregate GB/s, longest job s, bytes):"
	sed 's/^/    /' "$W/fio.txt"
	read -r fmin fagg fsec < <(python3 - "$W/fio.txt" <<'PY'
import statistics, sys
r = [l.split() for l in open(sys.argv[1]) if l.strip()]
print(statistics.median(float(x[0]) for x in r), statistics.median(float(x[1]) for x in r),
      statistics.median(float(x[2]) for x in r))
PY
)
fi
printf '  %-34s %14s %14s %8s\n' "" gauntlet-train fio ratio
if [ "$HAVE_FIO" = 1 ]; then
	ragg=$(calc 'round(float(sys.argv[1]) / float(sys.argv[2]), 3)' "$cagg" "$fagg")
	rmin=$(calc 'round(float(sys.argv[1]) / float(sys.argv[2]), 3)' "$cmin" "$fmin")
	printf '  %-34s %9.3f GB/s %9.3f GB/s %8s\n' "aggregate (bytes / slowest rank)" "$cagg" "$fagg" "$ragg"
	printf '  %-34s %9.3f GB/s %9.3f GB/s %8s\n' "per rank, slowest (save_gbps)" "$cmin" "$fmin" "$rmin"
	printf '  %-34s %11.3f s %11.3f s\n' "seconds (slowest rank / job)" "$csave" "$fsec"
	row "(2) ckpt write $CSIZE np $CNP $CHASH vs fio (aggregate)" "$ragg ($(printf '%.3f / %.3f' "$cagg" "$fagg") GB/s)" ">= 0.95" \
		"$(verdict "$ragg >= 0.95")"
else
	printf '  %-34s %9.3f GB/s %14s\n' "aggregate (bytes / slowest rank)" "$cagg" "no fio"
	printf '  %-34s %9.3f GB/s %14s\n' "per rank, slowest (save_gbps)" "$cmin" "no fio"
	row "(2) ckpt write $CSIZE np $CNP $CHASH vs fio (aggregate)" "$(printf '%.3f' "$cagg") GB/s, no fio" ">= 0.95" "not run"
fi
echo "  (gauntlet-train writes each shard while hashing every byte ($CHASH hash list, docs/training.md) and fsyncs it; fio writes"
echo "   the same bytes per job with no hashing; both buffered, both timed through the final fsync)"
echo
fi

# ---- summary ---------------------------------------------------------------------
echo "== summary =="
printf '  %-46s %-32s %-8s %s\n' metric measured goal verdict
for r in "${SUMMARY[@]}"; do
	IFS='|' read -r m v g d <<< "$r"
	printf '  %-46s %-32s %-8s %s\n' "$m" "$v" "$g" "$d"
done
exit 0
