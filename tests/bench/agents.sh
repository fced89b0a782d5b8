#!/usr/bin/env bash
# agents.sh - benchmark of load agents (docs/agents.md) against one
# `gauntlet target` on loopback. Not a pass/fail test and not in ctest: it
# prints figures side by side, then a summary (metric, measured, goal).
#
#   (c) the same load through 1, 2 and 4 agents (mpirun): aggregate
#       requests/s (non-streaming) and SSE events/s (streaming), with each
#       agent's CPU seconds, to show the work divides between them; the
#       one-process run (no agents) beside them
#   (d) the controller SIGKILLed while 2 agents run, then `resume`: requests
#       the server answered that no window counts, as seconds of each
#       agent's share (goal: at most 1 s per agent)
#
# Environment:
#   GAUNTLET=path            the binary (default: build/gauntlet)
#   GL_BENCH_RATE=R          non-streaming open-loop rate for (c) (default 6000/s)
#   GL_BENCH_SSE_RATE=R      streaming rate for (c), 50 tokens each (default 400/s)
#   GL_BENCH_SECONDS=S       length of each (c) run (default 12)
#   GL_BENCH_KEEP=1          keep the temp dir and print its path
#
# Every process it starts is killed on exit (by pid); all traffic is on
# 127.0.0.1; every run is bounded in time.
set -u

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
G=${GAUNTLET:-$REPO/build/gauntlet}
[ -x "$G" ] || { echo "bench: no gauntlet binary at $G (set GAUNTLET)" >&2; exit 2; }
command -v mpirun >/dev/null || { echo "bench: mpirun is needed (Debian: openmpi-bin)" >&2; exit 2; }
RATE=${GL_BENCH_RATE:-6000}
SSE_RATE=${GL_BENCH_SSE_RATE:-400}
SECS=${GL_BENCH_SECONDS:-12}
HZ=$(getconf CLK_TCK 2>/dev/null || echo 100)

W=$(mktemp -d /tmp/gl-bench-agents.XXXXXX)
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	sleep 0.3
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	if [ "${GL_BENCH_KEEP:-0}" = 1 ]; then echo "bench: kept $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
ulimit -n 65536 2>/dev/null

start_target() { # NAME flags...
	local name=$1 i
	shift
	"$G" target --listen 127.0.0.1:0 --ready-file "$W/$name.ready" --max-seqs 100000 \
		--prefill-us-per-token 0 "$@" >"$W/$name.target.log" 2>&1 &
	TPID=$!
	PIDS+=("$TPID")
	for i in $(seq 100); do [ -s "$W/$name.ready" ] && break; sleep 0.1; done
	[ -s "$W/$name.ready" ] || { echo "bench: target did not start" >&2; cat "$W/$name.target.log" >&2; exit 4; }
	ADDR=$(cat "$W/$name.ready")
}
stop_target() { kill "$TPID" 2>/dev/null; wait "$TPID" 2>/dev/null; }

# scenario FILE DURATION AGENTS(0 = none) STREAM RATE OUT_TOKENS
scenario() {
	python3 - "$@" "$ADDR" <<'PY'
import json, sys
path, dur, agents, stream, rate, out, addr = sys.argv[1:8]
inf = {"endpoints": ["http://%s/v1" % addr], "model": "gauntlet-target", "input_tokens": 16,
       "output_tokens": int(out), "timeout": "10s", "stream": stream == "1", "max_in_flight": 4096,
       "arrival": {"mode": "constant", "rate": float(rate)}}
if int(agents):
    inf["agents"] = {"launcher": "mpirun", "count": int(agents), "launcher_args": ["--oversubscribe"]}
sc = {"name": "bench-agents", "duration": dur, "window": "2s", "workloads": {"inference": inf},
      "targets": {"steady": {"inference.ttft_ms.p99": "<= 60000", "inference.error_rate": "<= 1", "agents.delivered_ratio": ">= 0"}}}
json.dump(sc, open(path, "w"))
PY
}

# Sample the CPU seconds of every process of the run that is gauntlet
# (the controller, agents) until it ends; prints "role pid cpu_s" lines.
watch_cpu() { # RUN_PID OUTFILE
	python3 - "$1" "$2" "$HZ" <<'PY'
import os, sys, time
run, out, hz = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
seen = {}
def cpu(p):
    s = open("/proc/%d/stat" % p).read().rsplit(")", 1)[1].split()
    return (int(s[11]) + int(s[12])) / hz
while os.path.exists("/proc/%d" % run):
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        p = int(d)
        try:
            env = open("/proc/%d/environ" % p, "rb").read().split(b"\0")
            exe = os.path.basename(os.readlink("/proc/%d/exe" % p))
        except OSError:
            continue
        if p == run:
            seen[p] = ("controller", cpu(p))
        elif exe == "gauntlet" and any(e.startswith(b"GAUNTLET_AGENT_INDEX=") for e in env):
            idx = [e for e in env if e.startswith(b"GAUNTLET_AGENT_INDEX=")][0].split(b"=")[1].decode()
            try:
                seen[p] = ("agent" + idx, cpu(p))
            except OSError:
                pass
    time.sleep(0.25)
with open(out, "w") as f:
    for p, (role, c) in sorted(seen.items(), key=lambda x: x[1][0]):
        f.write("%s %d %.2f\n" % (role, p, c))
PY
}

