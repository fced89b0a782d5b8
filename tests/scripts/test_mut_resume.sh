#!/usr/bin/env bash
# test_mut_resume.sh - resume puts back the window the crash cut (for
# scripts/mutate.sh; test_controller's loss bound is a second of ticks,
# which a lost partial window also meets): the null workload ticks at
# 200/s in 4 s windows; the controller is SIGKILLed about 2 s into window 1
# and resumed. Window 1 must hold its whole 4 s of ticks (800) less what
# the kill lost since the last commit (at most 0.5 s, 100 ticks): >= 680
# (a rate, so judged by the plain build); in any build at least 600, where
# without the partial window put back it holds about half (400).
source "$(dirname "$0")/lib.sh"

cat > "$T/r.json" <<JSON
{ "name": "mut-resume", "duration": "12s", "window": "4s",
  "workloads": { "null": { "rate": 200 } },
  "targets": { "steady": { "null.ticks": ">= 1" } } }
JSON
"$GAUNTLET" run "$T/r.json" --out "$T/r" >"$T/r.log" 2>&1 &
PID=$!
PIDS+=("$PID")
# wait until the store's progress passes 6 s of elapsed time (2 s into window 1)
until_ok 60 sql_is "$T/r/run.db" "select coalesce(max(end_ns),0) >= 6000000000 from windows" 1
kill -9 "$PID"
e=$(sql "$T/r/run.db" "select coalesce(max(end_ns),0) from windows" 2>/dev/null)
wait "$PID" 2>/dev/null
check "the run was killed inside window 1 (store at ${e:-?} ns)" [ "${e:-0}" -ge 6000000000 -a "${e:-0}" -lt 8000000000 ]
"$GAUNTLET" resume "$T/r" >"$T/resume.log" 2>&1
rc=$?
check "resume exits 0 (exit $rc)" [ $rc -eq 0 ]
w1=$(sql "$T/r/run.db" "select counter from window_metrics where idx=1 and name='null.ticks'")
w2=$(sql "$T/r/run.db" "select counter from window_metrics where idx=2 and name='null.ticks'")
echo "ticks: window 1 $w1, window 2 $w2 (want 800 each)"
check "window 1 (cut by the kill) keeps the ticks from before the kill: $w1 >= 600 of 800" [ "${w1:-0}" -ge 600 ]
timing "window 1: $w1 >= 680 of 800 (at most a commit interval lost)" [ "${w1:-0}" -ge 680 ]
timing "window 2 (after the resume) is whole: $w2 within 800 +-40" [ "${w2:-0}" -ge 760 -a "${w2:-0}" -le 840 ]
finish
