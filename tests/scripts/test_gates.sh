#!/usr/bin/env bash
# test_gates.sh - diagnostic gates (docs/gates.md) end to end on a local
# host, with a stand-in dcgmi first on PATH serving recorded DCGM outputs
# (tests/gates/: DCGM 4 passing and failing on GPU 1, DCGM 3 warning on
# GPU 2 and skipping GPU 3, cut short, a runtime error):
#   validate refuses bad gates naming the path, and shows each command,
#   as --dry-run does;
#   a passing gate lets a null soak run, and every report shows per GPU
#   and per test what passed (the raw output kept in DIR/gates/ and the
#   store); a warning proceeds and is shown;
#   a failing gate before the soak stops the run before any load: exit 4,
#   naming host, GPU and test, no window, no tick;
#   a failing gate after the soak fails the verdict (exit 1); one stopped
#   by SIGTERM does not run its after gates and records them skipped;
#   SIGKILL during the before gates, then resume: the interrupted gate
#   runs again, the one that passed does not, then the soak; SIGINT
#   during an after gate ends it and the run (exit 3, aborted, the gate
#   recorded skipped), and resume finishes the gate;
#   a command gate passes or fails by its exit status;
#   output that is not DCGM's JSON fails the gate saying why.
# `report` regenerated from the store alone shows the gates again.
. "$(dirname "$0")/lib.sh"

REC=$GL_SOURCE_DIR/tests/gates
mkdir -p "$T/bin" "$T/dcgm"
cp "$REC/dcgmi" "$T/bin/dcgmi"
export PATH="$T/bin:$PATH" GL_FAKE_DCGMI_DIR="$T/dcgm"
serve() { # LEVEL RECORDING [RC]
	cp "$REC/$2" "$T/dcgm/r$1.json"
	echo "${3:-0}" > "$T/dcgm/r$1.rc"
}
mk() { # FILE GATES-JSON
	cat > "$1" <<JSON
{ "name": "gates", "duration": "4s", "window": "1s", "hosts": { "gpu1": { "local": true } },
  "workloads": { "null": { "rate": 100 } }, "targets": { "steady": { "null.ticks": ">= 1" } },
  "gates": $2 }
JSON
}
run() { # NAME SCENARIO: runs it into $T/NAME, sets rc
	"$GAUNTLET" run "$2" --out "$T/$1" --time-scale 2 > "$T/$1.log" 2>&1; rc=$?
}
DCGM3='{ "id": "dcgm-r3", "kind": "dcgm_diag", "level": 3, "hosts": ["gpu1"], "when": ["before"], "timeout": "60s" }'

# ---- validate and --dry-run -------------------------------------------------------
mk "$T/bad.json" '[ { "id": "a/b", "kind": "dcgm", "hosts": ["gpu9"], "when": ["during"], "argv": 1, "level": 9 },
  { "id": "c", "kind": "dcgm_diag", "argv": ["x"], "hosts": ["gpu1"], "when": ["before"] },
  { "id": "c", "kind": "command", "level": 2, "hosts": ["gpu1"], "when": ["after", "after"], "timeout": "0s", "oops": 1 } ]'
"$GAUNTLET" validate "$T/bad.json" > "$T/bad.out" 2>&1; rc=$?
check "validate refuses bad gates (exit $rc)" [ $rc -eq 2 ]
for want in "gates\[0\].id.*expected letters" "gates\[0\].kind.*dcgm_diag" "gates\[0\].hosts\[0\].*unknown host 'gpu9'" \
	    "gates\[0\].when\[0\].*expected \"before\"" "gates\[1\].argv.*no \"argv\"" "gates\[2\].id.*duplicate gate id 'c'" \
	    "gates\[2\].level.*only a dcgm_diag" "gates\[2\].argv.*missing required key 'argv'" "gates\[2\].when\[1\].*named twice" \
	    "gates\[2\].timeout.*1s to 24h" "gates\[2\].*oops"; do
	check "validate names the path: $want" grep -q "$want" "$T/bad.out"
