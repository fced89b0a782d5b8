#!/usr/bin/env bash
# test_edge.sh - edge phases (docs/scenario.md, "Edge phases") against a
# server whose capacity is known: `gauntlet target --max-seqs 20` holds 20
# requests at once and queues the rest (FIFO); each takes --ttft-ms 100
# plus 3 gaps of --itl-ms 100 for its 4 tokens, 400 ms, so it serves
# C = 20 / 0.4 s = 50 requests/s, and no more. Below C a constant arrival
# rate waits for nothing (TTFT 100 ms); above it the queue grows by the
# excess, and so does every TTFT. The slo ttft_ms 250 leaves 150 ms of
# queueing: a probe of 3 s (2.75 s sending) at 1.08 C fails it for a
# third of its requests, one at 0.9 C for none (a client stalled by a
# busy machine for less than 150 ms costs no request). The edge phase (24 s: 8 probes
# from 18/s, x2 up, then bisection) must find an edge within 10 % of C (a
# timing check), bracketed; the next phase ("0.8 edge") must run at 0.8 x
# that edge: its requests' intended send times (the store's rows) spaced
# at that rate within 2 %, its finished requests per second within 10 %
# (timing). Beside it, two small runs: a server whose first tokens all
# come 300 ms after the request, where even "from" (10/s) fails (no edge: the verdict fails, the later phase
# runs at "from" with an event saying so), and a run killed (SIGKILL) in
# its later phase and resumed, which reuses the stored edge (no probe
# again, the same rate). Then the search's own rule replayed over the
# probes, the reports (report.json against the schema, report.md,
# report.html, junit.xml), `gauntlet compare` (both edges and their
# ratio; an edge lost is a regression), `gauntlet simulate` on the same
# scenario, and what validate refuses. About 35 s.
source "$(dirname "$0")/lib.sh"

S=20 TTFT_MS=100 ITL_MS=100 OUT=4
SERVICE_MS=$((TTFT_MS + (OUT - 1) * ITL_MS))
C=$((S * 1000 / SERVICE_MS)) # requests/s the server can serve: 50
start_target edge --max-seqs $S --ttft-ms $TTFT_MS --prefill-us-per-token 0 --itl-ms $ITL_MS --output-tokens $OUT
MAIN=$ADDR
# every first token 300 ms after the request: no rate holds ttft_ms 250
start_target slow --max-seqs 64 --ttft-ms 300 --prefill-us-per-token 0 --itl-ms 10 --output-tokens $OUT
SLOW=$ADDR
start_target res --max-seqs $S --ttft-ms $TTFT_MS --prefill-us-per-token 0 --itl-ms $ITL_MS --output-tokens $OUT
RES=$ADDR

# edge_scenario FILE ADDR EDGE_FOR EDGE_JSON LATER_FOR LATER_LOAD
edge_scenario() {
	python3 - "$@" <<'PY'
import json, sys
path, addr, efor, edge, lfor, lload = sys.argv[1:]
inf = {"endpoints": ["http://%s/v1" % addr], "model": "gauntlet-target", "input_tokens": 16,
       "output_tokens": 4, "ignore_eos": True, "timeout": "10s",
       "arrival": {"mode": "constant", "rate": 10}, "slo": {"ttft_ms": 250}}
d = lambda s: float(s[:-1])
sc = {"name": "edge-test", "duration": "%gs" % (d(efor) + d(lfor)), "window": "1s",
      "store": {"requests": "all"}, "workloads": {"inference": inf},
      "phases": [{"name": "edge", "kind": "edge", "for": efor, "edge": json.loads(edge)},
                 {"name": "steady", "for": lfor, "load": lload}],
      "targets": {"steady": {"inference.ttft_ms.p99": "<= 10000", "inference.error_rate": "<= 1"}}}
json.dump(sc, open(path, "w"), indent=1)
PY
}
edge_scenario "$T/main.json" "$MAIN" 24s '{"from": 18, "to": 1000, "probe": "3s", "goodput": ">= 0.95"}' 6s "0.8 edge"
edge_scenario "$T/none.json" "$SLOW" 2s '{"from": 10, "to": 100, "probe": "1s"}' 3s "0.5 edge"
edge_scenario "$T/res.json" "$RES" 4s '{"from": 5, "to": 8, "probe": "2s"}' 8s "0.5 edge"

"$GAUNTLET" validate "$T/main.json" >"$T/validate.out" 2>&1
check "validate: the edge phase's 8 probes of 3 s on the timeline" \
	grep -q "phase 'edge' starts (for 24s: the SLA edge of the inference arrival rate, 8 probes of 3s real time, each settling its last 250ms" "$T/validate.out"
