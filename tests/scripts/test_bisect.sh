#!/usr/bin/env bash
# test_bisect.sh - `gauntlet bisect` for real over 8 lab workers: `gauntlet
# lab up --workers 8` in the test's own directory; the training workload's
# hosts are lab-w1..lab-w8, gauntlet-train's ranks started in the workers'
# namespaces by mpirun through the lab's launcher agent (DIR/bin/mpi-agent,
# the inventory's training.mca), each under its worker's hostname.
# Ground truth: lab-w6's link rate-limited to 1 Mbit/s both ways (tc tbf on
# both ends of its veth pair; netem is not in every kernel), so that any
# all-reduce through it runs at about 0.000125 GB/s of busbw, against a
# threshold 2.4 times that. Checked: with no bad link, every worker together
# passes (exit 0, one job, no culprit); with lab-w6's link limited and the
# set known bad, lab-w6 is named in at most 4 jobs, each job's
# busbw printed, every job with lab-w6 bad and every job without it good;
# a run with a "bisect" section passes and never bisects with every link
# healthy, and with lab-w6's link slowed fails and bisects at its end,
# naming lab-w6 in its reports and as a suspect; with only the link
# between lab-w3 and lab-w5 slowed (htb on the host's side) the link is
# named, never a host; no rank or MPI daemon left in any worker. Needs root, mpirun and
# gauntlet-train; skips otherwise.
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root: the lab builds network namespaces"
for c in ip tc nsenter mpirun; do
	command -v $c >/dev/null || skip "needs $c (scripts/setup.sh installs it)"
done
[ -x "$(dirname "$GAUNTLET")/gauntlet-train" ] || skip "gauntlet-train was not built (OpenMPI development files missing at build time)"
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
PY
for f in bisect run; do
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

# ---- part 1b: a run that passes never bisects ----------------------------------------
"$GAUNTLET" run "$T/run.json" --out "$T/run-clean" >"$T/run-clean.log" 2>&1
rc=$?
check "clean run: exit 0, no bisection (report.json bisect null, no bisect event) (exit $rc; $(grep -c ' bisect: ' "$T/run-clean.log") bisect lines)" \
	bash -c "[ $rc = 0 ] && [ \"\$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"bisect\"])' '$T/run-clean/report.json')\" = None ] && ! grep -q ' bisect: ' '$T/run-clean.log'"

# ---- part 2: lab-w6's link at 1 Mbit/s both ways ------------------------------------
tc qdisc add dev "gl-lab-w${BAD}h" root tbf rate 1mbit burst 4kb limit 64kb
ip netns exec "gl-lab-w$BAD" tc qdisc add dev "gl-lab-w${BAD}n" root tbf rate 1mbit burst 4kb limit 64kb
# --known-bad: the set is known to fail (as after a failing run), no job
# over all of it first
"$GAUNTLET" bisect "$T/bisect.json" --min-busbw $MIN_BUSBW --steps 4 --job-timeout 90s --known-bad --json \
	>"$T/bad.json" 2>"$T/bad.err"
rc=$?
echo "lab-w$BAD at 1 Mbit/s (threshold $MIN_BUSBW GB/s):"; jobs_table "$T/bad.json" 2>/dev/null || cat "$T/bad.err"
check "bad link: exit 1, lab-w$BAD named the culprit in at most 4 jobs (exit $rc; $(summary "$T/bad.json" 2>/dev/null))" \
	[ "$rc" = 1 -a "$(field "$T/bad.json" 'd["outcome"], d["culprit"], len(d["jobs"]) <= 4' 2>/dev/null)" = "culprit lab-w$BAD True" ]
check "bad link: every job with lab-w$BAD bad, every job without it good" python3 - "$T/bad.json" "lab-w$BAD" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["jobs"] and all(j["bad"] == (sys.argv[2] in j["hosts"]) for j in d["jobs"]) else 1)
PY
check "bad link: the bad jobs' busbw at the link's rate or below (<= 0.0002 GB/s)" python3 - "$T/bad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = [j for j in d["jobs"] if j["bad"]]
sys.exit(0 if bad and all(j["busbw_gbps"] is None or j["busbw_gbps"] <= 0.0002 for j in bad) else 1)
PY
# ---- part 3: the same link, a run whose busbw target fails bisects at its end ---------
"$GAUNTLET" run "$T/run.json" --out "$T/run-bad" >"$T/run-bad.log" 2>&1
rc=$?
grep -E ' (bisect|training): ' "$T/run-bad.log" | cut -c1-220
R=$T/run-bad/report.json
check "bad run: exit 1 (the busbw target failed) and report.json names lab-w$BAD the culprit in at most 4 jobs (exit $rc; $(field "$R" '"%s %s, %d job(s)" % (d["bisect"]["outcome"], d["bisect"]["culprit"], len(d["bisect"]["jobs"]))' 2>/dev/null))" \
	[ "$rc" = 1 -a "$(field "$R" 'd["bisect"]["outcome"], d["bisect"]["culprit"], len(d["bisect"]["jobs"]) <= 4' 2>/dev/null)" = "culprit lab-w$BAD True" ]
