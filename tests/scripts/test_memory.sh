#!/usr/bin/env bash
# test_memory.sh - memory does not grow with run length: a 168-hour
# timeline, time-scaled to about 30 s, with 100 ms windows (~300 of them),
# a null workload at 5000 ticks/s and faults. The controller's RSS is
# sampled from /proc; the late samples must not exceed the early ones by
# more than 512 KiB (keeping every sample would cost 8 bytes x 150,000). Prints the figures it measured.
# In the sanitizer build the run is the same and checked the same, but
# AddressSanitizer keeps freed memory in a quarantine (turned off here) and
# its allocator caches by size class: the RSS bound there is 1 MiB.
source "$(dirname "$0")/lib.sh"
LIMIT_KIB=512
if [ "${GL_SANITIZE:-OFF}" = ON ]; then
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0:thread_local_quarantine_size_kb=0"
	LIMIT_KIB=1024
fi

SC=$T/long.json
cat > "$SC" <<JSON
{
  "name": "memory-flat",
  "duration": "168h",
  "window": "100ms",
  "hosts": { "me": { "local": true } },
  "workloads": { "null": { "rate": 5000 } },
  "faults": [
    { "id": "f1", "at": "24h", "for": "1h", "kind": "null", "target": "me", "params": { "marker": "$T/m1" } },
    { "id": "f2", "at": "96h", "for": "1h", "kind": "null", "target": "me", "params": { "marker": "$T/m2" } }
  ],
  "targets": {
    "steady": { "null.tick_lag_ms.p99": "<= 1000", "null.ticks": ">= 100" },
    "degraded": { "null.tick_lag_ms.p99": "<= 1000", "null.ticks": ">= 100" },
    "recovery": { "recovery_s": "<= 60", "restore_s": "<= 60" }
  }
}
JSON
bg run "$SC" --out "$T/run" --time-scale 20160
PID=$BG_PID
# a sample each time 5 more windows are stored (about 60 over the run):
# the samples follow the run's progress, however fast the machine runs it
: > "$T/rss"
NEXT=5
next_or_end() { windows_ge "$T/run/run.db" "$NEXT" || gone "$PID"; }
while ! gone "$PID"; do
	until_ok 60 next_or_end || break
	awk '/^VmRSS:/ {print $2}' /proc/$PID/status 2>/dev/null >> "$T/rss"
	NEXT=$((NEXT + 5))
done
wait "$PID"; rc=$?
check "long time-scaled run passes (exit $rc): ticks in every scope, lag p99 within 1 s" [ $rc -eq 0 ]
check "windows: about 300 stored" [ "$(sql "$T/run/run.db" "select count(*) from windows")" -ge 250 ]
python3 - "$T/rss" "$LIMIT_KIB" <<'PY' > "$T/verdict"
import sys
s = [int(x) for x in open(sys.argv[1]) if x.strip()]
n = len(s)
early = s[int(n*0.2):int(n*0.35)] or s[:1]
late = s[int(n*0.8):int(n*0.95)] or s[-1:]
e, l = max(early), max(late)
print(f"rss samples={n} early_max_kib={e} late_max_kib={l} growth_kib={l-e} peak_kib={max(s)}", file=sys.stderr)
print("flat" if n >= 20 and l - e <= int(sys.argv[2]) else "grew")
PY
cat "$T/verdict"
check "RSS flat: late samples within $LIMIT_KIB KiB of early ones (150k samples would need more)" [ "$(cat "$T/verdict")" = flat ]
finish