check "validate: the later phase at 0.8 x the edge" grep -q "inference at 0.8 x the edge phase 'edge' finds" "$T/validate.out"

"$GAUNTLET" run "$T/main.json" --out "$T/main" >"$T/main.log" 2>&1 &
P_MAIN=$!
"$GAUNTLET" run "$T/none.json" --out "$T/none" >"$T/none.log" 2>&1 &
P_NONE=$!
"$GAUNTLET" run "$T/res.json" --out "$T/res" >"$T/res.log" 2>&1 &
P_RES=$!
PIDS+=("$P_MAIN" "$P_NONE" "$P_RES")

# the resumed run: killed in its later phase, once it runs there (a window
# of it closed), then resumed
if wait_log "$T/res.log" "phase 'steady': inference at 0.5 x the edge 8 req/s" 30 && wait_windows "$T/res/run.db" 7 30; then
	kill -KILL "$P_RES"
	wait "$P_RES" 2>/dev/null
	"$GAUNTLET" resume "$T/res" >"$T/res-resume.log" 2>&1
	rc=$?
	check "resume: exit 0 (got $rc)" [ $rc -eq 0 ]
else
	bad "the run to resume never reached its later phase"
	cat "$T/res.log"
fi
wait "$P_NONE"
rc=$?
check "no edge: the run fails (exit 1, got $rc)" [ $rc -eq 1 ]
wait "$P_MAIN"
rc=$?
log_unless $rc 0 "$T/main.log"
check "main: exit 0 (got $rc)" [ $rc -eq 0 ]

# e RUN 'python over s (the first search of report.json), r (the report)'
e() {
	python3 -c "
import json,sys
r=json.load(open('$T/$1/report.json'))
s=r['edge']['searches'][0]
v=($2)
if v is not True: print(v)
sys.exit(0 if v else 1)"
}
EDGE=$(e main "s['edge_rps']")
echo "found edge: $EDGE req/s (bracket $(e main "s['low_rps']") to $(e main "s['high_rps']"), width $(e main "s['width_rps']")); the server's capacity C = $S / ${SERVICE_MS} ms = $C req/s"
echo "probes: $(e main "' '.join('%g/s:%.3f:%s' % (p['rate'], p['goodput'], 'holds' if p['pass'] else 'fails') for p in s['probes'])")"
timing "the found edge ($EDGE req/s) within 10 % of the capacity $C req/s" e main "abs(s['edge_rps'] - $C) <= 0.1 * $C"
check "main: found, bracketed (low = edge < high, width = high - low), the gate passes" \
	e main "s['outcome'] == 'found' and s['done'] and s['pass'] and r['edge']['pass'] and s['low_rps'] == s['edge_rps'] < s['high_rps'] and abs(s['width_rps'] - (s['high_rps'] - s['low_rps'])) < 1e-9 and r['verdict'] == 'pass'"
check "main: 8 probes, one per slot of 3 s from the phase's start, none lost" \
	e main "[p['slot'] for p in s['probes']] == list(range(8)) and s['slots'] == 8 and all(abs(p['start_s'] - 3 * p['slot']) < 1e-6 and not p['lost'] for p in s['probes'])"
# the search's rule, replayed here over the probes' verdicts
check "main: every probe's rate is the search's next (x2 from 18 until one fails, then the bracket's middle)" \
	e main "(lambda ps: all(abs(ps[i]['rate'] - (lambda lo, hi: 18 if lo is None and hi is None else (lo * 2 if hi is None else (lo + hi) / 2))(max([p['rate'] for p in ps[:i] if p['pass']], default=None), min([p['rate'] for p in ps[:i] if not p['pass']], default=None))) < 1e-9 for i in range(len(ps))))(s['probes'])"
check "main: each probe's verdict is its goodput against >= 0.95, goodput = good / requests" \
	e main "all(p['pass'] == (p['good'] / p['requests'] >= 0.95) and abs(p['goodput'] - p['good'] / p['requests']) < 1e-12 and p['requests'] == p['good'] + p['slow'] + p['errors'] + p['late'] for p in s['probes'])"
check "main: the edge is the highest rate that held, the bracket's high the lowest that failed above it" \
	e main "s['edge_rps'] == max(p['rate'] for p in s['probes'] if p['pass']) and s['high_rps'] == min(p['rate'] for p in s['probes'] if not p['pass'] and p['rate'] > s['edge_rps'])"
