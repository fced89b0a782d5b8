#!/usr/bin/env bash
# test_report_html.sh - report.html and timeseries.csv of a real short run:
# inference against a real `gauntlet target` (frozen by an exec fault with
# SIGSTOP, thawed with SIGCONT) plus a rate-capped storage workload, four
# phases (one with HTML in its name), and one deliberately missing
# threshold (storage.read_gbps), so the report has phases, a fault band,
# recovery marks, passing targets and a missing one.
#
# Checks:
#   - the run writes report.html and timeseries.csv; `gauntlet report DIR`
#     re-renders both from the store alone, byte for byte the same (the
#     manifest section of the HTML aside);
#   - report.html is self-contained: no script, link, image, frame, CSS
#     url() or @import, every href a fragment; lang="en", charset utf-8;
#     every expected chart id as an <svg> in a <figure> with a caption; the
#     verdict banner, targets (MISSING row), faults, phases, manifest and
#     metric definitions agree with report.json and manifest.json; strings
#     from the scenario are escaped;
#   - timeseries.csv: the documented header, one row per window of run.db
#     in order, times and counter-derived values (throughput, error rate,
#     write GB/s) equal to what run.db gives, per-window requests summing
#     to metrics.inference.requests, the run's TTFT p99 within the range of
#     the windows' p99;
#   - in headless Chromium (Debian package chromium; installed when missing
#     and possible): no console errors or exceptions, no network request
#     but the file itself, every chart rendered with a size; a full-page
#     screenshot is kept as $GL_BINARY_DIR/artifacts/report.png. A page
#     Chromium could not load is a failure.
#   - report.pdf, rendered by `gauntlet report` with GAUNTLET_PDF=auto:
#     pdf_check.py finds it A4, each section on a page of its own, every
#     chart's caption on a page that is drawn, and the sign-off (run id,
#     verdict, scenario sha256) last; the same checker fails a PDF printed
#     with the charts hidden; a world-writable GAUNTLET_CHROMIUM is not run
#     and removes the stale report.pdf; GAUNTLET_PDF=off renders none.
# Skips (77; a failure under GL_STRICT=1) only when no chromium is on PATH
# or no poppler-utils, after every other check passed.
source "$(dirname "$0")/lib.sh"

ART=${GL_BINARY_DIR:-$T}/artifacts
mkdir -p "$ART"

# ---- a real run -----------------------------------------------------------------------------
rm -f "$T/ready"
"$GAUNTLET" target --listen 127.0.0.1:0 --ready-file "$T/ready" --ttft-ms 40 --itl-ms 4 --max-seqs 256 \
	>"$T/target.log" 2>&1 &
