#!/bin/bash
# test_orphans.sh - a SIGKILLed controller leaves no training job behind,
# and `resume` never runs a second job beside one (docs/training.md,
# "When the controller dies"). Real mpirun on loopback, 2 ranks, MPI
# backend, checkpoints every 50 steps:
#   A. fast path: SIGKILL the controller just after a checkpoint; no
#      mpirun or gauntlet-train of the run is left (process listing), the
#      checkpoint directory has not changed from the kill until they were
#      gone (a job left to itself would write the next one), and the
#      newest checkpoint on disk is the last one the store recorded. An
#      immediate `resume` finds nothing to stop, runs one job at a time
#      (sampled), and restores from that checkpoint with lost_steps = the
#      last step the store recorded minus it, as the report says.
#   B. safety net: the launcher is a wrapper that starts mpirun in a
#      session of its own (setsid), keeping a copy of the output in a log
#      (tee -p), as site wrappers do: PR_SET_PDEATHSIG cannot reach that
#      job and it outlives the controller. `resume` stops it (and says
#      which pids) before it launches anything: one job at a time; and the
#      end of the run stops the job that the resumed controller's wrapper
#      detached in turn.
. "$(dirname "$0")/lib.sh"

BIN=$(dirname "$GAUNTLET")/gauntlet-train
[ -x "$BIN" ] || skip "gauntlet-train was not built (OpenMPI not found at build time)"
command -v mpirun >/dev/null || skip "mpirun not installed (Debian openmpi-bin)"
command -v setsid >/dev/null || skip "setsid (util-linux) is needed for part B's wrapper"

# Every process of this test's jobs has its checkpoint directory ($T/ck-*)
# on its command line; this is how they are told from other tests' jobs.
# procs DIR: "pid name ppid" of the live (not zombie) ones, name the basename of
# argv[0] (mpirun, gauntlet-train, sh, tee); not this awk, whose own
# arguments name the directory.
procs() {
	ps -eo pid=,ppid=,stat=,args= | awk -v d="$1/" '$3 !~ /^Z/ && index($0, d) {
		n = $4; sub(".*/", "", n); if (n != "awk") print $1, n, $2 }'
}
# count CKPT_DIR NAME: the job's processes of that name; a child of one of
# them with the same name is not counted (mpirun forks, and each child
# shows mpirun's command line until it execs its rank)
count() {
	procs "$1" | awk -v n="$2" '$2 == n { pid[$1] = 1; parent[$1] = $3 }
		END { c = 0; for (p in pid) if (!(parent[p] in pid)) c++; print c }'
}
# A live process of one of our jobs once the test ends (a check failed):
# stop it, by pid, so that nothing outlives the test.
reap() {
	for d in "$T"/ck-*; do
		[ -d "$d" ] || continue
		for p in $(procs "$d" | awk '{ print $1 }'); do kill -9 "$p" 2>/dev/null; done
	done
}
trap 'reap; cleanup' EXIT

