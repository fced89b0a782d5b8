#!/usr/bin/env bash
# soak.sh - the main job: set up, build, run the default soak and print
# where its report is. For now the default soak is scenarios/null-soak.json
# (the controller with null workload and null faults, time-scaled to 20 s);
# it becomes the local lab soak as the lab lands.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 4
OUT=${GL_OUT:-runs/null-soak-$(date -u +%Y%m%dT%H%M%SZ)}
SCENARIO=${GL_SCENARIO:-scenarios/null-soak.json}
SCALE=${GL_TIME_SCALE:-360}
./build/gauntlet validate "$SCENARIO" --time-scale "$SCALE" || exit $?
./build/gauntlet run "$SCENARIO" --out "$OUT" --time-scale "$SCALE"
rc=$?
echo
cat "$OUT/report.md" 2>/dev/null | head -30
echo
echo "report: $OUT/report.json (also report.md, manifest.json; store: $OUT/run.db); exit $rc"
exit $rc