TPID=$!
PIDS+=("$TPID")
wait_for "$T/ready" 10 || skip "gauntlet target cannot start: $(tail -3 "$T/target.log")"
ADDR=$(cat "$T/ready")
echo "$TPID" > "$T/target.pid"
mkdir -p "$T/disk"
cat > "$T/scn.json" <<JSON
// report_html test: 20 min of timeline at --time-scale 60 (20 s)
{
  "name": "report-html",
  "duration": "20m",
  "window": "1s",
  "hosts": { "controller": { "local": true } },
  "workloads": {
    "inference": {
      "endpoints": ["http://$ADDR/v1"], "api": "chat", "model": "gauntlet-target",
      "arrival": { "mode": "poisson", "rate": 20 },
      "input_tokens": 64, "output_tokens": 16, "max_in_flight": 256, "timeout": "30s"
    },
    "storage": {
      "path": "$T/disk", "allowed_roots": ["$T"], "pattern": "mixed", "read_pct": 50,
      "threads": 1, "bs": "64KiB", "file_size": "4MiB", "files": 2, "reserve": "0",
      "rate_cap": "20MB"
    }
  },
  "phases": [
    { "name": "warmup", "for": "2m" },
    { "name": "steady", "for": "8m" },
    { "name": "shock <x3> & \"burst\"", "for": "3m", "load": 2.0 },
    { "name": "steady", "for": "7m" }
  ],
  "faults": [
    { "id": "freeze-target", "at": "6m", "for": "3m", "kind": "exec", "target": "controller",
      "params": {
        "inject": ["sh", "-c", "kill -STOP \"\$(cat $T/target.pid)\""],
        "verify": ["sh", "-c", "grep -q '^State:.*stopped' /proc/\"\$(cat $T/target.pid)\"/status"],
        "revert": ["sh", "-c", "kill -CONT \"\$(cat $T/target.pid)\""],
        "verify_revert": ["sh", "-c", "! grep -q '^State:.*stopped' /proc/\"\$(cat $T/target.pid)\"/status"],
        "timeout": "10s" } }
  ],
  "targets": {
    // storage.read_gbps is left out on purpose: the report must show it missing
    "steady":   { "inference.ttft_ms.p99": "<= 500", "inference.error_rate": "<= 0.01",
                  "storage.write_gbps": ">= 0.0001" },
    "degraded": { "inference.ttft_ms.p99": "<= 10000", "inference.error_rate": "<= 0.5" },
    "recovery": { "recovery_s": "<= 15", "restore_s": "<= 15" }
  }
}
JSON
D=$T/run
"$GAUNTLET" run "$T/scn.json" --out "$D" --time-scale 60 >"$T/run.log" 2>&1
rc=$?
kill -CONT "$TPID" 2>/dev/null
check "run ends with a verdict (exit 0 or 1, got $rc)" [ $rc -eq 0 -o $rc -eq 1 ]
[ $rc -le 1 ] || { tail -20 "$T/run.log"; finish; }
check "report.json written" [ -s "$D/report.json" ]
# The targets are set so that a broken workload fails them: every one but the
# deliberately missing storage.read_gbps must pass on this healthy run. Those
# judging a latency or a recovery time are timings (the plain build's).
check "targets: storage.read_gbps is the only missing one, every other non-timing target passes" json "$D/report.json" \
	"[t['metric'] for t in r['targets'] if t['missing']] == ['storage.read_gbps'] and all(t['pass'] for t in r['targets'] if not t['missing'] and not t['metric'].startswith('inference.ttft') and t['scope'] != 'recovery') or sys.exit(str([(t['scope'], t['metric'], t['measured']) for t in r['targets'] if not t['pass']]))"
timing "targets: the TTFT and recovery targets pass" json "$D/report.json" \
	"all(t['pass'] for t in r['targets'] if not t['missing'] and (t['metric'].startswith('inference.ttft') or t['scope'] == 'recovery')) or sys.exit(str([(t['scope'], t['metric'], t['measured']) for t in r['targets'] if not t['pass']]))"
check "report.html written by the run" [ -s "$D/report.html" ]
check "timeseries.csv written by the run" [ -s "$D/timeseries.csv" ]
if [ ! -s "$D/report.html" ] || [ ! -s "$D/timeseries.csv" ]; then
	echo "report.html/timeseries.csv missing: is gl_report_html/gl_report_csv wired into reports/report.c?"
	finish
fi
cp "$D/report.html" "$T/first.html"
cp "$D/timeseries.csv" "$T/first.csv"
"$GAUNTLET" report "$D" >"$T/report.log" 2>&1
check "gauntlet report DIR re-renders (exit 0)" [ $? -eq 0 ]
# the same apart from the manifest section (which is another module's document)
strip_manifest() { sed -e '/<h2 id="manifest">/,/<h2 id="definitions">/d' "$1"; }
check "re-rendered report.html is the same (manifest section aside), byte for byte" \
	cmp -s <(strip_manifest "$T/first.html") <(strip_manifest "$D/report.html")
check "re-rendered timeseries.csv is the same, byte for byte" cmp -s "$T/first.csv" "$D/timeseries.csv"
cp "$D/report.html" "$D/timeseries.csv" "$ART/" 2>/dev/null
echo "report.html: $(wc -c < "$D/report.html") bytes, timeseries.csv: $(wc -l < "$D/timeseries.csv") lines"

CHARTS="chart-inference-ttft_ms-p50 chart-inference-ttft_ms-p99 chart-inference-error_rate chart-inference-throughput_rps chart-storage-read_gbps chart-storage-write_gbps"

