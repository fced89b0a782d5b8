#!/usr/bin/env python3
"""layers.py - dependencies point one way.

Every source file belongs to a layer; a file may include headers of its
own layer and of the layers below it, never of a layer above it, nor of a
sibling at its rank (workloads and faults do not include each other).
Bottom to top:

  0 lib        harness/lib: generic code, no gauntlet concept (util, hist,
               sha256, json with comments, units, addresses, Prometheus
               text, one HTTP request, secrets, confined paths, diagnostics)
  1 scenario   harness/scenario: the scenario document and what checks it
               (schema getters, the metric catalogue, the plug-in interface
               and registry, the timeline); harness/transport: the
               transports that run commands on hosts
  2 core       harness/core: the engine (controller, context, fault
               executor, commands, metrics, store, analysis, live view,
               children, inventory); harness/evidence: seal and verify
  3 workloads  loadgen/; faults/; beside them the lab (harness/lab) and
    faults     the test target (harness/target)
  4 reports    reports/
  5 cli        harness/cli: the command line, which renders reports after
               a run

Beyond includes it reads what includes do not show: an `extern` of a
symbol that a higher layer defines is upward too, and the registry's rules
hold (harness/scenario/plugin.h: each ops table in loadgen/ and faults/ is
static and registered beside its definition, once, with a rank no other
plug-in of its family has).

Usage: python3 scripts/layers.py [ROOT]   (exit 1 and one line per upward
include, upward extern or registry breach; the table below is the layout:
a file it does not place is an error too, so a new file must be given its
layer.)
"""
import os
import re
import sys

LIB, SCENARIO, CORE, WORK, REPORTS, CLI = 0, 1, 2, 3, 4, 5
NAMES = {LIB: "lib", SCENARIO: "scenario", CORE: "core", WORK: "workloads/faults", REPORTS: "reports", CLI: "cli"}

# harness/ folders (the .c and .h files in them)
HARNESS = {
    "lib": (LIB, "lib"),
    "scenario": (SCENARIO, "scenario"),
    "transport": (SCENARIO, "transport"),
    "core": (CORE, "core"),
    "evidence": (CORE, "evidence"),
    "lab": (WORK, "lab"),
    "target": (WORK, "target"),
    "cli": (CLI, "cli"),
}


def layer_of(rel):
    """(layer, group) of a path relative to the root, or None."""
    parts = rel.split("/")
    top = parts[0]
    if top == "harness":
        return HARNESS.get(parts[1]) if len(parts) == 3 else None
    if top == "loadgen":
        return WORK, "loadgen"
    if top == "faults":
        return WORK, "faults"
    if top == "reports":
        return REPORTS, "reports"
    return None


def strip_comments(text):
    """Comments blanked (newlines kept, so line numbers hold); strings kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        else:
            out.append(c)
            i += 1
    return "".join(out)



def definitions(root, files):
    """symbol -> file of its (non-static) definition at file scope."""
    defs = {}
    for rel in files:
        if not rel.endswith(".c"):
            continue
        code = strip_comments(open(os.path.join(root, rel), encoding="utf-8", errors="replace").read())
        for m in re.finditer(r"^(?!static\b|extern\b)[A-Za-z_][\w \*]*?\b(\w+)\s*(?:\[[^\]]*\])?\s*(?:=|\()",
                             code, re.M):
            defs.setdefault(m.group(1), rel)
    return defs


def upward_externs(rel, code, defs):
    """The symbols rel declares extern that a higher layer defines: a
    dependency no #include shows (code: rel with comments stripped)."""
    me = layer_of(rel)
    out = []
    if me is None:
        return out
    for m in re.finditer(r"^\s*extern\s+[^;(]*?\b(\w+)\s*(?:\[[^\]]*\])?\s*;", code, re.M):
        where = defs.get(m.group(1))
        them = layer_of(where) if where else None
        if them and them[0] > me[0]:
            out.append(m.group(1))
    return out


