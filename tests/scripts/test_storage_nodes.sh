#!/bin/bash
# test_storage_nodes.sh - the storage workload's per-host figures
# (docs/nodes.md) against a slow host made here and known:
#   1. 4 load agents on loopback (real mpirun), each on a scenario host of
#      its own (h1..h4), each writing checkpoints with direct I/O at its
#      own rate cap of 8 MB/s; agent 2 (on h3) starts inside a v1 blkio
#      cgroup made here whose write_bps_device holds the disk under this
#      test's directory to 2 MB/s. h3 is the one suspect, by its write rate
#      and its op time, and its write rate is the throttle's (within 20 %),
#      the others' the cap's;
#   2. the same run without the throttle names no suspect;
#   3. without agents the host is the scenario's one local host; with
#      "limit", the ops and bytes the figures add up to are exact (the sync
#      engine's mixed pattern, and the aio engine's random reads).
# Needs root, cgroup v1 blkio and mpirun (else skipped, exit 77).
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "the blkio cgroup that slows one host needs root"
[ -d /sys/fs/cgroup/blkio ] || skip "no cgroup v1 blkio here (v2's io.max cannot hold one agent's threads)"
command -v mpirun >/dev/null || skip "mpirun is not installed (Debian: openmpi-bin)"

LIMIT=2000000   # the slow host's write_bps_device, bytes a second
CAP=8000000     # every agent's rate_cap, bytes a second
CG=/sys/fs/cgroup/blkio/gl-h-storage-$$
nodes_cleanup() {
	# the agents have exited with their runs; the cgroup is empty then
	[ -d "$CG" ] && rmdir "$CG" 2>/dev/null
	cleanup
}
trap nodes_cleanup EXIT

D=$T/disk
mkdir -p "$D"
d=$(stat -c %d "$D")
DEV=$(( (d >> 8) & 0xfff )):$(( (d & 0xff) | ((d >> 12) & 0xfff00) ))
[ -e "/sys/dev/block/$DEV" ] || skip "$T is not on a block device (the throttle needs one)"
mkdir "$CG" || skip "cannot create the cgroup $CG"
echo "$DEV $LIMIT" > "$CG/blkio.throttle.write_bps_device" || skip "cannot set write_bps_device $DEV on $CG"

# The agents' binary: the gauntlet, agent SLOW (if any) first put in the
# throttled cgroup, as a host whose disk is slow.
wrapper() { # FILE SLOW_INDEX
	cat > "$1" <<SH
#!/bin/bash
[ "\$GAUNTLET_AGENT_INDEX" = "$2" ] && echo \$\$ > "$CG/cgroup.procs"
exec "$GAUNTLET" "\$@"
SH
	chmod +x "$1"
}
scenario() { # FILE BINARY
	python3 - "$1" "$2" "$D" "$T" "$CAP" <<'PY'
import json, sys
path, binary, disk, root, cap = sys.argv[1:6]
sto = {"path": disk, "allowed_roots": [root], "pattern": "checkpoint_write", "threads": 1, "direct": True,
       "reserve": "0", "bs": "256KiB", "file_size": "4MiB", "files": 2, "rate_cap": int(cap),
       "agents": {"launcher": "mpirun", "count": 4, "hosts": ["h1:1", "h2:1", "h3:1", "h4:1"],
                  "launcher_args": ["--oversubscribe"], "binary": binary}}
sc = {"name": "storage-nodes", "duration": "16s", "window": "2s",
      "hosts": {h: {"local": True} for h in ("h1", "h2", "h3", "h4")},
      "workloads": {"storage": sto},
      "targets": {"steady": {"storage.write_gbps": ">= 0", "agents.delivered_ratio": ">= 0.5"}}}
json.dump(sc, open(path, "w"), indent=1)
PY
}
# hosts RUN: "host figure median-over-the-inner-windows" per line (the
# first window holds the token bucket's burst, the last is cut by the end)
hosts() {
	python3 - "$1/run.db" <<'PY'
import sqlite3, statistics, sys
c = sqlite3.connect(sys.argv[1])
last = c.execute("select max(idx) from node_figures").fetchone()[0]
for h, f in c.execute("select distinct host, figure from node_figures where workload='storage' and kind='host' order by 1, 2"):
    v = [s / n for s, n in c.execute("select sum, n from node_figures where workload='storage' and kind='host' and host=? "
                                     "and figure=? and idx > 0 and idx < ? and n > 0", (h, f, last))]
    print(h, f, statistics.median(v) if v else "none")
PY
}
# fig RUN HOST FIGURE: that line's median
fig() { hosts "$1" | awk -v h="$2" -v f="$3" '$1 == h && $2 == f { print $3 }'; }
near() { python3 -c "import sys; sys.exit(not abs(float('$1') / ($2) - 1) <= 0.2)" 2>/dev/null; }