# ---- report.html, statically ------------------------------------------------------------------
# pycheck 'description' 'python statements; raise/exit(1) on failure' (h: the HTML, r: report.json,
# m: manifest.json, db: sqlite3 connection to run.db, charts: expected chart ids)
pycheck() {
	python3 - "$D" "$CHARTS" "$2" <<'PY'
import json, re, sqlite3, sys, csv, math
d, charts, code = sys.argv[1], sys.argv[2].split(), sys.argv[3]
h = open(d + '/report.html', encoding='utf-8').read()
r = json.load(open(d + '/report.json'))
m = json.load(open(d + '/manifest.json'))
db = sqlite3.connect(d + '/run.db')
rows = list(csv.reader(open(d + '/timeseries.csv', newline='')))
def fail(msg):
    print('  ' + msg)
    sys.exit(1)
exec(code)
PY
	if [ $? -eq 0 ]; then ok "$1"; else bad "$1"; fi
}

pycheck "html: doctype, lang=en, charset utf-8, title" '
if not h.startswith("<!DOCTYPE html>"): fail("no doctype")
if "<html lang=\"en\">" not in h: fail("no lang=en")
if "<meta charset=\"utf-8\">" not in h[:400]: fail("no early charset")
if "<title>gauntlet report: report-html" not in h: fail("title")'
pycheck "html: self-contained (no script, link, img, frame, url(), @import; hrefs are fragments)" '
low = h.lower()
for bad_ in ("<script", "<link", "<img", "<iframe", "<object", "<embed", "<image", "@import", "url(", "<base", "srcset", "<use"):
    if bad_ in low: fail("found " + bad_)
for a in re.findall(r"\b(?:href|src|xlink:href|action|poster|data)\s*=\s*\"([^\"]*)\"", h):
    if not a.startswith("#"): fail("external reference: " + a)'
pycheck "html: every expected chart is an <svg> in a <figure> with a caption" '
for c in charts:
    mm = re.search(r"<figure id=\"fig-%s\"><svg id=\"%s\" class=\"chart\".*?</svg><figcaption id=\"cap-%s\">.+?</figcaption></figure>" % (c, c, c), h, re.S)
    if not mm: fail("chart " + c)
    if "<polyline" not in mm.group(0) and "<circle" not in mm.group(0) and "<polygon" not in mm.group(0) and c != "chart-storage-read_gbps": fail("no data drawn in " + c)'
pycheck "html: verdict banner matches report.json" '
v = r["verdict"]
if not re.search(r"<section id=\"verdict\" class=\"verdict %s\"><span class=\"word\">%s</span>" % ("pass" if v == "pass" else "aborted" if v == "aborted" else "fail", v.upper()), h): fail("banner for " + v)'
pycheck "html: targets table has every target, storage.read_gbps shown MISSING (a failure)" '
sec = h[h.index("id=\"targets\""):h.index("id=\"charts\"")]
trs = re.findall(r"<tr(?: class=\"bad\")?><td>.*?</tr>", sec)
if len(trs) != len(r["targets"]): fail("%d rows for %d targets" % (len(trs), len(r["targets"])))
for t, row in zip(r["targets"], trs):
    if t["metric"] not in row: fail("row for " + t["metric"])
    want = "MISSING" if t["missing"] else "PASS" if t["pass"] else "FAIL"
    if ">%s</td>" % want not in row: fail(t["metric"] + " not " + want)
    if want != "PASS" and "class=\"bad\"" not in row: fail(t["metric"] + " not marked bad")
if not any(t["missing"] and t["metric"] == "storage.read_gbps" for t in r["targets"]): fail("report.json lacks the missing target")'
pycheck "html: fault shaded in every chart, recovery/restore marked, fault table row" '
f = r["faults"][0]
if f["state"] != "reverted": fail("fault state " + f["state"])
for c in charts:
    svg = re.search(r"<svg id=\"%s\".*?</svg>" % c, h, re.S).group(0)
    if "<rect class=\"flt\"" not in svg or "freeze-target" not in svg: fail("no fault band in " + c)
    if f["recovery_s"] is not None and "class=\"rec\"" not in svg: fail("no recovery mark in " + c)
    if f["restore_s"] is not None and "class=\"rst\"" not in svg: fail("no restore mark in " + c)
