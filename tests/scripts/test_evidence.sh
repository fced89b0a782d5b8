#!/usr/bin/env bash
# test_evidence.sh - the evidence of a run, end to end with the null
# plug-ins: junit.xml is well-formed XML with exactly one test case per
# target of report.json and a failure exactly where report.json has one
# (threshold, no data, missing threshold), and report.md says the same;
# manifest.json carries the scenario SHA-256, the scenario's git commit and
# dirty flags (outside git, committed, then dirty) and an inventory whose
# every item is measured or unavailable with a reason (an unreachable host
# included); re-rendering changes none of it; `seal` commits it to a git
# repository (branch per scenario, tag per run) and `verify` passes, fails
# naming a changed byte, a missing file, a changed store or a moved tag,
# and passes again once restored; it counts the same sealed files with and
# without --allowed-signers; report.pdf, printed by Chromium, is sealed,
# fails verify once a byte of it changes or bytes are appended, and is the
# same bytes when rendered again (dated at the run's end).
source "$(dirname "$0")/lib.sh"
command -v git >/dev/null || skip "git is needed to inspect the evidence repository"

# A short scenario of our own: targets that pass (tick lag, recovery: a
# null workload that ticked nothing would fail them), one that fails its
# threshold on purpose (null.ticks <= 0), a missing degraded threshold (faults are scheduled), recovery
# targets, a name with XML and ref-name specials, and a host in a network
# namespace that does not exist (the inventory must say unavailable).
mk_scenario() { # FILE
	cat > "$1" <<EOF
// evidence test scenario
{
  "name": "ev <test> & \"q\" 'x'",
  "duration": "20m",
  "window": "1s",
  "hosts": { "localhost": { "local": true },
             "ghost": { "local": true, "netns": "gl-evidence-no-such-ns" } },
  "workloads": { "null": { "rate": 100 } },
  "phases": [ { "name": "warmup", "for": "2m" }, { "name": "steady", "for": "18m" } ],
  "faults": [ { "id": "null-1", "at": "8m", "for": "2m", "kind": "null", "target": "localhost",
                "params": { "marker": "$T/marker-1.marker" } } ],
  "targets": {
    "steady":   { "null.tick_lag_ms.p99": "<= 2000", "null.ticks": "<= 0" },
    "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" }
  },
  "safety": { "max_concurrent_faults": 1 }
}
EOF
}
SCALE=240          # 20 min in 5 s
BRANCH="evidence/ev--test-----q---x"

run_null() { # SCENARIO OUT
	"$GAUNTLET" run "$1" --out "$2" --time-scale $SCALE >"$2.log" 2>&1
	local rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 1 ]
}

# junit.xml against report.json and report.md, target by target.
junit_agrees() { # DIR
	python3 - "$1" <<'PY'
import json, re, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
r = json.load(open(d + "/report.json"))
root = ET.parse(d + "/junit.xml").getroot()
cases = root.findall(".//testcase")
targets = r["targets"]
# one case per target, then the incidents gate
inc = [c for c in cases if c.get("classname") == "gauntlet.incidents"]
assert len(inc) == 1 and (inc[0].find("failure") is None) == r["incidents"]["pass"], (inc, r["incidents"])
assert inc[0].get("name") == "incidents counted <= %d" % r["incidents"]["max"], inc[0].get("name")
cases = [c for c in cases if c.get("classname") != "gauntlet.incidents"]
assert len(cases) == len(targets) > 0, (len(cases), len(targets))
names = [c.get("name") for c in cases]
assert len(set(names)) == len(names), "duplicate test case names"
by_name = {c.get("name"): c for c in cases}
fails = 0
for t in targets:
    c = by_name[t["scope"] + " " + t["metric"]]
    f = c.find("failure")
    assert (f is None) == t["pass"], (t, f)
    if t["pass"]:
        continue
    fails += 1
    msg = f.get("message")
    if t["missing"]:
        assert msg == "missing threshold: a missing threshold is a failed gate", msg
    elif t["measured"] is None:
        assert msg == t.get("note"), (msg, t.get("note"))
    else:
        want = "measured %.6g vs threshold %s %.6g" % (t["measured"], t["op"], t["threshold"])
        assert msg == want, (msg, want)
suite = root.find("testsuite")
fails += not r["incidents"]["pass"]
assert int(suite.get("tests")) == len(targets) + 1 and int(suite.get("failures")) == fails
props = {p.get("name"): p.get("value") for p in suite.find("properties")}
assert props["run.id"] == r["run"]["id"] and props["verdict"] == r["verdict"]
assert props["run.scenario_sha256"] == r["run"]["scenario_sha256"]
assert props["run.scenario"] == r["run"]["scenario"], "escaped name survives the round trip"
assert props["faults_left_injected"] == str(r["faults_left_injected"])
assert all("fault." + f["id"] in props for f in r["faults"])
# report.md's target table: same outcome for every target
md = {}
for line in open(d + "/report.md"):
    m = re.match(r"\| (pass|FAIL|MISSING) \| (\w+) \| `([^`]+)` \|", line)
    if m:
        md[m.group(2) + " " + m.group(3)] = m.group(1) == "pass"
assert len(md) == len(targets), (md, len(targets))
for t in targets:
    assert md[t["scope"] + " " + t["metric"]] == t["pass"], t
kinds = {("missing" if t["missing"] else "nodata" if t["measured"] is None else "threshold")
         for t in targets if not t["pass"]}
print(" ".join(sorted(kinds)), "pass" if any(t["pass"] for t in targets) else "")
PY
}

# Every inventory item measured (with a value) or unavailable (with why).
inventory_ok() { # MANIFEST
	python3 - "$1" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
hosts = m["inventory"]["hosts"]
assert set(hosts) == {"localhost", "ghost"}, hosts
n = 0
for h, items in hosts.items():
    for k, v in items.items():
        if isinstance(v, str):
            continue
        n += 1
        ok = (v.get("source") == "measured" and "value" in v) or \
             (v.get("status") == "unavailable" and v.get("why"))
        assert ok, (h, k, v)
assert n == 14, n
PY
}

SC_PLAIN=$T/plain/scenario.json
mkdir -p "$T/plain"
mk_scenario "$SC_PLAIN"

# Stand-ins for nvidia-smi and ibstat with the output real ones give (a
# stray non-UTF-8 byte included), so the parsers are checked on any machine.
FAKE=$T/fakebin
mkdir -p "$FAKE"
cat > "$FAKE/nvidia-smi" <<'EOF'
#!/bin/sh
case "$*" in
*--query-gpu=name,driver_version,vbios_version,ecc.mode.current*)
	printf 'NVIDIA H200, 550.54.15, 96.00.99.00.01, Enabled\n'
	printf 'NVIDIA H200 \377, 550.54.15, 96.00.99.00.02, Disabled\n' ;;