REG_DEF = re.compile(r"^(static\s+)?const\s+struct\s+gl_(workload|fault)_ops\s+(\w+)\s*=", re.M)
REG_USE = re.compile(r"^GL_REGISTER_(WORKLOAD|FAULT)\((\w+),\s*(\d+)\)", re.M)


def registry_problems(rel, code, ranks):
    """The registry's rules in one file: a plug-in's ops table (in loadgen/
    or faults/) is static and registered beside its definition, once, with
    a rank no other plug-in of its family has (ranks: (family, rank) ->
    file, filled across files)."""
    bad, defined = [], {}
    plugin = rel.startswith(("loadgen/", "faults/"))
    for m in REG_DEF.finditer(code if plugin else ""):
        defined[m.group(3)] = m.group(2)
        if not m.group(1):
            bad.append("%s: ops table %s is not static: a plug-in is reached through the registry only" %
                       (rel, m.group(3)))
    used = {}
    for m in REG_USE.finditer(code):
        fam, sym, rank = m.group(1).lower(), m.group(2), int(m.group(3))
        if not plugin:
            bad.append("%s: registers %s outside loadgen/ and faults/, where plug-ins live" % (rel, sym))
        if defined.get(sym) != fam:
            bad.append("%s: registers %s, not a %s ops table defined in this file" % (rel, sym, fam))
        if sym in used:
            bad.append("%s: registers %s twice" % (rel, sym))
        used[sym] = rank
        other = ranks.setdefault((fam, rank), rel)
        if other != rel:
            bad.append("%s: %s rank %d is also %s's" % (rel, fam, rank, other))
    for sym in defined:
        if sym not in used:
            bad.append("%s: ops table %s is never registered (GL_REGISTER_%s)" % (rel, sym, defined[sym].upper()))
    return bad


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    files, by_name = [], {}
    for top in ("harness", "loadgen", "faults", "reports"):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for n in names:
                if n.endswith((".c", ".h")):
                    rel = os.path.relpath(os.path.join(dirpath, n), root)
                    files.append(rel)
                    if n.endswith(".h"):
                        by_name.setdefault(n, []).append(rel)
    bad = []
    for rel in sorted(files):
        me = layer_of(rel)
        if me is None:
            bad.append("%s: no layer (give it one in scripts/layers.py)" % rel)
            continue
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                inc = os.path.basename(m.group(1))
                # the header a quoted include names: beside the file first, else by name
                here = os.path.join(os.path.dirname(rel), inc)
                target = here if os.path.exists(os.path.join(root, here)) else (by_name.get(inc) or [None])[0]
                if target is None:
                    continue   # a system or generated header
                them = layer_of(target)
                if them is None:
                    continue   # reported as the file's own line
                if them[0] > me[0]:
                    bad.append("%s:%d: includes %s (%s) from %s: upward" % (rel, lineno, target, NAMES[them[0]],
                                                                           NAMES[me[0]]))
                elif them[0] == me[0] == WORK and them[1] != me[1] and {me[1], them[1]} == {"loadgen", "faults"}:
                    bad.append("%s:%d: includes %s: workloads and faults do not include each other" %
                               (rel, lineno, target))
    n_inc = len(bad)
    defs, ranks = definitions(root, files), {}
    n_ext = 0
    for rel in sorted(files):
        code = strip_comments(open(os.path.join(root, rel), encoding="utf-8", errors="replace").read())
        for sym in upward_externs(rel, code, defs):
            bad.append("%s: extern %s, defined in %s (%s): upward" % (rel, sym, defs[sym], NAMES[layer_of(defs[sym])[0]]))
            n_ext += 1
        bad.extend(registry_problems(rel, code, ranks))
    for b in bad:
        print(b)
    print("layers: %d file(s), %d upward or sideways include(s), %d upward extern(s), %d registry problem(s)"
          % (len(files), n_inc, n_ext, len(bad) - n_inc - n_ext))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
