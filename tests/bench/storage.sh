#!/usr/bin/env bash
# storage.sh - benchmark of the storage workload's I/O engine (loadgen/storage.c)
# against fio on the same files, sizes and patterns. Not a pass/fail test and
# not registered in ctest: it prints figures and ratios side by side, then a
# summary table (metric, measured, goal, met/missed). A missed goal is printed
# as missed; the exit status is 0 whenever every part ran.
#
#   (1) sequential 1 MiB direct writes: pattern checkpoint_write, engine sync,
#       1 thread, 1 file of FILE_SIZE. What the engine does per pass: open
#       the file O_CREAT|O_TRUNC (a new, unallocated file), pwrite it whole
#       in 1 MiB blocks, fsync, close, again. The peer doing the same: fio
#       rw=write bs=1M direct=1 ioengine=psync iodepth=1 numjobs=1
#       size=FILE_SIZE fallocate=none unlink_each_loop=1 fsync_on_close=1
#       (a new unallocated file each pass, fsync per file) (goal: >= 0.95).
#       For reference only, also fio overwriting one preallocated file with
#       no fsync (the plain rw=write time_based run): the figure a disk
#       gives when no blocks are allocated and nothing is made durable.
#   (2) sequential 1 MiB direct reads: pattern model_load, engine sync,
#       1 thread, 1 file; fio rw=read bs=1M direct=1 ioengine=psync
#       iodepth=1 numjobs=1 time_based (goal: >= 0.95)
#   (3) random 4 KiB direct reads at queue depth 16: pattern dataset_read,
#       engine aio, iodepth 16, 1 thread, 1 file; fio rw=randread bs=4k
#       direct=1 ioengine=libaio iodepth=16 numjobs=1 time_based, fio's
#       other settings left at their defaults (goal: >= 0.95)
#       The engine lays a dataset_read file out in blocks of the largest bs
#       the scenario can use: in 4 KiB direct writes that takes 8-20 s for
#       1 GiB here. A spike that never fires ("start": "1h") with "bs":
#       "1MiB" makes it lay the file out in 1 MiB blocks (1-2 s) and leaves
#       the measured reads exactly as they were (GL_BENCH_FAST_LAYOUT=0: no
#       spike, and give (3) a longer run). "verify" stays off here: with a
#       spike bs above bs the engine writes block headers every 1 MiB, and
#       4 KiB reads between them would fail verification.
#   In (2) and (3) both sides read a file written the same way: the engine
#   lays its file out with sequential direct writes and an fsync, so fio's
#   file is written first by a job doing the same (rw=write direct=1
#   end_fsync=1), not by fio's own buffered layout.
#
# gauntlet's figure: bytes moved in its steady windows / their seconds, read
# from run.db (window_metrics storage.write_bytes / storage.read_bytes,
# windows.start_ns/end_ns). Steady windows: complete ones, not the last one;
# for (1) not the first two (warm-up); for (2) and (3), which lay their file
# out first (unmeasured), only windows after the first one that read
# anything. fio's figure: jobs[].write/read.bw_bytes of its JSON (bytes over
# its runtime; its file layout is outside the runtime). Each side's CPU
# time per op is printed too (gauntlet: the whole process, sampled from /proc
# over the steady windows; fio: the job's usr_cpu + sys_cpu): the engine's
# own cost, which other I/O on a shared disk moves far less than the
# throughput. Each part runs gauntlet and fio alternately, REPS times, on
# fresh files, with the page cache dropped before each run when root; the
# figures are medians. On a disk shared with other work (a VM's virtual
# disk) single runs swing by 20-30%: read the I/O pressure lines, and raise
# GL_BENCH_REPS (each rep adds about 100 s) or point GL_BENCH_DISK_DIR at a
# quiet disk before reading a missed goal as the engine's.
#
# Environment:
#   GAUNTLET=path             the binary (default: build/gauntlet, /tmp/bs/gauntlet, /tmp/b/gauntlet)
#   GL_BENCH_DISK_DIR=/var/tmp  where the files go (a local disk: O_DIRECT, not tmpfs)
#   GL_BENCH_FILE_SIZE=1GiB   the file size, both sides
#   GL_BENCH_REPS=2           runs per side and part (median)
#   GL_BENCH_GL_S="20 14 14"  gauntlet run seconds for (1) (2) (3), layout included
#   GL_BENCH_FIO_S="12 10 10" fio runtime seconds for (1) (2) (3)
#   GL_BENCH_FIO_REF_S=5      runtime of the reference fio run of (1) (0: skip it)
#   GL_BENCH_FAST_LAYOUT=1    (3): lay the file out in 1 MiB blocks (see above)
#   GL_BENCH_PARTS="1 2 3"    the parts to run
#   GL_BENCH_KEEP=1           keep the temp dir (run stores, fio JSON, logs)
#
# Every process it starts is bounded in time and killed on exit (by pid);
# every file it writes is removed.
set -u

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
G=${GAUNTLET:-}
if [ -z "$G" ]; then
	for c in "$REPO/build/gauntlet" /tmp/bs/gauntlet /tmp/b/gauntlet; do
		if [ -x "$c" ]; then G=$c; break; fi
	done
