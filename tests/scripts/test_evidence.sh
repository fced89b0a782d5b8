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
# and passes again once restored.
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
check "targets: the null workload ticked (tick lag p99 passes, null.ticks fails its <= 0 on > 100 ticks measured)" json "$T/r1/report.json" \
	"any(t['metric'] == 'null.tick_lag_ms.p99' and t['pass'] for t in r['targets']) and any(t['metric'] == 'null.ticks' and not t['pass'] and (t['measured'] or 0) > 100 for t in r['targets']) or sys.exit(str([(t['metric'], t['measured'], t['pass']) for t in r['targets']]))"
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
WANT=$( (cd "$T/r1" && ls report.json report.md report.html junit.xml timeseries.csv manifest.json 2>/dev/null; echo scenario.json; echo store.sha256) | sort | tr '\n' ' ')
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
python3 -c "
import fcntl, sys, time
f = open(sys.argv[1] + '/run.lock', 'a'); fcntl.flock(f, fcntl.LOCK_EX)
open(sys.argv[1] + '/locked', 'w').close(); time.sleep(5)" "$T/r3" &
LOCKER=$!; PIDS+=("$LOCKER")
wait_for "$T/r3/locked" 5
"$GAUNTLET" seal "$T/r3" --repo "$EV" >/dev/null 2>"$T/e.log"; rc=$?
check "seal of a run that is still going: exit 2" bash -c "[ $rc -eq 2 ] && grep -q 'still running' '$T/e.log'"
kill "$LOCKER" 2>/dev/null; wait "$LOCKER" 2>/dev/null
python3 -c "
import json, sys; p=sys.argv[1]; r=json.load(open(p)); r['commit']='0'*40; json.dump(r, open(p,'w'))" "$T/r1/seal.json"
"$GAUNTLET" verify "$T/r1" >/dev/null 2>"$T/e.log"; rc=$?
check "verify against a commit the repository lacks: exit 2" bash -c "[ $rc -eq 2 ] && grep -q 'not in this repository' '$T/e.log'"

finish
