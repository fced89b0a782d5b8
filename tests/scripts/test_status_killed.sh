#!/usr/bin/env bash
# test_status_killed.sh - `gauntlet status` of a run whose controller was
# SIGKILLed says one state, and its durations are for people. A null run
# of 1 h at time scale 60 (a minute of real time), 1 s windows; once its
# first complete window is in the store the controller is killed with
# SIGKILL, and then:
#  - the store still says "running" (the ground truth: nothing closed it);
#  - status's first line says the run stopped, that the controller is not
#    running and how to resume: "run ID (NAME): stopped (controller not
#    running; resume with: gauntlet resume DIR)", the id the store's;
#  - no later line claims a state: none says "running";
#  - no duration has a part under a second (ms, us, ns) anywhere;
#  - the timeline line's elapsed and remaining are in the human form
#    ("1m30s", "58m30s"): elapsed is the store's elapsed_ns x 60 cut to the
#    second, and elapsed + remaining is the hour.
. "$(dirname "$0")/lib.sh"
cat > "$T/sc.json" <<'JSON'
{ "name": "killed", "duration": "1h", "window": "1s",
  "workloads": { "null": { "rate": 20 } },
  "phases": [ { "name": "warmup", "for": "1m" }, { "name": "steady", "for": "59m" } ],
  "targets": { "steady": { "null.ticks": ">= 1" } } }
JSON
"$GAUNTLET" run "$T/sc.json" --out "$T/run" --time-scale 60 >"$T/run.log" 2>&1 &
RUN=$!; PIDS+=("$RUN")
first_window() { [ "$(sql "$T/run/run.db" "select count(*) from windows where complete = 1" 2>/dev/null)" -ge 1 ] 2>/dev/null; }
until_ok 60 first_window
check "the run's first complete window is in the store" first_window
kill -9 "$RUN"; wait "$RUN" 2>/dev/null
check "after SIGKILL the store still says running" sql_is "$T/run/run.db" "select state from run" running
ID=$(sql "$T/run/run.db" "select id from run")
EL=$(sql "$T/run/run.db" "select elapsed_ns from run")
"$GAUNTLET" status "$T/run" >"$T/status.txt" 2>&1; rc=$?
cat "$T/status.txt"
check "status exits 0 (got $rc)" [ $rc -eq 0 ]
check "first line: stopped, the controller not running, how to resume" \
	[ "$(head -1 "$T/status.txt")" = "run $ID (killed): stopped (controller not running; resume with: gauntlet resume $T/run)" ]
check "one state: no later line says running" not bash -c 'tail -n +2 "$1" | grep -qi running' _ "$T/status.txt"
check "no duration with a part under a second (ms, us, ns)" not grep -qE '[0-9](ms|us|ns)\b' "$T/status.txt"
check "timeline: elapsed and remaining in the human form, elapsed the store's elapsed_ns x 60 cut to the second, the two adding up to 1h" \
	python3 - "$T/status.txt" "$EL" <<'PY'
import re, sys
text, el = open(sys.argv[1]).read(), int(sys.argv[2])
m = re.search(r"^timeline: (\S+) of (\S+) \(scenario time\), (\S+) remaining,", text, re.M)
human = r"(\d+)d(?:(\d\d)h)?|(\d+)h(?:(\d\d)m)?|(\d+)m(?:(\d\d)s)?|(\d+)s"
def ns(s):
    h = re.fullmatch(human, s)
    if not h:
        return None
    d, dh, hh, hm, mm, ms_, ss = (int(x) if x else 0 for x in h.groups())
    return ((d * 24 + dh) * 3600 + (hh + 0) * 3600 + hm * 60 + mm * 60 + ms_ + ss) * 10**9
if not m:
    sys.exit("no timeline line")
e, d, r = (ns(x) for x in m.groups())
print("elapsed %s, duration %s, remaining %s; the store's elapsed x 60: %.3f s" % (m.group(1), m.group(2), m.group(3), el * 60 / 1e9))
sys.exit(not (e is not None and d == 3600 * 10**9 and r is not None and e + r == d and
              e == el * 60 // 10**9 * 10**9 and e >= 60 * 10**9))
PY
finish
