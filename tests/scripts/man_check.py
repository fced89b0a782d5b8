#!/usr/bin/env python3
"""man_check.py - the manual page against the program (test_package).

usage: man_check.py PAGE.txt GAUNTLET SOURCE_DIR [GAUNTLET_TRAIN]

PAGE.txt is gauntlet(1) rendered as plain text (`man -l PAGE | cat`).
What the program prints must be in the page:
  - every command of `gauntlet help` with a subsection of COMMANDS named
    after it, lab's sub-commands (up|down|status) in lab's;
  - every --option of `gauntlet help` and of `gauntlet COMMAND --help` in
    that command's subsection; every --option of `gauntlet-train --help`
    in the GAUNTLET-TRAIN section (when the binary is given);
  - every exit code those texts name in EXIT STATUS;
  - every environment variable the sources read (getenv of a literal or of
    a #define'd name, in harness/, loadgen/, faults/, reports/) and every
    scenario key ending in _env (variables a scenario names) in
    ENVIRONMENT; variables the usage texts name too.
And the other way, so that the page cannot keep what the program dropped:
every --option in COMMANDS is printed by some usage text, every one in
GAUNTLET-TRAIN by gauntlet-train's (when given), and every variable
ENVIRONMENT lists is read by the sources.
Prints each miss and a count; exit 1 on any miss, or when too little was
found to mean anything (a broken parse must not pass).
"""
import glob
import os
import re
import subprocess
import sys

# Variables the sources read only for the tests, which the page need not
# list. None today: the test hooks are options (gauntlet-train's).
TEST_ONLY_ENV = set()

OPT = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


