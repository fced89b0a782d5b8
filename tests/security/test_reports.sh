#!/usr/bin/env bash
# test_reports.sh - what the reports copy from a scenario, a command or a
# page cannot act in a reader's tool:
#  1. report.md: a real run whose scenario name, scenario file name, host,
#     phase name and fault id carry '<script>alert(1)</script>', an <img
#     onerror>, '|' and a backtick (names refuse newlines), whose fault
#     command fails printing such text and a carriage return (the first
#     line of its stderr is kept), and whose gate prints such text (its
#     last line is kept); the description, newline included, is not copied
#     into report.md. No raw HTML tag in report.md; every table (GFM: up to
#     the first blank line) holds only whole rows with its header's number
#     of cells (an unescaped '|' ends a cell, a CR ends a line); the tables
#     have the rows they should, and the text is there, escaped;
#  2. report.html of the same run: a Content-Security-Policy <meta> before
#     anything it governs (default-src 'none', no script, no frame, no
#     object, form-action and base-uri 'none'), allowing its one <style> by
#     the SHA-256 of that element's text (computed here with hashlib), no
#     style="" attribute and no script; Chromium opening a copy with frames,
#     an object and a script injected (as a file://, as a reader would)
#     prints neither the local files they name nor the script's text, and
#     the same copy without the <meta> prints both (the check can fail);
#     report.pdf of the run passes pdf_check.py and shows the hostile name
#     as text;
#  3. report.pdf's browser (gl_report_pdf, through tests/tools/render_pdf.c)
#     printing a hostile report.html: iframes and objects naming
#     /etc/hostname, a file outside the run directory, one inside it and a
#     loopback HTTP server, and a script: none of their content in the PDF,
#     no request reaches the server; its own text and a data: frame (the
#     frames had their chance to load) are printed.
# Skips (a failure under GL_STRICT=1) the browser parts only, without
# chromium on PATH or poppler-utils.
. "$(dirname "$0")/../scripts/lib.sh"
[ -x "$GAUNTLET" ] || skip "no gauntlet binary at $GAUNTLET"
RENDER=${GL_RENDER_PDF:-${GL_BINARY_DIR:-/tmp/b}/gl_render_pdf}
t0=$(date +%s%N)
S='<script>alert(1)</script>'

# ---- 1. report.md ----------------------------------------------------------------------
mkdir -p "$T/md"
SCN="$T/md/sc\`<b>x|.json"
HOST="h$S|x"
cat > "$SCN" <<JSON
{ "name": "evil $S | \`name\`",
  "description": "desc $S | two\\nlines",
  "duration": "4s", "window": "500ms", "hosts": { "$HOST": { "local": true } },
  "workloads": { "null": { "rate": 20 } },
  "phases": [ { "name": "ph <img src=x onerror=alert(4)> | p", "for": "4s" } ],
  "faults": [ { "id": "f$S|id", "at": "1s", "for": "1s", "kind": "exec", "target": "$HOST",
                "params": { "inject": ["sh", "-c", "printf 'inj <script>alert(6)</script> | e\\\\rcr | x\\\\n2nd line\\\\n' >&2; exit 3"],
                            "revert": ["true"], "timeout": "5s" } } ],
  "gates": [ { "id": "g1", "kind": "command", "hosts": ["$HOST"], "when": ["after"], "timeout": "10s",
               "argv": ["sh", "-c", "echo 'gate <script>alert(7)</script> | out'; exit 1"] } ],
  "targets": { "steady": { "null.ticks": ">= 1" }, "degraded": { "null.ticks": ">= 0" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } } }
JSON
"$GAUNTLET" validate "$SCN" >"$T/validate.log" 2>&1
rc=$?
check "1: the hostile scenario validates (exit $rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || cat "$T/validate.log"
D=$T/run
(cd "$T/md" && "$GAUNTLET" run "${SCN##*/}" --out "$D") >"$T/run.log" 2>&1
rc=$?
check "1: the run ends with a verdict (exit $rc: the fault's inject fails on purpose)" [ $rc -eq 0 -o $rc -eq 1 ]
check "1: report.md written" [ -s "$D/report.md" ]
[ -s "$D/report.md" ] || { tail -20 "$T/run.log"; finish; }
check "1: the inject's stderr reached the store (report.json's fault error)" \
	json "$D/report.json" "'alert(6)' in r['faults'][0]['error']"
