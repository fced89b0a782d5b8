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
#     have the rows they should, and the text is there, escaped.
. "$(dirname "$0")/../scripts/lib.sh"
[ -x "$GAUNTLET" ] || skip "no gauntlet binary at $GAUNTLET"
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

ms=$((($(date +%s%N) - t0) / 1000000))
echo "   (test_sec_reports: $((ms / 1000)).$(printf %03d $((ms % 1000))) s)"
finish