sec = h[h.index("id=\"faults\""):h.index("id=\"phases\"")]
if not re.search(r"<td>freeze-target</td><td>exec</td>.*?<td class=\"ok\">reverted</td>", sec): fail("fault row")'
pycheck "html: phases as bands and table; the phase name with markup is escaped" '
if "<x3>" in h or "& \"burst\"" in h: fail("raw phase name in the HTML")
esc = "shock &lt;x3&gt; &amp; &quot;burst&quot;"
if h.count(esc) < 2: fail("escaped phase name missing")
for c in charts:
    svg = re.search(r"<svg id=\"%s\".*?</svg>" % c, h, re.S).group(0)
    if svg.count("<title>phase ") != 4: fail("phase bands in " + c)
sec = h[h.index("id=\"phases\""):h.index("id=\"run\"")]
if sec.count("<tr><td class=\"n\">") != len(r["phases"]): fail("phase rows")'
pycheck "html: thresholds dashed where targets exist, violations red" '
svg = re.search(r"<svg id=\"chart-inference-ttft_ms-p99\".*?</svg>", h, re.S).group(0)
if "class=\"thr steady\"" not in svg and "steady &le; 500 (off the scale)" not in svg: fail("steady threshold")
svg = re.search(r"<svg id=\"chart-storage-write_gbps\".*?</svg>", h, re.S).group(0)
if "class=\"thr steady\"" not in svg: fail("write threshold")
svg = re.search(r"<svg id=\"chart-inference-throughput_rps\".*?</svg>", h, re.S).group(0)
if "class=\"thr" in svg: fail("threshold on a series without target")'
pycheck "html: every value of manifest.json in the manifest section; run facts" '
sec = h[h.index("id=\"manifest\""):h.index("id=\"definitions\"")]
def leaves(x):
    if isinstance(x, dict):
        for v in x.values(): yield from leaves(v)
    elif isinstance(x, list):
        for v in x: yield from leaves(v)
    elif isinstance(x, str): yield x
def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;").replace("\x27", "&#39;")
n = 0
for v in leaves(m):
    if v and len(v) < 300 and v.isprintable():
        n += 1
        if esc(v) not in sec: fail("manifest value %r not shown" % v)
if n == 0: fail("no manifest values")
if r["run"]["id"] not in h[h.index("id=\"run\""):]: fail("run id")'
pycheck "html: metric definitions list the catalog" '
sec = h[h.index("id=\"definitions\""):]
for name in ("inference.ttft_ms", "inference.error_rate", "inference.throughput_rps", "training.step_time_s", "training.busbw_gbps", "storage.read_gbps", "storage.write_gbps", "recovery_s", "restore_s"):
    if "<code>%s</code>" % name not in sec: fail(name)'

# ---- timeseries.csv ----------------------------------------------------------------------------
pycheck "csv: documented header; series columns of the scenario's workloads" '
want = ["idx","start_s","end_s","scn_start_s","scn_end_s","phase","scope","complete",
        "inference.ttft_ms.p50","inference.ttft_ms.p99","inference.error_rate","inference.throughput_rps",
        "storage.read_gbps","storage.write_gbps"]
if rows[0] != want: fail("header %s" % rows[0])'
pycheck "csv: one row per window of run.db, in order, with its times, phase and scope" '
wins = db.execute("select idx,start_ns,end_ns,scn_start_ns,scn_end_ns,phase,complete from windows order by idx").fetchall()
if len(rows) - 1 != len(wins): fail("%d rows, %d windows" % (len(rows) - 1, len(wins)))
if len(wins) < 15: fail("only %d windows" % len(wins))
names = [p["name"] for p in r["phases"]]
for row, w in zip(rows[1:], wins):
    if int(row[0]) != w[0]: fail("idx")
    for k in range(1, 5):
        if abs(float(row[k]) - w[k] / 1e9) > 1e-6: fail("time column %d of window %d" % (k, w[0]))
    if row[5] != (names[w[5]] if 0 <= w[5] < len(names) else ""): fail("phase of %d: %r" % (w[0], row[5]))
    if row[6] not in ("none", "steady", "degraded"): fail("scope " + row[6])
    if int(row[7]) != w[6]: fail("complete")
