#!/usr/bin/env python3
"""jschema_diff.py - the C validator (gl_jschema_check, harness/lib/jschema.c)
against python3-jsonschema (Draft202012Validator) on the same files.

    jschema_diff.py TOOL DOCS_DIR OUT_DIR COUNT FILE...

Each FILE (a report.json or manifest.json, told apart by "manifest" in its
name) is checked as it is, then COUNT edited copies of each are written
to OUT_DIR and checked: one edit per copy at a node picked by a seeded
random generator (a key removed, a key added, an item appended, a value
replaced by a string, a number, a fraction, a negative, null, a boolean,
an array or an object; among them a string the schema's patterns refuse,
a number past its maxima, a key its propertyNames refuse). For every file
both must agree on valid or not, and the path of the C validator's first
error must be the path of one of Python's errors. Prints one line per disagreement, then "jschema_diff: N
files (V valid, I invalid), D disagreements". Exit 0: none; 1: some; 3:
python3-jsonschema is not installed.
"""
import copy
import json
import os
import random
import subprocess
import sys

VALUES = ["x", "", 1, -1, 1.5, 0, None, True, False, [], {}, "none: x", "fired",
          "armed?", "unavailable", 2, 1e9, "measured"]
KEYS = ["zz_extra", "Zz-extra"]


def kind_of(path):
    return "manifest" if "manifest" in os.path.basename(path) else "report"


def nodes(v, p=()):
    yield p, v
    if isinstance(v, dict):
        for k, x in v.items():
            yield from nodes(x, p + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from nodes(x, p + (i,))


def edit(doc, rnd):
    r = copy.deepcopy(doc)
    p, _ = rnd.choice(list(nodes(r)))
    op = rnd.choice(["del", "add", "set", "set", "set"]) if p else "add"
    parent = r
    for k in p[:-1]:
        parent = parent[k]
    target = parent[p[-1]] if p else r
    if op == "del":
        del parent[p[-1]]
    elif op == "add" and isinstance(target, dict):
        target[rnd.choice(KEYS)] = rnd.choice(VALUES)
    elif op == "add" and isinstance(target, list):
        target.append(rnd.choice(VALUES))
    elif p:
        parent[p[-1]] = rnd.choice(VALUES)
    return r


def pointer(path):
    return "/" + "/".join(str(k).replace("~", "~0").replace("/", "~1") for k in path) if path else "/"


def main(argv):
    if len(argv) < 6:
        sys.stderr.write(__doc__)
        return 2
    tool, docs, out, count, files = argv[1], argv[2], argv[3], int(argv[4]), argv[5:]
    try:
        from jsonschema import Draft202012Validator
    except ImportError:
        return 3
    validators = {k: Draft202012Validator(json.load(open(os.path.join(docs, k + ".schema.json"))))
                  for k in ("report", "manifest")}
    rnd = random.Random(20240613)
    todo = {"report": [], "manifest": []}
    for f in files:
        kind = kind_of(f)
        todo[kind].append(f)
        doc = json.load(open(f))
        for i in range(count):
            name = os.path.join(out, "%s-%04d.%s.json" % (os.path.basename(os.path.dirname(os.path.abspath(f))), i, kind))
            with open(name, "w") as fh:
                json.dump(edit(doc, rnd), fh)
            todo[kind].append(name)
    n = valid = bad = 0
    for kind, fs in todo.items():
        if not fs:
            continue
        res = subprocess.run([tool, os.path.join(docs, kind + ".schema.json")] + fs,
                             capture_output=True, text=True)
        if res.returncode not in (0, 1):
            print("FAIL gl_jschema_check exited %d: %s" % (res.returncode, res.stderr.strip()))
            return 1
        said = dict(line.split(": ", 1) for line in res.stdout.splitlines())
        for f in fs:
            n += 1
            errors = list(validators[kind].iter_errors(json.load(open(f))))
            c = said.get(f, "(no line)")
            if not errors:
                valid += 1
                if c != "valid":
                    print("DISAGREE %s: python valid, C %s" % (f, c))
                    bad += 1
                continue
            paths = sorted({pointer(e.absolute_path) for e in errors})
            if not c.startswith("invalid, "):
                print("DISAGREE %s: python invalid (%s: %s), C %s" %
                      (f, pointer(errors[0].absolute_path), errors[0].message, c))
                bad += 1
            elif c.split(": ", 1)[1].split(": ", 1)[0] not in paths:
                print("DIFFER %s: C %s; python's error paths %s" % (f, c, paths))
                bad += 1
    print("jschema_diff: %d files (%d valid, %d invalid), %d disagreements" % (n, valid, n - valid, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
