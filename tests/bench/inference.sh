#!/usr/bin/env bash
# inference.sh - benchmark of the inference load generator (loadgen/inference.c)
# against the bundled target server (`gauntlet target`). Not a pass/fail test
# and not registered in ctest: it prints figures and ratios side by side, then
# a summary table (metric, measured, goal, met/missed). A missed goal is
# printed as missed; the exit status is 0 whenever every part ran.
#
#   (a) SSE content events per client CPU-second, closed loop of 1,000 and
#       5,000 concurrent streams (goal >= 150,000 per core)
#   (b) open-loop dispatch lag (send_lag_ms) p99 at 2,000 req/s (goal < 1 ms)
#   (c) non-streaming requests/s against the same server and connection count
#       as wrk, as a ratio (goal >= 0.7 of wrk, recording every request);
#       and requests per client CPU-second (requests/s over the client's share
#       of a core, CPU from /proc/PID/stat utime+stime of the client process
#       only, over the same 2-13 s window) of both, as a ratio (goal >= 0.5
#       of wrk's)
#   (d) memory per in-flight stream (goal <= 16 KiB) and RSS flat at
#       1,000 req/s: 60 s by default, the full 20 minutes with GL_BENCH_LONG=1
#
# Environment:
#   GAUNTLET=path        the binary (default: build/gauntlet, else /tmp/b/gauntlet)
#   GL_BENCH_LONG=1      RSS-flat run for 20 minutes instead of 60 s
#   GL_BENCH_CONNS=C     connections for (c) (default 64)
#   GL_BENCH_WRK_THREADS wrk threads for (c) (default 1: gauntlet is one thread)
#   GL_BENCH_C_RUNS=N    run (c) N times (default 1); the summary shows the median
#                        run of each ratio (a shared machine moves one run by 20 %)
#   GL_BENCH_PIN=1       pin the client (gauntlet, wrk) to CPU 0 and the server to the
#                        last CPU (default off: on a shared machine a pinned client
#                        waits for CPU 0 while another CPU is idle)
#   GL_BENCH_KEEP=1      keep the temp dir (run stores, logs) and print its path
#   GL_BENCH_PARTS="a b c d e"  the parts to run (e: the RSS-flat run of (d))
#   GL_BENCH_CLIENT=auto|curl   the inference workload's "client" (default auto: the
#                        own HTTP/1.1 client on this loopback endpoint; curl: libcurl,
#                        to hold the two side by side)
#   GL_BENCH_STORE=all|sample   the store's request rows: every one (default, what
#                        (c)'s goal asks) or the default retention (docs/store.md)
#
# Every process it starts is killed on exit (by pid); all traffic is on
# 127.0.0.1; every run is bounded in time.
set -u

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
STORE_REQ=${GL_BENCH_STORE:-all}
CLIENT=${GL_BENCH_CLIENT:-auto}
case $CLIENT in auto|curl) ;; *) echo "bench: GL_BENCH_CLIENT is auto or curl" >&2; exit 2 ;; esac
case $STORE_REQ in all|sample) ;; *) echo "bench: GL_BENCH_STORE is all or sample" >&2; exit 2 ;; esac
G=${GAUNTLET:-}
if [ -z "$G" ]; then
	for c in "$REPO/build/gauntlet" /tmp/b/gauntlet; do
		if [ -x "$c" ]; then G=$c; break; fi
	done
fi
if [ -z "$G" ] || [ ! -x "$G" ]; then
	echo "bench: no gauntlet binary (build it with scripts/setup.sh, or set GAUNTLET)" >&2
	exit 2
fi
command -v python3 >/dev/null || { echo "bench: python3 is needed to read reports" >&2; exit 2; }

W=$(mktemp -d /tmp/gl-bench.XXXXXX)
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do
		for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null
	done
	if [ "${GL_BENCH_KEEP:-0}" = 1 ]; then echo "bench: kept $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Enough descriptors for 5,000 streams (client side; the server is a child too).
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null
NOFILE=$(ulimit -n)

