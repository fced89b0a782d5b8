#!/usr/bin/env bash
# totals.sh BUILD_ALL_DIR - the closing count of a suite run: the parts
# (checks) every test counted, passed, failed and skipped, from the
# results/ files lib.sh and check.h leave, and ctest's own count of whole
# tests (fuzz replays and libFuzzer runs count there only). Lists each test
# that skipped anything and the tests that left no counts (killed by a
# timeout, or crashed before their closing line).
set -uo pipefail
D=${1:-build-all}
python3 - "$D" <<'PY'
import os, re, sys
d = sys.argv[1]
res = os.path.join(d, "results")
tot = [0, 0, 0]
skipped = []
names = set()
for n in sorted(os.listdir(res)) if os.path.isdir(res) else []:
    try:
        p, f, s = (int(x) for x in open(os.path.join(res, n)).read().split())
    except (ValueError, OSError):
        print("test: %s left an unreadable count" % n)
        continue
    names.add(n)
    tot[0] += p; tot[1] += f; tot[2] += s
    if s:
        skipped.append("%s (%d)" % (n, s))
ran = []
log = os.path.join(d, "Testing", "Temporary", "LastTest.log")
if os.path.exists(log):
    ran = re.findall(r'^\d+/\d+ Testing: (\S+)', open(log, errors="replace").read(), re.M)
counted = [n for n in ran if not re.search(r'_(corpus|libfuzzer)(_asan)?$', n)]
missing = [n for n in counted if n not in names]
print("test: parts: %d passed, %d failed, %d skipped, across %d tests that counted them"
      % (tot[0], tot[1], tot[2], len(names)))
if skipped:
    print("test: tests that skipped parts or all: " + ", ".join(skipped))
if missing:
    print("test: tests that left no count (timed out or crashed): " + ", ".join(missing))
PY
