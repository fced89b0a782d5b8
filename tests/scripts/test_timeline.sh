#!/usr/bin/env bash
# test_timeline.sh - every timeline item in the reports of real short runs.
#
# 1. A storage run on a temp dir (checkpoint writes, buffered), 8 min of
#    scenario time at --time-scale 60 (8 s), 1 s windows, with two spikes:
#    A, 4 threads every 2m from 3m (past its every) for 1m30s, at 3m, 5m and
#    7m; B, 2 threads every 30s from 0 for 5s, 16 times. Then:
#    - report.html's Timeline section and report.md's Timeline table list
#      A's three spikes and B's first three and one row for its other 13,
#      at the scenario and real times the scenario gives (written out
#      below);
#    - every chart of report.html shades each spike: its spike rects are
#      the runs of pixel columns in which a spike is on, computed here from
#      the scenario and the chart's span (the scenario's duration, or the
#      store's last window end if later), each titled with the spike;
#    - the spike ran then: in the store's event log, the storage workload
#      went to 4 active threads in each of A's three spikes, each time at
#      or after the spike's start (scenario time: elapsed x 60), and left
#      4 threads only at or after its end.
# 2. With mpirun: the same workload through 2 load agents (2 min at 60x):
#    report.md and report.html have the timeline row for their launch and
#    each agent's launch command, the same as the command the run started
#    (the store's children rows, what the launcher was given).
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/disk"
storage() { # EXTRA-JSON
	cat <<JSON
"storage": { "path": "$T/disk", "allowed_roots": ["$T"], "pattern": "checkpoint_write", "threads": 1,
             "bs": "64KiB", "file_size": "4MiB", "files": 4, "direct": false, "reserve": "0" $1 }
JSON
}
cat > "$T/sc.json" <<JSON
{ "name": "timeline", "duration": "8m", "window": "1s",
  "workloads": { $(storage ', "spikes": [ { "every": "2m", "start": "3m", "for": "1m30s", "threads": 4 },
                                            { "every": "30s", "for": "5s", "threads": 2 } ]') },
  "store": { "events": "debug" },
  "targets": { "steady": { "storage.write_gbps": ">= 0.00001" } } }
JSON
GAUNTLET_PDF=off "$GAUNTLET" run "$T/sc.json" --out "$T/run" --time-scale 60 >"$T/run.log" 2>&1; rc=$?
check "the run ends with a verdict (exit 0 or 1, got $rc)" [ $rc -le 1 ]
log_unless $rc 0 "$T/run.log"
# the spike rows as SCENARIO TIME|REAL TIME|EVENT, in time order
WANT="0s|0s|spike 1 of 16, workloads.storage.spikes[1]: 2 thread(s), bs 64KiB, for 5s (to 5s)
30s|500ms|spike 2 of 16, workloads.storage.spikes[1]: 2 thread(s), bs 64KiB, for 5s (to 35s)
1m|1s|spike 3 of 16, workloads.storage.spikes[1]: 2 thread(s), bs 64KiB, for 5s (to 1m5s)
1m30s|1s500ms|spike workloads.storage.spikes[1] goes on every 30s from 0s for 5s: 13 more, the last at 7m30s (16 in all)
3m|3s|spike 1 of 3, workloads.storage.spikes[0]: 4 thread(s), bs 64KiB, for 1m30s (to 4m30s)
5m|5s|spike 2 of 3, workloads.storage.spikes[0]: 4 thread(s), bs 64KiB, for 1m30s (to 6m30s)
7m|7s|spike 3 of 3, workloads.storage.spikes[0]: 4 thread(s), bs 64KiB, for 1m30s (to 8m30s)"
# (report.md escapes '[' and ']' in text: "spikes\[0\]")
rows_md() { sed -n 's/^| \([0-9a-z]*\) | \([0-9a-z]*\) | \(spike .*\) |$/\1|\2|\3/p' "$1" | sed 's/\\\([][]\)/\1/g'; }
rows_html() {
	python3 - "$1" <<'PY'
import html, re, sys
h = open(sys.argv[1], encoding="utf-8").read()
sec = h[h.index('<h2 id="timeline">'):h.index('<h2 id="faults">')]
for m in re.finditer(r'<tr class="tl-spikes?"><td class="n">([^<]*)</td><td class="n">([^<]*)</td><td>([^<]*)</td></tr>', sec):
    print("%s|%s|%s" % (m.group(1), m.group(2), html.unescape(m.group(3))))
PY
}
got=$(rows_md "$T/run/report.md")
[ "$got" = "$WANT" ] || printf 'report.md has:\n%s\n' "$got"
check "report.md's Timeline: A at 3m, 5m, 7m; B's first three and its other 13 in one row" [ "$got" = "$WANT" ]
got=$(rows_html "$T/run/report.html")
[ "$got" = "$WANT" ] || printf 'report.html has:\n%s\n' "$got"
check "report.html's Timeline: the same rows" [ "$got" = "$WANT" ]
check "report.html's Timeline: in time order with the phase and the end" python3 - "$T/run/report.html" <<'PY'
import re, sys
h = open(sys.argv[1], encoding="utf-8").read()
sec = h[h.index('<h2 id="timeline">'):h.index('<h2 id="faults">')]
u = {"m": 60, "s": 1}
t = [sum(int(a) * u[b] for a, b in re.findall(r"(\d+)([ms])", x)) for x in re.findall(r'<tr class="tl-[a-z]+"><td class="n">([^<]*)</td>', sec)]
print(t)
sys.exit(not (t == sorted(t) and len(t) == 9 and "phase &#39;steady&#39; starts" in sec and "<td>end</td>" in sec))
PY
check "report.html's legend names the spike band" grep -q '</i>spike (workload load, as planned)</span>' "$T/run/report.html"
check "every chart shades each spike over the pixel columns it is on in, titled with the spike" \
	python3 - "$T/run/report.html" "$T/run/run.db" <<'PY'
import re, sqlite3, sys
h = open(sys.argv[1], encoding="utf-8").read()
db = sqlite3.connect(sys.argv[2])
S = 10**9
dur = 8 * 60 * S
last = db.execute("select max(scn_end_ns) from windows").fetchone()[0] or 0
t1 = float(max(dur, last))
ML, MT, PW, PH = 64, 8, 1100, 220
spikes = [(180 * S, 120 * S, 90 * S, "workloads.storage.spikes[0]: 4 thread(s), bs 64KiB, every 2m from 3m for 1m30s (3 in the run)"),
          (0, 30 * S, 5 * S, "workloads.storage.spikes[1]: 2 thread(s), bs 64KiB, every 30s from 0s for 5s (16 in the run)")]
want = []
for start, every, length, title in spikes:
    occ = [start + k * every for k in range(1000) if start + k * every < dur]
    cols = [k for k in range(PW)
            if any(o < int(t1 * (k + 1) / PW) and o + length > int(t1 * k / PW) for o in occ)]
    runs, r0 = [], None
    for k in range(PW + 1):
        on = k in cols
        if on and r0 is None:
            r0 = k
        if not on and r0 is not None:
            runs.append('<rect class="spk" x="%d" y="%d" width="%d" height="%d"><title>spike %s</title></rect>'
                        % (ML + r0, MT, k - r0, PH, title))
            r0 = None
    want += runs
charts = re.findall(r'<svg id="(chart-[^"]*)".*?</svg>', h, re.S)
bad = []
for c in charts:
    svg = re.search(r'<svg id="%s".*?</svg>' % c, h, re.S).group(0)
    got = re.findall(r'<rect class="spk".*?</rect>', svg)
    if got != want:
        bad.append(c)
print("%d chart(s), %d spike rect(s) each (3 of A, 16 of B)%s" % (len(charts), len(want), ": wrong in " + " ".join(bad) if bad else ""))
sys.exit(not (charts and len(want) == 19 and not bad))
PY
check "the spike ran then: 4 active threads in each of A's spikes, from at or after its start, until at or after its end" \
	python3 - "$T/run/run.db" <<'PY'
import re, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
S = 10**9
ev = [(e * 60, int(m.group(1))) for e, msg in
      db.execute("select elapsed_ns, message from events where source='storage' order by seq")
      for m in [re.match(r"(\d+) active thread\(s\)", msg)] if m]
print([(round(t / S, 2), n) for t, n in ev])
starts = [180 * S, 300 * S, 420 * S]
seen = set()
for i, (t, n) in enumerate(ev):
    if n != 4:
        continue
    k = [j for j, s in enumerate(starts) if s <= t < s + 120 * S]
    if not k:
        sys.exit("4 threads at %.2f s of scenario time, in no spike of A" % (t / S))
    seen.add(k[0])
    nxt = next((u for u, m in ev[i + 1:] if m != 4), None)
    if nxt is not None and nxt < starts[k[0]] + 90 * S:
        sys.exit("left 4 threads at %.2f s, before the spike's end" % (nxt / S))
sys.exit(not (seen == {0, 1, 2}))
PY

# ---- 2. agents ---------------------------------------------------------------------
if command -v mpirun >/dev/null; then
	cat > "$T/ag.json" <<JSON
{ "name": "timeline-agents", "duration": "2m", "window": "1s",
  "workloads": { $(storage ', "agents": { "launcher": "mpirun", "count": 2, "launcher_args": ["--oversubscribe"] }') },
  "targets": { "steady": { "storage.write_gbps": ">= 0.00001", "agents.delivered_ratio": ">= 0.5" } } }
JSON
	GAUNTLET_PDF=off "$GAUNTLET" run "$T/ag.json" --out "$T/ag" --time-scale 60 >"$T/ag.log" 2>&1; rc=$?
	check "the agents' run ends with a verdict (exit 0 or 1, got $rc)" [ $rc -le 1 ]
	log_unless $rc 0 "$T/ag.log"
	sql "$T/ag/run.db" "select what from children where source = 'agents' order by seq" >"$T/launched.txt"
	check "report.md: the launch at 0, then each agent's command, the one the run started (the store's children rows)" \
		bash -c 'grep -q "^| 0s | 0s | launch 2 storage agent(s) through mpirun, before the clock starts" "$1" &&
			[ "$(sed -n "s/^| storage | [0-9] of 2 | (the launcher.s choice) | \`\(.*\)\` |$/\1/p" "$1")" = "$(cat "$2")" ] &&
			[ "$(wc -l <"$2")" -eq 2 ]' _ "$T/ag/report.md" "$T/launched.txt"
	check "report.html: the same" python3 - "$T/ag/report.html" "$T/launched.txt" <<'PY'
import html, re, sys
h = open(sys.argv[1], encoding="utf-8").read()
sec = h[h.index('<h2 id="timeline">'):h.index('<h2 id="faults">')]
cmds = [html.unescape(c) for c in re.findall(r"<tr><td>storage</td><td class=\"n\">\d of 2</td><td>[^<]*</td><td><code>([^<]*)</code></td></tr>", sec)]
launched = open(sys.argv[2]).read().splitlines()
print(cmds)
sys.exit(not ('<tr class="tl-agents"><td class="n">0s</td><td class="n">0s</td><td>launch 2 storage agent(s) through mpirun' in sec
              and cmds == launched and len(cmds) == 2))
PY
else
	part_skip agents "mpirun not installed (Debian openmpi-bin): no load agents"
fi
finish
