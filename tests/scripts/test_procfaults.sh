#!/usr/bin/env bash
# test_procfaults.sh - the process_kill and storage_throttle fault kinds end
# to end, with the null workload and real processes, cgroups and qdiscs:
# (1) KILL of a sleep the test started (gone, fault verified); (2) STOP for a
# while (stopped during, running after), and STOP with the controller
# SIGKILLed, then `gauntlet revert` continues the process; (3) a pattern
# that matches more than max_matches is refused, the newest match only by
# default, every match with "all"; (4) storage_throttle/cgroup: dd with
# O_DIRECT in a throttled cgroup is slow during the fault, fast after it;
# (5) validate rejects bad params naming their path; (6) storage_throttle/tc
# on lo inside a private netns; (7) the dead-man's switch: STOP, both
# throttles and an exec fault at once, the controller SIGKILLed and never
# resumed, every watcher reverting its fault; (8) a watcher killed by hand
# is reported lost by the next lease renewal; (9) a resumed controller
# renews the watchers it finds; (10) an inject slower than the grace never
# lets its watcher fire before the fault is in; (11) a watcher still running
# under an earlier controller's claim is stopped by the resumed controller's
# revert. Every process the faults may
# signal is started here with a marker unique to this test run.
source "$(dirname "$0")/lib.sh"

MARK="gl-pf-victim-$$-$RANDOM"
NETNS="gl-pf-$$"
CGDIR=
IO_ENABLED=
NETNS_MADE=
TAG="pf$$"

procfaults_cleanup() {
	for p in "${PIDS[@]}"; do kill -CONT "$p" 2>/dev/null; done
	[ -n "$CGDIR" ] && [ -d "$CGDIR" ] && rmdir "$CGDIR" 2>/dev/null
	[ -n "$IO_ENABLED" ] && echo -io > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	[ -n "$NETNS_MADE" ] && ip netns del "$NETNS" 2>/dev/null
	rm -f "$SD"/fault-*-"$TAG"-*.pids 2>/dev/null
	cleanup
}
trap procfaults_cleanup EXIT

# process_kill keeps its pid records in /run/gauntlet; elsewhere when that
# is not writable here (not root)
if mkdir -p /run/gauntlet 2>/dev/null && [ -w /run/gauntlet ]; then
	SD=/run/gauntlet SDP=
else
	SD=$T/state SDP=", \"state_dir\": \"$T/state\""
fi

