#!/usr/bin/env bash
# test_dashboard.sh - contrib/grafana/gauntlet.json queries only what the
# metrics endpoint serves. A real 15 s run with every workload the
# dashboard draws: inference against a real `gauntlet target` (with an
# slo, so goodput exists), storage (mixed reads and writes in the test's
# directory, rate-capped), training (gauntlet-train, 2 ranks under real
# mpirun) and a null fault (so a fault is active), with --metrics-listen on
# port 0. Three scrapes mid-run, while the fault is in, and one after the
# end (--metrics-linger); then:
#  - the checker reads PromQL right (expressions with known selectors);
#  - the dashboard is valid JSON, schema 39, its data source the
#    DS_PROMETHEUS input, every panel with a data source and a target;
#  - the scrapes hold what the run was doing (ground truth: the fault
#    injected at 4 s for 8 s is active in each; requests, steps and storage
#    bytes counted), so a passing check below is not a check on empty text;
#  - tests/scripts/dashboard_check.py --all finds every series each
#    panel's PromQL selects in the scrapes (exit 0, nothing absent), the
#    optional ones (a fault in, an slo) too; on a scrape without those it
#    passes naming them optional, and fails with --all;
#  - negative controls on copies: a panel querying a metric the endpoint
#    does not serve, a figure it does not have, and a panel without a
#    target each make the checker exit 1 naming what is wrong.
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || skip "curl is needed to scrape the endpoint"
DASH=$GL_SOURCE_DIR/contrib/grafana/gauntlet.json
CHECK=$GL_SOURCE_DIR/tests/scripts/dashboard_check.py
T0=$(date +%s)

# ---- the dashboard itself --------------------------------------------------------------
check "the dashboard is valid JSON, schemaVersion 39" json "$DASH" "r['schemaVersion'] == 39"
check "its data source is the DS_PROMETHEUS input and a datasource variable of that name" json "$DASH" \
	"[i['name'] for i in r['__inputs']] == ['DS_PROMETHEUS'] and r['__inputs'][0]['pluginId'] == 'prometheus' and
	 any(v['name'] == 'DS_PROMETHEUS' and v['type'] == 'datasource' and v['query'] == 'prometheus' for v in r['templating']['list'])"
check "job and instance variables from gauntlet_run_info" json "$DASH" \
	"{v['name']: v['definition'] for v in r['templating']['list'] if v['type'] == 'query'} == {'job': 'label_values(gauntlet_run_info, job)', 'instance': 'label_values(gauntlet_run_info{job=~\"\$job\"}, instance)'}"
# every panel (rows' own panels too) other than a row: a data source that
# is the input, and at least one target with an expr, each target's data
# source the same
check "every panel has the DS_PROMETHEUS data source and at least one target with a PromQL expr" json "$DASH" \
	"(lambda ps: len(ps) >= 12 and all(p.get('datasource', {}).get('uid') == '\${DS_PROMETHEUS}' and p.get('targets')
	  and all(t.get('expr') and t.get('datasource', {}).get('uid') == '\${DS_PROMETHEUS}' for t in p['targets']) for p in ps))(
	  [p for q in r['panels'] for p in [q] + q.get('panels', []) if p['type'] != 'row'])"
check "panels for each figure asked for" json "$DASH" \
	"(lambda e: all(k in e for k in ('inference.ttft_ms\",stat=\"p50', 'inference.ttft_ms\",stat=\"p99', 'inference.error_rate',
	  'inference.goodput', 'inference.throughput_rps', 'inference.output_tokens_per_s', 'training.step_time_s', 'training.busbw_gbps',
	  'storage.read_gbps', 'storage.write_gbps', 'gauntlet_active_faults', 'gauntlet_phase_info', 'gauntlet_targets_failing')))(
	  ' '.join(t['expr'] for p in r['panels'] for t in p.get('targets', [])))"

