#!/usr/bin/env bash
# test_bisect.sh - `gauntlet bisect` and `gauntlet sweep` for real over 8
# lab workers: `gauntlet lab up --workers 8` in the test's own directory;
# the training workload's hosts are lab-w1..lab-w8, gauntlet-train's ranks
# started in the workers' namespaces by mpirun through the lab's launcher
# agent (DIR/bin/mpi-agent, the inventory's training.mca), each under its
# worker's hostname.
# Ground truth: lab-w6's link rate-limited to 1 Mbit/s both ways (tc tbf on
# both ends of its veth pair; netem is not in every kernel), so that any
# all-reduce through it runs at about 0.000125 GB/s of busbw, against a
# threshold 2.4 times that. Checked: with no bad link, every worker together
# passes (exit 0, one job, no culprit) and a node sweep (each worker alone,
# then the 28 pairs) has every job good and no suspect; a run with a
# "bisect" section passes and never bisects with every link healthy; with
# lab-w6's link slowed, a run with "sweep" and "bisect" sweeps before its
# load (lab-w6 the one suspect, a host, every pair with it at the link's
# rate and no other; its 36 jobs children of the run, the 8 alone with
# shared memory off), fails, and bisects at its end, naming lab-w6 in at
# most 4 jobs, in its reports and as its one suspect; with only the link
# between lab-w3 and lab-w5 slowed (htb on the host's side) the sweep
# names the link, never a host; no rank or MPI daemon
# left in any worker. Needs root, mpirun and gauntlet-train; skips
# otherwise.
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root: the lab builds network namespaces"
for c in ip tc nsenter mpirun; do
	command -v $c >/dev/null || skip "needs $c (scripts/setup.sh installs it)"
done
[ -x "$(dirname "$GAUNTLET")/gauntlet-train" ] || skip "gauntlet-train was not built (OpenMPI development files missing at build time)"
reap_stale_labs
[ -e /run/netns/gl-lab-w1 ] && skip "a lab is already up on this machine (netns gl-lab-w1): this test builds its own"

N=8
BAD=6
# GB/s: 2.4 x the bad link's 1 Mbit/s (0.000125 GB/s); a healthy 8-rank job
# measured 0.195 GB/s (ranks yielding when idle; spinning, they had
# measured 0.0046 on an idle machine, 0.00078 at nice 19 beside a CI run)
MIN_BUSBW=0.0003

LAB=$T/lab
bs_cleanup() {
	for h in 3 5 $BAD; do tc qdisc del dev "gl-lab-w${h}h" root 2>/dev/null; done
	"$GAUNTLET" lab down --dir "$LAB" >/dev/null 2>&1
	cleanup
}
trap bs_cleanup EXIT
"$GAUNTLET" lab up --dir "$LAB" --workers $N >"$T/up.log" 2>&1 || { cat "$T/up.log"; skip "lab up failed (above)"; }
INV=$LAB/inventory.json
for part in net mpi; do
	[ "$(json "$INV" "r['parts']['$part']['state']" 2>/dev/null)" = up ] ||
		skip "the lab's $part part is not up: $(grep "^lab: $part " "$T/up.log")"
done
grep -E '^lab: (net|mpi) ' "$T/up.log"

# bisect.json for `gauntlet bisect`; run.json the same workload as a run
# that bisects at its end when its steady busbw target fails
python3 - "$T" "$INV" "$N" "$MIN_BUSBW" <<'PY'
import json, sys
t, inv, n, min_bw = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
trn = {"launcher": "mpirun", "backend": "mpi", "hosts": ["lab-w%d:1" % i for i in range(1, n + 1)],
       "binary": "${training.binary}", "launcher_args": "${training.launcher_args}",
       "mca": "${training.mca}", "message": "256KiB", "compute": "0s"}
sc = {"name": "lab-bisect", "inventory": inv, "duration": "10s", "workloads": {"training": trn},
      "targets": {"steady": {"training.step_time_s.p95": "<= 10", "training.busbw_gbps.p50": ">= %g" % min_bw}}}
json.dump(sc, open(t + "/bisect.json", "w"), indent=1)
trn = dict(trn, bisect={"min_busbw": min_bw, "budget": "4m", "job_timeout": "90s", "steps": 4})
sc = dict(sc, name="lab-bisect-run", duration="16s", window="4s", workloads={"training": trn},
          targets={"steady": {"training.step_time_s.p95": "<= 60", "training.busbw_gbps.p50": ">= %g" % min_bw}})
json.dump(sc, open(t + "/run.json", "w"), indent=1)
# the same run with a node sweep before its load (SWEEP below)
trn = dict(trn, sweep={"steps": 4, "message": "128KiB", "tolerance": 1.0, "parallel": 4, "job_timeout": "60s",
                       "budget": "4m"})