fi
if [ -z "$G" ] || [ ! -x "$G" ]; then
	echo "bench: no gauntlet binary (build it with scripts/setup.sh, or set GAUNTLET)" >&2
	exit 2
fi
for c in fio python3 timeout; do
	command -v "$c" >/dev/null || { echo "bench: $c is needed" >&2; exit 2; }
done

DISK=${GL_BENCH_DISK_DIR:-/var/tmp}
FSIZE=${GL_BENCH_FILE_SIZE:-1GiB}
REPS=${GL_BENCH_REPS:-2}
read -r GS1 GS2 GS3 <<< "${GL_BENCH_GL_S:-20 14 14}"
read -r FS1 FS2 FS3 <<< "${GL_BENCH_FIO_S:-12 10 10}"
FREF=${GL_BENCH_FIO_REF_S:-5}
FAST_LAYOUT=${GL_BENCH_FAST_LAYOUT:-1}
PARTS=" ${GL_BENCH_PARTS:-1 2 3} "
want() { case "$PARTS" in *" $1 "*) return 0 ;; esac; return 1; }

W=$(mktemp -d /tmp/gl-bench-storage.XXXXXX)
D=
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null
	done
	[ -n "$D" ] && rm -rf "$D"
	if [ "${GL_BENCH_KEEP:-0}" = 1 ]; then echo "bench: kept $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

