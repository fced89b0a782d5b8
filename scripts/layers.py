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

Usage: python3 scripts/layers.py [ROOT]   (exit 1 and one line per upward
include; the table below is the layout: a file it does not place is an
error too, so a new file must be given its layer.)
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
    for b in bad:
        print(b)
    print("layers: %d file(s), %d upward or sideways include(s)" % (len(files), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
