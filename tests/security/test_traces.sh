#!/usr/bin/env bash
# test_traces.sh - every loop over a trace ends. A trace with no row to
# replay (rows all before arrival.start, or all failed in the original, with
# loop on) must not pass validate: run, it would spin the controller's loop
# at 100 % CPU, deaf to SIGTERM. So:
#  1. validate refuses both (exit 2), naming arrival.start and the counts;
#     run refuses them the same way, at once;
#  2. a property test: seeded random traces (BurstGPT and Mooncake rows,
#     malformed, failed and out-of-order rows, random start, end and loop)
#     driven through validate and then run against a real gauntlet target:
#     every one is refused by validate (exit 2) or runs to its end within
#     its duration plus 10 s, and a SIGTERM in the middle of each ends the
#     run within 5 s (exit 3).
# GL_TRACE_CASES (default 12) and GL_TRACE_SEED choose the random cases.
. "$(dirname "$0")/../scripts/lib.sh"
[ -x "$GAUNTLET" ] || skip "no gauntlet binary at $GAUNTLET"
start_target target --ttft-ms 5 --itl-ms 1 --output-tokens 4

scenario() { # FILE TRACE ARRIVAL-EXTRA DURATION
	cat > "$1" <<JSON
{ "name": "trace-prop", "duration": "$4", "window": "1s", "hosts": { "localhost": { "local": true } },
  "workloads": { "inference": { "endpoints": ["http://$ADDR/v1"], "model": "gauntlet-target", "trace": "$2",
     "output_tokens": 4, "timeout": "5s", "arrival": { "mode": "trace" $3 } } },
  "phases": [ { "name": "steady", "for": "$4" } ],
  "targets": { "steady": { "inference.ttft_ms.p99": "<= 10000", "inference.error_rate": "<= 1" } } }
JSON
}
H='Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type'
printf '%s\n5,ChatGPT,461,73,534,Conversation log\n18,ChatGPT,181,319,500,Conversation log\n' "$H" > "$T/two.csv"
printf '%s\n5,ChatGPT,461,0,461,Conversation log\n18,ChatGPT,181,0,181,Conversation log\n' "$H" > "$T/failed.csv"

# --- 1. the two traces of the report -------------------------------------------
scenario "$T/late.json" two.csv ', "start": "1h", "loop": true' 20s
"$GAUNTLET" validate "$T/late.json" > "$T/v1.log" 2>&1; rc=$?
check "1: rows all before start: validate exits 2 (got $rc)" [ $rc -eq 2 ]
check "1: ...naming arrival.start and the trace's span" grep -q "arrival.start: the trace two.csv has no row to replay at or after start 1h: 2 good row(s) spanning 13s" "$T/v1.log"
scenario "$T/failed.json" failed.csv ', "loop": true' 20s
"$GAUNTLET" validate "$T/failed.json" > "$T/v2.log" 2>&1; rc=$?
check "1: every row failed in the original, loop on: validate exits 2 (got $rc)" [ $rc -eq 2 ]
check "1: ...saying so" grep -q "0 good row(s) spanning 13s, 2 failed in the original" "$T/v2.log"
t0=$(date +%s%N)
timeout -s KILL 20 "$GAUNTLET" run "$T/late.json" --out "$T/late-run" > "$T/r1.log" 2>&1; rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "1: run refuses it too: exit 2 (got $rc) in $ms ms, no run started" bash -c "[ $rc -eq 2 ] && [ ! -e '$T/late-run/run.db' ]"

