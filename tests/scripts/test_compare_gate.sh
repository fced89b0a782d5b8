#!/usr/bin/env bash
# test_compare_gate.sh - `gauntlet compare` as a gate, on real runs:
#   (a) two null-workload runs of scenarios/null-soak.json, side by side
#       (at --time-scale 240: 30 s, 1 s windows, its two null faults)
#       compare as no regression: exit 0, and the default output (the
#       summary and the three file names) is at most 30 lines; --all adds
#       the table of every comparison;
#   (b) two real training runs (gauntlet-train through mpirun, MPI backend,
#       two ranks on loopback, 30 s), the candidate checkpointing every
#       step instead of every 50 (--set): a save is wall time without a
#       step, so its ETTR is lower, by at least 5 points (checked on the
#       runs' own report.json before the comparison is judged). compare
#       exits 1 and names training.ettr in the summary's first lines;
#       training.data_time_s (no dataset: the data step is two clock reads,
#       a few hundred ns, and its percentiles move by tens of ns between
#       runs) is listed under --all and never gates.
# The verdicts are the statistics' own; nothing here waits on time but the
# runs themselves.
source "$(dirname "$0")/lib.sh"

"$GAUNTLET" compare >"$T/wired.log" 2>&1
if grep -q "not built yet" "$T/wired.log"; then
	skip "gauntlet compare is not wired into harness/cli/main.c in this binary"
fi

# lines FILE: its number of lines
lines() { wc -l < "$1" | tr -d ' '; }

# --- (a) two null runs of the same scenario ------------------------------------------
# Side by side, so that the machine's load (whatever else runs beside this
# test) weighs on both alike: the null workload measures its own scheduling
# lag, and two runs a minute apart on a busy host are not the same
# experiment. Their null faults keep no marker file (two runs would race
# for it); they are injected and reverted all the same.
sed -e 's|"params": { "marker": "/tmp/gauntlet-null-soak-[0-9].marker" }|"params": {}|' \
	"$GL_SOURCE_DIR/scenarios/null-soak.json" > "$T/null.json"
check "(a) the null faults' markers taken out of the copy" \
	bash -c "! grep -q /tmp/gauntlet-null-soak- '$T/null.json' && [ \$(grep -c '\"params\": {}' '$T/null.json') -eq 2 ]"
pids=()
for r in n1 n2; do
	"$GAUNTLET" run "$T/null.json" --out "$T/$r" --time-scale 240 >"$T/$r.log" 2>&1 &
	pids+=("$!")
done
PIDS+=("${pids[@]}")
for i in 0 1; do
	wait "${pids[$i]}"
	rc=$?
	# its own verdict (lag within its targets on a busy machine) is not
	# what is tested here: that it ran to its end is
	check "(a) n$((i + 1)): the null run finished (exit $rc: 0 pass or 1 fail)" \
		bash -c "[ $rc -le 1 ] && grep -q 'run finished' '$T/n$((i + 1)).log'"
	[ $rc -le 1 ] || tail -5 "$T/n$((i + 1)).log"
done
"$GAUNTLET" compare "$T/n1" "$T/n2" --out "$T/a" >"$T/a.log" 2>&1
rc=$?
echo "--- compare n1 n2 ($(lines "$T/a.log") lines):"
cat "$T/a.log"
check "(a) two identical null runs: exit 0 (no regression)" [ $rc -eq 0 ]
check "(a) and at most 30 lines by default ($(lines "$T/a.log"))" [ "$(lines "$T/a.log")" -le 30 ]
check "(a) the verdict is the second line" bash -c "sed -n 2p '$T/a.log' | grep -q '^verdict: no regression (exit 0)$'"
check "(a) the null faults' recovery compared (2 faults in both runs)" grep -q "recovery_s: 2 fault(s) in both runs: 0 regression(s)" "$T/a.log"
n=$(json "$T/a/compare.json" "len(r['comparisons'])")
"$GAUNTLET" compare "$T/n1" "$T/n2" --out "$T/a-all" --all >"$T/a-all.log" 2>&1
rc=$?
check "(a) --all: exit 0 and a line per comparison ($n) after the summary" \
	bash -c "[ $rc -eq 0 ] && [ \$(grep -c '^null.tick_lag_ms\.' '$T/a-all.log') -eq \$(python3 -c \"import json; print(sum(1 for x in json.load(open('$T/a-all/compare.json'))['comparisons'] if x['metric'].startswith('null.tick_lag_ms.')))\") ] && [ \$(wc -l < '$T/a-all.log') -gt ${n:-1000} ]"

# --- (b) training: the candidate's checkpoints cost it ETTR ----------------------------
BIN=$(dirname "$GAUNTLET")/gauntlet-train
if [ ! -x "$BIN" ]; then
	part_skip "(b)" "gauntlet-train was not built (OpenMPI not found at build time)"
	finish
fi
if ! command -v mpirun >/dev/null; then
	part_skip "(b)" "mpirun not installed (Debian openmpi-bin)"
	finish
