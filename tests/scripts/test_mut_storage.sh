#!/usr/bin/env bash
# test_mut_storage.sh - storage verify against a change made behind the
# engine's back (for scripts/mutate.sh; test_storage runs alone and long):
# model_load with verify over one 2 MiB file of 1 MiB blocks, read at
# 8 MB/s so it is read again and again; one byte in the data of block 1
# (offset 1 MiB + 100, past the block header) is changed while it runs.
# Every read before the change verifies; after it, reads of block 1 fail
# with class "verify" and are in the store.
source "$(dirname "$0")/lib.sh"

D=$T/disk
mkdir -p "$D"
cat > "$T/corrupt.json" <<JSON
{ "name": "mut-storage", "duration": "6s", "window": "1s",
  "hosts": { "me": { "local": true } },
  "workloads": { "storage": { "path": "$D", "allowed_roots": ["$T"], "pattern": "model_load",
      "threads": 1, "verify": true, "reserve": "0", "bs": "1MiB", "file_size": "2MiB", "files": 1,
      "rate_cap": "8MB" } },
  "phases": [ { "name": "steady", "for": "6s" } ],
  "targets": { "steady": { "storage.read_gbps": "> 0" } } }
JSON
bg run "$T/corrupt.json" --out "$T/r"
# the change once the store holds verified reads of the file (a window
# closed with them)
until_ok 30 sql_is "$T/r/run.db" "select coalesce(sum(counter),0) > 0 from window_metrics where name='storage.verified_bytes'" 1
f=$(ls "$D"/gauntlet-storage-*/f-000000.dat 2>/dev/null | head -1)
check "the engine's file exists" [ -n "$f" ]
before=$(sql "$T/r/run.db" "select coalesce(sum(counter),0) from window_metrics where name='storage.verified_bytes'")
[ -n "$f" ] && printf 'X' | dd of="$f" bs=1 seek=$((1048576 + 100)) conv=notrunc 2>/dev/null
wait "$BG_PID"
vr=$(sql "$T/r/run.db" "select coalesce(sum(counter),0) from window_metrics where name='storage.errors.verify'")
echo "verified bytes before the change: $before; verify errors after it: $vr"
check "reads before the change were verified" [ "${before:-0}" -gt 0 ]
check "a changed data byte is caught by verify" [ "${vr:-0}" -gt 0 ]
check "the failed reads are in the store with class verify" \
	[ "$(sql "$T/r/run.db" "select count(*) from storage_ops where error_class='verify'")" -gt 0 ]
finish
