#!/usr/bin/env bash
# test_mut_confine.sh - confinement by whole path components (for
# scripts/mutate.sh; test_confine covers "..", absolute paths and links):
# a directory whose name merely starts with the scenario's directory or an
# allowed root ($T/sc-evil beside $T/sc, $T/data-evil beside $T/data) is
# outside them, and refused; the directories themselves are let in.
source "$(dirname "$0")/lib.sh"

mkdir -p "$T/sc" "$T/sc-evil" "$T/data" "$T/data-evil"
for d in sc sc-evil data data-evil; do echo '{"hosts": {}, "x": {"n": 1}}' > "$T/$d/inv.json"; done
inv_scenario() { # FILE INVENTORY
	cat > "$1" <<JSON
{ "name": "confine", "duration": "2s", "window": "1s", "inventory": "$2",
  "hosts": { "localhost": { "local": true } },
  "workloads": { "null": { "rate": "\${x.n}" } },
  "safety": { "allowed_roots": ["$T/data"] },
  "targets": { "steady": { "null.ticks": ">= 1" } } }
JSON
}
for c in sc data sc-evil data-evil; do inv_scenario "$T/sc/$c.json" "$T/$c/inv.json"; done
"$GAUNTLET" validate "$T/sc/sc.json" >/dev/null 2>&1
check "the scenario's own directory is let in" [ $? -eq 0 ]
"$GAUNTLET" validate "$T/sc/data.json" >/dev/null 2>&1
check "the allowed root is let in" [ $? -eq 0 ]
"$GAUNTLET" validate "$T/sc/sc-evil.json" >/dev/null 2>"$T/sc-evil.err"
rc=$?
check "$T/sc-evil (prefix of the scenario's directory) is refused (exit $rc)" \
	bash -c "[ $rc -eq 2 ] && grep -q 'resolves to $T/sc-evil/inv.json, outside the scenario' '$T/sc-evil.err'"
"$GAUNTLET" validate "$T/sc/data-evil.json" >/dev/null 2>"$T/data-evil.err"
rc=$?
check "$T/data-evil (prefix of an allowed root) is refused (exit $rc)" \
	bash -c "[ $rc -eq 2 ] && grep -q 'resolves to $T/data-evil/inv.json, outside the scenario' '$T/data-evil.err'"
finish