def run(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def sections(text):
    """{SECTION: [lines]} and, per section, {subsection heading: [lines]}."""
    secs, subs, cur, sub = {}, {}, None, None
    for line in text.splitlines():
        if re.match(r"^[A-Z][A-Z -]+$", line):
            cur, sub = line.strip(), None
            secs[cur], subs[cur] = [], {}
            continue
        if cur is None:
            continue
        secs[cur].append(line)
        if re.match(r"^   \S", line):
            sub = line.strip()
            subs[cur][sub] = []
        elif sub is not None:
            subs[cur][sub].append(line)
    return secs, subs


def exit_codes(text):
    codes = set()
    for line in text.splitlines():
        if re.search(r"(^|\b)[Ee]xit:? \d", line):
            codes |= set(re.findall(r"(?<![\w.])(\d)(?= \w)", line.split("xit", 1)[1]))
    return codes


def main():
    if len(sys.argv) < 4:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    page, gauntlet, src = sys.argv[1], sys.argv[2], sys.argv[3]
    train = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] else None
    text = open(page, encoding="utf-8").read()
    for ch in "\u2010\u2011\u2212":   # hyphens and minus as groff may render them
        text = text.replace(ch, "-")
    secs, subs = sections(text)
    miss = []
    n = {"commands": 0, "options": 0, "exit codes": 0, "variables": 0}

    for need in ("COMMANDS", "EXIT STATUS", "ENVIRONMENT"):
        if need not in secs:
            miss.append("no %s section" % need)
    if miss:
        for m in miss:
            print("missing:", m)
        return 1

    # the commands: subsections of COMMANDS by their first word
    cmd_text = {}
    for head, lines in subs["COMMANDS"].items():
        name = re.split(r"[ ,]", head)[0]
        cmd_text[name] = head + "\n" + "\n".join(lines)

    rc, usage = run([gauntlet, "help"])
    if rc != 0 or not usage.startswith("usage:"):
        print("FAIL: `%s help` exited %d without its usage:\n%s" % (gauntlet, rc, usage))
        return 1
    usage_texts = [usage]
    per_cmd = {}   # command -> options printed for it
    cur = None
    for line in usage.splitlines():
        m = re.match(r"^  ([a-z]+)(?: (\S+))?", line)
        if m:
            cur = m.group(1)
            per_cmd.setdefault(cur, set())
            if m.group(2) and "|" in m.group(2) and not m.group(2).startswith("-"):
                for s in m.group(2).split("|"):   # lab up|down|status
                    n["commands"] += 1
                    if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(s), cmd_text.get(cur, "")):
                        miss.append("%s %s: sub-command not in the page's '%s' subsection" % (cur, s, cur))
        elif re.match(r"^ {3,}", line) and cur:
            pass
        else:
            cur = None
            continue
        per_cmd[cur] |= set(OPT.findall(line))
    # the dispatcher's own words, besides the listed commands
    per_cmd.setdefault("help", set())
    for cmd in sorted(per_cmd):
        if cmd == "help":   # `help --help` is `help`: the list itself
            continue
        rc, out = run([gauntlet, cmd, "--help"])
        if rc == 0 and out.startswith("usage:"):
            usage_texts.append(out)
            per_cmd[cmd] |= set(OPT.findall(out))
    if len(per_cmd) < 10:
        print("FAIL: only %d commands found in `gauntlet help`: the usage text's layout changed?" % len(per_cmd))
        return 1
    for cmd, opts in sorted(per_cmd.items()):
        n["commands"] += 1
        if cmd not in cmd_text:
            miss.append("command %s: no subsection '%s ...' under COMMANDS" % (cmd, cmd))
            continue
        for o in sorted(opts - {"--help"}):
            n["options"] += 1
            if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(o), cmd_text[cmd]):
                miss.append("%s %s: not in the page's '%s' subsection" % (cmd, o, cmd))
    all_opts = set().union(*per_cmd.values()) | {"--help", "--version"}
    for o in sorted(set(OPT.findall("\n".join(secs["COMMANDS"])))):
        if o not in all_opts:
            miss.append("%s: in the page's COMMANDS, printed by no usage text" % o)

    if train:
        rc, out = run([train, "--help"])
        if rc != 0 or not out.startswith("usage:"):
            miss.append("`%s --help` exited %d without its usage" % (train, rc))
        else:
            usage_texts.append(out)
            topts = set(OPT.findall(out))
            body = "\n".join(secs.get("GAUNTLET-TRAIN", []))
            if not body:
                miss.append("no GAUNTLET-TRAIN section")
            for o in sorted(topts):
                n["options"] += 1
                if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(o), body):
                    miss.append("gauntlet-train %s: not in the page's GAUNTLET-TRAIN section" % o)
            for o in sorted(set(OPT.findall(body)) - topts):
                miss.append("gauntlet-train %s: in the page, not printed by gauntlet-train --help" % o)

    if train:
        # gauntlet-train's exit codes (train.h) in its section's closing words
        th = open(os.path.join(src, "loadgen", "train", "train.h"), encoding="utf-8").read()
        tcodes = set(re.findall(r"\bTRAIN_EXIT_[A-Z_]+\s*=\s*(\d+)", th))
        body = "\n".join(secs.get("GAUNTLET-TRAIN", []))
        m = re.search(r"gauntlet-train\s+exits\s+(.*?)(\n\s*\n|$)", body, re.S)
        said = set(re.findall(r"(?<![\w.])(\d)(?=\s+\w)", m.group(1))) if m else set()
        if len(tcodes) < 3:
            miss.append("only exit codes %s found in loadgen/train/train.h" % sorted(tcodes))
        for c in sorted(tcodes):
            n["exit codes"] += 1
            if c not in said:
                miss.append("gauntlet-train exit code %s: not in the GAUNTLET-TRAIN section's \"gauntlet-train exits ...\"" % c)

    codes = set()
    for t in usage_texts:
        codes |= exit_codes(t)
    tags = set()
    for line in secs["EXIT STATUS"]:
        m = re.match(r"^ {7}(\d+)(\s|$)", line)
        if m:
            tags.add(m.group(1))
    if len(codes) < 3:
        print("FAIL: only exit codes %s found in the usage texts" % sorted(codes))
        return 1
    for c in sorted(codes):
        n["exit codes"] += 1
        if c not in tags:
            miss.append("exit code %s: no entry in EXIT STATUS" % c)

    # environment variables the sources read
    defines, env, keys = {}, set(), set()
    files = []
    for d in ("harness", "loadgen", "faults", "reports"):
        files += glob.glob(os.path.join(src, d, "**", "*.[ch]"), recursive=True)
    srcs = {f: open(f, encoding="utf-8", errors="replace").read() for f in files}
    for s in srcs.values():
        for m in re.finditer(r'#define\s+([A-Z_][A-Z0-9_]*)\s+"([A-Za-z_][A-Za-z0-9_]*)"', s):
            defines[m.group(1)] = m.group(2)
    for f, s in srcs.items():
        for m in re.finditer(r'\bgetenv\s*\(\s*("([A-Za-z_][A-Za-z0-9_]*)"|([A-Z_][A-Z0-9_]*))\s*\)', s):
            name = m.group(2) or defines.get(m.group(3))
            if name:
                env.add(name)
            else:
                miss.append("%s: getenv(%s): a macro that names no string" % (os.path.relpath(f, src), m.group(3)))
        keys |= set(re.findall(r'"([a-z][a-z0-9_]*_env)"', s))
    for t in usage_texts:
        env |= set(re.findall(r"\b((?:GL|GAUNTLET)_[A-Z0-9_]+)\b", t))
    if len(env) < 5 or not keys:
        print("FAIL: only %d variables and %d *_env keys found under %s" % (len(env), len(keys), src))
        return 1
    envtext = "\n".join(secs["ENVIRONMENT"])
    for v in sorted(env - TEST_ONLY_ENV):
        n["variables"] += 1
        if not re.search(r"(?<![\w$])%s(?!\w)" % re.escape(v), envtext):
            miss.append("variable %s: not in ENVIRONMENT" % v)
    for k in sorted(keys):
        n["variables"] += 1
        if not re.search(r"(?<!\w)%s(?!\w)" % re.escape(k), envtext):
            miss.append("scenario key %s (names a variable): not in ENVIRONMENT" % k)
    for line in secs["ENVIRONMENT"]:
        if re.match(r"^ {7}\S", line):
            for v in re.findall(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b|\b(?:PATH|HOME|USER|TMPDIR)\b", line):
                if v not in env:
                    miss.append("variable %s: in ENVIRONMENT, read nowhere in the sources" % v)

    for m in miss:
        print("missing:", m)
    print("man_check: %s; %d missing" % (", ".join("%d %s" % (v, k) for k, v in n.items()), len(miss)))
    return 1 if miss else 0


if __name__ == "__main__":
    sys.exit(main())