scenario() { # scenario FILE CKPT_DIR [extra training keys]
	cat > "$1" <<JSON
{
  "name": "orphans",
  "duration": "40s",
  "window": "1s",
  "hosts": { "me": { "local": true } },
  "workloads": {
    "training": { "launcher": "mpirun", "hosts": ["me:2"], "backend": "mpi",
                  "message": "1MiB", "compute": "25ms", "heartbeat": "200ms", "watchdog": "20s",
                  "restart_backoff": "300ms", "launcher_args": ["--oversubscribe"], ${3:-}
                  "checkpoint": { "dir": "$2", "every_steps": 50, "size": "8MiB" } }
  },
  "phases": [ { "name": "steady", "for": "40s" } ],
  "targets": { "steady": { "training.step_time_s.p95": "<= 5", "training.correctness_errors": "== 0" } }
}
JSON
}
# The newest complete checkpoint (one with its manifest) under DIR, by step.
newest_ckpt() {
	local s
	s=$(ls -d "$1"/*/step-*/MANIFEST.json 2>/dev/null | sed 's#.*/step-0*\([0-9][0-9]*\)/MANIFEST.json#\1#' |
		sort -n | tail -1)
	echo "${s:-0}"
}
# The last checkpoint the run's store recorded (its event), 0 for none.
stored_ckpt() {
	local s
	s=$(sql "$1/run.db" "select message from events where message like 'checkpoint at step %' order by seq desc limit 1" |
		sed -n 's/^checkpoint at step \([0-9]*\):.*/\1/p')
	echo "${s:-0}"
}
# Start a run, wait until it has saved 2 checkpoints, then SIGKILL its
# controller once the next one is complete on disk, the store recorded it
# and 5 to 39 steps after it (so that lost_steps is not 0, and the kill
# lands well before the next save, 50 steps on: it never lands inside
# one). Sets KILLED_AT_CKPT.
# ckpt_past DIR STEP PID: a checkpoint beyond STEP is on disk, or PID ended
ckpt_past() { [ "$(newest_ckpt "$1")" -gt "$2" ] || ! kill -0 "$3" 2>/dev/null; }
# ckpt_stored OUT CKPT_DIR PID: the newest checkpoint on disk is the last
# the store recorded, with 5 to 39 steps recorded past it, or PID ended
ckpt_stored() {
	local d s
	d=$(newest_ckpt "$2")
	s=$(sql "$1/run.db" "select max(step) from train_steps" 2>/dev/null)
	{ [ "$(stored_ckpt "$1")" = "$d" ] && [ "${s:-0}" -ge $((d + 5)) ] && [ "${s:-0}" -lt $((d + 40)) ]; } ||
		! kill -0 "$3" 2>/dev/null
}
run_and_kill() { # run_and_kill JSON OUTDIR CKPT_DIR LOG
	local before
	"$GAUNTLET" run "$1" --out "$2" > "$4" 2>&1 &
	local g=$!
	PIDS+=("$g")
	until_ok 120 ckpt_past "$3" 99 "$g"
	before=$(newest_ckpt "$3")
	until_ok 60 ckpt_past "$3" "$before" "$g"
	until_ok 60 ckpt_stored "$2" "$3" "$g"
	KILLED_AT_CKPT=$(newest_ckpt "$3")
	kill -9 "$g" 2>/dev/null
	wait "$g" 2>/dev/null
}
# Resume DIR in the background and sample the job's processes until it
# ends (one sample per until_ok try, every 0.1 s): MAX_MPIRUN, MAX_RANKS,
# SAMPLES, SEEN (samples with a job); RESUME_RC.
# sample_until_gone PID CKPT_DIR: one sample; succeeds once PID has ended
sample_until_gone() {
	local m k
	kill -0 "$1" 2>/dev/null || return 0
	m=$(count "$2" mpirun)
	k=$(count "$2" gauntlet-train)
	[ "$m" -gt "$MAX_MPIRUN" ] && MAX_MPIRUN=$m
	[ "$k" -gt "$MAX_RANKS" ] && MAX_RANKS=$k
	[ "$m" -gt 1 -o "$k" -gt 2 ] && [ $((BAD += 1)) -le 2 ] &&
		{ echo "   sample $SAMPLES: $m mpirun, $k ranks:"; procs "$2" | sed 's/^/     /'; }
	[ "$m" -gt 0 ] && SEEN=$((SEEN + 1))
	SAMPLES=$((SAMPLES + 1))
	return 1
}
resume_sampled() { # resume_sampled DIR CKPT_DIR LOG
	"$GAUNTLET" resume "$1" > "$3" 2>&1 &
	local r=$!
	PIDS+=("$r")
	MAX_MPIRUN=0 MAX_RANKS=0 SAMPLES=0 SEEN=0 BAD=0
	until_ok 300 sample_until_gone "$r" "$2"
	wait "$r"
	RESUME_RC=$?
}

