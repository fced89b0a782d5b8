#!/usr/bin/env python3
"""dupes.py - find copied code: identical runs of MIN (default 6) or more
significant lines in the C sources (*.c, *.h) under the given directories
(default: harness loadgen faults reports).

What counts as a line:
  - each line is normalised: leading and trailing whitespace dropped, every
    other run of whitespace made one space (so re-indented copies match);
  - blank lines, lines of nothing but braces, brackets, parentheses, commas
    and semicolons ("}", "};", "});"), comment-only lines ("// ...",
    "/* ... */", " * ..." inside a block comment) and #include lines are
    skipped: they neither count towards a run nor break one. Comments are
    skipped because a copy with a reworded comment is still a copy, and a
    shared comment block alone is not duplicated code; two files including
    the same headers are not copies of each other. Text after code on the
    same line is kept (a trailing comment too: rarely worth the parsing).
A run is maximal: it cannot be extended by one more significant line at
either end. Runs in one file may not overlap themselves.

Output: one line per pair, "N lines: fileA:FIRST-LAST  fileB:FIRST-LAST"
(line numbers of the files as they are), then the total: pairs, and
duplicated lines = distinct significant lines that lie in some run (a line
copied three times counts three times; each copy is a line to maintain).
Exit status 0 (it reports, it does not judge).

Usage: dupes.py [--min N] [--quiet] [DIR_OR_FILE ...]
"""
import os
import re
import sys

SKIP_RE = re.compile(r"^[{}()\[\];,]*$")


def significant_lines(path):
    """[(lineno, normalised text)] of the lines that count."""
    out = []
    in_comment = False
    with open(path, encoding="utf-8", errors="replace") as f:
        for no, raw in enumerate(f, 1):
            s = " ".join(raw.split())
            if in_comment:
                end = s.find("*/")
                if end < 0:
                    continue
                in_comment = False
                s = s[end + 2:].strip()
            if not s or SKIP_RE.match(s):
                continue
            if s.startswith("//") or s.startswith("#include"):
                continue
            if s.startswith("/*"):
                end = s.find("*/", 2)
                if end < 0:
                    in_comment = True
                    continue
                rest = s[end + 2:].strip()
                if not rest or SKIP_RE.match(rest):
                    continue
                s = rest
            out.append((no, s))
    return out


def sources(args):
    files = []
    for a in args:
        if os.path.isfile(a):
            files.append(a)
            continue
        for root, dirs, names in os.walk(a):
            dirs.sort()
            for n in sorted(names):
                if n.endswith((".c", ".h")):
                    files.append(os.path.join(root, n))
    return files


def main(argv):
    k = 6
    quiet = False
    args = []
    i = 0
    while i < len(argv):
        if argv[i] == "--min":
            k = int(argv[i + 1])
            i += 2
            continue
        if argv[i] == "--quiet":
            quiet = True
        else:
            args.append(argv[i])
        i += 1
    if not args:
        args = ["harness", "loadgen", "faults", "reports"]
    files = sources(args)
    lines = [significant_lines(f) for f in files]
    texts = [[t for _, t in ls] for ls in lines]

    # every window of k significant lines, by content
    windows = {}
    for fi, ts in enumerate(texts):
        for j in range(len(ts) - k + 1):
            windows.setdefault(tuple(ts[j:j + k]), []).append((fi, j))

    pairs = []
    for locs in windows.values():
        if len(locs) < 2:
            continue
        for x in range(len(locs)):
            for y in range(x + 1, len(locs)):
                (fa, a), (fb, b) = locs[x], locs[y]
                ta, tb = texts[fa], texts[fb]
                # not maximal on the left: the pair one line up covers it
                if a > 0 and b > 0 and ta[a - 1] == tb[b - 1]:
                    continue
                n = k
                while a + n < len(ta) and b + n < len(tb) and ta[a + n] == tb[b + n]:
                    if fa == fb and a + n >= b:
                        break
                    n += 1
                if fa == fb and a + n > b:
                    continue   # a run overlapping itself (repetitive lines)
                pairs.append((n, fa, a, fb, b))

    dup = set()
    pairs.sort(key=lambda p: (-p[0], files[p[1]], p[2], files[p[3]], p[4]))
    for n, fa, a, fb, b in pairs:
        la, lb = lines[fa], lines[fb]
        for d in range(n):
            dup.add((fa, a + d))
            dup.add((fb, b + d))
        if not quiet:
            print("%d lines: %s:%d-%d  %s:%d-%d" % (n, files[fa], la[a][0], la[a + n - 1][0],
                                                  files[fb], lb[b][0], lb[b + n - 1][0]))
    total = sum(len(t) for t in texts)
    print("dupes: %d pair(s) of identical runs of >= %d significant lines; %d of %d significant lines "
          "(%.1f%%) in %d file(s) lie in one" % (len(pairs), k, len(dup), total,
                                                 100.0 * len(dup) / total if total else 0.0, len(files)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
