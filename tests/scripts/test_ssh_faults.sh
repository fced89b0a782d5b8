#!/usr/bin/env bash
# test_ssh_faults.sh - faults over the ssh transport against a private sshd
# on 127.0.0.1: an exec fault injected, verified and reverted through ssh;
# the preflight gate refusing an unknown host key, a mismatching host key
# and an unreachable host before anything is injected, naming host and check.
source "$(dirname "$0")/lib.sh"
start_sshd || skip "$SSHD_WHY"
PORT=$SSHD_PORT
ssh-keygen -q -t ed25519 -N '' -f "$T/other_host_key"
echo "[127.0.0.1]:$PORT $(cut -d' ' -f1,2 "$T/other_host_key.pub")" > "$T/known_hosts_wrong"
: > "$T/known_hosts_empty"

scenario() { # FILE KNOWN_HOSTS PORT
	# 12 s and hold 1: the revert (claim the watcher, revert, verify, each
	# an ssh exec) and the healthy windows after it must fit in the run, or
	# restore_s is missing and the run fails (exit 1). With 8 s and the
	# default hold of 3 that can happen on a loaded machine.
	cat > "$1" <<JSON
{ "name": "ssh-faults", "duration": "12s", "window": "1s", "hold": 1,
  "hosts": { "remote": { "ssh": "root@127.0.0.1:$3", "key": "$T/client_key", "known_hosts": "$2" } },
  "workloads": { "null": { "rate": 50 } },
  "faults": [ { "id": "touch", "at": "1s", "for": "1s", "kind": "exec", "target": "remote",
                "params": { "inject": ["touch", "$T/remote.marker"],
                            "verify": ["test", "-e", "$T/remote.marker"],
                            "revert": ["rm", "-f", "$T/remote.marker"],
                            "verify_revert": ["test", "!", "-e", "$T/remote.marker"] } } ],
  "targets": { "steady": { "null.ticks": ">= 10" }, "degraded": { "null.ticks": ">= 10" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } } }
JSON
}

scenario "$T/ok.json" "$T/known_hosts" "$PORT"
"$GAUNTLET" run "$T/ok.json" --out "$T/ok" >"$T/ok.log" 2>&1; rc=$?
check "exec fault over ssh: run passes (exit 0)" [ $rc -eq 0 ]
log_unless $rc 0 "$T/ok.log"
check "exec fault over ssh: injected, verified, reverted, verified reverted" json "$T/ok/report.json" "(lambda f: (f['state'], f['verified'], f['verified_revert']) == ('reverted', True, True))(r['faults'][0]) or sys.exit(1)"
check "exec fault over ssh: preflight says the host key was verified" json "$T/ok/report.json" "any(p['ok'] and p['subject']=='host remote' and 'host key verified' in p['check'] for p in r['preflight']) or sys.exit(1)"
check "marker removed by the remote revert" [ ! -e "$T/remote.marker" ]

pf_case() { # NAME KNOWN_HOSTS PORT EXPECTED_TEXT
	scenario "$T/$1.json" "$2" "$3"
	"$GAUNTLET" run "$T/$1.json" --out "$T/$1" >"$T/$1.log" 2>&1; local rc=$?
	check "preflight $1: run stopped (exit 4)" [ $rc -eq 4 ]
	check "preflight $1: names host and check ('$4')" grep -q "preflight: host remote: reachable (ssh, host key verified): FAILED: .*$4" "$T/$1.log"
	check "preflight $1: nothing injected" bash -c "[ ! -e '$T/remote.marker' ] && grep -q '\"state\":\s*\"planned\"' '$T/$1/report.json'"
}
pf_case unknown-key "$T/known_hosts_empty" "$PORT" "not in known_hosts"
pf_case wrong-key "$T/known_hosts_wrong" "$PORT" "MISMATCH"
CLOSED=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1]); s.close()")
pf_case unreachable "$T/known_hosts" "$CLOSED" "connect"
finish