# --- 2. random traces through run ----------------------------------------------------
SEED=${GL_TRACE_SEED:-$(( $(date +%s) % 100000 ))}
N=${GL_TRACE_CASES:-12}
echo "property test: seed $SEED, $N cases (GL_TRACE_SEED=$SEED repeats them)"
python3 - "$T" "$SEED" "$N" <<'PY'
import json, random, sys
d, seed, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(seed)
# Case 00 always starts past its last row (validate must refuse it) and case
# 01 is always well formed (it must run), so that both outcomes are covered
# whatever the seed; the others are drawn freely.
for i in range(n):
    force = "refuse" if i == 0 else "run" if i == 1 else None
    burst = rnd.random() < 0.6 and force != "run"
    rows, t = [], 0.0
    for _ in range(rnd.randint(3 if force == "run" else 0, 40)):
        t += rnd.choice([0, 0.01, 0.2, 1, 3, -2])           # some go back in time
        k = rnd.random() * (0.9 if force == "run" else 1)
        if burst:
            out = 0 if k < 0.3 else rnd.randint(1, 50)       # 0: failed in the original
            if k > 0.9:
                rows.append("%s,ChatGPT,x,y,z,Conversation log" % t)   # malformed
            else:
                rows.append("%.3f,ChatGPT,%d,%d,%d,Conversation log" % (max(t, 0), rnd.randint(1, 900), out, out + 1))
        else:
            if k > 0.9:
                rows.append('{"timestamp": "soon"}')
            else:
                rows.append(json.dumps({"timestamp": int(max(t, 0) * 1000), "input_length": rnd.randint(1, 900),
                                        "output_length": rnd.randint(1, 50), "hash_ids": [rnd.randint(0, 9)]}))
    name = "t%02d.%s" % (i, "csv" if burst else "jsonl")
    with open("%s/%s" % (d, name), "w") as f:
        if burst:
            f.write("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n")
        f.write("\n".join(rows) + ("\n" if rows else ""))
    extra = ""
    if force == "refuse": extra += ', "start": "3600s"'
    elif force is None and rnd.random() < 0.5: extra += ', "start": "%ds"' % rnd.choice([0, 1, 5, 30, 3600])
    if force is None and rnd.random() < 0.3: extra += ', "end": "%ds"' % rnd.choice([1, 2, 10])
    extra += ', "loop": %s' % rnd.choice(["true", "false"])
    if rnd.random() < 0.5: extra += ', "speed": %s' % rnd.choice([0.5, 1, 4, 100])
    with open("%s/case%02d" % (d, i), "w") as f:
        f.write("%s\t%s\n" % (name, extra))
PY
refused=0 ran=0 slow=0 term_bad=0
for i in $(seq -f %02g 0 $((N - 1))); do
	IFS=$'\t' read -r name extra < "$T/case$i"
	scenario "$T/c$i.json" "$name" "$extra" 6s
	"$GAUNTLET" validate "$T/c$i.json" > "$T/c$i.v" 2>&1; vrc=$?
	if [ $vrc -eq 2 ]; then
		refused=$((refused + 1)); echo "case $i ($name$extra): refused: $(grep -m1 -o 'workloads[^ ]*: .\{0,90\}' "$T/c$i.v")"
		continue
	elif [ $vrc -ne 0 ]; then
		bad "case $i: validate exits $vrc (0 or 2 expected)"; cat "$T/c$i.v"; continue
	fi
	# a whole run (6 s): it must end within 16 s
	t0=$(date +%s%N)
	timeout -s KILL 16 "$GAUNTLET" run "$T/c$i.json" --out "$T/c$i-run" > "$T/c$i.log" 2>&1; rc=$?
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	ran=$((ran + 1)); echo "case $i ($name$extra): ran, exit $rc in $ms ms"
	if [ $rc -gt 4 ] || [ $rc -eq 3 ]; then slow=$((slow + 1)); echo "   did not end by itself: $(tail -2 "$T/c$i.log")"; fi
	# and a SIGTERM once its loop runs (its first window logged, 10 s at
	# most: what is measured here is the loop over the trace; a signal in
	# an earlier phase is test_stop.sh's): the run must end within 5 s
	"$GAUNTLET" run "$T/c$i.json" --out "$T/c$i-term" > "$T/c$i.t.log" 2>&1 &
	P=$!; PIDS+=("$P")
	n=200; while kill -0 "$P" 2>/dev/null && ! grep -q "window 0:" "$T/c$i.t.log" && [ $n -gt 0 ]; do sleep 0.05; n=$((n - 1)); done
	kill -TERM "$P" 2>/dev/null
	t0=$(date +%s%N)
	n=100; while kill -0 "$P" 2>/dev/null && [ $n -gt 0 ]; do sleep 0.05; n=$((n - 1)); done
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	if kill -0 "$P" 2>/dev/null; then
		term_bad=$((term_bad + 1)); echo "   SIGTERM: still running after 5 s"; kill -9 "$P"
	else
		wait "$P"; trc=$?
		echo "   SIGTERM: ended in $ms ms, exit $trc"
		[ $trc -eq 3 ] || [ $trc -le 1 ] || { term_bad=$((term_bad + 1)); echo "   SIGTERM: exit $trc"; }
	fi
done
echo "property test: $refused refused by validate, $ran ran"
check "2: every random trace was refused by validate or ran to its end (seed $SEED)" [ $slow -eq 0 ]
check "2: a SIGTERM ended every run within 5 s (seed $SEED)" [ $term_bad -eq 0 ]
check "2: the cases covered both outcomes ($refused refused, $ran ran)" bash -c "[ $refused -ge 1 ] && [ $ran -ge 1 ]"
finish
