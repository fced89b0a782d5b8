#!/usr/bin/env bash
# test_notify.sh - the scenario's webhooks (docs/scenario.md, "notify")
# against a real HTTP receiver on loopback (python3 ThreadingHTTPServer on
# a port it picks, each body it gets written as a JSON line): mode ok
# answers 200, fail 500, hang reads the request and never answers.
#
# Ground truth: a null workload run (rate 50, 6 s, window 1 s) with one
# null fault (1 s to 3 s), a steady target that must miss (null.ticks <= 1:
# every window ticks 50) and one that must pass (null.tick_lag_ms.p99 <=
# 100000). Seven runs go side by side (ticks run on an absolute schedule,
# so neighbours change no count):
#   ok (200; json and slack): exactly start, the fault injected and
#     reverted, ONE target_missed for the missing target (none for the
#     other), end with verdict fail and exit 1; json fields and slack's
#     lone "text"; report.json's counts and the gauntlet_notify_* families;
#   fail (500, its webhook from --set): the baseline's exit code, failures
#     counted, the failure logged once, 4 tries a message;
#   hang (never answers): 300 ticks (+-1, the tick due at the stop) as
#     the baseline without notify, no tick a second late, and an end
#     within 6 s + the 3 s end deadline + slack (a timing);
#   SIGINT: start, abort, end aborted exit 3; SIGKILL and resume: a second
#     start saying resumed, end from the resumed process, counts continued;
#   a failing before-gate: error and end (exit 4), no start.
# The URL, with a secret token in its path, is in no file of the run
# directories (store, WAL, reports), logs or scrapes. Also: strict keys
# with paths, the variable unset (exit 4 naming it, nothing stored),
# --dry-run lists and sends nothing.
source "$(dirname "$0")/lib.sh"

TOKEN="SECRET$(python3 -c 'import secrets; print(secrets.token_hex(8))')"

# scenario FILE [NOTIFY-JSON]
scenario() {
	python3 - "$1" "${2:-}" "${3:-}" <<'PY'
import json, sys
s = {"name": "notify-run", "duration": "6s", "window": "1s",
     "hosts": {"localhost": {"local": True}},
     "workloads": {"null": {"rate": 50}},
     "phases": [{"name": "steady", "for": "6s"}],
     "faults": [{"id": "nf-1", "at": "1s", "for": "2s", "kind": "null", "target": "localhost",
                 "params": {"marker": sys.argv[1] + ".marker"}}],
     "targets": {"steady": {"null.ticks": "<= 1", "null.tick_lag_ms.p99": "<= 100000"},
                 "degraded": {"null.ticks": ">= 1"},
                 "recovery": {"recovery_s": "<= 30", "restore_s": "<= 30"}}}
if sys.argv[2]:
    s["notify"] = json.loads(sys.argv[2])
if sys.argv[3]:
    s["gates"] = json.loads(sys.argv[3])
json.dump(s, open(sys.argv[1], "w"), indent=1)
PY
}

EVENTS='["start", "fault", "target_missed", "abort", "error", "end"]'

# --- validation: strict keys, paths named, the URL never in the scenario ---
scenario "$T/bad1.json" '[{"url_env": "A", "on": ["end"]}, {"url_env": "B", "format": "json", "on": ["start", "end", "x"]}]'
"$GAUNTLET" validate "$T/bad1.json" >"$T/bad1.out" 2>&1
check "validate: an unknown event is refused naming its path (notify[1].on[2])" \
	grep -q 'notify\[1\]\.on\[2\]: unknown event "x"' "$T/bad1.out"
scenario "$T/bad2.json" '[{"url_env": "http://example.com/hook/'"$TOKEN"'", "format": "teams", "on": ["end"], "url": "x"}]'
"$GAUNTLET" validate "$T/bad2.json" >"$T/bad2.out" 2>&1
check "validate: a URL in url_env, an unknown format and an unknown key are each refused by path" \
	eval 'grep -q "notify\[0\]\.url_env: expected the name of an environment variable" "$T/bad2.out" &&
	      grep -q "notify\[0\]\.format" "$T/bad2.out" && grep -q "notify\[0\]\.url" "$T/bad2.out"'
check "validate: the refused url_env is not echoed" not grep -q "$TOKEN" "$T/bad2.out"

