#!/usr/bin/env bash
# test_prefix_cache.sh - the prefix cache figures (docs/metrics.md, "Prefix
# cache") against a ground truth: `gauntlet target --prefix-cache-blocks`
# (docs/target.md, "Prefix cache") serves a Mooncake trace written here,
# whose rows share leading hash ids (gauntlet turns each id into the same
# 512 words, gl_prompt_synth). The test computes each row's cached tokens
# itself, in python, from the trace alone: a token is (hash id, place in
# its block), or (row, place) past the ids (those words come from the
# seed and the request's number in its run); blocks of 16, each keyed by
# every token up to its end; a lookup of the leading run, at most
# (prompt - 1) / 16 blocks; then the row's blocks put in, last to first,
# into an LRU of the server's capacity.
#  (a) a cache that never evicts, streaming chat: inference.cached_tokens,
#      prompt_tokens and prefix_hit_ratio exactly the truth, as are the
#      server's vllm:prefix_cache_* counters; each request's TTFT from
#      send not below the model's, ttft + prefill x uncached tokens (every
#      build), and at the median near it, hits and misses apart (timing);
#      a target on prefix_hit_ratio passes at the truth;
#  (b) a small cache whose LRU evicts, non-streaming completions: the
#      figures the LRU truth, lower than (a)'s; a target above it fails;
#  (c) the cache outlives a run and dies with the server: the first rows
#      again hit in full on the warm server, and after its restart (same
#      port) the first one misses: its TTFT not below a miss's;
#  (d) a server without a cache says nothing: the cache's figures absent
#      (unknown, not 0), prompt_tokens still counted, a target on the hit
#      ratio fails for no data.
# (a), (b) and (d) run side by side, about 8 s; (c) two short runs.
source "$(dirname "$0")/lib.sh"

TTFT=10 PREFILL=100 BLOCK=16 SMALL=150 # ms, us per token, tokens, blocks
cat >"$T/truth.py" <<'PY'
# truth.py TRACE CAPACITY [WARM_TRACE]: each row's prompt and cached tokens
# as JSON {"prompt": [...], "cached": [...]} (after WARM_TRACE's rows went
# through the same cache, when given).
import collections, json, sys
BLOCK, HASH_BLOCK = 16, 512  # the target's block; gauntlet's words per hash id
def rows(path):
    return [json.loads(l) for l in open(path) if l.strip()]
