#!/usr/bin/env bash
# test_low.sh - the smaller inputs of docs/security.md, each reproduced as
# the attack or bug and shown refused or fixed. Root runs gauntlet; the
# unprivileged user `nobody` lays the traps in a sticky, world-writable
# directory:
#  1. the null fault's marker: a file nobody placed at the marker path (and
#     a link to a root file) is refused by inject, naming the path, and
#     keeps its bytes; a marker replaced during the fault is left alone by
#     revert and reported; a fresh marker is made and removed (control);
#  2. --set goes through the strict parser: an embedded \u0000 that would
#     cut a process pattern short, a duplicate key and 1e400 are each
#     refused naming the --set;
#  3. --time-scale 1e-9 (the run overflows) and 1e9 with a 500 ms fault
#     (less than 1 ns) are refused naming the flag, by validate and run;
#  4. lab --dir with a quote, a '$(...)', a leading '-' or '..' is refused
#     (exit 2) before anything is made;
#  5. an inventory, ssh key or trace that is a FIFO: validate and run end
#     at once, refusing it as a FIFO;
#  6. 70,000 faults validate in seconds (pairwise checks would take 23 s);
#  7. gauntlet target closes a silent connection (after --idle-timeout-s,
#     and by default), a half-sent request too; a stream longer than the
#     timeout is not cut;
#  8. hosts.netns "-all" and "../..", a storage_throttle tc interface
#     "-all": refused naming the key.
. "$(dirname "$0")/../scripts/lib.sh"
[ -x "$GAUNTLET" ] || skip "no gauntlet binary at $GAUNTLET"
need_nobody

chmod 755 "$T"
P=$T/pub             # the shared, sticky, world-writable place (like /tmp)
mkdir "$P" && chmod 1777 "$P"
R=$T/root            # root's own, private
mkdir "$R" && chmod 700 "$R"


nullsc() { # FILE MARKER AT FOR DURATION
	cat > "$1" <<JSON
{ "name": "low-null", "duration": "$5", "window": "1s", "hold": 1, "hosts": { "localhost": { "local": true } },
  "workloads": { "null": { "rate": 20 } },
  "faults": [ { "id": "n1", "at": "$3", "for": "$4", "kind": "null", "target": "localhost",
                "params": { "marker": "$2" } } ],
  "targets": { "steady": { "null.ticks": ">= 1" }, "degraded": { "null.ticks": ">= 1" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } } }
JSON
}

# --- 7 (started first, it takes 30 s): the default idle timeout --------------------------
rm -f "$T/ready-def"
"$GAUNTLET" target --listen 127.0.0.1:0 --ready-file "$T/ready-def" --ttft-ms 5 --itl-ms 1 --output-tokens 4 \
	> "$T/target-def.log" 2>&1 &
PIDS+=("$!")
DEF_CLIENT=
if wait_for "$T/ready-def" 10; then
	python3 - "$(cat "$T/ready-def")" > "$T/7-default.out" 2>&1 <<'EOF' &
import socket, sys, time
h, p = sys.argv[1].rsplit(":", 1)
s = socket.create_connection((h, int(p)))
s.settimeout(45)
t = time.time()
try:
    d = s.recv(100)
    print("closed after %.1f s (%r)" % (time.time() - t, d))
except socket.timeout:
    print("still open after %.1f s" % (time.time() - t))
EOF
	DEF_CLIENT=$!
	PIDS+=("$DEF_CLIENT")
fi

# --- 1. the null fault's marker ----------------------------------------------------------
as_nobody sh -c "echo precious > '$P/victim'"
nullsc "$T/n-exist.json" "$P/victim" 1s 1s 3s
"$GAUNTLET" run "$T/n-exist.json" --out "$T/n-exist" > "$T/1a.log" 2>&1; rc=$?
check "1: a marker path nobody's file holds: inject refuses it naming the path (exit $rc)" \
	grep -q "inject failed: null fault: marker $P/victim: File exists" "$T/1a.log"
check "1: ...and nobody's file keeps its bytes and owner" \
	bash -c "[ \"\$(cat '$P/victim')\" = precious ] && [ \"\$(stat -c %U '$P/victim')\" = nobody ]"
check "1: ...the revert after the failed inject left it alone and said so" grep -q "victim is owned by uid" "$T/1a.log"
echo "root's" > "$R/target"
as_nobody ln -s "$R/target" "$P/link"
nullsc "$T/n-link.json" "$P/link" 1s 1s 3s
"$GAUNTLET" run "$T/n-link.json" --out "$T/n-link" > "$T/1b.log" 2>&1
check "1: a marker path that is nobody's link to a root file: the file keeps its bytes, the link stays" \
	bash -c "[ \"\$(cat '$R/target')\" = \"root's\" ] && [ -L '$P/link' ]"
