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
#      keeps the scenario valid.
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

echo "validate: $PASS cases passed"
finish
