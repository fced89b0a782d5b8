#!/usr/bin/env bash
# test_drift.sh - drift targets (docs/metrics.md, "Drift") end to end over
# loopback against `gauntlet target`, whose TTFT is known: --ttft-ms 20
# plus, on one server, --ttft-drift-ms-per-hour 36000 (10 ms more each
# second: a week's slow rise packed into a 30 s run, so the bounds are
# scaled with it). The true slope is 36000 ms/h x 24 = 864000 ms/day.
# Each scenario holds the same targets: TTFT p99 at most 5000 ms (the
# drifting server ends near 320 ms: it passes) and a drift of at most
# 300000 %/day of the level at the start (the drift is some 1.1e6 %/day of
# a level near 80 ms; a flat server's p99, 20 requests a window, wanders by
# some 1e4 %/day over 26 s, and reached 1.2e5 in a CI run beside other
# tests and a CPU hog: see the printed figures), and TTFT p50 a drift of at most 100000
# ms/day (the drift: 864000; flat: some 1e3); the first 4 s are a
# warm-up, fitted by none.
# Checked: (a) the drift target fails the drifting server while its
# absolute target passes; (b) the flat server passes both drift targets;
# (c) the fitted slopes (p99 and p50) lie within 10 % of the true one;
# the report carries the fit (report.json, report.md, report.html,
# junit.xml), and a second `gauntlet report` writes the same bytes. The
# two runs go side by side (30 s).
source "$(dirname "$0")/lib.sh"

TRUE=864000 # ms/day: 36000 ms/h x 24
start_target drift --ttft-ms 20 --prefill-us-per-token 0 --itl-ms 2 --output-tokens 4 --ttft-drift-ms-per-hour 36000
DRIFT=$ADDR
start_target flat --ttft-ms 20 --prefill-us-per-token 0 --itl-ms 2 --output-tokens 4
FLAT=$ADDR
for n in drift flat; do
	a=$DRIFT
	[ $n = flat ] && a=$FLAT
	python3 - "$T/$n.json" "$a" <<'PY'
import json, sys
path, addr = sys.argv[1:]
inf = {"endpoints": ["http://%s/v1" % addr], "model": "gauntlet-target", "input_tokens": 16,
       "output_tokens": 4, "ignore_eos": True, "timeout": "10s",
       "arrival": {"mode": "constant", "rate": 20}}
sc = {"name": "drift-test", "duration": "30s", "window": "1s", "workloads": {"inference": inf},
      "phases": [{"name": "warmup", "for": "4s"}, {"name": "steady", "for": "26s"}],
      "targets": {"steady": {
          "inference.ttft_ms.p99": {"value": "<= 5000", "drift_per_day": "<= 300000%"},
          "inference.ttft_ms.p50": {"drift_per_day": "<= 100000"},
          "inference.error_rate": "<= 0.01"}}}
json.dump(sc, open(path, "w"), indent=1)
PY
done
check "validate lists the drift targets" sh -c "'$GAUNTLET' validate '$T/drift.json' | grep -q 'inference.ttft_ms.p99 *drift per day <= 300000%'"
run_all drift flat

# t RUN KIND METRIC 'python over t (the target)': like lib.sh's json
t() {
	python3 -c "
import json,sys
r=json.load(open('$T/$1/report.json'))
t=[x for x in r['targets'] if x['kind']=='$2' and x['metric']=='$3']
assert len(t)==1, t
t=t[0]; d=t.get('drift') or {}
v=($4)
if v is not True: print(v)
sys.exit(0 if v else 1)"
}
for n in drift flat; do
	for m in p99 p50; do
		echo "$n TTFT $m: measured $(t $n drift_per_day inference.ttft_ms.$m "'%s %s, slope %s ms/day (95 %%: %s to %s), level %s ms, %d windows' % (t['measured'], d['unit'], d['slope_per_day'], d['low_per_day'], d['high_per_day'], d['level'], d['windows'])") (true slope: $([ $n = drift ] && echo $TRUE || echo 0) ms/day)"
	done
done
check "(a) drifting: the absolute target passes (p99 under 5000 ms)" t drift value inference.ttft_ms.p99 "t['pass'] and 0 < t['measured'] <= 5000"
check "(a) drifting: the p99 drift target fails" t drift drift_per_day inference.ttft_ms.p99 "not t['pass'] and t['measured'] > 300000"
check "(a) drifting: the p50 drift target fails" t drift drift_per_day inference.ttft_ms.p50 "not t['pass'] and t['measured'] > 100000"
check "(a) drifting: the verdict fails" json "$T/drift/report.json" "r['verdict'] == 'fail'"
check "(b) flat: the p99 drift target passes" t flat drift_per_day inference.ttft_ms.p99 "t['pass'] and t['measured'] <= 300000"
check "(b) flat: the p50 drift target passes" t flat drift_per_day inference.ttft_ms.p50 "t['pass'] and t['measured'] <= 100000"
check "(b) flat: the verdict passes" json "$T/flat/report.json" "r['verdict'] == 'pass'"
for m in p99 p50; do
	check "(c) drifting: the $m slope within 10 % of the true $TRUE ms/day" \
		t drift drift_per_day inference.ttft_ms.$m "abs(d['slope_per_day'] - $TRUE) <= 0.1 * $TRUE"
	check "(c) drifting: its $m interval is about the slope" \
		t drift drift_per_day inference.ttft_ms.$m "d['low_per_day'] <= d['slope_per_day'] <= d['high_per_day']"
done
check "relative: measured is the slope in % of the level at the start" \
	t drift drift_per_day inference.ttft_ms.p99 "abs(t['measured'] - 100 * d['slope_per_day'] / d['level']) <= 1e-9 * t['measured'] and d['unit'] == '%/day'"
check "absolute: measured is the slope itself" \
	t drift drift_per_day inference.ttft_ms.p50 "t['measured'] == d['slope_per_day'] and d['unit'] == 'per day'"
# the steady windows the absolute target judged, less a last one cut
# short: the fit's windows; the 4 s of warm-up are none of them
STEADY=$(t drift value inference.ttft_ms.p99 "t['windows_judged']")
check "every complete steady window fitted, each its own point, no warm-up window ($STEADY steady)" \
	t drift drift_per_day inference.ttft_ms.p99 "d['windows'] == d['points'] == t['windows_judged'] and $STEADY - 1 <= d['windows'] <= $STEADY <= 27"
check "report.md shows the drift row" grep -q '| FAIL | steady | `inference.ttft_ms.p99` | drift/day <= 300000% | .*%/day (95 %: ' "$T/drift/report.md"
check "report.html shows the drift row" grep -q '<td>drift/day &lt;= 300000%</td><td class="n">[0-9.e+]*%/day (95 %: ' "$T/drift/report.html"
check "junit.xml names the drift case" grep -q 'name="steady inference.ttft_ms.p99 drift_per_day"' "$T/drift/junit.xml"
for f in report.json report.md report.html; do cp "$T/drift/$f" "$T/first.$f"; done
"$GAUNTLET" report "$T/drift" >"$T/report2.log" 2>&1
for f in report.json report.md report.html; do
	check "a second gauntlet report writes $f byte for byte again" cmp "$T/first.$f" "$T/drift/$f"
done
finish