nullsc "$T/n-swap.json" "$T/swap.marker" 1s 3s 5s
"$GAUNTLET" run "$T/n-swap.json" --out "$T/n-swap" > "$T/1c.log" 2>&1 &
SWAP=$!
PIDS+=("$SWAP")
if wait_for "$T/swap.marker" 8; then
	mv "$T/swap.marker" "$T/swap.orig"
	echo "another file" > "$T/swap.marker"
fi
wait "$SWAP"
check "1: a marker replaced during the fault: revert leaves the new file alone" \
	bash -c "[ \"\$(cat '$T/swap.marker' 2>/dev/null)\" = 'another file' ]"
check "1: ...and reports it" grep -q "swap.marker is a file that is not the marker this fault's inject wrote" "$T/1c.log"
check "1: the original marker held the fault id and a nonce" grep -q "^gauntlet null fault n1 [0-9a-f]\{32\}$" "$T/swap.orig"
nullsc "$T/n-ok.json" "$T/ok.marker" 1s 1s 6s
"$GAUNTLET" run "$T/n-ok.json" --out "$T/n-ok" > "$T/1d.log" 2>&1; rc=$?
check "1: control: a new marker is made and removed (exit $rc)" bash -c "[ $rc -eq 0 ] && [ ! -e '$T/ok.marker' ]"
check "1: ...verified after inject and after revert" \
	json "$T/n-ok/report.json" 'r["faults"][0]["state"] == "reverted" and r["faults"][0]["verified"] and r["faults"][0]["verified_revert"]'

# --- 2. --set through the strict parser --------------------------------------------------
cat > "$T/pk.json" <<JSON
{ "name": "low-set", "duration": "10s", "window": "1s", "hosts": { "localhost": { "local": true } },
  "workloads": { "null": { "rate": 20 } },
  "faults": [ { "id": "k1", "at": "2s", "kind": "process_kill", "target": "localhost",
                "params": { "pattern": "gauntlet-low-victim-job-7", "signal": "TERM" } } ],
  "targets": { "steady": { "null.ticks": ">= 1" }, "degraded": { "null.ticks": ">= 1" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } } }
JSON
"$GAUNTLET" validate "$T/pk.json" > "$T/2-ok.log" 2>&1; rc=$?
check "2: control: the scenario validates (exit $rc)" [ $rc -eq 0 ]
set_refused() { # WHAT SET EXPECT
	"$GAUNTLET" validate "$T/pk.json" --set "$2" > "$T/2.log" 2>&1; local rc=$?
	check "2: --set $1 is refused (exit $rc) naming the --set: $3" \
		bash -c '[ "$1" -eq 2 ] && grep -qF -- "$2" "$3"' _ "$rc" "$3" "$T/2.log"
}
set_refused "with \\u0000 cutting a process pattern short" \
	'faults[0].params.pattern="gauntlet-low\u0000-victim-job-7"' \
	'--set faults[0].params.pattern:1:14: \u0000 in string'
set_refused "with a duplicate key" 'workloads={"null":{"rate":20},"null":{"rate":1}}' \
	'--set workloads:1:21: duplicate key "null" (first at 1:2)'
set_refused "1e400" 'workloads.null.rate=1e400' "--set workloads.null.rate:1:1: number '1e400' out of range"
"$GAUNTLET" run "$T/pk.json" --out "$T/set-run" --set 'faults[0].params.pattern="gauntlet-low\u0000-victim-job-7"' \
	> "$T/2-run.log" 2>&1; rc=$?
check "2: run refuses the \\u0000 --set too (exit $rc), nothing stored" bash -c "[ $rc -eq 2 ] && [ ! -e '$T/set-run/run.db' ]"
"$GAUNTLET" validate "$T/pk.json" --set 'faults[0].params.signal=KILL' --set 'workloads.null.rate=50' \
	> "$T/2-good.log" 2>&1; rc=$?
check "2: control: plain --set values still work (exit $rc)" [ $rc -eq 0 ]

