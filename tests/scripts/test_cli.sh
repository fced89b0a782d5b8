#!/usr/bin/env bash
# test_cli.sh - the command line answers as documented: every subcommand's
# --help prints its usage and exits 0 (before it touches any file named
# after it); `gauntlet report DIR` lists every file it rewrote, and those
# are exactly the files whose bytes it wrote again.
. "$(dirname "$0")/lib.sh"
for c in validate run resume revert report status seal verify compare lab target; do
	"$GAUNTLET" "$c" --help > "$T/h.out" 2>&1; rc=$?
	check "$c --help: exit 0 (got $rc), its usage" bash -c "[ $rc -eq 0 ] && grep -q '^usage: gauntlet $c' '$T/h.out'"
done
"$GAUNTLET" run --help "$T/none.json" > /dev/null 2>&1
check "run --help touches nothing (no runs/ made)" [ ! -e runs/none ]

cat > "$T/sc.json" <<JSON
{ "name": "cli", "duration": "3s", "window": "1s", "hosts": { "localhost": { "local": true } },
  "workloads": { "null": { "rate": 20 } }, "phases": [ { "name": "steady", "for": "3s" } ],
  "targets": { "steady": { "null.ticks": ">= 10" } } }
JSON
"$GAUNTLET" run "$T/sc.json" --out "$T/run" > "$T/run.log" 2>&1; rc=$?
check "a short run passes (exit $rc)" [ $rc -eq 0 ]
# the mark after every file of the run, and the report's writes after the
# mark: the file clock (coarse, a tick of some ms) must move past it first
touch "$T/mark"
past_mark() { touch "$T/probe"; [ "$T/probe" -nt "$T/mark" ]; }
until_ok 10 past_mark
"$GAUNTLET" report "$T/run" > "$T/report.out" 2>"$T/report.err"; rc=$?   # the log (report.pdf's line) on stderr
check "report: exit 0 (got $rc)" [ $rc -eq 0 ]
listed=$(sed "s|^$T/run/||" "$T/report.out" | sort | tr '\n' ' ')
rewritten=$(cd "$T/run" && find . -maxdepth 1 -type f -newer "$T/mark" ! -name 'run.db*' ! -name run.lock -printf '%f\n' | sort | tr '\n' ' ')
echo "listed: $listed"
echo "rewritten: $rewritten"
check "report lists exactly the files it rewrote" bash -c "[ -n '$listed' ] && [ '$listed' = '$rewritten' ]"
finish
