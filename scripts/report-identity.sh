#!/usr/bin/env bash
# report-identity.sh - are the reports the same, byte for byte, when a new
# gauntlet renders them from stores an old one wrote? (A change to the
# source layout, or any refactor, must not change a report.)
#
#   bash scripts/report-identity.sh --make DIR  [--gauntlet PATH]
#       With the (old) binary, write a set of run stores into DIR/stores/,
#       one or more report features each (listed above make_stores below).
#       Each keeps the reports that binary wrote. About 90 s here.
#   bash scripts/report-identity.sh --check DIR [--gauntlet PATH]
#       For each store: copy it to a scratch directory, delete its report
#       files there (every file but run.db and run.lock), render them with
#       the (new) binary's `gauntlet report`, and compare each file byte
#       for byte with the one the old binary wrote (a file only one side
#       has differs). Prints per file "identical" or a diff excerpt, and
#       closes with "N files compared, M differ"; exit 1 when any differ
#       (or a render failed), 0 otherwise, 2 on bad usage.
#
# PATH defaults to $GAUNTLET, else build/gauntlet of this checkout. DIR is
# never written by --check.
#
# Normalised before comparing, and nothing else: the lines naming
# gauntlet's own version and revision (normalise() below lists each one).
# They are read from the store (the binary that ran the run), so today a
# re-render keeps them; they are set aside because they name the binary,
# which may change. A file identical only once they are set aside says so.
# Nothing else in a report depends on when, where (which directory, time
# zone, locale) or by which process it is rendered: --check with the binary
# that made DIR reports 0 differ.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FILES=(report.json report.md report.html junit.xml timeseries.csv manifest.json)

usage() { # EXIT_STATUS: the header above; on stderr unless asked for
	if [ "${1:-2}" = 0 ]; then
		sed -n '2,/^set -uo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'
	else
		sed -n '2,/^set -uo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2
	fi
	exit "${1:-2}"
}
MODE=
DIR=
G=${GAUNTLET:-$ROOT/build/gauntlet}
while [ $# -gt 0 ]; do
	case $1 in
	--make|--check) [ $# -ge 2 ] || usage; MODE=${1#--}; DIR=$2; shift 2 ;;
	--gauntlet) [ $# -ge 2 ] || usage; G=$2; shift 2 ;;
	-h|--help) usage 0 ;;
	*) echo "report-identity: unknown argument: $1" >&2; usage ;;
	esac
done
[ -n "$MODE" ] || usage
[ -x "$G" ] || { echo "report-identity: no gauntlet binary at $G (--gauntlet PATH)" >&2; exit 2; }
G=$(realpath "$G")
TRAIN=$(dirname "$G")/gauntlet-train

# Background processes this script started, killed by pid at exit.
PIDS=()
SCRATCH=
cleanup() {
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	[ -n "$SCRATCH" ] && rm -rf "$SCRATCH"
}
trap cleanup EXIT

say() { echo "report-identity: $*"; }
wait_for() { local f=$1 n=$(( ${2:-10} * 10 )); while [ ! -e "$f" ] && [ $n -gt 0 ]; do sleep 0.1; n=$((n - 1)); done; [ -e "$f" ]; }
# elapsed_ns DB: the run's elapsed clock as last committed (empty if none yet)
elapsed_ns() { python3 -c "
import sqlite3, sys
try:
    r = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True, timeout=1).execute('select elapsed_ns from run').fetchone()
    print(r[0] if r else '')
except Exception:
    print('')" "$1" 2>/dev/null; }
# wait_elapsed DB NS TIMEOUT_S: until the run's clock passes NS
wait_elapsed() {
	local i e
	for i in $(seq 1 $(( $3 * 5 ))); do
		e=$(elapsed_ns "$1")
		[ -n "$e" ] && [ "$e" -ge "$2" ] && return 0
		sleep 0.2
	done
	return 1
}