# --- the variable unset: exit 4 naming it, nothing stored ---
scenario "$T/s-unset.json" '[{"url_env": "GL_TEST_NOTIFY_UNSET", "on": ["end"]}]'
unset GL_TEST_NOTIFY_UNSET
"$GAUNTLET" run "$T/s-unset.json" --out "$T/run-unset" >"$T/unset.log" 2>&1
rc=$?
check "the variable unset: exit 4 (got $rc)" [ "$rc" -eq 4 ]
check "the variable unset: the error names notify[0] and the variable" \
	grep -q 'notify\[0\] (GL_TEST_NOTIFY_UNSET): the variable GL_TEST_NOTIFY_UNSET is not set' "$T/unset.log"
check "the variable unset: nothing stored (no run directory)" not test -e "$T/run-unset"
GL_TEST_NOTIFY_UNSET="ftp://x/$TOKEN" "$GAUNTLET" run "$T/s-unset.json" --out "$T/run-unset" >"$T/unset2.log" 2>&1
rc=$?
check "a variable holding no http(s) URL: exit 4, nothing stored, the value not shown" \
	eval '[ "$rc" -eq 4 ] && ! test -e "$T/run-unset" && ! grep -q "$TOKEN" "$T/unset2.log" && grep -q "GL_TEST_NOTIFY_UNSET" "$T/unset2.log"'

# --- --dry-run lists the webhooks, sends nothing ---
webhook_receiver ok dry
scenario "$T/s-dry.json" '[{"url_env": "GL_TEST_HOOK", "format": "slack", "on": '"$EVENTS"'}]'
GL_TEST_HOOK="http://127.0.0.1:$RPORT/hook/$TOKEN" "$GAUNTLET" run "$T/s-dry.json" --dry-run >"$T/dry.out" 2>&1
check "--dry-run lists notify[0] (GL_TEST_HOOK), slack, its events" \
	grep -q 'notify\[0\] (GL_TEST_HOOK): slack webhook.*on start, fault, target_missed, abort, error, end' "$T/dry.out"
scenario "$T/s-set.json"
GL_TEST_HOOK="http://127.0.0.1:$RPORT/hook/$TOKEN" "$GAUNTLET" run "$T/s-set.json" --dry-run \
	--set 'notify=[{"url_env":"GL_TEST_HOOK","format":"json","on":["end"]}]' >"$T/dry-set.out" 2>&1
check "--set 'notify=[...]' (JSON on the command line) adds a webhook: --dry-run lists it" \
	grep -q 'notify\[0\] (GL_TEST_HOOK): json webhook, its URL in the environment (set; never shown), on end$' "$T/dry-set.out"
# a barrier: a POST of this test's own, once the dry runs exited; any of
# theirs was accepted before it and is written by the time it shows
curl -s -m 10 -o /dev/null -H 'Content-Type: application/json' -d '{"barrier": 1}' "http://127.0.0.1:$RPORT/barrier"
check "the receiver got the barrier POST" wait_log "$T/dry.jsonl" '"path": "/barrier"' 30
check "--dry-run sends nothing (the receiver's only POST is the barrier)" not grep -qv '"path": "/barrier"' "$T/dry.jsonl"

# --- six runs at once (ticks are scheduled absolutely: running side by
# side changes no count): the baseline without notify, a receiver that
# answers 500, one that never answers, one that answers 200 (json and
# slack), a run stopped by SIGINT and one SIGKILLed and resumed ---
scenario "$T/s-base.json"
"$GAUNTLET" run "$T/s-base.json" --out "$T/run-base" >"$T/base.log" 2>&1 &
BASE_PID=$!
PIDS+=("$BASE_PID")
webhook_receiver fail fail
FAILPORT=$RPORT
webhook_receiver hang hang
HANGPORT=$RPORT
# (this one gets its webhook from --set, as the lab soak does)
scenario "$T/s-fail.json"
scenario "$T/s-hang.json" '[{"url_env": "GL_TEST_HOOK", "format": "json", "on": '"$EVENTS"'}]'
GL_TEST_HOOK="http://127.0.0.1:$FAILPORT/hook/$TOKEN" "$GAUNTLET" run "$T/s-fail.json" --out "$T/run-fail" \
	--set 'notify=[{"url_env":"GL_TEST_HOOK","format":"json","on":'"$EVENTS"'}]' >"$T/fail.log" 2>&1 &
