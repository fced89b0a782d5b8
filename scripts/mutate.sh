#!/usr/bin/env bash
# mutate.sh - mutation testing: apply small source mutations one at a time to
# a private copy of the tree and check that the tests covering each one fail.
#
#   bash scripts/mutate.sh [options] [NAME_FILTER]
#
#   --list             print the mutations (number, name, file, tests) and exit
#   --only N[,M...]    run only these mutations (numbers from --list)
#   NAME_FILTER        run only mutations whose name contains this substring
#   --workdir DIR      private copy and its build (default /tmp/gauntlet-mutate)
#   --keep             keep DIR afterwards (a later run with the same DIR
#                      reuses its build; default: DIR is removed at the end)
#   --worktree         copy the working tree (tracked and untracked files, no
#                      build*/ or .git) instead of HEAD (git archive HEAD)
#   --mutations FILE   the mutation list (default tests/mutations.txt)
#   --timeout S        limit for one mutant's ctest (default 300 s)
#   --jobs N           ctest -j (default 2)
#   --no-baseline      skip the run of the unmutated tests first
#   --run CMD          run CMD (bash -c, in the copy's build directory, with
#                      $SRC the copy's source tree) instead of the covering
#                      tests: the mutant is killed when CMD exits non-zero;
#                      its VIOLATED/FAIL lines (10 at most) and last line
#                      are shown, for the baseline too
#
# Environment: GL_MUTATE_SKIP_RESOURCE_TESTS=1 leaves out the tests that use
# machine-wide resources (test_lab, test_drain, test_netfaults, test_cplane,
# test_procfaults); a mutation whose tests are all left out is reported
# "skipped" and not counted.
#
# For each mutation: the exact old text must occur exactly once in its file
# (else the script stops: the list must not rot silently); it is replaced,
# the copy rebuilt incrementally, `ctest -R '^(covering tests)$'` run in the
# copy's build directory under GL_STRICT=1 (a skip is a failure), and the
# file restored. The mutant is "killed" when a test fails (the first failing
# test is named), "survived" when all pass, "invalid" when it does not
# compile (not counted as killed). Before the mutants, the covering tests run
# once unmutated (the baseline): a mutation whose tests do not pass there is
# "no-baseline" and not counted.
#
# The source tree this script lives in is never written to: everything
# happens in the copy. Exit 0 when every valid mutation was killed, 1 when
# one survived (or had no baseline), 2 on bad usage or a rotten list.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
exec python3 - "$ROOT" "$@" <<'PY'
import os, re, shutil, signal, subprocess, sys, tempfile, time

ROOT = sys.argv[1]
args = sys.argv[2:]
RESOURCE_TESTS = {"test_lab", "test_drain", "test_netfaults", "test_cplane", "test_procfaults"}

def usage(msg=None):
    if msg:
        print("mutate.sh: " + msg, file=sys.stderr)
    print("usage: scripts/mutate.sh [--list] [--only N[,M..]] [--workdir DIR] [--keep] [--worktree]\n"
          "                         [--mutations FILE] [--timeout S] [--jobs N] [--no-baseline] [--run CMD]\n"
          "                         [NAME_FILTER]",
          file=sys.stderr)
    sys.exit(2)

opt = dict(list=False, only=None, workdir="/tmp/gauntlet-mutate", keep=False, worktree=False,
           mutations=os.path.join(ROOT, "tests/mutations.txt"), timeout=300, jobs=2, baseline=True,
           filter=None, run=None)
i = 0
while i < len(args):
    a = args[i]
    def val():
        global i
        i += 1
        if i >= len(args):
            usage(a + " needs a value")
        return args[i]
    if a == "--list": opt["list"] = True
    elif a == "--only":
        v = val()
        if not re.fullmatch(r"\d+(,\d+)*", v):
            usage("--only takes mutation numbers, e.g. --only 3,7 (see --list)")
        opt["only"] = {int(x) for x in v.split(",")}
    elif a == "--workdir": opt["workdir"] = os.path.abspath(val())
    elif a == "--keep": opt["keep"] = True
    elif a == "--worktree": opt["worktree"] = True
    elif a == "--mutations": opt["mutations"] = os.path.abspath(val())
    elif a in ("--timeout", "--jobs"):
        v = val()
        if not v.isdigit() or int(v) < 1:
            usage(a + " takes a positive whole number")
        opt[a[2:]] = int(v)
    elif a == "--no-baseline": opt["baseline"] = False
    elif a == "--run": opt["run"] = val()
    elif a in ("-h", "--help"): usage()
    elif a.startswith("-"): usage("unknown option " + a)
    elif opt["filter"] is None: opt["filter"] = a
    else: usage("one name filter at most")
    i += 1

