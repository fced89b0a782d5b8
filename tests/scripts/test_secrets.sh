#!/usr/bin/env bash
# test_secrets.sh - a secret never leaves the process that needs it. A run
# uses an API key (api_key_env) against a real `gauntlet target` that
# requires it (--api-key-env), with an exec fault whose command runs as a
# child of the controller, and the live metrics endpoint on. While it runs
# the test reads /proc/PID/cmdline and /proc/PID/environ of the controller
# and every process under it; afterwards it searches every byte the run
# left (store and its WAL, reports, logs, scrapes, what the child saw) for
# the key, and finds it nowhere. Controls: the key really was used (every
# request answered), and the target really checks it (a wrong key gets 401).
source "$(dirname "$0")/lib.sh"

SECRET="glsk-$(python3 -c 'import secrets; print(secrets.token_hex(16))')"
export GL_TEST_TARGET_KEY="$SECRET"
rm -f "$T/ready"
"$GAUNTLET" target --listen 127.0.0.1:0 --ready-file "$T/ready" --ttft-ms 10 --itl-ms 2 \
	--api-key-env GL_TEST_TARGET_KEY >"$T/target.log" 2>&1 &
TPID=$!
PIDS+=("$TPID")
unset GL_TEST_TARGET_KEY
wait_for "$T/ready" 10 || skip "gauntlet target cannot start"
ADDR=$(cat "$T/ready")
check "the target's own command line and environment hold no key (both read)" python3 - "$TPID" "$SECRET" <<'PY'
import sys
pid, key = sys.argv[1], sys.argv[2].encode()
cmd = open('/proc/%s/cmdline' % pid, 'rb').read()
env = open('/proc/%s/environ' % pid, 'rb').read()
print('target: %d bytes of command line, %d of environment' % (len(cmd), len(env)))
sys.exit(0 if b'target' in cmd and env and key not in cmd and key not in env else 1)
PY

scenario() { # scenario FILE KEYVAR
	cat > "$1" <<JSON
{
  "name": "secret-run",
  "duration": "24s",
  "window": "1s",
  "hosts": { "localhost": { "local": true } },
  "workloads": {
    "inference": { "endpoints": ["http://$ADDR/v1"], "api": "chat", "model": "gauntlet-target",
                   "api_key_env": "$2", "arrival": { "mode": "poisson", "rate": 20 },
                   "output_tokens": 8, "timeout": "10s" }
  },
  "phases": [ { "name": "warmup", "for": "4s" }, { "name": "steady", "for": "20s" } ],
  "faults": [ { "id": "child-env", "at": "8s", "for": "6s", "kind": "exec", "target": "localhost",
                "params": { "inject": ["sh", "-c", "cat /proc/self/environ > $T/child.environ; cat /proc/\$PPID/environ > $T/parent.environ 2>/dev/null; read x < $T/seen.fifo"],
                            "revert": ["sh", "-c", "env > $T/child-revert.env"] } } ],
  "targets": {
    "steady":   { "inference.ttft_ms.p99": "<= 5000", "inference.error_rate": "<= 0" },
    "degraded": { "inference.ttft_ms.p99": "<= 5000" },
    "recovery": { "recovery_s": "<= 30", "restore_s": "<= 30" }
  }
}
JSON
}
scenario "$T/s.json" GAUNTLET_TEST_API_KEY
# the fault's shell lives until the sampler below has seen it: it reads a
# line from this fifo, which the sampler writes once it sampled the shell
mkfifo "$T/seen.fifo"
export GAUNTLET_TEST_API_KEY="$SECRET"
"$GAUNTLET" run "$T/s.json" --out "$T/run" --time-scale 2 --metrics-listen 0 >"$T/run.log" 2>&1 &
RUN_PID=$!
PIDS+=("$RUN_PID")
unset GAUNTLET_TEST_API_KEY
# Every process under the controller, sampled until it ends. The
# controller's own environ only once its log has a line: it takes the
# secrets out of its environment (wiping the block /proc shows) right after
# reading the scenario, before it logs anything; until then the key is in
# the environment the operator gave it (the sanitizer build, slower to get
# there, can be sampled in that gap).
python3 - "$RUN_PID" "$T/procs" "$T/run.log" "$T/scrape" "$T/seen.fifo" <<'PY' &
import errno, os, re, sys, time, urllib.request
root, out, log, scrape, fifo = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
seen = {}
release = 0   # 1: the fault's shell sampled, to be told so; 2: told
def tell_shell():
    global release
    try:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as e:
        if e.errno == errno.ENXIO: return   # not reading yet: next round
        raise
    os.write(fd, b"seen\n"); os.close(fd); release = 2
