#!/usr/bin/env bash
# test_mut_telemetry.sh - a counter reset (for scripts/mutate.sh): a DCGM
# exporter on loopback serves an ECC counter at 100, then, as if the
# exporter or the driver restarted, at 4. The increase since the reset (4)
# is what the run counts: dcgm.ecc_sbe.delta is 4, not 0 and not -96.
source "$(dirname "$0")/lib.sh"

D=$T/www
mkdir -p "$D"
dcgm() { # FILE SBE
	cat > "$1.tmp" <<EOF
# TYPE DCGM_FI_DEV_GPU_TEMP gauge
DCGM_FI_DEV_GPU_TEMP{gpu="0",UUID="GPU-5fd4c3e2-1b0a-4f6e-9a51-0c1d2e3f4a5b"} 41
# TYPE DCGM_FI_DEV_XID_ERRORS gauge
DCGM_FI_DEV_XID_ERRORS{gpu="0",UUID="GPU-5fd4c3e2-1b0a-4f6e-9a51-0c1d2e3f4a5b"} 0
# TYPE DCGM_FI_DEV_ECC_SBE_VOL_TOTAL counter
DCGM_FI_DEV_ECC_SBE_VOL_TOTAL{gpu="0",UUID="GPU-5fd4c3e2-1b0a-4f6e-9a51-0c1d2e3f4a5b"} $2
EOF
	mv "$1.tmp" "$1"          # atomic: a scrape sees the old or the new text
}
dcgm "$D/metrics" 100
serve_dir "$D"
URL="http://127.0.0.1:$SERVED_PORT/metrics"
cat > "$T/reset.json" <<JSON
{ "name": "mut-telemetry", "duration": "5s", "window": "1s",
  "workloads": { "telemetry": { "dcgm": ["$URL"], "every": "500ms", "timeout": "400ms" } },
  "targets": { "steady": { "dcgm.xid_errors.delta": "== 0", "dcgm.ecc_sbe.delta": ">= 0",
                           "telemetry.scrapes": ">= 1" } } }
JSON
"$GAUNTLET" run "$T/reset.json" --out "$T/r" >"$T/r.log" 2>&1 &
GP=$!
PIDS+=("$GP")
# the reset once two windows are stored with their scrapes of 100
until_ok 30 sql_is "$T/r/run.db" "select count(*) >= 2 from window_metrics where name='telemetry.scrapes' and counter > 0" 1
dcgm "$D/metrics" 4
wait "$GP"
rc=$?
m=$(python3 -c "
import json; r=json.load(open('$T/r/report.json'))
print([t['measured'] for t in r['targets'] if t['metric']=='dcgm.ecc_sbe.delta'][0])" 2>/dev/null)
echo "exit $rc, ecc_sbe.delta $m"
check "the run completes (exit $rc)" [ $rc -le 1 ]
check "after the reset the counter's increase since it is counted: delta 4 (got $m)" [ "$m" = 4 ]
finish