figures() { # RUN_DIR -> "requests tokens seconds"
	python3 - "$1" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1] + "/run.db")
f = lambda n: c.execute("select coalesce(sum(counter),0) from window_metrics where name=?", (n,)).fetchone()[0]
t = c.execute("select (max(end_ns)-min(start_ns))/1e9 from windows").fetchone()[0]
print(f("inference.requests"), f("inference.output_tokens_total"), t)
PY
}

echo "== (c) one load through 0 (in the controller), 1, 2 and 4 agents =="
printf "%-6s %-7s %12s %14s %10s  %s\n" mode agents "requests/s" "SSE events/s" "ctl cpu" "agent cpu seconds (each)"
declare -A RES
for mode in plain sse; do
	for n in 0 1 2 4; do
		start_target "c-$mode-$n" --ttft-ms 2 --itl-ms 1
		if [ $mode = plain ]; then scenario "$W/c.json" "${SECS}s" $n 0 "$RATE" 8
		else scenario "$W/c.json" "${SECS}s" $n 1 "$SSE_RATE" 50; fi
		"$G" run "$W/c.json" --out "$W/c-$mode-$n" >"$W/c-$mode-$n.log" 2>&1 &
		rp=$!
		PIDS+=("$rp")
		watch_cpu $rp "$W/c-$mode-$n.cpu"
		wait $rp
		stop_target
		read -r req tok secs < <(figures "$W/c-$mode-$n")
		ctl=$(awk '$1=="controller"{print $3}' "$W/c-$mode-$n.cpu")
		ag=$(awk '$1!="controller"{printf "%s%s", s, $3; s=" "}' "$W/c-$mode-$n.cpu")
		agsum=$(awk '$1!="controller"{t+=$3} END{printf "%.2f", t+0}' "$W/c-$mode-$n.cpu")
		rps=$(python3 -c "print('%.0f' % ($req / $secs))")
		eps=$(python3 -c "print('%.0f' % ($tok / $secs))")
		[ $mode = plain ] && eps=-
		printf "%-6s %-7s %12s %14s %10s  %s\n" $mode $n "$rps" "$eps" "$ctl" "${ag:--}"
		RES[$mode-$n]="$req $tok $secs $ctl $agsum"
	done
done
echo "(requests/s and events/s are what the windows counted; CPU is user+system of each process over the run;"
echo " the server shares this machine's cores: the aggregate is bounded by it, the per-agent CPU shows the division)"

echo
echo "== (d) the controller SIGKILLed while 2 agents run, then resume =="
start_target d --ttft-ms 2 --itl-ms 1
DRATE=500
scenario "$W/d.json" 24s 2 0 $DRATE 4
"$G" run "$W/d.json" --out "$W/d" >"$W/d.log" 2>&1 &
rp=$!
PIDS+=("$rp")
sleep 10
kill -9 $rp
wait $rp 2>/dev/null
sleep 2
"$G" resume "$W/d" >"$W/d.resume.log" 2>&1
rc=$?
served=$(python3 - "$ADDR" <<'PY'
import re, sys, urllib.request
t = urllib.request.urlopen("http://%s/metrics" % sys.argv[1], timeout=5).read().decode()
print(sum(int(m.group(1)) for m in re.finditer(r'gauntlet_target_requests_total\{endpoint="/v1/chat/completions",status="200"\} (\d+)', t)))
PY
)
stop_target
read -r req tok secs < <(figures "$W/d")
lost=$((served - req))
per_agent_s=$(python3 -c "print('%.2f' % ($lost / 2 / ($DRATE / 2)))")
echo "resume exit $rc; the server answered $served requests, the windows count $req: $lost not counted"
echo "that is $per_agent_s s of each agent's share ($DRATE/s over 2 agents; requests in flight at the kill and at the end included)"

echo
echo "== summary =="
printf "%-58s %14s %14s\n" metric measured goal
for mode in plain sse; do
	read -r r1 t1 s1 c1 a1 <<<"${RES[$mode-1]}"
	for n in 2 4; do
		read -r rn tn sn cn an <<<"${RES[$mode-$n]}"
		printf "%-58s %14s %14s\n" "(c) $mode: agent CPU per agent, $n agents vs 1" \
			"$(python3 -c "print('%.2f' % (($an / $n) / $a1 if $a1 > 0 else 0))")" "~1/$n"
	done
done
printf "%-58s %14s %14s\n" "(d) figures lost per agent after a controller SIGKILL" "$per_agent_s s" "<= 1 s"
