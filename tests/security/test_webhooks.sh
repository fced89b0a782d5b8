#!/usr/bin/env bash
# test_webhooks.sh - the scenario's webhooks are independent
# (docs/security.md, "Webhooks"): a receiver that hangs delays and drops
# only its own webhook's messages, never a healthy neighbour's.
#
# Two python3 receivers on loopback (lib.sh's webhook_receiver): one that
# accepts each connection, reads the request and never answers; one that
# answers 200. A null workload run (rate 20, 6 s, window 1 s) with two null
# faults (wf-1 from 1 s to 2 s, wf-2 from 3 s to 4 s), targets it passes,
# and three webhooks, every event: notify[0] and notify[2] to the hanging
# receiver, notify[1] to the healthy one. Beside it, the control: the same
# scenario with the healthy webhook alone.
#
#   - the healthy webhook gets exactly start, wf-1 and wf-2 injected and
#     reverted, end (pass, exit 0), as the control's does;
#   - the run's exit code is the control's;
#   - each hanging webhook was tried (the receiver got its start message:
#     its own sender is not stuck behind the other's), nothing of it was
#     delivered, its failures are counted (last error timeout) and every
#     one of its 6 messages is failed or dropped, in report.json, in the
#     store's "notify" document and in the log's totals;
#   - the healthy webhook's counts: 6 sent, none failed or dropped.
# How long the run with two hanging receivers took beyond the control is
# printed (the end-of-run deadline is 3 s, shared), not judged.
source "$(dirname "$0")/../scripts/lib.sh"
[ -x "$GAUNTLET" ] || skip "no gauntlet binary at $GAUNTLET"

# scenario FILE NOTIFY-JSON
scenario() {
	python3 - "$1" "$2" <<'PY'
import json, sys
f = sys.argv[1]
s = {"name": "webhooks", "duration": "6s", "window": "1s", "hold": 1,
     "hosts": {"localhost": {"local": True}},
     "workloads": {"null": {"rate": 20}},
     "phases": [{"name": "steady", "for": "6s"}],
     "faults": [{"id": "wf-1", "at": "1s", "for": "1s", "kind": "null", "target": "localhost",
                 "params": {"marker": f + ".m1"}},
                {"id": "wf-2", "at": "3s", "for": "1s", "kind": "null", "target": "localhost",
                 "params": {"marker": f + ".m2"}}],
     "targets": {"steady": {"null.ticks": ">= 1"}, "degraded": {"null.ticks": ">= 1"},
                 "recovery": {"recovery_s": "<= 30", "restore_s": "<= 30"}},
     "notify": json.loads(sys.argv[2])}
json.dump(s, open(f, "w"), indent=1)
PY
}
EVENTS='["start", "fault", "target_missed", "abort", "error", "end"]'
# the events a receiver got on PATH-PREFIX, one line each, in arrival order
events() {
	python3 - "$1" "$2" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    m = json.loads(l)
    if not m["path"].startswith(sys.argv[2]):
        continue
    b = m["body"]; e = b["event"]
    if e == "fault": e += ":" + b["fault"]["id"] + ":" + b["fault"]["state"]
    if e == "end": e += ":" + b["verdict"] + ":" + str(b["exit_code"])
    print(e)
PY
}
# the path prefix got a start message
got_start() { [ -s "$T/hang.jsonl" ] && events "$T/hang.jsonl" "$1" | grep -qx start; }

webhook_receiver hang hang
HANGPORT=$RPORT
webhook_receiver ok ok
OKPORT=$RPORT

scenario "$T/s-ctl.json" '[{"url_env": "GL_WH_OK", "format": "json", "on": '"$EVENTS"'}]'
scenario "$T/s-hang.json" '[{"url_env": "GL_WH_HANG_A", "format": "json", "on": '"$EVENTS"'},
  {"url_env": "GL_WH_OK", "format": "json", "on": '"$EVENTS"'},
  {"url_env": "GL_WH_HANG_B", "format": "json", "on": '"$EVENTS"'}]'