done
mk "$T/ok.json" "[ $DCGM3, { \"id\": \"nvme\", \"kind\": \"command\", \"argv\": [\"nvme\", \"smart-log\", \"/dev/nvme0\"],
  \"hosts\": [\"gpu1\"], \"when\": [\"before\", \"after\"] } ]"
"$GAUNTLET" validate "$T/ok.json" > "$T/ok.out" 2>&1
check "validate shows the dcgm gate's command" grep -q "^  dcgmi diag -r 3 -j$" "$T/ok.out"
check "validate shows the command gate, when and where" grep -q "gate 'nvme' (command) before the soak and after it.* on gpu1" "$T/ok.out"
"$GAUNTLET" run "$T/ok.json" --dry-run > "$T/dry.out" 2>&1
check "--dry-run shows the gate commands" grep -q "^  nvme smart-log /dev/nvme0$" "$T/dry.out"
check "--dry-run ran nothing" [ ! -e "$T/dcgm/calls" ]

# ---- passing dcgm gate (DCGM 4) and passing command gate: the soak runs -----------------
serve 3 dcgm4-r3-pass.json
mk "$T/pass.json" "[ $DCGM3, { \"id\": \"smart\", \"kind\": \"command\", \"argv\": [\"sh\", \"-c\", \"echo smart ok\"],
  \"hosts\": [\"gpu1\"], \"when\": [\"before\"] } ]"
run pass "$T/pass.json"
check "a passing gate lets the run pass (exit $rc)" [ $rc -eq 0 ]
check "dcgmi ran as 'diag -r 3 -j'" grep -qx "diag -r 3 -j" "$T/dcgm/calls"
R=$T/pass/report.json
check "report.json: the dcgm gate passed before, on gpu1" json "$R" \
	"[(g['id'], g['kind'], g['host'], g['when'], g['status']) for g in r['gates']][0] == ('dcgm-r3', 'dcgm_diag', 'gpu1', 'before', 'pass')"
check "report.json: 4 GPUs x 7 tests passed, nvbandwidth skipped on each" json "$R" \
	"sorted((x['id'], x['test']) for x in r['gates'][0]['results'] if x['status'] == 'pass') == sorted((g, t) for g in range(4) for t in ['software', 'pcie', 'memory', 'diagnostic', 'targeted_stress', 'targeted_power', 'memory_bandwidth']) and sorted((x['id'], x['status']) for x in r['gates'][0]['results'] if x['test'] == 'nvbandwidth') == [(g, 'skip') for g in range(4)]"
check "report.json: the command gate passed by its exit status" json "$R" \
	"[(g['id'], g['status'], g['exit_status']) for g in r['gates'] if g['kind'] == 'command'] == [('smart', 'pass', 0)]"
check "the raw DCGM output kept as it was printed" cmp "$REC/dcgm4-r3-pass.json" "$T/pass/gates/dcgm-r3-gpu1-before.json"
check "report.json points at the raw file" json "$R" "r['gates'][0]['raw'] == 'gates/dcgm-r3-gpu1-before.json'"
check "the store keeps the raw output too" [ "$(sql "$T/pass/run.db" "select length(raw) from gates where id='dcgm-r3'")" = "$(wc -c < "$REC/dcgm4-r3-pass.json")" ]
check "the soak ran after the gates (windows written)" [ "$(sql "$T/pass/run.db" "select count(*) from windows")" -ge 1 ]
check "report.md: a per-GPU per-test table" grep -q "^| memory | pass | pass | pass | pass |$" "$T/pass/report.md"
check "report.md: GPU columns" grep -q "^| test | GPU 0 | GPU 1 | GPU 2 | GPU 3 |$" "$T/pass/report.md"
check "report.md: skipped tests shown, and not a failure" grep -q "^| nvbandwidth | skip | skip | skip | skip |$" "$T/pass/report.md"
check "report.html: a Gates section" grep -q '<h2 id="gates">Gates (0 failed)</h2>' "$T/pass/report.html"
check "junit.xml: a test case per gate, host and when" grep -q '<testcase classname="gauntlet.gates" name="dcgm-r3 before on gpu1"' "$T/pass/junit.xml"
# the raw outputs are evidence: seal commits gates/ with the reports, verify checks each byte
"$GAUNTLET" seal "$T/pass" --repo "$T/ev.git" > "$T/seal.out" 2>&1; rc=$?
check "seal: exit 0 (got $rc)" [ $rc -eq 0 ]
check "seal: the sealed run folder holds gates/ with the raw DCGM output, byte for byte" \
	sh -c "git --git-dir='$T/ev.git' show \"run/\$(python3 -c \"import json; print(json.load(open('$T/pass/seal.json'))['run_id'])\"):\$(python3 -c \"import json; print(json.load(open('$T/pass/seal.json'))['run_id'])\")/gates/dcgm-r3-gpu1-before.json\" | cmp - '$REC/dcgm4-r3-pass.json'"
