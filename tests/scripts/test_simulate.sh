#!/usr/bin/env bash
# test_simulate.sh - `gauntlet simulate` (docs/simulation.md): the whole
# controller on a virtual clock against models, checked against figures
# known without it:
#   1. the week-long acceptance plan, one seed: its invariants hold, two
#      runs write the same report.json, which python3-jsonschema accepts;
#   2. a 10-minute plan at 5 requests/s: 3,000 requests (rate x the run's
#      600 s; 2,999 when the fractional arrivals round down), the same with
#      a dozen controller kills and resumes (the run's clock stands still
#      while the controller is down, and so does its load), one outage per
#      resume in report.json, and its one fault's degraded windows those
#      the settle rule gives (inject window 12 to the last window starting
#      before revert + 3 windows: 12..20, 9 windows);
#   3. a mixed hour (every workload model, seven fault kinds) over 30
#      seeds with about 20 kills each: every invariant holds;
#   4. a seed with kills is reproduced exactly by --seed N;
#   5. bad input: a clear error, exit 2.
# The mutation that skips a fault's revert in the executor is
# tests/mutations.txt [executor-revert-skipped] (scripts/mutate.sh): there
# this test prints VIOLATED fault-reverted naming the fault.
source "$(dirname "$0")/lib.sh"
cd "$T"
ACC="$GL_SOURCE_DIR/scenarios/acceptance-168h.json"
MIX="$GL_SOURCE_DIR/tests/scenarios/sim-mixed.json"

# ---- 1. the acceptance plan ----------------------------------------------------
"$GAUNTLET" simulate "$ACC" --seed 7 --out "$T/acc1" >"$T/acc1.out" 2>"$T/acc1.err"; rc=$?
check "acceptance-168h, seed 7: exit 0" [ "$rc" = 0 ]
check "acceptance-168h, seed 7: 'seed 7: ok'" grep -q '^seed 7: ok ' "$T/acc1.out"
cat "$T/acc1.out" "$T/acc1.err"
"$GAUNTLET" simulate "$ACC" --seed 7 --out "$T/acc2" >"$T/acc2.out" 2>&1
check "two runs of seed 7 write the same report.json" cmp "$T/acc1/report.json" "$T/acc2/report.json"
check "its report.json: 60480 windows of 10 s, 11 faults, each reverted" \
	json "$T/acc1/report.json" "len(r['faults']) == 11 and all(f['state'] == 'reverted' for f in r['faults']) and r['faults_left_injected'] == 0 or sys.exit(1)"
check "its run directory has the reports (no report.pdf: no browser)" \
	bash -c "[ -s '$T/acc1/report.md' ] && [ -s '$T/acc1/report.html' ] && [ -s '$T/acc1/junit.xml' ] && [ ! -e '$T/acc1/report.pdf' ]"
if python3 -c 'import jsonschema' 2>/dev/null; then
	check "its report.json validates with python3-jsonschema too" python3 "$GL_SOURCE_DIR/tests/scripts/schema_check.py" "$T/acc1/report.json"
else
	part_skip "python3-jsonschema" "python3-jsonschema is not installed: the second validator of report.json"
fi

# ---- 2. a plan with known figures -------------------------------------------------
cat >"$T/ten.json" <<'EOF'
{ "name": "ten", "duration": "10m", "window": "10s",
  "hosts": { "h1": { "local": true } },
  "workloads": { "inference": { "endpoints": ["http://llm.example.internal/v1"], "api": "chat", "model": "m",
      "arrival": { "mode": "poisson", "rate": 5 }, "input_tokens": 16, "output_tokens": 16 } },
  "phases": [ { "name": "steady", "for": "10m" } ],
  "faults": [ { "id": "f1", "at": "2m", "for": "1m", "kind": "null", "target": "h1" } ],
  "targets": { "steady": { "inference.ttft_ms.p99": "<= 2000", "inference.error_rate": "<= 0.01" },
               "degraded": { "inference.ttft_ms.p99": "<= 5000" },
               "recovery": { "recovery_s": "<= 600", "restore_s": "<= 600" } } }
EOF
"$GAUNTLET" simulate "$T/ten.json" --seed 3 --out "$T/ten0" >"$T/ten0.out" 2>&1
check "10 min at 5/s, no kill: 'seed 3: ok', 0 crashes" grep -q '^seed 3: ok (verdict pass, 0 crash' "$T/ten0.out"
check "10 min at 5/s: 3000 requests (rate x 600 s)" \
	json "$T/ten0/report.json" "r['metrics']['inference']['requests'] in (2999, 3000) or sys.exit(1)"