# --- 3. --time-scale ------------------------------------------------------------------------
"$GAUNTLET" validate "$GL_SOURCE_DIR/scenarios/null-soak.json" --time-scale 1e-9 > "$T/3a.log" 2>&1; rc=$?
check "3: --time-scale 1e-9 on a 2 h scenario: validate refuses it (exit $rc) naming the flag" \
	bash -c "[ $rc -eq 2 ] && grep -q -- '--time-scale: at time scale 1e-09 the run (2h) would last' '$T/3a.log'"
check "3: ...and prints no negative time" bash -c "! grep -q -- '-[0-9]*d[0-9]' '$T/3a.log'"
"$GAUNTLET" run "$GL_SOURCE_DIR/scenarios/null-soak.json" --time-scale 1e-9 --out "$T/ts-run" > "$T/3b.log" 2>&1; rc=$?
check "3: run refuses it too (exit $rc), nothing stored" bash -c "[ $rc -eq 2 ] && [ ! -e '$T/ts-run/run.db' ]"
nullsc "$T/ts.json" "$T/ts.marker" 2s 500ms 4s
"$GAUNTLET" validate "$T/ts.json" --time-scale 1e9 > "$T/3c.log" 2>&1; rc=$?
check "3: --time-scale 1e9 leaves a 500ms fault less than 1 ns: refused (exit $rc) naming the flag and the fault" \
	bash -c "[ $rc -eq 2 ] && grep -q -- \"--time-scale: at time scale 1e+09 faults\[0\] 'n1' (500ms) would last\" '$T/3c.log'"
"$GAUNTLET" validate "$GL_SOURCE_DIR/scenarios/null-soak.json" --time-scale 600 > "$T/3d.log" 2>&1; rc=$?
check "3: control: --time-scale 600 is valid (exit $rc)" [ $rc -eq 0 ]

# --- 4. lab --dir ---------------------------------------------------------------------------
# Never a real lab here (test_lab builds one, alone): the unsafe directory
# is first tried where nothing can be made (under /proc), so a binary that
# does not refuse it fails there without building anything; only when that
# is refused is a creatable one tried.
lab_refused() { # LABEL DIR
	"$GAUNTLET" lab up --dir "$2" > "$T/4.log" 2>&1; local rc=$?
	check "4: lab up --dir $1: refused (exit $rc) before anything is made" \
		bash -c "[ $rc -eq 2 ] && grep -q 'a lab directory is an absolute path of letters' '$T/4.log'"
	return $((rc != 2))
}
PW=$T/pwned
if lab_refused "with a quote (under /proc)" "/proc/gl-low/x'; touch $PW; '"; then
	lab_refused "with a quote" "$T/lab'; touch $PW; '"
	lab_refused "with \$(...)" "$T/lab\$(touch $PW)"
	lab_refused "with a newline" "$T/lab
x"
	lab_refused "with a component starting with -" "$T/-lab"
	lab_refused "with .." "$T/../lab"
	check "4: ...no lab directory was made, no injected command ran" \
		bash -c "[ ! -e '$PW' ] && [ -z \"\$(ls -d '$T'/lab* '$T'/-lab 2>/dev/null)\" ]"
else
	bad "4: the unsafe directories were not tried where a lab could be built (the first was not refused)"
fi
"$GAUNTLET" lab status --dir "$T/lab'x" > "$T/4s.log" 2>&1; rc=$?
check "4: lab status --dir with a quote: refused too (exit $rc)" [ $rc -eq 2 ]
GL_LAB_DIR="$T/lab'x" "$GAUNTLET" lab status > "$T/4e.log" 2>&1; rc=$?
check "4: GL_LAB_DIR with a quote: refused too (exit $rc)" [ $rc -eq 2 ]

# --- 5. FIFOs where files are read ----------------------------------------------------------
F=$P/fifo
mkdir "$F" && chmod 755 "$F"
chown nobody "$F"
as_nobody mkfifo "$F/inv.json" "$F/id" "$F/trace.csv"
: > "$F/kh"
cat > "$F/s.json" <<JSON
{ "name": "low-fifo", "duration": "4s", "window": "1s", "hosts": { "localhost": { "local": true } },
  "inventory": "inv.json",
  "workloads": { "null": { "rate": 20 } },
  "targets": { "steady": { "null.ticks": ">= 1" } } }
JSON
timeout 20 "$GAUNTLET" validate "$F/s.json" > "$T/5a.log" 2>&1; rc=$?
check "5: an inventory that is a FIFO: validate ends refusing it (exit $rc, 124 = hung)" \
	bash -c "[ $rc -eq 2 ] && grep -q 'inv.json is a FIFO, expected a regular file' '$T/5a.log'"
