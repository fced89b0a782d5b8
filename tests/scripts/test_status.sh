#!/usr/bin/env bash
# test_status.sh - `gauntlet status DIR` on one screen: whether the
# controller is alive, where the run stands and what fails. A 60 s run
# (warmup 2 s, then steady) with the metrics endpoint on, every workload
# status shows figures for: null with one target that must fail
# (null.ticks <= 1 per scope) and one that passes, inference against a
# real `gauntlet target` with an slo, storage through two load agents
# (mpirun), training (gauntlet-train, 2 ranks, real mpirun), and a null
# fault injected at 5 s. About 6 s in:
#  - "controller: running (pid P ...)" with the controller's pid, the
#    failing target named with its measured value, and the count of
#    targets failing so far equal to the endpoint's gauntlet_targets_failing,
#    scraped just before and just after;
#  - each new line against what status did not compute itself: the phase
#    is the one the scenario's schedule has at the position status prints
#    (and the endpoint's gauntlet_phase_info), elapsed + remaining is the
#    scenario's duration and elapsed is the store's run.elapsed_ns; the
#    fault is the one injected, with its kind and since when (the store's
#    injected_scn_ns, the scenario's "at"), and the endpoint's
#    gauntlet_fault_active; the last window's figures equal that window's
#    rows in the store (requests, errors, good, bytes, ticks over the
#    windows table's real seconds) and, for the percentiles, the endpoint's
#    over="window" figures of the same window index; TTFT is at least the
#    target's configured first-token delay; the agents line has the
#    scenario's count and the store's counters and launchers;
#  - at most 30 lines;
#  - after a SIGKILL: the state is still "running" in the store, and the
#    first line of status says "stopped (controller not running; resume
#    with: gauntlet resume DIR)" (test_status_killed checks that screen).
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || skip "curl is needed to scrape the endpoint"
TTFT_MS=20
start_target tgt --ttft-ms $TTFT_MS --itl-ms 5 --output-tokens 8 --prefill-us-per-token 0
training_part
[ -n "$TRAINING" ] && TRAIN_TARGET=', "training.step_time_s.p99": "<= 2"'
AGENTS=
if command -v mpirun >/dev/null; then
	AGENTS=', "agents": { "launcher": "mpirun", "count": 2, "launcher_args": ["--oversubscribe"] }'
	AGENT_TARGET=', "agents.delivered_ratio": ">= 0.5"'
else
	part_skip agents "mpirun not installed (Debian openmpi-bin): no load agents"
fi
mkdir -p "$T/disk"
# six more faults, planned for later: seven in all, one more than status lists
LATER=
for k in 1 2 3 4 5 6; do
	LATER="$LATER, { \"id\": \"later-$k\", \"at\": \"$((32 + 4 * k))s\", \"for\": \"1s\", \"kind\": \"null\", \"target\": \"me\" }"
done
cat > "$T/sc.json" <<JSON
{ "name": "status", "duration": "60s", "window": "1s", "hosts": { "me": { "local": true } },
  "workloads": { "null": { "rate": 50 },
    "inference": { "endpoints": ["http://$ADDR/v1"], "api": "chat", "model": "gauntlet-target",
                   "arrival": { "mode": "poisson", "rate": 20 }, "output_tokens": 8, "timeout": "5s",
                   "slo": { "ttft_ms": 1000, "tpot_ms": 200 } },
    "storage": { "path": "$T/disk", "allowed_roots": ["$T"], "pattern": "mixed", "threads": 1, "bs": "64KiB",
                 "file_size": "4MiB", "files": 2, "read_pct": 50, "reserve": "0", "rate_cap": "8MiB" $AGENTS }
    $TRAINING },
  "phases": [ { "name": "warmup", "for": "2s" }, { "name": "steady", "for": "58s" } ],
  "faults": [ { "id": "null-st", "at": "5s", "for": "28s", "kind": "null", "target": "me",
                "params": { "marker": "$T/null.marker" } } $LATER ],
  "targets": { "steady": { "null.ticks": "<= 1", "null.tick_lag_ms.p99": "<= 5000",
                           "null.tick_lag_ms.max": ">= 100000", "null.tick_lag_ms.min": ">= 100000", "inference.throughput_rps": "<= 0.5",
                           "inference.output_tokens_per_s": "<= 1", "inference.ttft_ms.p50": "<= 1",
                           "inference.goodput": "<= 0.01",
                           "inference.ttft_ms.p99": "<= 5000", "inference.error_rate": "<= 0.5",
                           "storage.write_gbps": ">= 0.0005", "storage.read_gbps": ">= 0.0005" ${TRAIN_TARGET:-} ${AGENT_TARGET:-} },
               "degraded": { "null.tick_lag_ms.p99": "<= 5000" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } } }
