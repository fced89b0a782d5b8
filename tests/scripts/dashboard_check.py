#!/usr/bin/env python3
"""dashboard_check.py [--all] DASHBOARD SCRAPE_FILE... - every series a
Grafana dashboard queries is one the metrics endpoint really serves.

DASHBOARD is a Grafana dashboard JSON (contrib/grafana/gauntlet.json);
each SCRAPE_FILE is the Prometheus text of one scrape of
`gauntlet run --metrics-listen` (curl -s http://ADDR/metrics).

For every panel (rows and their collapsed panels included) it parses each
target's PromQL `expr` and takes out every series selector: the metric
name (an identifier not followed by `(`, not a PromQL keyword, not a label
name inside `{...}` or in `by (...)`, `without (...)`, `on (...)`,
`ignoring (...)`, `group_left (...)`, `group_right (...)`; range and
subquery brackets, strings, numbers and durations skipped; Grafana
variables such as `$__rate_interval` or `${job}` set aside) and its label
matchers. A selector is found when some series of some scrape has that
name and satisfies every matcher whose value holds no Grafana variable.
Matchers on `job` and `instance` are not judged: Prometheus adds those
labels when it scrapes, a raw scrape never has them. A name used as
NAME_bucket, NAME_sum or NAME_count is found when the scrape has that
series or declares NAME a histogram or summary (`# TYPE`). A recording
rule's name (`level:metric:operations`, with colons) is in no scrape of
the endpoint: it is reported absent, like any other name not served.

Some series exist only in some runs or at some moments: a target that
carries `"gauntletOptional": "WHY"` (Grafana keeps a query's extra keys)
selects such a series (a fault's gauntlet_fault_active exists only while
it is injected; goodput only with an slo). Absent, it is reported with
WHY and does not fail the check, unless --all is given (a run that has
them all, as test_dashboard's does).

Prints each selector with the scrapes that have it and the panels that
use it. Exit 0 when all are found; 1 when any is absent (each listed), a
panel other than a row or text has no datasource or no target, or a
target has no expr; 2 on unreadable input.
"""
import json
import re
import sys

KEYWORDS = {
    "by", "without", "on", "ignoring", "group_left", "group_right", "bool",
    "and", "or", "unless", "offset", "inf", "nan", "atan2",
}
# keywords followed by a parenthesized list of label names
LABEL_LISTS = {"by", "without", "on", "ignoring", "group_left", "group_right"}
# functions that act as modifiers after @
AT_FUNCS = {"start", "end"}
PROM_ADDED = {"job", "instance"}

IDENT = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
NUMBER = re.compile(r"(0[xX][0-9a-fA-F]+|(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?)((ms|s|m|h|d|w|y)(\d+(ms|s|m|h|d|w|y))*)?")
VAR = re.compile(r"\$(\{[^}]*\}|[a-zA-Z0-9_]+|__[a-zA-Z_]+)")


class ParseError(Exception):
    pass


def read_string(s, i):
    """A PromQL string at s[i] (", ' or `): (value, index after it)."""
    q = s[i]
    j = i + 1
    out = []
    while j < len(s):
        c = s[j]
        if c == "\\" and q != "`" and j + 1 < len(s):
            out.append(s[j + 1])
            j += 2
            continue
        if c == q:
            return "".join(out), j + 1
        out.append(c)
        j += 1
    raise ParseError("unterminated string at %d" % i)


def skip_ws(s, i):
    while i < len(s) and s[i].isspace():
        i += 1
    # a comment runs to the end of the line
    if i < len(s) and s[i] == "#":
        while i < len(s) and s[i] != "\n":
            i += 1
        return skip_ws(s, i)
    return i