# ---- the checker's PromQL reading, on expressions with known answers ----------------------
check "dashboard_check.py takes the series selectors out of PromQL: functions, by/on lists, ranges, offsets, strings, variables, _bucket, recording names" \
	python3 - "$CHECK" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("dc", sys.argv[1]); dc = importlib.util.module_from_spec(spec); spec.loader.exec_module(dc)
cases = [
    ('histogram_quantile(0.99, sum by (le, job) (rate(foo_bucket{job=~"$job"}[$__rate_interval])))', [("foo_bucket", [("job", "=~", "$job")])]),
    ('sum(rate(a_total[5m])) by (instance) / on(instance) group_left(x) b offset 1h30m', [("a_total", []), ("b", [])]),
    ('gauntlet_metric{metric="inference.ttft_ms",stat="p99"} * 1e3 > bool 0.5', [("gauntlet_metric", [("metric", "=", "inference.ttft_ms"), ("stat", "=", "p99")])]),
    ('{__name__=~"gauntlet_.*_total"} @ end()', [(None, [("__name__", "=~", "gauntlet_.*_total")])]),
    ('job:gauntlet_ttft:p99 unless ignoring (le) absent(up{x!="y"})', [("job:gauntlet_ttft:p99", []), ("up", [("x", "!=", "y")])]),
    ('label_replace(c, "dst", "$1", "src", "(.*)") and topk(3, d)[5m:1m]', [("c", []), ("d", [])]),
    ('count_over_time(z[${__range}]) - 1.5e3 + 0x1F + Inf - NaN', [("z", [])]),
]
bad = [(e, dc.selectors(e), want) for e, want in cases if dc.selectors(e) != want]
for e, got, want in bad:
    print("  %s\n    got  %s\n    want %s" % (e, got, want))
# a histogram's _bucket is found through its # TYPE; a recording rule's name is not
sc = ({"foo_bucket": [{"le": "1"}]}, {"foo": "histogram"})
ok = dc.found_in("foo_bucket", [], sc) and dc.found_in("foo_count", [], sc) and not dc.found_in("job:foo:rate5m", [], sc)
print("%d of %d expressions read as expected; histogram and recording names %s" % (len(cases) - len(bad), len(cases), "right" if ok else "WRONG"))
sys.exit(1 if bad or not ok else 0)
PY

# ---- a real run with every workload ------------------------------------------------------
# three replicas: the node panel's z needs three peers (docs/nodes.md)
start_target tgt --ttft-ms 20 --itl-ms 5 --output-tokens 8 --prefill-us-per-token 0
ADDR_A=$ADDR
start_target tgt2 --ttft-ms 20 --itl-ms 5 --output-tokens 8 --prefill-us-per-token 0
ADDR_B=$ADDR
start_target tgt3 --ttft-ms 20 --itl-ms 5 --output-tokens 8 --prefill-us-per-token 0
ADDR_C=$ADDR
ADDR=$ADDR_A
training_part
[ -n "$TRAINING" ] && TRAIN_TARGET=', "training.step_time_s.p99": "<= 2", "training.steps": ">= 5"'
mkdir -p "$T/disk"
cat > "$T/sc.json" <<JSON
{ "name": "dashboard", "duration": "15s", "window": "1s", "hosts": { "me": { "local": true } },
  "workloads": {
    "inference": { "endpoints": ["http://$ADDR_A/v1", "http://$ADDR_B/v1", "http://$ADDR_C/v1"], "api": "chat", "model": "gauntlet-target",
                   "arrival": { "mode": "poisson", "rate": 20 }, "output_tokens": 8, "timeout": "5s",
                   "slo": { "ttft_ms": 1000, "tpot_ms": 200 } },
    "storage": { "path": "$T/disk", "allowed_roots": ["$T"], "pattern": "mixed", "threads": 1, "bs": "64KiB",
                 "file_size": "4MiB", "files": 2, "read_pct": 50, "reserve": "0", "rate_cap": "16MiB" }
    ${TRAINING}
  },
  "phases": [ { "name": "warmup", "for": "3s" }, { "name": "steady", "for": "12s" } ],
  "faults": [ { "id": "null-dash", "at": "4s", "for": "8s", "kind": "null", "target": "me",
                "params": { "marker": "$T/null.marker" } } ],
  "targets": {
    "steady": { "inference.ttft_ms.p99": "<= 2000", "inference.error_rate": "<= 0.01", "inference.goodput": ">= 0.9",
                "storage.write_gbps": ">= 0.001", "storage.read_gbps": ">= 0.001" ${TRAIN_TARGET:-} },
    "degraded": { "inference.error_rate": "<= 0.01" },
    "recovery": { "recovery_s": "<= 8", "restore_s": "<= 8" } } }