JSON
"$GAUNTLET" validate "$T/sc.json" >"$T/validate.log" 2>&1 || { cat "$T/validate.log"; bad "the scenario validates"; finish; }
: > "$T/run.log"
"$GAUNTLET" run "$T/sc.json" --out "$T/run" --metrics-listen 0 > "$T/run.log" 2>&1 &
RUN=$!; PIDS+=("$RUN")
until_ok 10 grep -q 'metrics at http://' "$T/run.log"
URL=$(grep -o 'http://[0-9.:]*/metrics' "$T/run.log" | head -1)
check "the endpoint is up ($URL)" [ -n "$URL" ]
# at once, in the warmup (0 to 2 s): its phase by the schedule too
"$GAUNTLET" status "$T/run" > "$T/s0.txt" 2>&1
sed -n '/^timeline/,/^phase/p' "$T/s0.txt"
check "status in the first seconds: the phase the scenario's schedule has at the position it prints" python3 - "$T/s0.txt" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
def dur(s):
    u = {"m": 60e9, "s": 1e9, "ms": 1e6}
    return sum(int(a) * u[b] for a, b in re.findall(r"(\d+)(ms|m|s)", s))
pos = re.search(r"^timeline: (\S+) of", t, re.M)
ph = re.search(r"^phase: (\S+) \(", t, re.M)
want = "warmup" if pos and dur(pos.group(1)) < 2e9 else "steady"
print("position %s, phase %s, the schedule's %s" % (pos and pos.group(1), ph and ph.group(1), want))
sys.exit(not (pos and ph and ph.group(1) == want))
PY
# about 6 s in: the journal has null-st injected (at 5 s) and the store
# six windows (steady ones among them, where the targets fail)
check "the fault injected and six windows stored, status read then" until_ok 60 sql_is "$T/run/run.db" \
	"select (select state from faults where id = 'null-st') = 'injected' and (select count(*) from windows) >= 6" 1
