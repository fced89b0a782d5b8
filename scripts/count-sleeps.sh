#!/usr/bin/env bash
# count-sleeps.sh - how often the test scripts sleep: every `sleep` word
# (the shell's sleep, python's time.sleep, a sleep inside a command a
# test hands to gauntlet) outside comment lines, in tests/scripts/*.sh.
# Prints the count per file, then the total. A test waits on a condition
# (lib.sh: until_ok, wait_for), never on the clock; docs/testing.md gives
# the count before and after the tests moved off sleeps.
#   --total   the total only
set -euo pipefail
cd "$(dirname "$0")/.."
total=0
for f in tests/scripts/*.sh; do
	n=$(grep -v '^[[:space:]]*#' "$f" | grep -ow 'sleep' | wc -l || true)
	total=$((total + n))
	[ "${1:-}" = --total ] || [ "$n" = 0 ] || printf '%4d  %s\n' "$n" "$f"
done
[ "${1:-}" = --total ] && echo "$total" || echo "total: $total"