# ---- A: the fast path -----------------------------------------------------------
CK=$T/ck-a
scenario "$T/a.json" "$CK"
run_and_kill "$T/a.json" "$T/a" "$CK" "$T/a.log"
snap0=$(find "$CK" -printf '%P %s %T@\n' | sort)
t0=$(date +%s%N)
# The processes go within milliseconds (PR_SET_PDEATHSIG). A job that
# outlives its controller by itself lives on for seconds (until its
# output to the dead controller fails), long enough to write its next
# checkpoint (50 steps, over 1 s): the directory compared below, once
# they are gone, tells the two apart without a clock (30 s: a safety net).
none_left() { [ -z "$(procs "$CK")" ]; }
until_ok 30 none_left
ms=$((($(date +%s%N) - t0) / 1000000))
left=$(procs "$CK" | tr '\n' ';')
echo "A: killed after checkpoint $KILLED_AT_CKPT; left after $((ms / 1000)).$(printf %03d $((ms % 1000))) s: ${left:-none}"
check "A: no mpirun or gauntlet-train of the killed run is left after the SIGKILL" [ -z "$left" ]
snap1=$(find "$CK" -printf '%P %s %T@\n' | sort)
check "A: the checkpoint directory did not change from the kill until the job was gone" [ "$snap0" = "$snap1" ]
[ "$snap0" = "$snap1" ] || diff <(echo "$snap0") <(echo "$snap1") | sed 's/^/   /'
disk=$(newest_ckpt "$CK")
rec=$(stored_ckpt "$T/a")
maxrec=$(sql "$T/a/run.db" "select max(step) from train_steps")
echo "A: newest checkpoint on disk $disk, last recorded $rec, last step recorded $maxrec"
check "A: the newest checkpoint on disk ($disk) is the last the store recorded ($rec)" \
	[ "$disk" -gt 0 -a "$disk" = "$rec" ]
# and at once:
resume_sampled "$T/a" "$CK" "$T/ra.log"
echo "A: resume exit $RESUME_RC; $SAMPLES samples, $SEEN with a job; at most $MAX_MPIRUN mpirun, $MAX_RANKS ranks at once"
check "A: the resumed run passes (exit $RESUME_RC)" [ "$RESUME_RC" -eq 0 ]
check "A: resume found nothing of the killed run left to stop" \
	grep -q "resume: no process of this run left running (1 recorded launch(es) checked" "$T/ra.log"
check "A: the samples saw the resumed job ($SEEN of $SAMPLES)" [ "$SEEN" -ge 5 ]
check "A: never more than one mpirun ($MAX_MPIRUN) or 2 ranks ($MAX_RANKS) of the run at once" \
	[ "$MAX_MPIRUN" -le 1 -a "$MAX_RANKS" -le 2 ]
restore=$(grep -o "launch [0-9]* restored from step [0-9]*: .*lost_steps [0-9]*" "$T/ra.log" | head -1)
echo "A: $restore"
rstep=$(sed -n 's/.*restored from step \([0-9]*\):.*/\1/p' <<< "$restore")
lost=$(sed -n 's/.*lost_steps \([0-9]*\)$/\1/p' <<< "$restore")
check "A: restored from the last checkpoint the store recorded (step ${rstep:-none} = $rec)" [ "${rstep:-x}" = "$rec" ]
check "A: lost_steps ${lost:-none} = last step recorded $maxrec - restored step ${rstep:-none}" \
	[ "${lost:-x}" = "$((maxrec - ${rstep:-0}))" ]
check "A: report.json says the same lost_steps and one restore" json "$T/a/report.json" \
	"r['metrics']['training']['checkpoint']['lost_steps'] == ${lost:--1} and r['metrics']['training']['checkpoint']['restores'] == 1"
check "A: the restored step (${rstep:-none}) is not beyond the last step the run recorded ($maxrec)" \
	[ "${rstep:-999999999}" -le "$maxrec" ]
check "A: nothing of the job is left after the run" [ -z "$(procs "$CK")" ]