def read_matchers(s, i):
    """Label matchers in {...} starting at s[i] == '{': (list, index after)."""
    assert s[i] == "{"
    i += 1
    ms = []
    while True:
        i = skip_ws(s, i)
        if i >= len(s):
            raise ParseError("unterminated {")
        if s[i] == "}":
            return ms, i + 1
        if s[i] == ",":
            i += 1
            continue
        m = IDENT.match(s, i)
        if not m:
            # a quoted label name (Prometheus 3) or a bare quoted metric name
            if s[i] in "\"'`":
                v, i = read_string(s, i)
                j = skip_ws(s, i)
                if j < len(s) and s[j] in ",}":
                    ms.append(("__name__", "=", v))
                    i = j
                    continue
                name = v
            else:
                raise ParseError("bad label matcher at %d: %r" % (i, s[i:i + 20]))
        else:
            name = m.group(0)
            i = m.end()
        i = skip_ws(s, i)
        op = None
        for o in ("=~", "!~", "!=", "="):
            if s.startswith(o, i):
                op = o
                break
        if not op:
            raise ParseError("no operator after label %s at %d" % (name, i))
        i = skip_ws(s, i + len(op))
        if i >= len(s) or s[i] not in "\"'`":
            raise ParseError("label %s: value is not a string at %d" % (name, i))
        v, i = read_string(s, i)
        ms.append((name, op, v))


def skip_label_list(s, i):
    """After by/without/on/...: an optional (label, ...) list."""
    j = skip_ws(s, i)
    if j < len(s) and s[j] == "(":
        k = s.find(")", j)
        if k < 0:
            raise ParseError("unterminated label list at %d" % j)
        return k + 1
    return i


def selectors(expr):
    """Every series selector of a PromQL expression: [(name, matchers)]."""
    s = expr
    out = []
    i = 0
    while True:
        i = skip_ws(s, i)
        if i >= len(s):
            return out
        c = s[i]
        if c in "\"'`":
            _, i = read_string(s, i)
            continue
        if c == "$":
            m = VAR.match(s, i)
            i = m.end() if m else i + 1
            continue
        if c == "[":
            # a range or subquery: durations and Grafana variables only
            k = s.find("]", i)
            if k < 0:
                raise ParseError("unterminated [ at %d" % i)
            i = k + 1
            continue
        if c == "{":
            ms, i = read_matchers(s, i)
            names = [v for (n, o, v) in ms if n == "__name__" and o == "="]
            out.append((names[0] if names else None, [x for x in ms if x[0] != "__name__" or x[1] != "="]))
            continue
        if c.isdigit() or (c == "." and i + 1 < len(s) and s[i + 1].isdigit()):
            m = NUMBER.match(s, i)
            i = m.end() if m else i + 1
            continue
        m = IDENT.match(s, i)
        if m:
            word = m.group(0)
            i = m.end()
            j = skip_ws(s, i)
            nxt = s[j] if j < len(s) else ""
            low = word.lower()
            if low in LABEL_LISTS:
                i = skip_label_list(s, i)
                continue
            if low == "offset":
                j = skip_ws(s, i)
                if j < len(s) and s[j] == "-":
                    j += 1
                m2 = NUMBER.match(s, j)
                if m2:
                    i = m2.end()
                else:
                    m2 = VAR.match(s, j)
                    i = m2.end() if m2 else i
                continue
            if low in KEYWORDS:
                continue
            if nxt == "(":
                continue   # a function or an aggregation
            m2 = IDENT.match(s, j)
            if m2 and m2.group(0).lower() in ("by", "without"):
                continue   # an aggregation with its modifier first: sum by (x) (...)
            ms = []
            if nxt == "{":
                ms, i = read_matchers(s, j)
            out.append((word, ms))
            continue
        # operators, parentheses, commas, @
        if c == "@":
            j = skip_ws(s, i + 1)
            m = IDENT.match(s, j)
            if m and m.group(0) in AT_FUNCS:
                k = skip_ws(s, m.end())
                if k < len(s) and s[k] == "(":
                    k = s.find(")", k)
                    i = k + 1 if k >= 0 else len(s)
                    continue
            i += 1
            continue
        i += 1


LINE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+\S+)?$")
LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?')


def unescape(v):
    return v.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")