*)
	printf 'Fri Nov 29 20:00:00 2026\n'
	printf '+-----------------------------------------------------------------------------------------+\n'
	printf '| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |\n' ;;
esac
EOF
cat > "$FAKE/ibstat" <<'EOF'
#!/bin/sh
printf "CA 'mlx5_0'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tFirmware version: 28.39.1002\n\tHardware version: 0\n\tPort 1:\n\t\tState: Active\n"
printf "CA 'mlx5_1'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tFirmware version: 28.39.1010\n"
EOF
chmod +x "$FAKE/nvidia-smi" "$FAKE/ibstat"

# --- 1. a run outside git: junit.xml, report.md, manifest.json ----------------
PATH="$FAKE:$PATH" run_null "$SC_PLAIN" "$T/r1"
check "run 1 finished (pass or fail)" [ $? -eq 0 ]
check "junit.xml and manifest.json written" [ -s "$T/r1/junit.xml" -a -s "$T/r1/manifest.json" ]
if command -v xmllint >/dev/null; then
	check "junit.xml is well-formed (xmllint)" xmllint --noout "$T/r1/junit.xml"
else
	echo "note: xmllint not installed; python's parser checks well-formedness below"
fi
KINDS=$(junit_agrees "$T/r1" 2>"$T/junit.err")
check "junit.xml: one test case per target, failures = report.json's, report.md agrees" [ $? -eq 0 ]
[ -s "$T/junit.err" ] && cat "$T/junit.err"
check "the run has a passing target, a threshold failure and a missing threshold ($KINDS)" \
	bash -c "case '$KINDS' in *missing*threshold*pass*) exit 0;; *) exit 1;; esac"
# (window 0 starts in the warmup, so it is not judged, and the fault's
# windows are degraded: a steady window or more is left, 100 ticks each)
check "targets: the null workload ticked (tick lag p99 passes, null.ticks fails its <= 0 on >= 50 ticks measured)" json "$T/r1/report.json" \
	"any(t['metric'] == 'null.tick_lag_ms.p99' and t['pass'] for t in r['targets']) and any(t['metric'] == 'null.ticks' and not t['pass'] and (t['measured'] or 0) >= 50 for t in r['targets']) or sys.exit(str([(t['metric'], t['measured'], t['pass']) for t in r['targets']]))"
check "junit.xml escapes the scenario name" grep -q 'name="gauntlet.ev &lt;test&gt; &amp; &quot;q&quot; &apos;x&apos;"' "$T/r1/junit.xml"
check "manifest: scenario sha256 is the file's" [ "$(json "$T/r1/manifest.json" "r['scenario_sha256']")" = "$(sha256sum "$SC_PLAIN" | cut -d' ' -f1)" ]
check "manifest: gauntlet version and run id" json "$T/r1/manifest.json" "r['gauntlet']['version'] and r['gauntlet']['revision'] and r['run_id'] == json.load(open('$T/r1/report.json'))['run']['id'] or sys.exit(1)"
check "manifest: outside git says so" json "$T/r1/manifest.json" "r['scenario_git']['in_repository'] is False and r['scenario_git']['source'] == 'measured' or sys.exit(1)"
check "manifest: every inventory item measured or unavailable" inventory_ok "$T/r1/manifest.json"
check "manifest: kernel measured, as uname -r says" [ "$(json "$T/r1/manifest.json" "r['inventory']['hosts']['localhost']['kernel']['value']")" = "$(uname -r)" ]
check "manifest: the unreachable host is unavailable item by item, with the reason" json "$T/r1/manifest.json" "all(v['status'] == 'unavailable' and 'not reachable' in v['why'] for k, v in r['inventory']['hosts']['ghost'].items() if isinstance(v, dict)) or sys.exit(1)"
check "manifest: GPUs parsed from nvidia-smi (name, driver, VBIOS, ECC; stray byte cleaned)" json "$T/r1/manifest.json" "[(g['index'], g['name'], g['driver_version'], g['vbios_version'], g['ecc_mode']) for g in r['inventory']['hosts']['localhost']['gpus']['value']] == [(0, 'NVIDIA H200', '550.54.15', '96.00.99.00.01', 'Enabled'), (1, 'NVIDIA H200 ?', '550.54.15', '96.00.99.00.02', 'Disabled')] or sys.exit(1)"
check "manifest: the driver's CUDA version from nvidia-smi's header" [ "$(json "$T/r1/manifest.json" "r['inventory']['hosts']['localhost']['cuda_driver']['value']")" = 12.4 ]
check "manifest: InfiniBand adapters and firmware from ibstat" json "$T/r1/manifest.json" "r['inventory']['hosts']['localhost']['infiniband']['value'] == [{'ca': 'mlx5_0', 'type': 'MT4129', 'firmware': '28.39.1002'}, {'ca': 'mlx5_1', 'type': 'MT4129', 'firmware': '28.39.1010'}] or sys.exit(1)"
if command -v mpirun >/dev/null; then
	check "manifest: MPI version measured" json "$T/r1/manifest.json" "'MPI' in r['inventory']['hosts']['localhost']['mpi']['value'] or sys.exit(1)"
fi
for f in report.json report.md junit.xml manifest.json; do cp "$T/r1/$f" "$T/r1.$f"; done
"$GAUNTLET" report "$T/r1" >/dev/null 2>&1
check "report DIR re-renders junit.xml and manifest.json byte for byte" bash -c "cmp -s '$T/r1/junit.xml' '$T/r1.junit.xml' && cmp -s '$T/r1/manifest.json' '$T/r1.manifest.json'"

# --- 2. the scenario in a git repository: committed, then dirty ---------------
REPO=$T/scen
mkdir -p "$REPO/sub"
git -C "$REPO" init -q
mk_scenario "$REPO/sub/scenario.json"
echo other > "$REPO/other.txt"
git -C "$REPO" add -A
git -C "$REPO" -c user.name=t -c user.email=t@example.com commit -qm scenario
HEAD_ID=$(git -C "$REPO" rev-parse HEAD)
run_null "$REPO/sub/scenario.json" "$T/r2"
check "run 2 (committed scenario) finished" [ $? -eq 0 ]
check "manifest: every inventory item measured or unavailable (this machine's own tools)" inventory_ok "$T/r2/manifest.json"
if command -v nvidia-smi >/dev/null; then
	check "manifest: GPUs measured where nvidia-smi exists" json "$T/r2/manifest.json" "len(r['inventory']['hosts']['localhost']['gpus']['value']) > 0 or sys.exit(1)"