"$GAUNTLET" verify "$T/pass" > "$T/verify.out" 2>&1; rc=$?
check "verify: exit 0 (got $rc)" [ $rc -eq 0 ]
cp "$T/pass/gates/dcgm-r3-gpu1-before.json" "$T/raw.keep"
sed -i 's/"Pass"/"Fail"/' "$T/pass/gates/dcgm-r3-gpu1-before.json"
"$GAUNTLET" verify "$T/pass" > "$T/verify2.out" 2>&1; rc=$?
check "verify: a changed byte in a gate's raw output fails (exit 1; got $rc), naming the file" \
	sh -c "[ $rc -eq 1 ] && grep -q 'gates/dcgm-r3-gpu1-before.json' '$T/verify2.out'"
cp "$T/raw.keep" "$T/pass/gates/dcgm-r3-gpu1-before.json"

# ---- warning (DCGM 3 shape): proceeds, the warning shown ------------------------------------
serve 3 dcgm3-r3-warn-gpu2.json 0
mk "$T/warn.json" "[ $DCGM3 ]"
run warn "$T/warn.json"
check "a warning gate lets the run pass (exit $rc)" [ $rc -eq 0 ]
check "report.json: warn, naming GPU 2 and its test" json "$T/warn/report.json" \
	"r['gates'][0]['status'] == 'warn' and r['gates'][0]['reason'].startswith('GPU 2: Targeted Power warned: Clocks are being throttled')"
check "report.json: GPU 3's memory test skipped" json "$T/warn/report.json" \
	"[x['status'] for x in r['gates'][0]['results'] if x['id'] == 3 and x['test'] == 'GPU Memory'] == ['skip']"
check "report.json: DCGM 3's level-one tests count for all GPUs" json "$T/warn/report.json" \
	"[x['id'] for x in r['gates'][0]['results'] if x['test'] == 'Denylist'] == [None]"
check "the log shows the warning" grep -q "warn.*gate dcgm-r3 before on gpu1: warn.*GPU 2: Targeted Power" "$T/warn.log"
check "report.md: the warning in the table" grep -q "^| Targeted Power | - | pass | pass | warn | pass |$" "$T/warn/report.md"

# ---- failing before the soak: stops before any load ------------------------------------
serve 3 dcgm4-r3-fail-gpu1.json 226
mk "$T/fail.json" "[ $DCGM3 ]"
run fail "$T/fail.json"
check "a failing gate before the soak: exit 4 (got $rc)" [ $rc -eq 4 ]
check "the message names gate, host, GPU and test" grep -q "gate dcgm-r3 before on gpu1: GPU 1: memory failed: Memory test failed: 3 uncorrectable" "$T/fail.log"
check "no load ran: no window in the store" [ "$(sql "$T/fail/run.db" "select count(*) from windows")" = 0 ]
check "no load ran: no tick counted" [ "$(sql "$T/fail/run.db" "select count(*) from window_metrics")" = 0 ]
check "no load ran: the run never started" bash -c "! grep -q 'run .* started' '$T/fail.log'"
check "report.json: the run failed on the gate" json "$T/fail/report.json" \
	"r['verdict'] == 'fail' and r['gates'][0]['status'] == 'fail' and r['gates'][0]['exit_status'] == 226"