def tokens(i, row):
    ids, n = row["hash_ids"], row["input_length"]
    return [("h", ids[p // HASH_BLOCK], p % HASH_BLOCK) if p // HASH_BLOCK < len(ids) else ("u", i, p)
            for p in range(n)]
def keys(toks):
    out, k = [], None
    for b in range(len(toks) // BLOCK):
        k = hash((k, tuple(toks[b * BLOCK:(b + 1) * BLOCK])))
        out.append(k)
    return out
def run(trace, lru, cap):
    res = {"prompt": [], "cached": []}
    for i, row in enumerate(rows(trace)):
        toks = tokens(i, row)
        ks, hit = keys(toks), 0
        while hit < min(len(ks), (len(toks) - 1) // BLOCK) and ks[hit] in lru:
            hit += 1
        for k in reversed(ks):
            lru[k] = True
            lru.move_to_end(k)
            if len(lru) > cap:
                lru.popitem(last=False)
        res["prompt"].append(len(toks))
        res["cached"].append(hit * BLOCK)
    return res
lru, cap = collections.OrderedDict(), int(sys.argv[2])
if len(sys.argv) > 3:
    run(sys.argv[3], lru, cap)
print(json.dumps(run(sys.argv[1], lru, cap)))
PY

# The trace: 32 rows 150 ms apart. Prompts of their own (misses); three
# system prompts (1 or 2 hash ids) and conversations on them that go on
# (their ids and one more) or start; prompts that end inside a hash
# block, or run past the ids.
python3 - "$T" <<'PY'
import json, random, sys
T = sys.argv[1]
rng = random.Random(7)
systems, convs, nid, out = [[1, 2], [3], [4, 5]], [], 100, []
for i in range(32):
    r = rng.random()
    if r < 0.25:  # a prompt of its own: a miss
        c = [nid, nid + 1, nid + 2][:rng.choice([2, 3])]; nid += 3
    elif convs and r < 0.7:
        c = rng.choice(convs)
        if len(c) < 5:
            c.append(nid); nid += 1
    else:
        c = list(rng.choice(systems)) + [nid]; nid += 1
        convs.append(c)
    ids = list(c)
    n = 512 * len(ids) - rng.choice([0, 0, 0, 200, 300]) + rng.choice([0, 0, 40])
    out.append({"timestamp": i * 150, "input_length": n, "output_length": 4, "hash_ids": ids})
with open(T + "/trace.jsonl", "w") as f:
    f.writelines(json.dumps(r) + "\n" for r in out)
with open(T + "/first.jsonl", "w") as f:  # (c): the first three rows again
    f.writelines(json.dumps(r) + "\n" for r in out[:3])
PY
python3 "$T/truth.py" "$T/trace.jsonl" 1000000 >"$T/truth_a.json"
python3 "$T/truth.py" "$T/trace.jsonl" $SMALL >"$T/truth_b.json"
python3 "$T/truth.py" "$T/first.jsonl" 1000000 "$T/trace.jsonl" >"$T/truth_warm.json"
python3 "$T/truth.py" "$T/first.jsonl" 1000000 >"$T/truth_cold.json"
# truth FILE 'python over t': a figure of a truth
truth() { python3 -c "import json; t=json.load(open('$1')); print($2)"; }
RATIO_A=$(truth "$T/truth_a.json" "sum(t['cached']) / sum(t['prompt'])")
RATIO_B=$(truth "$T/truth_b.json" "sum(t['cached']) / sum(t['prompt'])")
echo "truth: (a) never evicting: $(truth "$T/truth_a.json" "'%d of %d prompt tokens cached, %d of %d rows hit' % (sum(t['cached']), sum(t['prompt']), sum(c > 0 for c in t['cached']), len(t['cached']))"), ratio $RATIO_A"
echo "truth: (b) LRU of $SMALL blocks: $(truth "$T/truth_b.json" "'%d cached' % sum(t['cached'])"), ratio $RATIO_B"
check "the trace has hits and misses, and the small cache's LRU loses some of them" \
	python3 -c "assert 0.3 < $RATIO_B < $RATIO_A - 0.05 < 0.95, ($RATIO_A, $RATIO_B)"

FLAGS="--ttft-ms $TTFT --prefill-us-per-token $PREFILL --itl-ms 2 --max-seqs 256"
start_target big $FLAGS --prefix-cache-blocks 1000000 --prefix-block-tokens $BLOCK
BIG=$ADDR BIG_PID=${PIDS[-1]}
start_target small $FLAGS --prefix-cache-blocks $SMALL
SMALL_ADDR=$ADDR
start_target none $FLAGS
NONE=$ADDR

# sc NAME ADDR TRACE 'extra inference keys' 'targets'
sc() {
	python3 - "$T" "$@" <<'PY'
import json, sys
T, name, addr, trace, extra, targets = sys.argv[1:]
inf = {"endpoints": ["http://%s/v1" % addr], "model": "gauntlet-target", "timeout": "10s",
       "trace": trace, "trace_format": "mooncake", "arrival": {"mode": "trace", "loop": False}}
inf.update(json.loads("{" + extra + "}"))
tg = {"inference.ttft_ms.p99": "<= 5000", "inference.error_rate": "<= 0"}
tg.update(json.loads("{" + targets + "}"))
json.dump({"name": "prefix-" + name, "duration": "6s" if "trace.jsonl" in trace else "2s", "window": "1s",
           "store": {"requests": "all"}, "workloads": {"inference": inf}, "targets": {"steady": tg}},
          open("%s/%s.json" % (T, name), "w"), indent=1)
PY
}
sc a "$BIG" "$T/trace.jsonl" '' "\"inference.prefix_hit_ratio\": \">= $(python3 -c "print($RATIO_A - 1e-9)")\""
sc b "$SMALL_ADDR" "$T/trace.jsonl" '"api": "completions", "stream": false' "\"inference.prefix_hit_ratio\": \">= $RATIO_A\""
sc d "$NONE" "$T/first.jsonl" '' '"inference.prefix_hit_ratio": ">= 0.1"'
run_all a b d

# m RUN 'python over i = metrics.inference, t = the truth of RUN'
m() {
	python3 -c "
import json,sys
i=json.load(open('$T/$1/report.json'))['metrics']['inference']
t=json.load(open('$T/truth_$1.json')) if '$1' in 'ab' else None
v=($2)
if v is not True: print(v)
sys.exit(0 if v else 1)"
}
# target RUN METRIC 'python over x, the target's row'
target() {
	python3 -c "
import json,sys
x=[x for x in json.load(open('$T/$1/report.json'))['targets'] if x['metric']=='$2']
assert len(x)==1, x
x=x[0]; v=($3)
if v is not True: print(v)
sys.exit(0 if v else 1)"
}
# metric ADDR NAME: a counter of the server's /metrics
metric() { curl -s --max-time 5 "http://$1/metrics" | sed -n "s/^$2 //p"; }

for n in a b; do
	echo "($n) measured: $(m $n "'cached %s of %s prompt tokens (queried %s), hit ratio %s; truth %d of %d, %s' % (i.get('cached_tokens'), i.get('prompt_tokens'), i.get('cache_queried_tokens'), i.get('prefix_hit_ratio'), sum(t['cached']), sum(t['prompt']), sum(t['cached']) / sum(t['prompt']))")"
	check "($n) every row answered, none failed" m $n "i['requests'] == len(t['prompt']) and i['errors'] == 0"
	check "($n) cached_tokens is the truth's exactly" m $n "i['cached_tokens'] == sum(t['cached'])"
	check "($n) prompt_tokens and cache_queried_tokens are the trace's" \
		m $n "i['prompt_tokens'] == i['cache_queried_tokens'] == sum(t['prompt'])"
	check "($n) prefix_hit_ratio is the truth's" m $n "abs(i['prefix_hit_ratio'] - sum(t['cached']) / sum(t['prompt'])) < 1e-12"
done
A=$(truth "$T/truth_a.json" "'%d, %d' % (sum(t['cached']), sum(t['prompt']))")
SERVED="$(metric "$BIG" vllm:prefix_cache_hits_total), $(metric "$BIG" vllm:prefix_cache_queries_total)"
check "(a) the server's vllm:prefix_cache_hits_total, queries_total ($SERVED) are the truth's $A" [ "$SERVED" = "$A" ]
check "(b) the small server holds at most its $SMALL blocks" [ "$(metric "$SMALL_ADDR" gauntlet_target_prefix_cache_blocks)" = $SMALL ]
check "(a) the target on prefix_hit_ratio at the truth passes" \
	target a inference.prefix_hit_ratio "x['pass'] and abs(x['measured'] - $RATIO_A) < 1e-12"
check "(a) the run passes (exit ${rcs[0]})" [ "${rcs[0]}" -eq 0 ]
check "(b) the target above its LRU truth fails" \
	target b inference.prefix_hit_ratio "not x['pass'] and abs(x['measured'] - $RATIO_B) < 1e-12"
check "(b) the run fails for it alone (exit ${rcs[1]})" \
	python3 -c "import json; r=json.load(open('$T/b/report.json')); assert r['verdict'] == 'fail' and [x['metric'] for x in r['targets'] if not x['pass']] == ['inference.prefix_hit_ratio'] and ${rcs[1]} == 1"
check "report.md shows the hit ratio" grep -q "prefix cache hit ratio.*${RATIO_A:0:6}" "$T/a/report.md"

# Each request of (a) against the model: TTFT from send = ttft + prefill x
# (prompt - cached), never less (the server cannot answer early), and
# near it at the median, hits (some tokens cached) and misses apart.
python3 - "$T" $TTFT $PREFILL >"$T/ttft.txt" <<'PY'
import json, sqlite3, statistics, sys
T, ttft, prefill = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
t = json.load(open(T + "/truth_a.json"))
rows = sqlite3.connect(T + "/a/run.db").execute(
    "select input_tokens, (t_first_token_ns - t_send_ns) / 1e6 from requests order by t_intended_ns").fetchall()
assert [r[0] for r in rows] == t["prompt"], "rows out of the trace's order"
model = [ttft + prefill * (p - c) / 1000 for p, c in zip(t["prompt"], t["cached"])]
d = {"hit": [], "miss": []}
for (p, got), want, c in zip(rows, model, t["cached"]):
    d["hit" if c else "miss"].append((got, want))
print("below", sum(got < want - 0.5 for got, want, in d["hit"] + d["miss"]))
for k in ("hit", "miss"):
    print(k, len(d[k]), statistics.median(g for g, w in d[k]), statistics.median(w for g, w in d[k]),
          statistics.median(g - w for g, w in d[k]))
PY
cat "$T/ttft.txt"
read -r _ BELOW < <(grep ^below "$T/ttft.txt")
read -r _ NH GOT_H WANT_H OVER_H < <(grep ^hit "$T/ttft.txt")
read -r _ NM GOT_M WANT_M OVER_M < <(grep ^miss "$T/ttft.txt")
echo "(a) TTFT from send, median: $NH hits $GOT_H ms (model $WANT_H ms), $NM misses $GOT_M ms (model $WANT_M ms)"
check "(a) no request's TTFT below the model's ttft + prefill x uncached tokens ($BELOW below)" [ "$BELOW" = 0 ]
check "(a) hits and misses both there ($NH, $NM), the misses' model TTFT twice the hits' at least" \
	python3 -c "assert $NH >= 5 and $NM >= 5 and $WANT_M > 2 * $WANT_H"
timing "(a) hits: median TTFT within 20 ms over the model (+$OVER_H ms)" python3 -c "assert $OVER_H <= 20"
timing "(a) misses: median TTFT within 20 ms over the model (+$OVER_M ms)" python3 -c "assert $OVER_M <= 20"
timing "(a) hits are faster than misses by the model's amount ($WANT_M - $WANT_H ms), within 20 ms" \
	python3 -c "assert abs(($GOT_M - $GOT_H) - ($WANT_M - $WANT_H)) <= 20"

# (d) a server that does not say
check "(d) no cache figures from a server without a cache" m d "not any(k in i for k in ('cached_tokens', 'cache_queried_tokens', 'prefix_hit_ratio'))"
check "(d) prompt_tokens still counted" m d "i['prompt_tokens'] == $(truth "$T/truth_cold.json" "sum(t['prompt'])")"
check "(d) a target on the hit ratio fails for no data" \
	target d inference.prefix_hit_ratio "not x['pass'] and x['measured'] is None and 'no data' in x['note']"
check "(d) the run fails for it (exit ${rcs[2]})" [ "${rcs[2]}" -eq 1 ]

# (c) the first rows again on the warm server, then on the same server
# restarted: the cache is lost with the process.
PORT=${BIG##*:}
sc warm "$BIG" "$T/first.jsonl" '' ''
"$GAUNTLET" run "$T/warm.json" --out "$T/warm" >"$T/warm.log" 2>&1
check "(c) warm: the first rows hit as the truth says ($(truth "$T/truth_warm.json" "t['cached']"))" \
	python3 -c "import json; i=json.load(open('$T/warm/report.json'))['metrics']['inference']; assert i['cached_tokens'] == $(truth "$T/truth_warm.json" "sum(t['cached'])") > 0, i"
kill -TERM "$BIG_PID"
check "(c) the target stops on SIGTERM" wait_log "$T/big.log" "target: stopped" 10
start_target big $FLAGS --prefix-cache-blocks 1000000 --prefix-block-tokens $BLOCK --listen "127.0.0.1:$PORT"
check "(c) the target restarted on its port ($ADDR)" [ "$ADDR" = "$BIG" ]
"$GAUNTLET" run "$T/warm.json" --out "$T/cold" >"$T/cold.log" 2>&1
check "(c) restarted: the rows hit only as a cold cache's truth says ($(truth "$T/truth_cold.json" "t['cached']"))" \
	python3 -c "import json; i=json.load(open('$T/cold/report.json'))['metrics']['inference']; assert i['cached_tokens'] == $(truth "$T/truth_cold.json" "sum(t['cached'])"), i"
FIRST=$(python3 -c "
import sqlite3; print(sqlite3.connect('$T/cold/run.db').execute('select (t_first_token_ns - t_send_ns) / 1e6 from requests order by t_intended_ns').fetchone()[0])")
MISS=$(truth "$T/truth_cold.json" "$TTFT + $PREFILL * t['prompt'][0] / 1000")
check "(c) restarted: the first request missed: TTFT $FIRST ms, not below a miss's $MISS ms" python3 -c "assert $FIRST >= $MISS - 0.5"
finish