# ---- the list -------------------------------------------------------------------------
# Blocks separated by blank lines; '#' lines are comments. Keys:
#   [name]                 starts a mutation
#   file:  path from the repository root
#   tests: ctest names (space separated) that should kill it
#   why:   what the mutation breaks, in an operator's words
#   old:   exact text, once in the file;  new: its replacement
# In old/new, \n is a newline, \t a tab and \\ a backslash.
def unescape(s):
    out, k = [], 0
    while k < len(s):
        c = s[k]
        if c == "\\" and k + 1 < len(s):
            n = s[k + 1]
            out.append({"n": "\n", "t": "\t", "\\": "\\"}.get(n, "\\" + n))
            k += 2
        else:
            out.append(c)
            k += 1
    return "".join(out)

def load(path):
    muts, cur = [], None
    for ln, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if line.startswith("#") or not line.strip():
            continue
        m = re.match(r"^\[([A-Za-z0-9_.-]+)\]\s*$", line)
        if m:
            cur = {"name": m.group(1), "line": ln}
            muts.append(cur)
            continue
        m = re.match(r"^(file|tests|why|old|new):\s?(.*)$", line)
        if not m or cur is None:
            sys.exit("%s:%d: expected [name] or file:/tests:/why:/old:/new:, got: %s" % (path, ln, line))
        k, v = m.group(1), m.group(2)
        if k in cur:
            sys.exit("%s:%d: %s given twice in [%s]" % (path, ln, k, cur["name"]))
        cur[k] = unescape(v) if k in ("old", "new") else v.strip()
    names = set()
    for n, mu in enumerate(muts, 1):
        mu["n"] = n
        for k in ("file", "tests", "old", "new"):
            if k not in mu:
                sys.exit("%s:%d: [%s] has no %s:" % (path, mu["line"], mu["name"], k))
        if mu["old"] == mu["new"]:
            sys.exit("%s:%d: [%s]: old and new are the same" % (path, mu["line"], mu["name"]))
        if mu["name"] in names:
            sys.exit("%s:%d: [%s] named twice" % (path, mu["line"], mu["name"]))
        names.add(mu["name"])
        mu["tests"] = mu["tests"].split()
        mu.setdefault("why", "")
    return muts

if not os.path.isfile(opt["mutations"]):
    usage("no mutation list " + opt["mutations"])
muts = load(opt["mutations"])

def check_once(base, mu):
    p = os.path.join(base, mu["file"])
    if not os.path.isfile(p):
        return "file %s not found" % mu["file"]
    k = open(p, encoding="utf-8").read().count(mu["old"])
    if k != 1:
        return "old text found %d times in %s (must be exactly once): %r" % (k, mu["file"], mu["old"])
    return None

# Rot check against the tree the list lives in (read only).
rot = [(mu, check_once(ROOT, mu)) for mu in muts]
rot = [(mu, e) for mu, e in rot if e]
if opt["list"]:
    for mu in muts:
        print("%3d  %-34s %-32s %s" % (mu["n"], mu["name"], mu["file"], " ".join(mu["tests"])))
        if mu["why"]:
            print("     %s" % mu["why"])
    for mu, e in rot:
        print("ROTTEN %d [%s]: %s" % (mu["n"], mu["name"], e), file=sys.stderr)
    sys.exit(2 if rot else 0)
if rot:
    for mu, e in rot:
        print("mutate.sh: mutation %d [%s] (%s:%d): %s" % (mu["n"], mu["name"], opt["mutations"], mu["line"], e),
              file=sys.stderr)
    print("mutate.sh: the mutation list no longer matches the source; fix it first", file=sys.stderr)
    sys.exit(2)

sel = [mu for mu in muts if (opt["only"] is None or mu["n"] in opt["only"])
       and (opt["filter"] is None or opt["filter"] in mu["name"])]
if not sel:
    usage("no mutation selected")
skip_res = os.environ.get("GL_MUTATE_SKIP_RESOURCE_TESTS") == "1"
for mu in sel:
    mu["run_tests"] = [t for t in mu["tests"] if not (skip_res and t in RESOURCE_TESTS)]