calc() { python3 -c "import sys; print($1)" "${@:2}"; }
bytes_of() { # SIZE like 1GiB, 512MiB, 4096
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
FB=$(bytes_of "$FSIZE") || exit 2
[ $((FB % 1048576)) -eq 0 ] || { echo "bench: GL_BENCH_FILE_SIZE must be a multiple of 1 MiB" >&2; exit 2; }

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
failed() { # WHAT LOG
	echo "bench: $1 failed (exit $RC); its output:" >&2
	tail -15 "$2" "$2.err" >&2
	exit 4
}
drop_caches() {
	sync
	[ "$(id -u)" = 0 ] && echo 3 > /proc/sys/vm/drop_caches 2>/dev/null
	return 0
}
if [ "$(id -u)" = 0 ] && echo 3 > /proc/sys/vm/drop_caches 2>/dev/null; then
	CACHE="dropped before each run"
else
	CACHE="NOT dropped (needs root and a writable /proc/sys/vm/drop_caches; direct I/O bypasses it anyway)"
fi
# other I/O on the machine skews every figure here: say how much there was
io_pressure() {
	if [ -r /proc/pressure/io ]; then
		awk '/^some/ { sub("avg10=", "", $2); sub("avg60=", "", $3); printf "I/O pressure (some) avg10 %s%% avg60 %s%%", $2, $3 }' /proc/pressure/io
	else
		printf 'I/O pressure: n/a'
	fi
	printf ', load average %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
}
median() { python3 -c "import statistics, sys; print(statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }

SUMMARY=()
row() { SUMMARY+=("$1|$2|$3|$4"); }
verdict() { if [ "$(calc "$1")" = True ]; then echo met; else echo MISSED; fi; }

mkdir -p "$DISK" && D=$(mktemp -d "$DISK/gl-bench-storage.XXXXXX") || {
	echo "bench: cannot create a directory under $DISK" >&2; exit 4; }
FST=$(stat -f -c %T "$D" 2>/dev/null)

echo "storage engine benchmark (gauntlet vs fio)"
echo "  binary:    $G"
echo "  fio:       $(fio --version 2>/dev/null)"
echo "  host:      $(uname -n), $(nproc) CPUs; $(io_pressure)"
echo "  directory: $D ($FST on $(df --output=source "$D" 2>/dev/null | tail -1)); page cache $CACHE"
echo "  file:      1 file of $FSIZE ($FB bytes) per side; $REPS run(s) per side and part, median"
echo "  temp dir:  $W"
echo "  figures:   MB/s = 1e6 bytes/s; latency: gauntlet's storage.op_latency_ms mean, fio's clat mean;"
echo "             CPU per op: gauntlet's whole process over its steady windows, fio's job (usr + sys)"
case "$FST" in tmpfs|ramfs) echo "  WARNING: $D is in memory ($FST): no O_DIRECT, these are not disk figures (set GL_BENCH_DISK_DIR)" ;; esac
echo

# scenario FILE SECONDS STORAGE-JSON-FIELDS
scenario() {
	cat > "$1" <<JSON
{
  "name": "bench-storage",
  "duration": "${2}s",
  "window": "1s",
  "hosts": { "me": { "local": true } },
  "workloads": { "storage": { "path": "$D", "allowed_roots": ["$D"], "threads": 1, "files": 1,
    "direct": true, "file_size": "$FB", $3 } },
  "phases": [ { "name": "steady", "for": "${2}s" } ],
  "targets": { "steady": { "storage.write_gbps": ">= 0", "storage.read_gbps": ">= 0" } }
}
JSON
}

# gl_run NAME SECONDS COUNTER BS STORAGE-JSON-FIELDS: one gauntlet run; appends
# "bytes_per_s windows op_latency_mean_ms errors cpu_us_per_op" to $W/NAME.txt.
# The process's CPU time (all threads: I/O thread, event loop, store) is
# sampled from /proc while it runs and taken over the steady windows.
gl_run() {
	local name=$1 secs=$2 counter=$3 bs=$4 fields=$5 out gpid limit t0 st
	out=$W/$name-$rep
	scenario "$W/$name.json" "$secs" "$fields"
	drop_caches
	"$G" run "$W/$name.json" --out "$out" </dev/null >"$out.log" 2>"$out.log.err" &
	gpid=$!
	PIDS+=("$gpid")
	limit=$((secs + 60))
	t0=${EPOCHREALTIME/[.,]/}
	: > "$out.cpu"
	while kill -0 "$gpid" 2>/dev/null; do
		# "wall_us utime+stime_ticks" (fields 14, 15 of stat; comm has no spaces)
		if read -r -a st < "/proc/$gpid/stat" 2>/dev/null; then
			echo "${EPOCHREALTIME/[.,]/} $(( st[13] + st[14] ))" >> "$out.cpu"
		fi
		if [ $(( ${EPOCHREALTIME/[.,]/} - t0 )) -gt $((limit * 1000000)) ]; then
			echo "bench: gauntlet $name ran past $limit s; stopping it" >&2
			kill "$gpid" 2>/dev/null; sleep 5; kill -9 "$gpid" 2>/dev/null
		fi
		sleep 0.2
	done
	wait "$gpid"
	RC=$?
	if [ "$RC" -gt 1 ] || [ ! -s "$out/report.json" ]; then failed "gauntlet $name run $rep" "$out.log"; fi
	python3 - "$out" "$counter" "$bs" "$(getconf CLK_TCK)" >> "$W/$name.txt" <<'PY' || { echo "bench: cannot read $out/run.db" >&2; exit 4; }
import json, sqlite3, sys
out, counter, bs, hz = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
c = sqlite3.connect(out + "/run.db")
rows = c.execute("""select w.idx, w.end_ns - w.start_ns, w.complete,
    coalesce((select counter from window_metrics m where m.idx = w.idx and m.name = ?), 0)
    from windows w order by w.idx""", (counter,)).fetchall()
rows = [r for r in rows if r[2]][:-1]          # complete ones, not the last
if counter == "storage.write_bytes":
    rows = rows[2:]                             # warm-up
else:
    first = next((i for i, r in enumerate(rows) if r[3] > 0), None)
    rows = [] if first is None else rows[first + 1:]   # after the layout and the first read window
if len(rows) < 3:
    sys.exit("bench: only %d steady windows in %s" % (len(rows), out))
r = json.load(open(out + "/report.json"))["metrics"]["storage"]
errs = c.execute("select coalesce(sum(counter), 0) from window_metrics where name = 'storage.errors'").fetchone()[0]
nbytes = sum(x[3] for x in rows)
# CPU: the samples interpolated at the first steady window's start and the
# last one's end (window times are elapsed ns; an event row maps them to wall)
cpu_us = "nan"
off = c.execute("select wall_ns - elapsed_ns from events where elapsed_ns > 0 order by seq limit 1").fetchone()
samples = [tuple(map(int, l.split())) for l in open(out + ".cpu") if len(l.split()) == 2]
def at(t_us):
    for (a, ca), (b, cb) in zip(samples, samples[1:]):
        if a <= t_us <= b:
            return ca + (cb - ca) * (t_us - a) / max(1, b - a)
    return None
if off and len(samples) >= 2:
    w0 = (off[0] + c.execute("select start_ns from windows where idx = ?", (rows[0][0],)).fetchone()[0]) / 1e3
    w1 = (off[0] + c.execute("select end_ns from windows where idx = ?", (rows[-1][0],)).fetchone()[0]) / 1e3
    c0, c1 = at(w0), at(w1)
    if c0 is not None and c1 is not None and nbytes:
        cpu_us = "%.2f" % ((c1 - c0) / hz * 1e6 / (nbytes / bs))
print(nbytes / (sum(x[1] for x in rows) / 1e9), len(rows),
      r["op_latency_ms"]["mean"] if r.get("op_latency_ms") else "nan", errs, cpu_us)
PY
	[ "${GL_BENCH_KEEP:-0}" = 1 ] || rm -rf "$out" "$out.cpu"
	if ls -d "$D"/gauntlet-storage-* >/dev/null 2>&1; then
		echo "bench: gauntlet left its directory behind in $D" >&2
		exit 4
	fi
}

# fio_run NAME DIR(read|write) LAYOUT_BS ARGS...: one fio run in a fresh
# directory; appends "bytes_per_s runtime_s clat_mean_ms errors
# cpu_us_per_op" to $W/NAME.txt (CPU: the job's usr_cpu + sys_cpu over its
# runtime). With LAYOUT_BS, the file is first written by a job of its own
# the way the engine lays its files out (sequential direct writes of
# LAYOUT_BS, fsync at the end), and the measured job (stonewall) reads it:
# fio's own layout writes buffered, and on a VM's virtual disk a file
# written that way reads measurably faster than one written with O_DIRECT.
fio_run() {
	local name=$1 dir=$2 lay=$3 out
	shift 3
	out=$W/$name-$rep.json
	rm -rf "$D/fio"; mkdir -p "$D/fio"
	drop_caches
	if [ -n "$lay" ]; then
		run 180 "$out" fio --output-format=json --filename="$D/fio/$name.dat" --size="$FB" \
			--name=layout --rw=write --bs="$lay" --direct=1 --ioengine=psync --end_fsync=1 \
			--name="$name" --stonewall "$@"
	else
		run 180 "$out" fio --output-format=json --name="$name" --directory="$D/fio" "$@"
	fi
	[ "$RC" -eq 0 ] || failed "fio $name run $rep" "$out"
	python3 - "$out" "$dir" "$name" >> "$W/$name.txt" <<'PY' || { echo "bench: cannot read fio's JSON ($out)" >&2; exit 4; }
import json, sys
jobs = [j for j in json.load(open(sys.argv[1]))["jobs"] if j["jobname"] == sys.argv[3]]
d = sys.argv[2]
bw = sum(j[d]["bw_bytes"] for j in jobs)
rt = max(j[d]["runtime"] for j in jobs) / 1e3
ios = sum(j[d]["total_ios"] for j in jobs) or 1
clat = sum(j[d]["clat_ns"]["mean"] * j[d]["total_ios"] for j in jobs) / ios / 1e6
cpu = sum((j["usr_cpu"] + j["sys_cpu"]) / 100 * j[d]["runtime"] / 1e3 for j in jobs)
print(bw, rt, clat, sum(j["error"] for j in jobs), "%.2f" % (cpu * 1e6 / ios))
PY
	rm -rf "$D/fio"
}

# col FILE N: the median of column N (1-based) of a result file
col() { median $(awk -v n="$2" '{print $n}' "$1"); }
# show FILE WHO UNIT2: the runs of one side (UNIT2 names column 2)
show() {
	echo "  per run, $2:"
	awk -v u="$3" '{ printf "    %10.1f MB/s  over %s %-16s latency mean %.3f ms  CPU %s us/op  errors %s\n", $1 / 1e6, $2, u, $3, $5, $4 }' "$1"
}
gbps() { calc 'round(float(sys.argv[1]) / 1e9, 3)' "$1"; }
ratio() { calc 'round(float(sys.argv[1]) / float(sys.argv[2]), 3)' "$1" "$2"; }
# side_by_side TAG METRIC GL_NAME FIO_NAME: medians, ratio, a summary row
side_by_side() {
	local tag=$1 metric=$2 gn=$3 fn=$4 g f gl fl r
	g=$(col "$W/$gn.txt" 1); f=$(col "$W/$fn.txt" 1)
	gl=$(col "$W/$gn.txt" 3); fl=$(col "$W/$fn.txt" 3)
	r=$(ratio "$g" "$f")
	printf '  %-28s %9.1f MB/s %9.1f MB/s %8s\n' \
		"median" "$(calc 'float(sys.argv[1]) / 1e6' "$g")" "$(calc 'float(sys.argv[1]) / 1e6' "$f")" "$r"
	printf '  %-28s %11.3f ms %11.3f ms\n' "latency mean (op / clat)" "$gl" "$fl"
	printf '  %-28s %11.2f us %11.2f us\n' "CPU per op" "$(col "$W/$gn.txt" 5)" "$(col "$W/$fn.txt" 5)"
	if [ -n "$metric" ]; then
		row "$tag $metric" "$r ($(gbps "$g") / $(gbps "$f") GB/s)" ">= 0.95" "$(verdict "$r >= 0.95")"
	fi
}
header() { printf '  %-28s %14s %14s %8s\n' "" gauntlet fio ratio; }

# ---- (1) sequential 1 MiB direct writes --------------------------------------------
if want 1; then
echo "== (1) sequential 1 MiB direct writes, 1 thread / 1 job, 1 file of $FSIZE =="
echo "  gauntlet: checkpoint_write, engine sync (pwrite), bs 1MiB, direct; each pass a new file"
echo "            (O_TRUNC), written whole, fsync, close; ${GS1} s run, 1 s windows"
echo "  fio (the peer, same thing): rw=write bs=1M direct=1 ioengine=psync iodepth=1 numjobs=1 size=$FB"
echo "            fallocate=none unlink_each_loop=1 fsync_on_close=1 loops=100000 runtime=${FS1} (new file"
echo "            each pass, fsync per file)"
[ "$FREF" -gt 0 ] && echo "  fio (reference only): rw=write bs=1M direct=1 ioengine=psync iodepth=1 numjobs=1 size=$FB" \
	"time_based runtime=${FREF} (overwrites one preallocated file, no fsync)"
: > "$W/gl-write.txt"; : > "$W/fio-write.txt"; : > "$W/fio-write-ref.txt"
for rep in $(seq "$REPS"); do
	gl_run gl-write "$GS1" storage.write_bytes 1048576 '"pattern": "checkpoint_write", "engine": "sync", "bs": "1MiB"'
	fio_run fio-write write "" --rw=write --bs=1M --direct=1 --ioengine=psync --iodepth=1 --numjobs=1 \
		--size="$FB" --fallocate=none --unlink_each_loop=1 --fsync_on_close=1 --loops=100000 --runtime="$FS1"
	if [ "$FREF" -gt 0 ]; then
		fio_run fio-write-ref write "" --rw=write --bs=1M --direct=1 --ioengine=psync --iodepth=1 --numjobs=1 \
			--size="$FB" --time_based --runtime="$FREF"
	fi
done
show "$W/gl-write.txt" "gauntlet" "steady windows"
show "$W/fio-write.txt" "fio peer" "s of runtime"
[ "$FREF" -gt 0 ] && show "$W/fio-write-ref.txt" "fio reference (overwrite, no fsync)" "s of runtime"
header
side_by_side "(1)" "seq 1MiB direct write vs fio (new file+fsync)" gl-write fio-write
if [ "$FREF" -gt 0 ]; then
	printf '  %-28s' "vs fio overwrite, no fsync"
	g=$(col "$W/gl-write.txt" 1); f=$(col "$W/fio-write-ref.txt" 1)
	rr=$(ratio "$g" "$f")
	printf ' %9.1f MB/s %9.1f MB/s %8s   (reference, no goal: not the same work)\n' \
		"$(calc 'float(sys.argv[1]) / 1e6' "$g")" "$(calc 'float(sys.argv[1]) / 1e6' "$f")" "$rr"
	row "(1ref) same vs fio overwrite, no fsync" "$rr ($(gbps "$g") / $(gbps "$f") GB/s)" "info" "-"
fi
echo
fi

# ---- (2) sequential 1 MiB direct reads -------------------------------------------------
if want 2; then
echo "== (2) sequential 1 MiB direct reads, 1 thread / 1 job, 1 file of $FSIZE =="
echo "  gauntlet: model_load, engine sync (pread), bs 1MiB, direct; ${GS2} s run (file laid out first, unmeasured)"
echo "  fio: rw=read bs=1M direct=1 ioengine=psync iodepth=1 numjobs=1 size=$FB time_based runtime=${FS2},"
echo "       on a file a job before it wrote as gauntlet lays its file out (rw=write bs=1M direct=1 end_fsync=1)"
: > "$W/gl-read.txt"; : > "$W/fio-read.txt"
for rep in $(seq "$REPS"); do
	gl_run gl-read "$GS2" storage.read_bytes 1048576 '"pattern": "model_load", "engine": "sync", "bs": "1MiB"'
	fio_run fio-read read 1M --rw=read --bs=1M --direct=1 --ioengine=psync --iodepth=1 --numjobs=1 \
		--size="$FB" --time_based --runtime="$FS2"
done
show "$W/gl-read.txt" "gauntlet" "steady windows"
show "$W/fio-read.txt" "fio" "s of runtime"
header
side_by_side "(2)" "seq 1MiB direct read vs fio" gl-read fio-read
echo
fi

# ---- (3) random 4 KiB direct reads, queue depth 16 ------------------------------------
if want 3; then
echo "== (3) random 4 KiB direct reads, queue depth 16, 1 thread / 1 job, 1 file of $FSIZE =="
echo "  gauntlet: dataset_read, engine aio, iodepth 16, bs 4KiB, direct; ${GS3} s run (file laid out first, unmeasured,"
RSPIKE=
RLAY=4k
if [ "$FAST_LAYOUT" = 1 ]; then
	RLAY=1M
	RSPIKE=', "spikes": [ { "every": "1h", "for": "1s", "start": "1h", "bs": "1MiB" } ]'
	echo "            in 1 MiB blocks: a spike that never fires sets the largest bs)"
else
	echo "            in 4 KiB blocks)"
fi
echo "  fio: rw=randread bs=4k direct=1 ioengine=libaio iodepth=16 numjobs=1 size=$FB time_based runtime=${FS3},"
echo "       on a file a job before it wrote as gauntlet lays its file out (rw=write bs=$RLAY direct=1 end_fsync=1)"
: > "$W/gl-rand.txt"; : > "$W/fio-rand.txt"
for rep in $(seq "$REPS"); do
	gl_run gl-rand "$GS3" storage.read_bytes 4096 '"pattern": "dataset_read", "engine": "aio", "iodepth": 16, "bs": "4KiB"'"$RSPIKE"
	fio_run fio-rand read "$RLAY" --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=16 --numjobs=1 \
		--size="$FB" --time_based --runtime="$FS3"
done
show "$W/gl-rand.txt" "gauntlet" "steady windows"
show "$W/fio-rand.txt" "fio" "s of runtime"
header
side_by_side "(3)" "rand 4KiB QD16 direct read vs fio" gl-rand fio-rand
g=$(col "$W/gl-rand.txt" 1); f=$(col "$W/fio-rand.txt" 1)
printf '  %-28s %14.0f %14.0f\n' "IOPS" "$(calc 'float(sys.argv[1]) / 4096' "$g")" "$(calc 'float(sys.argv[1]) / 4096' "$f")"
echo "  (gauntlet's op latency is measured from io_submit to the io_getevents return that reaps it;"
echo "   fio's clat from submission to completion)"
echo
fi

# ---- summary ---------------------------------------------------------------------
echo "== summary ==   (at the end: $(io_pressure))"
printf '  %-50s %-30s %-8s %s\n' metric measured goal verdict
for r in "${SUMMARY[@]}"; do
	IFS='|' read -r m v g d <<< "$r"
	printf '  %-50s %-30s %-8s %s\n' "$m" "$v" "$g" "$d"
done
exit 0