NCPU=$(nproc 2>/dev/null || echo 1)
HZ=$(getconf CLK_TCK 2>/dev/null || echo 100)
CLIENT_PIN=()
SERVER_PIN=()
if [ "${GL_BENCH_PIN:-0}" = 1 ] && [ "$NCPU" -ge 2 ] && command -v taskset >/dev/null; then
	CLIENT_PIN=(taskset -c 0)
	SERVER_PIN=(taskset -c $((NCPU - 1)))
fi

# ---- helpers ----------------------------------------------------------------

now() { date +%s.%N; }
# CPU seconds (user+system) a live process has used so far.
cpu_s() { # PID
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
	s=${s##*) }                  # past "pid (comm) "
	set -- $s                    # $1 = state (field 3): utime = field 14 = $12
	awk -v u="${12}" -v k="${13}" -v hz="$HZ" 'BEGIN { printf "%.2f\n", (u + k) / hz }'
}
# ns spent waiting on a run queue (runnable, not running): other load on the CPU
rq_wait_ns() { awk '{print $2}' "/proc/$1/schedstat" 2>/dev/null || echo 0; }
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null; }
socks() { find "/proc/$1/fd" -lname 'socket:*' 2>/dev/null | wc -l; }
sleep_until() { # absolute epoch seconds (fractional)
	local d
	d=$(python3 -c "import sys; print(max(0.0, float(sys.argv[1]) - float(sys.argv[2])))" "$1" "$(now)")
	sleep "$d"
}
calc() { python3 -c "import sys; print($1)" "${@:2}"; }
# jq-like: json FILE 'python expression over r'
json() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"; }
sql() { python3 -c "
import sqlite3,sys
c=sqlite3.connect(sys.argv[1])
for row in c.execute(sys.argv[2], sys.argv[3:]): print('|'.join('' if v is None else str(v) for v in row))" "$@"; }

TPID=
TPORT=
start_target() { # NAME target-flags...
	local name=$1 i
	shift
	rm -f "$W/$name.ready"
	"${SERVER_PIN[@]}" "$G" target --listen 127.0.0.1:0 --ready-file "$W/$name.ready" \
		--max-seqs 100000 --prefill-us-per-token 0 "$@" > "$W/$name.target.log" 2>&1 &
	TPID=$!
	PIDS+=("$TPID")
	for i in $(seq 100); do [ -s "$W/$name.ready" ] && break; sleep 0.1; done
	if [ ! -s "$W/$name.ready" ]; then
		echo "bench: target did not start; its log:" >&2
		cat "$W/$name.target.log" >&2
		exit 4
	fi
	TPORT=$(sed -n 's/.*:\([0-9]*\)$/\1/p' "$W/$name.ready")
}
stop_target() {
	kill "$TPID" 2>/dev/null
	for _ in $(seq 30); do kill -0 "$TPID" 2>/dev/null || break; sleep 0.1; done
	kill -9 "$TPID" 2>/dev/null
	wait "$TPID" 2>/dev/null
	TPID=
}

# scenario FILE DURATION ARRIVAL_JSON STREAM OUTPUT_TOKENS MAX_IN_FLIGHT
scenario() {
	cat > "$1" <<JSON
{
  "name": "bench-inference",
  "duration": "$2",
  "window": "1s",
  "store": { "requests": "$STORE_REQ" },
  "workloads": {
    "inference": {
      "endpoints": ["http://127.0.0.1:$TPORT/v1"],
      "model": "gauntlet-target",
      "arrival": $3,
      "input_tokens": 16,
      "output_tokens": $5,
      "max_in_flight": $6,
      "stream": $4,
      "client": "$CLIENT",
      "timeout": "600s"
    }
  },
  "targets": { "steady": { "inference.ttft_ms.p99": "<= 1000000", "inference.error_rate": "<= 1" } }
}
JSON
}

GPID=
LAUNCH=
start_gauntlet() { # NAME SCENARIO
	LAUNCH=$(now)
	"${CLIENT_PIN[@]}" "$G" run "$2" --out "$W/$1" > "$W/$1.log" 2>&1 &
	GPID=$!
	PIDS+=("$GPID")
}
# Wait for a child at most until LAUNCH + LIMIT seconds; then TERM, then KILL.
wait_bounded() { # PID LIMIT_S
	local deadline
	deadline=$(calc 'float(sys.argv[1]) + float(sys.argv[2])' "$LAUNCH" "$2")
	while kill -0 "$1" 2>/dev/null && [ "$(calc 'float(sys.argv[1]) < float(sys.argv[2])' "$(now)" "$deadline")" = True ]; do
		sleep 0.5
	done
	if kill -0 "$1" 2>/dev/null; then
		echo "bench: pid $1 ran past $2 s; stopping it" >&2
		kill "$1" 2>/dev/null; sleep 2; kill -9 "$1" 2>/dev/null
	fi
	wait "$1"
}
wait_gauntlet() { # NAME [LIMIT_S]
	local rc
	wait_bounded "$GPID" "${2:-90}"; rc=$?
	GPID=
	if [ "$rc" -gt 1 ] || [ ! -s "$W/$1/report.json" ]; then
		echo "bench: gauntlet run $1 failed (exit $rc); its log:" >&2
		tail -20 "$W/$1.log" >&2
		exit 4
	fi
}
# run start (report.run.started) minus our launch time, in seconds
start_offset() { # NAME
	python3 - "$W/$1/report.json" "$LAUNCH" <<'PY'
import json, sys, datetime
r = json.load(open(sys.argv[1]))
s = datetime.datetime.strptime(r["run"]["started"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
print(max(0.0, s.timestamp() - float(sys.argv[2])))
PY
}
# CPU share of one core (percent) of each PID between START+A and START+B
# seconds (epoch START); sets PCT[pid] (rounded), CPUF[pid] (the share of a
# core, unrounded: 0.97 for 97 %), and RQW[pid]: ms per second it spent
# runnable but waiting for a CPU (other load). Returns when B has passed.
declare -A PCT CPUF RQW
cpu_window() { # START A B PID...
	local start=$1 a=$2 b=$3 p w1 w2
	declare -A c1 q1
	shift 3
	sleep_until "$(calc 'float(sys.argv[1]) + float(sys.argv[2])' "$start" "$a")"
	w1=$(now); for p in "$@"; do c1[$p]=$(cpu_s "$p"); q1[$p]=$(rq_wait_ns "$p"); done
	sleep_until "$(calc 'float(sys.argv[1]) + float(sys.argv[2])' "$start" "$b")"
	w2=$(now)
	for p in "$@"; do
		CPUF[$p]=$(calc '(float(sys.argv[1]) - float(sys.argv[2])) / (float(sys.argv[3]) - float(sys.argv[4]))' \
			"$(cpu_s "$p")" "${c1[$p]}" "$w2" "$w1")
		PCT[$p]=$(calc 'round(100 * (float(sys.argv[1]) - float(sys.argv[2])) / (float(sys.argv[3]) - float(sys.argv[4])))' \
			"$(cpu_s "$p")" "${c1[$p]}" "$w2" "$w1")
		RQW[$p]=$(calc 'round((int(sys.argv[1]) - int(sys.argv[2])) / 1e6 / (float(sys.argv[3]) - float(sys.argv[4])), 1)' \
			"$(rq_wait_ns "$p")" "${q1[$p]}" "$w2" "$w1")
	done
}
PARTS=" ${GL_BENCH_PARTS:-a b c d e} "
want() { case "$PARTS" in *" $1 "*) return 0 ;; esac; return 1; }
f3() { printf '%.3f' "$1"; }

# Summary rows: metric|measured|goal|verdict
SUMMARY=()
row() { SUMMARY+=("$1|$2|$3|$4"); }
verdict() { # python boolean expression
	if [ "$(calc "$1")" = True ]; then echo met; else echo MISSED; fi
}

echo "gauntlet inference benchmark"
echo "  binary:   $G ($("$G" version 2>/dev/null | head -1))"
echo "  host:     $(uname -n), $NCPU CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), nofile $NOFILE"
if [ ${#CLIENT_PIN[@]} -gt 0 ]; then
	echo "  pinning:  client (gauntlet, wrk) on CPU 0, server (gauntlet target) on CPU $((NCPU - 1))"
else
	echo "  pinning:  none (client and server share the CPUs; GL_BENCH_PIN=1 pins them)"
fi
echo "  temp dir: $W"
echo

# ---- (a) SSE content events per client CPU-second ------------------------------
if want a; then
# Closed loop of N users against a target streaming 200 tokens 5 ms apart.
# CPU of both processes is read from /proc at 6 s and 18 s of a 20 s run;
# events are the output tokens of the requests that ended in that interval
# (steady state: requests ending per second x tokens = events per second).
echo "== (a) SSE content events per client CPU-second (closed loop, 200 tokens, itl 5 ms) =="
printf '  %-8s %10s %11s %11s %10s %8s %14s %7s\n' streams events/s client-cpu server-cpu rq-wait sockets events/cpu-s errors
for N in 1000 5000; do
	start_target "a$N" --ttft-ms 1 --itl-ms 5 --output-tokens 200
	scenario "$W/a$N.json" 20s "{ \"mode\": \"closed\", \"users\": $N }" true 200 "$N"
	start_gauntlet "a$N" "$W/a$N.json"
	sleep_until "$(calc 'float(sys.argv[1]) + 6' "$LAUNCH")"
	c1=$(cpu_s "$GPID"); s1=$(cpu_s "$TPID"); q1=$(rq_wait_ns "$GPID"); w1=$(now)
	sleep_until "$(calc 'float(sys.argv[1]) + 12' "$LAUNCH")"
	sk=$(socks "$GPID")
	sleep_until "$(calc 'float(sys.argv[1]) + 18' "$LAUNCH")"
	c2=$(cpu_s "$GPID"); s2=$(cpu_s "$TPID"); q2=$(rq_wait_ns "$GPID"); w2=$(now)
	wait_gauntlet "a$N"
	stop_target
	off=$(start_offset "a$N")
	t1=$(calc 'int((float(sys.argv[1]) - float(sys.argv[2]) - float(sys.argv[3])) * 1e9)' "$w1" "$LAUNCH" "$off")
	t2=$(calc 'int((float(sys.argv[1]) - float(sys.argv[2]) - float(sys.argv[3])) * 1e9)' "$w2" "$LAUNCH" "$off")
	ev=$(sql "$W/a$N/run.db" "select coalesce(sum(output_tokens),0) from requests where error_class is null and t_end_ns >= ? and t_end_ns < ?" "$t1" "$t2")
	errs=$(json "$W/a$N/report.json" "r['metrics']['inference']['errors']")
	wall=$(calc 'float(sys.argv[1]) - float(sys.argv[2])' "$w2" "$w1")
	ccpu=$(calc 'float(sys.argv[1]) - float(sys.argv[2])' "$c2" "$c1")
	scpu=$(calc 'float(sys.argv[1]) - float(sys.argv[2])' "$s2" "$s1")
	eps=$(calc 'int(float(sys.argv[1]) / float(sys.argv[2]))' "$ev" "$wall")
	epc=$(calc 'int(float(sys.argv[1]) / max(float(sys.argv[2]), 1e-9))' "$ev" "$ccpu")
	printf '  %-8s %10s %10s%% %10s%% %10s %8s %14s %7s\n' "$N" "$eps" \
		"$(calc 'round(100 * float(sys.argv[1]) / float(sys.argv[2]))' "$ccpu" "$wall")" \
		"$(calc 'round(100 * float(sys.argv[1]) / float(sys.argv[2]))' "$scpu" "$wall")" \
		"$(calc 'round((int(sys.argv[1]) - int(sys.argv[2])) / 1e6 / float(sys.argv[3]), 1)' "$q2" "$q1" "$wall")" \
		"$sk" "$epc" "$errs"
	row "(a) SSE events per client CPU-s, $N streams" "$epc" ">= 150000" "$(verdict "$epc >= 150000")"
done
echo "  (client-cpu / server-cpu: share of one core over the interval; rq-wait: ms per second the"
echo "   client was runnable but had no CPU (other load); sockets: the client's, at 12 s)"
echo
fi

# ---- (b) open-loop dispatch lag at 2,000 req/s ----------------------------------
if want b; then
echo "== (b) open-loop dispatch lag, constant 2,000 req/s for 15 s, 1-token streams =="
start_target b --ttft-ms 0 --itl-ms 0 --output-tokens 1
scenario "$W/b.json" 15s '{ "mode": "constant", "rate": 2000 }' true 1 5000
start_gauntlet b "$W/b.json"
cpu_window "$LAUNCH" 2 13 "$GPID" "$TPID"
bccpu=${PCT[$GPID]} bscpu=${PCT[$TPID]} brqw=${RQW[$GPID]}
wait_gauntlet b
stop_target
read -r breq berr brps lag50 lag99 lag999 lagmax sat tfs50 tfs99 < <(python3 - "$W/b/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
m = r["metrics"]["inference"]; l = m["send_lag_ms"]; t = m["ttft_from_send_ms"]
print(m["requests"], m["errors"], round(m["throughput_rps"], 1), l["p50"], l["p99"], l["p99.9"], l["max"],
      r["run"].get("generator_saturated"), t["p50"], t["p99"])
PY
)
echo "  requests $breq, errors $berr, throughput $brps req/s, generator_saturated $sat; client cpu ${bccpu}%, server cpu ${bscpu}%"
echo "  send_lag_ms: p50 $(f3 "$lag50")  p99 $(f3 "$lag99")  p99.9 $(f3 "$lag999")  max $(f3 "$lagmax")"
echo "  client run-queue wait (runnable, no CPU: other load on the machine) ${brqw} ms per second"
echo "  (context, not a goal: ttft_from_send_ms p50 $(f3 "$tfs50") p99 $(f3 "$tfs99") against a target with ttft 0)"
python3 - "$W/b/run.db" <<'PY'
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute(
    "select t_intended_ns / 1000000000, count(*), max(t_send_ns - t_intended_ns) from requests "
    "where t_send_ns is not null group by 1 order by 1").fetchall()
print("  worst send lag per second of the run (ms): " +
      " ".join("%d:%.1f" % (s, m / 1e6) for s, n, m in rows))
PY
row "(b) send_lag_ms p99 at 2000 req/s" "$(f3 "$lag99") ms" "< 1 ms" "$(verdict "$lag99 < 1")"
echo
fi

# ---- (c) non-streaming requests/s versus wrk -------------------------------------
if want c; then
C=${GL_BENCH_CONNS:-64}
WT=${GL_BENCH_WRK_THREADS:-1}
echo "== (c) non-streaming requests/s, $C connections, 15 s each, same target (1 token, no delay) =="
if ! command -v wrk >/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "  installing wrk (Debian package)"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk > "$W/apt.log" 2>&1 ||
			{ DEBIAN_FRONTEND=noninteractive apt-get update -qq > /dev/null 2>&1;
			  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk > "$W/apt.log" 2>&1; }
	fi
fi
CRUNS=${GL_BENCH_C_RUNS:-1}
CR=() CP=() CNOTE=
for crun in $(seq "$CRUNS"); do
CN=c
[ "$crun" -gt 1 ] && CN=c$crun   # each run its own run dir (a run starts in an empty one)
[ "$CRUNS" -gt 1 ] && echo "  -- run $crun of $CRUNS"
start_target "$CN" --ttft-ms 0 --itl-ms 0 --output-tokens 1
scenario "$W/$CN.json" 15s "{ \"mode\": \"closed\", \"users\": $C }" false 1 "$C"
start_gauntlet "$CN" "$W/$CN.json"
cpu_window "$LAUNCH" 2 13 "$GPID" "$TPID"
gccpu=${PCT[$GPID]} gscpu=${PCT[$TPID]} gcrqw=${RQW[$GPID]} gcf=${CPUF[$GPID]}
wait_gauntlet "$CN"
read -r grps greq gerr grows < <(python3 - "$W/$CN/report.json" "$W/$CN/run.db" <<'PY'
import json, sqlite3, sys
m = json.load(open(sys.argv[1]))["metrics"]["inference"]
rows = sqlite3.connect(sys.argv[2]).execute("select count(*) from requests").fetchone()[0]
print(round(m["throughput_rps"], 1), m["requests"], m["errors"], rows)
PY
)
echo "  gauntlet: $grps req/s ($greq requests, $gerr errors, $grows rows in the store's requests table;"
echo "            client cpu ${gccpu}%, server cpu ${gscpu}%, client run-queue wait ${gcrqw} ms/s)"
if command -v wrk >/dev/null; then
	python3 - "$W/body.json" <<'PY'
import json, sys
words = " ".join("w%d" % i for i in range(16))
json.dump({"model": "gauntlet-target", "messages": [{"role": "user", "content": words}],
           "max_tokens": 1, "min_tokens": 1, "ignore_eos": True, "stream": False},
          open(sys.argv[1], "w"), separators=(",", ":"))
PY
	cat > "$W/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json"
local f = io.open("$W/body.json", "r")
wrk.body = f:read("*a")
f:close()
LUA
	WL=$(now) LAUNCH=$WL
	"${CLIENT_PIN[@]}" wrk -t "$WT" -c "$C" -d 15s -s "$W/post.lua" \
		"http://127.0.0.1:$TPORT/v1/chat/completions" > "$W/wrk.log" 2>&1 &
	WPID=$!
	PIDS+=("$WPID")
	cpu_window "$WL" 2 13 "$WPID" "$TPID"
	wccpu=${PCT[$WPID]} wscpu=${PCT[$TPID]} wcrqw=${RQW[$WPID]} wcf=${CPUF[$WPID]}
	wait_bounded "$WPID" 60
	wrps=$(awk '/^Requests\/sec:/ {print $2}' "$W/wrk.log")
	wbad=$(awk '/Non-2xx or 3xx responses:/ {print $NF} /Socket errors:/ {print}' "$W/wrk.log" | tr '\n' ' ')
	echo "  wrk:      ${wrps:-?} req/s (-t $WT -c $C; ${wbad:-no errors}; client cpu ${wccpu}%, server cpu ${wscpu}%,"
	echo "            client run-queue wait ${wcrqw} ms/s)"
	if [ -n "$wrps" ]; then
		ratio=$(calc 'round(float(sys.argv[1]) / float(sys.argv[2]), 3)' "$grps" "$wrps")
		if [ "$STORE_REQ" != all ]; then rec="no: $grows rows kept by the store's default retention"
		elif [ "$grows" = "$greq" ]; then rec="yes, $grows rows"
		elif [ "$grows" -gt "$greq" ]; then rec="yes, but the store has $grows rows and the report counts $greq requests"
		else rec="NO: $grows rows for $greq requests"; fi
		echo "  ratio gauntlet/wrk: $ratio  (every request recorded in the store: $rec)"
		CR+=("$ratio $grps $wrps $([ "$grows" -ge "$greq" ] && echo True || echo False)")
		# requests per client CPU-second: req/s over the client's share of a core
		gpc=$(calc 'int(float(sys.argv[1]) / max(float(sys.argv[2]), 1e-9))' "$grps" "$gcf")
		wpc=$(calc 'int(float(sys.argv[1]) / max(float(sys.argv[2]), 1e-9))' "$wrps" "$wcf")
		cratio=$(calc 'round(float(sys.argv[1]) / max(float(sys.argv[2]), 1e-9), 3)' "$gpc" "$wpc")
		echo "  requests per client CPU-second: gauntlet $gpc (${grps} req/s at $(calc 'round(100 * float(sys.argv[1]), 1)' "$gcf")% of a core),"
		echo "            wrk $wpc (${wrps} req/s at $(calc 'round(100 * float(sys.argv[1]), 1)' "$wcf")% of a core); ratio gauntlet/wrk: $cratio"
		CP+=("$cratio $gpc $wpc")
	else
		echo "  wrk printed no Requests/sec:"; sed 's/^/    /' "$W/wrk.log"
		CNOTE="wrk failed|wrk failed"
	fi
else
	echo "  wrk is not installed (apt-get install wrk); no ratio"
	CNOTE="$grps req/s, no wrk|$(calc 'int(float(sys.argv[1]) / max(float(sys.argv[2]), 1e-9))' "$grps" "$gcf") per CPU-s, no wrk"
fi
stop_target
done
# the median run of each ratio (the run itself for one run)
median() { printf '%s\n' "$@" | sort -g -k1,1 | sed -n "$(( ($# + 1) / 2 ))p"; }
of=
[ "$CRUNS" -gt 1 ] && of=", median of $CRUNS"
if [ ${#CR[@]} -gt 0 ]; then
	read -r ratio grps wrps recok < <(median "${CR[@]}")
	read -r cratio gpc wpc < <(median "${CP[@]}")
	[ ${#CR[@]} -gt 1 ] && echo "  ratios of the $CRUNS runs: req/s $(printf '%s\n' "${CR[@]}" | cut -d' ' -f1 | tr '\n' ' '); per client CPU-s $(printf '%s\n' "${CP[@]}" | cut -d' ' -f1 | tr '\n' ' ')"
	row "(c) non-stream req/s vs wrk, $C conns" "$ratio ($grps / $wrps$of)" ">= 0.7" "$(verdict "$ratio >= 0.7 and $recok")"
	row "(c) non-stream req per client CPU-s vs wrk" "$cratio ($gpc / $wpc$of)" ">= 0.5" "$(verdict "$cratio >= 0.5")"
else
	IFS='|' read -r n1 n2 <<< "$CNOTE"
	row "(c) non-stream req/s vs wrk, $C conns" "$n1" ">= 0.7" "not run"
	row "(c) non-stream req per client CPU-s vs wrk" "$n2" ">= 0.5" "not run"
fi
echo
fi

# ---- (d) memory per in-flight stream -----------------------------------------------
# Streams of 1,000 tokens 100 ms apart (100 s each): in a 15 s run none
# finishes, so N users hold N streams. RSS is the median of samples taken
# from 8 s to 14 s.
if want d; then
echo "== (d) memory per in-flight stream (closed loop, 100 s streams, RSS median of 8-14 s) =="
printf '  %-8s %10s %10s %12s\n' streams rss_kib sockets kib/stream
declare -A RSS
for N in 10 1000 5000; do
	start_target "d$N" --ttft-ms 1 --itl-ms 100 --output-tokens 1000
	scenario "$W/d$N.json" 15s "{ \"mode\": \"closed\", \"users\": $N }" true 1000 "$((N > 16 ? N : 16))"
	start_gauntlet "d$N" "$W/d$N.json"
	sleep_until "$(calc 'float(sys.argv[1]) + 8' "$LAUNCH")"
	: > "$W/d$N.rss"
	for _ in $(seq 12); do rss_kib "$GPID" >> "$W/d$N.rss"; sleep 0.5; done
	sk=$(socks "$GPID")
	wait_gauntlet "d$N"
	stop_target
	RSS[$N]=$(python3 -c "
import statistics, sys
s = [int(x) for x in open(sys.argv[1]) if x.strip()]
print(int(statistics.median(s)) if s else 0)" "$W/d$N.rss")
	if [ "$N" = 10 ]; then
		printf '  %-8s %10s %10s %12s\n' "$N" "${RSS[$N]}" "$sk" "(baseline)"
	else
		per=$(calc 'round((int(sys.argv[1]) - int(sys.argv[2])) / (int(sys.argv[3]) - 10), 2)' "${RSS[$N]}" "${RSS[10]}" "$N")
		printf '  %-8s %10s %10s %12s\n' "$N" "${RSS[$N]}" "$sk" "$per"
		row "(d) memory per in-flight stream, $N" "$per KiB" "<= 16 KiB" "$(verdict "$per <= 16")"
	fi
done
echo
fi

# ---- (d) RSS flat at 1,000 req/s ------------------------------------------------------
if want e; then
if [ "${GL_BENCH_LONG:-0}" = 1 ]; then LONG_S=1200; EVERY=5; else LONG_S=60; EVERY=1; fi
echo "== (d) RSS over a $LONG_S s open-loop run at 1,000 req/s (16-token streams, itl 1 ms) =="
[ "$LONG_S" -lt 1200 ] &&
	echo "  SHORT VERSION: 60 s instead of the 20 minutes of the goal (GL_BENCH_LONG=1 runs 20 minutes)"
start_target e --ttft-ms 1 --itl-ms 1 --output-tokens 16
scenario "$W/e.json" "${LONG_S}s" '{ "mode": "constant", "rate": 1000 }' true 16 5000
start_gauntlet e "$W/e.json"
: > "$W/e.rss"
left=$(( (LONG_S + 120) / EVERY ))
while kill -0 "$GPID" 2>/dev/null && [ "$left" -gt 0 ]; do
	left=$((left - 1))
	r=$(rss_kib "$GPID"); [ -n "$r" ] && echo "$(calc 'round(float(sys.argv[1]) - float(sys.argv[2]), 1)' "$(now)" "$LAUNCH") $r" >> "$W/e.rss"
	sleep "$EVERY"
done
wait_gauntlet e $((LONG_S + 120))
stop_target
ereq=$(json "$W/e/report.json" "r['metrics']['inference']['requests']")
eerr=$(json "$W/e/report.json" "r['metrics']['inference']['errors']")
read -r n early late growth peak slope < <(python3 - "$W/e.rss" <<'PY'
import sys
pts = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
n = len(pts)
s = [int(v) for _, v in pts]
early = s[int(n * 0.25):int(n * 0.40)] or s[:1]
late = s[int(n * 0.80):int(n * 0.95)] or s[-1:]
# least-squares slope over the second half, KiB per minute
h = pts[n // 2:] or pts
mt = sum(t for t, _ in h) / len(h); mv = sum(v for _, v in h) / len(h)
den = sum((t - mt) ** 2 for t, _ in h) or 1
slope = sum((t - mt) * (v - mv) for t, v in h) / den * 60
print(n, max(early), max(late), max(late) - max(early), max(s), round(slope, 1))
PY
)
echo "  requests $ereq, errors $eerr; rss samples $n: max early (25-40%) $early KiB, max late (80-95%) $late KiB,"
echo "  growth $growth KiB, peak $peak KiB, slope over the second half $slope KiB/min"
row "(d) RSS growth over ${LONG_S}s at 1000 req/s$([ "$LONG_S" -lt 1200 ] && echo ' (SHORT)')" "$growth KiB" "<= 512 KiB (flat)" "$(verdict "$growth <= 512")"
echo
fi

# ---- summary ---------------------------------------------------------------------------
echo "== summary =="
printf '  %-48s %-28s %-18s %s\n' metric measured goal verdict
for r in "${SUMMARY[@]}"; do
	IFS='|' read -r m v g d <<< "$r"
	printf '  %-48s %-28s %-18s %s\n' "$m" "$v" "$g" "$d"
done
exit 0
