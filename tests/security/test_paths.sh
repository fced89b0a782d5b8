#!/usr/bin/env bash
# test_paths.sh - what a scenario may make root read, and secrets that
# would forge headers:
#  1. a scenario that grants itself /root (safety.allowed_roots) to read an
#     inventory there is refused: roots beyond the scenario's directory
#     come from the operator (--allow-root, GL_ALLOWED_ROOTS), and then it
#     is taken; a bad GL_ALLOWED_ROOTS is an error;
#  2. drain_worker's token_file, and an ssh host's key and known_hosts,
#     outside the roots are refused by validate, naming the key;
#  3. an api_key_file holding "abc\r\nX-Injected: yes" (and the same in
#     api_key_env) is refused before any request: the target never sees the
#     injected header.
. "$(dirname "$0")/../scripts/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root: the private directory is made under /root"
[ -x "$GAUNTLET" ] || skip "no gauntlet binary at $GAUNTLET"
R=$(mktemp -d /root/gl-sec-paths.XXXXXX) || skip "cannot make a directory under /root"
trap 'rm -rf "$R"; cleanup' EXIT
echo '{ "hosts": {}, "secret": "root-only-value" }' > "$R/inv.json"

# --- 1. roots come from the operator ---------------------------------------------
cat > "$T/grab.json" <<JSON
{ "name": "grab", "duration": "4s", "window": "1s", "hosts": { "localhost": { "local": true } },
  "inventory": "$R/inv.json",
  "workloads": { "null": { "rate": 20 } },
  "phases": [ { "name": "steady", "for": "4s" } ],
  "targets": { "steady": { "null.ticks": ">= 5" } },
  "safety": { "allowed_roots": ["$R"] } }
JSON
"$GAUNTLET" validate "$T/grab.json" > "$T/1a.log" 2>&1; rc=$?
check "1: a scenario granting itself $R: validate exits 2 (got $rc)" [ $rc -eq 2 ]
check "1: ...saying a scenario cannot, the operator can" grep -q "operator allows more with --allow-root DIR or GL_ALLOWED_ROOTS (a scenario cannot)" "$T/1a.log"
"$GAUNTLET" run "$T/grab.json" --out "$T/grab-run" > "$T/1b.log" 2>&1; rc=$?
check "1: run refuses it too (exit $rc), nothing stored" bash -c "[ $rc -eq 2 ] && [ ! -e '$T/grab-run/run.db' ]"
"$GAUNTLET" validate "$T/grab.json" --allow-root "$R" > "$T/1c.log" 2>&1; rc=$?
check "1: --allow-root $R from the operator lets it in (exit $rc)" [ $rc -eq 0 ]
GL_ALLOWED_ROOTS="/nonexistent-x:$R" "$GAUNTLET" validate "$T/grab.json" > "$T/1d.log" 2>&1; rc=$?
check "1: GL_ALLOWED_ROOTS with a missing directory is an error naming it (exit $rc)" \
	bash -c "[ $rc -eq 2 ] && grep -q 'GL_ALLOWED_ROOTS: allowed root ./nonexistent-x.' '$T/1d.log'"
GL_ALLOWED_ROOTS="$R" "$GAUNTLET" validate "$T/grab.json" > "$T/1e.log" 2>&1; rc=$?
check "1: GL_ALLOWED_ROOTS=$R lets it in (exit $rc)" [ $rc -eq 0 ]
"$GAUNTLET" validate "$T/grab.json" --allow-root / > "$T/1f.log" 2>&1; rc=$?
check "1: --allow-root / is refused (exit $rc)" bash -c "[ $rc -eq 2 ] && grep -q 'never a root' '$T/1f.log'"

# --- 2. token files, ssh keys and known_hosts are confined ------------------------
echo "tok" > "$R/token"; echo "key" > "$R/id"; : > "$R/known_hosts"
cat > "$T/tok.json" <<JSON
{ "name": "tok", "duration": "4s", "window": "1s", "hosts": { "w1": { "local": true } },
  "workloads": { "null": { "rate": 20 } },
  "phases": [ { "name": "steady", "for": "4s" } ],
  "faults": [ { "id": "d1", "at": "1s", "for": "1s", "kind": "drain_worker", "method": "kubernetes", "target": "w1",
    "params": { "api": "https://127.0.0.1:6443", "node": "w1", "token_file": "$R/token" } } ],
  "targets": { "steady": { "null.ticks": ">= 5" }, "degraded": { "null.ticks": ">= 1" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } } }
