#!/usr/bin/env bash
# test_mut_faults.sh - fault-path checks scripts/mutate.sh needs, each
# against a fact the test sets up itself:
#  1. a null fault whose verify fails ("fail": "verify") is journaled and
#     reported injected but NOT verified, with the verify error, and still
#     reverted;
#  2. process_kill without "signal" sends SIGKILL (its documented default):
#     a victim that ignores SIGTERM (and SIGINT) is gone, dead of signal 9,
#     and the fault is verified. Only a process this test started, whose
#     command line carries a marker unique to this run, can match; its pid
#     record goes to a state_dir under the test's temp dir;
#     2b. GL_PID and GL_PIDFILE in gauntlet's own environment naming a
#     bystander: the pattern fault still kills only its pattern's process;
#  3. back to back: fault a reverts at 2 s, the instant fault b injects,
#     under max_concurrent_faults 1: the timeline puts the revert first
#     (at one instant: revert, phase, inject, end);
#  4. abort_if with "for": "3s" on a condition true from the start: the
#     run is aborted (exit 3) only once it held 3 s (>= 3 windows of 1 s).
source "$(dirname "$0")/lib.sh"

scenario() { # FILE DURATION FAULTS-JSON [SAFETY-JSON]
	cat > "$1" <<JSON
{ "name": "mut-faults", "duration": "$2", "window": "1s", "hold": 1,
  "hosts": { "me": { "local": true } },
  "safety": ${4:-{\}},
  "workloads": { "null": { "rate": 50 } },
  "faults": [ $3 ],
  "targets": { "steady": { "null.ticks": ">= 1" }, "degraded": { "null.ticks": ">= 1" },
               "recovery": { "recovery_s": "<= 60", "restore_s": "<= 60" } } }
JSON
}

# --- 1. verify fails ---------------------------------------------------------------------------
scenario "$T/verify.json" 4s "{ \"id\": \"vf\", \"at\": \"1s\", \"for\": \"1s\", \"kind\": \"null\", \"target\": \"me\",
  \"params\": { \"marker\": \"$T/vf.marker\", \"fail\": \"verify\" } }"
"$GAUNTLET" run "$T/verify.json" --out "$T/rv" >"$T/rv.log" 2>&1
rc=$?
check "verify: run completes (exit $rc: 0 or 1)" [ $rc -le 1 ]
check "verify: report says injected but not verified, then reverted" \
	json "$T/rv/report.json" "(lambda f: (f['state'], f['verified']) == ('reverted', False))(r['faults'][0]) or sys.exit(1)"
check "verify: the journal keeps verified = 0 and the verify error" \
	[ "$(sql "$T/rv/run.db" "select verified || ' ' || (error like 'verify:%') from faults where id='vf'")" = "0 1" ]
check "verify: the log says it was not verified" grep -q "injected but not verified" "$T/rv.log"
check "verify: the marker is gone" [ ! -e "$T/vf.marker" ]