python3 - "$D/report.md" >"$T/md.check" 2>&1 <<'PY'
import re, sys
md = open(sys.argv[1], encoding="utf-8", newline="").read()   # as written: no newline translation
lines = re.split(r"\r\n|\r|\n", md)   # CommonMark's line endings
out = []
def res(ok, what):
    out.append(("ok" if ok else "FAIL") + "\t" + what)
raw = sorted(set(re.findall(r"<[A-Za-z/!?][^>\n]{0,40}", md)))
res(not raw, "1: no raw HTML tag or comment in report.md%s" % (": " + "; ".join(raw[:4]) if raw else ""))
def cells(line):
    """GFM: the cells of a table row; a '|' after a backslash is text."""
    s = line.strip()
    if s.startswith("|"): s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"): s = s[:-1]
    parts, cur, i = [], "", 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            cur += s[i:i + 2]; i += 2; continue
        if c == "|":
            parts.append(cur); cur = ""
        else:
            cur += c
        i += 1
    parts.append(cur)
    return parts
# GFM: a table (header, delimiter row) goes on to the first blank line;
# every line up to there is a row of it, with or without a leading '|'
tables, i = [], 0
while i < len(lines):
    if lines[i].startswith("|") and i + 1 < len(lines) and re.fullmatch(r"\|(-+\|)+", lines[i + 1]):
        head, rows, j = lines[i], [], i + 2
        while j < len(lines) and lines[j].strip():
            rows.append(lines[j]); j += 1
        tables.append((head, rows)); i = j
    else:
        i += 1
bad = []
for head, rows in tables:
    n = len(cells(head))
    for r in rows:
        if len(cells(r)) != n or not r.startswith("| ") or not r.endswith(" |"):
            bad.append("%d cells, header %d: %s" % (len(cells(r)), n, r[:90]))
res(len(tables) >= 5 and not bad, "1: %d tables, every row whole ('| ... |') with its header's number of cells%s" % (len(tables), ": " + " || ".join(bad[:3]) if bad else ""))
stray = [l for l in lines if l.startswith("|") and not re.fullmatch(r"\|(-+\|)+", l) and not any(l in rows or l == h for h, rows in tables)]
res(not stray, "1: no line outside a table starts a row (no cell broke across lines)%s" % (": " + stray[0][:80] if stray else ""))
def table(first):
    for h, rows in tables:
        if cells(h)[0].strip() == first: return rows
    return None
fr, pr = table("id"), table("phase")
res(fr is not None and len(fr) == 1, "1: the Faults table has its one row (%s)" % (len(fr) if fr is not None else "no table"))
res(pr is not None and len(pr) == 1, "1: the Phases table has its one row (%s)" % (len(pr) if pr is not None else "no table"))
gr = [r for h, rows in tables if cells(h)[1].strip() == "gate" for r in rows]
res(len(gr) == 1 and cells(gr[0])[3].strip() == "h" + "&lt;script&gt;alert(1)&lt;/script&gt;" + "\\|x"
    and "gate &lt;script&gt;alert(7)&lt;/script&gt; \\| out" in cells(gr[0])[6],
    "1: the Gates table's row: the host and the command's output escaped: %s" % (gr[0][:100] if gr else "no row"))
pf = [r for h, rows in tables if cells(h)[1].strip() == "subject" for r in rows]
res(len(pf) == 3, "1: the Preflight table has its 3 rows (%d)" % len(pf))
e = "&lt;script&gt;alert(1)&lt;/script&gt;"
res(lines[0].startswith("# gauntlet report: evil " + e + " \\| "), "1: the title line holds the name, escaped: %s" % lines[0][:90])
res(fr is not None and len(fr) == 1 and cells(fr[0])[0].strip() == "f" + e + "\\|id" and cells(fr[0])[2].strip() == "h" + e + "\\|x",
    "1: the fault row's id and target cells are the escaped id and host: %s" % (fr[0][:90] if fr else ""))
res(pr is not None and len(pr) == 1 and cells(pr[0])[0].strip() == "ph &lt;img src=x onerror=alert(4)&gt; \\| p",
    "1: the phase cell is the escaped phase name: %s" % (pr[0][:60] if pr else ""))
res(fr is not None and len(fr) == 1 and "inj &lt;script&gt;alert(6)&lt;/script&gt; \\| e cr \\| x" in cells(fr[0])[-1],
    "1: the fault's note holds the command's stderr, escaped, its carriage return a space")