check "bad run: its jobs bad exactly when lab-w$BAD is in them; the trigger names the busbw target" python3 - "$R" "lab-w$BAD" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))["bisect"]
sys.exit(0 if b["jobs"] and all(j["bad"] == (sys.argv[2] in j["hosts"]) for j in b["jobs"])
         and b["trigger"].startswith("training.busbw_gbps.p50 ") else 1)
PY
check "bad run: lab-w$BAD is a suspect host of the training workload ($(field "$R" '[(s["kind"], s["name"], s["score"]) for s in d["suspects"]]' 2>/dev/null))" \
	json "$R" "any(s['kind'] == 'host' and s['name'] == 'lab-w$BAD' and s['workload'] == 'training' for s in r['suspects'])"
check "bad run: report.md and report.html show the bisection and its culprit" \
	bash -c "grep -q '^### Bisection' '$T/run-bad/report.md' && grep -q 'Culprit: lab-w$BAD (' '$T/run-bad/report.md' && grep -q '<h3>Bisection</h3>' '$T/run-bad/report.html' && grep -q 'Culprit: lab-w$BAD (' '$T/run-bad/report.html'"
n_ev=$(sql "$T/run-bad/run.db" "select count(*) from events where source = 'bisect'" 2>/dev/null)
check "bad run: the store has each job as an event ($n_ev events for $(field "$R" 'len(d["bisect"]["jobs"])' 2>/dev/null) jobs, plus the start and the outcome)" \
	[ "$n_ev" = "$(($(field "$R" 'len(d["bisect"]["jobs"])' 2>/dev/null) + 2))" ]
cp "$R" "$T/report-run.json"
"$GAUNTLET" report "$T/run-bad" >/dev/null 2>&1
check "bad run: gauntlet report renders the same bisection from the store alone" python3 - "$T/report-run.json" "$R" <<'PY'
import json, sys
sys.exit(0 if json.load(open(sys.argv[1]))["bisect"] == json.load(open(sys.argv[2]))["bisect"] else 1)
PY
rm -f "$T/report-run.json"

# ---- part 4: lab-w6 healthy again; only the link between lab-w3 and lab-w5 slowed ------
# Each direction at the host's side (workers reach each other through the
# host): on gl-lab-w5h what comes from lab-w3, on gl-lab-w3h what comes
# from lab-w5, at 1 Mbit/s (htb, a u32 filter on the source address);
# everything else at full speed. No host is bad: the bisection must name
# the link, never a host. lab-w3 and lab-w5 are no neighbours in the
# rings of the first jobs (a job with both may pass: its all-reduce never
# joins them directly), so the pairs in turn find it.
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
"$GAUNTLET" bisect "$T/bisect.json" --min-busbw $MIN_BUSBW --steps 3 --job-timeout 90s --known-bad \
	--json >"$T/link.json" 2>"$T/link.err"
rc=$?
echo "lab-w$LA<->lab-w$LB at 1 Mbit/s (threshold $MIN_BUSBW GB/s):"; jobs_table "$T/link.json" 2>/dev/null || cat "$T/link.err"
check "bad link: exit 1, the link lab-w$LA<->lab-w$LB named, no host (exit $rc; $(field "$T/link.json" '"outcome %s, culprit %s, link %s, %d job(s)" % (d["outcome"], d["culprit"], d["link"], len(d["jobs"]))' 2>/dev/null))" \
	[ "$rc" = 1 -a "$(field "$T/link.json" 'd["outcome"], d["culprit"], d["link"]' 2>/dev/null)" = "link None ['lab-w$LA', 'lab-w$LB']" ]
check "bad link: the pair alone bad at the link's rate or below (<= 0.0002 GB/s), every job without both ends good" python3 - "$T/link.json" "lab-w$LA" "lab-w$LB" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
a, b = sys.argv[2], sys.argv[3]
pair = [j for j in d["jobs"] if sorted(j["hosts"]) == [a, b]]
sys.exit(0 if len(pair) == 1 and pair[0]["bad"] and (pair[0]["busbw_gbps"] or 0) <= 0.0002
         and all(not j["bad"] for j in d["jobs"] if not (a in j["hosts"] and b in j["hosts"])) else 1)
PY
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