failing() { sed -n 's/^gauntlet_targets_failing //p' "$1"; }
# a scrape of each window meanwhile: status reads the store's last
# complete window at some moment of its run (seconds, in the sanitizer
# build on a loaded machine), and the endpoint shows each window for one
# second; the endpoint is read until it shows a window not kept yet, and
# that scrape is kept, so one of them shows the window status shows
mkdir -p "$T/bg"
bg_scrapes() {
	local seen= w
	keep_new() {
		curl -s -m 5 -o "$T/bg.tmp" "$URL" || return 1
		w=$(sed -n 's/^gauntlet_last_window_index //p' "$T/bg.tmp")
		[ -n "$w" ] && [ "$w" != "$seen" ] || return 1
		seen=$w
		mv "$T/bg.tmp" "$T/bg/$(date +%s%N).txt"
	}
	while :; do until_ok 60 keep_new; done
}
bg_scrapes &
SCR=$!; PIDS+=("$SCR")
curl -s -m 2 -o "$T/a.txt" "$URL"
sql "$T/run/run.db" "select elapsed_ns, time_scale from run" > "$T/elapsed0.txt"
t0=$(date +%s%N)
"$GAUNTLET" status "$T/run" > "$T/s1.txt" 2>&1; src=$?
ms=$((($(date +%s%N) - t0) / 1000000))
sql "$T/run/run.db" "select elapsed_ns, time_scale from run" > "$T/elapsed1.txt"
curl -s -m 2 -o "$T/b.txt" "$URL"
kill "$SCR"; wait "$SCR" 2>/dev/null
w=$(sed -n 's/^last window \([0-9]*\) .*/\1/p' "$T/s1.txt")
for f in "$T"/a.txt "$T"/bg/*.txt "$T"/b.txt; do
	[ -n "$w" ] && [ "$(sed -n 's/^gauntlet_last_window_index //p' "$f")" = "$w" ] && cp "$f" "$T/same.txt"
done
cat "$T/s1.txt"
echo "(status shows window $w; $(ls "$T/bg" | wc -l) scrapes meanwhile)"
if ! kill -0 "$RUN" 2>/dev/null; then
	echo "the run ended before status read it (it should go on for 60 s): the end of its log, its warnings and errors:"
	tail -5 "$T/run.log"
	sql "$T/run/run.db" "select elapsed_ns, level, source, message from events where level in ('warn', 'error') order by seq" | tail -15
fi
a=$(failing "$T/a.txt"); b=$(failing "$T/b.txt")
# status only reads: the run goes on (a checkpoint on close would hold the
# writer's lock waiting for readers, seconds long, and a controller kept
# from writing stops with "store write failed")
check "the run goes on after status read its store (controller alive, no store write failed)" \
	bash -c 'kill -0 "$1" && ! grep -q "store write failed" "$2"' _ "$RUN" "$T/run.log"
# how long status and report took is shown, not judged (a loaded machine
# stretches it); that they only read is judged by the run going on
echo "status on the live store took ${ms} ms"
check "status on a live run exits 0 (got $src)" [ $src -eq 0 ]
# `gauntlet report` on the live run only reads its store too
t0=$(date +%s%N)
"$GAUNTLET" report "$T/run" > "$T/report.out" 2>&1; rrc=$?
rms=$((($(date +%s%N) - t0) / 1000000))
check "report on a live run exits 0 (got $rrc), report.json says running" \
	bash -c '[ "$1" -eq 0 ] && grep -q "\"state\":[[:space:]]*\"running\"" "$2/report.json"' _ "$rrc" "$T/run"
check "the run goes on after report read its store (controller alive, no store write failed)" \
	bash -c 'kill -0 "$1" && ! grep -q "store write failed" "$2"' _ "$RUN" "$T/run.log"
echo "report on the live store took ${rms} ms"
check "status names the live controller and its pid ($RUN)" grep -q "^controller: running (pid $RUN " "$T/s1.txt"
check "status names the failing target with its measured value" grep -qE "^  failing: steady null.ticks <= 1 \(measured [0-9]+\)" "$T/s1.txt"
got=$(sed -n 's/^targets: \([0-9]*\) failing so far.*/\1/p' "$T/s1.txt")
echo "endpoint: $a before, $b after; status: $got"
check "status's count of failing targets agrees with the endpoint's ($a/$b vs $got)" \
	bash -c "[ -n '$got' ] && [ -n '$a' ] && { [ '$got' = '$a' ] || [ '$got' = '$b' ]; }"
check "the passing target is not named" bash -c "! grep -q 'failing: steady null.tick_lag_ms.p99' '$T/s1.txt'"
check "one screen: at most 30 lines ($(wc -l < "$T/s1.txt"))" [ "$(wc -l < "$T/s1.txt")" -le 30 ]
check "a scrape of the same window as status's last ($w) was taken" [ -s "$T/same.txt" ]
# lists cut at 6 lines: 7 steady targets fail (the endpoint counts them
# above), 7 faults are planned (the store's faults table)
nf=$(grep -c '^  failing: ' "$T/s1.txt")
more=$(sed -n 's/^  \.\.\. and \([0-9]*\) more failing$/\1/p' "$T/s1.txt")
check "failing targets: 6 named, then '... and $more more failing' = the endpoint's count $a - 6" \
	[ "$nf" = 6 -a -n "$more" -a "$more" = "$((${a:-0} - 6))" -a "${a:-0}" -ge 7 ]
