#!/usr/bin/env python3
"""pdf_check.py - is report.pdf the report it claims to be? Checked against
the run's own report.html and report.json with poppler-utils (pdfinfo,
pdftotext, pdftoppm), none of which gauntlet uses:

  pdf_check.py REPORT.pdf REPORT.html REPORT.json

  - it opens (pdfinfo), every page A4 portrait;
  - every section of the HTML (each <h2>) begins a page of its own, in
    order, so the page count is at least the number of sections;
  - every chart of the HTML (each <figure> with its caption "NAME (UNIT)
    per ...") is found on a page, and that page is drawn: rendered at 40
    dpi, it has ink (non-white pixels) and colour (a chart's lines, bands
    and marks are coloured; text is grey), at least as much per chart as a
    chart's frame and line give;
  - the Nodes section's pages hold its heatmaps' cells (tinted pixels:
    the cells are pale green to red, text is grey), when it has any;
  - the last page is the sign-off: its text holds the run id, the verdict
    and the scenario's sha256 as report.json gives them.

Prints one line per finding; exit 0 when all hold, 1 otherwise.
"""
import html as htmlmod
import json
import re
import subprocess
import sys
import tempfile

def run(*a):
    return subprocess.run(a, capture_output=True, text=True, check=True).stdout

def norm(s):
    return re.sub(r"\s+", " ", s).strip()

def ink(pdf, page):
    """(non-white fraction, coloured pixel count, tinted pixel count) of a
    page at 40 dpi: coloured is strong colour (a chart's lines and marks),
    tinted any colour at all (a heatmap's pale cells; text is grey)."""
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["pdftoppm", "-r", "40", "-f", str(page), "-l", str(page), "-singlefile", pdf, d + "/p"],
                       check=True)
        data = open(d + "/p.ppm", "rb").read()
    # P6 header: magic, width, height, maxval, one whitespace byte
    m = re.match(rb"P6\s+(\d+)\s+(\d+)\s+(\d+)\s", data)
    w, h = int(m.group(1)), int(m.group(2))
    px = data[m.end():]
    nonwhite = coloured = tinted = 0
    for i in range(0, w * h * 3, 3):
        r, g, b = px[i], px[i + 1], px[i + 2]
        if r < 235 or g < 235 or b < 235:
            nonwhite += 1
        spread = max(r, g, b) - min(r, g, b)
        if spread > 60:
            coloured += 1
        if spread > 12:
            tinted += 1
    return nonwhite / (w * h), coloured, tinted

def main():
    pdf, html_path, json_path = sys.argv[1:4]
    bad = []
    info = run("pdfinfo", pdf)
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    print("pages: %d" % pages)
    sizes = run("pdfinfo", "-f", "1", "-l", str(pages), pdf)
    for m in re.finditer(r"^Page\s+(\d+) size:\s+([\d.]+) x ([\d.]+) pts", sizes, re.M):
        wpt, hpt = float(m.group(2)), float(m.group(3))
        if abs(wpt - 595.3) > 2 or abs(hpt - 841.9) > 2:
            bad.append("page %s is %.1f x %.1f pts, not A4 portrait" % (m.group(1), wpt, hpt))
    text = [None] + [norm(run("pdftotext", "-f", str(p), "-l", str(p), "-layout", pdf, "-"))
                     for p in range(1, pages + 1)]
    src = open(html_path, encoding="utf-8").read()

    # sections: each h2 opens a page, in order
    h2 = [norm(htmlmod.unescape(re.sub(r"<[^>]+>", "", t))) for t in re.findall(r"<h2[^>]*>(.*?)</h2>", src, re.S)]
    page, starts = 1, {}
    for i, title in enumerate(h2):
        found = None
        for p in range(page if i == 0 else page + 1, pages + 1):
            if text[p].startswith(title):
                found = p
                break
        if i == 0:   # the first section shares page 1 with the verdict
            found = next((p for p in range(1, pages + 1) if title in text[p]), None)
        if found is None:
            bad.append("section '%s' does not begin a page after page %d" % (title, page))
        else:
            page = found
            starts[title] = found
    print("sections: %d, each beginning a page" % len(h2) if not bad else "sections: %d" % len(h2))
    if pages < len(h2):
        bad.append("%d page(s) for %d sections" % (pages, len(h2)))

    # charts: each caption on a page that is drawn
    caps = re.findall(r'<figcaption id="cap-[^"]*"><strong>(.*?)</strong> \((.*?)\) per', src, re.S)
    if not caps:
        bad.append("report.html has no chart")
    on_page = {}
    for name, unit in caps:
        key = norm("%s (%s) per" % (htmlmod.unescape(name), htmlmod.unescape(unit)))
        p = next((p for p in range(1, pages + 1) if key in text[p]), None)
        if p is None:
            bad.append("chart '%s': its caption is on no page" % key)
            continue
        on_page.setdefault(p, []).append(key)
    for p, keys in sorted(on_page.items()):
        frac, col, _ = ink(pdf, p)
        # a chart at 40 dpi: its frame, axes and line alone are well over
        # 1 % of the page; coloured: bands, the line, threshold and marks
        need_col = 150 * len(keys)
        ok = frac >= 0.01 * len(keys) and col >= need_col
        print("page %d: %d chart(s) %s: ink %.1f %%, %d coloured pixels (need %d): %s" %
              (p, len(keys), ", ".join(k.split(" (")[0] for k in keys), 100 * frac, col, need_col,
               "drawn" if ok else "BLANK"))
        if not ok:
            bad.append("page %d with chart(s) %s looks blank" % (p, ", ".join(keys)))
    print("charts: %d in report.html, %d found drawn" % (len(caps), sum(len(k) for k in on_page.values())))

    # heatmaps (the Nodes section): its pages hold the tinted cells of
    # every heatmap (at 40 dpi one of 60 columns by R rows is about 260 x
    # 5R pixels, its cells pale green to red; text and tables are grey)
    heats = re.findall(r'<svg class="heat"[^>]* height="(\d+)"', src)
    if heats:
        first = starts.get("Nodes")
        if first is None:
            bad.append("heatmaps in report.html, but no Nodes section begins a page")
        else:
            later = sorted(p for p in starts.values() if p > first)
            last_p = (later[0] - 1) if later else pages
            rows = sum(max(1, (int(hh) - 14) // 12) for hh in heats)
            need = 150 * rows
            tinted = sum(ink(pdf, p)[2] for p in range(first, max(first, last_p) + 1))
            ok = tinted >= need
            print("nodes: %d heatmap(s), %d row(s) on pages %d-%d: %d tinted pixels (need %d): %s" %
                  (len(heats), rows, first, max(first, last_p), tinted, need, "drawn" if ok else "BLANK"))
            if not ok:
                bad.append("the Nodes section's heatmaps look blank (%d tinted pixels, need %d)" % (tinted, need))

    # sign-off on the last page
    r = json.load(open(json_path))
    last = text[pages].replace(" ", "")
    want = {"Sign-off": "Sign-off", "run id": r["run"]["id"], "verdict": r["verdict"].upper(),
            "scenario sha256": r["run"]["scenario_sha256"]}
    for what, v in want.items():
        if v.replace(" ", "") not in last:
            bad.append("last page: no %s (%s)" % (what, v))
    if not any(b.startswith("last page") for b in bad):
        print("last page: sign-off with run %s, verdict %s, scenario sha256 %s..." %
              (r["run"]["id"], r["verdict"], r["run"]["scenario_sha256"][:12]))
    for b in bad:
        print("FAIL: " + b)
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