timeout 20 "$GAUNTLET" run "$F/s.json" --out "$T/fifo-run" > "$T/5b.log" 2>&1; rc=$?
check "5: ...run too (exit $rc)" [ $rc -eq 2 ]
cat > "$F/k.json" <<JSON
{ "name": "low-fifo-key", "duration": "4s", "window": "1s",
  "hosts": { "r": { "ssh": "root@127.0.0.1:22", "key": "id", "known_hosts": "kh" } },
  "workloads": { "null": { "rate": 20 } },
  "faults": [ { "id": "x", "at": "1s", "for": "1s", "kind": "exec", "target": "r",
    "params": { "inject": ["true"], "revert": ["true"] } } ],
  "targets": { "steady": { "null.ticks": ">= 1" }, "degraded": { "null.ticks": ">= 1" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } } }
JSON
timeout 20 "$GAUNTLET" validate "$F/k.json" > "$T/5c.log" 2>&1; rc=$?
check "5: an ssh key that is a FIFO: refused naming hosts.r.key (exit $rc)" \
	bash -c "[ $rc -eq 2 ] && grep -q 'hosts.r.key: .*id is a FIFO' '$T/5c.log'"
cat > "$F/t.json" <<JSON
{ "name": "low-fifo-trace", "duration": "4s", "window": "1s", "hosts": { "localhost": { "local": true } },
  "workloads": { "inference": { "endpoints": ["http://127.0.0.1:9/v1"], "model": "m", "trace": "trace.csv",
     "arrival": { "mode": "trace" } } },
  "targets": { "steady": { "inference.ttft_ms.p99": "<= 5000", "inference.error_rate": "<= 1" } } }
JSON
timeout 20 "$GAUNTLET" validate "$F/t.json" > "$T/5d.log" 2>&1; rc=$?
check "5: a trace that is a FIFO: refused (exit $rc)" bash -c "[ $rc -eq 2 ] && grep -q 'trace.csv is a FIFO' '$T/5d.log'"

# --- 6. 70,000 faults -----------------------------------------------------------------------
python3 - "$T/many.json" <<'EOF'
import json, sys
n = 70000
faults = [{"id": "%x" % i, "at": "%ds" % i, "kind": "null", "target": "h"} for i in range(n)]
faults[n - 1]["id"] = "0"          # one duplicate id, found at the end
s = {"name": "many", "duration": "%ds" % (n + 10), "hosts": {"h": {"local": True}},
     "workloads": {"null": {"rate": 20}}, "faults": faults,
     "targets": {"steady": {"null.ticks": ">= 5"}, "degraded": {"null.ticks": ">= 1"},
                 "recovery": {"recovery_s": "<= 10", "restore_s": "<= 10"}}}
json.dump(s, open(sys.argv[1], "w"), separators=(",", ":"))
EOF
# 15 s: pairwise checks would take 23 s alone; beside the suite's other
# tests on two cores the plain build can take 10.5 s
LIMIT=15
[ "${GL_SANITIZE:-OFF}" = ON ] && LIMIT=60
t0=$(date +%s.%N)
timeout 120 "$GAUNTLET" validate "$T/many.json" > "$T/6.log" 2>&1; rc=$?
secs=$(echo "$(date +%s.%N) - $t0" | bc)
check "6: 70,000 faults validate in $secs s (bound $LIMIT s; the pairwise checks took 23 s), exit $rc" \
	bash -c "[ $rc -eq 2 ] && [ \$(echo '$secs < $LIMIT' | bc) = 1 ]"
check "6: ...finding the one duplicate id" grep -q "faults\[69999\].id: duplicate fault id '0' (first used by faults\[0\])" "$T/6.log"
check "6: ...and only it" grep -q "many.json: 1 error(s)$" "$T/6.log"

# --- 7. gauntlet target's idle timeout ------------------------------------------------------
rm -f "$T/ready-2"
"$GAUNTLET" target --listen 127.0.0.1:0 --ready-file "$T/ready-2" --idle-timeout-s 2 --ttft-ms 5 --itl-ms 10 \
	--output-tokens 400 > "$T/target-2.log" 2>&1 &
PIDS+=("$!")
if wait_for "$T/ready-2" 10; then
	python3 - "$(cat "$T/ready-2")" > "$T/7.out" 2>&1 <<'EOF'
import socket, sys, time
h, p = sys.argv[1].rsplit(":", 1)
def conn():
    s = socket.create_connection((h, int(p)))
    s.settimeout(15)
    return s