json.dump(dict(sc, workloads={"training": trn}), open(t + "/run-sweep.json", "w"), indent=1)
PY
for f in bisect run run-sweep; do
	"$GAUNTLET" validate "$T/$f.json" >"$T/validate.log" 2>&1 || { cat "$T/validate.log"; bad "$f.json validates"; finish; }
done

# field FILE EXPR: EXPR over the JSON document d, printed
field() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$1"; }
summary() { field "$1" '"outcome %s, culprit %s, %d job(s)" % (d["outcome"], d["culprit"], len(d["jobs"]))'; }
jobs_table() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for k, j in enumerate(d["jobs"], 1):
    b = j["busbw_gbps"]
    print("  job %d: %-48s busbw %s GB/s, %d steps, %.1f s: %s%s" % (k, ",".join(j["hosts"]),
          "%.6f" % b if b is not None else "-", j["steps"], j["seconds"], "bad" if j["bad"] else "good",
          " (%s)" % j["why"] if j["bad"] else ""))
PY
}

# ---- part 1: no bad link: every worker together passes ------------------------------
"$GAUNTLET" bisect "$T/bisect.json" --min-busbw $MIN_BUSBW --steps 4 --json >"$T/clean.json" 2>"$T/clean.err"
rc=$?
echo "clean (threshold $MIN_BUSBW GB/s):"; jobs_table "$T/clean.json" 2>/dev/null || cat "$T/clean.err"
check "clean: exit 0, outcome clean, one job over 8 workers, no culprit (exit $rc; $(summary "$T/clean.json" 2>/dev/null))" \
	[ "$rc" = 0 -a "$(field "$T/clean.json" 'd["outcome"], d["culprit"], len(d["jobs"]), len(d["jobs"][0]["hosts"])' 2>/dev/null)" = "clean None 1 8" ]

# ---- part 1a: the node sweep finds nothing -----------------------------------------------
# Each worker alone (2 ranks, shared memory off), then the 28 pairs in 7
# rounds of 4 side by side. On two loaded cores a healthy pair's busbw
# varies by a factor of up to 180 with 64 KiB messages (jobs side by side,
# each step waiting for both ranks to be scheduled: about 10 ms lost is
# 0.0065 GB/s): 128 KiB messages cut that to a factor of 20 to 50, in two
# groups beside a CPU hog (ranks that waited a tick each step, ranks that
# did not; the sweep's spread, Qn, is the one within them). Under heavier
# load every pair waits and healthy pairs gather at about 100 times a
# 1 Mbit/s link's rate: --tolerance 1.0 puts "out" at 1/55 of a job's
# peers (e^-4) and below, where that link stays and the noise does not.
SWEEP=(--steps 4 --message 128KiB --tolerance 1.0 --parallel 4 --job-timeout 60s)
sweep_table() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for i, h in enumerate(d["hosts"]):
    print("  %-8s alone %-10s pairs %-10s z %5s %5s   %s" % (h, d["single"][i]["busbw_gbps"], d["pair_level_gbps"][i],
          d["single_z"][i], d["pair_level_z"][i], " ".join("%9s" % (x if x is not None else "-") for x in d["pairs"][i])))
for s in d["suspects"]:
    print("  suspect %s %s (score %s): %s" % (s["kind"], s["name"], s["score"], s["evidence"]))
PY
}
sweep_summary() { field "$1" '"%s, %d jobs, %d of %d rounds, suspects %s" % (d["outcome"], d["jobs"], d["rounds_run"], d["rounds"], [(s["kind"], s["name"], s["score"]) for s in d["suspects"]])'; }
"$GAUNTLET" sweep "$T/bisect.json" "${SWEEP[@]}" --json >"$T/sweep-clean.json" 2>"$T/sweep-clean.err"
rc=$?
echo "sweep, every link healthy:"; sweep_table "$T/sweep-clean.json" 2>/dev/null || cat "$T/sweep-clean.err"
check "sweep clean: exit 0, 8 alone and 28 pairs in 7 rounds, every job good, no suspect (exit $rc; $(sweep_summary "$T/sweep-clean.json" 2>/dev/null))" \
	[ "$rc" = 0 -a "$(field "$T/sweep-clean.json" 'd["outcome"], d["jobs"], d["rounds_run"], len(d["bad"]), len(d["suspects"]), sum(x is not None for r in d["pairs"] for x in r)' 2>/dev/null)" = "done 36 7 0 0 56" ]

# ---- part 1b: a run that passes never bisects ----------------------------------------
"$GAUNTLET" run "$T/run.json" --out "$T/run-clean" >"$T/run-clean.log" 2>&1
rc=$?
check "clean run: exit 0, no bisection (report.json bisect null, no bisect event) (exit $rc; $(grep -c ' bisect: ' "$T/run-clean.log") bisect lines)" \
	bash -c "[ $rc = 0 ] && [ \"\$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"bisect\"])' '$T/run-clean/report.json')\" = None ] && ! grep -q ' bisect: ' '$T/run-clean.log'"

