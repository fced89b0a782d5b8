#!/usr/bin/env bash
# test_phases.sh - per-phase figures are right in every report. One store
# (inference against a real `gauntlet target`, three phases, the last at 3x
# load) is rendered, and each phase's figures are read back from
# report.html's and report.md's Phases tables and report.json's phases[], and computed
# independently from the store's own rows: request and error counts and
# real seconds from the windows table and window_metrics counters, TTFT
# percentiles by nearest rank over the per-request rows (t_first_token -
# t_intended, as the open loop measures it; the scenario keeps every row:
# "store": {"requests": "all"}). The two reports must agree
# with each other and with that ground truth, and no measured figure may be
# shown as 0 (in the HTML table) or be missing (report.md's per-phase
# figures).
. "$(dirname "$0")/lib.sh"
start_target target --ttft-ms 30 --itl-ms 2 --output-tokens 8
cat > "$T/sc.json" <<JSON
{ "name": "phases", "duration": "15s", "window": "1s", "hosts": { "localhost": { "local": true } },
  "store": { "requests": "all" },
  "workloads": { "inference": { "endpoints": ["http://$ADDR/v1"], "model": "gauntlet-target", "output_tokens": 8,
     "timeout": "10s", "seed": 7, "arrival": { "mode": "poisson", "rate": 20 } } },
  "phases": [ { "name": "warmup", "for": "3s" }, { "name": "steady", "for": "8s" },
              { "name": "shock", "for": "4s", "load": 3 } ],
  "targets": { "steady": { "inference.ttft_ms.p99": "<= 5000", "inference.error_rate": "<= 0.05",
                           "inference.requests": ">= 5" } } }
JSON
"$GAUNTLET" run "$T/sc.json" --out "$T/run" > "$T/run.log" 2>&1; rc=$?
check "the run passes (exit $rc)" [ $rc -eq 0 ]
check "report.html, report.md and report.json written" [ -s "$T/run/report.html" -a -s "$T/run/report.md" -a -s "$T/run/report.json" ]
python3 - "$T/run" > "$T/cmp.out" 2>&1 <<'PY'
import html, json, math, re, sqlite3, sys
d = sys.argv[1]
r = json.load(open(d + "/report.json"))
h = open(d + "/report.html").read()
md = open(d + "/report.md").read().split("\n")
db = sqlite3.connect(d + "/run.db")
fails, n = [], 0
def ok(cond, what):
    global n
    n += 1
    if not cond:
        fails.append(what)
def close(a, b, rel):
    return a is not None and b is not None and abs(a - b) <= rel * max(abs(a), abs(b)) + 1e-9

