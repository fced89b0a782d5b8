#!/usr/bin/env bash
# test_settle.sh - a fault's degraded span ends: it runs from the window
# holding the fault's inject to the last window starting before its revert
# plus its settle (default 3 windows), whatever the windows show
# (docs/metrics.md, "Scopes"). Two real runs of the null workload, each
# 5 minutes of scenario time with one 10 s null fault, at --time-scale 20
# (15 s of real time, 1 s windows):
#
#  A. the workload is healthy throughout: it restores at once, and the
#     degraded windows are exactly the fault's windows plus the settle's 3;
#  B. the load drops to a tenth as the fault is reverted (a second phase
#     at load 0.1), so the steady target (>= 50 ticks a window, at 100
#     ticks a second) is never met again: the fault never restores. Its
#     span still ends after the settle; the windows after it are judged
#     steady, restore_s is null (restored: false), the fault is a
#     fault.restore incident of its own (counted: verdict fail), not every
#     window from the inject to the end degraded, as "explained".
#
# Ground truth for the counts is computed here, not by the analysis: from
# the journal's inject and revert times (run.db faults) and the windows
# table, the windows holding part of [inject, revert] ("fault windows")
# and those starting after it and before revert + 3 s ("settle windows").
# Each window's scope is read from timeseries.csv; report.json's figures
# and the live endpoint's final scrape (--metrics-linger) must agree.
# Then validate: a fault's "settle" above 1h is refused, 30s accepted.
source "$(dirname "$0")/lib.sh"

SCALE=20
scenario() { # FILE PHASES-JSON FAULT-AT
	cat > "$1" <<JSON
{ "name": "settle", "duration": "5m", "window": "1s",
  "hosts": { "me": { "local": true } },
  "workloads": { "null": { "rate": 100 } },
  "phases": $2,
  "faults": [ { "id": "f10", "at": "$3", "for": "10s", "kind": "null", "target": "me" } ],
  "targets": { "steady": { "null.ticks": ">= 50" }, "degraded": { "null.ticks": ">= 1" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } } }
JSON
}
# The run's windows against the ground truth: prints the acceptance line
# and exits non-zero on any mismatch. ARGS: RUN-DIR WANT (restored|never)
judge() {
	python3 - "$1" "$2" <<'PY'
import csv, json, sqlite3, sys
d, want = sys.argv[1], sys.argv[2]
db = sqlite3.connect("file:%s/run.db?mode=rw" % d, uri=True)
ti, tr = db.execute("select injected_elapsed_ns, reverted_elapsed_ns from faults where id = 'f10'").fetchone()
wins = db.execute("select idx, start_ns, end_ns from windows order by idx").fetchall()
settle = 3 * 1000000000            # the default: 3 windows of 1 s
fault_w = [i for i, s, e in wins if ti < e and s < tr]
settle_w = [i for i, s, e in wins if s >= tr and s < tr + settle]
span = set(fault_w) | set(settle_w)
rows = list(csv.DictReader(open(d + "/timeseries.csv")))
scope = {int(r["idx"]): r["scope"] for r in rows}
deg = sorted(i for i, s in scope.items() if s == "degraded")
rep = json.load(open(d + "/report.json"))
f = rep["faults"][0]
tg = {(t["scope"], t["metric"]): t for t in rep["targets"]}
inc = [x for x in rep["incidents"]["list"] if x["kind"] == "fault.restore"]
fails = []
def ok(c, what):
    print(("ok: " if c else "FAIL: ") + what)
    c or fails.append(what)
print("A run with one 10 s fault in a 5-minute run has at most (fault windows + settle) degraded windows: "
      "%d degraded <= %d fault + %d settle windows (run %s: inject %.3f s, revert %.3f s, %d windows)"
      % (len(deg), len(fault_w), len(settle_w), want, ti / 1e9, tr / 1e9, len(wins)))
ok(len(settle_w) == 3, "the settle holds 3 windows (%d)" % len(settle_w))
ok(deg == sorted(span), "the degraded windows are exactly the fault's %s and the settle's %s: %s" % (fault_w, settle_w, deg))
ok(len(deg) == len(fault_w) + len(settle_w) == f.get("degraded_windows"),
   "degraded == fault windows + settle windows == report's degraded_windows (%s)" % f.get("degraded_windows"))
ok(tg[("degraded", "null.ticks")]["windows_judged"] == len(deg), "the degraded target judged on those windows")
after = [i for i in scope if i > max(span)]
ok(after and all(scope[i] == "steady" for i in after), "every window after the settle is steady: %s" % after)
ok(tg[("steady", "null.ticks")]["windows_judged"] == len(wins) - len(deg),
   "the steady target judged on every other window (%d)" % tg[("steady", "null.ticks")]["windows_judged"])
ok(f.get("settle_s") == 3, "settle_s 3 (%s)" % f.get("settle_s"))
if want == "restored":
    ok(f["restore_s"] is not None and f["restore_s"] <= 3 and f.get("restored") is True, "restored within the settle (%s)" % f["restore_s"])
    ok(not inc and rep["verdict"] == "pass", "no fault.restore incident, verdict pass (%s)" % rep["verdict"])
else:
    ok(f["restore_s"] is None and f.get("restored") is False and "not restored within its settle" in f.get("recovery_note", ""),
       "restore_s null, restored false: %s" % f.get("recovery_note"))
    ok(tg[("recovery", "restore_s")]["pass"] is False, "the restore_s target fails")
    ok(len(inc) == 1 and inc[0]["counted"] and inc[0]["windows"] == len(after) and rep["incidents"]["pass"] is False,
       "one counted fault.restore incident over the %d windows after the settle: %s" % (len(after), inc))
    ok(rep["verdict"] == "fail", "verdict fail (%s)" % rep["verdict"])
sys.exit(1 if fails else 0)
PY
}