else
	check "manifest: GPUs unavailable without nvidia-smi, saying so" json "$T/r2/manifest.json" "'not found' in r['inventory']['hosts']['localhost']['gpus']['why'] or sys.exit(1)"
fi
NVCC=$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; })
if [ -n "$NVCC" ]; then
	WANT_CUDA=$("$NVCC" --version | sed -n 's/.*release [0-9.]*, V\([0-9.]*\).*/\1/p')
	check "manifest: CUDA toolkit version as nvcc reports it ($WANT_CUDA)" [ "$(json "$T/r2/manifest.json" "r['inventory']['hosts']['localhost']['cuda_toolkit']['value']")" = "$WANT_CUDA" ]
fi
check "manifest: commit is HEAD, file clean, committed file is what ran" json "$T/r2/manifest.json" "(lambda g: g['in_repository'] and g['commit'] == '$HEAD_ID' and g['path'] == 'sub/scenario.json' and g['file_status'] == 'unmodified' and g['file_dirty'] is False and g['worktree_dirty'] is False and g['committed_file_matches_run'] is True)(r['scenario_git']) or sys.exit(1)"
echo "// local edit" >> "$REPO/sub/scenario.json"
run_null "$REPO/sub/scenario.json" "$T/r3"
check "run 3 (dirty scenario) finished" [ $? -eq 0 ]
check "manifest: dirty file and work tree, committed file is not what ran" json "$T/r3/manifest.json" "(lambda g: g['commit'] == '$HEAD_ID' and g['file_status'] == 'modified' and g['file_dirty'] is True and g['worktree_dirty'] is True and g['committed_file_matches_run'] is False)(r['scenario_git']) or sys.exit(1)"
git -C "$REPO" checkout -q -- sub/scenario.json
echo dirt >> "$REPO/other.txt"
"$GAUNTLET" report "$T/r2" >/dev/null 2>&1
check "git facts come from the store: a later report still shows the clean work tree of run start" json "$T/r2/manifest.json" "r['scenario_git']['worktree_dirty'] is False and r['scenario_git']['file_dirty'] is False or sys.exit(1)"

# --- 3. seal and verify --------------------------------------------------------
EV=$T/evidence
ID1=$(json "$T/r1/report.json" "r['run']['id']")
"$GAUNTLET" seal "$T/r1" --repo "$EV" >"$T/seal1.log" 2>&1; rc=$?
check "seal exits 0" [ $rc -eq 0 ]
cat "$T/seal1.log"
C1=$(json "$T/r1/seal.json" "r['commit']")
check "seal.json names the sealed commit (${C1:-none})" [ -n "$C1" ]
check "a new evidence repository is bare" [ "$(git -C "$EV" rev-parse --is-bare-repository)" = true ]
check "tag run/<id> names the sealed commit" [ -n "$C1" -a "$(git -C "$EV" rev-parse "refs/tags/run/$ID1^{commit}")" = "$C1" ]
check "branch $BRANCH is at the sealed commit" [ -n "$C1" -a "$(git -C "$EV" rev-parse "refs/heads/$BRANCH")" = "$C1" ]
check "commit message: verdict, run id, scenario sha256" bash -c "git -C '$EV' log -1 --format=%B $C1 | grep -q 'verdict: $(json "$T/r1/report.json" "r['verdict']")' && git -C '$EV' log -1 --format=%B $C1 | grep -q '$ID1' && git -C '$EV' log -1 --format=%B $C1 | grep -q \"scenario_sha256: \$(sha256sum '$SC_PLAIN' | cut -d' ' -f1)\""
WANT=$( (cd "$T/r1" && ls report.json report.md report.html junit.xml timeseries.csv manifest.json report.pdf 2>/dev/null; echo scenario.json; echo store.sha256) | sort | tr '\n' ' ')
check "sealed files: the reports present ($WANT), scenario, store hash" [ "$(git -C "$EV" ls-tree --name-only "$C1:$ID1" | sort | tr '\n' ' ')" = "$WANT" ]
check "sealed report.json is the file's bytes" bash -c "git -C '$EV' cat-file blob $C1:$ID1/report.json | cmp -s - '$T/r1/report.json'"
check "sealed scenario.json is the scenario that ran" bash -c "git -C '$EV' cat-file blob $C1:$ID1/scenario.json | cmp -s - '$SC_PLAIN'"
check "store.sha256 is run.db's SHA-256 (sha256sum -c)" bash -c "cd '$T/r1' && git -C '$EV' cat-file blob $C1:$ID1/store.sha256 | sha256sum -c --status"
"$GAUNTLET" verify "$T/r1" >"$T/v.log" 2>&1; rc=$?
check "verify after seal: exit 0" [ $rc -eq 0 ]
"$GAUNTLET" report "$T/r1" >/dev/null 2>&1
"$GAUNTLET" verify "$T/r1" >"$T/v.log" 2>&1; rc=$?
check "verify after re-rendering the reports: still exit 0" [ $rc -eq 0 ]