def parse_scrape(path):
    """{name: [labels dict, ...]}, {name: type} of one scrape file."""
    series, types = {}, {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            if line.startswith("#"):
                p = line.split()
                if len(p) >= 4 and p[1] == "TYPE":
                    types[p[2]] = p[3]
                continue
            m = LINE.match(line)
            if not m:
                raise ParseError("%s:%d: not a Prometheus text line: %r" % (path, n, line[:80]))
            labels = {k: unescape(v) for k, v in LABEL.findall(m.group(3) or "")}
            series.setdefault(m.group(1), []).append(labels)
    return series, types


def templated(v):
    return "$" in v


def matches(labels, ms):
    for name, op, v in ms:
        if name in PROM_ADDED or templated(v):
            continue
        have = labels.get(name, "")
        if op == "=" and have != v:
            return False
        if op == "!=" and have == v:
            return False
        if op in ("=~", "!~"):
            try:
                hit = re.fullmatch(v, have) is not None
            except re.error:
                raise ParseError("bad regular expression %r" % v)
            if hit != (op == "=~"):
                return False
    return True


def found_in(name, ms, scrape):
    series, types = scrape
    if name is None:
        # a selector without a name: {__name__=~"..."} and the like
        return any(matches(dict(l, __name__=n), ms) for n, ls in series.items() for l in ls)
    if any(matches(l, ms) for l in series.get(name, [])):
        return True
    for suf in ("_bucket", "_sum", "_count"):
        if name.endswith(suf) and types.get(name[: -len(suf)]) in ("histogram", "summary"):
            return not [m for m in ms if m[0] not in PROM_ADDED and not templated(m[2]) and m[0] != "le"]
    return False


def show(name, ms):
    lab = ",".join('%s%s"%s"' % m for m in ms)
    return "%s{%s}" % (name or "", lab) if lab else (name or "{}")


def walk_panels(panels):
    for p in panels or []:
        yield p
        yield from walk_panels(p.get("panels"))


def main(argv):
    strict = len(argv) > 1 and argv[1] == "--all"
    if strict:
        argv = argv[:1] + argv[2:]
    if len(argv) < 3:
        print("usage: dashboard_check.py [--all] DASHBOARD SCRAPE_FILE...", file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            dash = json.load(f)
        if "dashboard" in dash and "panels" not in dash:
            dash = dash["dashboard"]   # the API's wrapper
        scrapes = [(p, parse_scrape(p)) for p in argv[2:]]
    except (OSError, ValueError, ParseError) as e:
        print("dashboard_check: %s" % e, file=sys.stderr)
        return 2
    problems = []
    used = {}   # show(sel) -> (name, ms, [panel titles], why optional or None)
    n_panels = 0
    for p in walk_panels(dash.get("panels")):
        if p.get("type") in ("row", "text"):
            continue
        n_panels += 1
        title = p.get("title") or "panel %s" % p.get("id")
        if not p.get("datasource"):
            problems.append("panel %r has no datasource" % title)
        targets = p.get("targets") or []
        if not targets:
            problems.append("panel %r has no target" % title)
        for t in targets:
            expr = t.get("expr")
            if not expr:
                problems.append("panel %r: target %s has no expr" % (title, t.get("refId")))
                continue
            try:
                sels = selectors(expr)
            except ParseError as e:
                problems.append("panel %r: cannot parse %r: %s" % (title, expr, e))
                continue
            if not sels:
                problems.append("panel %r: expr %r names no series" % (title, expr))
            for name, ms in sels:
                k = show(name, [m for m in ms if m[0] not in PROM_ADDED and not templated(m[2])])
                why = t.get("gauntletOptional") or None
                u = used.setdefault(k, [name, ms, [], why])
                u[2].append(title)
                if not why:
                    u[3] = None   # required by some target: required
    if n_panels == 0:
        problems.append("the dashboard has no panel")
    absent = []
    optional_absent = 0
    for k in sorted(used):
        name, ms, titles, why = used[k]
        where = [path for path, sc in scrapes if found_in(name, ms, sc)]
        panels = ", ".join(sorted(set(titles)))
        if where:
            print("found  %s in %s (panels: %s)" % (k, ", ".join(where), panels))
        elif why and not strict:
            print("absent %s in every scrape, optional: %s (panels: %s)" % (k, why, panels))
            optional_absent += 1
        else:
            hint = " (a recording rule's name: no scrape of the endpoint has it)" if name and ":" in name else ""
            print("ABSENT %s in every scrape%s (panels: %s)" % (k, hint, panels))
            absent.append(k)
    for p in problems:
        print("FAIL: %s" % p)
    if absent:
        print("FAIL: %d series the dashboard queries are in no scrape: %s" % (len(absent), ", ".join(absent)))
    print("%d panels, %d series selectors, %d absent, %d other problems%s" %
          (n_panels, len(used), len(absent), len(problems),
           "; %d optional ones absent" % optional_absent if optional_absent else ""))
    return 1 if absent or problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