JSON
"$GAUNTLET" validate "$T/tok.json" > "$T/2a.log" 2>&1; rc=$?
check "2: drain_worker token_file under /root: validate exits 2 (got $rc) naming faults[0].params.token_file" \
	bash -c "[ $rc -eq 2 ] && grep -q 'faults\[0\].params.token_file: $R/token resolves to' '$T/2a.log'"
cat > "$T/ssh.json" <<JSON
{ "name": "sshk", "duration": "4s", "window": "1s", "hold": 1,
  "hosts": { "remote": { "ssh": "root@127.0.0.1:22", "key": "$R/id", "known_hosts": "$R/known_hosts" } },
  "workloads": { "null": { "rate": 20 } },
  "phases": [ { "name": "steady", "for": "4s" } ],
  "faults": [ { "id": "x", "at": "1s", "for": "1s", "kind": "exec", "target": "remote",
    "params": { "inject": ["true"], "revert": ["true"] } } ],
  "targets": { "steady": { "null.ticks": ">= 5" }, "degraded": { "null.ticks": ">= 1" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } } }
JSON
"$GAUNTLET" validate "$T/ssh.json" > "$T/2b.log" 2>&1; rc=$?
check "2: ssh key and known_hosts under /root: exit 2 (got $rc), each named" \
	bash -c "[ $rc -eq 2 ] && grep -q 'hosts.remote.key: $R/id resolves to' '$T/2b.log' && grep -q 'hosts.remote.known_hosts: $R/known_hosts resolves to' '$T/2b.log'"
"$GAUNTLET" validate "$T/ssh.json" --allow-root "$R" > "$T/2c.log" 2>&1; rc=$?
check "2: with --allow-root $R the same scenario validates (exit $rc)" [ $rc -eq 0 ]

# --- 3. secrets holding control characters -----------------------------------------
start_target target --ttft-ms 5 --itl-ms 1 --output-tokens 4
printf 'abc\r\nX-Injected: yes\n' > "$T/key.txt"
keyrun() { # NAME KEY-SOURCE-JSON
	cat > "$T/$1.json" <<JSON
{ "name": "$1", "duration": "4s", "window": "1s", "hosts": { "localhost": { "local": true } },
  "workloads": { "inference": { "endpoints": ["http://$ADDR/v1"], "model": "gauntlet-target", $2,
     "output_tokens": 4, "arrival": { "mode": "constant", "rate": 5 } } },
  "phases": [ { "name": "steady", "for": "4s" } ],
  "targets": { "steady": { "inference.ttft_ms.p99": "<= 5000", "inference.error_rate": "<= 0.1" } } }
JSON
	"$GAUNTLET" run "$T/$1.json" --out "$T/$1-run" > "$T/$1.log" 2>&1
}
keyrun kfile '"api_key_file": "key.txt"'; rc=$?
check "3: api_key_file with CR LF inside: the run refuses it (exit $rc), naming the file and the byte" \
	bash -c "[ $rc -ne 0 ] && [ $rc -ne 1 ] && grep -q 'key.txt: the secret holds a control character (byte 4)' '$T/kfile.log'"
check "3: ...and the key is not in the log" bash -c "! grep -q 'X-Injected' '$T/kfile.log'"
SEC_KEY=$(printf 'abc\r\nX-Injected: yes') keyrun kenv '"api_key_env": "SEC_KEY"'; rc=$?
check "3: the same in api_key_env: refused (exit $rc), naming the variable" \
	bash -c "[ $rc -ne 0 ] && [ $rc -ne 1 ] && grep -q 'the variable SEC_KEY holds a control character (byte 4)' '$T/kenv.log'"
sent() { [ -e "$1/run.db" ] && sql "$1/run.db" "select count(*) from requests" || echo 0; }
check "3: no request was sent by either run ($(sent "$T/kfile-run"), $(sent "$T/kenv-run"))" \
	[ "$(sent "$T/kfile-run")$(sent "$T/kenv-run")" = 00 ]
finish