fi
cat > "$T/train.json" <<JSON
{
  "name": "compare-training",
  "duration": "30s",
  "window": "1s",
  "hosts": { "me": { "local": true } },
  "workloads": {
    "training": { "launcher": "mpirun", "hosts": ["me:2"], "backend": "mpi",
                  "message": "1MiB", "compute": "25ms", "heartbeat": "200ms", "watchdog": "15s",
                  "restart_backoff": "300ms", "launcher_args": ["--oversubscribe"],
                  "checkpoint": { "dir": "$T/ck", "every_steps": 50, "size": "16MiB" } }
  },
  "phases": [ { "name": "warmup", "for": "4s" }, { "name": "steady", "for": "26s" } ],
  "targets": { "steady": { "training.step_time_s.p95": "<= 2", "training.steps": ">= 5" } }
}
JSON
"$GAUNTLET" run "$T/train.json" --out "$T/t1" >"$T/t1.log" 2>&1
rc1=$?
"$GAUNTLET" run "$T/train.json" --out "$T/t2" --set workloads.training.checkpoint.every_steps=1 >"$T/t2.log" 2>&1
rc2=$?
check "(b) both training runs finished (exit $rc1, $rc2: 0 pass or 1 fail)" \
	bash -c "[ $rc1 -le 1 ] && [ $rc2 -le 1 ] && [ -s '$T/t1/report.json' ] && [ -s '$T/t2/report.json' ]"
[ $rc1 -le 1 ] || tail -5 "$T/t1.log"
[ $rc2 -le 1 ] || tail -5 "$T/t2.log"
e1=$(json "$T/t1/report.json" "r['metrics']['training']['ettr']")
e2=$(json "$T/t2/report.json" "r['metrics']['training']['ettr']")
check "(b) the candidate's ETTR ($e2) is at least 5 points below the base's ($e1), by the runs' own reports" \
	python3 -c "import sys; sys.exit(not float(sys.argv[2]) <= float(sys.argv[1]) - 0.05)" "${e1:-0}" "${e2:-1}"
"$GAUNTLET" compare "$T/t1" "$T/t2" --out "$T/b" >"$T/b.log" 2>&1
rc=$?
echo "--- compare t1 t2 ($(lines "$T/b.log") lines):"
cat "$T/b.log"
check "(b) ETTR lower: exit 1 (regression)" [ $rc -eq 1 ]
check "(b) the summary's first 5 lines name the ETTR regression" \
	bash -c "head -5 '$T/b.log' | grep -q '^  training.ettr, whole run: .*: REGRESSION$'"
check "(b) the ETTR drop is first among the regressions that gate" \
	bash -c "grep -A1 '^regressions that gate' '$T/b.log' | tail -1 | grep -q '^  training.ettr, whole run: '"
check "(b) at most 30 lines" [ "$(lines "$T/b.log")" -le 30 ]
check "(b) compare.json: the whole run's ETTR a regression, its means as the reports' (within 0.01)" \
	json "$T/b/compare.json" "[x['verdict'] == 'regression' and abs(x['base_mean'] - $e1) < 0.01 and abs(x['cand_mean'] - $e2) < 0.01 for x in r['comparisons'] if x['metric'] == 'training.ettr' and x['phase'] == 'whole run'] == [True] or sys.exit(1)"
check "(b) no training.data_time_s figure gates" \
	json "$T/b/compare.json" "[x for x in r['comparisons'] if x['metric'].startswith('training.data_time_s.') and x['verdict'] == 'regression'] == [] and any(x['metric'].startswith('training.data_time_s.') for x in r['comparisons']) or sys.exit(1)"
check "(b) the summary does not mention training.data_time_s" bash -c "! grep -q 'training.data_time_s' '$T/b.log'"
json "$T/b/compare.json" "'\n'.join('info: %s %s: %.3g -> %.3g s, p %s, %s%s' % (x['metric'], x['phase'], x['base_median'], x['cand_median'], x['p_value'], x['verdict'], ' (within the floor)' if x['within_floor'] else '') for x in r['comparisons'] if x['metric'].startswith('training.data_time_s.') and x['phase'] == 'steady')"
"$GAUNTLET" compare "$T/t1" "$T/t2" --out "$T/b-all" --all >"$T/b-all.log" 2>&1
rc=$?
check "(b) --all: exit 1, and every training.data_time_s row listed, none a regression" \
	bash -c "[ $rc -eq 1 ] && [ \$(grep -c '^training.data_time_s\.' '$T/b-all.log') -eq \$(python3 -c \"import json; print(sum(1 for x in json.load(open('$T/b-all/compare.json'))['comparisons'] if x['metric'].startswith('training.data_time_s.')))\") ] && [ \$(grep -c '^training.data_time_s\.' '$T/b-all.log') -ge 3 ] && ! grep '^training.data_time_s\.' '$T/b-all.log' | grep -q REGRESSION"
finish
