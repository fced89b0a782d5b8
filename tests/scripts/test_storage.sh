#!/bin/bash
# test_storage.sh - the storage workload on real files:
#   1. each pattern (checkpoint_write, model_load, dataset_read, mixed) with
#      "limit": the bytes moved are exactly the limit, every block read back
#      is verified, nothing is left behind;
#   2. a block corrupted behind the engine's back is caught by verify;
#   3. a small tmpfs (mounted here, root only) filled by another writer:
#      ENOSPC is classified, the run goes on and writes again once space
#      is back, nothing outside the engine's directory is touched;
#   4. storage_throttle on the cgroup the workload's I/O threads join (v1
#      blkio): throttled windows drop, windows after the revert recover;
#   5. safety: a path outside the allowed roots and a footprint that does
#      not fit are refused before anything is written.
. "$(dirname "$0")/lib.sh"

MNT=
CG=
storage_cleanup() {
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	[ -n "$CG" ] && rmdir "$CG" 2>/dev/null
	cleanup
}
trap storage_cleanup EXIT

# Targets a broken workload fails: each run's steady targets (STEADY, set
# before each scenario) ask for the bytes the pattern moves at a quarter of
# what a healthy run moves in its time (the limits fix those bytes, so a
# slow disk changes nothing) and, where no error is provoked, no failed op.
W() { echo "\"storage.write_gbps\": \">= $1\""; }   # GB/s
R() { echo "\"storage.read_gbps\": \">= $1\""; }
NOERR='"storage.errors": "== 0"'
STEADY=
scenario() { # FILE DURATION STORAGE-JSON [FAULTS [DEGRADED]]
	[ -n "$STEADY" ] || { echo "scenario $1: no steady targets set"; return 1; }
	local targets="{ \"steady\": { $STEADY } }"
	[ -n "${4:-}" ] && targets="{ \"steady\": { $STEADY }, \"degraded\": { $5 },
  \"recovery\": { \"recovery_s\": \"<= 4\", \"restore_s\": \"<= 4\" } }"
	cat > "$1" <<JSON
{
  "name": "storage-test",
  "duration": "$2",
  "window": "1s",
  "hosts": { "me": { "local": true } },
  "workloads": { "storage": $3 },
  "phases": [ { "name": "steady", "for": "$2" } ],
  "faults": [ ${4:-} ],
  "targets": $targets
}
JSON
}
no_dirs_left() { ! ls -d "$1"/gauntlet-storage-* >/dev/null 2>&1; }
total() { json "$1/report.json" "$2"; }
# sum of a counter over the stored windows
wsum() { sql "$1/run.db" "select coalesce(sum(counter),0) from window_metrics where name='$2'"; }

