#!/usr/bin/env bash
# test_sessions.sh - multi-turn conversations ("sessions", docs/scenario.md)
# against `gauntlet target --prefix-cache-blocks` (docs/target.md, "Prefix
# cache"): turn k+1's prompt is turn k's, its answer (16 words "tokN") and
# 40 new words, so it starts with turn k's whole prompt, whose full blocks
# of 16 the server cached. The truth comes from the token counts alone: a
# first turn (400 words) finds nothing, a later one of P words, after a
# turn of P - 56, finds floor((P - 56) / 16) x 16 of them.
#  (e) open loop, 4 conversations/s of 3 turns 200 ms apart, streaming
#      chat; (f) closed loop, 2 users, conversations of 4 turns without a
#      pause, non-streaming completions. Each (run side by side, ~7 s):
#      - the prompts grow by 56 words a turn, every conversation from its
#        first turn, and the server counted what gauntlet sent;
#      - inference.cached_tokens and prefix_hit_ratio are the truth's;
#      - TTFT by turn: ttft_first_turn_ms and ttft_later_turn_ms count the
#        first and the later turns, inference.ttft_ms all of them;
#      - each turn's TTFT from send not below the model's, ttft + prefill
#        x uncached words (+ 15 gaps of 2 ms for a whole body; every
#        build); at the median, first and later
#        turns near the model, the later ones faster by its amount
#        (timing);
#  (g) validate refuses sessions with trace arrivals, and bad turns;
#  (h) beside them: 4 conversations/s of 6 turns 1 s apart, and at 6 s an
#      exec fault that restarts the server on its port (its cache lost
#      with the process): faults[0].sessions, the later turns' TTFT,
#      before at the model's hit (ttft + prefill x the 56 to 71 uncached
#      words), in the window of the restart at least a whole miss's
#      (10 + 0.2 x 456 = 101.2 ms: a later turn has 456 words or more),
#      back within seconds (one think time: the turn after a miss finds
#      its history cached again).
source "$(dirname "$0")/lib.sh"

TTFT=10 PREFILL=200 ITL=2 IN=400 OUT=16 USER=40 # ms, us per token, ms, words
FLAGS="--ttft-ms $TTFT --prefill-us-per-token $PREFILL --itl-ms $ITL --max-seqs 256 --prefix-cache-blocks 100000"
start_target e $FLAGS
E=$ADDR
start_target f $FLAGS
F=$ADDR
start_target hsrv $FLAGS
H=$ADDR
echo "${PIDS[-1]}" >"$T/h.pid"
# the fault's inject: stop the server, start it again on its port
cat >"$T/restart.sh" <<EOF
#!/bin/sh
kill -TERM "\$(cat '$T/h.pid')"
i=0
until grep -q 'target: stopped' '$T/hsrv.log' || [ \$i -ge 200 ]; do sleep 0.05; i=\$((i + 1)); done
rm -f '$T/h2.ready'
setsid '$GAUNTLET' target --listen '$H' --ready-file '$T/h2.ready' $FLAGS >'$T/h2.log' 2>&1 </dev/null &
echo \$! >'$T/h.pid'
i=0
until [ -e '$T/h2.ready' ] || [ \$i -ge 200 ]; do sleep 0.05; i=\$((i + 1)); done
test -e '$T/h2.ready'
EOF

# sc NAME ADDR 'extra inference keys'
sc() {
	python3 - "$T" "$@" $IN $OUT $USER <<'PY'
import json, sys
T, name, addr, extra, inp, out, user = sys.argv[1:]
inf = {"endpoints": ["http://%s/v1" % addr], "model": "gauntlet-target", "timeout": "10s",
       "input_tokens": int(inp), "output_tokens": int(out)}
inf.update(json.loads("{" + extra.replace("USER", user) + "}"))
json.dump({"name": "sessions-" + name, "duration": "6s", "window": "1s", "store": {"requests": "all"},
           "workloads": {"inference": inf},
           "targets": {"steady": {"inference.ttft_ms.p99": "<= 5000", "inference.error_rate": "<= 0"}}},
          open("%s/%s.json" % (T, name), "w"), indent=1)
PY
}
sc e "$E" '"arrival": {"mode": "constant", "rate": 4}, "sessions": {"turns": 3, "think_time": "200ms", "user_tokens": USER}'
sc f "$F" '"arrival": {"mode": "closed", "users": 2}, "api": "completions", "stream": false, "sessions": {"turns": 4, "user_tokens": USER}'
sc h "$H" '"arrival": {"mode": "constant", "rate": 4}, "sessions": {"turns": 6, "think_time": "1s", "user_tokens": USER}'
python3 - "$T" <<'PY'
import json, sys
T = sys.argv[1]
sc = json.load(open(T + "/h.json"))
sc.update({"duration": "11s", "hosts": {"controller": {"local": True}},
           "phases": [{"name": "warmup", "for": "2s"}, {"name": "steady", "for": "9s"}],
           "faults": [{"id": "restart", "at": "6s", "kind": "exec", "target": "controller",
                       "params": {"inject": ["sh", T + "/restart.sh"], "timeout": "20s"}}]})
