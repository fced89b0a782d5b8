#!/usr/bin/env python3
"""contract.py - the plug-in contract and the size rules, checked.

Five checks over the C sources (harness/, loadgen/, faults/, reports/;
comments are ignored, string literals are read as written):

  name    a workload or fault kind named by a string literal outside its
          own files. A literal names workload W when it is "W" or starts
          with "W." (a metric of W); it names fault kind K when it is "K".
          A plug-in's own files are those whose name starts with it (the
          table OWN below adds the helpers named otherwise). "null" and
          "exec" alone are not counted: JSON's null, the null transport
          and SSH's exec channel spell them too (a metric "null.x" is).
  sql     SQL outside the store: a call of sqlite3_* or gl_store_db() in
          a file other than the store's own (harness/core/store*).
  extern  an extern declaration of a symbol defined in a higher layer
          (scripts/layers.py's layers): a dependency no #include shows.
  func    a function longer than 100 lines (from the line that names it
          to its closing brace).
  file    a source file longer than 1,000 lines.

The code has debts the checks know of: tests/contract-debt.txt lists
each one as "CHECK WHERE AMOUNT" (a count of literals or calls, a line
count). The tree passes when every violation is in the list with an
amount at least the one measured, and every entry is still owed at that
amount: a new violation fails, a debt that grows fails, and a debt paid
(or partly paid) fails until its entry is lowered or removed, so the
list only shrinks. --write-debt rewrites the list from the tree (for a
maintainer who has just paid some; it refuses to add or raise an entry
unless --allow-growth is given too).

Usage: python3 scripts/contract.py [--write-debt [--allow-growth]] [ROOT]
Exit 0 clean, 1 a violation or a stale entry (one line each), 2 usage.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layers  # noqa: E402  (the layer table)

WORKLOADS = ("inference", "training", "storage", "telemetry", "null")
FAULT_KINDS = ("null", "exec", "process_kill", "storage_throttle", "link_flap", "partition", "drain_worker",
               "control_plane_loss", "model_swap", "gpu_throttle", "fabric_port", "gpu_xid")
# Files that belong to a plug-in though their name does not start with it:
# path prefix -> plug-in name. A workload's schema file is its own too.
OWN = {
    "loadgen/sse.": "inference", "loadgen/trace": "inference",
    "loadgen/fio.": "storage",
    "loadgen/nccltests": "training", "loadgen/train/": "training",
    "faults/cplane": "control_plane_loss",
    "faults/procsel.": "process_kill",
}
AMBIGUOUS = ("null", "exec")
STORE_PREFIX = "harness/core/store"     # store.c, store_read.c, store_int.h, ...
FUNC_MAX = 100
FILE_MAX = 1000
TOPS = ("harness", "loadgen", "faults", "reports")


def sources(root):
    out = []
    for top in TOPS:
        for dp, _, names in os.walk(os.path.join(root, top)):
            for n in names:
                if n.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(dp, n), root))
    return sorted(out)


strip_comments = layers.strip_comments


def owner(rel):
    base = os.path.basename(rel)
    for pre, who in OWN.items():
        if rel.startswith(pre):
            return {who}
    got = set()
    if rel.startswith(("loadgen/", "faults/")):
        for w in WORKLOADS + FAULT_KINDS:
            if base.startswith(w + ".") or base.startswith(w + "_"):
                got.add(w)
    return got


def check_names(rel, code, found):
    mine = owner(rel)
    for lit in re.findall(r'"((?:[^"\\\n]|\\.)*)"', code):
        for w in WORKLOADS:
            if w not in mine and ((lit == w and w not in AMBIGUOUS) or lit.startswith(w + ".")):
                found[("name", rel)] = found.get(("name", rel), 0) + 1
                break
        else:
            if lit in FAULT_KINDS and lit not in mine and lit not in WORKLOADS and lit not in AMBIGUOUS:
                found[("name", rel)] = found.get(("name", rel), 0) + 1


def check_sql(rel, code, found):
    if rel.startswith(STORE_PREFIX):
        return
    n = len(re.findall(r"\bsqlite3_\w+\s*\(", code)) + len(re.findall(r"\bgl_store_db\s*\(", code))
    if n:
        found[("sql", rel)] = n


def check_externs(rel, code, defs, found):
    for sym in layers.upward_externs(rel, code, defs):
        found[("extern", rel + ":" + sym)] = 1


def check_sizes(rel, text, found):
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    if len(lines) > FILE_MAX:
        found[("file", rel)] = len(lines)
    if not rel.endswith(".c"):
        return
    i = 0
    while i < len(lines):
        if lines[i] == "{" and i > 0:
            j = i - 1
            while j > 0 and "(" not in lines[j]:
                j -= 1
            m = re.search(r"(\w+)\s*\(", lines[j])
            k = i + 1
            while k < len(lines) and lines[k] != "}":
                k += 1
            n = k - j + 1
            if n > FUNC_MAX and m:
                found[("func", rel + ":" + m.group(1))] = n
            i = k
        i += 1


def measure(root):
    files = sources(root)
    defs = layers.definitions(root, files)
    found = {}
    for rel in files:
        text = open(os.path.join(root, rel), encoding="utf-8", errors="replace").read()
        code = strip_comments(text)
        check_names(rel, code, found)
        check_sql(rel, code, found)
        check_externs(rel, code, defs, found)
        check_sizes(rel, text, found)
    return found


def read_debt(path):
    debt = {}
    if not os.path.exists(path):
        return debt
    for ln, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 3 or not parts[2].isdigit() or parts[0] not in ("name", "sql", "extern", "func", "file"):
            sys.exit("%s:%d: expected CHECK WHERE AMOUNT, got: %s" % (path, ln, line))
        debt[(parts[0], parts[1])] = int(parts[2])
    return debt


HEADER = """# tests/contract-debt.txt - what scripts/contract.py knows the code still
# owes: CHECK WHERE AMOUNT, one per line (a count of literals or calls, a
# line count). The list only shrinks: pay a debt, then lower or remove its
# entry (python3 scripts/contract.py --write-debt).
"""

WHAT = {
    "name": "string literals naming a workload or fault kind outside its own files",
    "sql": "SQL calls outside the store",
    "extern": "extern of a symbol defined in a higher layer",
    "func": "lines in a function (at most %d)" % FUNC_MAX,
    "file": "lines in a file (at most %d)" % FILE_MAX,
}


def main():
    args = sys.argv[1:]
    write = "--write-debt" in args
    growth = "--allow-growth" in args
    rest = [a for a in args if a not in ("--write-debt", "--allow-growth")]
    if any(a.startswith("-") for a in rest) or len(rest) > 1 or (growth and not write):
        print(__doc__.split("Usage: ")[1].split("\n")[0], file=sys.stderr)
        return 2
    root = rest[0] if rest else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    path = os.path.join(root, "tests", "contract-debt.txt")
    found = measure(root)
    debt = read_debt(path)
    if write:
        grew = [k for k, v in found.items() if v > debt.get(k, 0)]
        if grew and not growth:
            for k in sorted(grew):
                print("contract.py: not writing: %s %s %d is new or larger than the list's %d"
                      % (k[0], k[1], found[k], debt.get(k, 0)), file=sys.stderr)
            return 1
        with open(path, "w", encoding="utf-8") as f:
            f.write(HEADER)
            for k in sorted(found):
                f.write("%s %s %d\n" % (k[0], k[1], found[k]))
        print("contract.py: wrote %d entries to %s" % (len(found), path))
        return 0
    bad = []
    for k in sorted(found):
        owed = debt.get(k)
        if owed is None:
            bad.append("%s: %s: %d %s (new)" % (k[1], k[0], found[k], WHAT[k[0]]))
        elif found[k] > owed:
            bad.append("%s: %s: %d %s, more than the %d tests/contract-debt.txt allows"
                       % (k[1], k[0], found[k], WHAT[k[0]], owed))
    for k in sorted(debt):
        if found.get(k, 0) < debt[k]:
            bad.append("%s: %s: %d in tests/contract-debt.txt, %d now: paid, lower or remove the entry"
                       % (k[1], k[0], debt[k], found.get(k, 0)))
    totals = {}
    for (c, _), v in found.items():
        t = totals.setdefault(c, [0, 0])
        t[0] += 1
        t[1] += v
    for c in ("name", "sql", "extern", "func", "file"):
        t = totals.get(c, [0, 0])
        print("contract: %-6s %3d places, %5d in all (%s)" % (c, t[0], t[1], WHAT[c]))
    for b in bad:
        print(b)
    print("contract: %s" % ("clean (every violation a listed debt)" if not bad else "%d problems" % len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
