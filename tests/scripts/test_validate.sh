#!/usr/bin/env bash
# test_validate.sh - acceptance test of `gauntlet validate`:
#  (a) every shipped scenario (scenarios/*.json, *.jsonc) is valid (exit 0);
#  (b) every malformed scenario in tests/scenarios/bad/ is rejected with exit
#      exactly 2, and stderr names the place: the substring listed for it in
#      tests/scenarios/bad/EXPECT (FILENAME<TAB>SUBSTRING) must appear, and
#      nothing may look like a crash (exit >= 128, sanitizer or segfault text);
#  (c) every bad/*.json has an EXPECT line, every EXPECT line a file, and the
#      corpus holds at least 40 files;
#  (d) --set overrides: a bad value is reported under its path, a good one
#      keeps the scenario valid;
#  (e) windows x hold: a fault's recovery or restore, or a steady phase,
#      that no window x hold can judge at the time scale is refused (exit 2,
#      naming the fault or phase), one that just fits is valid;
#  (f) required targets are those the run can measure: the checkpoint
#      restore is required only when a fault is sure to end the training
#      job (shipped scenarios and tests/scenarios/operator-case.json).
# Counts and the closing line "N passed, M failed, K skipped" are lib.sh's
# (a passing case counts silently, a failing one says why); exit 1 when
# M > 0.
#
# Env: GAUNTLET (the binary; default /tmp/b/gauntlet), GL_SOURCE_DIR (the
# repository root; default: two levels above this script).
source "$(dirname "$0")/lib.sh"

SCENARIOS="$GL_SOURCE_DIR/scenarios"
BAD="$GL_SOURCE_DIR/tests/scenarios/bad"
EXPECT="$BAD/EXPECT"
MIN_CORPUS=40

if [ ! -x "$GAUNTLET" ]; then
	bad "$GAUNTLET is not an executable (set GAUNTLET)"
	finish
fi

TMP=$T
# Crash reports must reach stderr, and a leak report counts as a crash too.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"

pass() { PASS=$((PASS + 1)); }
fail() { bad "$*"; }

# run_validate ARGS...: runs `gauntlet validate ARGS` under a 20 s timeout;
# sets RC, OUT (stdout) and ERR (stderr).
run_validate() {
	timeout 20 "$GAUNTLET" validate "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(tr -d '\000' <"$TMP/err")
}

# crash_sign: prints why the last run looks like a crash; nothing when clean.
crash_sign() {
	if [ "$RC" -eq 124 ]; then
		echo "timed out after 20 s"
	elif [ "$RC" -ge 128 ]; then
		echo "killed by signal $((RC - 128))"
	fi
	case "$ERR" in
	*AddressSanitizer*) echo "AddressSanitizer report" ;;
	*LeakSanitizer*) echo "LeakSanitizer report" ;;
	*"runtime error"*) echo "UndefinedBehaviorSanitizer runtime error" ;;
	*Segmentation*) echo "segmentation fault" ;;
	esac
}

show_stderr() {
	if [ -n "$ERR" ]; then
		printf '%s\n' "$ERR" | head -n 8 | sed 's/^/    | /'
	else
		echo "    | (stderr empty)"
	fi
}