json.dump(sc, open(T + "/h.json", "w"), indent=1)
PY
run_all e f h
PIDS+=("$(cat "$T/h.pid")") # the restarted server, killed at exit

# The truth of a run from its requests (successes, in send order): each
# one's prompt, turn and cached words, and its TTFT against the model (a
# whole body's first byte comes with the last token: OUT - 1 gaps later).
for n in e f; do
	python3 - "$T/$n" $TTFT $PREFILL $ITL $IN $OUT $USER >"$T/$n.truth" <<'PY'
import json, sqlite3, statistics, sys
d, ttft, prefill, itl, inp, out, user = sys.argv[1], *map(float, sys.argv[2:5]), *map(int, sys.argv[5:])
if not json.load(open(d + ".json"))["workloads"]["inference"].get("stream", True):
    ttft += (out - 1) * itl
rows = sqlite3.connect(d + "/run.db").execute(
    "select input_tokens, (t_first_token_ns - t_send_ns) / 1e6 from requests where error_class is null "
    "order by t_send_ns").fetchall()
step = out + user
turns = [(p - inp) // step for p, _ in rows]
grows = all(p == inp + k * step for (p, _), k in zip(rows, turns))
cached = [0 if k == 0 else (p - step) // 16 * 16 for (p, _), k in zip(rows, turns)]
model = [ttft + prefill * (p - c) / 1000 for (p, _), c in zip(rows, cached)]
first = [(g, m) for (_, g), m, k in zip(rows, model, turns) if k == 0]
later = [(g, m) for (_, g), m, k in zip(rows, model, turns) if k > 0]
med = lambda xs: statistics.median(xs) if xs else -1
print(json.dumps({"n": len(rows), "grows": grows, "turns": [turns.count(k) for k in range(max(turns) + 1)],
                  "prompt": sum(p for p, _ in rows), "cached": sum(cached),
                  "below": sum(g < m - 0.5 for (_, g), m in zip(rows, model)),
                  "first": [len(first), med([g for g, m in first]), med([m for g, m in first])],
                  "later": [len(later), med([g for g, m in later]), med([m for g, m in later])]}))
PY
done

# m RUN 'python over i = metrics.inference, t = the run's truth'
m() {
	python3 -c "
import json,sys
i=json.load(open('$T/$1/report.json'))['metrics']['inference']
t=json.load(open('$T/$1.truth'))
v=($2)
if v is not True: print(v)
sys.exit(0 if v else 1)"
}
i=0
for n in e f; do
	echo "($n) $(m $n "'%d turns (by turn %s) in %s conversations; cached %s of %s prompt words, hit ratio %s; truth %d of %d, %.6f' % (t['n'], t['turns'], i.get('sessions'), i.get('cached_tokens'), i.get('prompt_tokens'), i.get('prefix_hit_ratio'), t['cached'], t['prompt'], t['cached'] / t['prompt'])")"
	echo "($n) TTFT from send, median: first turns $(m $n "'%.1f ms (model %.1f), later turns %.1f ms (model %.1f)' % (t['first'][1], t['first'][2], t['later'][1], t['later'][2])")"
	check "($n) the run passes, no error (exit ${rcs[$i]})" m $n "${rcs[$i]} == 0 and i['errors'] == 0"
	i=$((i + 1))
	check "($n) every conversation grows by $OUT + $USER words a turn from its first" \
		m $n "t['grows'] and len(t['turns']) >= 3 and t['turns'] == sorted(t['turns'], reverse=True) and i['sessions'] >= t['turns'][0]"
	check "($n) the server counted the words gauntlet sent" m $n "i['prompt_tokens'] == t['prompt']"
	check "($n) cached_tokens is the truth's exactly" m $n "i['cached_tokens'] == t['cached']"
	check "($n) prefix_hit_ratio is the truth's" m $n "abs(i['prefix_hit_ratio'] - t['cached'] / t['prompt']) < 1e-12"
	check "($n) ttft_first_turn_ms and ttft_later_turn_ms count the first and later turns" \
		m $n "i['ttft_first_turn_ms']['count'] == t['first'][0] and i['ttft_later_turn_ms']['count'] == t['later'][0] and i['ttft_ms']['count'] == t['n']"
	check "($n) no turn's TTFT below the model's ttft + prefill x uncached words ($(m $n "t['below']") below)" m $n "t['below'] == 0"
	timing "($n) first turns: median TTFT within 20 ms over the model" m $n "0 <= t['first'][1] - t['first'][2] <= 20"
	timing "($n) later turns: median TTFT within 20 ms over the model" m $n "0 <= t['later'][1] - t['later'][2] <= 20"
	timing "($n) later turns faster than first ones by the model's amount, within 20 ms" \
		m $n "abs((t['first'][1] - t['later'][1]) - (t['first'][2] - t['later'][2])) <= 20"
done
check "(e) report.json's TTFT by turn from the intended send: first turns over $((TTFT + PREFILL * IN / 1000)) ms, later ones under" \
	m e "i['ttft_first_turn_ms']['p50'] >= $TTFT + $PREFILL * $IN / 1000 > i['ttft_later_turn_ms']['p50']"
check "(e) timeseries.csv has the TTFT by turn" grep -q "inference.ttft_later_turn_ms.p50" "$T/e/timeseries.csv"

# (g) what validate refuses
python3 - "$T" <<'PY'
import json, sys
T = sys.argv[1]
base = json.load(open(T + "/e.json"))
for name, ses, arr in [("trace", {"turns": 2}, {"mode": "trace"}), ("turns", {"turns": 1}, None),
                       ("key", {"turns": 2, "turn": 3}, None)]:
    sc = json.loads(json.dumps(base))
    sc["workloads"]["inference"]["sessions"] = ses
    if arr:
        sc["workloads"]["inference"]["arrival"] = arr
        sc["workloads"]["inference"]["trace"] = "t.jsonl"
    json.dump(sc, open("%s/bad-%s.json" % (T, name), "w"))
PY
"$GAUNTLET" validate "$T/bad-trace.json" >"$T/bad-trace.out" 2>&1
check "(g) validate refuses sessions with trace arrivals (exit $?)" grep -q "workloads.inference.sessions: sessions take arrivals of mode" "$T/bad-trace.out"
"$GAUNTLET" validate "$T/bad-turns.json" >"$T/bad-turns.out" 2>&1
check "(g) validate refuses a conversation of one turn (exit $?)" grep -q "workloads.inference.sessions.turns" "$T/bad-turns.out"
"$GAUNTLET" validate "$T/bad-key.json" >"$T/bad-key.out" 2>&1
check "(g) validate names an unknown key of sessions (exit $?)" grep -q "workloads.inference.sessions.*turn" "$T/bad-key.out"

# (h) the restart under running conversations
# hs 'python over s = faults[0].sessions, f = faults[0]'
hs() {
	python3 -c "
import json,sys
f=json.load(open('$T/h/report.json'))['faults'][0]
s=f['sessions'] or {}
v=($1)
if v is not True: print(v)
sys.exit(0 if v else 1)"
}
MISS=$(python3 -c "print($TTFT + $PREFILL * ($IN + $OUT + $USER) / 1000)")
echo "(h) $(hs "'fault %s %s; later turns: before %s ms over %s windows, %s ms in the window of the restart, peak %s ms, back in %s s (%s); a miss is %s ms or more' % (f['id'], f['state'], s.get('before_ms'), s.get('windows_before'), s.get('first_ms'), s.get('peak_ms'), s.get('recovery_s'), s.get('note', ''), $MISS)")"
check "(h) the restart went in and the server came back on its port" hs "f['state'] == 'reverted' and f['verified'] is not False"
check "(h) report.json has the sessions' figures of the fault" hs "s and s['windows_before'] >= 3 and s['before_ms'] is not None"
check "(h) before the restart, later turns hit: under a miss's $MISS ms" hs "s['before_ms'] < $MISS"
check "(h) the restart's window: later turns miss their whole history (at least $MISS ms)" hs "s['first_ms'] >= $MISS and s['peak_ms'] >= s['first_ms']"
check "(h) the later turns came back, not in the restart's own window" \
	hs "s['recovery_s'] is not None and s['recovery_s'] > int(f['injected_elapsed_s']) + 1 - f['injected_elapsed_s']"
timing "(h) back within 4 s (a think time of 1 s and a window or two)" hs "s['recovery_s'] <= 4"
timing "(h) before: within 20 ms of the model's hit (10 + 0.2 x 56..71 words)" hs "21.2 - 0.5 <= s['before_ms'] <= 24.2 + 20"
check "(h) report.md's faults name it" grep -q "conversations: later turns' TTFT median [0-9.]* ms before, [0-9.]* ms in the first window after, at most [0-9.]*; back in" "$T/h/report.md"
check "(e) no fault, no sessions figure" python3 -c "import json; r=json.load(open('$T/e/report.json')); assert r['faults'] == []"
finish