# ---- B: the safety net: a job the kernel cannot take down with the controller ----
CK=$T/ck-b
cat > "$T/detach-mpirun" <<SH
#!/bin/sh
# A site wrapper: the job in a session of its own, a copy of its output in a log.
exec setsid -w sh -c 'mpirun "\$@" 2>&1 | tee -p -a "$T/job-b.log"' sh "\$@"
SH
chmod +x "$T/detach-mpirun"
scenario "$T/b.json" "$CK" "\"launcher_path\": \"$T/detach-mpirun\","
run_and_kill "$T/b.json" "$T/b" "$CK" "$T/b.log"
# the job trains on without its controller: it writes its next checkpoint
# (or it is gone, and the check below fails)
outlived() { [ "$(newest_ckpt "$CK")" -gt "$KILLED_AT_CKPT" ] || [ -z "$(procs "$CK")" ]; }
until_ok 60 outlived
orphans=$(procs "$CK" | awk '$2 == "mpirun" || $2 == "gauntlet-train" { print $1 }' | sort -n)
echo "B: left running after the SIGKILL (newest checkpoint $(newest_ckpt "$CK"), killed after $KILLED_AT_CKPT):" $(procs "$CK" | tr '\n' ';')
check "B: the detached job outlived the controller (1 mpirun, 2 ranks): the case resume must handle" \
	[ "$(count "$CK" mpirun)" -eq 1 -a "$(count "$CK" gauntlet-train)" -eq 2 ]
maxrec=$(sql "$T/b/run.db" "select max(step) from train_steps")
resume_sampled "$T/b" "$CK" "$T/rb.log"
echo "B: resume exit $RESUME_RC; $SAMPLES samples, $SEEN with a job; at most $MAX_MPIRUN mpirun, $MAX_RANKS ranks at once"
grep -E "resume: |end of run: " "$T/rb.log" | cut -c1-200 | sed 's/^/   /'
check "B: the resumed run passes (exit $RESUME_RC)" [ "$RESUME_RC" -eq 0 ]
stopped_all=1
for p in $orphans; do
	grep -q "resume: stopped pid $p (" "$T/rb.log" || { stopped_all=0; echo "   pid $p: no 'stopped' line"; }
done
check "B: resume says it stopped each of the job's processes ($(echo $orphans))" \
	[ -n "$orphans" -a "$stopped_all" = 1 ]
stop_line=$(grep -n "resume: stopped [0-9]* process(es) of this run left running" "$T/rb.log" | head -1 | cut -d: -f1)
launch_line=$(grep -n "training: launch 1 (restore):" "$T/rb.log" | head -1 | cut -d: -f1)
check "B: ... before it launched anything (log line ${stop_line:-none} < ${launch_line:-none})" \
	[ "${stop_line:-999999}" -lt "${launch_line:-0}" ]
still=0
for p in $orphans; do [ -d /proc/$p ] && ! grep -q '^State:.*Z' /proc/$p/status 2>/dev/null && still=1; done
check "B: those pids are gone" [ "$still" = 0 ]
check "B: the samples saw the resumed job ($SEEN of $SAMPLES)" [ "$SEEN" -ge 5 ]
check "B: never more than one mpirun ($MAX_MPIRUN) or 2 ranks ($MAX_RANKS) of the run at once" \
	[ "$MAX_MPIRUN" -le 1 -a "$MAX_RANKS" -le 2 ]
check "B: the end of the run stopped what the resumed wrapper detached, and said so" \
	grep -q "end of run: stopped [0-9]* process(es) of this run left running" "$T/rb.log"
check "B: nothing of the job is left after the run" [ -z "$(procs "$CK")" ]
lost=$(json "$T/b/report.json" "r['metrics']['training']['checkpoint']['lost_steps']")
rstep=$(sed -n 's/.*launch 1 restored from step \([0-9]*\):.*/\1/p' "$T/rb.log" | head -1)
echo "B: last step recorded $maxrec; restored from step ${rstep:-none}; report lost_steps $lost"
want=$(( maxrec > ${rstep:-0} ? maxrec - ${rstep:-0} : 0 ))
check "B: lost_steps in the report ($lost) = the last step recorded - the restored step, at least 0 ($want)" \
	[ -n "$rstep" -a "$lost" = "$want" ]
if [ -n "$rstep" ] && [ "$rstep" -gt "$maxrec" ]; then
	check "B: a restore from beyond the recorded steps (the job ran on unsupervised) is named" \
		grep -q "restored from step $rstep, beyond the last step the run recorded ($maxrec)" "$T/rb.log"
fi

reap
finish
