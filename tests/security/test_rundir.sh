#!/usr/bin/env bash
# test_rundir.sh - run directories and stores another local user prepared
# are refused (gauntlet runs as root on shared login nodes). Root runs
# gauntlet; the unprivileged user `nobody` lays the traps in a sticky,
# world-writable directory, as it could in /tmp:
#  1. a directory nobody made, holding run.lock and report.json.tmp as
#     links to root's files: `run --out` refuses it (exit 2) and root's
#     files keep their bytes;
#  2. --out a link to a root directory: refused, nothing written there;
#  3. root's own directories: a non-empty one and a group-writable one are
#     refused, an empty 0700 one and a new path are taken; what a run
#     writes is 0600 in a 0700 directory, no temporary file left;
#  4. a store nobody wrote with an exec fault whose revert would write a
#     file as root: revert, resume, report, status, seal and compare all
#     refuse it (exit 2) naming the owner, the revert never runs, nothing
#     in the directory changes;
#  5. root's store made group-writable, or with a -wal file another user
#     owns: refused;
#  6. revert --dry-run shows the stored plan and executes nothing; a store
#     from another host has its plans printed before revert runs them.
. "$(dirname "$0")/../scripts/lib.sh"
[ -x "$GAUNTLET" ] || skip "no gauntlet binary at $GAUNTLET"
need_nobody

chmod 755 "$T"
P=$T/pub             # the shared, sticky, world-writable place (like /tmp)
mkdir "$P" && chmod 1777 "$P"
SC=$T/null.json
cat > "$SC" <<JSON
{ "name": "sec-null", "duration": "20m", "window": "1s",
  "hosts": { "localhost": { "local": true } },
  "workloads": { "null": { "rate": 20 } },
  "phases": [ { "name": "steady", "for": "20m" } ],
  "targets": { "steady": { "null.ticks": ">= 1" } } }
JSON
chmod 644 "$SC"
# snap DIR: every entry with type, owner, mode, size and content hash
snap() { (cd "$1" && find . -printf '%p %y %u %m %s %l\n' | sort && find . -type f -exec sha256sum {} + | sort) 2>&1; }

# --- 1. a directory another user prepared, with links in it ------------------
echo "root's file 1" > "$T/victim1"; echo "root's file 2" > "$T/victim2"
V1=$(sha256sum < "$T/victim1"); V2=$(sha256sum < "$T/victim2")
as_nobody mkdir "$P/trap"
as_nobody ln -s "$T/victim1" "$P/trap/run.lock"
as_nobody ln -s "$T/victim2" "$P/trap/report.json.tmp"
before=$(snap "$P/trap")
"$GAUNTLET" run "$SC" --out "$P/trap" --time-scale 600 > "$T/1.log" 2>&1; rc=$?
check "1: run --out a directory nobody made: exit 2 (got $rc)" [ $rc -eq 2 ]
check "1: the refusal names the owner" grep -q "owned by nobody" "$T/1.log"
check "1: root's files behind run.lock and report.json.tmp keep their bytes" \
	bash -c "[ \"\$(sha256sum < '$T/victim1')\" = '$V1' ] && [ \"\$(sha256sum < '$T/victim2')\" = '$V2' ]"
check "1: nothing written into the trap" [ "$(snap "$P/trap")" = "$before" ]

# --- 2. --out a link to a root directory ------------------------------------------
mkdir "$T/rootdir"; echo keep > "$T/rootdir/keep"
as_nobody ln -s "$T/rootdir" "$P/link"
"$GAUNTLET" run "$SC" --out "$P/link" --time-scale 600 > "$T/2.log" 2>&1; rc=$?
check "2: --out a symbolic link: exit 2 (got $rc)" [ $rc -eq 2 ]
check "2: the refusal says it is a link" grep -q "symbolic link" "$T/2.log"
check "2: nothing written through it" [ "$(ls "$T/rootdir")" = keep ]

# --- 3. root's own directories ---------------------------------------------------
mkdir -m 700 "$T/full"; touch "$T/full/x"
"$GAUNTLET" run "$SC" --out "$T/full" --time-scale 600 > "$T/3a.log" 2>&1; rc=$?
check "3: a non-empty directory: exit 2 (got $rc), naming it" bash -c "[ $rc -eq 2 ] && grep -q 'not empty' '$T/3a.log'"
mkdir -m 770 "$T/gw"; chmod 770 "$T/gw"
"$GAUNTLET" run "$SC" --out "$T/gw" --time-scale 600 > "$T/3b.log" 2>&1; rc=$?
check "3: a group-writable directory: exit 2 (got $rc), naming the mode" bash -c "[ $rc -eq 2 ] && grep -q 'mode 0770' '$T/3b.log'"
mkdir -m 700 "$T/empty"
"$GAUNTLET" run "$SC" --out "$T/empty" --time-scale 600 > "$T/3c.log" 2>&1; rc=$?
check "3: an empty 0700 directory of root's is taken: exit 0 (got $rc)" [ $rc -eq 0 ]
"$GAUNTLET" run "$SC" --out "$T/new/run" --time-scale 600 > "$T/3d.log" 2>&1; rc=$?
check "3: a new path is made: exit 0 (got $rc), 0700" bash -c "[ $rc -eq 0 ] && [ \"\$(stat -c %a '$T/new/run')\" = 700 ]"
check "3: every file the run wrote is 0600, no temporary file left" \
	bash -c "[ -s '$T/new/run/report.json' ] && [ -z \"\$(find '$T/new/run' -type f ! -perm 0600)\" ] && [ -z \"\$(find '$T/new/run' -name '*.tmp*')\" ]"