n_scrapes = 0
def children():
    kids = {}
    for p in os.listdir('/proc'):
        if p.isdigit():
            try:
                ppid = int(open('/proc/%s/stat' % p).read().rsplit(')', 1)[1].split()[1])
                kids.setdefault(ppid, []).append(int(p))
            except Exception:
                pass
    tree, todo = [], [root]
    while todo:
        p = todo.pop()
        tree.append(p)
        todo += kids.get(p, [])
    return tree
early = 0
with open(out, 'wb') as f:
    while os.path.exists('/proc/%d' % root):
        logged = re.search(r'^(?:\r\x1b\[K)?\[ *[0-9.]+\] ', open(log).read(), re.M) is not None
        for p in children():
            for what in ('cmdline', 'environ'):
                if p == root and what == 'environ' and not logged:
                    early += 1
                    continue
                try:
                    data = open('/proc/%d/%s' % (p, what), 'rb').read()
                except Exception:
                    continue
                key = (p, what, data)
                if key not in seen:
                    seen[key] = 1
                    f.write(b'== %d %s\n' % (p, what.encode()) + data.replace(b'\0', b'\n') + b'\n')
                    if p != root and what == 'cmdline' and data.startswith(b'sh\0-c\0') and b'child.environ' in data and not release:
                        release = 1
        if release == 1:
            f.flush()
            tell_shell()
        m = re.search(r'http://[0-9.:]+/metrics', open(log).read())
        if m:
            try:
                with open(scrape, 'ab') as s:
                    s.write(urllib.request.urlopen(m.group(0), timeout=2).read())
                n_scrapes += 1
            except Exception:
                pass
        time.sleep(0.1)
print("sampled %d process snapshots (%d pids), %d scrapes; the controller's environ left out %d time(s) before its first log line"
      % (len(seen), len({k[0] for k in seen}), n_scrapes, early))
PY
SAMPLER=$!
wait "$RUN_PID"
rc=$?
wait "$SAMPLER"
check "the run passes (exit 0)" [ $rc -eq 0 ]
check "the key was used: requests answered, no error" json "$T/run/report.json" "r['metrics']['inference']['requests'] > 100 and r['metrics']['inference']['errors'] == 0 or sys.exit(1)"
check "the fault's child ran (its environment was captured)" [ -s "$T/child.environ" ]
check "the sampler saw the controller's children, the fault's shell among them, and the controller's own environ" python3 - "$T/procs" "$RUN_PID" <<'PY'
import re, sys
txt = open(sys.argv[1], 'rb').read().decode('utf-8', 'replace')
pids = set(int(p) for p in re.findall(r'^== (\d+) cmdline$', txt, re.M))
child = 'child.environ' in txt and re.search(r'^== (?!%s )\d+ cmdline\nsh\n-c\n' % sys.argv[2], txt, re.M)
print('sampled pids: %d; the fault\'s shell seen: %s' % (len(pids), bool(child)))
env = re.search(r'^== %s environ$' % sys.argv[2], txt, re.M)
print('the controller\'s own environ sampled after its first log line: %s' % bool(env))
sys.exit(0 if int(sys.argv[2]) in pids and len(pids) >= 2 and child and env else 1)
PY
check "what is searched below exists: the scrapes, the snapshots, what the child saw" \
	[ -s "$T/scrape" -a -s "$T/procs" -a -s "$T/child.environ" -a -s "$T/child-revert.env" -a -s "$T/run/report.json" ]
"$GAUNTLET" report "$T/run" >/dev/null 2>&1
leaks=$(grep -rlaF "$SECRET" "$T/run" "$T/run.log" "$T/procs" "$T/scrape" "$T/child.environ" "$T/child-revert.env" "$T"/parent.environ 2>/dev/null)
echo "searched: $(find "$T/run" -type f | wc -l) files of the run dir ($(du -sk "$T/run" | cut -f1) KiB), the log, $(grep -c '^== ' "$T/procs") process snapshots, the scrapes, the child's environment"
check "the key is nowhere in the run's outputs, logs, children or scrapes" [ -z "$leaks" ]
[ -n "$leaks" ] && echo "found in: $leaks"

# Control: the target checks the key, so the clean run above did send it.
scenario "$T/w.json" GAUNTLET_TEST_WRONG_KEY
GAUNTLET_TEST_WRONG_KEY=not-the-key "$GAUNTLET" run "$T/w.json" --out "$T/wrong" --time-scale 2 >"$T/wrong.log" 2>&1
rc=$?
check "a wrong key is refused by the target: preflight stops the run (exit $rc, HTTP 401)" \
	bash -c "[ $rc -eq 4 ] && grep -q 'answers GET /models: FAILED: HTTP 401' '$T/wrong.log'"
check "the wrong key is not in that run's log or store either (both there)" \
	bash -c "[ -s '$T/wrong/run.db' -a -s '$T/wrong.log' ] && ! grep -rqaF not-the-key '$T/wrong' '$T/wrong.log'"
finish