faults_db=$(sql "$T/run/run.db" "select count(*) from faults")
fl=$(sed -n '/^faults: /,/^last window/p' "$T/s1.txt" | grep -cE '^  [a-z]')
fmore=$(sed -n 's/^  \.\.\. and \([0-9]*\) more$/\1/p' "$T/s1.txt")
check "faults: the store's $faults_db in all, 6 listed, then '... and $fmore more'" \
	bash -c '[ "$1" = 7 ] && grep -q "^faults: 7 planned in all, 1 injected now$" "$4" && [ "$2" = 6 ] && [ "$3" = 1 ]' _ "$faults_db" "$fl" "$fmore" "$T/s1.txt"
check "faults: the one injected is listed first" bash -c 'sed -n "/^faults: /{n;p}" "$1" | grep -q "^  null-st .* injected since "' _ "$T/s1.txt"

# what status printed, and the ground truth beside it, into one JSON
python3 - "$T/s1.txt" "$T/same.txt" "$T/a.txt" "$T/b.txt" "$T/run/run.db" "$T/sc.json" "$T/elapsed0.txt" "$T/elapsed1.txt" > "$T/facts.json" <<'PY'
import json, re, sqlite3, sys
st, same, sa, sb, db, scp, el0, el1 = sys.argv[1:9]
text = open(st).read()
def dur(s):
    if s is None:
        return None
    units = {"d": 86400e9, "h": 3600e9, "m": 60e9, "s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1}
    parts = re.findall(r"(\d+)(ms|us|ns|d|h|m|s)", s)
    if "".join(a + b for a, b in parts) != s:
        return None
    return sum(int(a) * units[b] for a, b in parts)
def grab(rx, cast=str):
    m = re.search(rx, text, re.M)
    return [cast(x) for x in m.groups()] if m else None
def num(x):
    return float(x)
def scrape(path):
    out = {}
    try:
        for l in open(path):
            m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$', l.strip())
            if m and not l.startswith("#"):
                out[(m.group(1), tuple(sorted(re.findall(r'([a-zA-Z_]+)="([^"]*)"', m.group(3) or ""))))] = float(m.group(4))
    except OSError:
        pass
    return out
def fig(s, metric, stat):
    return s.get(("gauntlet_metric", (("metric", metric), ("over", "window"), ("stat", stat))))
S = {}
t = grab(r"^timeline: (\S+) of (\S+) \(scenario time\), (\S+) remaining, (\d+) window")
if t:
    S["elapsed_ns"], S["duration_ns"], S["remaining_ns"] = dur(t[0]), dur(t[1]), dur(t[2])
p = grab(r"^phase: (\S+) \((\S+) to (\S+), phase (\d+) of (\d+)\)$")
if p:
    S["phase"], S["phase_from_ns"], S["phase_to_ns"] = p[0], dur(p[1]), dur(p[2])
f = re.findall(r"^  (\S+) +(\S+) +injected since (\S+)$", text, re.M)
S["active"] = [[i, k, dur(s)] for i, k, s in f]
w = grab(r"^last window (\d+) \((\S+), (\S+) s of real time")
if w:
    S["window"], S["window_phase"], S["window_s"] = int(w[0]), w[1], float(w[2])
S["inference"] = grab(r"^  inference: (\S+) req/s, TTFT p50 (\S+) ms, p99 (\S+) ms, error rate (\S+), goodput (\S+)$", num)
S["training"] = grab(r"^  training: step time p50 (\S+) s, p99 (\S+) s, busbw p50 (\S+) GB/s$", num)
S["storage"] = grab(r"^  storage: read (\S+) GB/s, write (\S+) GB/s$", num)
S["null"] = grab(r"^  null: (\S+) ticks$", num)
S["agents"] = grab(r"^agents: (\d+) expected, (\d+) reporting, (\d+) missing in the last window; (\d+) lost, (\d+) relaunched so far; (\d+) launcher\(s\) not ended$", int)
# ground truth
G = {}
sc = json.load(open(scp))
G["duration_ns"] = dur(sc["duration"])
for k, path in (("store_elapsed_before_ns", el0), ("store_elapsed_after_ns", el1)):
    el, scale = open(path).read().strip().split("|")
    G[k] = int(el) * float(scale)
if "elapsed_ns" in S and S["elapsed_ns"] is not None:
    at = 0
    for ph in sc["phases"]:
        d = dur(ph["for"])
        if at <= S["elapsed_ns"] < at + d:
            G["phase"], G["phase_from_ns"], G["phase_to_ns"] = ph["name"], at, at + d
        at += d
G["endpoint_phases"] = sorted({dict(k[1])["phase"] for s in (scrape(sa), scrape(sb)) for k in s if k[0] == "gauntlet_phase_info"})
G["endpoint_active"] = sorted({dict(k[1])["id"] for s in (scrape(sa), scrape(sb)) for k in s if k[0] == "gauntlet_fault_active"})
c = sqlite3.connect(db)
G["faults"] = [[i, k, s, inj] for i, k, s, inj in c.execute("select id, kind, state, injected_scn_ns from faults where state='injected'")]
G["fault_at_ns"] = {f["id"]: dur(f["at"]) for f in sc["faults"]}
if "window" in S:
    idx = S["window"]
    s0, e0, ph = c.execute("select start_ns, end_ns, phase from windows where idx=?", (idx,)).fetchone()
    secs = (e0 - s0) / 1e9
    G["window_s"] = secs
    G["window_phase"] = sc["phases"][ph]["name"]
    cnt = dict(c.execute("select name, counter from window_metrics where idx=?", (idx,)).fetchall())
    req = cnt.get("inference.requests", 0)
    G["inference_rps"] = req / secs
    G["error_rate"] = cnt.get("inference.errors", 0) / req if req else None
    G["goodput"] = cnt.get("inference.good", 0) / req if req else None
    G["read_gbps"] = cnt.get("storage.read_bytes", 0) / 1e9 / secs
    G["write_gbps"] = cnt.get("storage.write_bytes", 0) / 1e9 / secs
    G["null_ticks"] = cnt.get("null.ticks")
    G["agents_expected"], G["agents_missing"] = cnt.get("agents.expected"), cnt.get("agents.missing")
    tot = dict(c.execute("select name, sum(counter) from window_metrics group by name").fetchall())
    G["agents_lost"], G["agents_relaunched"] = tot.get("agents.lost", 0), tot.get("agents.relaunched", 0)
    G["agent_launchers_open"] = c.execute("select count(*) from children where source='agents' and ended_wall_ns is null").fetchone()[0]
    sm = scrape(same)
    G["scrape_window"] = sm.get(("gauntlet_last_window_index", ()))
    G["ttft_p50"], G["ttft_p99"] = fig(sm, "inference.ttft_ms", "p50"), fig(sm, "inference.ttft_ms", "p99")
    G["step_p50"], G["step_p99"] = fig(sm, "training.step_time_s", "p50"), fig(sm, "training.step_time_s", "p99")
    G["busbw_p50"] = fig(sm, "training.busbw_gbps", "p50")
    G["scrape_rps"] = fig(sm, "inference.throughput_rps", "value")
json.dump({"s": S, "g": G}, sys.stdout, indent=1)
PY
F=$T/facts.json
cat "$F"
# printed with %.6g: equal to 6 significant digits
CLOSE='(lambda a, b: a is not None and b is not None and abs(a - b) <= 1e-5 * max(abs(a), abs(b), 1e-12))'
check "timeline: elapsed + remaining = the scenario's duration (60s)" json "$F" \
	"r['s']['elapsed_ns'] is not None and r['s']['elapsed_ns'] + r['s']['remaining_ns'] == r['g']['duration_ns'] == r['s']['duration_ns']"
check "timeline: elapsed is the store's run.elapsed_ns x time scale (cut to the second), between readings just before and after" json "$F" \
	"r['g']['store_elapsed_before_ns'] // 1e9 * 1e9 <= r['s']['elapsed_ns'] <= r['g']['store_elapsed_after_ns'] and r['s']['elapsed_ns'] >= 5e9"
check "phase: the scenario's schedule at that position (steady, 2s to 1m)" json "$F" \
	"r['s'].get('phase') == r['g'].get('phase') == 'steady' and r['s']['phase_from_ns'] == r['g']['phase_from_ns'] and r['s']['phase_to_ns'] == r['g']['phase_to_ns']"
check "phase: the endpoint's gauntlet_phase_info agrees" json "$F" "r['g']['endpoint_phases'] == [r['s'].get('phase')]"
check "active faults: the store's injected fault, its kind, since its injected_scn_ns (cut to the second)" json "$F" \
	"[[i, k] for i, k, s in r['s']['active']] == [[i, k] for i, k, _, _ in r['g']['faults']] == [['null-st', 'null']] and
	 r['s']['active'][0][2] == r['g']['faults'][0][3] // 1000000000 * 1000000000"
check "active faults: since no sooner than the scenario's at (5s), within 1 s of it" json "$F" \
	"0 <= r['s']['active'][0][2] - r['g']['fault_at_ns']['null-st'] < 1e9"
check "active faults: the endpoint's gauntlet_fault_active names the same" json "$F" "r['g']['endpoint_active'] == ['null-st']"
check "last window: its phase and real seconds are the windows table's" json "$F" \
	"r['s']['window_phase'] == r['g']['window_phase'] and $CLOSE(r['s']['window_s'], r['g']['window_s'])"
check "last window: requests/s = the store's inference.requests / its seconds (and the endpoint's)" json "$F" \
	"r['s']['inference'] and $CLOSE(r['s']['inference'][0], r['g']['inference_rps']) and $CLOSE(r['s']['inference'][0], r['g']['scrape_rps']) and r['g']['inference_rps'] > 0"
check "last window: error rate and goodput = the store's errors and good over requests" json "$F" \
	"$CLOSE(r['s']['inference'][3], r['g']['error_rate']) and $CLOSE(r['s']['inference'][4], r['g']['goodput'])"
check "last window: TTFT p50 and p99 = the endpoint's for window $w" json "$F" \
	"r['g']['scrape_window'] == r['s']['window'] and $CLOSE(r['s']['inference'][1], r['g']['ttft_p50']) and $CLOSE(r['s']['inference'][2], r['g']['ttft_p99'])"
check "last window: TTFT p50 at least the target's first-token delay ($TTFT_MS ms)" json "$F" "r['s']['inference'][1] >= $TTFT_MS * 0.999"
check "last window: storage read and write GB/s = the store's bytes / 1e9 / its seconds" json "$F" \
	"r['s']['storage'] and $CLOSE(r['s']['storage'][0], r['g']['read_gbps']) and $CLOSE(r['s']['storage'][1], r['g']['write_gbps']) and r['g']['write_gbps'] > 0"
check "last window: null ticks = the store's null.ticks" json "$F" "r['s']['null'] and r['s']['null'][0] == r['g']['null_ticks'] > 0"
if [ -n "$TRAINING" ]; then
	check "last window: training step time p50, p99 and busbw p50 = the endpoint's" json "$F" \
		"r['s']['training'] and $CLOSE(r['s']['training'][0], r['g']['step_p50']) and $CLOSE(r['s']['training'][1], r['g']['step_p99']) and $CLOSE(r['s']['training'][2], r['g']['busbw_p50'])"
fi
if [ -n "$AGENTS" ]; then
	check "agents: the scenario's 2 expected, reporting and missing as the store's counters, launchers as its children rows" json "$F" \
		"r['s']['agents'] and r['s']['agents'][0] == r['g']['agents_expected'] == 2 and r['s']['agents'][2] == r['g']['agents_missing'] and
		 r['s']['agents'][1] == 2 - r['g']['agents_missing'] and r['s']['agents'][3:5] == [r['g']['agents_lost'], r['g']['agents_relaunched']] and
		 r['s']['agents'][5] == r['g']['agent_launchers_open'] == 2"
fi
kill -9 "$RUN"; wait "$RUN" 2>/dev/null
"$GAUNTLET" status "$T/run" > "$T/s2.txt" 2>&1; src=$?
cat "$T/s2.txt"
check "after SIGKILL the store still says running" sql_is "$T/run/run.db" "select state from run" running
check "status's first line says the run stopped, the controller is not running, and how to resume" \
	bash -c 'head -1 "$1" | grep -qx "run .* (status): stopped (controller not running; resume with: gauntlet resume $2)"' _ "$T/s2.txt" "$T/run"
finish
