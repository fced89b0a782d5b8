#!/usr/bin/env bash
# test_telemetry_nodes.sh - GPUs as nodes (docs/nodes.md) against ground
# truth: a real HTTP server on loopback serves DCGM exporter text for two
# hosts of four GPUs each. Probe A carries the exporter's Hostname label
# ("dgx-a", the Slurm node of scenario host node-a); probe B has none, so
# its GPUs are named and placed by the probe URL's host (127.0.0.1, the
# address of scenario host node-b; A's URL has it too: the label wins).
#  1. clean: every GPU within a few degrees and MHz of the others (most
#     at the same reading: only the scoring floors keep the others from
#     being suspects), no counter moving: no suspect; all 8 GPUs in nodes.list with a
#     temperature and a clock, each window at most one row per GPU and
#     figure;
#  2. dgx-a/gpu1 runs at 79 C against 40-45, node-b/gpu2 clocks 1290 MHz
#     against 1950-1980; mid-run dgx-a/gpu3 raises XID 79 and node-b/gpu0
#     counts 2 double-bit ECC errors: the suspects are exactly those four,
#     each kind gpu on its host, by the figure that was made bad, with its
#     score printed; the healthy six are not.
source "$(dirname "$0")/lib.sh"

D=$T/www
mkdir -p "$D/a" "$D/b"
# dcgm FILE HOSTNAME|- "TEMP CLOCK XID DBE" x4: exporter text, written atomically
dcgm() {
	python3 - "$@" <<'PY'
import os, sys
path, hostname, gpus = sys.argv[1], sys.argv[2], sys.argv[3:]
fams = [("DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C)."),
        ("DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz)."),
        ("DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered."),
        ("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "counter", "Total number of double-bit volatile ECC errors."),
        ("DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).")]
out = []
for k, (name, typ, hlp) in enumerate(fams):
    out.append("# HELP %s %s\n# TYPE %s %s" % (name, hlp, name, typ))
    for i, g in enumerate(gpus):
        v = (g.split() + ["612.5"])[k]
        labels = 'gpu="%d",UUID="GPU-%08d-aaaa-bbbb-cccc-%012d",pci_bus_id="00000000:%02X:00.0",device="nvidia%d",modelName="NVIDIA H100 80GB HBM3"' % (i, i, i, 0x18 + i, i)
        if hostname != "-":
            labels += ',Hostname="%s"' % hostname
        out.append("%s{%s} %s" % (name, labels, v))
open(path + ".tmp", "w").write("\n".join(out) + "\n")
os.rename(path + ".tmp", path)
PY
}
# clean: most GPUs read the same whole degree and clock (the MAD is 0), so
# only the floors (2 C or 5 %; 50 MHz or 5 %) keep 45 C and 1950 MHz from
# being suspects
dcgm "$D/a/metrics" dgx-a "43 1980 0 0" "43 1980 0 0" "44 1965 0 0" "43 1980 0 0"
dcgm "$D/b/metrics" - "43 1980 0 0" "45 1950 0 0" "43 1980 0 0" "42 1980 0 0"
serve_dir "$D"
U="http://127.0.0.1:$SERVED_PORT"

scenario() {
	python3 - "$1" "$2" "$U" <<'PY'
import json, sys
path, duration, u = sys.argv[1:4]
sc = {"name": "gpu-nodes", "duration": duration, "window": "1s",
      "hosts": {"node-a": {"local": True, "slurm_node": "dgx-a"},
                "node-b": {"local": True, "address": "127.0.0.1"}},
      "workloads": {"telemetry": {"dcgm": [u + "/a/metrics", u + "/b/metrics"], "every": "1s", "timeout": "500ms"}},
      "targets": {"steady": {"dcgm.xid_errors.delta": "<= 1000", "telemetry.scrape_errors": "== 0"}}}
json.dump(sc, open(path, "w"), indent=1)
PY
}
# rj FILE 'python statements over r (report.json)': fails when they exit non-zero or raise
rj() { python3 -c "import json, sys
r = json.load(open(sys.argv[1]))
$2" "$1"; }
# suspects RUN -> "kind name host score windows evidence" lines
suspects() { python3 -c "
import json; r=json.load(open('$T/$1/report.json'))
for s in r['suspects']: print(s['kind'], s['name'], s['host'], s['score'], s['windows'], '|', s['evidence'])"; }

# --- 1. clean: no suspect ---------------------------------------------------------
scenario "$T/clean.json" 6s
"$GAUNTLET" run "$T/clean.json" --out "$T/r1" >"$T/r1.log" 2>&1
rc=$?
check "clean: run passes (exit 0)" [ $rc -eq 0 ]
echo "clean: suspects: [$(suspects r1 | tr '\n' ';')]; the GPUs' scores:" $(python3 -c "
import json; r=json.load(open('$T/r1/report.json'))
print(' '.join('%s:%s=%s' % (n['name'], n['figure'], n['score']) for n in r['nodes']['list'] if n['kind'] == 'gpu'))")
check "clean: no suspect" json "$T/r1/report.json" "r['suspects'] == [] or sys.exit(1)"
check "clean: 8 GPUs, each a temperature and a clock, on its host, named HOST/gpuN" rj "$T/r1/report.json" "
got = sorted((n['name'], n['host'], n['figure']) for n in r['nodes']['list'] if n['workload'] == 'telemetry' and n['kind'] == 'gpu')
want = sorted((h + '/gpu%d' % i, s, f) for h, s in (('dgx-a', 'node-a'), ('node-b', 'node-b')) for i in range(4) for f in ('temp_c', 'sm_clock_mhz'))
got == want or sys.exit('got %s' % got)"
check "clean: the GPUs' means are the served readings (dgx-a/gpu2 44 C, node-b/gpu1 1950 MHz)" rj "$T/r1/report.json" "
m = {(n['name'], n['figure']): n['mean'] for n in r['nodes']['list']}
abs(m[('dgx-a/gpu2', 'temp_c')] - 44) < 1e-9 and abs(m[('node-b/gpu1', 'sm_clock_mhz')] - 1950) < 1e-9 or sys.exit(str(m))"
check "clean: one row per window, GPU and figure; 16 a window at most" [ "$(sql "$T/r1/run.db" \
	"select max(c) from (select count(*) c from node_figures where workload='telemetry' group by idx)")" = 16 ]
check "clean: each GPU judged in at least 3 windows" rj "$T/r1/report.json" "
all(n['windows_judged'] >= 3 for n in r['nodes']['list'] if n['kind'] == 'gpu') or sys.exit(str([n['windows_judged'] for n in r['nodes']['list']]))"

# --- 2. a hot GPU, a throttled one, an XID and double-bit ECC errors mid-run ------------
dcgm "$D/a/metrics" dgx-a "41 1980 0 0" "79 1980 0 0" "43 1965 0 0" "44 1980 0 0"
dcgm "$D/b/metrics" - "42 1980 0 0" "45 1950 0 0" "44 1290 0 0" "40 1980 0 0"
scenario "$T/bad.json" 7s
"$GAUNTLET" run "$T/bad.json" --out "$T/r2" >"$T/r2.log" 2>&1 &
GP=$!
PIDS+=("$GP")
# mid-run: two windows stored with their scrapes (the counters' baselines taken)
until_ok 30 sql_is "$T/r2/run.db" "select count(*) >= 2 from window_metrics where name='telemetry.scrapes' and counter > 0" 1
dcgm "$D/a/metrics" dgx-a "41 1980 0 0" "79 1980 0 0" "43 1965 0 0" "44 1980 79 0"
dcgm "$D/b/metrics" - "42 1980 0 2" "45 1950 0 0" "44 1290 0 0" "40 1980 0 0"
wait "$GP"
rc=$?
echo "bad: exit=$rc; suspects:"
suspects r2 | sed 's/^/  /'
check "bad: the run ends (exit 0: suspects alone do not fail it)" [ $rc -eq 0 ]
check "bad: the suspects are exactly the four GPUs, kind gpu, each on its host" rj "$T/r2/report.json" "
got = sorted((s['kind'], s['name'], s['host'], s['workload']) for s in r['suspects'])
want = sorted([('gpu', 'dgx-a/gpu1', 'node-a', 'telemetry'), ('gpu', 'node-b/gpu2', 'node-b', 'telemetry'),
               ('gpu', 'dgx-a/gpu3', 'node-a', 'telemetry'), ('gpu', 'node-b/gpu0', 'node-b', 'telemetry')])
got == want or sys.exit('got %s' % got)"
ev() { python3 -c "
import json; r=json.load(open('$T/r2/report.json'))
print([s for s in r['suspects'] if s['name'] == '$1'][0]['evidence'])"; }
check "bad: the hot GPU by its temperature (79 against the peers' 43.5), at least 3 windows, z >= 4" rj "$T/r2/report.json" "
s = [s for s in r['suspects'] if s['name'] == 'dgx-a/gpu1'][0]
s['score'] >= 4 and s['windows'] >= 3 and s['evidence'].startswith('GPU temperature 79 C against the peers\' median 43.5') or sys.exit(str(s))"
check "bad: the throttled GPU by its SM clock (1290 against 1980), not its temperature" rj "$T/r2/report.json" "
s = [s for s in r['suspects'] if s['name'] == 'node-b/gpu2'][0]
s['score'] >= 4 and s['windows'] >= 3 and s['evidence'].startswith('SM clock 1.29e+03 MHz against the peers\' median 1.98e+03') and 'temperature' not in s['evidence'] or sys.exit(str(s))"
check "bad: the XID GPU by one XID, its code 79" [ "$(ev dgx-a/gpu3)" = "XIDs: 1 change(s) in 1 window(s), the largest code 79" ]
check "bad: the ECC GPU by its 2 double-bit errors" [ "$(ev node-b/gpu0)" = "double-bit ECC errors: 2 errors in 1 window(s)" ]
check "bad: report.md's Nodes section names the hot GPU on its host" grep -q 'dgx-a/gpu1' "$T/r2/report.md"
check "bad: XID and ECC rows only where they happened (one each); 18 rows a window at most" \
	[ "$(sql "$T/r2/run.db" "select sum(figure = 'xid') || '/' || sum(figure = 'ecc_dbe') || '/' || (select max(c) <= 18 from (select count(*) c from node_figures group by idx)) from node_figures")" = 1/1/1 ]
finish