if not any(row[5] == "shock <x3> & \"burst\"" for row in rows[1:]): fail("phase name with markup round-trips")
if not any(row[6] == "degraded" for row in rows[1:]): fail("no degraded window (the fault)")'
pycheck "csv: throughput, error rate and write GB/s equal the counters in run.db" '
cnt = {}
for idx, name, c in db.execute("select idx,name,counter from window_metrics where hist is null"):
    cnt[(idx, name)] = c
def same(cell, want):
    if want is None: return cell == ""
    return cell != "" and abs(float(cell) - want) <= 1e-8 * max(1.0, abs(want))
n_checked = 0
for row in rows[1:]:
    idx, secs = int(row[0]), float(row[2]) - float(row[1])
    req, err, wb = cnt.get((idx, "inference.requests")), cnt.get((idx, "inference.errors")), cnt.get((idx, "storage.write_bytes"))
    if not same(row[11], None if req is None or secs <= 0 else req / secs): fail("throughput of window %d: %s vs %s" % (idx, row[11], req))
    if not same(row[10], None if not req else (err or 0) / req): fail("error rate of window %d" % idx)
    if not same(row[13], None if wb is None or secs <= 0 else wb * 1e-9 / secs): fail("write GB/s of window %d" % idx)
    n_checked += req is not None
if n_checked < 10: fail("only %d windows with requests" % n_checked)'
pycheck "csv: per-window requests sum to metrics.inference.requests" '
tot = sum(round(float(row[11]) * (float(row[2]) - float(row[1]))) for row in rows[1:] if row[11])
if tot != r["metrics"]["inference"]["requests"]: fail("%d vs %s" % (tot, r["metrics"]["inference"]["requests"]))'
pycheck "csv: TTFT p50 <= p99 per window; the run p99 lies within the windows p99 range" '
p99 = []
for row in rows[1:]:
    if row[8] and row[9]:
        if float(row[8]) > float(row[9]) * 1.001: fail("p50 > p99 in window " + row[0])
        p99.append(float(row[9]))
run = r["metrics"]["inference"]["ttft_ms"]["p99"]
if not p99 or not (min(p99) * 0.999 <= run <= max(p99) * 1.001): fail("run p99 %s, windows %s..%s" % (run, min(p99), max(p99)))'

# ---- headless Chromium ---------------------------------------------------------------------------
# Found on PATH only (scripts/setup.sh installs the Debian package chromium
# when GL_TEST_PKGS=1, as CI does): no browser on PATH is a skip that names
# chromium (a failure under GL_STRICT=1), after every check above ran.
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
if [ -z "$CHROME" ]; then
	[ "$FAIL" -eq 0 ] || { echo "browser checks not run: no chromium on PATH"; finish; }
	skip "chromium not found on PATH (Debian package chromium; scripts/setup.sh with GL_TEST_PKGS=1 installs it): browser checks not run"
fi

# The DevTools protocol over --remote-debugging-pipe (tests/scripts/cdp.py).
timeout 120 python3 "$GL_SOURCE_DIR/tests/scripts/cdp.py" "$CHROME" "$D/report.html" "$ART/report.png" "$T/browser.json" >"$T/cdp.log" 2>&1
rc=$?
# Chromium is there, so a page it could not load is a failure, not a skip.
check "browser: headless Chromium ($CHROME) loaded report.html over the DevTools pipe (rc $rc)" \
	[ $rc -eq 0 -a -s "$T/browser.json" ]
if [ $rc -ne 0 ] || [ ! -s "$T/browser.json" ]; then
	tail -5 "$T/cdp.log"
	finish
fi
check "browser: no console errors, exceptions or failed loads" json "$T/browser.json" "r['errors'] == [] or sys.exit(str(r['errors']))"
check "browser: no network request but the file itself" json "$T/browser.json" "r['requests'] == [r['url']] or sys.exit(str(r['requests']))"
check "browser: lang en, UTF-8, no scripts, no images" json "$T/browser.json" \
	"(r['info']['lang'], r['info']['charset'], r['info']['scripts'], r['info']['images']) == ('en', 'UTF-8', 0, 0) or sys.exit(str(r['info']))"
