#!/usr/bin/env bash
# test_notify_record.sh - webhooks agree with the record (docs/scenario.md,
# "notify"), against a real HTTP receiver on loopback:
#   a null run (rate 50, window 1 s, 10 s) whose first 3 s run at half
#   load: its steady target null.ticks >= 40 fails over the first steady
#   window (25 ticks) and passes from the second on (50 over the steady
#   windows so far; each full-load window 50): the receiver gets target_missed, then
#   target_recovered, both marked provisional; the end's figures are the
#   final report's (targets_failing 0, verdict pass, as report.json);
#   the fault message names what the fault acts on (subject); a recovery
#   target missed (which the live count does not judge) is in the end's
#   figures as in the report.
source "$(dirname "$0")/lib.sh"
[ -x "$GAUNTLET" ] || skip "no gauntlet binary at $GAUNTLET"

webhook_receiver ok rec
python3 - "$T/rec.json" "$T/marker" <<'PY'
import json, sys
s = {"name": "notify-record", "duration": "10s", "window": "1s",
     "hosts": {"localhost": {"local": True}},
     "workloads": {"null": {"rate": 50}},
     "phases": [{"name": "low", "for": "3s", "load": 0.5}, {"name": "full", "for": "7s"}],
     "faults": [{"id": "nr-1", "at": "5s", "for": "1s", "kind": "null", "target": "localhost",
                 "params": {"marker": sys.argv[2]}}],
     "targets": {"steady": {"null.ticks": ">= 40"}, "degraded": {"null.ticks": ">= 1"},
                 "recovery": {"recovery_s": "<= 30", "restore_s": "<= 30"}},
     "notify": [{"url_env": "GL_TEST_HOOK", "format": "json",
                 "on": ["start", "fault", "target_missed", "abort", "error", "end"]}]}
json.dump(s, open(sys.argv[1], "w"), indent=1)
PY
GL_TEST_HOOK="http://127.0.0.1:$RPORT/hook" "$GAUNTLET" run "$T/rec.json" --out "$T/run" >"$T/run.log" 2>&1; rc=$?
log_unless $rc 0 "$T/run.log"
check "the run passes (exit $rc)" [ $rc -eq 0 ]
# the end is the last message: wait until the receiver has it
until_ok 30 grep -q '"event": "end"' "$T/rec.jsonl"
python3 - "$T/rec.jsonl" > "$T/rec.summary" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    b = json.loads(l)["body"]
    e = b["event"]
    if e.startswith("target_"): e += ":" + b["target"]["metric"] + ":" + str(b.get("provisional"))
    if e == "fault": e += ":" + b["fault"]["state"]
    print(e)
PY
echo "   received: $(tr '\n' ' ' < "$T/rec.summary")"
check "target_missed, then target_recovered for null.ticks, each provisional" \
	[ "$(grep '^target_' "$T/rec.summary" | tr '\n' ' ')" = "target_missed:null.ticks:True target_recovered:null.ticks:True " ]
check "the end's figures are the final report's: targets_failing, verdict" python3 - "$T/rec.jsonl" "$T/run/report.json" <<'PY'
import json, sys
e = [json.loads(l)["body"] for l in open(sys.argv[1])]
e = [b for b in e if b["event"] == "end"]
r = json.load(open(sys.argv[2]))
failing = sum(not t["pass"] for t in r["targets"])
ok = (len(e) == 1 and e[0]["figures"]["targets_failing"] == failing == e[0]["targets_failing"] == 0 and
      e[0]["verdict"] == r["verdict"] == "pass" and e[0]["verdict_so_far"] == "passing")
print("   end:", e and (e[0]["figures"]["targets_failing"], e[0]["targets_failing"], e[0]["verdict"], e[0]["verdict_so_far"]), "report:", failing, r["verdict"])
sys.exit(0 if ok else 1)
PY
check "the fault messages name what the fault acts on (subject localhost, in the text)" python3 - "$T/rec.jsonl" <<'PY'
import json, sys
f = [json.loads(l)["body"] for l in open(sys.argv[1])]
f = [b for b in f if b["event"] == "fault"]
sys.exit(0 if len(f) == 2 and all(b["fault"]["subject"] == "localhost" and "null: localhost" in b["text"] for b in f) else 1)
PY

# a recovery target the live view does not judge (recovery_s <= -1 cannot
# pass): the end still counts it, as the report does
webhook_receiver ok rec2
python3 - "$T/rec.json" "$T/rec2.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["targets"]["recovery"]["recovery_s"] = "<= -1"
json.dump(s, open(sys.argv[2], "w"), indent=1)
PY
GL_TEST_HOOK="http://127.0.0.1:$RPORT/hook" "$GAUNTLET" run "$T/rec2.json" --out "$T/run2" >"$T/run2.log" 2>&1; rc=$?
log_unless $rc 1 "$T/run2.log"
until_ok 30 grep -q '"event": "end"' "$T/rec2.jsonl"
check "a recovery target missed: the end's figures count it as the report does (exit $rc)" \
	python3 - "$T/rec2.jsonl" "$T/run2/report.json" <<'PY'
import json, sys
e = [json.loads(l)["body"] for l in open(sys.argv[1])]
e = [b for b in e if b["event"] == "end"]
r = json.load(open(sys.argv[2]))
failing = sum(not t["pass"] for t in r["targets"])
print("   end:", e and (e[0]["figures"]["targets_failing"], e[0]["targets_failing"], e[0]["verdict_so_far"]), "report:", failing, r["verdict"])
sys.exit(0 if len(e) == 1 and e[0]["figures"]["targets_failing"] == e[0]["targets_failing"] == failing == 1 and
         e[0]["verdict_so_far"] == "failing" else 1)
PY
finish
