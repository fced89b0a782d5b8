#!/usr/bin/env bash
# test_agents.sh - load agents through real mpirun against two `gauntlet
# target` replicas on loopback (docs/agents.md): one trace of known
# requests (900 rows, known output tokens) replayed by one process, by 2
# agents and by 4 agents: each run counts exactly the trace's requests and
# output tokens, the replicas' own counters agree, each window counts what
# the one-process run's did, every run's TTFT p50 is at least the server's
# 200 ms, and the agent runs' p50 is within 10 % of the one-process run's
# (a timing: the tails of runs made one after another on a shared machine
# are a benchmark's business, tests/bench/agents.sh). (Failures, the token,
# resume and storage: test_agents_fail.sh.)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/agents_lib.sh"

# --- 1. one process, 2 agents, 4 agents: the same trace, the same figures ------------------------
# TTFT = 200 ms + input x 50 us; ITL 5 ms: no first token comes sooner, and
# a 10 % band on the median is 20 ms and more
for n in one ag2 ag4; do
	start_target "$n-a" --ttft-ms 200 --prefill-us-per-token 50 --itl-ms 5 --max-seqs 1000; ADDR1=$ADDR
	start_target "$n-b" --ttft-ms 200 --prefill-us-per-token 50 --itl-ms 5 --max-seqs 1000; ADDR2=$ADDR
	case $n in
	one) scenario "$T/$n.json" 8s '' ;;
	ag2) scenario "$T/$n.json" 8s "\"agents\": {\"launcher\": \"mpirun\", \"count\": 2, \"launcher_args\": [$MPI_ARGS]}" ;;
	ag4) scenario "$T/$n.json" 8s "\"agents\": {\"launcher\": \"mpirun\", \"count\": 4, \"launcher_args\": [$MPI_ARGS]}" ;;
	esac
	"$GAUNTLET" run "$T/$n.json" --out "$T/$n" >"$T/$n.log" 2>&1; rc=$?
	check "$n: the run passes (exit $rc)" [ $rc -eq 0 ]
	read -r req tok p50 p99 < <(figures $n)
	read -r s1 k1 < <(served "$ADDR1"); read -r s2 k2 < <(served "$ADDR2")
	echo "$n: client $req requests $tok tokens, ttft p50 $p50 p99 $p99; replicas $s1+$s2 requests $k1+$k2 tokens"
	check "$n: every request of the trace counted once ($req, trace $N_REQ)" [ "$req" -eq "$N_REQ" ]
	check "$n: output tokens exact ($tok, trace $N_TOK)" [ "$tok" -eq "$N_TOK" ]
	check "$n: the replicas served the same ($((s1 + s2)) requests, $((k1 + k2)) tokens)" \
		[ $((s1 + s2)) -eq "$N_REQ" -a $((k1 + k2)) -eq "$N_TOK" ]
	eval "P50_$n=$p50 P99_$n=$p99"
done
for n in ag2 ag4; do
	eval "p50=\$P50_$n p99=\$P99_$n"
	timing "$n: ttft p50 within 10 % of one process ($p50 vs $P50_one; p99 $p99 vs $P99_one, not judged)" \
		python3 -c "import sys; sys.exit(abs($p50 - $P50_one) > 0.10 * $P50_one)"
done
for n in one ag2 ag4; do
	eval "p50=\$P50_$n"
	check "$n: ttft p50 at least the server's 200 ms ($p50)" python3 -c "import sys; sys.exit(not $p50 >= 200)"
done
# window by window: a request counts in the window it ended in, wherever
# it was sent from; only requests ending near a boundary may fall on the
# other side of it (tens of ms on a loaded machine: beside the suite 8 of
# 900 can move, which the window-by-window comparison counts twice, 16)
for n in ag2 ag4; do
	check "$n: each window counts what the one-process run's did (within 5 % of the requests)" python3 -c "
import sqlite3
def per(d):
    c = sqlite3.connect(d + '/run.db')
    return dict(c.execute(\"select idx, counter from window_metrics where name='inference.requests'\"))
a, b = per('$T/one'), per('$T/$n')
diff = sum(abs(a.get(k, 0) - b.get(k, 0)) for k in set(a) | set(b))
print('$n: windows', [b.get(k, 0) for k in sorted(b)], 'one process', [a.get(k, 0) for k in sorted(a)], 'moved', diff)
assert diff <= 0.05 * $N_REQ, diff"
done
check "ag4: 4 agents connected, each window names 4 expected and 0 missing" python3 -c "
import sqlite3; c=sqlite3.connect('$T/ag4/run.db')
e=set(r[0] for r in c.execute(\"select counter from window_metrics where name='agents.expected'\"))
m=sum(r[0] for r in c.execute(\"select counter from window_metrics where name='agents.missing'\"))
assert e == {4} and m == 0, (e, m)"
check "ag4: 4 launchers recorded, all ended" python3 -c "
import sqlite3; c=sqlite3.connect('$T/ag4/run.db')
rows=list(c.execute(\"select ended_wall_ns from children where source='agents'\"))
assert len(rows) == 4 and all(r[0] for r in rows), rows"

finish