# ---- the private copy -----------------------------------------------------------------
WD = opt["workdir"]
rootr = os.path.realpath(ROOT)
if os.path.realpath(WD) == rootr or os.path.realpath(WD).startswith(rootr + os.sep):
    usage("--workdir must be outside the source tree " + ROOT)
SRC = os.path.join(WD, "src")
BUILD = os.path.join(SRC, "build")
LOG = os.path.join(WD, "logs")
os.makedirs(LOG, exist_ok=True)

def say(*a):
    print(*a, flush=True)

def sync_copy():
    """Fresh copy of HEAD (or the working tree) in a staging dir, then moved
    over SRC file by file where the content changed, so that an unchanged
    file keeps its mtime and a kept build stays incremental."""
    stage = tempfile.mkdtemp(prefix="stage-", dir=WD)
    try:
        if opt["worktree"]:
            files = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                   check=True, capture_output=True).stdout.split(b"\0")
            for f in files:
                f = f.decode()
                if not f or f.startswith("build") or f.split("/")[0].startswith("build"):
                    continue
                s = os.path.join(ROOT, f)
                if not os.path.isfile(s) or os.path.islink(s):
                    continue
                d = os.path.join(stage, f)
                os.makedirs(os.path.dirname(d), exist_ok=True)
                shutil.copy2(s, d)
        else:
            ar = subprocess.Popen(["git", "-C", ROOT, "archive", "HEAD"], stdout=subprocess.PIPE)
            subprocess.run(["tar", "-x", "-C", stage], stdin=ar.stdout, check=True)
            if ar.wait() != 0:
                sys.exit("mutate.sh: git archive HEAD failed")
        os.makedirs(SRC, exist_ok=True)
        want = set()
        for dp, dn, fn in os.walk(stage):
            for f in fn:
                rel = os.path.relpath(os.path.join(dp, f), stage)
                want.add(rel)
                dst = os.path.join(SRC, rel)
                src = os.path.join(dp, f)
                same = os.path.isfile(dst) and open(dst, "rb").read() == open(src, "rb").read()
                if not same:
                    os.makedirs(os.path.dirname(dst), exist_ok=True)
                    shutil.copy2(src, dst)
                    os.utime(dst)          # newer than any object built from the old text
        for dp, dn, fn in os.walk(SRC):
            if os.path.relpath(dp, SRC).split(os.sep)[0] == "build":
                continue
            for f in fn:
                rel = os.path.relpath(os.path.join(dp, f), SRC)
                if rel not in want:
                    os.unlink(os.path.join(SRC, rel))
    finally:
        shutil.rmtree(stage, ignore_errors=True)

CURRENT = []      # the child running now: its process group is ended on a timeout or a signal

def end_group(p):
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except OSError:
        pass
    p.wait()

restore = {}
def put_back(*_):
    for p, text in restore.items():
        with open(p, "w", encoding="utf-8") as f:
            f.write(text)
    restore.clear()
def on_signal(sig, frm):
    for p in list(CURRENT):
        end_group(p)
    put_back()
    print("\nmutate.sh: interrupted; the copy's file restored", file=sys.stderr)
    sys.exit(130)
signal.signal(signal.SIGINT, on_signal)
signal.signal(signal.SIGTERM, on_signal)

def run_log(cmd, log, timeout=None, env=None, cwd=None):
    """cmd in a session of its own (so that it and everything it started can
    be ended together), output to log; 124 when it ran past timeout."""
    with open(log, "w") as lf:
        p = subprocess.Popen(cmd, stdout=lf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             env=env, cwd=cwd, start_new_session=True)
        CURRENT.append(p)
        try:
            return p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            end_group(p)
            return 124
        finally:
            CURRENT.remove(p)

t_start = time.time()
say("mutate.sh: copying %s of %s into %s" % ("the working tree" if opt["worktree"] else "HEAD", ROOT, SRC))
sync_copy()
for mu in sel:
    e = check_once(SRC, mu)
    if e:
        sys.exit("mutate.sh: mutation %d [%s] in the copy: %s" % (mu["n"], mu["name"], e))

say("mutate.sh: configuring and building (RelWithDebInfo) in %s" % BUILD)
if run_log(["cmake", "-S", SRC, "-B", BUILD, "-DCMAKE_BUILD_TYPE=RelWithDebInfo"], os.path.join(LOG, "cmake.log")) != 0:
    sys.exit("mutate.sh: cmake failed, see %s" % os.path.join(LOG, "cmake.log"))
