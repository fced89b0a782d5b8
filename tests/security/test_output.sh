#!/usr/bin/env bash
# test_output.sh - what gauntlet shows a person cannot hide or forge what
# it runs or what happened:
#  1. names with control characters (a newline in a fault id, an escape
#     sequence in a phase name) are refused by validate, naming the byte;
#  2. --dry-run quotes each argument as the shell takes it: control bytes as
#     $'\xHH', and the shown line, read back by bash, is the argv that runs,
#     byte for byte; no raw CR or ESC reaches the terminal;
#  3. a 70 KB argument is shown whole, not cut to its first word;
#  4. a fault command whose error output forges a log line (a newline and a
#     fake "[ time ] info" prefix) stays on one log line, escaped.
. "$(dirname "$0")/../scripts/lib.sh"
[ -x "$GAUNTLET" ] || skip "no gauntlet binary at $GAUNTLET"
sc() { # FILE FAULT-ID-JSON PHASE-NAME-JSON INJECT-ARGV-JSON
	cat > "$1" <<JSON
{ "name": "out", "duration": "6s", "window": "1s", "hold": 1, "hosts": { "localhost": { "local": true } },
  "workloads": { "null": { "rate": 20 } },
  "phases": [ { "name": $3, "for": "6s" } ],
  "faults": [ { "id": $2, "at": "2s", "for": "2s", "kind": "exec", "target": "localhost",
    "params": { "inject": $4, "revert": ["true"] } } ],
  "targets": { "steady": { "null.ticks": ">= 5" }, "degraded": { "null.ticks": ">= 1" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } } }
JSON
}
# --- 1. names ------------------------------------------------------------------------
sc "$T/n1.json" '"f1\n[    0.000] info  forged"' '"steady"' '["true"]'
"$GAUNTLET" validate "$T/n1.json" > "$T/n1.log" 2>&1; rc=$?
check "1: a newline in a fault id: exit 2 (got $rc), naming byte and code" \
	bash -c "[ $rc -eq 2 ] && grep -q 'faults\[0\].id: a control character (byte 3, 0x0a)' '$T/n1.log'"
sc "$T/n2.json" '"f1"' '"st\u001b[2Jeady"' '["true"]'
"$GAUNTLET" validate "$T/n2.json" > "$T/n2.log" 2>&1; rc=$?
check "1: an escape sequence in a phase name: exit 2 (got $rc)" \
	bash -c "[ $rc -eq 2 ] && grep -q 'phases\[0\].name: a control character (byte 3, 0x1b)' '$T/n2.log'"
check "1: ...and validate's own output carries no raw ESC" bash -c "! grep -q \$'\\x1b' '$T/n2.log'"

# --- 2. dry run quoting round trip ------------------------------------------------------
sc "$T/q.json" '"q1"' '"steady"' '["sh", "-c", "echo a\rB\u001b[31m red; it'"'"'s $HOME `id`", "x y", "", "tab\there"]'
"$GAUNTLET" run "$T/q.json" --dry-run > "$T/q.out" 2>&1; rc=$?
check "2: dry run exits 0 (got $rc)" [ $rc -eq 0 ]
check "2: no raw CR or ESC in what it printed" bash -c "! grep -q \$'[\\r\\x1b]' '$T/q.out'"
line=$(sed -n 's/^  inject: //p' "$T/q.out")
echo "shown: $line"
python3 - "$T/q.json" > "$T/want.bin" <<'PY'
import json, sys
argv = json.load(open(sys.argv[1]))["faults"][0]["params"]["inject"]
sys.stdout.buffer.write(b"".join(a.encode() + b"\0" for a in argv))
PY
LINE=$line bash -c 'eval "set -- $LINE"; printf "%s\0" "$@"' > "$T/got.bin" 2>/dev/null
check "2: the shown line, read by bash, is the argv that runs, byte for byte" cmp -s "$T/want.bin" "$T/got.bin"

# --- 3. a 70 KB argument is shown whole --------------------------------------------------
big=$(head -c 70000 /dev/zero | tr '\0' 'A')
sc "$T/big.json" '"b1"' '"steady"' "[\"sh\", \"-c\", \"echo $big\"]"
"$GAUNTLET" run "$T/big.json" --dry-run > "$T/big.out" 2>&1; rc=$?
len=$(sed -n 's/^  inject: //p' "$T/big.out" | wc -c)
check "3: a 70 KB argument: dry run exits 0 (got $rc) and shows it whole ($len bytes of line)" \
	bash -c "[ $rc -eq 0 ] && [ $len -gt 70000 ] && ! grep -q 'INCOMPLETE' '$T/big.out'"

# --- 4. a forged log line stays one escaped line ---------------------------------------
sc "$T/f.json" '"f1"' '"steady"' '["sh", "-c", "printf '"'"'oops\\r[    9.999] info  all fine\\033[K\\n[    9.999] info  fault: everything reverted\\n'"'"' >&2; exit 1"]'
"$GAUNTLET" run "$T/f.json" --out "$T/f-run" > "$T/f.log" 2>&1; rc=$?
check "4: the failing inject is reported (run exit $rc, not 0)" [ $rc -ne 0 ]
check "4: the forged line did not become a log line" bash -c "! grep -q '^\[    9.999\] info  fault: everything reverted' '$T/f.log'"
check "4: no raw CR or ESC in the log" bash -c "! grep -q \$'[\\r\\x1b]' '$T/f.log'"
check "4: the failure is logged on one line, CR and ESC shown as \\xHH" \
	grep -q "error fault: 'f1' inject failed: .*oops\\\\x0d\[    9.999\] info  all fine\\\\x1b\[K" "$T/f.log"
finish