# each probe sent its rate for 2.75 s (3 s less the settle: the slo's 250 ms)
check "main: each probe's requests are its rate x 2.75 s (+-2)" e main "all(abs(p['requests'] - p['rate'] * 2.75) <= 2 for p in s['probes'])"
check "main: the later phase's rate is 0.8 x the edge (report.json)" \
	e main "[(f['phase'], f['phase_name'], f['fraction'], f['at_from']) for f in s['fractions']] == [(1, 'steady', 0.8, False)] and abs(s['fractions'][0]['rate_rps'] - 0.8 * s['edge_rps']) < 1e-9"
# the rate the generator sent at in the later phase, from the requests'
# intended send times (store rows): 24 s to 30 s
SENT=$(python3 -c "
import sqlite3
c=sqlite3.connect('$T/main/run.db')
t=[r[0] for r in c.execute('select t_intended_ns from requests where t_intended_ns >= 24e9 order by t_intended_ns')]
print('%.4f' % ((len(t) - 1) / ((t[-1] - t[0]) / 1e9)))")
echo "later phase: sent at $SENT req/s (intended send times), 0.8 x edge = $(e main "0.8 * s['edge_rps']")"
check "main: the later phase sent at 0.8 x the edge within 2 % ($SENT req/s)" e main "abs($SENT - 0.8 * s['edge_rps']) <= 0.02 * 0.8 * s['edge_rps']"
timing "main: the later phase's finished requests per second within 10 % of 0.8 x the edge" \
	e main "abs(r['phases'][1]['metrics']['inference']['throughput_rps'] - 0.8 * s['edge_rps']) <= 0.1 * 0.8 * s['edge_rps']"
check "main: the phases in report.json: kinds and the fraction" \
	e main "[(p['name'], p['kind'], p.get('edge_fraction')) for p in r['phases']] == [('edge', 'edge', None), ('steady', 'load', 0.8)]"
check "main: the event log says the edge and the later phase's rate" \
	sh -c "grep -q \"edge 'edge': the edge is .* req/s: the highest rate whose probe held goodput >= 0.95\" '$T/main.log' && grep -q \"phase 'steady': inference at 0.8 x the edge\" '$T/main.log'"
check "main: report.md's SLA edge section and its probe table" \
	sh -c "grep -q '^## SLA edge' '$T/main/report.md' && grep -q \"^Phase 'edge' (inference): PASS: the edge is\" '$T/main/report.md' && test \$(grep -c '^| [1-8] | ' '$T/main/report.md') -ge 8"
check "main: report.html's SLA edge section" grep -q '<h2 id="edge">SLA edge</h2>' "$T/main/report.html"
check "main: junit.xml's edge test case passes" grep -q '<testcase classname="gauntlet.edge" name="edge" time="0"/>' "$T/main/junit.xml"

# no rate held: the gate fails, the later phase at "from", said so
check "no edge: below_from, no edge, the gate and the verdict fail" \
	e none "s['outcome'] == 'below_from' and s['edge_rps'] is None and not s['pass'] and not r['edge']['pass'] and r['verdict'] == 'fail' and len(s['probes']) == 1 and not s['probes'][0]['pass']"
check "no edge: the later phase runs at from (10/s), not at a made-up rate" \
	e none "s['fractions'] == [{'phase': 1, 'phase_name': 'steady', 'fraction': 0.5, 'rate_rps': 10, 'at_from': True}]"
check "no edge: the event says so" grep -q "phase 'steady': phase 'edge' found no edge (below_from), so no 0.5 x edge exists: inference runs at \"from\" (10 req/s), not at a made-up rate" "$T/none.log"
SENT=$(python3 -c "
import sqlite3
c=sqlite3.connect('$T/none/run.db')
t=[r[0] for r in c.execute('select t_intended_ns from requests where t_intended_ns >= 2e9 order by t_intended_ns')]
print('%.4f' % ((len(t) - 1) / ((t[-1] - t[0]) / 1e9)) if len(t) > 1 else 0)")
check "no edge: the later phase sent at 10/s ($SENT)" python3 -c "import sys; sys.exit(abs($SENT - 10) > 0.2)"
check "no edge: junit.xml's edge test case fails" grep -q '<failure type="edge" message="no rate held goodput' "$T/none/junit.xml"
check "no edge: report.md says FAIL in its banner and section" \
	sh -c "grep -q 'SLA edge:\*\* 1 of 1 edge phase(s) found no edge' '$T/none/report.md' && grep -q \"^Phase 'edge' (inference): FAIL: no rate held\" '$T/none/report.md'"

# the resumed run: the stored edge reused
check "resumed: once resumed, the edge at_to 8 req/s from 2 probes" \
	e res "r['run']['resumes'] == 1 and s['outcome'] == 'at_to' and s['edge_rps'] == 8 and [p['rate'] for p in s['probes']] == [5, 8] and r['verdict'] == 'pass'"
check "resumed: no probe after the resume, the later phase at the same 0.5 x 8 req/s" \
	sh -c "! grep -q 'probe' '$T/res-resume.log' && grep -q \"phase 'steady': inference at 0.5 x the edge 8 req/s that phase 'edge' found: 4 req/s\" '$T/res-resume.log'"

# compare: both edges, the ratio; no edge against an edge is a regression
"$GAUNTLET" compare "$T/main" "$T/main" --out "$T/cmp-same" >"$T/cmp-same.out" 2>&1
check "compare: a run against itself, the edge's ratio 1, no change" \
	json "$T/cmp-same/compare.json" "[(x['base']['edge_rps'] == x['candidate']['edge_rps'] == $EDGE, x['ratio'], x['verdict']) for x in r['edges']] == [(True, 1, 'no change')]"
check "compare: the summary shows both edges and the ratio" grep -q "SLA edge, phase edge: [0-9.]* req/s (bracket .*) -> [0-9.]* req/s (bracket .*) (ratio 1): no change" "$T/cmp-same.out"
"$GAUNTLET" compare "$T/main" "$T/none" --out "$T/cmp-lost" >"$T/cmp-lost.out" 2>&1
rc=$?
check "compare: the candidate held no rate: a regression that gates (exit 1, got $rc)" \
	sh -c "test $rc = 1 && grep -q 'SLA edge, phase edge: .* -> none (below_from) (ratio n/a): REGRESSION' '$T/cmp-lost.out'"
check "compare: compare.md's SLA edge table" grep -q '^| edge | .* req/s (bracket .*) | none (below_from) | n/a | the candidate held no rate' "$T/cmp-lost/compare.md"

# the simulator takes the scenario: the model's search, its edge used
"$GAUNTLET" simulate "$T/main.json" --seed 1 --out "$T/sim" --set workloads.inference.slo.ttft_ms=500 >"$T/sim.out" 2>&1
rc=$?
check "simulate: exit 0 (got $rc): $(cat "$T/sim.out")" [ $rc -eq 0 ]
check "simulate: the model's search found an edge, the later phase at 0.8 x it" \
	e sim "s['outcome'] == 'found' and len(s['probes']) == 8 and abs(s['fractions'][0]['rate_rps'] - 0.8 * s['edge_rps']) < 1e-9"

# what validate refuses (exit 2, each named)
refused() { # LABEL PATTERN JQ-LIKE-PYTHON-EDIT [validate args]
	local label=$1 pat=$2 edit=$3; shift 3
	python3 -c "
import json
s=json.load(open('$T/main.json'))
$edit
json.dump(s,open('$T/bad.json','w'))"
	"$GAUNTLET" validate "$T/bad.json" "$@" >"$T/bad.out" 2>&1
	local rc=$?
	check "validate refuses $label (exit $rc)" sh -c "test $rc = 2 && grep -q \"\$1\" '$T/bad.out'" _ "$pat"
}
refused "an edge phase too short for 2 probes" "needs room for at least 2 probes of 3s (real time), but it lasts 5s" \
	"s['phases'][0]['for']='5s'; s['phases'][1]['for']='25s'"
refused "2 probes that the time scale leaves no room for" "but it lasts 4s800ms of real time at time scale 5" "" --time-scale 5
refused "a fraction of the edge with no edge phase before it" "needs an edge phase before it" \
	"s['phases'].reverse(); s['phases'][0]['load']='0.8 edge'"
refused "an edge phase without slo.ttft_ms" "it needs slo.ttft_ms" "del s['workloads']['inference']['slo']"
refused "an edge phase under a closed loop" "it needs arrival.mode constant, poisson or gamma" \
	"s['workloads']['inference']['arrival']={'mode': 'closed', 'users': 4}"
refused "\"edge\" without kind edge" '"edge" belongs to a phase of "kind": "edge"' "del s['phases'][0]['kind']"
refused "a goodput that is no lower bound" "expected the goodput a probe must hold" "s['phases'][0]['edge']['goodput']='<= 0.9'"
refused "to not above from" '"to" (10/s) must be above "from" (18/s)' "s['phases'][0]['edge']['to']=10"
refused "a load that is neither a number nor a fraction of the edge" "like \"0.8 edge\"; got '0.8 edges'" "s['phases'][1]['load']='0.8 edges'"
finish