JOBS = str(os.cpu_count() or 2)
if run_log(["cmake", "--build", BUILD, "-j", JOBS], os.path.join(LOG, "build.log")) != 0:
    sys.exit("mutate.sh: the unmutated copy does not build, see %s" % os.path.join(LOG, "build.log"))

# The build targets a mutant needs: the binaries, and every test executable
# named like a covering test (unit tests); the rest is left stale until
# the end (it is rebuilt from the restored text before any later use).
help_out = subprocess.run(["cmake", "--build", BUILD, "--target", "help"], capture_output=True, text=True).stdout
targets = set(re.findall(r"^\.\.\. (\S+)", help_out, re.M))
BASE_TARGETS = [t for t in ("gauntlet", "gauntlet-train", "gl_target_standalone") if t in targets]
listed = subprocess.run(["ctest", "-N"], cwd=BUILD, capture_output=True, text=True).stdout
known_tests = set(re.findall(r"Test\s+#\d+: (\S+)", listed))
for mu in sel:
    bad = [t for t in mu["tests"] if t not in known_tests]
    if bad:
        sys.exit("mutate.sh: mutation %d [%s] names tests ctest does not know: %s" % (mu["n"], mu["name"], " ".join(bad)))

def test_env():
    env = dict(os.environ)
    env["GL_STRICT"] = "1"
    env.pop("GL_RESULTS_DIR", None)
    return env

def ctest(tests, log, timeout):
    """Run the tests; returns (status, failed test names)."""
    regex = "^(" + "|".join(re.escape(t) for t in tests) + ")$"
    rc = run_log(["ctest", "-R", regex, "-j", str(opt["jobs"]), "--output-on-failure", "--no-tests=error"],
                 log, timeout=timeout, env=test_env(), cwd=BUILD)
    out = open(log, errors="replace").read()
    failed = re.findall(r"^\s*\d+ - (\S+) \(([^)]*)\)\s*$", out.split("The following tests FAILED:")[-1], re.M) \
        if "The following tests FAILED:" in out else []
    ran = re.findall(r"Test\s+#\d+: (\S+) \.+\s*(\**\s*\w[\w ]*?)\s+\d+\.\d+ sec", out)
    if rc == 124:
        return "timeout", [t for t, _ in failed] or ["(ctest ran past %d s)" % timeout]
    # a test left out by ctest itself ("Not Run", "Skipped") counts as failed under strict rules
    for t, st in ran:
        if "Passed" not in st and t not in [f for f, _ in failed]:
            failed.append((t, st.strip("* ")))
    return ("pass" if rc == 0 and not failed else "fail"), [t for t, _ in failed]

def run_cmd(log, timeout):
    """--run: CMD in the build directory; returns (status, what it printed
    that tells: its VIOLATED/FAIL lines and its last line)."""
    env = test_env()
    env["SRC"] = SRC
    rc = run_log(["bash", "-c", opt["run"]], log, timeout=timeout, env=env, cwd=BUILD)
    lines = [l.rstrip("\n") for l in open(log, errors="replace")]
    shown = [l for l in lines if "VIOLATED" in l or "FAIL" in l][:10]
    if lines and (not shown or shown[-1] != lines[-1]):
        shown.append(lines[-1])
    st = "timeout" if rc == 124 else ("pass" if rc == 0 else "fail")
    return st, "exit %d" % rc if rc != 124 else "ran past %d s" % timeout, shown

def first_failure(log):
    """The first failed check a test printed (lib.sh "FAIL: ...", check.h
    "file:line: CHECK failed: ..."), shortened, for the table."""
    counts = ""
    for line in open(log, errors="replace"):
        m = re.search(r"(?:^|\s)FAIL: (.*)$", line) or re.search(r"CHECK failed: (.*)$", line)
        if m:
            t = m.group(1).strip()
            return t if len(t) <= 90 else t[:87] + "..."
        m = re.search(r"(\d+ passed, [1-9]\d* failed.*)$", line)
        if m:
            counts = "(no FAIL line shown) " + m.group(1).strip()
    return counts

# ---- baseline -------------------------------------------------------------------------
baseline_bad = set()
if opt["baseline"] and opt["run"]:
    say("mutate.sh: baseline (unmutated): %s" % opt["run"])
    t0 = time.time()
    st, what, shown = run_cmd(os.path.join(LOG, "baseline.log"), opt["timeout"] * 3)
    for l in shown:
        say("     | " + l)
    if st != "pass":
        baseline_bad = {"--run"}
    say("mutate.sh: baseline %s (%s) in %.0f s" % ("passed" if st == "pass" else "FAILED", what, time.time() - t0))