for c in $CHARTS; do
	check "browser: $c rendered (svg with a size)" json "$T/browser.json" \
		"any(i[0] == '$c' and i[1] == 'svg' and i[2] > 300 and i[3] > 80 for i in r['ids']) or sys.exit(str([i for i in r['ids'] if i[0] == '$c']))"
done
check "browser: screenshot taken" [ "$(wc -c < "$ART/report.png" 2>/dev/null || echo 0)" -gt 20000 ]
echo "screenshot: $ART/report.png (report: $ART/report.html, series: $ART/timeseries.csv)"

# ---- report.pdf --------------------------------------------------------------------------------
# Rendered by gauntlet itself (the suite runs with GAUNTLET_PDF=off), judged
# by poppler-utils against report.html and report.json (pdf_check.py).
command -v pdftoppm >/dev/null && command -v pdfinfo >/dev/null ||
	skip "pdftoppm/pdfinfo not found (Debian package poppler-utils): report.pdf not checked"
GAUNTLET_PDF=auto GAUNTLET_CHROMIUM=$CHROME "$GAUNTLET" report "$D" >"$T/pdf.log" 2>&1; rc=$?
check "pdf: gauntlet report renders report.pdf (exit $rc, listed, 0600)" bash -c \
	"[ $rc -eq 0 ] && grep -qx '$D/report.pdf' '$T/pdf.log' && [ \"\$(stat -c %a '$D/report.pdf')\" = 600 ]"
grep 'report.pdf' "$T/pdf.log" | grep -v "^$D"
check "pdf: A4, a page per section, every chart drawn, the sign-off last (pdf_check.py)" \
	python3 "$GL_SOURCE_DIR/tests/scripts/pdf_check.py" "$D/report.pdf" "$D/report.html" "$D/report.json"
python3 "$GL_SOURCE_DIR/tests/scripts/pdf_check.py" "$D/report.pdf" "$D/report.html" "$D/report.json" | grep -v '^FAIL' | sed 's/^/  /'
check "pdf: no profile or temporary file left in the run directory" \
	bash -c "[ -z \"\$(find '$D' -name '.pdf-*' -o -name 'report.pdf.tmp')\" ]"
# the checker sees a blank chart: the same HTML with its charts hidden, printed
sed 's#</style>#svg.chart{visibility:hidden}</style>#' "$D/report.html" > "$T/blank.html"
"$CHROME" --headless --no-sandbox --disable-gpu --no-pdf-header-footer --user-data-dir="$T/blank-prof" \
	--print-to-pdf="$T/blank.pdf" "file://$T/blank.html" >/dev/null 2>&1
check "pdf: the checker fails a PDF whose charts are hidden (negative control)" bash -c \
	"[ -s '$T/blank.pdf' ] && python3 '$GL_SOURCE_DIR/tests/scripts/pdf_check.py' '$T/blank.pdf' '$T/blank.html' '$D/report.json' | grep -q 'looks blank'"
cp "$D/report.pdf" "$ART/" 2>/dev/null
# a browser nobody should trust is not run, and no stale report.pdf stays
cp /bin/true "$T/fake-chromium" && chmod 777 "$T/fake-chromium"
GAUNTLET_PDF=auto GAUNTLET_CHROMIUM="$T/fake-chromium" "$GAUNTLET" report "$D" >"$T/pdf2.log" 2>&1
check "pdf: a world-writable GAUNTLET_CHROMIUM is refused, named, and the old report.pdf removed" bash -c \
	"grep -q 'report.pdf: not written: $T/fake-chromium: writable by group or others: not trusted; the earlier report.pdf was removed' '$T/pdf2.log' && [ ! -e '$D/report.pdf' ]"
GAUNTLET_PDF=off "$GAUNTLET" report "$D" >"$T/pdf3.log" 2>&1
check "pdf: GAUNTLET_PDF=off renders none and says so" grep -q 'report.pdf: not rendered (GAUNTLET_PDF=off)' "$T/pdf3.log"
finish
