#!/usr/bin/env bash
# test_ssh_faults.sh - faults over the ssh transport against a private sshd
# on 127.0.0.1: an exec fault injected, verified and reverted through ssh;
# the preflight gate refusing an unknown host key, a mismatching host key
# and an unreachable host before anything is injected, naming host and check.
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root to run a private sshd"
[ -x /usr/sbin/sshd ] || skip "/usr/sbin/sshd not installed (apt-get install openssh-server)"
command -v ssh-keygen >/dev/null || skip "ssh-keygen not installed"

ssh-keygen -q -t ed25519 -N '' -f "$T/host_key" || skip "ssh-keygen failed"
ssh-keygen -q -t ed25519 -N '' -f "$T/other_host_key"
ssh-keygen -q -t ed25519 -N '' -f "$T/client_key"
cp "$T/client_key.pub" "$T/authorized_keys"
chmod 600 "$T/authorized_keys"
PORT=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1]); s.close()")
cat > "$T/sshd_config" <<CFG
Port $PORT
ListenAddress 127.0.0.1
HostKey $T/host_key
AuthorizedKeysFile $T/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin yes
StrictModes no
UsePAM no
PidFile $T/sshd.pid
CFG
mkdir -p /run/sshd
/usr/sbin/sshd -D -e -f "$T/sshd_config" 2>"$T/sshd.log" &
PIDS+=("$!")
for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null && break; sleep 0.1; done
(exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null || { cat "$T/sshd.log"; skip "private sshd did not start"; }
echo "[127.0.0.1]:$PORT $(cut -d' ' -f1,2 "$T/host_key.pub")" > "$T/known_hosts"
echo "[127.0.0.1]:$PORT $(cut -d' ' -f1,2 "$T/other_host_key.pub")" > "$T/known_hosts_wrong"
: > "$T/known_hosts_empty"

scenario() { # FILE KNOWN_HOSTS PORT
	cat > "$1" <<JSON
{ "name": "ssh-faults", "duration": "8s", "window": "1s",
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
