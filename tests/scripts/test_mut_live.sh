#!/usr/bin/env bash
# test_mut_live.sh - where --metrics-listen binds, read from the kernel (for
# scripts/mutate.sh): `--metrics-listen 0` (a bare port) must listen on
# 127.0.0.1 only. The controller's listening TCP sockets are found through
# its /proc/PID/fd inodes in /proc/net/tcp and tcp6: exactly one, bound to
# 127.0.0.1, none on a wildcard address; the announced URL names the same
# port and answers.
source "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || skip "curl is missing"

cat > "$T/live.json" <<JSON
{ "name": "mut-live", "duration": "6s", "window": "1s",
  "workloads": { "null": { "rate": 50 } },
  "targets": { "steady": { "null.ticks": ">= 1" } } }
JSON
"$GAUNTLET" run "$T/live.json" --out "$T/run" --metrics-listen 0 >"$T/run.log" 2>&1 &
RUN_PID=$!
PIDS+=("$RUN_PID")
wait_log "$T/run.log" 'metrics at http://' 30
URL=$(grep -o 'http://[0-9.:]*/metrics' "$T/run.log" | head -1)
echo "announced: $URL"
python3 - "$RUN_PID" >"$T/socks" <<'PY'
import os, socket, struct, sys
pid = sys.argv[1]
inodes = set()
for fd in os.listdir('/proc/%s/fd' % pid):
    try:
        l = os.readlink('/proc/%s/fd/%s' % (pid, fd))
    except OSError:
        continue
    if l.startswith('socket:['):
        inodes.add(l[8:-1])
for fam in ('tcp', 'tcp6'):
    for line in open('/proc/net/' + fam).read().splitlines()[1:]:
        f = line.split()
        if f[3] != '0A' or f[9] not in inodes:      # 0A: LISTEN
            continue
        hexaddr, hexport = f[1].split(':')
        raw = bytes.fromhex(hexaddr)
        if fam == 'tcp':
            addr = socket.inet_ntop(socket.AF_INET, struct.pack('<I', struct.unpack('>I', raw)[0]))
        else:
            addr = socket.inet_ntop(socket.AF_INET6, b''.join(struct.pack('<I', struct.unpack('>I', raw[i:i + 4])[0]) for i in range(0, 16, 4)))
        print(addr, int(hexport, 16))
PY
cat "$T/socks"
check "the controller listens on exactly one TCP socket" [ "$(wc -l < "$T/socks")" = 1 ]
check "bound to 127.0.0.1, not to a wildcard address" [ "$(cut -d' ' -f1 "$T/socks")" = 127.0.0.1 ]
check "the announced URL is that loopback port" [ "$URL" = "http://127.0.0.1:$(cut -d' ' -f2 "$T/socks" | head -1)/metrics" ]
check "the endpoint answers" curl -sf -m 2 -o /dev/null "$URL"
wait "$RUN_PID"
rc=$?
check "run exits 0 (exit $rc)" [ $rc -eq 0 ]
finish
