#!/usr/bin/env bash
# soak.sh - the main job: set up, build, start `gauntlet target` on
# loopback, run scenarios/target-soak.json against it (one hour of timeline
# at --time-scale 120: 30 s, with a real freeze of the server as its fault),
# stop the target and print where the report is. The local lab takes the
# target's place once it lands.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 4
OUT=${GL_OUT:-runs/target-soak-$(date -u +%Y%m%dT%H%M%SZ)}
SCENARIO=${GL_SCENARIO:-scenarios/target-soak.json}
SCALE=${GL_TIME_SCALE:-120}
PIDFILE=/tmp/gauntlet-soak-target.pid
READY=$(mktemp -u /tmp/gauntlet-soak-ready.XXXXXX)

./build/gauntlet target --listen 127.0.0.1:0 --ready-file "$READY" \
	--ttft-ms 50 --itl-ms 5 --max-seqs 256 > /tmp/gauntlet-soak-target.log 2>&1 &
TPID=$!
stop_target() { kill -CONT "$TPID" 2>/dev/null; kill "$TPID" 2>/dev/null; wait "$TPID" 2>/dev/null; rm -f "$READY" "$PIDFILE"; }
trap stop_target EXIT
for _ in $(seq 50); do [ -s "$READY" ] && break; sleep 0.1; done
[ -s "$READY" ] || { echo "soak: gauntlet target did not start:"; cat /tmp/gauntlet-soak-target.log; exit 4; }
echo "$TPID" > "$PIDFILE"
ADDR=$(cat "$READY")
echo "soak: gauntlet target (pid $TPID) listening on $ADDR"

SET="workloads.inference.endpoints=[\"http://$ADDR/v1\"]"
./build/gauntlet validate "$SCENARIO" --time-scale "$SCALE" --set "$SET" || exit $?
./build/gauntlet run "$SCENARIO" --out "$OUT" --time-scale "$SCALE" --set "$SET"
rc=$?
echo
head -60 "$OUT/report.md" 2>/dev/null
echo
echo "report: $OUT/report.json (also report.md, manifest.json; store: $OUT/run.db); exit $rc"
exit $rc