JSON
"$GAUNTLET" validate "$T/sc.json" >"$T/validate.log" 2>&1 || { cat "$T/validate.log"; bad "the scenario validates"; finish; }
"$GAUNTLET" run "$T/sc.json" --out "$T/run" --metrics-listen 127.0.0.1:0 --metrics-linger 2s >"$T/run.log" 2>&1 &
RUN=$!; PIDS+=("$RUN")
wait_log "$T/run.log" 'metrics at http://' 30
URL=$(grep -o 'http://[0-9.:]*/metrics' "$T/run.log" | head -1)
check "the endpoint is up ($URL)" [ -n "$URL" ]
# the fault is in from 4 s to 12 s (time scale 1): scrape once the journal
# has it injected, after each of the next three windows (1 s) it is in
mkdir -p "$T/scrapes"
until_ok 60 sql_is "$T/run/run.db" "select state from faults where id='null-dash'" injected
NW=$(sql "$T/run/run.db" "select count(*) from windows")
for k in 1 2 3; do
	wait_windows "$T/run/run.db" $((NW + k)) 30
	curl -s -m 5 -o "$T/scrapes/scrape$k.txt" "$URL"
done
# and one more after the end (--metrics-linger): the run's final figures
final_or_gone() {
	curl -s -m 5 -o "$T/final.tmp" "$URL" 2>/dev/null && grep -q 'state="finished"' "$T/final.tmp" &&
		mv "$T/final.tmp" "$T/scrapes/scrape4-final.txt" && return 0
	gone "$RUN"
}
until_ok 60 final_or_gone
wait "$RUN"; rc=$?
echo "run exit $rc"
[ $rc -eq 0 ] || tail -20 "$T/run.log"
check "the run passes (exit $rc)" [ $rc -eq 0 ]
S=("$T"/scrapes/scrape[123].txt)
check "a scrape after the end, state finished" [ -s "$T/scrapes/scrape4-final.txt" ]
val() { sed -n "s/^$2 //p" "$1" | head -1; }
for f in "${S[@]}"; do
	b=$(basename "$f")
	check "$b: the null fault is active in it (injected 4 s..12 s): gauntlet_active_faults $(val "$f" gauntlet_active_faults), null-dash" \
		bash -c '[ "$(sed -n "s/^gauntlet_active_faults //p" "$1")" = 1 ] && grep -q "^gauntlet_fault_active{id=\"null-dash\"} 1$" "$1"' _ "$f"
	check "$b: requests counted ($(val "$f" gauntlet_inference_requests_total)), storage bytes written ($(val "$f" gauntlet_storage_write_bytes_total))" \
		bash -c '[ "${1:-0}" -gt 0 ] && [ "${2:-0}" -gt 0 ]' _ "$(val "$f" gauntlet_inference_requests_total)" "$(val "$f" gauntlet_storage_write_bytes_total)"
	if [ -n "$TRAINING" ]; then
		check "$b: training steps counted ($(val "$f" gauntlet_training_steps_total))" \
			bash -c '[ "${1:-0}" -gt 0 ]' _ "$(val "$f" gauntlet_training_steps_total)"
	fi
done
DCHECK=$DASH
if [ -z "$TRAINING" ]; then
	# training could not run here (part skipped above): check the rest
	DCHECK=$T/no-training.json
	python3 - "$DASH" "$DCHECK" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["panels"] = [p for p in d["panels"] if not any("training." in t.get("expr", "") for t in p.get("targets", []))]