FAIL_PID=$!
PIDS+=("$FAIL_PID")
(
	T0=$(date +%s%N)
	GL_TEST_HOOK="http://127.0.0.1:$HANGPORT/hook/$TOKEN" "$GAUNTLET" run "$T/s-hang.json" --out "$T/run-hang" >"$T/hang.log" 2>&1
	echo "$? $((($(date +%s%N) - T0) / 1000000))" >"$T/hang.rc"
) &
HANG_PID=$!
PIDS+=("$HANG_PID")
webhook_receiver ok ok
OKPORT=$RPORT
scenario "$T/s-ok.json" '[{"url_env": "GL_TEST_HOOK", "format": "json", "on": '"$EVENTS"'},
  {"url_env": "GL_TEST_HOOK_SLACK", "format": "slack", "on": ["start", "end"]}]'
export GL_TEST_HOOK="http://127.0.0.1:$OKPORT/hook/$TOKEN" GL_TEST_HOOK_SLACK="http://127.0.0.1:$OKPORT/slack/$TOKEN"
"$GAUNTLET" run "$T/s-ok.json" --out "$T/run-ok" --metrics-listen 0 --metrics-linger 1s >"$T/ok.log" 2>&1 &
OK_PID=$!
PIDS+=("$OK_PID")
unset GL_TEST_HOOK GL_TEST_HOOK_SLACK
# beside it: one run stopped by SIGINT (abort), one SIGKILLed and resumed
webhook_receiver ok ab
ABPORT=$RPORT
scenario "$T/s-abort.json" '[{"url_env": "GL_TEST_HOOK", "format": "json", "on": '"$EVENTS"'}]'
scenario "$T/s-kill.json" '[{"url_env": "GL_TEST_HOOK", "format": "json", "on": '"$EVENTS"'}]'
GL_TEST_HOOK="http://127.0.0.1:$ABPORT/abort/$TOKEN" "$GAUNTLET" run "$T/s-abort.json" --out "$T/run-abort" >"$T/abort.log" 2>&1 &
AB_PID=$!
PIDS+=("$AB_PID")
GL_TEST_HOOK="http://127.0.0.1:$ABPORT/kill/$TOKEN" "$GAUNTLET" run "$T/s-kill.json" --out "$T/run-kill" >"$T/kill.log" 2>&1 &
KILL_PID=$!
PIDS+=("$KILL_PID")
# and one whose before-gate fails: nothing starts (exit 4), error and end are sent
scenario "$T/s-gate.json" '[{"url_env": "GL_TEST_HOOK", "format": "json", "on": '"$EVENTS"'}]' \
	'[{"id": "g", "kind": "command", "argv": ["false"], "hosts": ["localhost"], "when": ["before"]}]'
GL_TEST_HOOK="http://127.0.0.1:$ABPORT/gate/$TOKEN" "$GAUNTLET" run "$T/s-gate.json" --out "$T/run-gate" >"$T/gate.log" 2>&1 &
GATE_PID=$!
PIDS+=("$GATE_PID")
until_ok 15 grep -q 'metrics at http://' "$T/ok.log"
MADDR=$(sed -n 's#.*metrics at http://\([^/]*\)/metrics.*#\1#p' "$T/ok.log" | head -1)
until_ok 10 grep -q "window 1:" "$T/abort.log"
kill -INT "$AB_PID"
until_ok 10 grep -q "window 1:" "$T/kill.log"
kill -KILL "$KILL_PID"
wait "$KILL_PID" 2>/dev/null
GL_TEST_HOOK="http://127.0.0.1:$ABPORT/kill/$TOKEN" "$GAUNTLET" resume "$T/run-kill" >"$T/resume.log" 2>&1 &
RES_PID=$!
PIDS+=("$RES_PID")
until_ok 20 grep -q 'reports\|run finished' "$T/ok.log"
until_ok 10 grep -q 'serving the final figures' "$T/ok.log"
curl -s "http://$MADDR/metrics" >"$T/ok.scrape" 2>/dev/null
wait "$OK_PID"
OK_RC=$?
wait "$BASE_PID"
BASE_RC=$?
wait "$FAIL_PID"
FAIL_RC=$?
wait "$HANG_PID"
read -r HANG_RC MS < "$T/hang.rc"
check "baseline: exit 1 (null.ticks <= 1 misses)" [ "$BASE_RC" -eq 1 ]
BASE_TICKS=$(json "$T/run-base/report.json" 'r["metrics"]["null"]["ticks"]')
echo "   (baseline null.ticks: $BASE_TICKS)"
# ticks run on an absolute schedule (k / 50 s): a run has 300, give or take
# the one due at the very instant the run stops (a loaded machine may run
# it before or after the end); a loop held by a hanging receiver would
# lose whole seconds of them
check "baseline: null.ticks is rate x duration (300, +-1 for the tick due at the stop)" [ "$BASE_TICKS" -ge 299 -a "$BASE_TICKS" -le 301 ]
check "baseline: report.json has no notify section" json "$T/run-base/report.json" '"notify" not in r'