res("\r" not in md, "1: no carriage return in report.md (CommonMark ends a line, and a table row, there)")
sc = [r for h, rows in tables if cells(h)[0].strip() == "run" for r in rows if cells(r)[0].strip() == "scenario"]
res(len(sc) == 1 and "sc\\`&lt;b&gt;x\\|.json" in sc[0], "1: the scenario file name is shown escaped, not in a code span: %s" % (sc[0][:100] if sc else ""))
print("\n".join(out))
PY
while IFS=$'\t' read -r st what; do
	[ -n "$what" ] || continue
	if [ "$st" = ok ]; then ok "$what"; else bad "$what"; fi
done < <(grep -P '^(ok|FAIL)\t' "$T/md.check")
grep -qP '^(ok|FAIL)\t' "$T/md.check" || { bad "1: the report.md checker ran"; cat "$T/md.check"; }
grep -q '^FAIL' "$T/md.check" && sed -n '1,60p' "$D/report.md"

ms=$((($(date +%s%N) - t0) / 1000000))
echo "   (part 1: $((ms / 1000)).$(printf %03d $((ms % 1000))) s)"

# ---- 2. report.html's Content-Security-Policy -----------------------------------------------
t1=$(date +%s%N)
check "2: report.html written" [ -s "$D/report.html" ]
python3 - "$D/report.html" >"$T/csp.check" 2>&1 <<'PY'
import base64, hashlib, re, sys
h = open(sys.argv[1], encoding="utf-8", newline="").read()
out = []
def res(ok, what):
    out.append(("ok" if ok else "FAIL") + "\t" + what)
metas = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', h)
res(len(metas) == 1, "2: one Content-Security-Policy <meta> (%d)" % len(metas))
head = h[:h.find("</head>")]
first = head.find("<meta http-equiv=\"Content-Security-Policy\"")
res(first > 0 and re.fullmatch(r'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n', head[:first]) is not None,
    "2: ...in <head>, right after the charset, before anything it governs")
pol = {}
for d in (metas[0] if metas else "").split(";"):
    w = d.split()
    if w: pol[w[0]] = w[1:]
for k in ("default-src", "script-src", "object-src", "frame-src", "child-src", "img-src", "connect-src",
          "font-src", "media-src", "worker-src", "manifest-src", "form-action", "base-uri"):
    res(pol.get(k) == ["'none'"], "2: %s 'none' (%s)" % (k, " ".join(pol.get(k, ["absent"]))))
styles = re.findall(r"<style>(.*?)</style>", h, re.S)
want = "'sha256-%s'" % base64.b64encode(hashlib.sha256(styles[0].encode()).digest()).decode() if len(styles) == 1 else None
res(len(styles) == 1 and pol.get("style-src") == [want],
    "2: style-src is exactly the SHA-256 of its one <style> element (%s; hashlib: %s)" % (" ".join(pol.get("style-src", ["absent"])), want))
res(set(pol) <= {"default-src", "script-src", "style-src", "object-src", "frame-src", "child-src", "img-src", "connect-src",
                 "font-src", "media-src", "worker-src", "manifest-src", "form-action", "base-uri"},
    "2: no other directive (%s)" % " ".join(sorted(pol)))
sa = re.findall(r"<[^>]*\sstyle\s*=", h)
res(not sa, "2: no style=\"\" attribute, which the policy would refuse (%d: %s)" % (len(sa), sa[:2]))
res("<script" not in h.lower() and not re.search(r"<[^>]*\son[a-z]+\s*=", h), "2: no script, no on...= handler")
res("evil &lt;script&gt;alert(1)&lt;/script&gt;" in h, "2: the hostile name is in it, escaped")
print("\n".join(out))
PY
while IFS=$'\t' read -r st what; do
	if [ "$st" = ok ]; then ok "$what"; else bad "$what"; fi
done < <(grep -P '^(ok|FAIL)\t' "$T/csp.check")
grep -qP '^(ok|FAIL)\t' "$T/csp.check" || { bad "2: the report.html checker ran"; cat "$T/csp.check"; }

# A browser opening report.html as a file, as a reader would: a copy with
# frames, an object and a script injected after <body> (what a string that
# escaped the escaping, or an edit, would do), and a looser policy beside
# them (a second policy can only narrow). Without its <meta> the same copy
# shows both files and the script's text: the check can fail.
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
BROWSER_OK=1
if [ -z "$CHROME" ] || ! command -v pdftotext >/dev/null; then
	BROWSER_OK=0
	part_skip "2 and 3: the browser checks" "chromium on PATH and pdftotext (poppler-utils) are needed (scripts/setup.sh with GL_TEST_PKGS=1 installs them)"
