#!/usr/bin/env bash
# test_status.sh - `gauntlet status DIR` knows whether the controller is
# alive and says what fails. A null run with one target that must fail
# (null.ticks <= 1 per scope) and one that passes, with the metrics endpoint
# on:
#  - while it runs: "controller: running (pid P ...)" with the controller's
#    pid, the failing target named with its measured value, and the count
#    of targets failing so far equal to the endpoint's
#    gauntlet_targets_failing, scraped just before and just after;
#  - after a SIGKILL: the state is still "running" in the store, and status
#    says "controller not running: resume with gauntlet resume DIR".
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || skip "curl is needed to scrape the endpoint"
cat > "$T/sc.json" <<JSON
{ "name": "status", "duration": "60s", "window": "1s", "hosts": { "localhost": { "local": true } },
  "workloads": { "null": { "rate": 50 } },
  "phases": [ { "name": "steady", "for": "60s" } ],
  "targets": { "steady": { "null.ticks": "<= 1", "null.tick_lag_ms.p99": "<= 5000" } } }
JSON
: > "$T/run.log"
"$GAUNTLET" run "$T/sc.json" --out "$T/run" --metrics-listen 0 > "$T/run.log" 2>&1 &
RUN=$!; PIDS+=("$RUN")
n=100; while ! grep -q 'metrics at http://' "$T/run.log" && [ $n -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
URL=$(grep -o 'http://[0-9.:]*/metrics' "$T/run.log" | head -1)
check "the endpoint is up ($URL)" [ -n "$URL" ]
sleep 4
failing() { curl -s -m 2 "$URL" | sed -n 's/^gauntlet_targets_failing //p'; }
a=$(failing)
"$GAUNTLET" status "$T/run" > "$T/s1.txt" 2>&1; src=$?
b=$(failing)
cat "$T/s1.txt"
check "status on a live run exits 0 (got $src)" [ $src -eq 0 ]
check "status names the live controller and its pid ($RUN)" grep -q "^controller: running (pid $RUN " "$T/s1.txt"
check "status names the failing target with its measured value" grep -qE "^  failing: steady null.ticks <= 1 \(measured [0-9]+\)" "$T/s1.txt"
got=$(sed -n 's/^targets: \([0-9]*\) failing so far.*/\1/p' "$T/s1.txt")
echo "endpoint: $a before, $b after; status: $got"
check "status's count of failing targets agrees with the endpoint's ($a/$b vs $got)" \
	bash -c "[ -n '$got' ] && [ -n '$a' ] && { [ '$got' = '$a' ] || [ '$got' = '$b' ]; }"
check "the passing target is not named" bash -c "! grep -q 'failing: steady null.tick_lag_ms' '$T/s1.txt'"
kill -9 "$RUN"; wait "$RUN" 2>/dev/null
"$GAUNTLET" status "$T/run" > "$T/s2.txt" 2>&1; src=$?
cat "$T/s2.txt"
check "after SIGKILL the store still says running" grep -q "(status): running" "$T/s2.txt"
check "status says the controller is not running, and how to resume" \
	grep -qx "controller not running: resume with gauntlet resume $T/run" "$T/s2.txt"
finish