check "60 windows; fault f1 (2m for 1m) degrades windows 12..20: 9 windows" \
	json "$T/ten0/report.json" "r['faults'][0]['degraded_windows'] == 9 or sys.exit(1)"
"$GAUNTLET" simulate "$T/ten.json" --seed 3 --crash-rate 2000 --out "$T/ten1" >"$T/ten1.out" 2>&1
cat "$T/ten1.out"
check "with kills: 'seed 3: ok' and at least 5 crashes" \
	python3 -c "import re,sys; m = re.match(r'seed 3: ok \(verdict pass, (\d+) crash', open('$T/ten1.out').read()); sys.exit(0 if m and int(m.group(1)) >= 5 else 1)"
check "with kills: the same 3000 requests, bar one rounded down (the clock and the load stand still while the controller is down)" \
	json "$T/ten1/report.json" "r['metrics']['inference']['requests'] in (2999, 3000) or sys.exit(1)"
check "with kills: one outage per crash in report.json" \
	python3 -c "import json,re,sys; n = int(re.search(r'(\d+) crash', open('$T/ten1.out').read()).group(1)); r = json.load(open('$T/ten1/report.json')); sys.exit(0 if len(r['outages']) == n and r['run']['resumes'] == n else 1)"

# ---- 3. a mixed hour, 30 seeds with kills ------------------------------------------
"$GAUNTLET" simulate "$MIX" --seeds 30 --crash-rate 500 >"$T/mix.out" 2>"$T/mix.err"; rc=$?
check "sim-mixed, 30 seeds at 500 kills a day: exit 0" [ "$rc" = 0 ]
check "sim-mixed: 30 'ok' lines" [ "$(grep -c '^seed [0-9]*: ok ' "$T/mix.out")" = 30 ]
check "sim-mixed: every seed was killed at least once" \
	python3 -c "import re,sys; c = [int(x) for x in re.findall(r'(\d+) crash', open('$T/mix.out').read())]; sys.exit(0 if len(c) == 30 and min(c) >= 1 else 1)"
grep -v ': ok ' "$T/mix.out" | head -5
head -5 "$T/mix.err"

# ---- 4. a seed reproduced -------------------------------------------------------
"$GAUNTLET" simulate "$MIX" --seed 12 --crash-rate 500 --out "$T/r1" >"$T/r1.out" 2>&1
"$GAUNTLET" simulate "$MIX" --seed 12 --crash-rate 500 --out "$T/r2" >"$T/r2.out" 2>&1
check "seed 12 with kills, twice: the same line (bar its time)" \
	bash -c "[ \"\$(sed 's/, [0-9.]* s)$//' '$T/r1.out')\" = \"\$(sed 's/, [0-9.]* s)$//' '$T/r2.out')\" ]"
check "seed 12 with kills, twice: the same report.json" cmp "$T/r1/report.json" "$T/r2/report.json"
check "the line of seed 12 in the sweep is the one --seed 12 prints" \
	bash -c "[ \"\$(grep '^seed 12:' '$T/mix.out' | sed 's/, [0-9.]* s)$//')\" = \"\$(sed 's/, [0-9.]* s)$//' '$T/r1.out')\" ]"

# ---- 5. bad input ---------------------------------------------------------------
bad() { # WHAT ARGS...: exit 2 and a message naming the option
	local what=$1; shift
	"$GAUNTLET" simulate "$@" >"$T/bad.out" 2>&1; local rc=$?
	check "bad input ($what): exit 2, says so" bash -c "[ $rc = 2 ] && grep -q 'simulate' '$T/bad.out'"
}
bad "--seeds 0" "$T/ten.json" --seeds 0
bad "--crash-rate -1" "$T/ten.json" --crash-rate -1
bad "--crash-rate abc" "$T/ten.json" --crash-rate abc
bad "--seed x" "$T/ten.json" --seed x
bad "no scenario" --seed 1
bad "--out with --seeds 2" "$T/ten.json" --seeds 2 --out "$T/never"
check "--out with --seeds 2: nothing made" [ ! -e "$T/never" ]
"$GAUNTLET" simulate "$T/missing.json" >"$T/bad.out" 2>&1; rc=$?
check "a scenario that is not there: exit 1, its seed VIOLATED naming it" \
	bash -c "[ $rc = 1 ] && grep -q 'VIOLATED scenario: .*missing.json' '$T/bad.out'"
finish