(
	T0=$(date +%s%N)
	GL_WH_OK="http://127.0.0.1:$OKPORT/ctl/" "$GAUNTLET" run "$T/s-ctl.json" --out "$T/run-ctl" >"$T/run-ctl.log" 2>&1
	echo "$? $((($(date +%s%N) - T0) / 1000000))" >"$T/ctl.rc"
) &
CTL_PID=$!
PIDS+=("$CTL_PID")
(
	T0=$(date +%s%N)
	GL_WH_HANG_A="http://127.0.0.1:$HANGPORT/a/" GL_WH_OK="http://127.0.0.1:$OKPORT/hang/" \
		GL_WH_HANG_B="http://127.0.0.1:$HANGPORT/b/" \
		"$GAUNTLET" run "$T/s-hang.json" --out "$T/run-hang" >"$T/run-hang.log" 2>&1
	echo "$? $((($(date +%s%N) - T0) / 1000000))" >"$T/hang.rc"
) &
HANG_PID=$!
PIDS+=("$HANG_PID")
wait "$CTL_PID"
wait "$HANG_PID"
read -r CTL_RC CTL_MS <"$T/ctl.rc"
read -r HANG_RC HANG_MS <"$T/hang.rc"
echo "   (control: exit $CTL_RC in $CTL_MS ms; with two hanging webhooks: exit $HANG_RC in $HANG_MS ms)"
# the wait at the end, from the run's last window to the webhooks' totals
# (logged once every sender stopped): a figure, not judged
python3 - "$T/run-hang.log" "$T/run-ctl.log" <<'PY'
import re, sys
def wait(f):
    last = tot = None
    for l in open(f):
        m = re.match(r"\[\s*([0-9.]+)\]", l)
        if m and " window " in l: last = float(m.group(1))
        if m and "webhook messages:" in l: tot = float(m.group(1))
    return "%.3f s" % (tot - last) if last is not None and tot is not None else "?"
print("   (from the last window to the webhooks' totals: %s with two hanging webhooks, %s in the control;"
      " the end-of-run deadline is 3 s, shared by the webhooks)" % (wait(sys.argv[1]), wait(sys.argv[2])))
PY

# --- exit codes --------------------------------------------------------------------------
check "control (the healthy webhook alone): exit 0, its targets pass (got $CTL_RC)" [ "$CTL_RC" -eq 0 ]
log_unless "$CTL_RC" 0 "$T/run-ctl.log"
check "with two hanging webhooks: the control's exit code ($CTL_RC, got $HANG_RC)" [ "$HANG_RC" -eq "$CTL_RC" ]
log_unless "$HANG_RC" "$CTL_RC" "$T/run-hang.log"

# --- what the healthy receiver got ----------------------------------------------------------
WANT="start fault:wf-1:injected fault:wf-1:reverted fault:wf-2:injected fault:wf-2:reverted end:pass:0"
# same_events GOT: GOT (space-separated, in arrival order) is WANT: start
# first, end last, the faults' messages between (compared sorted: their
# order across faults is the schedule's, not a promise), each fault
# injected before reverted
same_events() {
	python3 - "$1" "$WANT" <<'PY'
import sys
got, want = sys.argv[1].split(), sys.argv[2].split()
ok = (len(got) == len(want) and got[0] == want[0] and got[-1] == want[-1] and
      sorted(got[1:-1]) == sorted(want[1:-1]) and
      all(got.index("fault:%s:injected" % f) < got.index("fault:%s:reverted" % f) for f in ("wf-1", "wf-2")))
sys.exit(0 if ok else 1)
PY
}
CTL_GOT=$(events "$T/ok.jsonl" /ctl/ | tr '\n' ' ')
HANG_GOT=$(events "$T/ok.jsonl" /hang/ | tr '\n' ' ')
echo "   (healthy receiver, control run: ${CTL_GOT:-nothing})"
echo "   (healthy receiver, beside two hanging webhooks: ${HANG_GOT:-nothing})"
check "control: the healthy webhook got exactly: $WANT" same_events "$CTL_GOT"
check "beside two hanging webhooks: the healthy webhook got exactly the same" same_events "$HANG_GOT"

