#!/usr/bin/env python3
"""schema_check.py - validate report.json and manifest.json files against
docs/report.schema.json and docs/manifest.schema.json (JSON Schema draft
2020-12, python3-jsonschema).

    schema_check.py DIR|FILE...

A DIR is searched (recursively) for files named report.json and
manifest.json; a FILE is validated by its name (a name other than those
two is taken as a report.json unless it contains "manifest"). Prints one
line per invalid file (FAIL FILE: PATH: MESSAGE, its first error) and
one per further error ("  and FILE: PATH: MESSAGE"), then
"schema: N report.json, M manifest.json valid".

Exit 0: every file valid (also when none was found); 1: some file invalid
or unreadable; 2: bad usage, or a schema that is itself invalid; 3:
python3-jsonschema (Draft202012Validator) is not installed.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.join(HERE, "..", "..", "docs")


def deepest(error):
    """Under oneOf/anyOf the error itself only says "not valid under any":
    take the most relevant error of its branches, down to a leaf."""
    from jsonschema.exceptions import best_match
    while error.context:
        error = best_match(error.context)
    return error


def json_path(error):
    p = "$"
    for k in error.absolute_path:
        p += "[%d]" % k if isinstance(k, int) else "." + k if k.replace("_", "").isalnum() else "[%r]" % k
    return p


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        sys.stderr.write(__doc__)
        return 2
    try:
        from jsonschema import Draft202012Validator
    except ImportError as e:
        print("schema: python3-jsonschema with Draft202012Validator is not installed (%s)" % e)
        return 3
    validators = {}
    for kind in ("report", "manifest"):
        path = os.path.join(DOCS, kind + ".schema.json")
        try:
            with open(path) as f:
                schema = json.load(f)
            Draft202012Validator.check_schema(schema)
        except Exception as e:  # an invalid schema fails everything
            print("FAIL schema %s: %s" % (path, str(e).splitlines()[0]))
            return 2
        validators[kind] = Draft202012Validator(schema)

    files = []
    for a in argv[1:]:
        if os.path.isdir(a):
            for root, dirs, names in os.walk(a):
                dirs.sort()
                for n in sorted(names):
                    if n in ("report.json", "manifest.json"):
                        files.append(os.path.join(root, n))
        elif os.path.exists(a):
            files.append(a)
        else:
            print("FAIL %s: no such file or directory" % a)
            return 2
    valid = {"report": 0, "manifest": 0}
    bad = 0
    for f in files:
        kind = "manifest" if "manifest" in os.path.basename(f) else "report"
        try:
            with open(f) as fh:
                doc = json.load(fh)
        except (OSError, ValueError) as e:
            print("FAIL %s: not readable JSON: %s" % (f, e))
            bad += 1
            continue
        errors = sorted((deepest(e) for e in validators[kind].iter_errors(doc)),
                        key=lambda e: [str(k) for k in e.absolute_path])
        if not errors:
            valid[kind] += 1
            continue
        bad += 1
        for i, e in enumerate(errors[:20]):
            msg = e.message if len(e.message) < 300 else e.message[:300] + "..."
            print("%s %s: %s: %s" % ("FAIL" if i == 0 else "  and", f, json_path(e), msg))
        if len(errors) > 20:
            print("  and %s: %d more errors" % (f, len(errors) - 20))
    print("schema: %d report.json, %d manifest.json valid%s" %
          (valid["report"], valid["manifest"], ", %d invalid" % bad if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