# ---- (a) shipped scenarios are valid ----------------------------------------
shopt -s nullglob
good=("$SCENARIOS"/*.json "$SCENARIOS"/*.jsonc)
if [ "${#good[@]}" -eq 0 ]; then
	fail "no scenarios found in $SCENARIOS"
fi
LAB_INV="$GL_SOURCE_DIR/tests/scenarios/lab-inventory.json"
for f in "${good[@]}"; do
	# a scenario that reads an inventory is checked against a sample of
	# the one `gauntlet lab up` writes
	if grep -q '"inventory"' "$f"; then
		run_validate "$f" --set "inventory=$LAB_INV" \
			--allow-root "$GL_SOURCE_DIR/tests/scenarios"
	else
		run_validate "$f"
	fi
	why=$(crash_sign)
	if [ -n "$why" ]; then
		fail "good ${f#"$GL_SOURCE_DIR"/}: $why (exit $RC)"
		show_stderr
	elif [ "$RC" -ne 0 ]; then
		fail "good ${f#"$GL_SOURCE_DIR"/}: expected exit 0, got $RC"
		show_stderr
	else
		pass
	fi
done

# ---- (a2) inventory: ${...} values, errors naming place and name ----------------
LAB="$SCENARIOS/lab-soak.json"
run_validate "$LAB" --set "inventory=$TMP/no-such-inventory.json"
if [ "$RC" -eq 2 ] && grep -q "inventory: cannot read the inventory: $TMP/no-such-inventory.json" <<<"$ERR"; then
	pass
else
	fail "lab-soak without its inventory: expected exit 2 naming the file, got $RC: $ERR"
fi
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); del d['storage']['device']; d['etcd']['endpoints']='x'; json.dump(d, open(sys.argv[2],'w'))" \
	"$LAB_INV" "$TMP/inv-broken.json"
run_validate "$LAB" --set "inventory=$TMP/inv-broken.json" --set "safety.allowed_roots=[\"$TMP\"]"
if [ "$RC" -eq 2 ] && grep -q 'faults\[2\].params.device: ${storage.device} is not in the inventory' <<<"$ERR" &&
   grep -q 'faults\[3\].params.probe.etcd' <<<"$ERR"; then
	pass
else
	fail "broken inventory: expected exit 2 naming faults[2].params.device and faults[3].params.probe.etcd, got $RC: $ERR"
fi
run_validate "$LAB" --set "inventory=$LAB_INV" --time-scale 2.5 \
	--allow-root "$GL_SOURCE_DIR/tests/scenarios"
if [ "$RC" -eq 0 ] && grep -q "inject 'flap-w2': link_flap/ip on lab-ctl" <<<"$OUT"; then
	pass
else
	fail "lab-soak with the sample inventory: expected exit 0 and the timeline, got $RC: $ERR"
fi
# docs/lab.md's table of the lab soak's faults has a row for each fault the
# timeline injects, at its time (scenario seconds as the table gives them)
LAB_MD="$GL_SOURCE_DIR/docs/lab.md"
while read -r at id; do
	secs=$(python3 -c 'import re, sys; print(sum(int(n) * {"h": 3600, "m": 60, "s": 1}[u] for n, u in re.findall(r"(\d+)([hms])", sys.argv[1])))' "$at")
	if grep -q "^| \`$id\` | $secs s" "$LAB_MD"; then
		pass
	else
		fail "docs/lab.md: the lab soak's fault table has no row '| \`$id\` | $secs s' (lab-soak.json injects it at $at)"
	fi
done < <(sed -n "s/^  \([0-9hms]*\) .* inject '\([^']*\)'.*/\1 \2/p" <<<"$OUT")
n_inj=$(grep -c " inject '" <<<"$OUT")
if [ "$n_inj" -ge 7 ]; then pass; else fail "lab-soak's timeline: expected its 7 injects, saw $n_inj"; fi

# ---- (c) corpus and EXPECT agree ---------------------------------------------
if [ ! -f "$EXPECT" ]; then
	fail "missing $EXPECT"
fi
bad_files=("$BAD"/*.json)
if [ "${#bad_files[@]}" -lt "$MIN_CORPUS" ]; then
	fail "corpus has ${#bad_files[@]} files in $BAD, expected at least $MIN_CORPUS"
else
	pass
fi
declare -A listed=()
lineno=0
if [ -f "$EXPECT" ]; then
	while IFS= read -r line || [ -n "$line" ]; do
		lineno=$((lineno + 1))
		case "$line" in '' | '#'*) continue ;; esac
		name=${line%%$'\t'*}
		if [ "$name" = "$line" ] || [ -z "$name" ] || [ -z "${line#*$'\t'}" ]; then
			fail "EXPECT:$lineno: expected FILENAME<TAB>SUBSTRING, got '$line'"
			continue
		fi
		if [ -n "${listed[$name]+x}" ]; then
			fail "EXPECT:$lineno: $name listed twice"
		fi
		listed[$name]=1
	done <"$EXPECT"
fi
for f in "${bad_files[@]}"; do
	name=${f##*/}
	if [ -z "${listed[$name]+x}" ]; then
		fail "bad/$name has no line in EXPECT"
	else
		pass
	fi
done

# ---- (b) every malformed scenario is rejected, naming the place -------------
lineno=0
if [ -f "$EXPECT" ]; then
	while IFS= read -r line || [ -n "$line" ]; do
		lineno=$((lineno + 1))
		case "$line" in '' | '#'*) continue ;; esac
		name=${line%%$'\t'*}
		want=${line#*$'\t'}
		[ "$name" = "$line" ] && continue   # reported above
		if [ ! -f "$BAD/$name" ]; then
			fail "EXPECT:$lineno: bad/$name does not exist"
			continue
		fi
		run_validate "$BAD/$name"
		why=$(crash_sign)
		if [ -n "$why" ]; then
			fail "bad/$name: $why (exit $RC)"
			show_stderr
		elif [ "$RC" -ne 2 ]; then
			fail "bad/$name: expected exit 2, got $RC${OUT:+ (stdout: $(printf '%s' "$OUT" | tail -n 1))}"
			show_stderr
		elif [[ "$ERR" != *"$want"* ]]; then
			fail "bad/$name: stderr does not contain '$want'"
			show_stderr
		else
			pass
		fi
	done <"$EXPECT"
fi

# ---- (d) --set overrides ------------------------------------------------------
base="$SCENARIOS/null-soak.json"
if [ -f "$base" ]; then
	run_validate "$base" --set duration=abc
	why=$(crash_sign)
	if [ -n "$why" ]; then
		fail "--set duration=abc: $why (exit $RC)"
		show_stderr
	elif [ "$RC" -ne 2 ]; then
		fail "--set duration=abc: expected exit 2, got $RC"
		show_stderr
	elif [[ "$ERR" != *"duration: "*"'abc'"* ]]; then
		fail "--set duration=abc: stderr does not name 'duration' and the value 'abc'"
		show_stderr
	else
		pass
	fi

	run_validate "$base" --set workloads.null.rate=50
	why=$(crash_sign)
	if [ -n "$why" ]; then
		fail "--set workloads.null.rate=50: $why (exit $RC)"
		show_stderr
	elif [ "$RC" -ne 0 ]; then
		fail "--set workloads.null.rate=50: expected exit 0, got $RC"
		show_stderr
	else
		pass
	fi

	run_validate "$base" --set workloads.null.rate=-1
	why=$(crash_sign)
	if [ -n "$why" ]; then
		fail "--set workloads.null.rate=-1: $why (exit $RC)"
		show_stderr
	elif [ "$RC" -ne 2 ] || [[ "$ERR" != *"workloads.null.rate"* ]]; then
		fail "--set workloads.null.rate=-1: expected exit 2 naming workloads.null.rate, got $RC"
		show_stderr
	else
		pass
	fi

	run_validate "$base" --set no.such.path=1
	why=$(crash_sign)
	if [ -n "$why" ]; then
		fail "--set no.such.path=1: $why (exit $RC)"
		show_stderr
	elif [ "$RC" -ne 2 ] || [[ "$ERR" != *"--set"*"no.such.path"* ]]; then
		fail "--set no.such.path=1: expected exit 2 naming the path, got $RC"
		show_stderr
	else
		pass
	fi
else
	fail "missing $base for the --set checks"
fi

# ---- (e) windows x hold against the timeline at the time scale ------------------
# Windows are real seconds from the run's start, the last one cut at the end,
# each labelled with the phase it closes in (harness/core/analysis.c); a fault's
# recovery_s needs `hold` of them from its inject's window, restore_s from
# its revert's window, all ending by the next fault's inject (else the run's
# end). A timeline that can never give them is refused, exit 2, naming the
# fault or phase and the numbers; one that just fits is valid.
# expect_fit NAME WANT-RC [SUBSTRING...] -- validate ARGS
expect_fit() {
	local name=$1 want=$2 subs=() s
	shift 2
	while [ "$1" != -- ]; do subs+=("$1"); shift; done
	shift
	run_validate "$@"
	why=$(crash_sign)
	if [ -n "$why" ]; then
		fail "$name: $why (exit $RC)"
		show_stderr
		return
	fi
	if [ "$RC" -ne "$want" ]; then
		fail "$name: expected exit $want, got $RC"
		show_stderr
		return
	fi
	for s in "${subs[@]}"; do
		if [[ "$ERR" != *"$s"* ]]; then
			fail "$name: stderr does not contain '$s'"
			show_stderr
			return
		fi
	done
	pass
}
# test_evidence's timeline: 20 min, 1 s windows, hold 3, one fault 8m-10m.
# At 240x the revert is at 2.5 s of real time and the run ends at 5 s:
# windows [2,3) [3,4) [4,5) are exactly hold 3. At 300x (revert at 2 s,
# end at 4 s) only 2 windows follow it.
cat > "$TMP/fit1.json" <<'JSON'
{ "name": "fit1", "duration": "20m", "window": "1s", "hold": 3,
  "hosts": { "localhost": { "local": true } },
  "workloads": { "null": { "rate": 100 } },
  "phases": [ { "name": "warmup", "for": "2m" }, { "name": "steady", "for": "18m" } ],
  "faults": [ { "id": "f1", "at": "8m", "for": "2m", "kind": "null", "target": "localhost" } ],
  "targets": { "steady": { "null.ticks": ">= 1" }, "degraded": { "null.ticks": ">= 1" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } } }
JSON
expect_fit "fit: restore just fits (hold 3 windows from the revert's to the end) at 240x" 0 \
	-- "$TMP/fit1.json" --time-scale 240
expect_fit "fit: restore cannot fit at 300x: refused naming the fault, its numbers and the fix" 2 \
	"faults[0]: fault 'f1': restore_s needs hold 3 consecutive windows of 1 s" \
	"its revert (at 2 s of real time) to the run's end (at 4 s)" "at time scale 300" \
	"hold only 2 such window(s)" "lower --time-scale" \
	-- "$TMP/fit1.json" --time-scale 300
# run refuses it the same way, before anything starts
timeout 20 "$GAUNTLET" run "$TMP/fit1.json" --time-scale 300 --out "$TMP/fit1-run" >"$TMP/out" 2>"$TMP/err" </dev/null
RC=$?
if [ "$RC" -eq 2 ] && grep -q "faults\[0\]: fault 'f1': restore_s needs hold 3" "$TMP/err" && [ ! -e "$TMP/fit1-run/run.db" ]; then
	pass
else
	fail "fit: run at 300x: expected exit 2 naming faults[0] and no store, got $RC: $(head -c 600 "$TMP/err")"
fi
# Two faults 1 min apart: f1 8m for 10s, f2 at 9m. At 20x f1's inject is at
# 24 s and f2's at 27 s: windows 24-26 end at 27, just hold 3 (recovery),
# and its revert at 24.5 s leaves windows 24-26 too (restore). At 30x
# (inject at 16 s, next at 18 s) no 3 windows fit before f2.
cat > "$TMP/fit2.json" <<'JSON'
{ "name": "fit2", "duration": "20m", "window": "1s",
  "hosts": { "localhost": { "local": true } },
  "workloads": { "null": { "rate": 100 } },
  "faults": [ { "id": "f1", "at": "8m", "for": "10s", "kind": "null", "target": "localhost" },
              { "id": "f2", "at": "9m", "for": "30s", "kind": "null", "target": "localhost" } ],
  "targets": { "steady": { "null.ticks": ">= 1" }, "degraded": { "null.ticks": ">= 1" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } } }
JSON
expect_fit "fit: recovery and restore just fit before the next fault at 20x" 0 \
	-- "$TMP/fit2.json" --time-scale 20
expect_fit "fit: recovery cannot fit before the next fault at 30x: refused naming the fault" 2 \
	"faults[0]: fault 'f1': recovery_s needs hold 3 consecutive windows of 1 s" \
	"from the one holding its inject (at 16 s of real time) to the next fault's inject ('f2' at 18 s)" \
	"at time scale 30 those 2 s of real time hold only 2 such window(s)" \
	-- "$TMP/fit2.json" --time-scale 30
# A fault reverted the instant the next is injected can never have a
# restore_s at any scale: the scenario's choice (test_mut_faults' back to
# back), a warning, not refused.
expect_fit "fit: back to back faults: valid, with a warning naming the fault" 0 \
	"warning: faults[0]: fault 'f1': its restore_s cannot be measured" \
	-- "$TMP/fit2.json" --set 'faults[0].for=1m' --set hold=1 --time-scale 20
# A steady phase no window takes: a window is judged by the phase in force
# at its start. 9 min of warmup, then 1
# min steady, 10 s windows. At 54x the steady phase starts at 10 s, when
# window 1 opens: it takes it. At 60x the run is one window, opened in the
# warmup: no steady target has data.
cat > "$TMP/fit3.json" <<'JSON'
{ "name": "fit3", "duration": "10m", "window": "10s",
  "hosts": { "localhost": { "local": true } },
  "workloads": { "null": { "rate": 100 } },
  "phases": [ { "name": "warmup", "for": "9m" }, { "name": "main", "for": "1m" } ],
  "targets": { "steady": { "null.ticks": ">= 1" } } }
JSON
expect_fit "fit: a short steady phase a window opens in, just (54x)" 0 -- "$TMP/fit3.json" --time-scale 54
expect_fit "fit: a steady phase no window takes (60x): refused naming the phase" 2 \
	"phases[1]: phase 'main' (1m, judged steady) lasts 1 s of real time at time scale 60, and no window of 10 s takes it" \
	"the steady targets ('null.ticks'...) can never have data" "smaller window" \
	-- "$TMP/fit3.json" --time-scale 60
expect_fit "fit: the same at 60x with 9 s windows (window 1 opens in it)" 0 \
	-- "$TMP/fit3.json" --time-scale 60 --set window=9s
# A steady phase whose every window lies between a fault's inject window and
# its revert window (judged degraded). 2 s windows, hold 1; the fault from
# 10s to 8m05s. At 60x it covers windows 0-3, all the steady phase has; at
# 5x window 0 ends (2 s) as the fault is injected and stays steady.
cat > "$TMP/fit4.json" <<'JSON'
{ "name": "fit4", "duration": "10m", "window": "2s", "hold": 1,
  "hosts": { "localhost": { "local": true } },
  "workloads": { "null": { "rate": 100 } },
  "phases": [ { "name": "main", "for": "7m30s" }, { "name": "cool", "for": "2m30s", "scope": "none" } ],
  "faults": [ { "id": "f1", "at": "10s", "for": "7m55s", "kind": "null", "target": "localhost" } ],
  "targets": { "steady": { "null.ticks": ">= 1" }, "degraded": { "null.ticks": ">= 1" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } } }
JSON
expect_fit "fit: one steady window before the fault at 5x" 0 -- "$TMP/fit4.json" --time-scale 5
expect_fit "fit: every steady window under the fault at 60x: refused naming the phase" 2 \
	"phases[0]: phase 'main' (7m30s, judged steady) lasts 7.5 s of real time at time scale 60: the 4 window(s) of 2 s that take it all lie between a fault's inject and its revert" \
	-- "$TMP/fit4.json" --time-scale 60

# The dead-man's switch (docs/faults.md): a fault that acts through an API
# has none. validate says so plainly (exit 0); safety.require_deadman
# refuses it (exit 2, naming it); a host fault passes either way; a grace
# outside 2s..168h is refused naming its path.
dm_scn() { # FILE SAFETY-JSON
	cat > "$1" <<JSON
{ "name": "dm", "duration": "1m", "window": "1s",
  "hosts": { "me": { "local": true } },
  "workloads": { "null": { "rate": 10 } },
  "safety": $2,
  "faults": [ { "id": "cordon", "at": "5s", "for": "10s", "kind": "drain_worker", "method": "kubernetes", "target": "me",
                "params": { "api": "https://127.0.0.1:6443", "node": "worker-1", "token_env": "GL_TEST_K8S_TOKEN" } },
              { "id": "mark", "at": "30s", "for": "10s", "kind": "exec", "target": "me", "deadman_grace": "1s",
                "params": { "inject": ["true"], "revert": ["true"] } } ],
  "targets": { "steady": { "null.ticks": ">= 1" }, "degraded": { "null.ticks": ">= 1" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } } }
JSON
}
dm_scn "$TMP/dm1.json" '{ "deadman_grace": "3s" }'
"$GAUNTLET" validate "$TMP/dm1.json" >"$TMP/dm1.out" 2>&1; rc=$?
check "deadman: a grace under 2 s is refused (exit $rc)" [ $rc -eq 2 ]
check "deadman: naming faults[1].deadman_grace" grep -q "faults\[1\].deadman_grace: expected a duration from 2s to 168h" "$TMP/dm1.out"
sed -i 's/"deadman_grace": "1s",//' "$TMP/dm1.json"
"$GAUNTLET" validate "$TMP/dm1.json" >"$TMP/dm1.out" 2>&1; rc=$?
check "deadman: an API fault without a switch is valid (exit $rc)" [ $rc -eq 0 ]
check "deadman: validate says plainly it has no dead-man's switch" \
	grep -q "faults\[0\]: fault 'cordon' (drain_worker/kubernetes) has no dead-man's switch (drain_worker/kubernetes acts through the Kubernetes API" "$TMP/dm1.out"
check "deadman: and says nothing of the exec fault, which has one" not grep -q "fault 'mark'.*dead-man" "$TMP/dm1.out"
dm_scn "$TMP/dm2.json" '{ "require_deadman": true }'
sed -i 's/"deadman_grace": "1s",//' "$TMP/dm2.json"
"$GAUNTLET" validate "$TMP/dm2.json" >"$TMP/dm2.out" 2>&1; rc=$?
check "deadman: safety.require_deadman refuses it (exit $rc)" [ $rc -eq 2 ]
check "deadman: naming the fault" grep -q "faults\[0\]: fault 'cordon' (drain_worker/kubernetes) has no dead-man's switch (.*), and safety.require_deadman is true" "$TMP/dm2.out"
check "deadman: one error only (the exec fault has its switch)" grep -q "1 error(s)" "$TMP/dm2.out"

# ---- (f) storage spikes ------------------------------------------------------------
# A spike's "start" is its own duration: the first spike comes at start,
# then one every "every", each for "for"; a start past "every" is fine.
mkdir -p "$TMP/disk"
cat > "$TMP/spike.json" <<JSON
{ "name": "spike-late", "duration": "12h", "window": "10s",
  "workloads": { "storage": { "path": "$TMP/disk", "allowed_roots": ["$TMP"], "threads": 2, "bs": "1MiB",
                              "file_size": "8MiB", "reserve": "0",
                              "spikes": [ { "every": "1h", "start": "2h", "for": "10m", "threads": 8, "bs": "4MiB" } ] } },
  "targets": { "steady": { "storage.write_gbps": ">= 0.001" } } }
JSON
run_validate "$TMP/spike.json"
check "spikes: a spike whose start (2h) is past its every (1h) validates (exit $RC)${ERR:+: $ERR}" [ "$RC" -eq 0 ]
# ...and shows in validate's timeline: 2h, 3h, 4h (scenario and real time
# at scale 1), then one row for the other 7 (5h to 11h) at the fourth
SPIKE_ROWS=$(grep ' spike ' <<<"$OUT" | sed 's/  */ /g')
WANT_ROWS=" 2h 2h spike 1 of 10, workloads.storage.spikes[0]: 8 thread(s), bs 4MiB, for 10m (to 2h10m)
 3h 3h spike 2 of 10, workloads.storage.spikes[0]: 8 thread(s), bs 4MiB, for 10m (to 3h10m)
 4h 4h spike 3 of 10, workloads.storage.spikes[0]: 8 thread(s), bs 4MiB, for 10m (to 4h10m)
 5h 5h spike workloads.storage.spikes[0] goes on every 1h from 2h for 10m: 7 more, the last at 11h (10 in all)"
check "spikes: validate's timeline shows the spike at 2h, 3h, 4h and the 7 more up to 11h${SPIKE_ROWS:+ (got: $SPIKE_ROWS)}" \
	[ "$SPIKE_ROWS" = "$WANT_ROWS" ]
check "spikes: in time order with the phase and the end" \
	bash -c 'sed -n "s/^  \([0-9dhms]*\) .*/\1/p" <<<"$1" | tr "\n" " " | grep -qx "0s 2h 3h 4h 5h 12h "' _ "$OUT"
# run --dry-run shows the same rows
timeout 20 "$GAUNTLET" run "$TMP/spike.json" --dry-run --out "$TMP/spike-dry" >"$TMP/dry.out" 2>"$TMP/dry.err" </dev/null
check "spikes: run --dry-run shows the same spike rows (exit $?)" \
	bash -c '[ "$(grep " spike " "$1" | sed "s/  */ /g")" = "$2" ]' _ "$TMP/dry.out" "$WANT_ROWS"
# a week: 28 spikes every 6h from 3h, in four rows (acceptance-168h's)
run_validate "$SCENARIOS/acceptance-168h.json"
check "spikes: 168 h of spikes every 6 h take four rows, the fourth counting the other 25 up to 165h" \
	bash -c '[ "$(grep -c " spike " <<<"$1")" -eq 4 ] && grep -q "^  21h .* spike workloads.storage.spikes\[0\] goes on every 6h from 3h for 10m: 25 more, the last at 6d21h (28 in all)$" <<<"$1"' _ "$OUT"
# A rate_cap below what a spike asks for at the least (threads x bs a
# second) hides it: a warning naming both; a spike under the cap is not named
cat > "$TMP/spike-cap.json" <<JSON
{ "name": "spike-cap", "duration": "1h", "window": "10s",
  "workloads": { "storage": { "path": "$TMP/disk", "allowed_roots": ["$TMP"], "threads": 1, "bs": "1MiB",
                              "file_size": "8MiB", "reserve": "0", "rate_cap": "16MiB",
                              "spikes": [ { "every": "20m", "for": "5m", "threads": 8, "bs": "4MiB" },
                                          { "every": "20m", "start": "10m", "for": "5m", "threads": 4, "bs": "1MiB" } ] } },
  "targets": { "steady": { "storage.write_gbps": ">= 0.001" } } }
JSON
run_validate "$TMP/spike-cap.json"
check "rate_cap: valid (exit $RC), warning that rate_cap 16MiB hides spikes[0] (8 x 4MiB: 32 MiB a second), none for spikes[1] (4 x 1MiB)" \
	bash -c '[ "$1" -eq 0 ] && grep -q "warning: workloads.storage.spikes\[0\]: rate_cap 16MiB (a second, all threads together) hides this spike: its 8 thread(s) of 4MiB blocks ask at least 32 MiB a second" <<<"$2" && ! grep -q "spikes\[1\]" <<<"$2"' _ "$RC" "$ERR"
# Load agents: each agent's launch command, as run would start it
cat > "$TMP/agents.json" <<JSON
{ "name": "agents", "duration": "1m", "window": "1s",
  "hosts": { "a": { "local": true }, "b": { "local": true } },
  "workloads": { "storage": { "path": "$TMP/disk", "allowed_roots": ["$TMP"], "threads": 1, "bs": "1MiB",
                              "file_size": "8MiB", "reserve": "0",
                              "agents": { "launcher": "mpirun", "count": 6, "hosts": ["a:2", "b:1"],
                                          "launcher_args": ["--oversubscribe"] } } },
  "targets": { "steady": { "storage.write_gbps": ">= 0.001", "agents.delivered_ratio": ">= 0.99" } } }
JSON
run_validate "$TMP/agents.json"
ROOT_ARG=; [ "$(id -u)" = 0 ] && ROOT_ARG=" --allow-run-as-root"
CMD="mpirun -np 1 -H localhost$ROOT_ARG -x GAUNTLET_AGENT_TOKEN -x GAUNTLET_AGENT_CONTROLLER -x GAUNTLET_AGENT_INDEX -x GAUNTLET_RUN_ID -x GAUNTLET_LOG --oversubscribe $(readlink -f "$GAUNTLET") agent"
WANT_AGENTS="  0s             0s             launch 6 storage agent(s) through mpirun, before the clock starts (each its own launcher command)
agents of storage (6; launched before the clock starts, each by its own command):
  agent 0 on a: $CMD
  agent 1 on a: $CMD
  agent 2 on b: $CMD
  agent 3 on a: $CMD
  ... and 2 more (agents 4 to 5), each the same with its own host"
check "agents: validate shows the launch at 0 and each agent's command on its host (slots a:2, b:1 in order, then round again)" \
	bash -c '[ "$(grep -E "^agents of|^  agent |^  \.\.\. and|^  0s .* launch" <<<"$1")" = "$2" ]' _ "$OUT" "$WANT_AGENTS"
timeout 20 "$GAUNTLET" run "$TMP/agents.json" --dry-run --out "$TMP/agents-dry" >"$TMP/dry.out" 2>"$TMP/dry.err" </dev/null
check "agents: run --dry-run shows the same" \
	bash -c '[ "$(grep -E "^agents of|^  agent |^  \.\.\. and|^  0s .* launch" "$1")" = "$2" ]' _ "$TMP/dry.out" "$WANT_AGENTS"

# ---- (f) required targets are the ones a run can measure --------------------------
# A checkpoint restore (training.checkpoint.restore_s) is measured only when
# the training job is relaunched, so validate requires its threshold only
# when a scheduled fault is sure to end the job, and otherwise names it as
# optional (a threshold nothing can ever give data to is a failed gate for
# nothing: a clean baseline would fail on that alone). The ground truth comes
# from the files, by a rule written here: a process_kill whose pgrep
# pattern names gauntlet-train, with KILL, TERM or INT (the default KILL),
# or STOP for at least the training watchdog.
jsonc() { # FILE: the scenario as plain JSON on stdout (comments stripped)
	python3 - "$1" <<'PY'
import json, sys
t, out, i, q = open(sys.argv[1]).read(), [], 0, False
while i < len(t):
    c = t[i]
    if q:
        out.append(c)
        if c == "\\":
            out.append(t[i + 1]); i += 1
        elif c == '"':
            q = False
    elif c == '"':
        q = True; out.append(c)
    elif t.startswith("//", i):
        i = t.find("\n", i) - 1 if "\n" in t[i:] else len(t)
    elif t.startswith("/*", i):
        i = t.index("*/", i) + 1
    else:
        out.append(c)
    i += 1
json.dump(json.loads("".join(out)), sys.stdout)
PY
}
sure_kill() { # FILE: exit 0 when the rule above finds a fault sure to end training
	python3 - "$1" <<'PY'
import json, re, sys
s = json.load(open(sys.argv[1]))
tr = s["workloads"].get("training")
def dur(v):
    m = re.fullmatch(r"(\d+)(ms|s|m|h)", v or "0s")
    return int(m.group(1)) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[m.group(2)]
wd = dur(tr.get("watchdog", "60s")) if tr else 0
sure = [f["id"] for f in s.get("faults", []) if tr and f["kind"] == "process_kill" and
        "gauntlet-train" in f.get("params", {}).get("pattern", "") and
        (f["params"].get("signal", "KILL") in ("KILL", "TERM", "INT") or
         (f["params"].get("signal") == "STOP" and dur(f.get("for")) >= wd))]
print("sure to end training:", sure)
sys.exit(0 if sure else 1)
PY
}
# what validate's output lists for the figure: "required" (a target line or
# a missing threshold), "optional" (under "not required:"), or "absent"
listed() { # OUT-FILE ERR-FILE
	if grep -q "^not required:" "$1" && sed -n '/^not required:/,$p' "$1" | grep -q "training.checkpoint.restore_s"; then
		echo optional
	elif grep -q "^  recovery  training.checkpoint.restore_s" "$1" || grep -q "missing threshold for training.checkpoint.restore_s" "$2"; then
		echo required
	else
		echo absent
	fi
}
for f in "${good[@]}"; do
	name=${f##*/}
	jsonc "$f" > "$TMP/plain.json" || { fail "$name: not readable as JSON with comments"; continue; }
	if grep -q '"inventory"' "$f"; then
		"$GAUNTLET" validate "$f" --set "inventory=$LAB_INV" --allow-root "$GL_SOURCE_DIR/tests/scenarios" >"$TMP/f.out" 2>"$TMP/f.err"
	else
		"$GAUNTLET" validate "$f" >"$TMP/f.out" 2>"$TMP/f.err"
	fi
	rc=$?
	ck=$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["workloads"].get("training"); print(1 if t and "checkpoint" in t and json.load(open(sys.argv[1])).get("faults") else 0)' "$TMP/plain.json")
	if [ "$ck" = 1 ] && sure_kill "$TMP/plain.json" >/dev/null; then want=required
	elif [ "$ck" = 1 ]; then want=optional
	else want=absent; fi
	got=$(listed "$TMP/f.out" "$TMP/f.err")
	check "$name: training.checkpoint.restore_s $got (want $want), exit $rc" [ "$got" = "$want" -a $rc -eq 0 ]
	check "$name: no missing threshold, no target that never gets data" \
		not grep -q "missing threshold\|never gets data\|MISSING" "$TMP/f.out" "$TMP/f.err"
done
# The operator's case (tests/scenarios/operator-case.json): training with
# checkpoints, storage with write spikes, a storage throttle, a drain of a
# training node, a flapping link on one, an slo, webhooks, incidents.max.
OP="$GL_SOURCE_DIR/tests/scenarios/operator-case.json"
"$GAUNTLET" validate "$OP" >"$TMP/op.out" 2>"$TMP/op.err"; rc=$?
sed -n '/^targets:/,$p' "$TMP/op.out"
check "operator's case: valid as written (exit $rc)" [ $rc -eq 0 ]
check "operator's case: no missing threshold, no target that never gets data" \
	not grep -q "missing threshold\|never gets data\|MISSING" "$TMP/op.out" "$TMP/op.err"
check "operator's case: training.checkpoint.restore_s is listed as optional ($(listed "$TMP/op.out" "$TMP/op.err"))" \
	[ "$(listed "$TMP/op.out" "$TMP/op.err")" = optional ]
check "operator's case: ... naming the link flap on a training node as the fault that may end the job, not the drain nor the throttle" \
	bash -c "grep -q \"^  recovery  training.checkpoint.restore_s .*optional: no scheduled fault is sure to end the training job; 'flap-roce-e' (link_flap\" '$TMP/op.out' &&
		! grep \"training.checkpoint.restore_s\" '$TMP/op.out' | grep -q 'drain-slurm-f\|throttle-store'"
# a fault sure to end the job makes the figure required again, and a STOP
# longer than the watchdog (120 s) too; one shorter does not
variant() { # NAME PYTHON (over s, the scenario)
	jsonc "$OP" | python3 -c "import json,sys; s=json.load(sys.stdin); $2; json.dump(s, open(sys.argv[1], 'w'))" "$TMP/$1.json"
	"$GAUNTLET" validate "$TMP/$1.json" >"$TMP/$1.out" 2>"$TMP/$1.err"
	RC=$?
}
kill_f='{"id": "kill-rank-f", "at": "18h", "kind": "process_kill", "target": "gpu-f", "params": {"pattern": "gauntlet-train", "signal": "%s"}%s}'
variant kill "s['faults'].append(json.loads('$(printf "$kill_f" KILL '')'))"
check "with a SIGKILL of gauntlet-train: required again, a missing threshold (exit $RC)" \
	bash -c "[ $RC -eq 2 ] && grep -q \"targets.recovery: missing threshold for training.checkpoint.restore_s (training checkpoints are present and a fault ends the job: 'kill-rank-f' (process_kill: SIGKILL of a process its pattern names))\" '$TMP/kill.err'"
variant stop3 "s['faults'].append(json.loads('$(printf "$kill_f" STOP ', "for": "3m"')'))"
check "with a SIGSTOP of 3m (past the 120 s watchdog): required (exit $RC)" \
	bash -c "[ $RC -eq 2 ] && grep -q 'missing threshold for training.checkpoint.restore_s' '$TMP/stop3.err'"
variant stop1 "s['faults'].append(json.loads('$(printf "$kill_f" STOP ', "for": "1m"')'))"
check "with a SIGSTOP of 1m (within the watchdog): still optional (exit $RC)" \
	bash -c "[ $RC -eq 0 ] && [ \"\$(sed -n '/^not required:/,\$p' '$TMP/stop1.out' | grep -c training.checkpoint.restore_s)\" = 1 ]"
# written for a run in which no fault can end the job: a warning that it
# never gets data (still valid: the operator's choice)
variant never "s['faults'] = [f for f in s['faults'] if f['id'] != 'flap-roce-e']; s['targets']['recovery']['training.checkpoint.restore_s'] = '<= 300'"
check "written with no fault able to end the job: warned, it never gets data (exit $RC)" \
	bash -c "[ $RC -eq 0 ] && grep -q 'warning: targets.recovery: training.checkpoint.restore_s: no scheduled fault ends the training job (a restore follows a relaunch only), so this target never gets data' '$TMP/never.err'"
variant nofault "s['faults'] = []"
check "recovery targets with no fault at all: warned, they never get data (exit $RC)" \
	bash -c "[ $RC -eq 0 ] && grep -q 'warning: targets.recovery: recovery_s: no fault is scheduled, so this target never gets data' '$TMP/nofault.err' && grep -q 'restore_s: no fault is scheduled' '$TMP/nofault.err'"

echo "validate: $PASS cases passed"
finish
