#!/usr/bin/env bash
# test_stop.sh - a stop is always clean.
#  7. validate refuses agents.connect_timeout "168h", naming the key and
#     the bound (10 minutes); 10m itself is valid: the controller waits that
#     long for its load agents before the run's clock starts.
. "$(dirname "$0")/../scripts/lib.sh"
[ -x "$GAUNTLET" ] || skip "no gauntlet binary at $GAUNTLET"

# --- 7. connect_timeout has a bound --------------------------------------------------------------------
cat > "$T/agents.json" <<JSON
{ "name": "stop-agents", "duration": "30s", "window": "1s",
  "workloads": { "inference": { "endpoints": ["http://127.0.0.1:9/v1"], "model": "m", "preflight": false,
     "arrival": { "mode": "poisson", "rate": 5 },
     "agents": { "launcher": "mpirun", "count": 1, "launcher_path": "$T/launcher", "connect_timeout": "120s" } } },
  "targets": { "steady": { "inference.error_rate": "<= 1", "inference.ttft_ms.p99": "<= 1000" } } }
JSON
sed 's/"120s"/"168h"/' "$T/agents.json" > "$T/week.json"
"$GAUNTLET" validate "$T/week.json" > "$T/week.out" 2>&1; rc=$?
check "7 validate refuses connect_timeout 168h (exit $rc)" [ $rc -eq 2 ]
check "7 ...naming the key and the bound" grep -q "workloads.inference.agents.connect_timeout: 168h is out of 1s to 10m" "$T/week.out"
sed 's/"120s"/"10m"/' "$T/agents.json" > "$T/ten.json"
"$GAUNTLET" validate "$T/ten.json" > "$T/ten.out" 2>&1; rc=$?
check "7 validate takes the bound itself, 10m (exit $rc)" [ $rc -eq 0 ]
finish