json.dump(d, open(sys.argv[2], "w"))
PY
fi
(cd "$T/scrapes" && python3 "$CHECK" --all "$DCHECK" scrape*.txt) >"$T/check.txt" 2>&1; crc=$?
cat "$T/check.txt"
check "dashboard_check.py --all finds every series the dashboard selects in the scrapes, the optional ones too (exit $crc)" \
	bash -c '[ "$1" = 0 ] && grep -q " 0 absent, 0 other problems$" "$2" && ! grep -q "^ABSENT" "$2"' _ "$crc" "$T/check.txt"
check "it names each selector with where it was found (TTFT p99 of the window in a scrape)" \
	grep -q '^found  gauntlet_metric{metric="inference.ttft_ms",stat="p99",over="window"} in .*scrape1.txt' "$T/check.txt"
# ---- optional series: absent from a scrape of a run without them -------------------------
# the last scrape without the series only some runs have (a fault in, an
# slo): without --all the checker passes, naming them; with it, it fails
grep -v -e '^gauntlet_fault_active' -e 'metric="inference.goodput"' "${S[2]}" > "$T/noopt.txt"
python3 "$CHECK" "$DCHECK" "$T/noopt.txt" >"$T/opt.txt" 2>&1; r1=$?
python3 "$CHECK" --all "$DCHECK" "$T/noopt.txt" >"$T/optall.txt" 2>&1; r2=$?
grep -E '^(absent|ABSENT)' "$T/opt.txt" "$T/optall.txt" | sed 's/^/   /'
check "optional series absent (no fault in, no slo): exit 0 naming each as optional, exit 1 with --all ($r1, $r2)" \
	bash -c '[ "$1" = 0 ] && [ "$(grep -c "^absent .*, optional: " "$3")" = 2 ] && [ "$2" = 1 ] && [ "$(grep -c "^ABSENT " "$4")" = 2 ]' _ "$r1" "$r2" "$T/opt.txt" "$T/optall.txt"
# ---- negative controls: the checker fails on what is not there ----------------------------
add_panel() { # OUT TITLE EXPR-or-empty: the dashboard with one more panel
	python3 - "$DCHECK" "$1" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ds = {"type": "prometheus", "uid": "${DS_PROMETHEUS}"}
p = {"id": 999, "type": "timeseries", "title": sys.argv[3], "datasource": ds,
     "gridPos": {"x": 0, "y": 99, "w": 12, "h": 8}, "targets": []}
if sys.argv[4]:
    p["targets"].append({"datasource": ds, "expr": sys.argv[4], "refId": "A"})
d["panels"].append(p)
json.dump(d, open(sys.argv[2], "w"))
PY
}
neg() { # LABEL FILE WANT-IN-OUTPUT
	python3 "$CHECK" "$2" "${S[@]}" >"$T/neg.txt" 2>&1; local r=$?
	echo "   ($1: exit $r; $(grep -E '^(ABSENT|FAIL)' "$T/neg.txt" | head -3 | tr '\n' ' '))"
	check "negative control, $1: dashboard_check.py exits 1 naming it" bash -c '[ "$1" = 1 ] && grep -qF -- "$2" "$3"' _ "$r" "$3" "$T/neg.txt"
}
add_panel "$T/neg1.json" "Bogus" 'sum by (job) (rate(gauntlet_inference_requestz_total{job=~"$job"}[$__rate_interval]))'
neg "a metric the endpoint does not serve" "$T/neg1.json" 'ABSENT gauntlet_inference_requestz_total in every scrape'
add_panel "$T/neg2.json" "Bogus figure" 'gauntlet_metric{metric="inference.ttft_ms",stat="p42",over="window"}'
neg "a figure gauntlet_metric does not have (stat p42)" "$T/neg2.json" 'ABSENT gauntlet_metric{metric="inference.ttft_ms",stat="p42",over="window"}'
add_panel "$T/neg3.json" "Empty" ''
neg "a panel without a target" "$T/neg3.json" "FAIL: panel 'Empty' has no target"
echo "wall time: $(($(date +%s) - T0)) s"
finish
