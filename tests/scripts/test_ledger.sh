#!/usr/bin/env bash
# test_ledger.sh - `gauntlet nodes`, the ledger across runs, against
# report.json files written here with known suspects (test_nodes checks it
# on real runs):
#  1. four runs: host gpu-3 a suspect in three of them (scores 9.1, 12.5,
#     7.0 and 5.5: two of its ranks in one run), an endpoint with no known
#     host in one; the counts, shares,
#     worst score and its run, the order, the nodes never suspect;
#  2. an evidence repository (branch evidence/<scenario>, RUN_ID/report.json
#     in its tip, as `gauntlet seal` writes) holding a fifth run and a copy
#     of the first: the fifth counted, the copy counted once;
#  3. bad input: a report whose suspects[0].host is not a string, a
#     directory that is neither a run nor a repository, a report without
#     per-node figures: exit 2, the place named, no table printed.
source "$(dirname "$0")/lib.sh"

# report RUN_ID VERDICT SUSPECTS_JSON: DIR/RUN_ID/report.json, the nodes
# gpu-1..gpu-4 (ranks 0..3 of "train") and two endpoints whose host is not
# known, with the suspects given
report() {
	mkdir -p "$T/$1"
	python3 - "$T/$1/report.json" "$1" "$2" "$3" <<'PY'
import json, sys
path, rid, verdict, sus = sys.argv[1:5]
lst = [{"workload": "train", "kind": "rank", "name": str(i), "host": "gpu-%d" % (i + 1), "figure": "compute_ms",
        "samples": 10, "mean": 50.0, "max": 60.0, "peer_median": 50.0, "suspect": False} for i in range(4)]
lst += [{"workload": "chat", "kind": "endpoint", "name": "10.0.0.%d:8000" % i, "host": "-", "figure": "ttft_ms",
         "samples": 10, "mean": 40.0, "max": 50.0, "peer_median": 40.0, "suspect": False} for i in (1, 2)]
json.dump({"schema_version": 1, "verdict": verdict, "run": {"id": rid}, "suspects": json.loads(sus),
           "nodes": {"windows": 10, "suspects": 0, "max": None, "pass": True, "z_threshold": 4, "min_windows": 3,
                     "list": lst}}, open(path, "w"))
PY
}
sus() { # KIND NAME HOST WORKLOAD SCORE EVIDENCE
	echo "{\"kind\": \"$1\", \"name\": \"$2\", \"host\": \"$3\", \"workload\": \"$4\", \"score\": $5, \"windows\": 5, \"evidence\": \"$6\"}"
}

# --- 1. four runs -------------------------------------------------------------------------------------
report r1 fail "[$(sus rank 2 gpu-3 train 9.1 "compute 80 ms against 50")]"
report r2 fail "[$(sus rank 2 gpu-3 train 12.5 "compute 95 ms against 50"), $(sus endpoint 10.0.0.2:8000 - chat 6.0 "TTFT 120 ms against 40")]"
report r3 pass "[]"
# r4: two ranks of gpu-3 both suspects (a host holds several ranks): one run
report r4 fail "[$(sus rank 1 gpu-3 train 7.0 "compute 70 ms against 50"), $(sus rank 2 gpu-3 train 5.5 "compute 66 ms against 50")]"
"$GAUNTLET" nodes "$T/r1" "$T/r2" "$T/r3/report.json" "$T/r4" | tee "$T/t1.txt"; rc=$?
check "four runs: exit $rc, 4 runs (3 not passed), 6 nodes, 2 ever a suspect" \
	grep -q "^gauntlet nodes: 4 run(s) (3 not passed), 6 node(s), 2 ever a suspect$" "$T/t1.txt"
check "four runs: gpu-3 first: 4 runs, 3 suspect (r4's two ranks one run), 75 %, worst 12.5 (run r2, its evidence), as rank 2 in 3 and rank 1 in 1" \
	bash -c "sed -n 3p '$T/t1.txt' | grep -Eq '^gpu-3 +4 +3 +75% +12\.5  train rank 2 \(3\), train rank 1 \(1\); compute 95 ms against 50 \[r2\]$'"
check "four runs: the endpoint with no host is its own node, 1 suspect run of 4, named 'endpoint 10.0.0.2:8000'" \
	bash -c "sed -n 4p '$T/t1.txt' | grep -Eq '^endpoint 10\.0\.0\.2:8000 +4 +1 +25% +6\.0  chat endpoint'"
check "four runs: the 4 nodes never a suspect are counted, not listed" \
	bash -c "[ \$(wc -l < '$T/t1.txt') = 5 ] && tail -1 '$T/t1.txt' | grep -q '^4 node(s) never a suspect'"