# one byte changed
cp "$T/r1/junit.xml" "$T/junit.save"
python3 -c "
import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[len(b)//2]^=1; open(p,'wb').write(b)" "$T/r1/junit.xml"
"$GAUNTLET" verify "$T/r1" >"$T/v.log" 2>&1; rc=$?
check "one byte of junit.xml changed: verify exits 1" [ $rc -eq 1 ]
check "verify names junit.xml, and nothing else" bash -c "grep -q '^MISMATCH junit.xml:' '$T/v.log' && [ \$(grep -c '^MISMATCH' '$T/v.log') -eq 1 ]"
cat "$T/v.log"
cp "$T/junit.save" "$T/r1/junit.xml"
"$GAUNTLET" verify "$T/r1" >"$T/v.log" 2>&1; rc=$?
check "junit.xml restored: verify exits 0" [ $rc -eq 0 ]

# a sealed file missing
mv "$T/r1/report.md" "$T/report.md.save"
"$GAUNTLET" verify "$T/r1" >"$T/v.log" 2>&1; rc=$?
check "report.md missing: verify exits 1 naming it" bash -c "[ $rc -eq 1 ] && grep -q '^MISMATCH report.md: sealed, but missing' '$T/v.log'"
mv "$T/report.md.save" "$T/r1/report.md"

# the store changed (a real write through SQLite)
cp "$T/r1/run.db" "$T/run.db.save"
python3 -c "
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute(\"update run set hostname = 'elsewhere'\"); c.commit(); c.close()" "$T/r1/run.db"
"$GAUNTLET" verify "$T/r1" >"$T/v.log" 2>&1; rc=$?
check "store changed: verify exits 1 naming run.db" bash -c "[ $rc -eq 1 ] && grep -q '^MISMATCH run.db:' '$T/v.log'"
cp "$T/run.db.save" "$T/r1/run.db"; rm -f "$T/r1/run.db-wal" "$T/r1/run.db-shm"
"$GAUNTLET" verify "$T/r1" >"$T/v.log" 2>&1; rc=$?
check "store restored: verify exits 0" [ $rc -eq 0 ]

# sealing again: same content is a no-op; other content is refused
"$GAUNTLET" seal "$T/r1" --repo "$EV" >"$T/seal.log" 2>&1; rc=$?
check "seal again, same content: exit 0, same commit, no new commit" bash -c "[ $rc -eq 0 ] && grep -q 'already sealed' '$T/seal.log' && [ '$(json "$T/r1/seal.json" "r['commit']")' = $C1 ] && [ \"\$(git -C '$EV' rev-parse refs/heads/$BRANCH)\" = $C1 ]"
cp "$T/r1/report.md" "$T/report.md.save"
echo "edited" >> "$T/r1/report.md"
"$GAUNTLET" seal "$T/r1" --repo "$EV" >"$T/seal.log" 2>&1; rc=$?
check "seal again, other content: exit 1 naming report.md, tag unmoved" bash -c "[ $rc -eq 1 ] && grep -q 'report.md' '$T/seal.log' && [ \"\$(git -C '$EV' rev-parse 'refs/tags/run/$ID1^{commit}')\" = $C1 ]"
cp "$T/report.md.save" "$T/r1/report.md"

# a second run of the same scenario name: same branch, a child commit
ID2=$(json "$T/r2/report.json" "r['run']['id']")
"$GAUNTLET" seal "$T/r2" --repo "$EV" >"$T/seal2.log" 2>&1; rc=$?
C2=$(json "$T/r2/seal.json" "r['commit']")
check "second run sealed on the same branch, parent = first seal" bash -c "[ $rc -eq 0 ] && [ \"\$(git -C '$EV' rev-parse $C2^)\" = $C1 ] && [ \"\$(git -C '$EV' rev-parse refs/heads/$BRANCH)\" = $C2 ]"
check "branch tip holds both runs' folders" [ "$(git -C "$EV" ls-tree --name-only "refs/heads/$BRANCH" | sort | tr '\n' ' ')" = "$(printf '%s\n' "$ID1" "$ID2" | sort | tr '\n' ' ')" ]
"$GAUNTLET" verify "$T/r1" >"$T/v.log" 2>&1; rc=$?
check "first run still verifies (its commit is an ancestor of the tip)" [ $rc -eq 0 ]

# a moved tag
git -C "$EV" tag -f "run/$ID1" "$C2" >/dev/null 2>&1
"$GAUNTLET" verify "$T/r1" >"$T/v.log" 2>&1; rc=$?
check "tag moved: verify exits 1 naming the tag" bash -c "[ $rc -eq 1 ] && grep -q '^MISMATCH run/$ID1:' '$T/v.log'"
git -C "$EV" tag -f "run/$ID1" "$C1" >/dev/null 2>&1
"$GAUNTLET" verify "$T/r1" >"$T/v.log" 2>&1; rc=$?
check "tag restored: verify exits 0" [ $rc -eq 0 ]

# --- 4. bad input ----------------------------------------------------------------
"$GAUNTLET" verify "$T/r3" >/dev/null 2>&1; rc=$?
check "verify of an unsealed run: exit 2" [ $rc -eq 2 ]
mkdir -p "$T/junk"; echo x > "$T/junk/file"
"$GAUNTLET" seal "$T/r3" --repo "$T/junk" >/dev/null 2>"$T/e.log"; rc=$?
check "seal into a non-empty directory that is not a repository: exit 2" bash -c "[ $rc -eq 2 ] && grep -q 'not a git repository' '$T/e.log'"
"$GAUNTLET" seal "$T/nowhere" --repo "$EV" >/dev/null 2>&1; rc=$?
check "seal of a directory without a run: exit 2" [ $rc -eq 2 ]
"$GAUNTLET" seal "$T/r3" >/dev/null 2>&1; rc=$?
check "seal without --repo: exit 2" [ $rc -eq 2 ]
cp "$T/r3/report.json" "$T/r3.report.json"
python3 -c "
import json, sys; p=sys.argv[1]; r=json.load(open(p)); r['verdict']='pass' if r['verdict']!='pass' else 'fail'; json.dump(r, open(p,'w'))" "$T/r3/report.json"
"$GAUNTLET" seal "$T/r3" --repo "$EV" >/dev/null 2>"$T/e.log"; rc=$?
ID3=$(json "$T/r3/report.json" "r['run']['id']")
check "seal of a report.json that disagrees with the store: exit 2, nothing tagged" bash -c "[ $rc -eq 2 ] && grep -q 'does not match the store' '$T/e.log' && [ -n '$ID3' ] && git -C '$EV' rev-parse -q --verify refs/heads/$BRANCH >/dev/null && ! git -C '$EV' rev-parse -q --verify 'refs/tags/run/$ID3' >/dev/null"
cp "$T/r3.report.json" "$T/r3/report.json"
# a stand-in controller: holds the run's lock until this test kills it
python3 -c "
import fcntl, signal, sys
f = open(sys.argv[1] + '/run.lock', 'a'); fcntl.flock(f, fcntl.LOCK_EX)
open(sys.argv[1] + '/locked', 'w').close(); signal.pause()" "$T/r3" &
LOCKER=$!; PIDS+=("$LOCKER")
wait_for "$T/r3/locked" 30
"$GAUNTLET" seal "$T/r3" --repo "$EV" >/dev/null 2>"$T/e.log"; rc=$?
check "seal of a run that is still going: exit 2" bash -c "[ $rc -eq 2 ] && grep -q 'still running' '$T/e.log'"
kill "$LOCKER" 2>/dev/null; wait "$LOCKER" 2>/dev/null
python3 -c "
import json, sys; p=sys.argv[1]; r=json.load(open(p)); r['commit']='0'*40; json.dump(r, open(p,'w'))" "$T/r1/seal.json"
"$GAUNTLET" verify "$T/r1" >/dev/null 2>"$T/e.log"; rc=$?
check "verify against a commit the repository lacks: exit 2" bash -c "[ $rc -eq 2 ] && grep -q 'not in this repository' '$T/e.log'"

# --- 5. signed seals (ssh-keygen keys, checked by verify and by git) ------------
signed_part() {
	local K=$T/keys EVS=$T/evidence-signed EVU=$T/evidence-unsigned C S TAGOBJ FORGED
	mkdir -p "$K"
	ssh-keygen -q -t ed25519 -N '' -C alice -f "$K/alice" &&
		ssh-keygen -q -t ed25519 -N '' -C mallory -f "$K/mallory" || { bad "ssh-keygen makes ed25519 keys"; return; }
	echo "alice@example.com namespaces=\"git\" $(cut -d' ' -f1,2 "$K/alice.pub")" > "$K/allowed"
	echo "mallory@example.com namespaces=\"git\" $(cut -d' ' -f1,2 "$K/mallory.pub")" > "$K/allowed-other"
	"$GAUNTLET" seal "$T/r2" --repo "$EVS" --sign-key "$K/alice" >"$T/sseal.log" 2>&1; rc=$?
	C=$(json "$T/r2/seal.json" "r['commit']")
	check "seal --sign-key: exit 0, says signed" bash -c "[ $rc -eq 0 ] && grep -q 'commit and tag signed' '$T/sseal.log'"
	check "the sealed commit has an SSH signature in its gpgsig header" bash -c "git -C '$EVS' cat-file commit '$C' | grep -q '^gpgsig -----BEGIN SSH SIGNATURE-----'"
	check "the gpgsig header is as git writes it: its last line the END line, no empty continuation" bash -c "git -C '$EVS' cat-file commit '$C' | grep -qx ' -----END SSH SIGNATURE-----' && ! git -C '$EVS' cat-file commit '$C' | grep -qx ' '"
	"$GAUNTLET" verify "$T/r2" --allowed-signers "$K/allowed" >"$T/sv.log" 2>&1; rc=$?
	check "verify --allowed-signers: exit 0, commit and tag good, principal and fingerprint printed" bash -c "[ $rc -eq 0 ] && [ \$(grep -c '^signature .*: good, signer alice@example.com, key ED25519 SHA256:' '$T/sv.log') -eq 2 ] && grep -q \"\$(ssh-keygen -lf '$K/alice.pub' | cut -d' ' -f2)\" '$T/sv.log'"
	# the files counted are the sealed folder's, signatures or not
	NS=$(sed -n 's/^verify: ok: \([0-9]*\) sealed file(s) .*/\1/p' "$T/sv.log")
	"$GAUNTLET" verify "$T/r2" >"$T/sv0.log" 2>&1
	N0=$(sed -n 's/^verify: ok: \([0-9]*\) sealed file(s) .*/\1/p' "$T/sv0.log")
	NT=$(git -C "$EVS" ls-tree -r --name-only "$C:$ID2" | wc -l)
	check "verify counts the same sealed files with --allowed-signers ($NS, signatures apart) as without ($N0): the sealed folder's $NT" \
		bash -c "[ -n '$NS' ] && [ '$NS' = '$N0' ] && [ '$N0' = '$NT' ]"
	check "verify's last line counts the good signatures apart, and only when asked to check them" \
		bash -c "tail -1 '$T/sv.log' | grep -q '; 2 signature(s) good\$' && ! grep -q 'signature(s)' '$T/sv0.log'"
	"$GAUNTLET" verify "$T/r2" --allowed-signers "$K/allowed-other" >"$T/sv.log" 2>&1; rc=$?
	check "verify with another key's allowed signers: exit 1, signer not in the file" bash -c "[ $rc -eq 1 ] && [ \$(grep -c '^MISMATCH .*the signer is not in' '$T/sv.log') -eq 2 ]"
	check "git verify-commit accepts the sealed commit" git -C "$EVS" -c gpg.format=ssh -c gpg.ssh.allowedSignersFile="$K/allowed" verify-commit "$C"
	check "git verify-tag accepts the sealed tag" git -C "$EVS" -c gpg.format=ssh -c gpg.ssh.allowedSignersFile="$K/allowed" verify-tag "run/$ID2"
	check "git verify-commit refuses it with another key's allowed signers" bash -c "! git -C '$EVS' -c gpg.format=ssh -c gpg.ssh.allowedSignersFile='$K/allowed-other' verify-commit '$C' 2>/dev/null"
	# a tampered commit: its message changed, its signature kept
	FORGED=$(git -C "$EVS" cat-file commit "$C" | sed 's/^verdict: .*/verdict: pass (forged)/' | git -C "$EVS" hash-object -t commit -w --stdin)
	cp "$T/r2/seal.json" "$T/seal2.save"
	python3 -c "
import json, sys; p=sys.argv[1]; r=json.load(open(p)); r['commit']=sys.argv[2]; json.dump(r, open(p,'w'))" "$T/r2/seal.json" "$FORGED"
	"$GAUNTLET" verify "$T/r2" --allowed-signers "$K/allowed" >"$T/sv.log" 2>&1; rc=$?
	check "tampered commit: git verify-commit refuses it" bash -c "! git -C '$EVS' -c gpg.format=ssh -c gpg.ssh.allowedSignersFile='$K/allowed' verify-commit $FORGED 2>/dev/null"
	check "tampered commit: verify exits 1, bad signature" bash -c "[ $rc -eq 1 ] && grep -q '^MISMATCH commit ${FORGED:0:12}: bad signature' '$T/sv.log'"
	cp "$T/seal2.save" "$T/r2/seal.json"
	# unsigned evidence asked for a signature
	"$GAUNTLET" seal "$T/r3" --repo "$EVU" >/dev/null 2>&1
	"$GAUNTLET" verify "$T/r3" --allowed-signers "$K/allowed" >"$T/sv.log" 2>&1; rc=$?
	check "unsigned seal + --allowed-signers: exit 1, no signature (commit and tag)" bash -c "[ $rc -eq 1 ] && [ \$(grep -c '^MISMATCH .*no signature' '$T/sv.log') -eq 2 ]"
	"$GAUNTLET" verify "$T/r3" >/dev/null 2>&1; rc=$?
	check "unsigned seal without --allowed-signers: still exit 0" [ $rc -eq 0 ]
	# a key behind a symbolic link is refused before anything is written
	ln -s "$K/alice" "$K/link"
	"$GAUNTLET" seal "$T/r3" --repo "$T/evidence-link" --sign-key "$K/link" >/dev/null 2>"$T/e.log"; rc=$?
	check "seal --sign-key through a symbolic link: exit 2, nothing written" bash -c "[ $rc -eq 2 ] && grep -q 'symbolic link' '$T/e.log' && [ ! -e '$T/evidence-link' ]"
	check "no key material in what seal and verify printed" bash -c "! grep -q \"\$(sed -n 2p '$K/alice')\" '$T/sseal.log' '$T/sv.log' '$T/e.log'"
}
if command -v ssh-keygen >/dev/null; then
	signed_part
else
	part_skip "signed seals" "ssh-keygen (OpenSSH) is not installed"
fi

# --- 5b. report.pdf: sealed, and the same bytes when rendered again --------------
# Printed by headless Chromium through `gauntlet report` (the suite runs
# with GAUNTLET_PDF=off), from a copy of run 1. `seal` commits it with the
# other reports and `verify` fails once one byte of it changes or bytes
# are appended. Chromium stamps the time of printing into the PDF; gauntlet
# dates it at the run's end instead, so a second rendering is byte for
# byte the first, the seal still verifies and sealing again is a no-op;
# the rewritten dates leave every cross-reference offset valid.
# Every object the PDF's cross-reference table lists is at its offset.
xref_ok() { # PDF
	python3 - "$1" <<'PY'
import re, sys
b = open(sys.argv[1], "rb").read()
m = re.search(rb"startxref\s+(\d+)\s+%%EOF\s*$", b)
assert m and b[int(m.group(1)):].startswith(b"xref"), "no xref table at startxref"
pos, n = int(m.group(1)) + 4, 0
while True:
    sec = re.compile(rb"\s*(\d+) (\d+)\s*").match(b, pos)
    if not sec:
        assert re.compile(rb"\s*trailer").match(b, pos), "malformed xref table at %d" % pos
        break
    first, count, pos = int(sec.group(1)), int(sec.group(2)), sec.end()
    for i in range(count):
        e = b[pos + 20 * i:pos + 20 * i + 20]
        if e[17:18] == b"n":
            off, gen = int(e[:10]), int(e[11:16])
            assert b[off:].startswith(b"%d %d obj" % (first + i, gen)), "object %d is not at %d" % (first + i, off)
            n += 1
    pos += 20 * count
assert n > 3, n
PY
}
pdf_part() {
	local CHROME R=$T/rp EVP=$T/evidence-pdf ENDED C N rc
	CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome) ||
		{ part_skip "report.pdf" "no Chromium (Debian package chromium)"; return; }
	command -v pdfinfo >/dev/null || { part_skip "report.pdf" "pdfinfo not found (Debian package poppler-utils)"; return; }
	cp -a "$T/r1" "$R" && rm -f "$R/seal.json"
	GAUNTLET_PDF=auto GAUNTLET_CHROMIUM=$CHROME "$GAUNTLET" report "$R" >"$T/pdf1.log" 2>&1; rc=$?
	check "report.pdf rendered by gauntlet report (exit $rc)" bash -c "[ $rc -eq 0 ] && grep -qx '$R/report.pdf' '$T/pdf1.log'"
	grep 'report.pdf' "$T/pdf1.log" | grep -v "^$R"
	cp "$R/report.pdf" "$T/rp.first.pdf"

	"$GAUNTLET" seal "$R" --repo "$EVP" >"$T/pseal.log" 2>&1; rc=$?
	C=$(json "$R/seal.json" "r['commit']")
	check "seal with report.pdf present: exit $rc, report.pdf in the sealed folder" \
		bash -c "[ $rc -eq 0 ] && git -C '$EVP' ls-tree --name-only '$C:$ID1' | grep -qx report.pdf"
	check "seal.json lists report.pdf with its blob id" \
		json "$R/seal.json" "r['files'].get('report.pdf') == '$(git -C "$EVP" rev-parse "$C:$ID1/report.pdf" 2>/dev/null)' or sys.exit(str(r['files']))"
	check "the sealed report.pdf is the file's bytes" bash -c "git -C '$EVP' cat-file blob '$C:$ID1/report.pdf' | cmp -s - '$R/report.pdf'"
	"$GAUNTLET" verify "$R" >"$T/pv.log" 2>&1; rc=$?
	N=$(sed -n 's/^verify: ok: \([0-9]*\) sealed file(s) .*/\1/p' "$T/pv.log")
	check "verify: exit $rc, counting the sealed folder's files, report.pdf among them ($N)" \
		bash -c "[ $rc -eq 0 ] && [ '$N' = \"\$(git -C '$EVP' ls-tree -r --name-only '$C:$ID1' | wc -l)\" ]"

	# one byte of it changed, then bytes appended: each a mismatch naming it
	python3 -c "
import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[len(b)//2]^=1; open(p,'wb').write(b)" "$R/report.pdf"
	"$GAUNTLET" verify "$R" >"$T/pv.log" 2>&1; rc=$?
	check "one byte of report.pdf changed: verify exits 1 naming report.pdf, and nothing else (exit $rc)" \
		bash -c "[ $rc -eq 1 ] && grep -q '^MISMATCH report.pdf: differs from the sealed blob' '$T/pv.log' && [ \$(grep -c '^MISMATCH' '$T/pv.log') -eq 1 ]"
	cat "$T/pv.log"
	cp "$T/rp.first.pdf" "$R/report.pdf"
	printf '%%%% appended after the seal\n' >> "$R/report.pdf"
	"$GAUNTLET" verify "$R" >"$T/pv.log" 2>&1; rc=$?
	check "bytes appended to report.pdf: verify exits 1 naming report.pdf (exit $rc)" \
		bash -c "[ $rc -eq 1 ] && grep -q '^MISMATCH report.pdf: differs from the sealed blob' '$T/pv.log' && [ \$(grep -c '^MISMATCH' '$T/pv.log') -eq 1 ]"
	cp "$T/rp.first.pdf" "$R/report.pdf"
	"$GAUNTLET" verify "$R" >"$T/pv.log" 2>&1; rc=$?
	check "report.pdf restored: verify exits 0 (exit $rc)" [ $rc -eq 0 ]

	# rendered again: the same bytes, so the seal holds
	GAUNTLET_PDF=auto GAUNTLET_CHROMIUM=$CHROME "$GAUNTLET" report "$R" >"$T/pdf2.log" 2>&1; rc=$?
	check "report.pdf rendered again (exit $rc)" bash -c "[ $rc -eq 0 ] && grep -qx '$R/report.pdf' '$T/pdf2.log'"
	check "report.pdf rendered twice: the same bytes" cmp "$T/rp.first.pdf" "$R/report.pdf"
	cmp -l "$T/rp.first.pdf" "$R/report.pdf" 2>/dev/null | head -3
	"$GAUNTLET" verify "$R" >"$T/pv.log" 2>&1; rc=$?
	check "verify after the PDF was rendered again: exit 0 (exit $rc)" [ $rc -eq 0 ]
	grep -v '^verify: ok' "$T/pv.log"
	"$GAUNTLET" seal "$R" --repo "$EVP" >"$T/pseal.log" 2>&1; rc=$?
	check "seal again after the re-rendering: exit 0, already sealed at the same commit (exit $rc)" \
		bash -c "[ $rc -eq 0 ] && grep -q 'already sealed' '$T/pseal.log' && [ '$(json "$R/seal.json" "r['commit']")' = '$C' ]"
	grep -v 'already sealed' "$T/pseal.log"

	ENDED=$(json "$R/report.json" "r['run']['ended'][:19] + 'Z'")
	pdfinfo -isodates "$R/report.pdf" >"$T/pdfinfo.out" 2>"$T/pdfinfo.err"; rc=$?
	check "report.pdf's creation and modification dates are the run's end ($ENDED), as pdfinfo reads them" \
		bash -c "[ $rc -eq 0 ] && grep -qx 'CreationDate: *$ENDED' '$T/pdfinfo.out' && grep -qx 'ModDate: *$ENDED' '$T/pdfinfo.out'"
	grep -E 'Date|Pages' "$T/pdfinfo.out" "$T/pdfinfo.err" | sed 's/^/  /'
	check "report.pdf: every object at the offset its cross-reference table gives" xref_ok "$R/report.pdf"
	# the checker itself: the same PDF with a byte put in before its objects
	python3 -c "
import sys; b = open(sys.argv[1], 'rb').read(); i = b.index(b'1 0 obj'); open(sys.argv[2], 'wb').write(b[:i] + b'%' + b[i:])" \
		"$R/report.pdf" "$T/shifted.pdf"
	check "the offset check fails a PDF whose objects moved (negative control)" eval "! xref_ok '$T/shifted.pdf' 2>/dev/null"
}
pdf_part

# --- 6. the workloads' images in the manifest -----------------------------------
# An inference workload against `gauntlet target` names its image by tag;
# a stand-in crictl (the output shape of `crictl inspecti -o json`, with
# the warning real crictl prints on stderr without a config) answers for
# the local host, the unreachable host says why, and the Kubernetes mock
# (tests/scripts/k8s_mock.py, checking method, path, query and token)
# lists the workload's pods. Then the image pinned by digest, a docker
# whose image has no repo digest and a wrong token: each entry unavailable
# with its reason, and the run not failed for it.
IMG="registry.example.com/vllm/vllm-openai:v0.6.3"
VD="sha256:$(printf '3b%.0s' $(seq 32))"
HD="sha256:$(printf 'a1%.0s' $(seq 32))"
mk_crictl() { # FILE
	cat > "$1" <<EOF
#!/bin/sh
echo "\$*" >> "$T/crictl.args"
echo 'WARN[0000] image connect using default endpoints: [unix:///run/containerd/containerd.sock]. As the default settings are now deprecated, you should set the endpoint instead.' >&2
if [ "\$1 \$2 \$3 \$4" != "inspecti -o json $IMG" ]; then
	echo "FATA[0000] no such image \"\$4\" present" >&2
	exit 1
fi
cat <<'JSON'
{
  "status": {
    "id": "sha256:$(printf '77%.0s' $(seq 32))",
    "repoTags": [
      "mirror.example.net/vllm/vllm-openai:v0.6.3",
      "$IMG"
    ],
    "repoDigests": [
      "mirror.example.net/vllm/vllm-openai@sha256:$(printf 'ee%.0s' $(seq 32))",
      "registry.example.com/vllm/vllm-openai@$HD"
    ],
    "size": "9823471234",
    "uid": null,
    "username": "",
    "spec": null,
    "pinned": false
  },
  "info": {
    "imageSpec": { "created": "2026-10-01T00:00:00Z", "architecture": "amd64", "os": "linux" }
  }
}
JSON
EOF
	chmod +x "$1"
}
mk_docker() { # FILE: an image built locally, never pushed (no repo digest)
	cat > "$1" <<EOF
#!/bin/sh
cat <<'JSON'
[
    {
        "Id": "sha256:$(printf '55%.0s' $(seq 32))",
        "RepoTags": [
            "local/build:dev"
        ],
        "RepoDigests": [],
        "Parent": "",
        "Comment": "buildkit.dockerfile.v0"
    }
]
JSON
EOF
	chmod +x "$1"
}
img_scenario() { # FILE IMAGE TOKEN_ENV ENDPOINT API
	python3 - "$@" <<'PY'
import json, sys
path, image, tok, ep, api = sys.argv[1:6]
json.dump({"name": "images", "duration": "2s", "window": "1s",
  "hosts": {"localhost": {"local": True}, "ghost": {"local": True, "netns": "gl-evidence-no-such-ns"}},
  "workloads": {"inference": {"endpoints": [ep], "model": "gauntlet-target", "input_tokens": 20,
    "output_tokens": 5, "timeout": "5s", "arrival": {"mode": "constant", "rate": 20}, "image": image,
    "image_source": {"kubernetes": api, "namespace": "ml", "pod_selector": "app=vllm", "token_env": tok}}},
  "targets": {"steady": {"inference.error_rate": "<= 0.5", "inference.ttft_ms.p99": "<= 5000"}}}, open(path, "w"), indent=1)
PY
}
images_part() {
	local KAPI M rc
	mkdir -p "$T/crictl-bin" "$T/docker-bin"
	mk_crictl "$T/crictl-bin/crictl"
	mk_docker "$T/docker-bin/docker"
	export GL_TEST_K8S_TOKEN="tok-$$-$RANDOM"
	python3 "$GL_SOURCE_DIR/tests/scripts/k8s_mock.py" "$T/k8s.port" "$T/k8s.log" "$T/k8s.state" \
		"$GL_TEST_K8S_TOKEN" gpu-node-1 2>"$T/k8s.err" &
	PIDS+=("$!")
	wait_for "$T/k8s.port" 10 || { bad "images: the Kubernetes mock did not start: $(head -c 300 "$T/k8s.err")"; return; }
	KAPI="http://127.0.0.1:$(cat "$T/k8s.port")"
	start_target img --ttft-ms 5 --itl-ms 1 --output-tokens 5 --max-seqs 100
	img_scenario "$T/img1.json" "$IMG" GL_TEST_K8S_TOKEN "http://$ADDR/v1" "$KAPI"
	PATH="$T/crictl-bin:$PATH" "$GAUNTLET" run "$T/img1.json" --out "$T/ri1" >"$T/ri1.log" 2>&1; rc=$?
	check "images run 1 finished (pass or fail, not 2 or 4: rc $rc)" [ $rc -le 1 ]
	M=$T/ri1/manifest.json
	check "manifest: the scenario's tagged image: no digest, unpinned, unavailable saying so" json "$M" \
		"[(e['image'], e['digest'], e['pinned'], e['status'], 'tag only' in e['reason']) for e in r['images'] if e['source'] == 'scenario'] == [('$IMG', None, False, 'unavailable', True)] or sys.exit(str(r.get('images')))"
	check "manifest: the local host's digest from crictl inspecti (its own repository's, not the mirror's)" json "$M" \
		"[(e['digest'], e['status'], e['command'], e['repo_digest']) for e in r['images'] if e['source'] == 'host' and e['host'] == 'localhost'] == [('$HD', 'measured', 'crictl inspecti -o json', 'registry.example.com/vllm/vllm-openai@$HD')] or sys.exit(str(r.get('images')))"
	check "crictl was asked with argv: inspecti -o json IMAGE" grep -qx "inspecti -o json $IMG" "$T/crictl.args"
	check "manifest: the unreachable host's entry is unavailable, with the reason" json "$M" \
		"[(e['status'], e['digest'], 'not reachable' in e['reason']) for e in r['images'] if e.get('host') == 'ghost'] == [('unavailable', None, True)] or sys.exit(str(r.get('images')))"
	check "manifest: Kubernetes pods: each started container's image and imageID digest; the pending pod has none" json "$M" \
		"sorted((e['pod'], e['container'], e['image'], e['digest'], e['pinned'], e['status']) for e in r['images'] if e['source'] == 'kubernetes') == [('vllm-0', 'metrics', 'registry.example.com/ops/exporter@sha256:' + 'c4' * 32, 'sha256:' + 'c4' * 32, True, 'measured'), ('vllm-0', 'vllm', '$IMG', '$VD', False, 'measured')] or sys.exit(str(r.get('images')))"
	check "manifest: every image entry measured with a digest or unavailable with a reason" json "$M" \
		"len(r['images']) == 5 and all((e['status'] == 'measured' and e['digest'] and e['reason'] is None) or (e['status'] == 'unavailable' and e['digest'] is None and e['reason']) for e in r['images']) or sys.exit(str(r.get('images')))"
	check "the Kubernetes mock saw one GET /api/v1/namespaces/ml/pods?labelSelector=app%3Dvllm with the token, nothing else" python3 -c "
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert [(q['method'], q['path'], q['status'], q['error']) for q in reqs] == [('GET', '/api/v1/namespaces/ml/pods?labelSelector=app%3Dvllm', 200, None)], reqs" "$T/k8s.log"
	check "report.md warns of the unpinned image, once" bash -c "[ \$(grep -c '^> \*\*Warning:\*\* image $IMG of workload inference is named by tag, not pinned' '$T/ri1/report.md') -eq 1 ]"
	check "report.html warns of the unpinned image" grep -q "<p class=\"warn\"><strong>Warning:</strong> image $IMG of workload inference is named by tag, not pinned" "$T/ri1/report.html"
	check "no token in the run directory" bash -c "! grep -rqa -- '$GL_TEST_K8S_TOKEN' '$T/ri1'"
	cp "$M" "$T/ri1.manifest.json"
	"$GAUNTLET" report "$T/ri1" >/dev/null 2>&1
	check "report DIR re-renders the images byte for byte (from the store)" cmp -s "$M" "$T/ri1.manifest.json"

	: > "$T/k8s.log"
	img_scenario "$T/img2.json" "registry.example.com/vllm/vllm-openai@$VD" GL_TEST_K8S_WRONG "http://$ADDR/v1" "$KAPI"
	GL_TEST_K8S_WRONG=not-the-token PATH="$T/docker-bin:$PATH" "$GAUNTLET" run "$T/img2.json" --out "$T/ri2" >"$T/ri2.log" 2>&1; rc=$?
	M=$T/ri2/manifest.json
	check "images run 2 finished although every read-back failed (rc $rc)" [ $rc -le 1 ]
	check "manifest: the scenario's image pinned by digest: measured, pinned" json "$M" \
		"[(e['digest'], e['pinned'], e['status']) for e in r['images'] if e['source'] == 'scenario'] == [('$VD', True, 'measured')] or sys.exit(str(r.get('images')))"
	check "manifest: docker's image without a repo digest: unavailable, saying so" json "$M" \
		"[(e['status'], e['digest'], 'no repo digest' in e['reason']) for e in r['images'] if e.get('host') == 'localhost'] == [('unavailable', None, True)] or sys.exit(str(r.get('images')))"
	check "manifest: a refused token: one Kubernetes entry, unavailable with HTTP 401" json "$M" \
		"[(e['status'], 'HTTP 401' in e['reason']) for e in r['images'] if e['source'] == 'kubernetes'] == [('unavailable', True)] or sys.exit(str(r.get('images')))"
	check "report.md: no image warning when the image is pinned" bash -c "! grep -q 'not pinned' '$T/ri2/report.md'"

	# the image keys' shapes, checked by validate with the path named
	python3 - "$T/img1.json" "$T/img-bad.json" <<'PY'
import json, sys
sc = json.load(open(sys.argv[1]))
sc["workloads"]["inference"]["image"] = "Registry.example.com/VLLM:v1"
sc["workloads"]["inference"]["image_source"]["namespace"] = "ML_ns"
sc["workloads"]["training"] = {"launcher": "mpirun", "hosts": ["localhost:1"], "backend": "mpi",
                               "image": "registry.example.com/train@sha256:1234"}
json.dump(sc, open(sys.argv[2], "w"), indent=1)
PY
	"$GAUNTLET" validate "$T/img-bad.json" >"$T/iv.log" 2>&1; rc=$?
	check "validate: bad image references and namespace: exit 2, each error naming its path" bash -c "[ $rc -eq 2 ] && grep -q 'workloads.inference.image: .*not a valid name component' '$T/iv.log' && grep -q 'workloads.training.image: .*sha256: and 64 lowercase hex' '$T/iv.log' && grep -q 'workloads.inference.image_source.namespace' '$T/iv.log'"
	"$GAUNTLET" validate "$T/img1.json" >"$T/iv.log" 2>&1; rc=$?
	check "validate: the good image keys pass" [ $rc -eq 0 ]
}
images_part

finish