# --- 4. a store another user wrote ----------------------------------------------
EV=$T/evil.json
cat > "$EV" <<JSON
{ "name": "planted", "duration": "20h", "window": "1s",
  "hosts": { "localhost": { "local": true } },
  "workloads": { "null": { "rate": 10 } },
  "phases": [ { "name": "steady", "for": "20h" } ],
  "faults": [ { "id": "e1", "at": "10m", "for": "19h", "kind": "exec", "target": "localhost",
      "params": { "inject": ["true"], "revert": ["sh", "-c", "id > $P/pwned"] } } ],
  "targets": { "steady": { "null.ticks": ">= 1" } } }
JSON
chmod 644 "$EV"
setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups -- \
	"$GAUNTLET" run "$EV" --out "$P/planted" --time-scale 1000 > "$T/4.log" 2>&1 &   # $! is gauntlet
NB=$!; PIDS+=("$NB")
# (the fault is held from 0.6 s to 69 s of real time: the runs are killed
# with it injected however slowly a loaded machine starts them)
n=300; while [ $n -gt 0 ] && ! as_nobody "$GAUNTLET" status "$P/planted" 2>/dev/null | grep -q "e1 .* injected"; do sleep 0.1; n=$((n - 1)); done
kill -9 "$NB" 2>/dev/null; wait "$NB" 2>/dev/null
check "4: nobody's controller is dead (killed with its fault held)" bash -c "! kill -0 $NB 2>/dev/null"
check "4: nobody's run left its exec fault injected (the trap is armed)" \
	bash -c "setpriv --reuid=nobody --regid=$(id -g nobody) --clear-groups -- '$GAUNTLET' status '$P/planted' | grep -q 'e1 .* injected'"
as_nobody "$GAUNTLET" status "$P/planted" 2>&1 | grep -q "e1 .* injected" ||
	{ echo "   nobody's run:"; tail -5 "$T/4.log"; as_nobody "$GAUNTLET" status "$P/planted" 2>&1 | sed 's/^/   | /'; }
rm -f "$P/pwned"
before=$(snap "$P/planted")
for cmd in "revert" "revert --dry-run" "resume" "report" "status" "seal --repo $T/ev" "compare $P/planted"; do
	set -- $cmd
	"$GAUNTLET" "$1" "$P/planted" "${@:2}" > "$T/4c.log" 2>&1; rc=$?
	check "4: root's '$cmd' on nobody's store: exit 2 (got $rc), naming the owner" \
		bash -c "[ $rc -eq 2 ] && grep -q 'owned by nobody' '$T/4c.log'"
done
check "4: the planted revert never ran as root" [ ! -e "$P/pwned" ]
after=$(snap "$P/planted")
check "4: nothing in nobody's directory changed" [ "$after" = "$before" ]
[ "$after" = "$before" ] || diff <(echo "$before") <(echo "$after")
check "4: no evidence repository was made" [ ! -e "$T/ev" ]

# --- 5. root's store, tampered after the fact ------------------------------------
mkdir -m 700 "$T/s5"
"$GAUNTLET" run "$EV" --out "$T/s5/r" --time-scale 1000 > "$T/5.log" 2>&1 &
RB=$!; PIDS+=("$RB")
n=300; while [ $n -gt 0 ] && ! "$GAUNTLET" status "$T/s5/r" 2>/dev/null | grep -q "e1 .* injected"; do sleep 0.1; n=$((n - 1)); done
kill -9 "$RB" 2>/dev/null; wait "$RB" 2>/dev/null
check "5: root's run killed with its exec fault injected" bash -c "'$GAUNTLET' status '$T/s5/r' | grep -q 'e1 .* injected'"
rm -f "$P/pwned"
chmod g+w "$T/s5/r/run.db"
"$GAUNTLET" revert "$T/s5/r" > "$T/5a.log" 2>&1; rc=$?
check "5: a group-writable run.db: revert exits 2 (got $rc), naming the mode" bash -c "[ $rc -eq 2 ] && grep -q 'run.db: owned by root.*mode 0620' '$T/5a.log'"
chmod g-w "$T/s5/r/run.db"
# (a status above closed the last connection, which folds the WAL away:
# then an empty one is put there, as SQLite would leave it)
[ -e "$T/s5/r/run.db-wal" ] || : > "$T/s5/r/run.db-wal"
chown nobody "$T/s5/r/run.db-wal"
"$GAUNTLET" revert "$T/s5/r" > "$T/5b.log" 2>&1; rc=$?
check "5: a -wal file nobody owns: revert exits 2 (got $rc), naming it" bash -c "[ $rc -eq 2 ] && grep -q 'run.db-wal: owned by nobody' '$T/5b.log'"
chown root "$T/s5/r/run.db-wal"
check "5: the tampered store's revert never ran" [ ! -e "$P/pwned" ]

# --- 6. dry run, and a store from another host -------------------------------------
"$GAUNTLET" revert "$T/s5/r" --dry-run > "$T/6a.log" 2>&1; rc=$?
check "6: revert --dry-run: exit 0 (got $rc), the stored revert shown" bash -c "[ $rc -eq 0 ] && grep -q \"revert: sh -c 'id > $P/pwned'\" '$T/6a.log' && grep -q 'nothing was executed' '$T/6a.log'"
check "6: ...and not executed" [ ! -e "$P/pwned" ]
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE run SET hostname='elsewhere'\"); c.commit()" "$T/s5/r/run.db"
"$GAUNTLET" revert "$T/s5/r" > "$T/6b.log" 2>&1; rc=$?
check "6: a store from another host: its plans printed before revert runs them" \
	bash -c "[ $rc -eq 0 ] && grep -q \"host 'elsewhere'\" '$T/6b.log' && grep -q \"revert: sh -c 'id > $P/pwned'\" '$T/6b.log'"
check "6: ...and then reverted (the operator's own store)" [ -e "$P/pwned" ]
finish