# ---- part 2: lab-w6's link at 1 Mbit/s both ways ------------------------------------
tc qdisc add dev "gl-lab-w${BAD}h" root tbf rate 1mbit burst 4kb limit 64kb
ip netns exec "gl-lab-w$BAD" tc qdisc add dev "gl-lab-w${BAD}n" root tbf rate 1mbit burst 4kb limit 64kb
# ---- part 3: the same link, a run that sweeps before its load and whose busbw ----------
# target fails, so that it bisects at its end
"$GAUNTLET" run "$T/run-sweep.json" --out "$T/run-bad" >"$T/run-bad.log" 2>&1
rc=$?
grep -E ' (bisect|training|sweep): ' "$T/run-bad.log" | cut -c1-220
R=$T/run-bad/report.json
field "$R" 'json.dumps(d["sweep"])' >"$T/sweep-run.json" 2>/dev/null
echo "the run's sweep, lab-w$BAD at 1 Mbit/s:"; sweep_table "$T/sweep-run.json" 2>/dev/null
check "bad run: its sweep names lab-w$BAD alone, a host, from its pairs ($(sweep_summary "$T/sweep-run.json" 2>/dev/null))" \
	[ "$(field "$T/sweep-run.json" '[(s["kind"], s["name"]) for s in d["suspects"]], d["outcome"], d["pair_level_z"][d["hosts"].index("lab-w'$BAD'")] >= 4' 2>/dev/null)" = "[('host', 'lab-w$BAD')] done True" ]
check "bad run: every pair with lab-w$BAD at the link's rate or below (<= 0.0002 GB/s), every other pair above it" python3 - "$T/sweep-run.json" "lab-w$BAD" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = d["hosts"].index(sys.argv[2])
cells = [(i, j, d["pairs"][i][j]) for i in range(8) for j in range(8) if i != j]
sys.exit(0 if all((x is not None and x <= 0.0002) == (b in (i, j)) for i, j, x in cells) else 1)
PY
echo "the sweep's store document: $(sql "$T/run-bad/run.db" "select length(body) from docs where key = 'sweep'" 2>/dev/null) bytes for 8 hosts"
n_alone=$(sql "$T/run-bad/run.db" "select count(*) from children where source = 'sweep' and what like '%-x OMPI_MCA_btl%' and what like '%-x NCCL_SHM_DISABLE%'" 2>/dev/null)
n_sw=$(sql "$T/run-bad/run.db" "select count(*) from children where source = 'sweep'" 2>/dev/null)
check "bad run: the sweep's 36 jobs are children of the run, the 8 alone with shared memory and peer-to-peer off ($n_sw jobs, $n_alone alone so)" \
	[ "$n_sw" = 36 -a "$n_alone" = 8 ]
check "bad run: exit 1 (the busbw target failed) and report.json names lab-w$BAD the culprit in at most 4 jobs (exit $rc; $(field "$R" '"%s %s, %d job(s)" % (d["bisect"]["outcome"], d["bisect"]["culprit"], len(d["bisect"]["jobs"]))' 2>/dev/null))" \
	[ "$rc" = 1 -a "$(field "$R" 'd["bisect"]["outcome"], d["bisect"]["culprit"], len(d["bisect"]["jobs"]) <= 4' 2>/dev/null)" = "culprit lab-w$BAD True" ]
check "bad run: its jobs bad exactly when lab-w$BAD is in them, at the link's rate or below (<= 0.0002 GB/s); the trigger names the busbw target" python3 - "$R" "lab-w$BAD" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))["bisect"]
sys.exit(0 if b["jobs"] and all(j["bad"] == (sys.argv[2] in j["hosts"]) for j in b["jobs"])
         and all(j["busbw_gbps"] is None or j["busbw_gbps"] <= 0.0002 for j in b["jobs"] if j["bad"])
         and b["trigger"].startswith("training.busbw_gbps.p50 ") else 1)
PY
check "bad run: lab-w$BAD is the one suspect, a host of the training workload, named by the bisection and the sweep ($(field "$R" '[(s["kind"], s["name"], s["score"]) for s in d["suspects"]]' 2>/dev/null))" \
	json "$R" "[(s['kind'], s['name'], s['workload'], s['evidence'].startswith('bisection: ') and '; node sweep: ' in s['evidence']) for s in r['suspects']] == [('host', 'lab-w$BAD', 'training', True)]"
