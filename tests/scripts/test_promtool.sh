#!/usr/bin/env bash
# test_promtool.sh - the --metrics-listen endpoint judged by Prometheus's
# own tools, and the alerting rules shipped in contrib/prometheus.
#
# A real run (a null workload, inference against a real `gauntlet target`,
# a null fault, a steady target that fails: the target answers its first
# token after 20 ms and the scenario asks for a p99 TTFT of 5 ms) is
# scraped at three points: right after the endpoint comes up (before the
# first window; a run of the same scenario with 12 s windows), mid-run while the fault is injected, and after the end
# during --metrics-linger. `promtool check metrics` must find no problem in
# any of them (exit 0, nothing printed); mid-run the endpoint must also
# answer `Accept: application/openmetrics-text` with OpenMetrics 1.0.0 that
# prometheus_client's strict parser accepts, ending in `# EOF`. Then
# `promtool check rules` and `promtool test rules` on the shipped rules,
# with each alert the unit tests show firing named. Negative controls: a
# scrape with one HELP line removed fails promtool, an OpenMetrics answer
# without its # EOF fails the parser, a rules test expecting an alert that
# cannot fire fails promtool test rules.
source "$(dirname "$0")/lib.sh"

PROMTOOL=$(command -v promtool) || skip "promtool not found (Debian: apt-get install --no-install-recommends prometheus; scripts/setup.sh installs it for the tests)"
RULES=$GL_SOURCE_DIR/contrib/prometheus/gauntlet-alerts.yml
RULES_TEST=$GL_SOURCE_DIR/contrib/prometheus/gauntlet-alerts.test.yml
# the strict OpenMetrics parser: python3-prometheus-client, in Debian's python
OMPY=
for p in python3 /usr/bin/python3; do
	"$p" -c 'import prometheus_client.openmetrics.parser' 2>/dev/null && { OMPY=$p; break; }
done

# om FILE: the strict OpenMetrics parser accepts FILE
om() { "$OMPY" - "$1" <<'PY'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
try:
    fams = list(text_string_to_metric_families(open(sys.argv[1]).read()))
except Exception as e:
    print('   parser: %s: %s' % (type(e).__name__, e))
    sys.exit(1)
print('   %d families, %d samples, counters: %d' % (len(fams), sum(len(f.samples) for f in fams),
      sum(f.type == 'counter' for f in fams)))
PY
}
# a stand-in DCGM exporter, so that the telemetry workload's hardware
# counters (named dcgm.*.delta in the store) are served too
mkdir -p "$T/www"
for f in XID_ERRORS ECC_SBE_VOL_TOTAL ECC_DBE_VOL_TOTAL PCIE_REPLAY_COUNTER NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL GPU_TEMP POWER_USAGE; do
	echo "DCGM_FI_DEV_$f{gpu=\"0\",UUID=\"GPU-0\",Hostname=\"gpu-a\"} 0"
done > "$T/www/metrics"
serve_dir "$T/www"
TTFT_MS=20
start_target tgt --ttft-ms $TTFT_MS --itl-ms 5 --prefill-us-per-token 0 --output-tokens 8
cat > "$T/prom.json" <<JSON
{
  "name": "promtool \"check\" \\\\ run",
  "duration": "24s",
  "window": "1s",
  "hosts": { "localhost": { "local": true } },
  "workloads": {
    "null": { "rate": 50 },
    "telemetry": { "dcgm": ["http://127.0.0.1:$SERVED_PORT/metrics"], "every": "1s", "timeout": "500ms" },
    "inference": { "endpoints": ["http://$ADDR/v1"], "api": "chat", "model": "gauntlet-target",
                   "arrival": { "mode": "poisson", "rate": 10 }, "output_tokens": 8, "timeout": "10s" }
  },
  "phases": [ { "name": "warmup", "for": "4s" }, { "name": "steady", "for": "20s" } ],
  "faults": [ { "id": "null-p", "at": "8s", "for": "8s", "kind": "null", "target": "localhost",
                "params": { "marker": "$T/null.marker" } } ],
  "targets": {
    "steady":   { "inference.ttft_ms.p99": "<= 5", "inference.error_rate": "<= 0.01", "null.tick_lag_ms.p99": "<= 1000",
                "dcgm.xid_errors.delta": "== 0" },
    "degraded": { "inference.ttft_ms.p99": "<= 2000" },
    "recovery": { "recovery_s": "<= 8", "restore_s": "<= 8" }
  }
}
JSON
"$GAUNTLET" validate "$T/prom.json" >/dev/null 2>"$T/validate.log" || { cat "$T/validate.log"; bad "scenario validates"; finish; }

