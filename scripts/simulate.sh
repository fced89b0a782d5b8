#!/usr/bin/env bash
# simulate.sh - a seed sweep of `gauntlet simulate` (docs/simulation.md),
# outside CI: many seeds of a plan with controller kills, the counts of
# ok and VIOLATED lines, the kills and the time, and every VIOLATED line
# (each reproduced by `gauntlet simulate SCENARIO --seed N --crash-rate R`).
#
#   bash scripts/simulate.sh [SCENARIO] [SEEDS] [CRASH_RATE]
#
# Defaults: scenarios/acceptance-168h.json, 1000 seeds, 4 kills a
# simulated day. Uses build/gauntlet (GAUNTLET=path to use another), one
# seed per CPU at a time. docs/testing.md keeps the figures of the last
# sweep. Exit 0 when every seed held.
set -uo pipefail
cd "$(dirname "$0")/.."
SCN=${1:-scenarios/acceptance-168h.json}
SEEDS=${2:-1000}
RATE=${3:-4}
G=${GAUNTLET:-build/gauntlet}
[ -x "$G" ] || { echo "simulate.sh: $G is not built (cmake --build build)" >&2; exit 2; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
t0=$(date +%s)
"$G" simulate "$SCN" --seeds "$SEEDS" --crash-rate "$RATE" | tee "$out" | grep -v ': ok ' 
rc=${PIPESTATUS[0]}
t1=$(date +%s)
ok=$(grep -c ': ok ' "$out")
bad=$(grep -c ': VIOLATED ' "$out")
kills=$(grep -o '[0-9]* crash' "$out" | awk '{ s += $1 } END { print s + 0 }')
echo "simulate.sh: $SCN, $SEEDS seeds at $RATE kills a simulated day: $ok ok, $bad VIOLATED, $kills kills in all, $((t1 - t0)) s"
exit "$rc"