# ---- 1. every pattern, exact bytes, verified read-back ------------------------------------
D=$T/disk
mkdir -p "$D"
for pat in checkpoint_write model_load dataset_read mixed; do
	case $pat in
	checkpoint_write) extra='"bs": "1MiB", "file_size": "4MiB", "files": 3, "limit": "24MiB"' ;;
	model_load)       extra='"bs": "1MiB", "file_size": "4MiB", "files": 3, "limit": "24MiB"' ;;
	# aio with 4 ops in flight; the spike never fires but makes the layout
	# use 1 MiB blocks, so 4 KiB reads are checked inside larger blocks
	dataset_read)     extra='"bs": "4KiB", "file_size": "4MiB", "files": 2, "limit": "8MiB", "iodepth": 4,
	                         "engine": "aio", "spikes": [ { "every": "1h", "for": "1s", "start": "1h", "bs": "1MiB" } ]' ;;
	mixed)            extra='"bs": "4KiB", "file_size": "4MiB", "files": 2, "limit": "8MiB", "read_pct": 50' ;;
	esac
	# checkpoint_write fsyncs each file and reads it back: on a slow shared
	# disk 24 MiB takes most of 6 s, and a read-back still going at the end
	# is cut short (there 20 of 24 MiB can take 12 s to read back);
	# the limit stops the writes, the rest of the time idles
	dur=6s; [ $pat = checkpoint_write ] && dur=20s
	# bytes the limit fixes / seconds / 4 (1 GB/s = 1e9 B/s)
	case $pat in
	checkpoint_write) STEADY="$(W 0.0003), $(R 0.0003), $NOERR" ;;   # 25 MB each way in 20 s
	model_load)       STEADY="$(R 0.001), $NOERR" ;;                   # 25 MB in 6 s
	dataset_read)     STEADY="$(R 0.0003), $NOERR" ;;                  # 8.4 MB in 6 s
	mixed)            STEADY="$(W 0.0001), $(R 0.0001), $NOERR" ;;     # about 4.2 MB each way in 6 s
	esac
	scenario "$T/$pat.json" $dur "{ \"path\": \"$D\", \"allowed_roots\": [\"$T\"], \"pattern\": \"$pat\",
	  \"threads\": 2, \"verify\": true, \"reserve\": \"0\", $extra }"
	"$GAUNTLET" run "$T/$pat.json" --out "$T/r-$pat" > "$T/$pat.log" 2>&1
	rc=$?
	R=$T/r-$pat
	rb=$(total "$R" "r['metrics']['storage'].get('read_bytes')")
	wb=$(total "$R" "r['metrics']['storage'].get('write_bytes')")
	vb=$(wsum "$R" storage.verified_bytes)
	er=$(wsum "$R" storage.errors)
	echo "$pat: read $rb, written $wb, verified $vb, errors $er"
	check "$pat: run completes (exit $rc)" [ "$rc" -eq 0 ]
	check "$pat: no I/O errors" [ "$er" = 0 ]
	check "$pat: the report's bytes equal the windows' sums" \
		[ -n "$rb" -a -n "$wb" -a "$rb" = "$(wsum "$R" storage.read_bytes)" -a "$wb" = "$(wsum "$R" storage.write_bytes)" ]
	case $pat in
	checkpoint_write)
		check "$pat: exactly the limit written (24 MiB = $((24 << 20)))" [ "$wb" = $((24 << 20)) ]
		check "$pat: every checkpoint read back and verified" [ "$rb" = "$wb" -a "$vb" = "$wb" ]
		[ "$rb" = "$wb" -a "$vb" = "$wb" ] ||   # where the bytes went, window by window
			sql "$R/run.db" "select w.idx, group_concat(m.name || '=' || m.counter, ' ') from windows w
				join window_metrics m on m.idx = w.idx where m.name in ('storage.write_bytes',
				'storage.read_bytes', 'storage.verified_bytes') and m.counter > 0 group by w.idx" | sed 's/^/   window /' ;;
	model_load)
		check "$pat: exactly the limit read" [ "$rb" = $((24 << 20)) ]
		check "$pat: nothing of the layout counted as written" [ "$wb" = 0 ]
		check "$pat: every block read verified" [ "$vb" = "$rb" ] ;;
	dataset_read)
		check "$pat: exactly the limit read in 4 KiB blocks" [ "$rb" = $((8 << 20)) ]
		check "$pat: every block read verified" [ "$vb" = "$rb" ] ;;
	mixed)
		check "$pat: reads and writes add up to the limit" [ $((rb + wb)) = $((8 << 20)) ]
		check "$pat: both reads and writes happened" [ "$rb" -gt 0 -a "$wb" -gt 0 ] ;;
	esac
	check "$pat: op latency recorded (a p99 above 0 over as many ops as the bytes make)" json "$R/report.json" \
		"(lambda o: o['p99'] is not None and o['p99'] > 0 and o['count'] >= 8)(r['metrics']['storage']['op_latency_ms'])"
	check "$pat: the engine's directory and files are gone" no_dirs_left "$D"
done