check "report.html: the banner says a gate failed" grep -q 'Gates: 1 failed (see <a href="#gates">Gates</a>)' "$T/fail/report.html"
check "junit.xml: the gate's failure" grep -q '<failure type="gate" message="GPU 1: memory failed' "$T/fail/junit.xml"

# ---- failing after the soak: the verdict fails --------------------------------------
serve 1 dcgm4-r3-pass.json
serve 2 dcgm4-r3-fail-gpu1.json 226
mk "$T/after.json" '[ { "id": "quick", "kind": "dcgm_diag", "hosts": ["gpu1"], "when": ["before"] },
  { "id": "r2", "kind": "dcgm_diag", "level": 2, "hosts": ["gpu1"], "when": ["after"] } ]'
run after "$T/after.json"
check "a failing gate after the soak fails the verdict (exit $rc)" [ $rc -eq 1 ]
check "report.json: targets met, the after gate failed" json "$T/after/report.json" \
	"all(t['pass'] for t in r['targets']) and [(g['id'], g['when'], g['status']) for g in r['gates']] == [('quick', 'before', 'pass'), ('r2', 'after', 'fail')]"
check "the soak ran (windows written)" [ "$(sql "$T/after/run.db" "select count(*) from windows")" -ge 1 ]
rm -f "$T/after/report.json" "$T/after/report.md"
"$GAUNTLET" report "$T/after" > "$T/report.log" 2>&1
check "report from the store alone shows the gates again" json "$T/after/report.json" \
	"[g['status'] for g in r['gates']] == ['pass', 'fail'] and len(r['gates'][1]['results']) == 28 and len(r['gates'][0]['results']) == 32"

# ---- stopped by SIGTERM: the after gates are not run, and say so
mk "$T/term.json" '[ { "id": "r2", "kind": "dcgm_diag", "level": 2, "hosts": ["gpu1"], "when": ["after"] } ]'
rm -f "$T/dcgm/calls"
bg run "$T/term.json" --out "$T/term" --time-scale 0.5
# once the loop runs (its first window stored; 8 s of run at this scale:
# a signal in an earlier phase ends the run too, tests/security/test_stop.sh)
until_ok 30 sql_is "$T/term/run.db" "select count(*) > 0 from windows" 1
kill -TERM "$BG_PID"; wait "$BG_PID"; rc=$?
check "a run stopped by SIGTERM exits 3 (got $rc)" [ $rc -eq 3 ]
check "its after gate was not run" [ ! -e "$T/dcgm/calls" ]
check "report.json: the after gate skipped, saying why" json "$T/term/report.json" \
	"[(g['when'], g['status'], g['reason']) for g in r['gates']] == [('after', 'skip', 'not run: stopped by SIGTERM')]"
check "junit.xml: a skipped test case" grep -q '<skipped message="not run: stopped by SIGTERM"/>' "$T/term/junit.xml"

