#!/usr/bin/env bash
# soak.sh - the main job: set up and build, `gauntlet lab up` (the local lab
# cluster: worker namespaces serving `gauntlet target`, etcd, Slurm, sshd,
# storage, mpirun), run scenarios/lab-soak.json against it (all three
# workloads, every fault kind, five minutes), and `gauntlet lab down`.
# Prints the report's head and where the reports are.
#
# Env: GL_LAB_DIR (default /var/lib/gauntlet-lab), GL_OUT (the run
# directory), GL_TIME_SCALE (default 1; 2.5 makes the soak two minutes),
# GL_SCENARIO (default scenarios/lab-soak.json), GL_LAB_WORKERS (the
# workers of a lab this script builds, default 4: the report's Nodes
# section then scores four replicas against each other).
# A lab that was already up before this script is used and left up.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 4
LAB_DIR=${GL_LAB_DIR:-/var/lib/gauntlet-lab}
OUT=${GL_OUT:-runs/lab-soak-$(date -u +%Y%m%dT%H%M%SZ)}
SCENARIO=${GL_SCENARIO:-scenarios/lab-soak.json}
SCALE=${GL_TIME_SCALE:-1}
G=./build/gauntlet

"$G" lab status --dir "$LAB_DIR" >/dev/null 2>&1
case $? in
0) echo "soak: using the lab already up in $LAB_DIR (left up afterwards)" ;;
3)	# no lab there: build one, and take it down however this script ends
	trap '"$G" lab down --dir "$LAB_DIR"' EXIT
	"$G" lab up --dir "$LAB_DIR" --workers "${GL_LAB_WORKERS:-4}"
	# 1: some part could not be built (said above); validate names what the soak lacks
	[ $? -le 1 ] || exit 4 ;;
*)	"$G" lab status --dir "$LAB_DIR"
	echo "soak: the lab in $LAB_DIR is not healthy (above); it is left as it is:" \
		"\`gauntlet lab down --dir $LAB_DIR\` then run this again" >&2
	exit 4 ;;
esac

SET="inventory=$LAB_DIR/inventory.json"
"$G" validate "$SCENARIO" --time-scale "$SCALE" --set "$SET" >/dev/null || exit $?
"$G" run "$SCENARIO" --out "$OUT" --time-scale "$SCALE" --set "$SET"
rc=$?
echo
head -60 "$OUT/report.md" 2>/dev/null
echo
pdf=
[ -s "$OUT/report.pdf" ] && pdf=", report.pdf"
echo "reports: $OUT/report.html, report.json, report.md, junit.xml, manifest.json$pdf (store: $OUT/run.db); exit $rc"
exit $rc