# --- A. restored at once -------------------------------------------------------
scenario "$T/a.json" '[ { "name": "main", "for": "5m" } ]' 2m
"$GAUNTLET" run "$T/a.json" --out "$T/a" --time-scale $SCALE >"$T/a.log" 2>&1
rc=$?
check "A: the run passes (exit $rc)" [ $rc -eq 0 ]
judge "$T/a" restored > "$T/a.judge" 2>&1
rc=$?
cat "$T/a.judge"
check "A: the degraded windows are the fault's and the settle's, exactly" [ $rc -eq 0 ]

# --- B. never restored (live endpoint watched to the end) ----------------------
scenario "$T/b.json" '[ { "name": "main", "for": "3m" }, { "name": "after", "for": "2m", "load": 0.1 } ]' 2m50s
"$GAUNTLET" run "$T/b.json" --out "$T/b" --time-scale $SCALE --metrics-listen 0 --metrics-linger 3s >"$T/b.log" 2>&1 &
B_PID=$!
PIDS+=("$B_PID")
announced_or_gone() { in_log "$T/b.log" 'metrics at http://' || gone "$B_PID"; }
until_ok 30 announced_or_gone
URL=$(grep -o 'http://[0-9.:]*/metrics' "$T/b.log" | head -1)
# the final scrape: the first one that shows the run finished
got=0
finished_or_gone() {
	if curl -s -m 5 -o "$T/scrape.txt" "$URL" 2>/dev/null && grep -q 'gauntlet_run_info{.*state="finished"' "$T/scrape.txt"; then
		got=1
		return 0
	fi
	gone "$B_PID"
}
[ -n "$URL" ] && until_ok 300 finished_or_gone
wait "$B_PID"
rc=$?
check "B: the run ends with verdict fail (exit $rc)" [ $rc -eq 1 ]
judge "$T/b" never > "$T/b.judge" 2>&1
rc=$?
cat "$T/b.judge"
check "B: the span ends after the settle; the windows after it are steady; a fault.restore incident" [ $rc -eq 0 ]
check "B: the live endpoint served the finished run ($URL)" [ $got -eq 1 ]
check "B: live and final agree on every window's scope and on the fault.restore incident" python3 - "$T/scrape.txt" "$T/b" <<'PY'
import collections, csv, json, re, sys
live = {}
for l in open(sys.argv[1]):
    m = re.match(r'(gauntlet_windows_judged_total|gauntlet_incidents_total)\{(scope|kind)="([^"]+)"\} (\S+)$', l.strip())
    if m:
        live[(m.group(1), m.group(3))] = float(m.group(4))
rows = list(csv.DictReader(open(sys.argv[2] + "/timeseries.csv")))
final = collections.Counter(r["scope"] for r in rows)
rep = json.load(open(sys.argv[2] + "/report.json"))
ok = True
for s in ("none", "steady", "degraded"):
    got = live.get(("gauntlet_windows_judged_total", s))
    print("  %-8s windows: live %s, final %d" % (s, got, final.get(s, 0)))
    ok &= got == final.get(s, 0)
want = len([x for x in rep["incidents"]["list"] if x["kind"] == "fault.restore"])
got = live.get(("gauntlet_incidents_total", "fault.restore"))
print("  fault.restore incidents: live %s, final %d" % (got, want))
sys.exit(0 if ok and got == want == 1 else 1)
PY

# --- C. validate: the settle's bounds ------------------------------------------
sed 's/"kind": "null", "target": "me"/"kind": "null", "target": "me", "settle": "2h"/' "$T/a.json" > "$T/c.json"
"$GAUNTLET" validate "$T/c.json" >"$T/c.out" 2>&1
rc=$?
check "validate refuses a settle of 2h (exit $rc)" [ $rc -eq 2 ]
check "and says why: faults[0].settle: expected a duration from 0s to 1h" grep -q 'faults\[0\]\.settle: expected a duration from 0s to 1h' "$T/c.out"
sed 's/"kind": "null", "target": "me"/"kind": "null", "target": "me", "settle": "30s"/' "$T/a.json" > "$T/c2.json"
"$GAUNTLET" validate "$T/c2.json" >"$T/c2.out" 2>&1
rc=$?
check "validate accepts a settle of 30s (exit $rc)" [ $rc -eq 0 ]
finish