# --- 3. back to back under max_concurrent_faults 1 ------------------------------------------------
scenario "$T/b2b.json" 5s "{ \"id\": \"a\", \"at\": \"1s\", \"for\": \"1s\", \"kind\": \"null\", \"target\": \"me\" },
  { \"id\": \"b\", \"at\": \"2s\", \"for\": \"1s\", \"kind\": \"null\", \"target\": \"me\" }" '{ "max_concurrent_faults": 1 }'
"$GAUNTLET" validate "$T/b2b.json" >"$T/b2b.txt" 2>&1
check "back to back: validate accepts it" grep -q ": valid$" "$T/b2b.txt"
check "back to back: the timeline (the order the controller walks) reverts a before it injects b at 2 s" \
	bash -c "grep -A1 \"^  2s .*revert 'a'\" '$T/b2b.txt' | grep -q \"inject 'b'\""

# --- 4. abort_if holds for its "for" ------------------------------------------------------------
scenario "$T/abort.json" 8s "" '{ "abort_if": { "null.ticks": ">= 0", "for": "3s" } }'
"$GAUNTLET" run "$T/abort.json" --out "$T/ra" >"$T/ra.log" 2>&1
rc=$?
check "abort_if: exit 3 (exit $rc)" [ $rc -eq 3 ]
check "abort_if: not before the condition held 3 s (3 to 5 s of windows)" \
	json "$T/ra/report.json" "3 <= r['run']['duration_s'] < 5 or print(r['run']['duration_s']) or sys.exit(1)"

# --- 2. process_kill's default signal ------------------------------------------------------------
command -v pgrep >/dev/null || skip "pgrep (procps) is missing"
MARK="gl-mut-victim-$$-$RANDOM"
mkdir -p "$T/state"
# idle NAME [SIGNALS]: in the background, a process whose command line is
# "NAME 1000" that stays until killed, ignoring SIGNALS (ignored signals
# stay ignored across exec); sets IPID
idle() {
	env --default-signal=QUIT bash -c "${2:+trap '' $2; }exec -a \"\$0\" sleep 1000" "$1" &
	IPID=$!
	PIDS+=("$IPID")
}
named() { tr '\0' ' ' < "/proc/$1/cmdline" 2>/dev/null | grep -q "^$2 "; } # PID NAME
# PID ignores SIGTERM (15) and SIGINT (2): both bits of its SigIgn mask set
ignores_term_int() { local m; m=$(awk '$1 == "SigIgn:" { print $2 }' "/proc/$1/status") && [ $((0x$m & 0x4002)) = $((0x4002)) ]; }
# a victim that ignores TERM and INT: only SIGKILL ends it
idle "$MARK" "TERM INT"
VPID=$IPID
check "kill: the victim runs with its marker" until_ok 30 named "$VPID" "$MARK"
check "kill: the victim ignores SIGTERM and SIGINT" ignores_term_int "$VPID"
scenario "$T/kill.json" 4s "{ \"id\": \"pk\", \"at\": \"1s\", \"kind\": \"process_kill\", \"target\": \"me\",
  \"params\": { \"pattern\": \"^$MARK\", \"state_dir\": \"$T/state\" } }"
"$GAUNTLET" run "$T/kill.json" --dry-run >"$T/dry.log" 2>&1
check "kill: the dry run says kill -KILL (the default)" grep -q "kill -KILL" "$T/dry.log"
if ! grep -q "kill -KILL" "$T/dry.log"; then
	# the plan sends something else: its verify would wait on a victim that
	# ignores it; not run (the check above has failed)
	bad "kill: not run: the plan does not send SIGKILL ($(grep -o 'kill -[A-Z]*' "$T/dry.log" | head -1))"
	finish
fi
"$GAUNTLET" run "$T/kill.json" --out "$T/rk" >"$T/rk.log" 2>&1
rc=$?
check "kill: run completes (exit $rc: 0 or 1)" [ $rc -le 1 ]
# the victim's status, never blocking: 255 when it still runs after 30 s
dead() { ! kill -0 "$1" 2>/dev/null || grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; } # PID: gone or a zombie
if until_ok 30 dead "$VPID"; then wait "$VPID" 2>/dev/null; vrc=$?; else vrc=255; fi
check "kill: the TERM-ignoring victim died of SIGKILL (wait status $vrc, want 137)" [ $vrc -eq 137 ]
check "kill: report says injected and verified" \
	json "$T/rk/report.json" "(lambda f: (f['state'], f['verified']) == ('reverted', True))(r['faults'][0]) or sys.exit(1)"

# --- 2b. the controller's own environment never chooses the victim ---------------------------
# GL_PID and GL_PIDFILE in gauntlet's environment naming a bystander: the
# pattern fault must still signal only what its pattern matches.
MARK2="gl-mut-victim2-$$-$RANDOM"
idle "$MARK2"
V2=$IPID
idle "gl-mut-bystander-$$"
BYSTANDER=$IPID
echo "$BYSTANDER" >"$T/bystander.pid"
until_ok 30 named "$V2" "$MARK2"
scenario "$T/kill2.json" 4s "{ \"id\": \"pk2\", \"at\": \"1s\", \"kind\": \"process_kill\", \"target\": \"me\",
  \"params\": { \"pattern\": \"^$MARK2\", \"state_dir\": \"$T/state\" } }"
env GL_PID="$BYSTANDER" GL_PIDFILE="$T/bystander.pid" "$GAUNTLET" run "$T/kill2.json" --out "$T/rk2" >"$T/rk2.log" 2>&1
check "env: the pattern's process was killed" until_ok 30 dead "$V2"
check "env: the bystander named by GL_PID and GL_PIDFILE in gauntlet's environment still runs" kill -0 "$BYSTANDER"
kill "$BYSTANDER" 2>/dev/null
finish