check "bad run: report.md and report.html show the bisection and its culprit, the sweep and its matrix" \
	bash -c "grep -q '^### Bisection' '$T/run-bad/report.md' && grep -q 'Culprit: lab-w$BAD (' '$T/run-bad/report.md' && grep -q '<h3>Bisection</h3>' '$T/run-bad/report.html' && grep -q 'Culprit: lab-w$BAD (' '$T/run-bad/report.html' && grep -q '^### Node sweep' '$T/run-bad/report.md' && grep -q '^| lab-w$BAD (suspect) |' '$T/run-bad/report.md' && grep -q '^| | lab-w1 | lab-w2 |' '$T/run-bad/report.md' && grep -q '<h3>Node sweep</h3>' '$T/run-bad/report.html' && grep -q '<table class=\"matrix\">' '$T/run-bad/report.html'"
n_ev=$(sql "$T/run-bad/run.db" "select count(*) from events where source = 'bisect'" 2>/dev/null)
check "bad run: the store has each bisection job as an event ($n_ev events for $(field "$R" 'len(d["bisect"]["jobs"])' 2>/dev/null) jobs, plus the start and the outcome)" \
	[ "$n_ev" = "$(($(field "$R" 'len(d["bisect"]["jobs"])' 2>/dev/null) + 2))" ]
cp "$R" "$T/report-run.json"
"$GAUNTLET" report "$T/run-bad" >/dev/null 2>&1
check "bad run: gauntlet report renders the same bisection and sweep from the store alone" python3 - "$T/report-run.json" "$R" <<'PY'
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
sys.exit(0 if a["bisect"] == b["bisect"] and a["sweep"] == b["sweep"] and a["sweep"] else 1)
PY
rm -f "$T/report-run.json"

# ---- part 4: lab-w6 healthy again; only the link between lab-w3 and lab-w5 slowed ------
# Each direction at the host's side (workers reach each other through the
# host): on gl-lab-w5h what comes from lab-w3, on gl-lab-w3h what comes
# from lab-w5, at 1 Mbit/s (htb, a u32 filter on the source address);
# everything else at full speed. No host is bad: the sweep must name the
# link, never a host (its pairs' rounds run lab-w3 with lab-w5 alone). A
# bisection names it too, after 22 jobs, the pairs in turn (by hand: too
# long for the suite; test_bisect_search checks the search on every link).
tc qdisc del dev "gl-lab-w${BAD}h" root 2>/dev/null
ip netns exec "gl-lab-w$BAD" tc qdisc del dev "gl-lab-w${BAD}n" root 2>/dev/null
slow_from() { # DEV SRC: traffic DEV sends that came from SRC at 1 Mbit/s
	tc qdisc add dev "$1" root handle 1: htb default 20 &&
		tc class add dev "$1" parent 1: classid 1:10 htb rate 1mbit ceil 1mbit burst 4kb &&
		tc class add dev "$1" parent 1: classid 1:20 htb rate 10gbit &&
		tc filter add dev "$1" parent 1: protocol ip u32 match ip src "$2/32" flowid 1:10
}
LA=3 LB=5
addr() { json "$INV" "r['hosts']['lab-w$1']['address']"; }
slow_from "gl-lab-w${LB}h" "$(addr $LA)" 2>"$T/tc.err" && slow_from "gl-lab-w${LA}h" "$(addr $LB)" 2>>"$T/tc.err" ||
	skip "tc htb with a u32 filter fails here: $(cat "$T/tc.err")"
"$GAUNTLET" sweep "$T/bisect.json" "${SWEEP[@]}" --json >"$T/sweep-link.json" 2>"$T/sweep-link.err"
rc=$?
echo "sweep, lab-w$LA<->lab-w$LB at 1 Mbit/s:"; sweep_table "$T/sweep-link.json" 2>/dev/null || cat "$T/sweep-link.err"
check "sweep link: exit 1, the link lab-w$LA<->lab-w$LB the one suspect, no host, its cell at the link's rate (exit $rc; $(sweep_summary "$T/sweep-link.json" 2>/dev/null))" \
	[ "$rc" = 1 -a "$(field "$T/sweep-link.json" '[(s["kind"], s["name"]) for s in d["suspects"]], d["pairs"]['$((LA - 1))']['$((LB - 1))'] <= 0.0002' 2>/dev/null)" = "[('link', 'lab-w$LA<->lab-w$LB')] True" ]
for h in $LA $LB; do tc qdisc del dev "gl-lab-w${h}h" root 2>/dev/null; done

# no rank or MPI daemon in any worker (the lab's own replicas, agents and
# slurmd stay until lab down)
mpi_left() {
	local i p
	for i in $(seq 1 $N); do
		for p in $(ip netns pids "gl-lab-w$i" 2>/dev/null); do
			case "$(cat /proc/$p/comm 2>/dev/null)" in gauntlet-train | orted | prted) echo "lab-w$i: $p" ;; esac
		done
	done
}
mpi_gone() { [ -z "$(mpi_left)" ]; }
check "no rank or MPI daemon left in the workers" until_ok 10 mpi_gone
mpi_left
finish