elif opt["baseline"]:
    allt = sorted({t for mu in sel for t in mu["run_tests"]})
    if allt:
        say("mutate.sh: baseline (unmutated): %s" % " ".join(allt))
        t0 = time.time()
        st, failed = ctest(allt, os.path.join(LOG, "baseline.log"), opt["timeout"] * 3)
        baseline_bad = set(failed)
        if st == "timeout":
            baseline_bad = set(allt)
        say("mutate.sh: baseline %s in %.0f s%s" % ("passed" if not baseline_bad else "FAILED", time.time() - t0,
            (": " + " ".join(sorted(baseline_bad)) + " (see %s)" % os.path.join(LOG, "baseline.log")) if baseline_bad else ""))

# ---- the mutants ----------------------------------------------------------------------

results = []
say("")
say("%3s  %-34s %-9s %6s  %s" % ("#", "mutation", "result", "secs", "killed by / note"))
for mu in sel:
    t0 = time.time()
    p = os.path.join(SRC, mu["file"])
    orig = open(p, encoding="utf-8").read()
    tag = "%02d-%s" % (mu["n"], mu["name"])
    res, who = None, ""
    if opt["run"]:
        mu["run_tests"] = ["--run"]
    if not mu["run_tests"]:
        res, who = "skipped", "its tests use machine-wide resources (GL_MUTATE_SKIP_RESOURCE_TESTS=1): " + " ".join(mu["tests"])
    elif set(mu["run_tests"]) & baseline_bad:
        res, who = "no-baseline", "fails unmutated: " + " ".join(sorted(set(mu["run_tests"]) & baseline_bad))
    else:
        restore[p] = orig
        try:
            with open(p, "w", encoding="utf-8") as f:
                f.write(orig.replace(mu["old"], mu["new"], 1))
            need = BASE_TARGETS + [t for t in mu["run_tests"] if t in targets]
            blog = os.path.join(LOG, tag + ".build.log")
            if run_log(["cmake", "--build", BUILD, "-j", JOBS, "--target"] + need, blog) != 0:
                res, who = "invalid", "does not compile (%s)" % blog
            elif opt["run"]:
                st, what, shown = run_cmd(os.path.join(LOG, tag + ".test.log"), opt["timeout"])
                res = "survived" if st == "pass" else "killed"
                who = "--run " + what + "".join("\n     | " + l for l in shown)
            else:
                st, failed = ctest(mu["run_tests"], os.path.join(LOG, tag + ".test.log"), opt["timeout"])
                if st == "pass":
                    res, who = "survived", "passed: " + " ".join(mu["run_tests"])
                else:
                    res, who = "killed", " ".join(failed) + (" (timeout)" if st == "timeout" else "")
                    first = first_failure(os.path.join(LOG, tag + ".test.log"))
                    if first:
                        who += ": " + first
        finally:
            put_back()
    mu["result"], mu["who"], mu["secs"] = res, who, time.time() - t0
    results.append(mu)
    say("%3d  %-34s %-9s %6.0f  %s" % (mu["n"], mu["name"], res, mu["secs"], who))

# Put the copy's build back to the unmutated source.
run_log(["cmake", "--build", BUILD, "-j", JOBS], os.path.join(LOG, "rebuild.log"))

killed = sum(1 for m in results if m["result"] == "killed")
valid = sum(1 for m in results if m["result"] in ("killed", "survived"))
count = lambda r: sum(1 for m in results if m["result"] == r)
say("")
say("mutations: %d run, %d killed, %d survived, %d invalid, %d skipped, %d no-baseline" %
    (len(results), killed, count("survived"), count("invalid"), count("skipped"), count("no-baseline")))
say("kill rate: %d/%d = %s (killed / valid; invalid, skipped and no-baseline not counted)" %
    (killed, valid, "%.1f %%" % (100.0 * killed / valid) if valid else "n/a"))
for m in results:
    if m["result"] == "survived":
        say("  survived: %d [%s] %s: %s" % (m["n"], m["name"], m["file"], m["why"]))
say("wall time %.0f s; logs in %s" % (time.time() - t_start, LOG))
if not opt["keep"]:
    shutil.rmtree(WD, ignore_errors=True)
else:
    say("kept %s" % WD)
sys.exit(0 if count("survived") == 0 and count("no-baseline") == 0 else 1)
PY