# =============================================================================
# --make
# =============================================================================
# Stores written (DIR/stores/NAME), and what each puts in the reports:
#   null-faults       null workload, 4 phases (one at 3x load), 2 null faults
#                     injected, verified and reverted with recovery and
#                     restore times; passes
#   inference         inference against two `gauntlet target`s on loopback
#                     (one answering 503 to a share of requests: error
#                     classes), a DCGM telemetry probe (a python HTTP server
#                     serving exporter text), an exec fault freezing one
#                     target with SIGSTOP, a phase name with HTML in it
#   storage           storage workload (mixed, verified) on small files in
#                     DIR/work, rate-capped, with a null fault
#   training-incident training with real mpirun (2 ranks, gauntlet-train,
#                     checkpoints): a process_kill fault SIGKILLs a rank at
#                     6 s (relaunch, restore, lost steps), then this script
#                     SIGKILLs a rank itself (an incident: the verdict fails
#                     on the default incidents limit of 0). Skipped, saying
#                     so, without mpirun or gauntlet-train.
#   resumed           null faults; SIGKILLed while a fault is injected, down
#                     2 s, resumed: an outage, a fault held across it
#   missing-threshold a degraded threshold left out: a failing gate
#   aborted           SIGTERM while a fault is injected: verdict aborted
#                     (report.pdf, which a stopping run leaves, rendered
#                     by the old binary's `gauntlet report`)
#   abort-if          safety.abort_if trips: aborted by the run itself
#   killed-reverted   SIGKILLed and never resumed, then `gauntlet revert`:
#                     a store still "running"; the run wrote no reports, so
#                     the old binary's `gauntlet report` renders them here
make_stores() {
	local S=$DIR/stores W=$DIR/work t0
	t0=$(date +%s)
	if [ -e "$DIR" ] && [ -n "$(ls -A "$DIR" 2>/dev/null)" ]; then
		echo "report-identity: $DIR exists and is not empty" >&2
		exit 2
	fi
	mkdir -p "$S" "$W" || exit 2
	chmod 700 "$DIR"
	DIR=$(realpath "$DIR"); S=$DIR/stores; W=$DIR/work
	"$G" --version > "$DIR/MADE-WITH"
	say "writing stores with $(cat "$DIR/MADE-WITH") ($G) into $S"

	# the null scenario of tests/scripts/test_controller.sh, markers in W/<run>-
	null_scenario() { # FILE MARKER_PREFIX
		sed -e "s|/tmp/gauntlet-null-soak-|$2|g" \
		    -e 's|"null.ticks": ">= 1"|"null.ticks": ">= 50"|' "$ROOT/scenarios/null-soak.json" > "$1"
	}
	local NSCALE=360   # 2 h of timeline in 20 s

	# ---- training-incident (background: real time, about 30 s) ---------------
	local tr_pid=
	if [ ! -x "$TRAIN" ]; then
		say "SKIP training-incident: no gauntlet-train next to $G (it is built only where OpenMPI is found)"
	elif ! command -v mpirun >/dev/null; then
		say "SKIP training-incident: mpirun not installed (Debian openmpi-bin)"
	else
		local ck=$W/ck-training
		mkdir -p "$ck"
		cat > "$W/training.json" <<JSON
{
  "name": "identity-training",
  "duration": "30s",
  "window": "1s",
  "hold": 2,
  "hosts": { "me": { "local": true } },
  "workloads": {
    "training": { "launcher": "mpirun", "hosts": ["me:2"], "backend": "mpi",
                  "message": "1MiB", "compute": "25ms", "heartbeat": "200ms", "watchdog": "15s",
                  "restart_backoff": "300ms", "launcher_args": ["--oversubscribe"],
                  "checkpoint": { "dir": "$ck", "every_steps": 25, "size": "8MiB" } }
  },
  "phases": [ { "name": "warmup", "for": "3s", "scope": "none" }, { "name": "steady", "for": "27s" } ],
  "faults": [ { "id": "kill-rank", "at": "6s", "kind": "process_kill", "target": "me",
                "params": { "pattern": "^$TRAIN .*--ckpt-dir $ck", "signal": "KILL" } } ],
  "targets": {
    "steady": { "training.step_time_s.p95": "<= 2", "training.steps": ">= 5" },
    "degraded": { "training.correctness_errors": "== 0" },
    "recovery": { "recovery_s": "<= 20", "restore_s": "<= 20", "training.checkpoint.restore_s": "<= 30" }
  }
}
JSON
		(
			"$G" run "$W/training.json" --out "$S/training-incident" >"$W/training.log" 2>&1 &
			p=$!
			# a rank killed by this script, no fault in force: an incident
			if wait_elapsed "$S/training-incident/run.db" 18000000000 60; then
				v=$(pgrep -n -f "^$TRAIN .*--ckpt-dir $ck")
				[ -n "$v" ] && kill -KILL "$v" && echo "killed rank pid $v at elapsed $(elapsed_ns "$S/training-incident/run.db") ns" >"$W/training.kill"
			fi
			wait "$p"
			echo $? >"$W/training-incident.rc"
		) &
		tr_pid=$!
		PIDS+=("$tr_pid")
	fi

	# ---- null-faults ----------------------------------------------------------
	null_scenario "$W/null.json" "$W/null-faults-marker-"
	"$G" run "$W/null.json" --out "$S/null-faults" --time-scale $NSCALE >"$W/null-faults.log" 2>&1
	echo $? >"$W/null-faults.rc"

	# ---- aborted: SIGTERM during an injected fault ----------------------------
	null_scenario "$W/aborted.json" "$W/aborted-marker-"
	"$G" run "$W/aborted.json" --out "$S/aborted" --time-scale $NSCALE >"$W/aborted.log" 2>&1 &
	local p=$!
	PIDS+=("$p")
	wait_for "$W/aborted-marker-1.marker" 15 && sleep 0.5
	kill -TERM "$p"; wait "$p"; echo $? >"$W/aborted.rc"
	# a run told to stop leaves report.pdf to `gauntlet report`; the old
	# binary renders it here, so --check compares a render with a render
	if [ ! -e "$S/aborted/report.pdf" ]; then
		"$G" report "$S/aborted" >"$W/aborted-report.log" 2>&1 || say "aborted: gauntlet report failed"
	fi

	# ---- resumed: SIGKILL during an injected fault, 2 s down, resume ----------
	null_scenario "$W/resumed.json" "$W/resumed-marker-"
	"$G" run "$W/resumed.json" --out "$S/resumed" --time-scale $NSCALE >"$W/resumed-1.log" 2>&1 &
	p=$!
	PIDS+=("$p")
	wait_for "$W/resumed-marker-1.marker" 15 && sleep 0.4
	kill -KILL "$p"; wait "$p" 2>/dev/null
	sleep 2
	"$G" resume "$S/resumed" >"$W/resumed-2.log" 2>&1
	echo $? >"$W/resumed.rc"

	# ---- killed-reverted: SIGKILL, never resumed, `gauntlet revert` ------------
	null_scenario "$W/killed.json" "$W/killed-marker-"
	"$G" run "$W/killed.json" --out "$S/killed-reverted" --time-scale $NSCALE >"$W/killed.log" 2>&1 &
	p=$!
	PIDS+=("$p")
	wait_for "$W/killed-marker-1.marker" 15 && sleep 1
	kill -KILL "$p"; wait "$p" 2>/dev/null
	"$G" revert "$S/killed-reverted" >"$W/killed-revert.log" 2>&1
	echo "killed, revert exit $?" >"$W/killed-reverted.rc"
	"$G" report "$S/killed-reverted" >"$W/killed-report.log" 2>&1 || say "killed-reverted: gauntlet report failed"

	# ---- abort-if ---------------------------------------------------------------
	null_scenario "$W/abortif.json" "$W/abort-if-marker-"
	"$G" run "$W/abortif.json" --out "$S/abort-if" --time-scale $NSCALE \
		--set 'safety={"max_concurrent_faults":1,"abort_if":{"null.ticks":">= 0","for":"2s"}}' \
		--set 'faults[0].at=1s' >"$W/abort-if.log" 2>&1
	echo $? >"$W/abort-if.rc"

	# ---- missing-threshold --------------------------------------------------------
	null_scenario "$W/m.json" "$W/missing-marker-"
	sed -e 's|"degraded": { "null.tick_lag_ms.p99": "<= 100" },||' "$W/m.json" > "$W/missing.json"
	"$G" run "$W/missing.json" --out "$S/missing-threshold" --time-scale 1440 >"$W/missing.log" 2>&1
	echo $? >"$W/missing-threshold.rc"

	# ---- inference: two targets, telemetry, exec fault ---------------------------
	local A1 A2 TP T2 HP
	"$G" target --listen 127.0.0.1:0 --ready-file "$W/t1.ready" --ttft-ms 40 --itl-ms 4 --max-seqs 256 \
		>"$W/t1.log" 2>&1 &
	TP=$!
	PIDS+=("$TP")
	echo "$TP" > "$W/t1.pid"
	"$G" target --listen 127.0.0.1:0 --ready-file "$W/t2.ready" --ttft-ms 20 --itl-ms 2 \
		--misbehave http_503 --misbehave-rate 0.3 >"$W/t2.log" 2>&1 &
	T2=$!
	PIDS+=("$T2")
	mkdir -p "$W/www"
	cat > "$W/www/metrics" <<'EOF'
# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).
# TYPE DCGM_FI_DEV_GPU_TEMP gauge
DCGM_FI_DEV_GPU_TEMP{gpu="0",UUID="GPU-5fd4c3e2-1b0a-4f6e-9a51-0c1d2e3f4a5b",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a"} 41
DCGM_FI_DEV_GPU_TEMP{gpu="1",UUID="GPU-8a2b7c1d-3e4f-4a5b-8c6d-7e8f9a0b1c2d",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a"} 44
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-5fd4c3e2-1b0a-4f6e-9a51-0c1d2e3f4a5b",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a"} 112.437000
DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-8a2b7c1d-3e4f-4a5b-8c6d-7e8f9a0b1c2d",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a"} 140737488355328.000000
# TYPE DCGM_FI_DEV_XID_ERRORS gauge
DCGM_FI_DEV_XID_ERRORS{gpu="0",UUID="GPU-5fd4c3e2-1b0a-4f6e-9a51-0c1d2e3f4a5b",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a"} 0
DCGM_FI_DEV_XID_ERRORS{gpu="1",UUID="GPU-8a2b7c1d-3e4f-4a5b-8c6d-7e8f9a0b1c2d",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a"} 0
# TYPE DCGM_FI_DEV_ECC_SBE_VOL_TOTAL counter
DCGM_FI_DEV_ECC_SBE_VOL_TOTAL{gpu="0",UUID="GPU-5fd4c3e2-1b0a-4f6e-9a51-0c1d2e3f4a5b",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a"} 5
EOF
	python3 - "$W/www" "$W/http.port" >"$W/http.log" 2>&1 <<'PY' &
import functools, http.server, os, sys
d, portfile = sys.argv[1], sys.argv[2]
class H(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a): pass
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(H, directory=d))
with open(portfile + ".tmp", "w") as f: f.write(str(srv.server_address[1]))
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
PY
	HP=$!
	PIDS+=("$HP")
	if wait_for "$W/t1.ready" 10 && wait_for "$W/t2.ready" 10 && wait_for "$W/http.port" 10; then
		A1=$(cat "$W/t1.ready"); A2=$(cat "$W/t2.ready")
		cat > "$W/inference.json" <<JSON
// 12 min of timeline at --time-scale 60 (12 s)
{
  "name": "identity-inference",
  "duration": "12m",
  "window": "1s",
  "hosts": { "controller": { "local": true } },
  "workloads": {
    "inference": {
      "endpoints": ["http://$A1/v1", "http://$A2/v1"], "api": "chat", "model": "gauntlet-target",
      "arrival": { "mode": "poisson", "rate": 20 }, "seed": 7,
      "input_tokens": 64, "output_tokens": 16, "max_in_flight": 256, "timeout": "30s"
    },
    "telemetry": { "dcgm": ["http://127.0.0.1:$(cat "$W/http.port")/metrics"], "every": "1s", "timeout": "500ms" }
  },
  "phases": [
    { "name": "warmup", "for": "1m" },
    { "name": "steady", "for": "5m" },
    { "name": "shock <x2> & \"burst\"", "for": "2m", "load": 2.0 },
    { "name": "steady", "for": "4m" }
  ],
  "faults": [
    { "id": "freeze-target", "at": "4m", "for": "2m", "kind": "exec", "target": "controller",
      "params": {
        "inject": ["sh", "-c", "kill -STOP \"\$(cat $W/t1.pid)\""],
        "verify": ["sh", "-c", "grep -q '^State:.*stopped' /proc/\"\$(cat $W/t1.pid)\"/status"],
        "revert": ["sh", "-c", "kill -CONT \"\$(cat $W/t1.pid)\""],
        "verify_revert": ["sh", "-c", "! grep -q '^State:.*stopped' /proc/\"\$(cat $W/t1.pid)\"/status"],
        "timeout": "10s" } }
  ],
  "targets": {
    "steady":   { "inference.ttft_ms.p99": "<= 500", "inference.error_rate": "<= 0.5",
                  "dcgm.xid_errors.delta": "== 0", "dcgm.gpu_temp.max": "<= 85" },
    "degraded": { "inference.ttft_ms.p99": "<= 10000", "inference.error_rate": "<= 0.9" },
    "recovery": { "recovery_s": "<= 15", "restore_s": "<= 15" }
  }
}
JSON
		"$G" run "$W/inference.json" --out "$S/inference" --time-scale 60 >"$W/inference.log" 2>&1
		echo $? >"$W/inference.rc"
		kill -CONT "$TP" 2>/dev/null
	else
		say "SKIP inference: gauntlet target or the python HTTP server did not start ($(tail -2 "$W/t1.log" "$W/t2.log" "$W/http.log" 2>/dev/null | tr '\n' ' '))"
	fi
	for p in "$TP" "$HP" "$T2"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done

	# ---- storage ---------------------------------------------------------------
	mkdir -p "$W/disk"
	cat > "$W/storage.json" <<JSON
{
  "name": "identity-storage",
  "duration": "8s",
  "window": "1s",
  "hosts": { "me": { "local": true } },
  "workloads": { "storage": { "path": "$W/disk", "allowed_roots": ["$W"], "pattern": "mixed", "read_pct": 50,
                              "threads": 2, "verify": true, "reserve": "0", "bs": "64KiB",
                              "file_size": "4MiB", "files": 2, "rate_cap": "20MB" } },
  "phases": [ { "name": "steady", "for": "8s" } ],
  "faults": [ { "id": "null-st", "at": "3s", "for": "2s", "kind": "null", "target": "me",
                "params": { "marker": "$W/storage-marker" } } ],
  "targets": {
    "steady": { "storage.write_gbps": ">= 0.0001", "storage.read_gbps": ">= 0.0001", "storage.errors": "== 0" },
    "degraded": { "storage.errors": "== 0" },
    "recovery": { "recovery_s": "<= 4", "restore_s": "<= 4" }
  }
}
JSON
	"$G" run "$W/storage.json" --out "$S/storage" >"$W/storage.log" 2>&1
	echo $? >"$W/storage.rc"

	if [ -n "$tr_pid" ]; then
		wait "$tr_pid"
		[ -s "$W/training.kill" ] && say "training-incident: $(cat "$W/training.kill")" ||
			say "training-incident: WARNING: the script's own rank kill did not happen (no incident in this store)"
	fi

	# the stores need neither the checkpoints nor the storage files
	rm -rf "$W/ck-training" "$W/disk"

	# ---- what was made ------------------------------------------------------------
	local bad=0 n=0 d name rc
	for d in "$S"/*/; do
		name=$(basename "$d")
		rc=$(cat "$W/$name.rc" 2>/dev/null || echo '?')
		local missing=()
		for f in "${FILES[@]}"; do [ -s "$d/$f" ] || missing+=("$f"); done
		if [ ! -s "$d/run.db" ] || [ ${#missing[@]} -gt 0 ]; then
			say "$name: INCOMPLETE (exit $rc; missing ${missing[*]:-run.db})"
			bad=$((bad + 1))
			continue
		fi
		n=$((n + 1))
		say "$(printf '%-18s' "$name") exit $rc, $(python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
print('state %s, verdict %s, %d windows, %d faults, resumes %s, outages %d, incidents %s, missing targets %d' % (
    r['run']['state'], r['verdict'], r['run'].get('windows', 0) or 0, len(r['faults']), r['run']['resumes'],
    len(r.get('outages', [])), (r.get('incidents') or {}).get('count'), sum(1 for t in r['targets'] if t['missing'])))" "$d/report.json" 2>&1)"
	done
	say "$n stores written in $(( $(date +%s) - t0 )) s into $S"
	[ $bad -eq 0 ] || { say "$bad store(s) incomplete"; exit 1; }
}

# =============================================================================
# --check
# =============================================================================
# normalise FILE KIND: FILE's text with the lines naming gauntlet's own
# version and revision replaced by a placeholder, each exactly where the
# renderers put it (reports/*.c, an->run.version and an->run.git_rev):
#   report.json   "gauntlet_version" and "gauntlet_revision" in the
#                 top-level "run" object (two tabs deep, cJSON_Print);
#   manifest.json "version" and "revision" in the top-level "gauntlet" object;
#   report.md     the run table's row "| gauntlet | V (R) |";
#   report.html   <meta name="generator" content="gauntlet V">, the run
#                 table's row <tr><th>gauntlet</th>..., and the manifest
#                 section's rows gauntlet.version and gauntlet.revision;
#   junit.xml     <property name="gauntlet" value="V (R)"/>;
#   timeseries.csv nothing.
# Prints the count of lines replaced on stderr.
normalise() {
	python3 - "$1" "$2" <<'PY'
import re, sys
path, kind = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
out, n, top = [], 0, None
P = b"<gauntlet version field>"
for line in data.split(b"\n"):
    new = line
    if kind in ("report.json", "manifest.json"):
        m = re.match(rb'^\t"([^"\\]*)":', line)
        if m:
            top = m.group(1)
        keys = {"report.json": (b"run", (b"gauntlet_version", b"gauntlet_revision")),
                "manifest.json": (b"gauntlet", (b"version", b"revision"))}[kind]
        m = re.match(rb'^(\t\t"([^"\\]*)":\t)"(?:[^"\\]|\\.)*"(,?)$', line)
        if m and top == keys[0] and m.group(2) in keys[1]:
            new = m.group(1) + b'"' + P + b'"' + m.group(3)
    elif kind == "report.md":
        if re.match(rb"^\| gauntlet \| .* \|$", line):
            new = b"| gauntlet | " + P + b" |"
    elif kind == "report.html":
        if re.match(rb'^<meta name="generator" content="gauntlet [^"]*">$', line):
            new = b'<meta name="generator" content="gauntlet ' + P + b'">'
        elif re.match(rb"^<tr><th>(gauntlet|gauntlet\.version|gauntlet\.revision)</th><td>[^<]*</td></tr>$", line):
            new = re.sub(rb"<td>[^<]*</td>", b"<td>" + P + b"</td>", line)
    elif kind == "junit.xml":
        if re.match(rb'^\s*<property name="gauntlet" value="[^"]*"/>$', line):
            new = re.sub(rb'value="[^"]*"', b'value="' + P + b'"', line)
    if new != line:
        n += 1
    out.append(new)
sys.stdout.buffer.write(b"\n".join(out))
sys.stderr.write("%d\n" % n)
PY
}

# report_files DIR: the files of a run directory other than the store
# (run.db and SQLite's companions) and run.lock, one a line
report_files() {
	find "$1" -maxdepth 1 -type f ! -name run.db ! -name 'run.db-*' ! -name run.lock -printf '%f\n' | sort
}

check_stores() {
	local S=$DIR/stores total=0 differ=0 failed=0 aside=0 d name f
	[ -d "$S" ] || { echo "report-identity: no $S (make it with --make)" >&2; exit 2; }
	SCRATCH=$(mktemp -d /tmp/gl-identity.XXXXXX) || exit 2
	say "rendering with $("$G" --version) ($G); the stores were made with $(cat "$DIR/MADE-WITH" 2>/dev/null || echo '(unknown)')"
	for d in "$S"/*/; do
		name=$(basename "$d")
		[ -f "$d/run.db" ] || continue
		cp -a "$d" "$SCRATCH/$name" || { say "$name: cannot copy"; failed=$((failed + 1)); continue; }
		local c=$SCRATCH/$name old_set new_set
		# the report files: everything in the run directory but the store
		# and its lock; deleted in the copy, so the new binary must write each
		old_set=$(report_files "$d")
		for f in $old_set; do rm -f "$c/$f"; done
		if ! "$G" report "$c" >"$SCRATCH/$name.report.log" 2>&1; then
			say "$name: gauntlet report FAILED: $(tail -3 "$SCRATCH/$name.report.log")"
			failed=$((failed + 1))
		fi
		new_set=$(report_files "$c")
		echo "== $name"
		for f in $(printf '%s\n' $old_set $new_set | sort -u); do
			total=$((total + 1))
			if [ ! -e "$d/$f" ] || [ ! -e "$c/$f" ]; then
				echo "   $f: DIFFERS: $([ -e "$d/$f" ] && echo "not written by the new binary" || echo "written now, but the old binary wrote none")"
				differ=$((differ + 1))
				continue
			fi
			if cmp -s "$d/$f" "$c/$f"; then
				echo "   $f: identical"
				continue
			fi
			normalise "$d/$f" "$f" >"$SCRATCH/old" 2>"$SCRATCH/old.n"
			normalise "$c/$f" "$f" >"$SCRATCH/new" 2>"$SCRATCH/new.n"
			if cmp -s "$SCRATCH/old" "$SCRATCH/new"; then
				echo "   $f: identical (version fields aside: $(cat "$SCRATCH/new.n") line(s) set aside)"
				aside=$((aside + 1))
				continue
			fi
			differ=$((differ + 1))
			echo "   $f: DIFFERS (first at $(cmp "$SCRATCH/old" "$SCRATCH/new" 2>&1 | head -1 | sed -e 's/.*differ: //' -e 's/^cmp: EOF on .*/the end of the shorter one/'), version fields set aside)"
			diff -u --label "old/$name/$f" --label "new/$name/$f" "$SCRATCH/old" "$SCRATCH/new" |
				cut -c1-240 | head -n 40 | sed 's/^/      /'
		done
	done
	[ $total -gt 0 ] || { say "no store in $S"; exit 1; }
	[ $failed -eq 0 ] || say "$failed store(s) could not be copied or rendered"
	[ $aside -eq 0 ] || say "$aside file(s) identical only once the version fields were set aside"
	echo "$total files compared, $differ differ"
	[ $differ -eq 0 ] && [ $failed -eq 0 ]
}

case $MODE in
make) make_stores ;;
check) check_stores ;;
esac