check "fail (500, webhook from --set): the overrides are stored as given (the variable's name)" \
	json "$T/run-fail/report.json" 'len(r["run"]["overrides"]) == 1 and "GL_TEST_HOOK" in r["run"]["overrides"][0]'
check "fail (500): the run's exit code is the baseline's ($BASE_RC, got $FAIL_RC)" [ "$FAIL_RC" -eq "$BASE_RC" ]
check "fail (500): report.json: nothing sent, failures counted (last error http_5xx), failed + dropped = the 5 messages" \
	json "$T/run-fail/report.json" '[(w["sent"], w["failed"] > 0, w["failed"] + w["dropped"], w["last_error"]) for w in r["notify"]["webhooks"]] == [(0, True, 5, "http_5xx")]'
N=$(grep -c 'notify\[0\] (GL_TEST_HOOK): a message was not delivered: http_5xx (HTTP 500)' "$T/fail.log")
check "fail (500): the log names the failure once (got $N lines)" [ "$N" -eq 1 ]
check "fail (500): the first message (start) was tried 4 times, none more than 4" python3 - "$T/fail.jsonl" <<'PY'
import collections, json, sys
c = collections.Counter(json.dumps(json.loads(l)["body"], sort_keys=True) for l in open(sys.argv[1]))
first = json.loads(open(sys.argv[1]).readline())["body"]
print("tries per message:", sorted(c.values()))
sys.exit(0 if first["event"] == "start" and c[json.dumps(first, sort_keys=True)] == 4 and max(c.values()) <= 4 else 1)
PY

echo "   (hang: the run took $MS ms)"
check "hang: the run's exit code is the baseline's ($BASE_RC, got $HANG_RC)" [ "$HANG_RC" -eq "$BASE_RC" ]
HANG_TICKS=$(json "$T/run-hang/report.json" 'r["metrics"]["null"]["ticks"]')
check "hang: null.ticks is rate x duration as without notify (300 +-1, baseline $BASE_TICKS, got $HANG_TICKS)" [ "$HANG_TICKS" -ge 299 -a "$HANG_TICKS" -le 301 ]
check "hang: no tick ran late by a second (null.tick_lag_ms max < 1000)" json "$T/run-hang/report.json" 'r["metrics"]["null"]["tick_lag_ms"]["max"] < 1000'

check "hang: the receiver got the first message (it was tried)" test -s "$T/hang.jsonl"
# (+6 s: beside the suite's other tests on two cores it can take 12.6 s;
# without the deadline one try to the hung receiver lasts 15 s)
timing "hang: the run ends within 6 s + the 3 s end deadline + 6 s (took $MS ms)" [ "$MS" -lt 15000 ]
check "hang: report.json counts nothing sent, the 5 messages failed or dropped" \
	json "$T/run-hang/report.json" 'r["notify"]["webhooks"][0]["sent"] == 0 and r["notify"]["webhooks"][0]["failed"] + r["notify"]["webhooks"][0]["dropped"] == 5'

check "ok: the run's exit code is the baseline's ($BASE_RC, got $OK_RC)" [ "$OK_RC" -eq "$BASE_RC" ]
python3 - "$T/ok.jsonl" >"$T/ok.summary" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    m = json.loads(l); b = m["body"]
    if m["path"].startswith("/slack/"):
        print("slack", "text" in b and len(b) == 1)
        continue
    e = b["event"]
    if e == "fault": e += ":" + b["fault"]["id"] + ":" + b["fault"]["state"]
    if e == "target_missed": e += ":" + b["target"]["metric"] + b["target"]["op"] + repr(b["target"]["threshold"])
    if e == "end": e += ":" + b["verdict"] + ":" + str(b["exit_code"])
    print(e)