# --- the hanging webhooks: each tried by its own sender --------------------------------------
check "hanging notify[0]: its receiver got its start message (tried)" until_ok 60 got_start /a/
check "hanging notify[2]: its receiver got its start message too (tried beside notify[0], not behind it)" \
	until_ok 60 got_start /b/

# --- the counts: report.json, the store, the log ------------------------------------------------
echo "   (report.json notify: $(json "$T/run-hang/report.json" '[(w["name"], w["sent"], w["failed"], w["dropped"], w["last_error"]) for w in r["notify"]["webhooks"]]'))"
check "report.json: the healthy notify[1] (GL_WH_OK) sent 6, none failed or dropped" \
	json "$T/run-hang/report.json" '[(w["name"], w["sent"], w["failed"], w["dropped"], w["last_error"]) for w in r["notify"]["webhooks"]][1] == ("notify[1] (GL_WH_OK)", 6, 0, 0, None)'
for i in 0 2; do
	check "report.json: the hanging notify[$i] sent nothing, its failures counted (last error timeout), failed + dropped = its 6 messages" \
		json "$T/run-hang/report.json" '(lambda w: w["sent"] == 0 and w["failed"] >= 1 and w["failed"] + w["dropped"] == 6 and w["last_error"] == "timeout")(r["notify"]["webhooks"]['"$i"'])'
done
check "report.json: the control's notify[0] (GL_WH_OK) sent 6, none failed or dropped" \
	json "$T/run-ctl/report.json" '[(w["name"], w["sent"], w["failed"], w["dropped"]) for w in r["notify"]["webhooks"]] == [("notify[0] (GL_WH_OK)", 6, 0, 0)]'
check "the store's notify document (what report.json and a resume read): notify[1] 6 sent, none failed or dropped; notify[0] and notify[2] none sent, each failed at least once, 6 failed or dropped" \
	python3 - "$T/run-hang/run.db" <<'PY'
import json, sqlite3, sys
c = sqlite3.connect("file:" + sys.argv[1] + "?mode=rw", uri=True)
w = json.loads(c.execute("select body from docs where key = 'notify'").fetchone()[0])["webhooks"]
print("   (store:", [(x["name"], x["sent"], x["failed"], x["dropped"]) for x in w], ")")
ok = (len(w) == 3 and (w[1]["sent"], w[1]["failed"], w[1]["dropped"]) == (6, 0, 0) and
      all(x["sent"] == 0 and x["failed"] >= 1 and x["failed"] + x["dropped"] == 6 for x in (w[0], w[2])))
sys.exit(0 if ok else 1)
PY
TOTALS=$(grep -o 'webhook messages: [0-9]* sent, [0-9]* failed, [0-9]* dropped' "$T/run-hang.log" | tail -1)
echo "   (log: ${TOTALS:-no totals line})"
check "the log's totals are report.json's summed over the webhooks (6 sent; failed + dropped = the hanging ones' 12)" \
	python3 - "$T/run-hang/report.json" "$TOTALS" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["notify"]["webhooks"]
s, f, d = (sum(x[k] for x in w) for k in ("sent", "failed", "dropped"))
sys.exit(0 if sys.argv[2] == "webhook messages: %d sent, %d failed, %d dropped" % (s, f, d) and s == 6 and f + d == 12 else 1)
PY
for i in 0 2; do
	V=$([ $i -eq 0 ] && echo GL_WH_HANG_A || echo GL_WH_HANG_B)
	N=$(grep -c "notify\[$i\] ($V): a message was not delivered: timeout" "$T/run-hang.log")
	check "the log names notify[$i] ($V)'s timeout once (got $N)" [ "$N" -eq 1 ]
done
check "the log names no failure of the healthy notify[1]" not grep -q 'notify\[1\] (GL_WH_OK): a message was not delivered' "$T/run-hang.log"

finish
