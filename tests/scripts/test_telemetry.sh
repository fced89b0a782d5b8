#!/usr/bin/env bash
# test_telemetry.sh - the telemetry probes against a real HTTP server on
# loopback serving DCGM exporter text (2 GPUs, HELP/TYPE lines, blank
# sentinels where a real exporter prints them):
#  1. counters stay put: the run passes; gpu_temp max is the served max,
#     the blank readings are counted as missing and not recorded;
#  2. the served XID (and an ECC counter) rise mid-run (file rewritten
#     atomically): the run fails (exit 1) on dcgm.xid_errors.delta == 0 with
#     the increase as the measured value;
#  2b. the XID rises while the controller is SIGKILLed: `resume` takes the
#     counters' last readings from the store and still counts it;
#  3. failures are data: a closed port and a garbage body are counted in
#     telemetry.scrape_errors, the run goes on; with preflight on, a closed
#     port stops the run before it starts (exit 4);
#  4. validate: unknown series (with a suggestion), a non-http URL, and the
#     missing XID target of a DCGM probe.
source "$(dirname "$0")/lib.sh"

D=$T/www
mkdir -p "$D"
# dcgm FILE XID1 SBE0: exporter text; GPU 1 has no power reading (FP64
# blank) and no NVLink (INT64 blank), as an exporter prints them.
dcgm() {
	cat > "$1.tmp" <<EOF
# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).
# TYPE DCGM_FI_DEV_SM_CLOCK gauge
DCGM_FI_DEV_SM_CLOCK{gpu="0",UUID="GPU-5fd4c3e2-1b0a-4f6e-9a51-0c1d2e3f4a5b",pci_bus_id="00000000:07:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a",DCGM_FI_DRIVER_VERSION="550.90.07"} 1980
DCGM_FI_DEV_SM_CLOCK{gpu="1",UUID="GPU-8a2b7c1d-3e4f-4a5b-8c6d-7e8f9a0b1c2d",pci_bus_id="00000000:0F:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a",DCGM_FI_DRIVER_VERSION="550.90.07"} 1980
# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).
# TYPE DCGM_FI_DEV_GPU_TEMP gauge
DCGM_FI_DEV_GPU_TEMP{gpu="0",UUID="GPU-5fd4c3e2-1b0a-4f6e-9a51-0c1d2e3f4a5b",pci_bus_id="00000000:07:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a",DCGM_FI_DRIVER_VERSION="550.90.07"} 41
DCGM_FI_DEV_GPU_TEMP{gpu="1",UUID="GPU-8a2b7c1d-3e4f-4a5b-8c6d-7e8f9a0b1c2d",pci_bus_id="00000000:0F:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a",DCGM_FI_DRIVER_VERSION="550.90.07"} 44
# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-5fd4c3e2-1b0a-4f6e-9a51-0c1d2e3f4a5b",pci_bus_id="00000000:07:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a",DCGM_FI_DRIVER_VERSION="550.90.07"} 112.437000
DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-8a2b7c1d-3e4f-4a5b-8c6d-7e8f9a0b1c2d",pci_bus_id="00000000:0F:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a",DCGM_FI_DRIVER_VERSION="550.90.07"} 140737488355328.000000
# HELP DCGM_FI_DEV_XID_ERRORS Value of the last XID error encountered.
# TYPE DCGM_FI_DEV_XID_ERRORS gauge
DCGM_FI_DEV_XID_ERRORS{gpu="0",UUID="GPU-5fd4c3e2-1b0a-4f6e-9a51-0c1d2e3f4a5b",pci_bus_id="00000000:07:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a",DCGM_FI_DRIVER_VERSION="550.90.07"} 0
DCGM_FI_DEV_XID_ERRORS{gpu="1",UUID="GPU-8a2b7c1d-3e4f-4a5b-8c6d-7e8f9a0b1c2d",pci_bus_id="00000000:0F:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a",DCGM_FI_DRIVER_VERSION="550.90.07",pod="trainer-0",namespace="ml",container="main"} $2
# HELP DCGM_FI_DEV_ECC_SBE_VOL_TOTAL Total number of single-bit volatile ECC errors.
# TYPE DCGM_FI_DEV_ECC_SBE_VOL_TOTAL counter
DCGM_FI_DEV_ECC_SBE_VOL_TOTAL{gpu="0",UUID="GPU-5fd4c3e2-1b0a-4f6e-9a51-0c1d2e3f4a5b",pci_bus_id="00000000:07:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a",DCGM_FI_DRIVER_VERSION="550.90.07"} $3
DCGM_FI_DEV_ECC_SBE_VOL_TOTAL{gpu="1",UUID="GPU-8a2b7c1d-3e4f-4a5b-8c6d-7e8f9a0b1c2d",pci_bus_id="00000000:0F:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a",DCGM_FI_DRIVER_VERSION="550.90.07"} 12
# HELP DCGM_FI_DEV_ECC_DBE_VOL_TOTAL Total number of double-bit volatile ECC errors.
# TYPE DCGM_FI_DEV_ECC_DBE_VOL_TOTAL counter
DCGM_FI_DEV_ECC_DBE_VOL_TOTAL{gpu="0",UUID="GPU-5fd4c3e2-1b0a-4f6e-9a51-0c1d2e3f4a5b",pci_bus_id="00000000:07:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a",DCGM_FI_DRIVER_VERSION="550.90.07"} 0
DCGM_FI_DEV_ECC_DBE_VOL_TOTAL{gpu="1",UUID="GPU-8a2b7c1d-3e4f-4a5b-8c6d-7e8f9a0b1c2d",pci_bus_id="00000000:0F:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a",DCGM_FI_DRIVER_VERSION="550.90.07"} 0
# HELP DCGM_FI_DEV_PCIE_REPLAY_COUNTER Total number of PCIe retries.
# TYPE DCGM_FI_DEV_PCIE_REPLAY_COUNTER counter
DCGM_FI_DEV_PCIE_REPLAY_COUNTER{gpu="0",UUID="GPU-5fd4c3e2-1b0a-4f6e-9a51-0c1d2e3f4a5b",pci_bus_id="00000000:07:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a",DCGM_FI_DRIVER_VERSION="550.90.07"} 3
DCGM_FI_DEV_PCIE_REPLAY_COUNTER{gpu="1",UUID="GPU-8a2b7c1d-3e4f-4a5b-8c6d-7e8f9a0b1c2d",pci_bus_id="00000000:0F:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a",DCGM_FI_DRIVER_VERSION="550.90.07"} 0
# HELP DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL Total number of NVLink flow-control CRC errors.
# TYPE DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL counter
DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL{gpu="0",UUID="GPU-5fd4c3e2-1b0a-4f6e-9a51-0c1d2e3f4a5b",pci_bus_id="00000000:07:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a",DCGM_FI_DRIVER_VERSION="550.90.07"} 0
DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL{gpu="1",UUID="GPU-8a2b7c1d-3e4f-4a5b-8c6d-7e8f9a0b1c2d",pci_bus_id="00000000:0F:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a",DCGM_FI_DRIVER_VERSION="550.90.07"} 9223372036854775792
EOF
	mv "$1.tmp" "$1"          # atomic: a scrape sees the old or the new text
}
dcgm "$D/metrics" 0 5
printf '# TYPE DCGM_FI_DEV_GPU_TEMP gauge\nDCGM_FI_DEV_GPU_TEMP{gpu="0" 41\n' > "$D/garbage"