PY
echo "   (received: $(tr '\n' ' ' < "$T/ok.summary"))"
check "ok (json): start, nf-1 injected, nf-1 reverted, one target_missed for null.ticks <= 1, end fail exit 1: exactly" \
	[ "$(grep -v '^slack' "$T/ok.summary" | sort | tr '\n' ' ')" = "end:fail:1 fault:nf-1:injected fault:nf-1:reverted start target_missed:null.ticks<=1 " ]
check "ok (json): in that order (start first, end last, injected before reverted)" \
	[ "$(grep -v '^slack' "$T/ok.summary" | grep -v target_missed | tr '\n' ' ')" = "start fault:nf-1:injected fault:nf-1:reverted end:fail:1 " ]
check "ok (slack): two messages (start, end), each only {\"text\": ...}" \
	[ "$(grep -c '^slack True$' "$T/ok.summary")" = 2 ]
RUN_ID=$(json "$T/run-ok/report.json" 'r["run"]["id"]')
check "ok (json): every message has the run id, the scenario, event, time, text; Content-Type application/json" \
	python3 - "$T/ok.jsonl" "$RUN_ID" <<'PY'
import json, sys
ms = [json.loads(l) for l in open(sys.argv[1])]
js = [m for m in ms if m["path"].startswith("/hook/")]
ok = js and all(m["body"]["run_id"] == sys.argv[2] and m["body"]["scenario"] == "notify-run" and
                m["body"]["time"] and m["body"]["text"] and m["ctype"] == "application/json" and
                m["body"]["verdict_so_far"] in ("passing", "failing") and "figures" in m["body"] for m in js)
sys.exit(0 if ok else 1)
PY
check "ok (json): the fault message has id, kind null, target localhost; target_missed has scope steady, measured 50; end counts the targets report.json fails" \
	python3 - "$T/ok.jsonl" "$T/run-ok/report.json" <<'PY'
import json, sys
bs = [json.loads(l)["body"] for l in open(sys.argv[1])]
f = [b for b in bs if b.get("event") == "fault"]
t = [b for b in bs if b.get("event") == "target_missed"]
e = [b for b in bs if b.get("event") == "end"]
ok = (f and all(b["fault"]["kind"] == "null" and b["fault"]["target"] == "localhost" for b in f) and
      len(t) == 1 and t[0]["target"]["scope"] == "steady" and t[0]["target"]["measured"] == 50 and
      t[0]["verdict_so_far"] == "failing" and
      len(e) == 1 and e[0]["state"] == "finished" and
      e[0]["targets_failing"] == sum(not x["pass"] for x in json.load(open(sys.argv[2]))["targets"]))
sys.exit(0 if ok else 1)
PY
check "ok: report.json notify: 2 webhooks by variable, sent 5 and 2, none failed or dropped" \
	json "$T/run-ok/report.json" '[(w["name"], w["sent"], w["failed"], w["dropped"]) for w in r["notify"]["webhooks"]] == [("notify[0] (GL_TEST_HOOK)", 5, 0, 0), ("notify[1] (GL_TEST_HOOK_SLACK)", 2, 0, 0)]'
check "ok: live metrics gauntlet_notify_sent_total 7, failed and dropped 0, with HELP and TYPE" \
	eval 'grep -qx "gauntlet_notify_sent_total 7" "$T/ok.scrape" && grep -qx "gauntlet_notify_failed_total 0" "$T/ok.scrape" &&
	      grep -qx "gauntlet_notify_dropped_total 0" "$T/ok.scrape" && grep -q "^# TYPE gauntlet_notify_sent_total counter" "$T/ok.scrape" &&
	      grep -q "^# HELP gauntlet_notify_dropped_total" "$T/ok.scrape"'
check "ok: the log names the webhook as notify[0] (GL_TEST_HOOK)" grep -q 'notify\[0\] (GL_TEST_HOOK)' "$T/ok.log"

wait "$AB_PID"
AB_RC=$?
wait "$RES_PID"
RES_RC=$?
wait "$GATE_PID"
GATE_RC=$?
python3 - "$T/ab.jsonl" >"$T/ab.summary" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    m = json.loads(l); b = m["body"]
    e = m["path"].split("/")[1] + ":" + b["event"]
    if b["event"] == "start": e += ":resumed=%s" % b["resumed"]
    if b["event"] == "end": e += ":" + b["verdict"] + ":" + str(b["exit_code"])
    if b["event"] == "error": e += ":" + str("gate" in b["reason"])
    print(e)