# ---- 2. corruption behind the engine's back is caught ------------------------------------
STEADY="$(R 0.001), $NOERR"      # 8 MB/s capped for 8 s; the verify error fails the verdict
scenario "$T/corrupt.json" 8s "{ \"path\": \"$D\", \"allowed_roots\": [\"$T\"], \"pattern\": \"model_load\",
  \"threads\": 1, \"verify\": true, \"reserve\": \"0\", \"bs\": \"1MiB\", \"file_size\": \"2MiB\", \"files\": 1,
  \"rate_cap\": \"8MB\" }"
bg run "$T/corrupt.json" --out "$T/r-corrupt"
# the change once the store holds verified reads of the file (a window
# closed with them)
until_ok 30 sql_is "$T/r-corrupt/run.db" "select coalesce(sum(counter),0) > 0 from window_metrics where name='storage.verified_bytes'" 1
f=$(ls "$D"/gauntlet-storage-*/f-000000.dat 2>/dev/null | head -1)
[ -n "$f" ] && printf 'X' | dd of="$f" bs=1 seek=$((1048576 + 100)) conv=notrunc 2>/dev/null
wait "$BG_PID"; rc=$?
vr=$(wsum "$T/r-corrupt" storage.errors.verify)
echo "verify errors after one byte changed: $vr"
check "corrupt: a changed byte is caught by verify" [ -n "$f" -a "${vr:-0}" -gt 0 ]
check "corrupt: the run fails (exit $rc), on storage.errors alone" bash -c "[ $rc -eq 1 ] && python3 -c \"
import json, sys; r = json.load(open('$T/r-corrupt/report.json'))
sys.exit(0 if [t['metric'] for t in r['targets'] if not t['pass']] == ['storage.errors'] else 1)\""
check "corrupt: the failed op is in the store with its class" \
	[ "$(sql "$T/r-corrupt/run.db" "select count(*) from storage_ops where error_class='verify'")" -gt 0 ]

# ---- 3. ENOSPC on a small tmpfs -------------------------------------------------------------
enospc_test() {
	[ "$(id -u)" -eq 0 ] || { part_skip 3 "mounting a tmpfs needs root"; return; }
	MNT=$T/small
	mkdir -p "$MNT"
	mount -t tmpfs -o size=24m tmpfs "$MNT" || { part_skip 3 "cannot mount a tmpfs"; MNT=; return; }
	head -c 1048576 /dev/urandom > "$MNT/sentinel"
	local before after
	before=$(sha256sum < "$MNT/sentinel")
	STEADY="$(W 0.001)"    # 16 MB/s capped, 8 of 12 s with space: over 12 MB (ENOSPC is provoked: no error target)
	scenario "$T/enospc.json" 12s "{ \"path\": \"$MNT\", \"allowed_roots\": [\"$MNT\"], \"pattern\": \"checkpoint_write\",
	  \"threads\": 1, \"direct\": false, \"reserve\": \"0\", \"bs\": \"1MiB\", \"file_size\": \"4MiB\", \"files\": 2,
	  \"rate_cap\": \"16MB\" }"
	bg run "$T/enospc.json" --out "$T/r-enospc"
	# once the engine's writes are stored (a window closed with them),
	# another tenant writes all the space there is (again and again,
	# taking what the engine frees too) until the store counts the
	# engine's ENOSPC (a window closed with them), then deletes its file
	until_ok 30 sql_is "$T/r-enospc/run.db" "select coalesce(sum(counter),0) > 0 from window_metrics where name='storage.write_bytes'" 1
	fill() { while dd if=/dev/zero bs=64K count=16 >> "$MNT/filler" 2>/dev/null; do :; done; }
	fill_until_enospc() {
		fill
		sql_is "$T/r-enospc/run.db" "select coalesce(sum(counter),0) > 0 from window_metrics where name='storage.errors.enospc'" 1
	}
	local filled
	until_ok 30 fill_until_enospc
	filled=$(stat -c %s "$MNT/filler")
	rm -f "$MNT/filler"
	wait "$BG_PID"; local rc=$?
	R=$T/r-enospc
	local en late
	en=$(wsum "$R" storage.errors.enospc)
	late=$(sql "$R/run.db" "select coalesce(sum(counter),0) from window_metrics where name='storage.write_bytes' and idx >= 9")
	echo "ENOSPC errors: $en; bytes written in the last windows after space came back: $late"
	check "enospc: the run completes (exit $rc)" [ "$rc" -eq 0 ]
	check "enospc: ENOSPC counted as its own class" [ "$en" -gt 0 ]
	check "enospc: no error left unclassified" [ "$(wsum "$R" storage.errors.other)" = 0 ]
	check "enospc: writes resumed once space came back" [ "$late" -gt 0 ]
	check "enospc: the classified failures are in the store" \
		[ "$(sql "$R/run.db" "select count(*) from storage_ops where error_class='enospc'")" -gt 0 ]
	after=$(sha256sum < "$MNT/sentinel")
	check "enospc: the file outside the engine's directory is untouched" [ "$before" = "$after" ]
	check "enospc: only that file is left on the filesystem" [ "$(ls -A "$MNT")" = sentinel ]
	echo "filler had $filled bytes"
	umount "$MNT" && MNT=
}
enospc_test