# State letter of PID from /proc/PID/stat ("" when gone), builtins only:
# nothing the test runs while a fault is live carries the marker in argv.
pstate() {
	local l
	{ read -r l < "/proc/$1/stat"; } 2>/dev/null || { echo ""; return; }
	l=${l##*) }
	echo "${l%% *}"
}
# PID's state is one of the letters (X: gone).
state_in() { # PID STATES
	local s
	s=$(pstate "$1")
	[[ "$2" == *"${s:-X}"* ]]
}
# Wait until PID's state is one of the letters.
wait_state() { until_ok "$3" state_in "$1" "$2"; }
# Start `sleep 1000` whose command line is "$MARK-NAME 1000"; sets VPID.
# (env puts SIGINT back to default: bash ignores it in background jobs.)
victim() {
	env --default-signal=INT,QUIT bash -c "exec -a '$MARK-$1' sleep 1000" &
	VPID=$!
	PIDS+=("$VPID")
	until_ok 30 named "$VPID" "$MARK-$1"
}
named() { tr '\0' ' ' < "/proc/$1/cmdline" 2>/dev/null | grep -q "^$2 "; } # PID NAME
# Write a scenario: FILE DURATION FAULTS-JSON [HOSTS-JSON]
scenario() {
	local hosts=${4:-'{ "me": { "local": true } }'}
	cat > "$1" <<JSON
{ "name": "procfaults", "duration": "$2", "window": "1s", "hold": 1,
  "hosts": $hosts,
  "workloads": { "null": { "rate": 50 } },
  "faults": [ $3 ],
  "targets": { "steady": { "null.ticks": ">= 10" }, "degraded": { "null.ticks": ">= 10" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } } }
JSON
}
# RC = exit status of a child that should have died, without ever
# blocking: 255 when it is still alive after 30 s.
reap() { # PID: sets RC
	wait_state "$1" "ZX" 30 || { RC=255; return; }
	wait "$1" 2>/dev/null
	RC=$?
}
no_state_files() { [ -z "$(ls "$SD"/fault-*-"$TAG"-*.pids 2>/dev/null)" ]; }
# The watcher's lease (/run/gauntlet/BASE.lease, "SEQ LEFT", rewritten by
# the controller every deadman_renew) as a clock of the run itself:
# lease_from RUN-DIR sets LEASE (its path, once the plan names the watcher)
# and starts counting its changes; lease_changed N, for until_ok, looks once
# and succeeds once it has seen the lease change N times since.
lease_from() {
	local b
	b=$(sql "$1/run.db" "select json_extract(plan, '$.deadman.base') from faults" 2>/dev/null)
	[ -n "$b" ] && [ -e "/run/gauntlet/$b.lease" ] || return 1
	LEASE=/run/gauntlet/$b.lease LEASE_SEEN=$(cat "/run/gauntlet/$b.lease" 2>/dev/null) LEASE_N=0
}
lease_changed() {
	local cur
	cur=$(cat "$LEASE" 2>/dev/null) || return 1
	[ "$cur" != "$LEASE_SEEN" ] && LEASE_SEEN=$cur LEASE_N=$((LEASE_N + 1))
	[ "$LEASE_N" -ge "$1" ]
}

# --- 1. KILL -----------------------------------------------------------------
victim kill
K1=$VPID
scenario "$T/kill.json" 4s "{ \"id\": \"kill-$TAG\", \"at\": \"1s\", \"kind\": \"process_kill\", \"target\": \"me\",
  \"params\": { \"pattern\": \"$MARK-kill\", \"signal\": \"KILL\"$SDP } }"
"$GAUNTLET" run "$T/kill.json" --out "$T/rk" >"$T/rk.log" 2>&1
rc=$?
# an instantaneous fault leaves no degraded window, so the degraded target
# has no data and the verdict may be fail (1); anything above is an error
check "KILL: run completes (exit $rc: 0 pass or 1 fail)" [ $rc -le 1 ]
reap "$K1"; rc=$RC
check "KILL: the victim died of SIGKILL (wait status 137)" [ $rc -eq 137 ]
check "KILL: report says injected, verified, reverted" fault_is "$T/rk" 0 "(f['state'], f['verified'], f['verified_revert']) == ('reverted', True, True)"
check "KILL: no pid record left in $SD" no_state_files

# --- 2. STOP for a while -------------------------------------------------------
victim stop
S1=$VPID
scenario "$T/stop.json" 7s "{ \"id\": \"stop-$TAG\", \"at\": \"1s\", \"for\": \"3s\", \"kind\": \"process_kill\",
  \"target\": \"me\", \"params\": { \"pattern\": \"$MARK-stop\", \"signal\": \"STOP\"$SDP } }"
"$GAUNTLET" run "$T/stop.json" --dry-run >"$T/dry.log" 2>&1
check "dry run prints the STOP and the CONT" bash -c "grep -q 'kill -STOP' '$T/dry.log' && grep -q 'kill -CONT' '$T/dry.log'"
bg run "$T/stop.json" --out "$T/rs"
check "STOP: stopped during the fault (state T)" wait_state "$S1" "T" 30
wait "$BG_PID"; rc=$?
check "STOP: run exits 0" [ $rc -eq 0 ]
check "STOP: running again after the run (not T)" [ -n "$(pstate "$S1")" -a "$(pstate "$S1")" != T ]
check "STOP: report says verified and verified reverted" fault_is "$T/rs" 0 "(f['state'], f['verified'], f['verified_revert']) == ('reverted', True, True)"
check "STOP: no pid record left" no_state_files

# STOP, controller SIGKILLed mid-fault, then `gauntlet revert` from the store
scenario "$T/stop2.json" 60s "{ \"id\": \"stop2-$TAG\", \"at\": \"1s\", \"for\": \"50s\", \"kind\": \"process_kill\",
  \"target\": \"me\", \"params\": { \"pattern\": \"$MARK-stop\", \"signal\": \"STOP\"$SDP } }"
bg run "$T/stop2.json" --out "$T/rs2"
check "STOP/crash: stopped during the fault" wait_state "$S1" "T" 30
# killed once the journal holds the fault as injected (the STOP is in
# before that commit)
check "STOP/crash: the journal says injected" until_ok 30 sql_is "$T/rs2/run.db" "select state from faults" injected
kill -9 "$BG_PID"; wait "$BG_PID" 2>/dev/null
check "STOP/crash: still stopped after the controller died" [ "$(pstate "$S1")" = T ]
"$GAUNTLET" revert "$T/rs2" >"$T/rs2.log" 2>&1; rc=$?
check "STOP/crash: gauntlet revert exits 0" [ $rc -eq 0 ]
check "STOP/crash: the process runs again" [ -n "$(pstate "$S1")" -a "$(pstate "$S1")" != T ]
check "STOP/crash: journal says reverted" [ "$(sql "$T/rs2/run.db" "select state from faults")" = reverted ]
check "STOP/crash: no pid record left" no_state_files
"$GAUNTLET" revert "$T/rs2" >"$T/rs2b.log" 2>&1; rc=$?
check "revert again: nothing left to do, exits 0" [ $rc -eq 0 ]

# --- 3. selection: max_matches, newest only, all ----------------------------------
victim many-1; M1=$VPID
victim many-2; M2=$VPID
victim many-3; M3=$VPID
scenario "$T/many.json" 3s "{ \"id\": \"many-$TAG\", \"at\": \"1s\", \"kind\": \"process_kill\", \"target\": \"me\",
  \"params\": { \"pattern\": \"$MARK-many\", \"max_matches\": 2$SDP } }"
"$GAUNTLET" run "$T/many.json" --out "$T/rm" >"$T/rm.log" 2>&1
check "max_matches: the fault is refused (state failed, says why)" fault_is "$T/rm" 0 "f['state'] == 'failed' and 'matches 3 processes, more than max_matches 2' in f.get('error', '')"
check "max_matches: no victim was signalled" bash -c "[ '$(pstate "$M1")$(pstate "$M2")$(pstate "$M3")' = SSS ]"
check "max_matches: no pid record left" no_state_files

scenario "$T/newest.json" 3s "{ \"id\": \"newest-$TAG\", \"at\": \"1s\", \"kind\": \"process_kill\", \"target\": \"me\",
  \"params\": { \"pattern\": \"$MARK-many\", \"signal\": \"INT\", \"max_matches\": 3$SDP } }"
"$GAUNTLET" run "$T/newest.json" --out "$T/rn" >"$T/rn.log" 2>&1
check "newest only: verified" fault_is "$T/rn" 0 "f['verified'] is True"
reap "$M3"; rc=$RC
check "newest only: the newest died of SIGINT (130)" [ $rc -eq 130 ]
check "newest only: the two older ones still run" bash -c "[ '$(pstate "$M1")$(pstate "$M2")' = SS ]"

scenario "$T/all.json" 3s "{ \"id\": \"all-$TAG\", \"at\": \"1s\", \"kind\": \"process_kill\", \"target\": \"me\",
  \"params\": { \"pattern\": \"$MARK-many-[12]\", \"signal\": \"TERM\", \"all\": true$SDP } }"
"$GAUNTLET" run "$T/all.json" --out "$T/ra" >"$T/ra.log" 2>&1
check "all: verified" fault_is "$T/ra" 0 "f['verified'] is True"
reap "$M1"; rc1=$RC
reap "$M2"; rc2=$RC
check "all: both died of SIGTERM (143)" [ $rc1 -eq 143 -a $rc2 -eq 143 ]

scenario "$T/none.json" 3s "{ \"id\": \"none-$TAG\", \"at\": \"1s\", \"kind\": \"process_kill\", \"target\": \"me\",
  \"params\": { \"pattern\": \"$MARK-nobody\"$SDP } }"
"$GAUNTLET" run "$T/none.json" --out "$T/r0" >"$T/r0.log" 2>&1
check "no match: the fault fails saying so" fault_is "$T/r0" 0 "f['state'] == 'failed' and 'no process matches' in f.get('error', '')"

# the controller's ancestors are never selected: here its parent shell is
# the only process whose command line carries the pattern
scenario "$T/anc.json" 3s "{ \"id\": \"anc-$TAG\", \"at\": \"1s\", \"kind\": \"process_kill\", \"target\": \"me\",
  \"params\": { \"pattern\": \"$MARK-parent\"$SDP } }"
bash -c '"$1" run "$2" --out "$3"; exit $?' "$MARK-parent" "$GAUNTLET" "$T/anc.json" "$T/ranc" >"$T/ranc.log" 2>&1; rc=$?
check "ancestors: the controller's parent survives a pattern matching it (exit $rc)" [ $rc -le 1 ]
check "ancestors: the fault fails with no process matching" fault_is "$T/ranc" 0 "f['state'] == 'failed' and 'no process matches' in f.get('error', '')"

# --- 5. validate ------------------------------------------------------------------
scenario "$T/bad.json" 10s "
  { \"id\": \"b0\", \"at\": \"1s\", \"kind\": \"process_kill\", \"target\": \"me\",
    \"params\": { \"pattern\": \"$MARK-x\", \"bogus\": 1 } },
  { \"id\": \"b1\", \"at\": \"2s\", \"kind\": \"process_kill\", \"target\": \"me\",
    \"params\": { \"pattern\": \"$MARK-x\", \"signal\": \"HUP\" } },
  { \"id\": \"b2\", \"at\": \"3s\", \"kind\": \"process_kill\", \"target\": \"me\",
    \"params\": { \"pattern\": \"$MARK-x\", \"signal\": \"STOP\" } },
  { \"id\": \"b3\", \"at\": \"4s\", \"kind\": \"process_kill\", \"target\": \"me\",
    \"params\": { \"pattern\": \".*\" } },
  { \"id\": \"b4\", \"at\": \"5s\", \"kind\": \"process_kill\", \"target\": \"me\",
    \"params\": { \"pattern\": \".\" } },
  { \"id\": \"b5\", \"at\": \"6s\", \"for\": \"1s\", \"kind\": \"storage_throttle\", \"target\": \"me\",
    \"params\": { \"cgroup\": \"../etc\", \"device\": \"/dev/vda\", \"write_bps\": \"fast\", \"speed\": 1 } },
  { \"id\": \"b6\", \"at\": \"8s\", \"for\": \"1s\", \"kind\": \"storage_throttle\", \"method\": \"tc\", \"target\": \"me\",
    \"params\": { \"interface\": \"lo\", \"rate\": \"100\" } }"
"$GAUNTLET" validate "$T/bad.json" >"$T/bad.out" 2>"$T/bad.err"; rc=$?
check "validate: bad params exit 2" [ $rc -eq 2 ]
check "validate: unknown key named" grep -q "faults\[0\].params.bogus: unknown key 'bogus'" "$T/bad.err"
check "validate: bad signal named" grep -q "faults\[1\].params.signal: unknown signal 'HUP'" "$T/bad.err"
check "validate: STOP without for" grep -q "faults\[2\].params.signal: signal STOP needs \"for\"" "$T/bad.err"
check "validate: pattern .* refused" grep -q "faults\[3\].params.pattern: .*every process" "$T/bad.err"
check "validate: pattern . refused" grep -q "faults\[4\].params.pattern: .*any command line" "$T/bad.err"
check "validate: cgroup with .. refused" grep -q "faults\[5\].params.cgroup: " "$T/bad.err"
check "validate: bad size and unknown key for storage_throttle" bash -c "grep -q 'faults\[5\].params.write_bps: ' '$T/bad.err' && grep -q 'faults\[5\].params.speed: unknown key' '$T/bad.err'"
check "validate: tc rate without unit" grep -q "faults\[6\].params.rate: " "$T/bad.err"

# --- 4. storage_throttle / cgroup ----------------------------------------------------
storage_test() {
	local iface dev src d mj mn t0 t1 slow fast
	[ "$(id -u)" -eq 0 ] || { part_skip 4 "storage_throttle/cgroup needs root"; return; }
	if [ -r /sys/fs/cgroup/cgroup.controllers ] && grep -qw io /sys/fs/cgroup/cgroup.controllers; then
		iface=v2
		if ! grep -qw io /sys/fs/cgroup/cgroup.subtree_control; then
			echo +io > /sys/fs/cgroup/cgroup.subtree_control ||
				{ part_skip 4 "cannot enable the v2 io controller"; return; }
			IO_ENABLED=1
		fi
		CGDIR=/sys/fs/cgroup/gauntlet-pf-$$
	elif [ -d /sys/fs/cgroup/blkio ]; then
		iface=v1
		CGDIR=/sys/fs/cgroup/blkio/gauntlet-pf-$$
	else
		part_skip 4 "neither cgroup v2 io nor v1 blkio is available"; return
	fi
	src=$(findmnt -no SOURCE --target "$T" 2>/dev/null)
	if [ -b "$src" ]; then
		dev=$src
	else
		d=$(stat -c %d "$T")
		mj=$(( (d >> 8) & 0xfff )); mn=$(( (d & 0xff) | ((d >> 12) & 0xfff00) ))
		[ -e "/sys/dev/block/$mj:$mn" ] || { part_skip 4 "$T is not on a block device ($src)"; return; }
		dev=$mj:$mn
	fi
	mkdir "$CGDIR" || { part_skip 4 "cannot create $CGDIR"; CGDIR=; return; }
	echo "part 4: cgroup $iface at $CGDIR, device $dev"
	# the time dd takes to write 20 MiB with O_DIRECT from inside the cgroup
	# (prints "failed" when dd did not write its 20 MiB from inside the cgroup)
	ddtime() {
		local a b
		a=$(date +%s%N)
		bash -c "echo \$\$ > '$CGDIR/cgroup.procs' && exec dd if=/dev/zero of='$T/dd.out' bs=1M count=20 oflag=direct" >/dev/null 2>&1 ||
			{ echo failed; return; }
		b=$(date +%s%N)
		echo $(( (b - a) / 1000000 ))
	}
	limited() { # the limit is in place
		if [ $iface = v2 ]; then grep -q "wbps=5000000" "$CGDIR/io.max"
		else grep -q " 5000000$" "$CGDIR/blkio.throttle.write_bps_device"; fi
	}
	unlimited() {
		local f=$CGDIR/io.max
		[ $iface = v2 ] || f=$CGDIR/blkio.throttle.write_bps_device
		[ -r "$f" ] || return 1
		if [ $iface = v2 ]; then ! grep -q "=[0-9]" "$f"
		else ! grep -q " [1-9]" "$f"; fi
	}
	scenario "$T/thr.json" 14s "{ \"id\": \"thr-$TAG\", \"at\": \"1s\", \"for\": \"10s\", \"kind\": \"storage_throttle\",
	  \"target\": \"me\", \"params\": { \"cgroup\": \"gauntlet-pf-$$\", \"device\": \"$dev\", \"write_bps\": \"5MB\" } }"
	bg run "$T/thr.json" --out "$T/rt"
	check "cgroup: the write limit is in place during the fault" until_ok 30 limited
	slow=$(ddtime)
	echo "dd of 20 MiB at 5 MB/s: $slow ms"
	check "cgroup: dd under the limit takes >= 2 s ($slow ms)" bash -c "[[ '$slow' =~ ^[0-9]+\$ ]] && [ '$slow' -ge 2000 ]"
	wait "$BG_PID"; rc=$?
	check "cgroup: run exits 0" [ $rc -eq 0 ]
	check "cgroup: the limit reads back as none after the revert" unlimited
	fast=$(ddtime)
	echo "dd of 20 MiB after the revert: $fast ms"
	check "cgroup: dd after the revert is clearly faster ($fast ms vs $slow ms)" \
		bash -c "[[ '$fast' =~ ^[0-9]+\$ && '$slow' =~ ^[0-9]+\$ ]] && [ \$(($fast * 2)) -lt $slow ]"
	check "cgroup: report says verified and verified reverted" fault_is "$T/rt" 0 "(f['state'], f['verified'], f['verified_revert']) == ('reverted', True, True)"
	rm -f "$T/dd.out"
	rmdir "$CGDIR" && CGDIR=
	CG_IFACE=$iface CG_DEV=$dev   # for part 7
}
CG_IFACE= CG_DEV=
storage_test

# --- 6. storage_throttle / tc, on lo of a private netns --------------------------------
tc_test() {
	command -v tc >/dev/null || { part_skip 6 "storage_throttle/tc needs tc (iproute2)"; return; }
	ip netns add "$NETNS" 2>/dev/null || { part_skip 6 "cannot create a network namespace (root needed)"; return; }
	NETNS_MADE=1
	ip netns exec "$NETNS" ip link set lo up
	tbf() { ip netns exec "$NETNS" tc qdisc show dev lo root | grep -q "qdisc tbf"; }
	scenario "$T/tc.json" 7s "{ \"id\": \"tc-$TAG\", \"at\": \"1s\", \"for\": \"3s\", \"kind\": \"storage_throttle\",
	  \"method\": \"tc\", \"target\": \"ns\", \"params\": { \"interface\": \"lo\", \"rate\": \"10mbit\" } }" \
		"{ \"ns\": { \"local\": true, \"netns\": \"$NETNS\" } }"
	bg run "$T/tc.json" --out "$T/rtc"
	check "tc: a tbf is the root qdisc of lo during the fault" until_ok 30 tbf
	wait "$BG_PID"; rc=$?
	check "tc: run exits 0" [ $rc -eq 0 ]
	# (the qdisc listing must succeed: a namespace gone would show no tbf too)
	no_tbf() { local q; q=$(ip netns exec "$NETNS" tc qdisc show dev lo root) && [ -n "$q" ] && ! grep -q tbf <<< "$q"; }
	check "tc: no tbf after the revert" no_tbf
	check "tc: report says verified and verified reverted" fault_is "$T/rtc" 0 "(f['state'], f['verified'], f['verified_revert']) == ('reverted', True, True)"
	ip netns del "$NETNS" && NETNS_MADE=
}
tc_test

# --- 7. the dead-man's switch: the controller SIGKILLed and never resumed ---------------
# STOP, cgroup and tc throttles and an exec marker at once; their watchers
# (lease renewed every 1 s, grace 3 s) revert every one by themselves.
dm_test() {
	local mark=$T/dm-mark faults
	[ -n "$CG_IFACE" ] || { part_skip 7 "part 4's cgroup did not run"; return; }
	ip netns add "$NETNS" 2>/dev/null || { part_skip 7 "cannot create a network namespace (root needed)"; return; }
	NETNS_MADE=1
	ip netns exec "$NETNS" ip link set lo up
	CGDIR=/sys/fs/cgroup/gauntlet-pf-$$
	[ "$CG_IFACE" = v2 ] || CGDIR=/sys/fs/cgroup/blkio/gauntlet-pf-$$
	mkdir "$CGDIR" || { part_skip 7 "cannot create $CGDIR"; CGDIR=; return; }
	victim dm
	local D1=$VPID
	faults="{ \"id\": \"dm-stop\", \"at\": \"1s\", \"for\": \"60s\", \"kind\": \"process_kill\", \"target\": \"me\",
	    \"params\": { \"pattern\": \"$MARK-dm\", \"signal\": \"STOP\"$SDP } },
	  { \"id\": \"dm-cgroup\", \"at\": \"1s\", \"for\": \"60s\", \"kind\": \"storage_throttle\", \"target\": \"me\",
	    \"params\": { \"cgroup\": \"${CGDIR##*/}\", \"device\": \"$CG_DEV\", \"write_bps\": \"5MB\" } },
	  { \"id\": \"dm-tc\", \"at\": \"1s\", \"for\": \"60s\", \"kind\": \"storage_throttle\", \"method\": \"tc\",
	    \"target\": \"ns\", \"params\": { \"interface\": \"lo\", \"rate\": \"10mbit\" } },
	  { \"id\": \"dm-exec\", \"at\": \"1s\", \"for\": \"60s\", \"kind\": \"exec\", \"target\": \"me\",
	    \"params\": { \"inject\": [\"touch\", \"$mark\"], \"revert\": [\"rm\", \"-f\", \"$mark\"] } }"
	scenario "$T/dm.json" 90s "$faults" "{ \"me\": { \"local\": true }, \"ns\": { \"local\": true, \"netns\": \"$NETNS\" } }"
	set_safety "$T/dm.json" '{"max_concurrent_faults": 4, "deadman_renew": "1s", "deadman_grace": "3s"}'
	dm_limited() {
		if [ "$CG_IFACE" = v2 ]; then grep -q "wbps=5000000" "$CGDIR/io.max"
		else grep -q " 5000000$" "$CGDIR/blkio.throttle.write_bps_device"; fi
	}
	dm_tbf() { ip netns exec "$NETNS" tc qdisc show dev lo root | grep -q "qdisc tbf"; }
	# all four back as before: running, no limit, no tbf, no marker
	dm_back() {
		[ -n "$(pstate "$D1")" ] && [ "$(pstate "$D1")" != T ] && ! dm_limited && ! dm_tbf && [ ! -e "$mark" ]
	}
	bg run "$T/dm.json" --out "$T/rdm"
	check "dead-man: all four faults injected" until_ok 30 sql_is "$T/rdm/run.db" "select count(*) from faults where state='injected'" 4
	check "dead-man: stopped, limited, tbf, marker while injected" \
		bash -c "[ '$(pstate "$D1")' = T ] && [ -e '$mark' ]"
	check "dead-man: the cgroup limit is in place" dm_limited
	check "dead-man: the tbf is in place" dm_tbf
	dm_never_resumed "dead-man (STOP, cgroup, tc, exec)" "$T/rdm" 3 1 dm_back
	check "dead-man: no pid record left" no_state_files
	check "dead-man: no watcher file of the run left in /run/gauntlet" \
		bash -c "! ls /run/gauntlet/dm.$(sql "$T/rdm/run.db" "select id from run")* 2>/dev/null | grep -q ."
	rmdir "$CGDIR" && CGDIR=
	ip netns del "$NETNS" && NETNS_MADE=
}
dm_test

# --- 8. a watcher killed by hand: the next renewal reports it lost ----------------------
scenario "$T/lost.json" 8s "{ \"id\": \"lost-$TAG\", \"at\": \"1s\", \"for\": \"5s\", \"kind\": \"exec\", \"target\": \"me\",
  \"params\": { \"inject\": [\"touch\", \"$T/lost-mark\"], \"revert\": [\"rm\", \"-f\", \"$T/lost-mark\"] } }"
set_safety "$T/lost.json" '{"deadman_renew": "1s", "deadman_grace": "30s"}'
bg run "$T/lost.json" --out "$T/rlost"
check "lost: injected with its watcher armed" until_ok 30 sql_is "$T/rlost/run.db" "select state||' '||deadman from faults" "injected armed"
WPID=$(sql "$T/rlost/run.db" "select json_extract(plan, '$.deadman.pid') from faults")
check "lost: the plan journals the watcher's pid ($WPID), start time and lease path" \
	[ -n "$(sql "$T/rlost/run.db" "select 1 from faults where json_extract(plan, '$.deadman.pid') > 0 and json_extract(plan, '$.deadman.started_wall_ns') > 0 and json_extract(plan, '$.deadman.base') like 'dm.%'")" ]
check "lost: that pid runs the watcher script" grep -qF "/run/gauntlet/dm." "/proc/$WPID/cmdline"
kill -KILL "$WPID"
# (deadman alone: under load the scheduled revert may come first; it keeps "lost")
check "lost: the next renewal journals the switch as lost" until_ok 30 sql_is "$T/rlost/run.db" "select deadman from faults" "lost"
lost_event() { [ -n "$(sql "$T/rlost/run.db" "select 1 from events where message like '%dead-man''s switch on host ''me'' is LOST%'")" ]; }
check "lost: an event says so" until_ok 30 lost_event
wait "$BG_PID"; rc=$?
check "lost: the run still ends and reverts (exit $rc)" [ $rc -eq 0 ]
check "lost: reverted by the controller, marker gone" bash -c "[ ! -e '$T/lost-mark' ]"
check "lost: report.json: reverted_by controller, deadman lost" fault_is "$T/rlost" 0 "(f['reverted_by'], f['deadman']) == ('controller', 'lost')"
check "lost: report.md says the switch was lost" grep -q "Dead-man's switch LOST" "$T/rlost/report.md"

# --- 9. a resumed controller renews the watchers it finds --------------------------------
# killed in a 16 s fault once its lease was renewed (grace 5 s), resumed
# at once: the watcher must not fire while the resumed controller renews
# its lease 7 times (6 s and more after the kill: unrenewed, it would have
# fired by then), and the resumed controller reverts.
# (grace 5 s: with 3 s a loaded machine's resume can renew too late)
# (16 s: at 8 s a loaded machine can read the journal after the scheduled
# revert; the 7 renewals come after the resume's own start.)
scenario "$T/adopt.json" 22s "{ \"id\": \"adopt-$TAG\", \"at\": \"1s\", \"for\": \"16s\", \"kind\": \"exec\", \"target\": \"me\",
  \"params\": { \"inject\": [\"touch\", \"$T/adopt-mark\"], \"revert\": [\"rm\", \"-f\", \"$T/adopt-mark\"] } }"
set_safety "$T/adopt.json" '{"deadman_renew": "1s", "deadman_grace": "5s"}'
bg run "$T/adopt.json" --out "$T/radopt"
check "adopt: injected with its watcher armed" until_ok 30 sql_is "$T/radopt/run.db" "select state||' '||deadman from faults" "injected armed"
until_ok 30 lease_from "$T/radopt"
check "adopt: the controller renewed the watcher's lease" until_ok 30 lease_changed 1
kill -KILL "$BG_PID"; wait "$BG_PID" 2>/dev/null
lease_from "$T/radopt"
bg resume "$T/radopt"
check "adopt: the resumed controller renews the watcher's lease (7 times after the kill: 6 s and more)" until_ok 60 lease_changed 7
check "adopt: past the grace (5 s) after the kill the fault still holds: the resumed controller renews its watcher" [ -e "$T/adopt-mark" ]
v=$(sql "$T/radopt/run.db" "select state||' '||deadman from faults")
check "adopt: its watcher has not fired (journal: $v)" [ "$v" = "injected armed" ]
wait "$BG_PID"; rc=$?
check "adopt: the resumed run ends (exit $rc)" [ $rc -le 1 ]
check "adopt: reverted by the controller, its watcher stopped" sql_is "$T/radopt/run.db" "select state||' '||reverted_by||' '||deadman from faults" "reverted controller stopped"
check "adopt: marker gone" [ ! -e "$T/adopt-mark" ]

# --- 10. an inject slower than the grace ------------------------------------------------
# The inject waits at a gate (a fifo) that the test opens once the lease
# was renewed 7 times (6 s and more from the watcher's start; the grace
# is 3 s): the lease is renewed from the watcher's start, not from the end
# of the inject, so the watcher never fires while the inject runs (if it
# did, its record would pass for the revert of a fault that came in after
# it, and the fault would stay in; its renewals stop then, and the wait
# for the 7th fails).
# (a) held 60 s, the controller SIGKILLed once it is in: its watcher
# reverts it. (b) held 1 s, its planned end plus the grace passing during
# the inject: the controller reverts it once in, its watcher stopped.
slow_fault() { # ID FOR MARK GATE
	echo "{ \"id\": \"$1-$TAG\", \"at\": \"1s\", \"for\": \"$2\", \"kind\": \"exec\", \"target\": \"me\",
  \"params\": { \"inject\": [\"sh\", \"-c\", \"read go < $4; touch $3\"], \"revert\": [\"rm\", \"-f\", \"$3\"] } }"
}
# open_gate FIFO: one line for the inject waiting on it (never blocks: the
# fifo is opened for reading and writing)
open_gate() { local fd; exec {fd}<>"$1"; echo go >&"$fd"; exec {fd}>&-; }
# slow_inject LABEL RUN-DIR GATE: the lease renewed 7 times while the
# inject waits at the gate, then the gate opened
slow_inject() {
	until_ok 30 lease_from "$2"
	check "$1: the lease renewed 7 times while the inject runs (past the 3 s grace)" until_ok 60 lease_changed 7
	open_gate "$3"
}
mkfifo "$T/slow.gate" "$T/slowend.gate"
scenario "$T/slow.json" 90s "$(slow_fault slow 60s "$T/slow-mark" "$T/slow.gate")"
set_safety "$T/slow.json" '{"deadman_renew": "1s", "deadman_grace": "3s"}'
bg run "$T/slow.json" --out "$T/rslow"
slow_inject "slow inject" "$T/rslow" "$T/slow.gate"
check "slow inject: in once the gate opened, its watcher armed, not fired" \
	until_ok 30 sql_is "$T/rslow/run.db" "select state||' '||deadman from faults" "injected armed"
check "slow inject: the marker is there" [ -e "$T/slow-mark" ]
slow_back() { [ ! -e "$T/slow-mark" ]; }
dm_never_resumed "slow inject" "$T/rslow" 3 1 slow_back
scenario "$T/slowend.json" 12s "$(slow_fault slowend 1s "$T/slowend-mark" "$T/slowend.gate")"
set_safety "$T/slowend.json" '{"deadman_renew": "1s", "deadman_grace": "3s"}'
bg run "$T/slowend.json" --out "$T/rslowend" > "$T/slowend.log" 2>&1
slow_inject "slow inject past its end" "$T/rslowend" "$T/slowend.gate"
wait "$BG_PID"; rc=$?
check "slow inject past its end: the run ends (exit $rc)" [ $rc -le 1 ]
check "slow inject past its end: reverted by the controller, its watcher stopped" \
	sql_is "$T/rslowend/run.db" "select state||' '||reverted_by||' '||deadman from faults" "reverted controller stopped"
check "slow inject past its end: marker gone" [ ! -e "$T/slowend-mark" ]
check "slow inject past its end: the log gives why it was reverted (scheduled, asked during the inject)" \
	grep -q "'slowend-$TAG' reverted (scheduled)" "$T/slowend.log"

# --- 11. an earlier controller's claim, its watcher still running --------------------------
# A controller SIGKILLed after taking a watcher's claim (the claim says
# "controller") but before stopping the watcher. The resumed controller's
# revert must stop that watcher: left running while its files are removed
# after the revert, it would take the claim at its planned end plus the
# grace, revert a second time and leave its record in /run/gauntlet.
scenario "$T/held.json" 16s "{ \"id\": \"held-$TAG\", \"at\": \"1s\", \"for\": \"8s\", \"kind\": \"exec\", \"target\": \"me\",
  \"params\": { \"inject\": [\"touch\", \"$T/held-mark\"], \"revert\": [\"sh\", \"-c\", \"rm -f $T/held-mark; echo x >> $T/held-reverts\"] } }"
set_safety "$T/held.json" '{"deadman_renew": "1s", "deadman_grace": "5s"}'
bg run "$T/held.json" --out "$T/rheld"
check "held: injected with its watcher armed" until_ok 30 sql_is "$T/rheld/run.db" "select state||' '||deadman from faults" "injected armed"
HB=$(sql "$T/rheld/run.db" "select json_extract(plan, '$.deadman.base') from faults")
HP=$(sql "$T/rheld/run.db" "select json_extract(plan, '$.deadman.pid') from faults")
mkdir "/run/gauntlet/$HB.claim" && echo controller > "/run/gauntlet/$HB.claim/by"
kill -KILL "$BG_PID"; wait "$BG_PID" 2>/dev/null
bg resume "$T/rheld"
wait "$BG_PID"; rc=$?
check "held: the resumed run ends (exit $rc)" [ $rc -le 1 ]
# (the run ended past the planned end plus the grace, 9 s + 5 s: a watcher
# left running would have reverted by then; once it is gone and no revert
# command of the fault runs, the count is final)
held_gone() { ! grep -qF "$HB.sh" "/proc/$HP/cmdline" 2>/dev/null; }
held_done() { held_gone && ! pgrep -f -- "$T/held-reverts" >/dev/null; }
check "held: its watcher (pid ${HP:-none}) stopped, no revert of the fault running" until_ok 30 held_done
n=$(wc -l < "$T/held-reverts" 2>/dev/null)
check "held: reverted once, by the controller (${n:-0} revert(s))" [ "${n:-0}" = 1 ]
check "held: marker gone, no file of its watcher left in /run/gauntlet" \
	bash -c "[ ! -e '$T/held-mark' ] && ! ls /run/gauntlet/ 2>/dev/null | grep -qF '$HB'"

finish
