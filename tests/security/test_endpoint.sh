#!/usr/bin/env bash
# test_endpoint.sh - the metrics endpoint cannot starve the controller.
# A run with an exec fault and --metrics-listen, its descriptors limited
# to 200 (ulimit -n), is held by 1,000 connections that each dribble one
# byte of a request head every 0.5 s and never finish it. The fault must
# still inject, verify, revert and verify its revert (its steps need pipes
# and a fork: the descriptors the endpoint does not take); the log must
# stay under 1 MB; a well-formed scrape made during the flood must be
# answered; and the endpoint's own counters must show the dribblers were
# cut at their deadline.
. "$(dirname "$0")/../scripts/lib.sh"
[ -x "$GAUNTLET" ] || skip "no gauntlet binary at $GAUNTLET"
command -v curl >/dev/null || skip "curl is needed to scrape the endpoint"

cat > "$T/sc.json" <<JSON
{ "name": "endpoint-flood", "duration": "40s", "window": "1s",
  "hosts": { "localhost": { "local": true } },
  "workloads": { "null": { "rate": 50 } },
  "phases": [ { "name": "steady", "for": "40s" } ],
  "faults": [ { "id": "x1", "at": "14s", "for": "10s", "kind": "exec", "target": "localhost",
      "params": { "inject": ["touch", "$T/marker"], "verify": ["test", "-e", "$T/marker"],
                  "revert": ["rm", "-f", "$T/marker"], "verify_revert": ["test", "!", "-e", "$T/marker"] } } ],
  "targets": { "steady": { "null.ticks": ">= 40" }, "degraded": { "null.ticks": ">= 40" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } } }
JSON
"$GAUNTLET" validate "$T/sc.json" > "$T/validate.log" 2>&1 || { cat "$T/validate.log"; bad "the scenario validates"; finish; }
: > "$T/run.log"
( ulimit -n 200 && exec "$GAUNTLET" run "$T/sc.json" --out "$T/run" --metrics-listen 0 --metrics-linger 2s ) > "$T/run.log" 2>&1 &
RUN=$!; PIDS+=("$RUN")
n=100; while ! grep -q 'metrics at http://' "$T/run.log" && [ $n -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
URL=$(grep -o 'http://[0-9.:]*/metrics' "$T/run.log" | head -1)
check "the endpoint is up ($URL)" [ -n "$URL" ]
HP=${URL#http://}; HP=${HP%/metrics}

# 1,000 dribblers from 4 s to 30 s of the run (the fault is due at 14 s)
python3 - "${HP%:*}" "${HP##*:}" 1000 26 > "$T/flood.log" 2>&1 <<'PY' &
import resource, socket, sys, time
host, port, n, secs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
time.sleep(4)
socks, opened, failed, sent = [], 0, 0, 0
head = b"GET /metrics HTTP/1.1\r\nHost: x\r\n"
end = time.time() + secs
while time.time() < end:
    # keep n connections open, reopening those the server closed
    while len(socks) < n and time.time() < end:
        s = socket.socket(); s.setblocking(False)
        try:
            s.connect_ex((host, port)); socks.append([s, 0]); opened += 1
        except OSError:
            failed += 1; s.close(); break
    alive = []
    for s, i in socks:
        try:
            s.send(head[i % len(head):i % len(head) + 1]); sent += 1; alive.append([s, i + 1])
        except (BlockingIOError, InterruptedError):
            alive.append([s, i])
        except OSError:
            s.close()
    socks = alive
    time.sleep(0.5)
for s, _ in socks:
    s.close()
print("dribblers: %d opened, %d failed to open, %d bytes dribbled" % (opened, failed, sent))
PY
FLOOD=$!; PIDS+=("$FLOOD")
sleep 10
# a real scrape during the flood (the flood started at about 4 s)
ok_scrape=0
for i in $(seq 1 20); do
	code=$(curl -s -m 3 -o "$T/scrape.txt" -w '%{http_code}' "$URL" 2>/dev/null)
	[ "$code" = 200 ] && grep -q '^gauntlet_scrapes_total' "$T/scrape.txt" && { ok_scrape=1; break; }
	sleep 0.5
done
check "a well-formed scrape during the flood is answered (200)" [ $ok_scrape = 1 ]
wait "$FLOOD"; cat "$T/flood.log"
check "the flood ran (hundreds of connections opened)" bash -c "[ \$(sed -n 's/^dribblers: \([0-9]*\) opened.*/\1/p' '$T/flood.log') -ge 500 ]"
last=""
n=300; while kill -0 "$RUN" 2>/dev/null && [ $n -gt 0 ]; do
	curl -s -m 1 -o "$T/last.txt" "$URL" 2>/dev/null && cp "$T/last.txt" "$T/final.txt"
	sleep 0.2; n=$((n - 1))
done
wait "$RUN"; rc=$?
check "the run ends (exit 0 or 1, got $rc)" [ $rc -le 1 ]
check "the fault injected, verified, reverted and verified its revert" \
	[ "$(sql "$T/run/run.db" "select state, verified, verified_revert from faults")" = "reverted|1|1" ]
check "no marker left" [ ! -e "$T/marker" ]
check "no step failed for want of a descriptor" bash -c "! grep -qi 'too many open files' '$T/run.log'"
sz=$(stat -c %s "$T/run.log")
echo "log: $sz bytes"
check "the log stays under 1 MB ($sz bytes)" [ "$sz" -lt 1000000 ]
drops=$(sed -n 's/^gauntlet_endpoint_dropped_total{reason="deadline"} //p' "$T/final.txt" 2>/dev/null)
echo "connections cut at their deadline: ${drops:-none read}"
check "dribblers were cut at their deadline (${drops:-0} counted)" [ "${drops:-0}" -ge 10 ]
finish