# ---- 4. storage_throttle on the workload's cgroup ------------------------------------------
throttle_test() {
	[ "$(id -u)" -eq 0 ] || { part_skip 4 "cgroups need root"; return; }
	[ -d /sys/fs/cgroup/blkio ] || { part_skip 4 "no cgroup v1 blkio here (the built-in engine's threads can join v1 only; docs/storage.md)"; return; }
	local src dev d mj mn
	d=$(stat -c %d "$T")
	mj=$(( (d >> 8) & 0xfff )); mn=$(( (d & 0xff) | ((d >> 12) & 0xfff00) ))
	src=$(findmnt -no SOURCE --target "$T" 2>/dev/null)
	if [ -b "$src" ]; then dev=$src
	elif [ -e "/sys/dev/block/$mj:$mn" ]; then dev=$mj:$mn
	else part_skip 4 "$T is not on a block device"; return; fi
	local cgname=gauntlet-st-$$
	CG=/sys/fs/cgroup/blkio/$cgname
	# unthrottled direct writes run at disk speed; the cap is 4 MB/s
	STEADY="$(W 0.002), $NOERR"
	scenario "$T/thr.json" 16s "{ \"path\": \"$D\", \"allowed_roots\": [\"$T\"], \"pattern\": \"checkpoint_write\",
	  \"threads\": 1, \"direct\": true, \"reserve\": \"0\", \"bs\": \"1MiB\", \"file_size\": \"8MiB\", \"files\": 2,
	  \"cgroup\": \"$cgname\" }" \
	  "{ \"id\": \"thr\", \"at\": \"5s\", \"for\": \"5s\", \"kind\": \"storage_throttle\", \"target\": \"me\",
	     \"params\": { \"cgroup\": \"$cgname\", \"device\": \"$dev\", \"write_bps\": \"4MB\" } }" "$(W 0.001)"
	"$GAUNTLET" run "$T/thr.json" --out "$T/r-thr" > "$T/thr.log" 2>&1
	local rc=$?
	R=$T/r-thr
	# windows 1-4 before, 6-9 throttled, 11-15 after (one-window margins)
	local pre mid post
	pre=$(sql "$R/run.db" "select avg(counter) from window_metrics where name='storage.write_bytes' and idx between 1 and 4")
	mid=$(sql "$R/run.db" "select avg(counter) from window_metrics where name='storage.write_bytes' and idx between 6 and 9")
	post=$(sql "$R/run.db" "select avg(counter) from window_metrics where name='storage.write_bytes' and idx between 11 and 15")
	echo "throttle: bytes/window before $pre, during $mid, after $post"
	check "throttle: run completes (exit $rc)" [ "$rc" -eq 0 ]
	check "throttle: fault reverted" [ "$(json "$R/report.json" "r['faults'][0]['state']")" = reverted ]
	check "throttle: throttled windows near the 4 MB/s cap" python3 -c "import sys; sys.exit(not 0 < float('${mid:-0}') <= 6e6)"
	timing "throttle: clearly below the windows before" python3 -c "import sys; sys.exit(not float('${mid:-0}') * 3 < float('${pre:-0}'))"
	timing "throttle: recovered after the revert" python3 -c "import sys; sys.exit(not float('${post:-0}') > 3 * float('${mid:-1}'))"
	check "throttle: the engine's cgroup is removed" [ ! -d "$CG" ]
	[ -d "$CG" ] || CG=
}
throttle_test