"$GAUNTLET" nodes "$T/r1" "$T/r2" "$T/r3" "$T/r4" --all --json >"$T/t1.json"
check "four runs, --all --json: every node, with its runs and suspect runs" python3 -c "
import json; l=json.load(open('$T/t1.json'))
got={n['node']: (n['runs'], n['suspect_runs']) for n in l['nodes']}
print(got)
assert l['runs'] == 4 and l['runs_failed'] == 3, l
assert got == {'gpu-3': (4, 3), 'endpoint 10.0.0.2:8000': (4, 1), 'gpu-1': (4, 0), 'gpu-2': (4, 0), 'gpu-4': (4, 0),
               'endpoint 10.0.0.1:8000': (4, 0)}, got
assert [n['node'] for n in l['nodes']][:2] == ['gpu-3', 'endpoint 10.0.0.2:8000']"

# --- 2. an evidence repository ------------------------------------------------------------------------
if command -v git >/dev/null; then
	report r5 fail "[$(sus rank 0 gpu-3 train 20.0 "compute 150 ms against 50")]"
	REPO=$T/evidence.git
	W=$T/work
	git init -q --bare "$REPO" && git init -q "$W" && mkdir -p "$W/r5" "$W/r1" &&
		cp "$T/r5/report.json" "$W/r5/" && cp "$T/r1/report.json" "$W/r1/" &&
		git -C "$W" add -A && git -C "$W" -c user.name=t -c user.email=t@t commit -qm sealed &&
		git -C "$W" push -q "$REPO" HEAD:refs/heads/evidence/acceptance
	"$GAUNTLET" nodes "$T/r1" "$T/r2" "$T/r3" "$T/r4" "$REPO" --json >"$T/t2.json"; rc=$?
	check "evidence repository: exit $rc; its fifth run counted, its copy of r1 once (5 runs, gpu-3 in 4, worst 20)" python3 -c "
import json; l=json.load(open('$T/t2.json'))
g=[n for n in l['nodes'] if n['node'] == 'gpu-3'][0]
print(l['runs'], l['runs_given_twice'], g['runs'], g['suspect_runs'], g['worst_score'], g['worst_run'])
assert $rc == 0 and l['runs'] == 5 and l['runs_given_twice'] == 1, l
assert (g['runs'], g['suspect_runs'], g['worst_score'], g['worst_run']) == (5, 4, 20.0, 'r5'), g"
	git init -q --bare "$T/empty.git"
	"$GAUNTLET" nodes "$T/empty.git" >"$T/t2e.out" 2>"$T/t2e.err"; rc=$?
	check "a repository with no sealed run: exit 2, said ($(cat "$T/t2e.err"))" \
		bash -c "[ $rc -eq 2 ] && grep -q 'no sealed run' '$T/t2e.err' && [ ! -s '$T/t2e.out' ]"
else
	part_skip "evidence repository" "git is not installed (the test builds a repository with it)"
fi

# --- 3. bad input ------------------------------------------------------------------------------------
report bad fail '[{"kind": "rank", "name": "2", "host": 5, "workload": "train", "score": 9, "windows": 5, "evidence": "x"}]'
"$GAUNTLET" nodes "$T/r1" "$T/bad" >"$T/t3.out" 2>"$T/t3.err"; rc=$?
check "bad host: exit 2, the file and suspects[0].host named, no table ($(cat "$T/t3.err"))" \
	bash -c "[ $rc -eq 2 ] && grep -q 'bad/report.json: suspects\[0\].host: expected a string' '$T/t3.err' && [ ! -s '$T/t3.out' ]"
mkdir -p "$T/neither"
"$GAUNTLET" nodes "$T/neither" >"$T/t4.out" 2>"$T/t4.err"; rc=$?
check "a directory neither a run nor a repository: exit 2, said ($(cat "$T/t4.err"))" \
	bash -c "[ $rc -eq 2 ] && grep -q 'neither a run directory' '$T/t4.err'"
mkdir -p "$T/old" && echo '{"verdict": "pass", "run": {"id": "old"}}' >"$T/old/report.json"
"$GAUNTLET" nodes "$T/old" >"$T/t5.out" 2>"$T/t5.err"; rc=$?
check "a report without per-node figures: exit 2, said ($(cat "$T/t5.err"))" \
	bash -c "[ $rc -eq 2 ] && grep -q 'before per-node figures' '$T/t5.err'"
# The fixtures hold only what the ledger reads: finish's schema check is
# for reports gauntlet wrote, so they go first.
find "$T" -name report.json -delete
finish