fi
mkdir -p "$T/outside"
SECRET="OUTSIDE-SECRET-$$-$RANDOM"
echo "$SECRET" > "$T/outside/secret.txt"
HOSTNAME_LINE=$(head -1 /etc/hostname 2>/dev/null | tr -d '[:space:]')
SCRIPT_MARK='SCRIPT-RAN-MARK'
# no_host_line PDF.txt: no line of the text is the machine's host name
no_host_line() { [ -z "$HOSTNAME_LINE" ] || ! grep -qxF "$HOSTNAME_LINE" <(sed 's/^[[:space:]]*//; s/[[:space:]]*$//' "$1"); }
if [ $BROWSER_OK = 1 ]; then
	python3 - "$D/report.html" "$T/reader" "$T/outside/secret.txt" <<'PY'
import os, re, sys
h, out, secret = open(sys.argv[1], encoding="utf-8").read(), sys.argv[2], sys.argv[3]
inj = ('<meta http-equiv="Content-Security-Policy" content="default-src * data: file:; script-src * \'unsafe-inline\'; frame-src *">'
       '<iframe src="file://%s"></iframe><object data="file://%s" type="text/plain"></object>'
       '<script>document.body.insertAdjacentText("afterbegin", "SCRIPT" + "-RAN-" + "MARK")</script>' % (secret, secret))