# ---- 4b. fio as the engine ------------------------------------------------------------------
if command -v fio >/dev/null; then
	STEADY="$(W 0.005)"     # 20 MB/s capped
	scenario "$T/fio.json" 6s "{ \"path\": \"$D\", \"allowed_roots\": [\"$T\"], \"engine\": \"fio\",
	  \"pattern\": \"checkpoint_write\", \"reserve\": \"0\",
	  \"fio_args\": [\"--name=ckpt\", \"--rw=write\", \"--bs=1M\", \"--size=16M\", \"--time_based\",
	                 \"--runtime=30\", \"--rate=20M\", \"--ioengine=psync\"] }"
	"$GAUNTLET" run "$T/fio.json" --out "$T/r-fio" > "$T/fio.log" 2>&1
	rc=$?
	wb=$(wsum "$T/r-fio" storage.write_bytes)
	busy=$(sql "$T/r-fio/run.db" "select count(*) from window_metrics where name='storage.write_bytes' and counter > 0")
	echo "fio engine: $wb bytes written over $busy windows"
	check "fio: run completes (exit $rc)" [ "$rc" -eq 0 ]
	timing "fio: its writes reach the windows (rate-capped at 20 MB/s: 40-150 MB in 6 s)" \
		[ "$wb" -gt 40000000 -a "$wb" -lt 150000000 ]
	check "fio: spread over the windows, not one lump at the end" [ "$busy" -ge 4 ]
	check "fio: its files and the directory are gone" no_dirs_left "$D"
	scenario "$T/fiobad.json" 3s "{ \"path\": \"$D\", \"allowed_roots\": [\"$T\"], \"engine\": \"fio\",
	  \"fio_args\": [\"--name=x\", \"--filename=/dev/vda\"] }"
	"$GAUNTLET" run "$T/fiobad.json" --out "$T/r-fiobad" > "$T/fiobad.log" 2>&1
	rc=$?
	check "fio: --filename is refused (exit $rc; fio writes only in gauntlet's directory)" \
		bash -c "[ $rc -ne 0 -a $rc -ne 1 ] && grep -q 'filename is not allowed' '$T/fiobad.log'"
else
	part_skip 4b "fio is not installed"
fi

# ---- 5. safety ------------------------------------------------------------------------------
scenario "$T/outside.json" 3s "{ \"path\": \"$D\", \"allowed_roots\": [\"/mnt/nowhere-$$\"], \"pattern\": \"checkpoint_write\" }"
"$GAUNTLET" run "$T/outside.json" --out "$T/r-outside" > "$T/outside.log" 2>&1
rc=$?
check "safety: a path outside the allowed roots is refused (exit $rc)" [ "$rc" -ne 0 -a "$rc" -ne 1 ]
check "safety: and the message says why" grep -q "outside the allowed roots" "$T/outside.log"
scenario "$T/huge.json" 3s "{ \"path\": \"$D\", \"allowed_roots\": [\"$T\"], \"pattern\": \"checkpoint_write\",
  \"files\": 1000, \"file_size\": \"1TiB\" }"
"$GAUNTLET" run "$T/huge.json" --out "$T/r-huge" > "$T/huge.log" 2>&1
rc=$?
check "safety: a footprint that does not fit is refused (exit $rc)" [ "$rc" -ne 0 -a "$rc" -ne 1 ]
check "safety: naming the free space" grep -q "GB free" "$T/huge.log"
check "safety: nothing was written" no_dirs_left "$D"

finish