PY
echo "   (abort and kill/resume received: $(tr '\n' ' ' < "$T/ab.summary"))"
check "abort (SIGINT): exit 3 (got $AB_RC)" [ "$AB_RC" -eq 3 ]
check "abort (SIGINT): the receiver got start, one abort, then end aborted exit 3, last" \
	[ "$(grep '^abort:' "$T/ab.summary" | grep -v ':fault$\|:target_missed$' | tr '\n' ' ')" = "abort:start:resumed=False abort:abort abort:end:aborted:3 " ]
check "abort: the abort message gives the reason (the signal)" python3 - "$T/ab.jsonl" <<'PY'
import json, sys
a = [json.loads(l)["body"] for l in open(sys.argv[1]) if json.loads(l)["path"].startswith("/abort/")]
a = [b for b in a if b["event"] == "abort"]
sys.exit(0 if len(a) == 1 and "SIG" in a[0]["reason"].upper() else 1)
PY
check "a before-gate fails: exit 4 (got $GATE_RC)" [ "$GATE_RC" -eq 4 ]
check "a before-gate fails: the receiver got error (naming the gate), then end error exit 4, and no start" \
	[ "$(grep '^gate:' "$T/ab.summary" | tr '\n' ' ')" = "gate:error:True gate:end:error:4 " ]
check "a before-gate fails: report.json counts the 2 messages sent" \
	json "$T/run-gate/report.json" 'r["notify"]["webhooks"][0]["sent"] == 2'
check "kill and resume: the resumed run ends (exit 1, got $RES_RC)" [ "$RES_RC" -eq 1 ]
check "kill and resume: start (resumed=False), the fault injected, then start (resumed=True), end fail exit 1" \
	[ "$(grep '^kill:' "$T/ab.summary" | grep -v ':target_missed$' | tr '\n' ' ')" = "kill:start:resumed=False kill:fault kill:start:resumed=True kill:fault kill:end:fail:1 " ]
check "kill and resume: the resumed start gives how long the controller was down (down_s, in its text too)" \
	python3 - "$T/ab.jsonl" <<'PY'
import json, sys
b = [json.loads(l)["body"] for l in open(sys.argv[1]) if json.loads(l)["path"].startswith("/kill/")]
r = [x for x in b if x["event"] == "start" and x["resumed"]]
ok = len(r) == 1 and isinstance(r[0].get("down_s"), (int, float)) and r[0]["down_s"] > 0 and "controller down" in r[0]["text"]
print("   resumed:", r and (r[0].get("down_s"), r[0]["text"]))
sys.exit(0 if ok else 1)
PY
check "kill and resume: report.json counts what the receiver got from both processes" \
	json "$T/run-kill/report.json" 'r["notify"]["webhooks"][0]["sent"] == '"$(grep -c '^kill:' "$T/ab.summary")"' and r["notify"]["webhooks"][0]["failed"] == 0'

# --- the URL is nowhere: run directories (store, WAL, reports), logs ---
for d in run-ok run-fail run-hang run-abort run-kill; do
	check "$d: the run directory has a store and reports (searched)" eval 'test -s "$T/$d/run.db" && test -s "$T/$d/report.json" && test -s "$T/$d/report.md"'
done
check "the secret token is in no file of the run directories (store, WAL, reports, logs)" \
	not grep -rqa "$TOKEN" "$T/run-ok" "$T/run-fail" "$T/run-hang" "$T/run-abort" "$T/run-kill" "$T/ok.log" "$T/fail.log" \
	"$T/hang.log" "$T/abort.log" "$T/kill.log" "$T/resume.log" "$T/gate.log" "$T/run-gate" "$T/ok.scrape" "$T/dry.out" "$T/dry-set.out"
check "nor is the URL's host:port path prefix (/hook/) in the store or reports" \
	not grep -rqa "/hook/\|/kill/\|/abort/" "$T/run-ok" "$T/run-fail" "$T/run-hang" "$T/run-abort" "$T/run-kill"
check "control: the token reached the receiver in the URL's path" grep -q "/hook/$TOKEN" "$T/ok.jsonl"

finish