# ---- killed during its before gates, then resumed: the unfinished gate runs again, before any load
# the slow gate, until slow.go exists, reads a fifo this test holds open
# for writing (fd 7, closed for gauntlet and its children): it blocks
# until the test closes its end (end of file), at the latest at its exit
mkfifo "$T/slow.fifo"; exec 7<>"$T/slow.fifo"
mk "$T/kill.json" "[ { \"id\": \"quick\", \"kind\": \"command\", \"argv\": [\"sh\", \"-c\", \"echo x >> $T/quick.count\"],
  \"hosts\": [\"gpu1\"], \"when\": [\"before\"] },
  { \"id\": \"slow\", \"kind\": \"command\", \"argv\": [\"sh\", \"-c\", \"echo x >> $T/slow.count; [ -e $T/slow.go ] || exec cat $T/slow.fifo\"],
  \"hosts\": [\"gpu1\"], \"when\": [\"before\"] } ]"
bg run "$T/kill.json" --out "$T/kill" --time-scale 2 7>&-
# (30 s: the sanitizer build beside other tests can take over 10 s to
# reach its second gate, and a kill before it leaves one run of it)
check "the slow gate started before the kill" wait_for "$T/slow.count" 30
kill -9 "$BG_PID"; wait "$BG_PID" 2>/dev/null
check "killed during its gates: no window yet" [ "$(sql "$T/kill/run.db" "select count(*) from windows")" = 0 ]
touch "$T/slow.go"; exec 7>&-
"$GAUNTLET" resume "$T/kill" > "$T/kill-resume.log" 2>&1; rc=$?
check "resume after a kill during the before gates passes (exit $rc)" [ $rc -eq 0 ]
check "the gate that passed before the kill is not run again" [ "$(wc -l < "$T/quick.count")" -eq 1 ]
check "the gate the kill interrupted runs again (runs: $(wc -l < "$T/slow.count"), want 2)" [ "$(wc -l < "$T/slow.count")" -eq 2 ]
check "then the soak ran" [ "$(sql "$T/kill/run.db" "select count(*) from windows")" -ge 1 ]

# ---- SIGINT during an after gate ends it and the run, aborted; resume finishes it
mkfifo "$T/aslow.fifo"; exec 8<>"$T/aslow.fifo"
mk "$T/int.json" "[ { \"id\": \"slow\", \"kind\": \"command\", \"argv\": [\"sh\", \"-c\", \"echo x >> $T/aslow.count; [ -e $T/aslow.go ] || exec cat $T/aslow.fifo\"],
  \"hosts\": [\"gpu1\"], \"when\": [\"after\"] } ]"
bg run "$T/int.json" --out "$T/int" --time-scale 2 8>&-
wait_for "$T/aslow.count" 15
kill -INT "$BG_PID"; wait "$BG_PID"; rc=$?
check "SIGINT during an after gate ends the run aborted (exit $rc, want 3)" [ $rc -eq 3 ]
check "report.json: aborted, the after gate skipped as stopped" json "$T/int/report.json" \
	"r['verdict'] == 'aborted' and [(g['when'], g['status'], g['reason']) for g in r['gates']] == [('after', 'skip', 'stopped by SIGINT: not judged')]"
touch "$T/aslow.go"; exec 8>&-
"$GAUNTLET" resume "$T/int" > "$T/int-resume.log" 2>&1; rc=$?
check "resume runs the unfinished after gate, and the run passes (exit $rc)" bash -c "[ $rc -eq 0 ] && [ \$(wc -l < '$T/aslow.count') -eq 2 ]"

# ---- command gate failing by its exit status ----------------------------------------------
mk "$T/cmd.json" '[ { "id": "nvme", "kind": "command", "argv": ["sh", "-c", "echo critical_warning: 0x4; exit 3"],
  "hosts": ["gpu1"], "when": ["before"] } ]'
run cmd "$T/cmd.json"
check "a failing command gate stops the run (exit $rc)" [ $rc -eq 4 ]
check "its message: exit status and last line" grep -q "gate nvme before on gpu1: exited 3: critical_warning: 0x4" "$T/cmd.log"
check "its output kept" grep -q "critical_warning: 0x4" "$T/cmd/gates/nvme-gpu1-before.log"

# ---- output that is not DCGM's: a failure with a reason, not a crash ------------------------------
serve 3 dcgm4-truncated.json 0
run trunc "$T/fail.json"
check "cut-short DCGM output fails the gate (exit $rc)" [ $rc -eq 4 ]
check "... saying why" grep -q "gate dcgm-r3 before on gpu1: dcgmi exited 0 and its output is not usable: the output is not valid JSON" "$T/trunc.log"
serve 3 dcgm4-runtime-error.json 1
run rterr "$T/fail.json"
check "a DCGM runtime error fails the gate (exit $rc)" [ $rc -eq 4 ]
check "... with DCGM's words" grep -q "DCGM could not run the diagnostic: Error: unable to establish a connection" "$T/rterr.log"
rm -f "$T/bin/dcgmi"
run nodcgmi "$T/fail.json"
check "no dcgmi on the host fails the gate (exit $rc)" [ $rc -eq 4 ]
check "... saying so" grep -q "'dcgmi' not found on the host (exit 127)" "$T/nodcgmi.log"
finish