# A real HTTP server on a free loopback port (bound by the server itself).
serve_dir "$D"
URL="http://127.0.0.1:$SERVED_PORT/metrics"
FREE=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1]); s.close()")

# scenario FILE DURATION DCGM_URLS_JSON [EXTRA_TELEMETRY_JSON [TARGET_OVERRIDES_JSON]]
# The steady targets fail a broken probe: no scrape (or one in a 3-6 s
# run), a scrape error, readings all missing (2 blanks a scrape are served:
# 20 is 7 scrapes' worth with room; all 14 readings missing is 14 a
# scrape), an ECC delta that is the raw counter (5 a scrape) rather than
# its increase (3 at most here).
scenario() {
	python3 - "$@" <<'PY'
import json, sys
path, duration, urls = sys.argv[1:4]
tel = {"dcgm": json.loads(urls), "every": "1s", "timeout": "500ms"}
tel.update(json.loads("{" + (sys.argv[4] if len(sys.argv) > 4 else "") + "}"))
steady = {"dcgm.xid_errors.delta": "== 0", "dcgm.gpu_temp.max": "<= 85",
          "dcgm.ecc_sbe.delta": "<= 5", "dcgm.power_w.max": "<= 700",
          "dcgm.power_w.count": ">= 2", "telemetry.scrapes": ">= 2",
          "telemetry.missing": "<= 20", "telemetry.scrape_errors": "== 0"}
steady.update(json.loads("{" + (sys.argv[5] if len(sys.argv) > 5 else "") + "}"))
sc = {"name": "telemetry-test", "duration": duration, "window": "1s",
      "workloads": {"telemetry": tel}, "targets": {"steady": steady}}
json.dump(sc, open(path, "w"), indent=1)
PY
}
# measured RUN METRIC -> the steady target's measured value
measured() { python3 -c "
import json; r=json.load(open('$T/$1/report.json'))
print([t['measured'] for t in r['targets'] if t['metric']=='$2' and t['scope']=='steady'][0])"; }

# --- 1. counters stay put: pass ---------------------------------------------------
scenario "$T/steady.json" 4s "[\"$URL\"]"
"$GAUNTLET" run "$T/steady.json" --out "$T/r1" >"$T/r1.log" 2>&1
rc=$?
check "steady: run passes (exit 0)" [ $rc -eq 0 ]
S1=$(measured r1 telemetry.scrapes)
echo "steady: scrapes=$S1 gpu_temp.max=$(measured r1 dcgm.gpu_temp.max) power_w.max=$(measured r1 dcgm.power_w.max)" \
	"power_w.count=$(measured r1 dcgm.power_w.count) missing=$(measured r1 telemetry.missing)" \
	"xid_errors.delta=$(measured r1 dcgm.xid_errors.delta) scrape_errors=$(measured r1 telemetry.scrape_errors)"
check "steady: at least one scrape per window (>= 4)" python3 -c "assert $S1 >= 4"
check "steady: gpu_temp max is the served max (44)" [ "$(measured r1 dcgm.gpu_temp.max)" = 44 ]
check "steady: xid delta 0, no scrape error" [ "$(measured r1 dcgm.xid_errors.delta)/$(measured r1 telemetry.scrape_errors)" = 0/0 ]
check "steady: power max is GPU 0's reading; the FP64 blank is not a reading" python3 -c "assert abs($(measured r1 dcgm.power_w.max) - 112.437) < 1e-9"
check "steady: one power reading per scrape (GPU 1's is blank)" [ -n "$S1" -a "$(measured r1 dcgm.power_w.count)" = "$S1" ]
check "steady: two blanks per scrape counted missing (power FP64, NVLink INT64)" [ "$(measured r1 telemetry.missing)" = $((2 * S1)) ]
check "steady: every window has its scrape (>= 4 windows, none without)" [ "$(sql "$T/r1/run.db" "select count(*) >= 4 and sum(counter = 0) = 0 from window_metrics where name='telemetry.scrapes'")" = 1 ]

# --- 2. the XID counter rises mid-run: fail ---------------------------------------
scenario "$T/xid.json" 5s "[\"$URL\"]"
"$GAUNTLET" run "$T/xid.json" --out "$T/r2" >"$T/r2.log" 2>&1 &
GP=$!
PIDS+=("$GP")
# mid-run: two windows stored with their scrapes (the baselines taken)
until_ok 30 sql_is "$T/r2/run.db" "select count(*) >= 2 from window_metrics where name='telemetry.scrapes' and counter > 0" 1
dcgm "$D/metrics" 79 8        # XID 79 (fallen off the bus) on GPU 1; 3 more SBEs on GPU 0
wait "$GP"
rc=$?
echo "xid: exit=$rc xid_errors.delta=$(measured r2 dcgm.xid_errors.delta) ecc_sbe.delta=$(measured r2 dcgm.ecc_sbe.delta) scrapes=$(measured r2 telemetry.scrapes)"
check "xid: run fails (exit 1)" [ $rc -eq 1 ]
check "xid: verdict fail, the XID target is what failed" python3 -c "
import json; r=json.load(open('$T/r2/report.json'))
assert r['verdict'] == 'fail', r['verdict']
bad = [t['metric'] for t in r['targets'] if t['pass'] is False]
assert bad == ['dcgm.xid_errors.delta'], bad"
check "xid: measured delta is the increase (79)" [ "$(measured r2 dcgm.xid_errors.delta)" = 79 ]
check "xid: report.json metrics.telemetry carries the run's figures" json "$T/r2/report.json" \
	"(lambda t: t['dcgm.xid_errors.delta'] == 79 and t['dcgm.gpu_temp']['max'] == 44 and t['telemetry.scrapes'] >= 4)(r['metrics']['telemetry']) or sys.exit(1)"
check "xid: the ECC counter's increase is measured too (3)" [ "$(measured r2 dcgm.ecc_sbe.delta)" = 3 ]
check "xid: the increase lies in one window" [ "$(sql "$T/r2/run.db" "select count(*) from window_metrics where name='dcgm.xid_errors.delta' and counter = 79")" = 1 ]
dcgm "$D/metrics" 0 5

# --- 2b. the XID rises while no controller runs: resume still counts it -------------
scenario "$T/crash.json" 6s "[\"$URL\"]"
"$GAUNTLET" run "$T/crash.json" --out "$T/r2b" >"$T/r2b.log" 2>&1 &
GP=$!
PIDS+=("$GP")
# killed once two windows are stored with their scrapes (the baselines)
until_ok 30 sql_is "$T/r2b/run.db" "select count(*) >= 2 from window_metrics where name='telemetry.scrapes' and counter > 0" 1
kill -9 "$GP"; wait "$GP" 2>/dev/null
dcgm "$D/metrics" 79 5        # while the controller is dead
"$GAUNTLET" resume "$T/r2b" >"$T/r2b-resume.log" 2>&1
rc=$?
echo "crash: resume exit=$rc xid_errors.delta=$(measured r2b dcgm.xid_errors.delta)"
check "crash: the increase while the controller was dead is counted after resume (exit 1, delta 79)" \
	bash -c "[ $rc -eq 1 ] && [ '$(measured r2b dcgm.xid_errors.delta)' = 79 ]"
check "crash: resume took the baselines from the store" grep -q 'counter baseline(s) taken from the store' "$T/r2b-resume.log"
dcgm "$D/metrics" 0 5

# --- 3. failures are data -----------------------------------------------------------
# two probes of three fail each round: up to 4 rounds in 3 s, 8 errors
scenario "$T/down.json" 3s "[\"$URL\", \"http://127.0.0.1:$FREE/metrics\", \"${URL%/metrics}/garbage\"]" '"preflight": false' \
	'"telemetry.scrape_errors": "<= 10"'
"$GAUNTLET" run "$T/down.json" --out "$T/r3" >"$T/r3.log" 2>&1
rc=$?
echo "down: exit=$rc scrapes=$(measured r3 telemetry.scrapes) scrape_errors=$(measured r3 telemetry.scrape_errors)"
check "down: a dead and a garbled probe do not stop the run (exit 0, state finished)" \
	json "$T/r3/report.json" "r['run']['state'] == 'finished' and $rc == 0 or sys.exit(1)"
check "down: two failures per scrape round counted" python3 -c "assert $(measured r3 telemetry.scrapes) >= 2 and $(measured r3 telemetry.scrape_errors) == 2 * $(measured r3 telemetry.scrapes)"
check "down: each kind logged once, in the run's events" python3 -c "
import sqlite3; c=sqlite3.connect('$T/r3/run.db')
m=[r[0] for r in c.execute(\"select message from events where source='telemetry'\")]
assert len(m) == 2 and any('(connect)' in x for x in m) and any('(parse)' in x and 'line 2' in x for x in m), m"
scenario "$T/pf.json" 3s "[\"http://127.0.0.1:$FREE/metrics\"]"
"$GAUNTLET" run "$T/pf.json" --out "$T/r4" >"$T/r4.log" 2>&1
rc=$?
check "preflight: a probe that does not answer stops the run (exit 4), naming it" \
	bash -c "[ $rc -eq 4 ] && grep -q 'preflight: http://127.0.0.1:$FREE/metrics: DCGM exporter answers and parses: FAILED' '$T/r4.log'"

# --- 4. validate ---------------------------------------------------------------------
scenario "$T/bad.json" 3s '["ftp://gpu-a/metrics"]' '"series": ["gpu_tmp", "load1"]'
python3 - "$T/bad.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); del s["targets"]["steady"]["dcgm.xid_errors.delta"]
json.dump(s, open(sys.argv[1], "w"), indent=1)
PY
"$GAUNTLET" validate "$T/bad.json" >"$T/bad.log" 2>&1
rc=$?
check "validate: exit 2" [ $rc -eq 2 ]
check "validate: bad URL named with its path" grep -q 'workloads.telemetry.dcgm\[0\]: expected an http:// or https:// URL' "$T/bad.log"
check "validate: unknown series with a suggestion" grep -q "workloads.telemetry.series\[0\]: unknown series 'gpu_tmp' (did you mean 'gpu_temp'?)" "$T/bad.log"
check "validate: node series without a node probe" grep -q "series\[1\]: series 'load1' comes from node exporter" "$T/bad.log"
scenario "$T/slow.json" 3s "[\"$URL\"]" '"timeout": "2s"'
"$GAUNTLET" validate "$T/slow.json" >"$T/slow.log" 2>&1
check "validate: a timeout not shorter than every is one error, named once" \
	bash -c "grep -q 'workloads.telemetry: timeout must be shorter than every' '$T/slow.log' && grep -q ': 1 error(s)' '$T/slow.log'"
scenario "$T/nox.json" 3s "[\"$URL\"]"
python3 - "$T/nox.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); del s["targets"]["steady"]["dcgm.xid_errors.delta"]
json.dump(s, open(sys.argv[1], "w"), indent=1)
PY
"$GAUNTLET" validate "$T/nox.json" >"$T/nox.log" 2>&1
check "validate: a DCGM probe without an XID target is a failed gate" grep -q 'missing threshold for dcgm.xid_errors.delta (the telemetry workload is present)' "$T/nox.log"
finish