# promtool on one scrape: exit 0 and nothing to say
lint() { # lint LABEL FILE
	"$PROMTOOL" check metrics < "$2" > "$2.lint" 2>&1
	local rc=$?
	if [ $rc -eq 0 ] && [ ! -s "$2.lint" ]; then
		ok "$1: promtool check metrics finds no problem ($(grep -c '^# TYPE' "$2") families, $(grep -vc '^#' "$2") samples)"
	else
		bad "$1: promtool check metrics (exit $rc):"
		sed 's/^/      /' "$2.lint"
	fi
}
ACCEPT_OM='application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'
scrape() { curl -s -m 2 -D "$1.head" -o "$1" "$URL"; }
endpoint_url() { # LOG: sets URL once the run has said where its endpoint is
	until_ok 10 grep -q 'metrics at http://' "$1"
	URL=$(grep -o 'metrics at http://[0-9.:]*/metrics' "$1" | head -1)
	URL=${URL#metrics at }
}

# 1. before the first window: the same scenario with 12 s windows (and 48 s
# long, so that validate finds room for the fault's recovery; its settle one
# window, not the default three, which would reach past the end and leave
# the steady phase no window), so that the first answer of the endpoint
# comes well before the first window closes however slow this machine is;
# stopped by SIGTERM once scraped
python3 - "$T/prom.json" "$T/before.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["window"], s["duration"], s["phases"][1]["for"] = "12s", "48s", "44s"
s["faults"][0]["settle"] = "12s"
json.dump(s, open(sys.argv[2], "w"))
PY
"$GAUNTLET" run "$T/before.json" --out "$T/run-before" --metrics-listen 0 >"$T/run-before.log" 2>&1 &
RUN_PID=$!
PIDS+=("$RUN_PID")
endpoint_url "$T/run-before.log"
until_ok 5 scrape "$T/before.txt"
kill -TERM "$RUN_PID"; wait "$RUN_PID"
check "before: the scrape is from before the first window (gauntlet_last_window_index -1)" \
	grep -qx 'gauntlet_last_window_index -1' "$T/before.txt"
check "before: served as the text format 0.0.4" grep -qi '^Content-Type: text/plain; version=0.0.4; charset=utf-8' "$T/before.txt.head"
lint "before the first window" "$T/before.txt"

"$GAUNTLET" run "$T/prom.json" --out "$T/run" --time-scale 2 --metrics-listen 0 --metrics-linger 4s \
	>"$T/run.log" 2>&1 &
RUN_PID=$!
PIDS+=("$RUN_PID")
endpoint_url "$T/run.log"
# 2. mid-run: the fault injected, the steady TTFT target failing
mid() {
	scrape "$T/mid.txt" && grep -qx 'gauntlet_fault_active{id="null-p"} 1' "$T/mid.txt" &&
		grep -q '^gauntlet_target{metric="inference.ttft_ms.p99",scope="steady".*} 1$' "$T/mid.txt" &&
		curl -s -m 2 -H "Accept: $ACCEPT_OM" -D "$T/mid.om.head" -o "$T/mid.om" "$URL" &&
		grep -q '^gauntlet_fault_active{id="null-p"} 1$' "$T/mid.om"
}
if until_ok 15 mid; then
	ok "mid-run: a scrape with the fault injected and a failing target"
	lint "mid-run, fault injected" "$T/mid.txt"
	check "mid-run: the fault's planned end, 16 s of scenario at time scale 2 (8 s)" \
		grep -qx 'gauntlet_fault_planned_end_seconds{id="null-p"} 8.000' "$T/mid.txt"
	check "mid-run: judged degraded while the fault is injected" grep -qx 'gauntlet_phase_info{phase="steady",scope="degraded"} 1' "$T/mid.txt"
	check "mid-run: the last window closed within 3 s of now (unix time)" python3 - "$T/mid.txt" <<'PY'
import re, sys, time
v = float(re.search(r'^gauntlet_last_window_close_timestamp_seconds (\S+)$', open(sys.argv[1]).read(), re.M).group(1))
print('   last window closed %.3f s before now' % (time.time() - v))
sys.exit(not (0 <= time.time() - v < 3))
PY
	check "mid-run: the scenario's name escaped in its label" grep -q 'scenario="promtool \\"check\\" \\\\ run"' "$T/mid.txt"
	check "mid-run: no doubled _total, no old name" not grep -Eq '_total_total|^gauntlet_incidents[{ ]|_delta_total' "$T/mid.txt"
	check "mid-run: renamed: gauntlet_inference_output_tokens_total, gauntlet_inference_errors_timeout_total, gauntlet_dcgm_xid_errors_total" \
		bash -c 'grep -q "^gauntlet_inference_output_tokens_total [1-9]" "$1" && grep -qx "gauntlet_inference_errors_timeout_total 0" "$1" && grep -qx "gauntlet_dcgm_xid_errors_total 0" "$1"' _ "$T/mid.txt"
	check "mid-run: OpenMetrics asked for, OpenMetrics served (Content-Type)" \
		grep -qi '^Content-Type: application/openmetrics-text; version=1.0.0; charset=utf-8' "$T/mid.om.head"
	check "mid-run: the OpenMetrics answer ends with # EOF" [ "$(tail -c 6 "$T/mid.om")" = '# EOF' ]
	ctype() { curl -s -m 2 -o /dev/null -H "Accept: $1" -w '%{content_type}' "$URL"; }
	c_text=$(ctype 'text/plain;version=0.0.4')
	c_low=$(ctype 'application/openmetrics-text;version=1.0.0;q=0.2,text/plain;q=0.5')
	c_v2=$(ctype 'application/openmetrics-text;version=2.0.0')
	check "mid-run: the text format for text/plain ($c_text), a lower q ($c_low), an unknown version ($c_v2)" \
		[ "$c_text" = "text/plain; version=0.0.4; charset=utf-8" -a "$c_low" = "$c_text" -a "$c_v2" = "$c_text" ]
	check "mid-run: OpenMetrics counters' families named without _total" \
		grep -qx '# TYPE gauntlet_inference_requests counter' "$T/mid.om"
	if [ -n "$OMPY" ]; then
		check "mid-run: prometheus_client's OpenMetrics parser accepts the answer" om "$T/mid.om"
		head -c -6 "$T/mid.om" > "$T/noeof.om"
		check "control: the same answer without its # EOF is refused by the parser" not om "$T/noeof.om"
	else
		part_skip "OpenMetrics parser" "python3-prometheus-client not installed (apt-get install python3-prometheus-client)"
	fi
	# a copy with one HELP line removed must fail promtool
	grep -v '^# HELP gauntlet_inference_requests_total ' "$T/mid.txt" > "$T/nohelp.txt"
	"$PROMTOOL" check metrics < "$T/nohelp.txt" > "$T/nohelp.lint" 2>&1
	rc=$?
	check "control: one HELP line removed, promtool check metrics fails (exit $rc: $(head -1 "$T/nohelp.lint"))" \
		[ $rc -ne 0 -a "$(cat "$T/nohelp.lint")" = "gauntlet_inference_requests_total no help text" ]
else
	bad "mid-run: a scrape with the fault injected and a failing target (none in 15 s)"
	tail -20 "$T/run.log"
fi
# 3. after the end, during --metrics-linger
until_ok 25 eval 'scrape "$T/after.txt" && grep -q "state=\"finished\"" "$T/after.txt"'
check "after: a scrape during --metrics-linger shows the run finished" grep -q 'state="finished"' "$T/after.txt"
lint "after the end (linger)" "$T/after.txt"
wait "$RUN_PID"
rc=$?
check "the run fails its TTFT target, as the target's $TTFT_MS ms first token makes it (exit $rc)" [ $rc -eq 1 ]
[ $rc -eq 1 ] || tail -20 "$T/run.log"

# 4. load agents: their gauges, and no family of theirs clashing with the
# store's agents.* counters (OpenMetrics names a counter's family without
# _total: a gauge gauntlet_agents_expected beside the counter
# gauntlet_agents_expected_total would be one name twice)
if command -v mpirun >/dev/null; then
	cat > "$T/agents.json" <<JSON
{"name": "promtool-agents", "duration": "10s", "window": "1s",
 "workloads": {"inference": {"endpoints": ["http://$ADDR/v1"], "model": "gauntlet-target", "api": "chat",
   "timeout": "10s", "arrival": {"mode": "poisson", "rate": 10}, "output_tokens": 8,
   "agents": {"launcher": "mpirun", "count": 2, "launcher_args": ["--oversubscribe"]}}},
 "targets": {"steady": {"inference.ttft_ms.p99": "<= 5000", "inference.error_rate": "<= 0.01", "agents.delivered_ratio": ">= 0.5"}}}
JSON
	"$GAUNTLET" run "$T/agents.json" --out "$T/agrun" --metrics-listen 0 --metrics-linger 2s >"$T/agrun.log" 2>&1 &
	AG_PID=$!
	PIDS+=("$AG_PID")
	until_ok 10 grep -q 'metrics at http://' "$T/agrun.log"
	URL=$(grep -o 'metrics at http://[0-9.:]*/metrics' "$T/agrun.log" | head -1)
	URL=${URL#metrics at }
	agents_up() {
		scrape "$T/ag.txt" && grep -qx 'gauntlet_agents_connected 2' "$T/ag.txt" &&
			grep -q '^gauntlet_agents_expected_total [1-9]' "$T/ag.txt" &&
			curl -s -m 2 -H "Accept: $ACCEPT_OM" -o "$T/ag.om" "$URL" && grep -qx 'gauntlet_agents_connected 2' "$T/ag.om"
	}
	if until_ok 12 agents_up; then
		check "agents: 2 planned, 2 connected, as the scenario's count" grep -qx 'gauntlet_agents_planned 2' "$T/ag.txt"
		lint "agents, mid-run" "$T/ag.txt"
		if [ -n "$OMPY" ]; then
			check "agents: prometheus_client's OpenMetrics parser accepts the answer" om "$T/ag.om"
		fi
	else
		bad "agents: a scrape with both agents connected (none in 12 s)"
		tail -20 "$T/agrun.log"
	fi
	wait "$AG_PID"
	rc=$?
	check "agents: the run passes (exit $rc)" [ $rc -eq 0 ]
else
	part_skip "load agents" "mpirun not installed (Debian: openmpi-bin)"
fi

# the rules
"$PROMTOOL" check rules "$RULES" > "$T/rules.check" 2>&1
rc=$?
check "promtool check rules contrib/prometheus/gauntlet-alerts.yml (exit $rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || cat "$T/rules.check"
"$PROMTOOL" test rules "$RULES_TEST" > "$T/rules.test" 2>&1
rc=$?
check "promtool test rules contrib/prometheus/gauntlet-alerts.test.yml (exit $rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || cat "$T/rules.test"
# each alert of the rules, and the ones the unit tests show firing
awk '/^ *- alert:/ {print $3}' "$RULES" | sort > "$T/alerts"
awk '/alertname:/ {a = $2} /exp_alerts:$/ {print a}' "$RULES_TEST" | sort | uniq -c > "$T/fired"
sed 's/^ */   shown firing: /' "$T/fired"
check "every alert of the rules is shown firing by a unit test ($(wc -l < "$T/alerts") alerts)" \
	[ "$(awk '{print $2}' "$T/fired" | sort -u)" = "$(cat "$T/alerts")" ]
# and quiet where it should be
check "every alert has a case where it stays quiet" \
	[ "$(awk '/alertname:/ {a = $2} /exp_alerts: \[\]/ {print a}' "$RULES_TEST" | sort -u)" = "$(cat "$T/alerts")" ]
# control: a rules test expecting an alert its input cannot fire
cat > "$T/wrong.test.yml" <<YML
rule_files:
  - $RULES
evaluation_interval: 15s
tests:
  - interval: 15s
    input_series:
      - series: 'gauntlet_run_info{job="gauntlet",instance="a:9464",run_id="r",scenario="s",state="running",verdict="passing"}'
        values: '1x40'
      - series: 'gauntlet_agents_planned{job="gauntlet",instance="a:9464"}'
        values: '4x40'
      - series: 'gauntlet_agents_connected{job="gauntlet",instance="a:9464"}'
        values: '4x40'
    alert_rule_test:
      - eval_time: 5m
        alertname: GauntletAgentsMissing
        exp_alerts:
          - exp_labels: { severity: warning, job: gauntlet, instance: "a:9464" }
YML
"$PROMTOOL" test rules "$T/wrong.test.yml" > "$T/wrong.out" 2>&1
rc=$?
check "control: a rules test expecting an alert that does not fire fails promtool test rules (exit $rc)" \
	bash -c '[ "$1" -ne 0 ] && grep -q GauntletAgentsMissing "$2"' _ "$rc" "$T/wrong.out"
finish