assert h.count("<body>\n") == 1
for name, page in (("csp", h), ("nocsp", re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>\n', "", h))):
    os.makedirs(os.path.join(out, name))
    open(os.path.join(out, name, "report.html"), "w", encoding="utf-8").write(page.replace("<body>\n", "<body>\n" + inj))
PY
	for v in csp nocsp; do
		timeout 120 "$CHROME" --headless --disable-gpu --no-first-run --no-default-browser-check \
			--disable-background-networking --disable-extensions --disable-sync $([ "$(id -u)" = 0 ] && echo --no-sandbox) \
			--user-data-dir="$T/reader/prof-$v" --no-pdf-header-footer --print-to-pdf="$T/reader/$v.pdf" \
			"file://$T/reader/$v/report.html" >"$T/reader/$v.log" 2>&1
		pdftotext "$T/reader/$v.pdf" "$T/reader/$v.txt" 2>>"$T/reader/$v.log"
	done
	check "2: chromium printed the injected copy of report.html (file://, its own text there)" \
		grep -qF 'gauntlet report: evil <script>alert(1)</script> | `name`' "$T/reader/csp.txt"
	check "2: ...the file outside the run named by an iframe and an object: not shown" not grep -qF "$SECRET" "$T/reader/csp.txt"
	check "2: ...the injected script: not run" not grep -qF "$SCRIPT_MARK" "$T/reader/csp.txt"
	check "2: control: the same copy without the policy shows the file and runs the script (the checks can fail)" \
		bash -c 'grep -qF "$1" "$3" && grep -qF "$2" "$3"' _ "$SECRET" "$SCRIPT_MARK" "$T/reader/nocsp.txt"
	# report.pdf of the run, by gauntlet itself: still the whole report
	GAUNTLET_PDF=on "$GAUNTLET" report "$D" >"$T/report-pdf.log" 2>&1
	rc=$?
	check "2: gauntlet report renders report.pdf of the hostile run (exit $rc)" bash -c '[ $1 -eq 0 ] && [ -s "$2" ]' _ $rc "$D/report.pdf"
	python3 "$GL_SOURCE_DIR/tests/scripts/pdf_check.py" "$D/report.pdf" "$D/report.html" "$D/report.json" >"$T/pdf_check.log" 2>&1
	rc=$?
	check "2: ...A4, a page per section, its charts drawn, the sign-off last (pdf_check.py, exit $rc)" [ $rc -eq 0 ]
	[ $rc -eq 0 ] || cat "$T/pdf_check.log"
	pdftotext "$D/report.pdf" "$T/run-pdf.txt"
	check "2: ...the hostile name printed as text" grep -qF 'gauntlet report: evil <script>alert(1)</script> | `name`' "$T/run-pdf.txt"
fi
ms=$((($(date +%s%N) - t1) / 1000000))
echo "   (part 2: $((ms / 1000)).$(printf %03d $((ms % 1000))) s)"

# ---- 3. report.pdf's browser reads nothing the page names --------------------------------------
t1=$(date +%s%N)
if [ $BROWSER_OK = 1 ]; then
	# a loopback HTTP server that writes down every request it gets
	mkdir -p "$T/www"
	echo "HTTP-LOOPBACK-MARK" > "$T/www/m.txt"
	python3 - "$T/www" "$T/http.port" "$T/http.requests" >"$T/http.log" 2>&1 <<'PY' &
import functools, http.server, os, sys
d, portfile, reqs = sys.argv[1:4]
class H(http.server.SimpleHTTPRequestHandler):
    def log_message(self, fmt, *a):
        with open(reqs, "a") as f: f.write(self.requestline + "\n")
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(H, directory=d))
with open(portfile + ".tmp", "w") as f: f.write(str(srv.server_address[1]))
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
PY
	PIDS+=("$!")
	wait_for "$T/http.port" 10 || { cat "$T/http.log"; skip "python3 cannot serve HTTP on 127.0.0.1"; }
	PORT=$(cat "$T/http.port")
	: > "$T/http.requests"
	check "3: control: the loopback server answers and logs what it was asked" bash -c \
		'python3 -c "import urllib.request, sys; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())" "http://127.0.0.1:$1/m.txt" |
		 grep -q HTTP-LOOPBACK-MARK && grep -q "GET /m.txt" "$2"' _ "$PORT" "$T/http.requests"
	: > "$T/http.requests"
	H3=$T/hostile
	mkdir -m 700 "$H3"
	echo "INSIDE-RUN-DIR-MARK" > "$H3/inside.txt"
	cat > "$H3/report.html" <<HTML
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>hostile</title></head><body>
<p>HOSTILE-PAGE-OWN-TEXT</p>
<iframe src="data:text/html,&lt;p&gt;DATA-FRAME-MARK&lt;/p&gt;"></iframe>
<iframe src="file:///etc/hostname"></iframe>
<iframe src="file://$T/outside/secret.txt"></iframe>
<object data="file://$T/outside/secret.txt" type="text/plain"></object>
<iframe src="file://$H3/inside.txt"></iframe>
<iframe src="inside.txt"></iframe>
<iframe src="http://127.0.0.1:$PORT/m.txt"></iframe>
<object data="http://127.0.0.1:$PORT/obj.txt" type="text/plain"></object>
<img src="http://127.0.0.1:$PORT/img.png">
<script>document.body.insertAdjacentText("afterbegin", "SCRIPT" + "-RAN-" + "MARK")</script>
</body></html>
HTML
	GAUNTLET_PDF=on "$RENDER" "$H3" >"$T/render.log" 2>&1
	rc=$?
	# 77: gauntlet found no browser it may use (it never looks on PATH)
	[ $rc -eq 77 ] && part_skip "3" "gl_report_pdf rendered nothing: $(head -1 "$T/render.log")"
fi
if [ $BROWSER_OK = 1 ] && [ $rc -ne 77 ]; then
	check "3: gl_report_pdf prints the hostile page (exit $rc: $(head -1 "$T/render.log"))" bash -c '[ $1 -eq 0 ] && [ -s "$2" ]' _ $rc "$H3/report.pdf"
	pdftotext "$H3/report.pdf" "$T/hostile.txt" 2>/dev/null
	check "3: ...its own text printed" grep -qF HOSTILE-PAGE-OWN-TEXT "$T/hostile.txt"
	check "3: ...a data: frame printed (frames had their chance to load before printing)" grep -qF DATA-FRAME-MARK "$T/hostile.txt"
	check "3: ...the file outside the run directory (iframe, object): not printed" not grep -qF "$SECRET" "$T/hostile.txt"
	check "3: ...a file inside the run directory (absolute and relative iframe): not printed" not grep -qF INSIDE-RUN-DIR-MARK "$T/hostile.txt"
	check "3: .../etc/hostname: not printed (${HOSTNAME_LINE:-no /etc/hostname})" no_host_line "$T/hostile.txt"
	check "3: ...the loopback server's file: not printed" not grep -qF HTTP-LOOPBACK-MARK "$T/hostile.txt"
	check "3: ...and no request reached the server ($(wc -l <"$T/http.requests") logged)" [ ! -s "$T/http.requests" ]
	check "3: ...the script: not run" not grep -qF "$SCRIPT_MARK" "$T/hostile.txt"
	check "3: ...no profile or temporary file left in the directory" \
		bash -c '[ "$(cd "$1" && ls -A | sort | tr "\n" " ")" = "inside.txt report.html report.pdf " ]' _ "$H3"
fi
ms=$((($(date +%s%N) - t1) / 1000000))
echo "   (part 3: $((ms / 1000)).$(printf %03d $((ms % 1000))) s)"
ms=$((($(date +%s%N) - t0) / 1000000))
echo "   (test_sec_reports: $((ms / 1000)).$(printf %03d $((ms % 1000))) s)"
finish