def closed_after(s):
    t = time.time()
    try:
        d = s.recv(100)
        return "%.1f %s" % (time.time() - t, "closed" if not d else "data")
    except socket.timeout:
        return "%.1f open" % (time.time() - t)
print("silent", closed_after(conn()))
s = conn(); s.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\n")
print("partial", closed_after(s))
body = b'{"model":"gauntlet-target","prompt":"hi","stream":true}'
s = conn(); t = time.time()
s.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
          b"Content-Length: %d\r\n\r\n" % len(body) + body)
buf = b""
while b"[DONE]" not in buf:
    d = s.recv(65536)
    if not d:
        break
    buf += d
print("stream %.1f %s" % (time.time() - t, "done" if b"[DONE]" in buf else "cut"))
EOF
	cat "$T/7.out"
	within() { awk -v w="$1" -v lo="$2" -v hi="$3" '$1 == w { ok = ($3 == "closed" && $2 >= lo && $2 <= hi) } END { exit !ok }' "$T/7.out"; }
	check "7: --idle-timeout-s 2: a silent connection is closed after about 2 s" within silent 1.5 6
	check "7: ...a connection that sent half a request head too" within partial 1.5 6
	check "7: ...while a 4 s stream (longer than the timeout) runs to [DONE]" \
		awk '$1 == "stream" { ok = ($3 == "done" && $2 >= 3) } END { exit !ok }' "$T/7.out"
else
	bad "7: gauntlet target --idle-timeout-s 2 did not start: $(tail -2 "$T/target-2.log")"
fi
if [ -n "$DEF_CLIENT" ]; then
	wait "$DEF_CLIENT"
	cat "$T/7-default.out"
	check "7: by default (30 s) a silent connection is closed: $(cat "$T/7-default.out")" \
		awk '$1 == "closed" && $3 >= 25 && $3 <= 40 { ok = 1 } END { exit !ok }' "$T/7-default.out"
else
	bad "7: gauntlet target did not start: $(tail -2 "$T/target-def.log")"
fi

# --- 8. names that reach commands ---------------------------------------------------------
nsrefused() { # NETNS
	cat > "$T/ns.json" <<JSON
{ "name": "low-ns", "duration": "4s", "window": "1s", "hold": 1, "hosts": { "w": { "local": true, "netns": "$1" } },
  "workloads": { "null": { "rate": 20 } },
  "faults": [ { "id": "x", "at": "1s", "for": "1s", "kind": "exec", "target": "w",
    "params": { "inject": ["true"], "revert": ["true"] } } ],
  "targets": { "steady": { "null.ticks": ">= 1" }, "degraded": { "null.ticks": ">= 1" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } } }
JSON
	"$GAUNTLET" validate "$T/ns.json" > "$T/8.log" 2>&1; local rc=$?
	check "8: hosts.w.netns '$1': refused (exit $rc) naming the key" \
		bash -c "[ $rc -eq 2 ] && grep -q 'hosts.w.netns: expected a network namespace name' '$T/8.log'"
}
nsrefused -all
nsrefused ../..
nsrefused a/b
"$GAUNTLET" validate "$T/ns.json" --set hosts.w.netns=gl-lab-w1 > "$T/8c.log" 2>&1; rc=$?
check "8: control: netns gl-lab-w1 is valid (exit $rc)" [ $rc -eq 0 ]
cat > "$T/st.json" <<JSON
{ "name": "low-tc", "duration": "4s", "window": "1s", "hold": 1, "hosts": { "w": { "local": true } },
  "workloads": { "null": { "rate": 20 } },
  "faults": [ { "id": "t", "at": "1s", "for": "1s", "kind": "storage_throttle", "method": "tc", "target": "w",
    "params": { "interface": "-all", "rate": "100mbit" } } ],
  "targets": { "steady": { "null.ticks": ">= 1" }, "degraded": { "null.ticks": ">= 1" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } } }
JSON
"$GAUNTLET" validate "$T/st.json" > "$T/8d.log" 2>&1; rc=$?
check "8: storage_throttle tc interface '-all': refused (exit $rc) naming faults[0].params.interface" \
	bash -c "[ $rc -eq 2 ] && grep -q 'faults\[0\].params.interface: expected an interface name' '$T/8d.log'"
"$GAUNTLET" validate "$T/st.json" --set 'faults[0].params.interface=eth1' > "$T/8e.log" 2>&1; rc=$?
check "8: control: interface eth1 is valid (exit $rc)" [ $rc -eq 0 ]
finish