# ---- 1. one host slowed -----------------------------------------------------------------------
wrapper "$T/agent-slow" 2
scenario "$T/slow.json" "$T/agent-slow"
"$GAUNTLET" run "$T/slow.json" --out "$T/slow" > "$T/slow.log" 2>&1; rc=$?
check "slow: the run completes (exit $rc)" [ $rc -eq 0 ]
hosts "$T/slow" | sed 's/^/slow: measured /'
KB=$(awk -v d="$DEV" '$1 == d && $2 == "Write" { print $3 }' "$CG/blkio.throttle.io_service_bytes")
echo "slow: the kernel counted ${KB:-0} bytes written by h3's agent in its cgroup (true rate: at most $LIMIT B/s)"
check "slow: the cgroup held agent 2's writes (the kernel counted them)" [ "${KB:-0}" -gt 0 ]
check "slow: one row per window per host per figure, the hosts h1..h4" python3 -c "
import sqlite3; c=sqlite3.connect('$T/slow/run.db')
hs=[r[0] for r in c.execute(\"select distinct name from node_figures where workload='storage' and kind='host' order by 1\")]
assert hs == ['h1','h2','h3','h4'], hs
assert not c.execute(\"select count(*) from node_figures where workload='storage' and kind='host' and name != host\").fetchone()[0]
fs=sorted(r[0] for r in c.execute(\"select distinct figure from node_figures where workload='storage'\"))
assert fs == ['op_ms','write_mbps'], fs"
check "slow: h3 is the one suspect, by its write rate and its op time" python3 -c "
import json; r=json.load(open('$T/slow/report.json'))
s=r['suspects']; print('suspects:', [(x['kind'], x['name'], x['score'], x['evidence']) for x in s])
assert [(x['workload'], x['kind'], x['name'], x['host']) for x in s] == [('storage','host','h3','h3')], s
out={n['figure'] for n in r['nodes']['list'] if n['name']=='h3' and n['suspect']}
assert out == {'write_mbps','op_ms'}, out"
m=$(fig "$T/slow" h3 write_mbps)
echo "slow: h3 write $m MB/s against the throttle's $(awk -v l=$LIMIT 'BEGIN{print l/1e6}') MB/s"
check "slow: h3's write rate is the throttle's, within 20 %" near "$m" "$LIMIT/1e6"
for h in h1 h2 h4; do
	m=$(fig "$T/slow" $h write_mbps)
	echo "slow: $h write $m MB/s against the cap's $(awk -v c=$CAP 'BEGIN{print c/1e6}') MB/s"
	timing "slow: $h's write rate is the cap's, within 20 %" near "$m" "$CAP/1e6"
done

# ---- 2. no host slowed -------------------------------------------------------------------------
wrapper "$T/agent-clean" none
scenario "$T/clean.json" "$T/agent-clean"
"$GAUNTLET" run "$T/clean.json" --out "$T/clean" > "$T/clean.log" 2>&1; rc=$?
check "clean: the run completes (exit $rc)" [ $rc -eq 0 ]
hosts "$T/clean" | sed 's/^/clean: measured /'
check "clean: no suspect" python3 -c "
import json; r=json.load(open('$T/clean/report.json')); assert r['suspects'] == [], r['suspects']
assert len({n['name'] for n in r['nodes']['list'] if n['kind']=='host'}) == 4"
for h in h1 h2 h3 h4; do
	timing "clean: $h's write rate is the cap's, within 20 %" near "$(fig "$T/clean" $h write_mbps)" "$CAP/1e6"
done

# ---- 3. without agents: the controller's host, both engines, exact counts -----------------------
# "limit" fixes the bytes each run moves, and with them its ops: the op
# times' samples add up to limit / bs exactly, and the rates times the
# windows' lengths to the limit (the tally's interval and the window's
# differ by the moments each was read: 2 % allowed).
one() { # NAME PATTERN ENGINE FIGURES
	python3 - "$T/$1.json" "$D" "$T" "$2" "$3" <<'PY'
import json, sys
path, disk, root, pattern, engine = sys.argv[1:6]
sc = {"name": "one", "duration": "4s", "window": "2s", "hosts": {"me": {"local": True}},
      "workloads": {"storage": {"path": disk, "allowed_roots": [root], "pattern": pattern, "engine": engine,
                                "threads": 2, "direct": True, "reserve": "0", "bs": "64KiB", "file_size": "1MiB",
                                "files": 2, "rate_cap": "4MB", "limit": "4MiB"}},
      "targets": {"steady": {"storage.read_gbps": ">= 0", "storage.write_gbps": ">= 0"}}}
json.dump(sc, open(path, "w"))
PY
	"$GAUNTLET" run "$T/$1.json" --out "$T/$1" > "$T/$1.log" 2>&1; rc=$?
	check "$1: the run completes (exit $rc)" [ $rc -eq 0 ]
	check "$1: its figures are the local host me's: $4" python3 -c "
import sqlite3; c=sqlite3.connect('$T/$1/run.db')
r=sorted(set(c.execute(\"select name, host, figure from node_figures where workload='storage'\")))
assert r == [('me','me',f) for f in '$4'.split()], r"
	check "$1: exactly limit / bs = 64 ops, limit = 4194304 bytes" python3 -c "
import sqlite3; c=sqlite3.connect('$T/$1/run.db')
ops=c.execute(\"select sum(n) from node_figures where workload='storage' and figure='op_ms'\").fetchone()[0]
b=c.execute(\"select sum(f.sum * (w.end_ns - w.start_ns) / 1e3) from node_figures f join windows w on w.idx=f.idx \"
            \"where f.workload='storage' and f.figure in ('read_mbps','write_mbps')\").fetchone()[0]
print('$1: measured %d ops, %.0f bytes; true 64 ops, 4194304 bytes' % (ops, b))
assert ops == 64 and abs(b / 4194304 - 1) <= 0.02, (ops, b)"
}
one mixed mixed sync "op_ms read_mbps write_mbps"
one aio dataset_read aio "op_ms read_mbps"

finish