# report.html's Phases table: header names, then one row per phase
i = h.index('id="phases"'); t = h[i:h.index("</table>", i)]
heads = [html.unescape(x) for x in re.findall(r"<th>(.*?)</th>", t)]
rows = [[html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        for row in re.findall(r"<tr><td.*?</tr>", t)]
ok(len(rows) == len(r["phases"]) == 3, "three phases in report.html (%d) and report.json (%d)" % (len(rows), len(r["phases"])))
col = {name: k for k, name in enumerate(heads)}
# report.md's Phases table: the header row after "## Phases", then rows
k = md.index("## Phases")
mdh = [c.strip() for c in md[k + 2].strip("|").split("|")]
mdrows = []
for line in md[k + 4:]:
    if not line.startswith("|"):
        break
    mdrows.append([c.strip() for c in line.strip("|").split("|")])
ok(len(mdrows) == 3, "three phases in report.md (%d)" % len(mdrows))
mdcol = {name: k for k, name in enumerate(mdh)}
# independent figures from the store
win = db.execute("select idx, phase, start_ns, end_ns from windows").fetchall()
secs, reqs, errs, ttft = {}, {}, {}, {}
for idx, ph, s, e in win:
    secs[ph] = secs.get(ph, 0) + (e - s) / 1e9
for ph, name, v in db.execute("select w.phase, m.name, m.counter from window_metrics m join windows w on w.idx = m.idx "
                               "where m.name in ('inference.requests', 'inference.errors')"):
    (reqs if name == "inference.requests" else errs)[ph] = (reqs if name == "inference.requests" else errs).get(ph, 0) + v
for ph, v in db.execute("select w.phase, (q.t_first_token_ns - q.t_intended_ns) / 1e6 from requests q "
                        "join windows w on w.idx = q.window where q.error_class is null or q.error_class in ('', 'ok')"):
    ttft.setdefault(ph, []).append(v)
def rank(vals, p):
    v = sorted(vals)
    return v[max(0, math.ceil(p / 100 * len(v)) - 1)]
for p, jp in enumerate(r["phases"]):
    m = jp["metrics"]["inference"]
    row = rows[p] if p < len(rows) else []
    name = jp["name"]
    want = {
        "inference.throughput_rps": reqs.get(p, 0) / secs[p],
        "inference.error_rate": errs.get(p, 0) / reqs[p] if reqs.get(p) else None,
        "inference.ttft_ms.p50": rank(ttft[p], 50) if ttft.get(p) else None,
        "inference.ttft_ms.p99": rank(ttft[p], 99) if ttft.get(p) else None,
    }
    got_json = {
        "inference.throughput_rps": m["throughput_rps"], "inference.error_rate": m["error_rate"],
        "inference.ttft_ms.p50": m["ttft_ms"]["p50"], "inference.ttft_ms.p99": m["ttft_ms"]["p99"],
    }
    ok(reqs.get(p, 0) > 0, "%s: requests in the store (%s)" % (name, reqs.get(p)))
    ok(close(jp["measured_s"], secs[p], 1e-6), "%s: measured_s %s = the windows' real seconds %s" % (name, jp["measured_s"], secs[p]))
    for k, w in want.items():
        jv = got_json[k]
        hv = row[col[k]] if k in col and col[k] < len(row) else None
        try:
            hvf = float(hv)
        except (TypeError, ValueError):
            hvf = None
        rel = 0.002 if "ttft" in k else 1e-6
        ok(close(jv, w, rel), "%s %s: report.json %s = from the store %s" % (name, k, jv, w))
        ok(close(hvf, jv, 1e-5), "%s %s: report.html %s = report.json %s" % (name, k, hv, jv))
        mrow = mdrows[p] if p < len(mdrows) else []
        mv = mrow[mdcol[k]] if k in mdcol and mdcol[k] < len(mrow) else None
        try:
            mvf = float(mv)
        except (TypeError, ValueError):
            mvf = None
        ok(close(mvf, jv, 1e-5), "%s %s: report.md %s = report.json %s" % (name, k, mv, jv))
        if w:
            ok(mvf != 0, "%s %s: report.md does not show 0 for a measured %s" % (name, k, w))
        if w:
            ok(hvf != 0, "%s %s: report.html does not show 0 for a measured %s" % (name, k, w))
    ok(got_json["inference.throughput_rps"] > 0, "%s: a throughput was measured" % name)
# the whole-run inference summary: the same rows in report.md and
# report.html, and the figures report.json has
def md_table(title):
    k = md.index("## " + title)
    rows = {}
    for line in md[k + 1:]:
        if line.startswith("## "):
            break
        if line.startswith("| ") and not line.startswith("| figure") and not line.startswith("|---"):
            c = [x.strip() for x in line.strip("|").split("|")]
            rows[c[0]] = c[1]
    return rows
mi = md_table("Inference")
i = h.index('id="sum-inference"'); t = h[i:h.index("</table>", i)]
hi = {html.unescape(a): html.unescape(b) for a, b in re.findall(r"<tr><td>(.*?)</td><td class=\"n\">(.*?)</td></tr>", t)}
ok(len(mi) >= 15 and mi == hi, "report.md's and report.html's inference summaries hold the same %d rows" % len(mi))
jm = r["metrics"]["inference"]
ok(mi.get("requests") == str(jm["requests"]) == str(sum(reqs.values())), "inference requests: report.md %s, report.json %s, the store %s" % (mi.get("requests"), jm["requests"], sum(reqs.values())))
ok(close(float(mi.get("TTFT ms p99", "nan")), jm["ttft_ms"]["p99"], 1e-5), "TTFT p99: report.md %s = report.json %s" % (mi.get("TTFT ms p99"), jm["ttft_ms"]["p99"]))
ok(mi.get("errors") == str(jm["errors"]), "inference errors: report.md %s = report.json %s" % (mi.get("errors"), jm["errors"]))
# the shock phase ran at 3x: a figure each report carries, from the store too
ok(2.0 < (reqs[2] / secs[2]) / (reqs[1] / secs[1]) < 4.5, "shock/steady throughput ratio %.2f near 3" % ((reqs[2] / secs[2]) / (reqs[1] / secs[1])))
for f in fails:
    print("mismatch: " + f)
print("%d figures compared, %d disagree" % (n, len(fails)))
sys.exit(1 if fails else 0)
PY
prc=$?
cat "$T/cmp.out"
check "per-phase figures: report.html = report.md = report.json = the store's rows, none shown as 0 ($(tail -1 "$T/cmp.out"))" [ $prc -eq 0 ]
finish
