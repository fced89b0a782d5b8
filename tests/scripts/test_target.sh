#!/usr/bin/env bash
# test_target.sh - drives a real `gauntlet target` with curl: endpoints, the
# OpenAI stream shape (role chunk, exactly max_tokens content deltas, usage,
# [DONE]), request validation, the timing model (TTFT, ITL, FIFO queueing of
# --max-seqs), client disconnects, every --misbehave mode, flag errors and a
# clean exit 0 on SIGTERM. Servers listen on 127.0.0.1 port 0 and announce
# themselves through --ready-file; each is killed by pid at the end.
#
# Env: GAUNTLET (the gauntlet binary, run as "$GAUNTLET target ..."), or
# GL_TARGET_STANDALONE (tests/target_main.c's binary, run without "target").
# Counted checks, skips and the closing line are lib.sh's: exit 0 pass,
# 1 fail, 77 skip (no curl, or bash < 5; a failure under GL_STRICT=1); the
# IPv6 part is a part-skip where the machine has no ::1.
source "$(dirname "$0")/lib.sh"

command -v curl >/dev/null 2>&1 || skip "curl is not installed; this test talks HTTP to the target with curl"
if [ -n "${GL_TARGET_STANDALONE:-}" ]; then
	TARGET=("$GL_TARGET_STANDALONE")
else
	TARGET=("$GAUNTLET" target)
fi
if [ ! -x "${TARGET[0]}" ]; then
	bad "${TARGET[0]} is not an executable (set GAUNTLET or GL_TARGET_STANDALONE)"
	finish
fi
[ -n "${EPOCHREALTIME:-}" ] || skip "bash without \$EPOCHREALTIME (bash >= 5 needed for timestamps)"

TMP=$T
# servers still up at the end get SIGTERM first, then lib.sh's cleanup
target_cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	cleanup
}
trap target_cleanup EXIT

fail() { bad "$@"; }
# Float comparison: fge A B is A >= B.
fge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
flt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
between() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }

# start NAME FLAGS...: start a server, wait for its ready file; sets ADDR, PID, LOG.
start() {
	local name=$1
	shift
	local ready="$TMP/$name.ready"
	LOG="$TMP/$name.log"
	"${TARGET[@]}" --listen 127.0.0.1:0 --ready-file "$ready" "$@" >"$TMP/$name.out" 2>"$LOG" &
	PID=$!
	PIDS+=("$PID")
	# its ready file written, or the server gone
	until_ok 30 ready_or_gone "$ready" "$PID"
	if [ -s "$ready" ]; then
		ADDR=$(tr -d '\n' <"$ready")
		return 0
	fi
	bad "target '$name' did not come up; its log:"
	cat "$LOG"
	finish
}

ready_or_gone() { [ -s "$1" ] || ! kill -0 "$2" 2>/dev/null; } # READY-FILE PID

# stop NAME: SIGTERM, expect exit 0 and a log free of sanitizer reports.
stop() {
	local name=$1 rc
	kill -TERM "$PID"
	wait "$PID"
	rc=$?
	local keep=() p
	for p in "${PIDS[@]}"; do
		[ "$p" = "$PID" ] || keep+=("$p")
	done
	PIDS=("${keep[@]}")
	if [ "$rc" -eq 0 ]; then ok "$name: exit 0 on SIGTERM"; else fail "$name: exit $rc on SIGTERM"; fi
	if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$LOG"; then
		fail "$name: sanitizer report in the log:"
		cat "$LOG"
	fi
}

# post PATH JSON OUTFILE [curl args...]: prints the HTTP status.
post() {
	local path=$1 body=$2 out=$3
	shift 3
	curl -sS -o "$out" -w '%{http_code}' --max-time 20 -H 'Content-Type: application/json' \
		"$@" -d "$body" "http://$ADDR$path"
}

# stream PATH JSON OUTFILE [curl args...]: each non-empty response line
# prefixed with the time it arrived; the first line of OUTFILE is the start
# time; sets CURL_RC.
stream() {
	local path=$1 body=$2 out=$3
	shift 3
	echo "$EPOCHREALTIME START" >"$out"
	curl -sN --max-time 20 -H 'Content-Type: application/json' "$@" -d "$body" \
		"http://$ADDR$path" 2>"$out.err" |
		while IFS= read -r line; do
			line=${line%$'\r'}
			[ -n "$line" ] && printf '%s %s\n' "$EPOCHREALTIME" "$line"
		done >>"$out"
	CURL_RC=${PIPESTATUS[0]}
}

count() { grep -c -- "$1" "$2"; }
metric() { curl -sS --max-time 5 "http://$ADDR/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }
metric_is() { [ "$(metric "$1")" = "$2" ]; } # NAME VALUE (for until_ok)

chat() { # chat MAX_TOKENS PROMPT [extra JSON members]
	printf '{"model":"%s","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"%s"}],"max_tokens":%s%s}' \
		"${MODEL:-gauntlet-target}" "$2" "$1" "${3:-}"
}
SCHAT=',"stream":true,"stream_options":{"include_usage":true}'

# ---- bad flags ---------------------------------------------------------------
for bad in "" "--listen 127.0.0.1:0 --itl-jitter 2" "--listen 127.0.0.1:0 --misbehave bogus" \
	"--listen 127.0.0.1:0 --misbehave stall_ms=100" "--listen 127.0.0.1:0 --max-seqs 0" \
	"--listen 127.0.0.1:0 --nonsense 1" "--listen 127.0.0.1"; do
	# shellcheck disable=SC2086
	"${TARGET[@]}" $bad >/dev/null 2>"$TMP/flags.err"
	rc=$?
	if [ "$rc" -eq 2 ] && [ -s "$TMP/flags.err" ]; then
		ok "bad flags '$bad' -> exit 2 with a message"
	else
		fail "bad flags '$bad' -> exit $rc (want 2 and a message)"
	fi
done

# ---- the main server ---------------------------------------------------------
MODEL=test-model
start main --model "$MODEL" --ttft-ms 200 --itl-ms 50 --prefill-us-per-token 0 \
	--max-body-bytes 4096 --seed 7
check "stdout names the bound address" [ "$(head -n1 "$TMP/main.out")" = "$ADDR" ]
check "bound to 127.0.0.1 only" [ "${ADDR%:*}" = "127.0.0.1" ]
"${TARGET[@]}" --listen "$ADDR" >/dev/null 2>"$TMP/busy.err"
rc=$?
check "a second server on the same address exits 1 (got $rc)" [ "$rc" -eq 1 ]
check "... and says why" grep -q 'bind' "$TMP/busy.err"

code=$(curl -sS -o "$TMP/health" -w '%{http_code}' "http://$ADDR/health")
check "/health is 200 (got $code)" [ "$code" = 200 ]
code=$(curl -sS -o "$TMP/models" -w '%{http_code}' "http://$ADDR/v1/models")
check "/v1/models is 200 (got $code)" [ "$code" = 200 ]
check "/v1/models lists the model" grep -q "\"id\":\"$MODEL\"" "$TMP/models"

# A streaming chat request: 5 prompt words (system + user), 7 output tokens.
stream /v1/chat/completions "$(chat 7 'one two three four' "$SCHAT")" "$TMP/chat"
S="$TMP/chat"
check "stream: curl exit 0 (got $CURL_RC)" [ "$CURL_RC" -eq 0 ]
first=$(grep -m1 ' data: ' "$S")
check "stream: first chunk is role-only" \
	bash -c '[[ $1 == *"\"delta\":{\"role\":\"assistant\",\"content\":\"\"}"* ]]' _ "$first"
n=$(count '"delta":{"content":"tok' "$S")
check "stream: exactly 7 content deltas (got $n)" [ "$n" = 7 ]
check "stream: deltas are tok0..tok6 in order" \
	bash -c '[ "$(grep -o "\"content\":\"tok[0-9]* \"" "$1" | tr -d "\"" | cut -d: -f2 | tr -d " \n")" = tok0tok1tok2tok3tok4tok5tok6 ]' _ "$S"
check "stream: one finish_reason length" [ "$(count '"finish_reason":"length"' "$S")" = 1 ]
usage=$(grep '"choices":\[\],"usage"' "$S")
check "stream: usage chunk has completion_tokens 7" grep -q '"completion_tokens":7' <<<"$usage"
check "stream: usage chunk has prompt_tokens 6 (words in all messages)" \
	grep -q '"prompt_tokens":6,' <<<"$usage"
check "stream: last event is [DONE]" [ "$(tail -n1 "$S" | cut -d' ' -f2-)" = "data: [DONE]" ]
check "stream: usage chunk right before [DONE]" \
	bash -c 'tail -n2 "$1" | head -n1 | grep -q "\"usage\""' _ "$S"
# Timing: role + token 0 at t_slot + 200 ms; [DONE] 6 gaps of 50 ms later.
t0=$(awk 'NR == 1 { print $1 }' "$S")
t_first=$(grep -m1 '"content":"tok0 "' "$S" | cut -d' ' -f1)
t_role=$(grep -m1 '"role":"assistant"' "$S" | cut -d' ' -f1)
t_done=$(grep -m1 'data: \[DONE\]' "$S" | cut -d' ' -f1)
ttft=$(awk -v a="$t_first" -v b="$t0" 'BEGIN { print a - b }')
span=$(awk -v a="$t_done" -v b="$t_first" 'BEGIN { print a - b }')
role_gap=$(awk -v a="$t_first" -v b="$t_role" 'BEGIN { print a - b }')
check "stream: time to first token $ttft s >= 0.2 s (--ttft-ms 200)" fge "$ttft" 0.2
check "stream: time to first token $ttft s < 2 s" flt "$ttft" 2
check "stream: role chunk arrives with token 0 (gap $role_gap s)" flt "$role_gap" 0.05
check "stream: first to last token $span s >= 0.25 s (6 x --itl-ms 50)" fge "$span" 0.25

# Non-streaming completions: whole body at t_slot + 200 + 3 x 50 ms.
t=$(curl -sS -o "$TMP/cmpl" -w '%{http_code} %{time_total}' --max-time 20 \
	-d '{"model":"test-model","prompt":"alpha  beta\ngamma","max_tokens":4}' \
	"http://$ADDR/v1/completions")
check "completions: 200 (got ${t% *})" [ "${t% *}" = 200 ]
check "completions: text_completion body" grep -q '"object":"text_completion"' "$TMP/cmpl"
check "completions: text is tok0..tok3" grep -q '"text":"tok0 tok1 tok2 tok3 "' "$TMP/cmpl"
check "completions: usage 3 prompt + 4 completion" \
	grep -q '"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}' "$TMP/cmpl"
check "completions: body at >= 0.35 s (got ${t#* })" fge "${t#* }" 0.35

# Non-streaming chat.
code=$(post /v1/chat/completions "$(chat 2 'x')" "$TMP/nschat")
check "chat non-streaming: 200 (got $code)" [ "$code" = 200 ]
check "chat non-streaming: message with tok0 tok1" \
	grep -q '"message":{"role":"assistant","content":"tok0 tok1 "}' "$TMP/nschat"

# Validation.
code=$(post /v1/chat/completions '{"messages": [' "$TMP/e1")
check "bad JSON -> 400 (got $code)" [ "$code" = 400 ]
check "bad JSON -> OpenAI error body" grep -q '^{"error":{"message":' "$TMP/e1"
code=$(post /v1/chat/completions '{"model":"nope","messages":[{"role":"user","content":"x"}]}' "$TMP/e2")
check "unknown model -> 404 (got $code)" [ "$code" = 404 ]
check "unknown model -> model_not_found" grep -q '"code":"model_not_found"' "$TMP/e2"
code=$(post /v1/chat/completions "$(chat -1 'x')" "$TMP/e3")
check "max_tokens -1 -> 400 (got $code)" [ "$code" = 400 ]
code=$(post /v1/completions '{"max_tokens":3}' "$TMP/e4")
check "completions without prompt -> 400 (got $code)" [ "$code" = 400 ]
code=$(post /v1/chat/completions "$(chat 3 'x' ',"stream":"yes"')" "$TMP/e5")
check "stream must be a boolean -> 400 (got $code)" [ "$code" = 400 ]
big=$(head -c 6000 /dev/zero | tr '\0' 'a')
code=$(post /v1/completions "{\"prompt\":\"$big\",\"max_tokens\":1}" "$TMP/e6")
check "body over --max-body-bytes -> 413 (got $code)" [ "$code" = 413 ]
code=$(curl -sS -o /dev/null -w '%{http_code}' "http://$ADDR/v1/chat/completions")
check "GET on chat -> 405 (got $code)" [ "$code" = 405 ]
code=$(curl -sS -o /dev/null -w '%{http_code}' "http://$ADDR/v2/nothing")
check "unknown path -> 404 (got $code)" [ "$code" = 404 ]

# A client that goes away mid-stream is noticed and its stream freed.
curl -sN --max-time 0.5 -d "$(chat 1000 'x' "$SCHAT")" "http://$ADDR/v1/chat/completions" >/dev/null 2>&1
check "client disconnect counted" until_ok 30 metric_is 'gauntlet_target_stream_aborts_total{reason="client_disconnect"}' 1
check "nothing left in flight" until_ok 30 metric_is gauntlet_target_in_flight 0
n=$(metric 'gauntlet_target_requests_total{endpoint="/v1/chat/completions",status="200"}')
check "metrics: chat 200 responses counted (got $n)" [ "$n" = 3 ]
n=$(metric 'gauntlet_target_tokens_generated_total')
check "metrics: tokens generated >= 13 (got $n)" [ "${n:-0}" -ge 13 ]
stop main
unset MODEL

# ---- IPv6 ----------------------------------------------------------------------
if grep -q '^00000000000000000000000000000001 ' /proc/net/if_inet6 2>/dev/null; then
	"${TARGET[@]}" --listen '[::1]:0' --ready-file "$TMP/v6.ready" >/dev/null 2>"$TMP/v6.log" &
	PID=$!
	PIDS+=("$PID")
	LOG="$TMP/v6.log"
	until_ok 30 ready_or_gone "$TMP/v6.ready" "$PID"
	v6=$(tr -d '\n' <"$TMP/v6.ready" 2>/dev/null)
	check "ipv6: ready file names [::1]:PORT (got '$v6')" grep -qE '^\[::1\]:[0-9]+$' <<<"$v6"
	code=$(curl -g -sS -o /dev/null -w '%{http_code}' "http://$v6/health")
	check "ipv6: /health is 200 (got $code)" [ "$code" = 200 ]
	stop v6
else
	part_skip ipv6 "no ::1 on this machine"
fi

# ---- FIFO queueing beyond --max-seqs -------------------------------------------
# (TTFT 1.5 s: the one-generating-one-waiting state lasts that long, for
# the polls below to see it on a loaded machine)
start queue --max-seqs 1 --ttft-ms 1500 --itl-ms 10 --output-tokens 10
qpids=()
for i in 1 2; do
	(
		curl -sS -o /dev/null -w '%{time_total}' --max-time 20 -d '{"prompt":"x"}' \
			"http://$ADDR/v1/completions"
		echo " $EPOCHREALTIME"
	) >"$TMP/q$i" &
	qpids+=($!)
done
seen=
queue_seen() { seen=$(metric gauntlet_target_active_sequences)/$(metric gauntlet_target_queued); [ "$seen" = 1/1 ]; }
until_ok 20 queue_seen
check "queue: one generating while the other waits (active/queued $seen)" [ "$seen" = 1/1 ]
wait "${qpids[@]}"
read -r q1 e1 <"$TMP/q1"
read -r q2 e2 <"$TMP/q2"
# Which request reached the target first is the kernel's to say (both
# curls start at once): judge by the order they ended in.
d=$(awk -v a="$e2" -v b="$e1" 'BEGIN { x = a - b; print x < 0 ? -x : x }')
qf=$(awk -v a="$e1" -v b="$e2" -v qa="$q1" -v qb="$q2" 'BEGIN { print a <= b ? qa : qb }')
# Each takes 1500 + 9 x 10 ms once it has the slot; the one that waited
# ends about 1.59 s after the other (about 0 s without queueing).
check "queue: the request served first took $qf s >= 1.59 s" fge "$qf" 1.59
check "queue: the other ends $d s after it (>= 1.2 s: it waited for the slot)" fge "$d" 1.2
stop queue

# ---- misbehaviours -------------------------------------------------------------
FAST=(--ttft-ms 5 --itl-ms 5)

start m429 "${FAST[@]}" --misbehave http_429
code=$(post /v1/chat/completions "$(chat 5 'x' "$SCHAT")" "$TMP/m429" -D "$TMP/m429.h")
check "http_429: status 429 (got $code)" [ "$code" = 429 ]
check "http_429: Retry-After header" grep -qi '^Retry-After: ' "$TMP/m429.h"
check "http_429: OpenAI error body" grep -q '"type":"rate_limit_error"' "$TMP/m429"
check "http_429: /health unaffected" [ "$(curl -sS -o /dev/null -w '%{http_code}' "http://$ADDR/health")" = 200 ]
stop m429

for st in 500 503; do
	start "m$st" "${FAST[@]}" --misbehave "http_$st"
	code=$(post /v1/completions '{"prompt":"x","max_tokens":3,"stream":true}' "$TMP/m$st")
	check "http_$st: status $st (got $code)" [ "$code" = "$st" ]
	stop "m$st"
done

start mclose "${FAST[@]}" --misbehave close_mid_stream
stream /v1/chat/completions "$(chat 10 'x' "$SCHAT")" "$TMP/mclose"
check "close_mid_stream: curl reports a cut transfer (rc $CURL_RC)" grep -qxE '18|56' <<<"$CURL_RC"
n=$(count '"delta":{"content":"tok' "$TMP/mclose")
check "close_mid_stream: 3 tokens before the drop (got $n)" [ "$n" = 3 ]
check "close_mid_stream: no [DONE]" [ "$(count '\[DONE\]' "$TMP/mclose")" = 0 ]
check "close_mid_stream: counted as injected close" \
	[ "$(metric 'gauntlet_target_stream_aborts_total{reason="injected_close"}')" = 1 ]
code=$(curl -sS -o /dev/null -w '%{http_code}' --max-time 5 -d '{"prompt":"x","max_tokens":5}' \
	"http://$ADDR/v1/completions" 2>/dev/null)
check "close_mid_stream: non-streaming gets no response (got '$code')" [ "$code" = 000 ]
stop mclose

# With no gap between tokens, all three and the drop fall in one loop turn:
# what was written in that turn must still reach the client before the close.
start mclose0 --ttft-ms 0 --itl-ms 0 --misbehave close_mid_stream
stream /v1/chat/completions "$(chat 10 'x' "$SCHAT")" "$TMP/mclose0"
n=$(count '"delta":{"content":"tok' "$TMP/mclose0")
check "close_mid_stream, no gap: the 3 tokens of the last loop turn delivered before the drop (got $n)" [ "$n" = 3 ]
stop mclose0

start mgarbage "${FAST[@]}" --misbehave garbage_sse
stream /v1/chat/completions "$(chat 5 'x' "$SCHAT")" "$TMP/mgarbage"
n=$(cut -d' ' -f2- "$TMP/mgarbage" | grep '^data: ' | grep -cvE '^data: (\{.*\}|\[DONE\])$')
check "garbage_sse: one data line that is not a JSON object (got $n)" [ "$n" = 1 ]
check "garbage_sse: the stream still ends with [DONE]" [ "$(count '\[DONE\]' "$TMP/mgarbage")" = 1 ]
stop mgarbage

start moversized "${FAST[@]}" --misbehave oversized_line
curl -sS --max-time 20 -d "$(chat 5 'x' "$SCHAT")" "http://$ADDR/v1/chat/completions" >"$TMP/moversized"
longest=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$TMP/moversized")
check "oversized_line: a data line of >= 2 MiB (longest $longest)" [ "$longest" -ge 2097152 ]
stop moversized

start mnodone "${FAST[@]}" --misbehave no_done
stream /v1/chat/completions "$(chat 5 'x' "$SCHAT")" "$TMP/mnodone"
check "no_done: clean HTTP end (rc $CURL_RC)" [ "$CURL_RC" -eq 0 ]
check "no_done: all 5 tokens" [ "$(count '"delta":{"content":"tok' "$TMP/mnodone")" = 5 ]
check "no_done: no [DONE]" [ "$(count '\[DONE\]' "$TMP/mnodone")" = 0 ]
check "no_done: no finish_reason" [ "$(grep -c '"finish_reason":"' "$TMP/mnodone")" = 0 ]
stop mnodone

start merror "${FAST[@]}" --misbehave stream_error
stream /v1/chat/completions "$(chat 5 'x' "$SCHAT")" "$TMP/merror"
check "stream_error: an in-stream error event" [ "$(count 'data: {"error":{' "$TMP/merror")" = 1 ]
check "stream_error: 3 tokens before it" [ "$(count '"delta":{"content":"tok' "$TMP/merror")" = 3 ]
stop merror

start mhang "${FAST[@]}" --misbehave hang
curl -sS -o "$TMP/mhang" -D "$TMP/mhang.h" --max-time 1 -d "$(chat 5 'x' "$SCHAT")" \
	"http://$ADDR/v1/chat/completions" 2>/dev/null
rc=$?
check "hang: curl times out (rc $rc)" [ "$rc" -eq 28 ]
check "hang: not even headers (after a timeout, not a refused connection)" [ "$rc" -eq 28 -a -e "$TMP/mhang.h" -a ! -s "$TMP/mhang.h" ]
check "hang: the abandoned request is freed" until_ok 30 metric_is gauntlet_target_in_flight 0
stop mhang

start mdrip "${FAST[@]}" --misbehave slow_drip
curl -sS -o "$TMP/mdrip" --max-time 2.5 -d "$(chat 5 'x' "$SCHAT")" \
	"http://$ADDR/v1/chat/completions" 2>/dev/null
rc=$?
n=$(wc -c <"$TMP/mdrip")
check "slow_drip: curl times out (rc $rc)" [ "$rc" -eq 28 ]
check "slow_drip: 1 to 4 body bytes in 2.5 s (got $n)" between "$n" 1 4
stop mdrip

# --misbehave-rate picks requests from the seed: a mix, the same for the same seed.
for run in a b; do
	start "mrate$run" "${FAST[@]}" --misbehave http_500 --misbehave-rate 0.5 --seed 42
	: >"$TMP/mrate$run"
	for i in $(seq 1 20); do
		post /v1/completions '{"prompt":"x","max_tokens":1}' /dev/null >>"$TMP/mrate$run"
		echo >>"$TMP/mrate$run"
	done
	stop "mrate$run"
done
n=$(grep -c 500 "$TMP/mratea")
check "misbehave-rate 0.5: some but not all of 20 fail (got $n)" between "$n" 1 19
check "misbehave-rate: same seed, same requests fail" cmp -s "$TMP/mratea" "$TMP/mrateb"

# stall_ms: every token due in [1.2 s, 2.0 s) after start waits until 2.0 s.
start mstall --ttft-ms 10 --itl-ms 20 --misbehave stall_ms=800 --stall-at-s 1.2
stream /v1/chat/completions "$(chat 80 'x' "$SCHAT")" "$TMP/mstall"
gap=$(grep '"delta":{"content":"tok' "$TMP/mstall" |
	awk 'NR > 1 && $1 - p > m { m = $1 - p } { p = $1 } END { print m + 0 }')
check "stall: one gap of >= 0.7 s inside the stream (max gap $gap s)" fge "$gap" 0.7
# After the window (the target logs its close), tokens flow at the normal
# pace again.
check "stall: the target says the stall window closed" until_ok 30 grep -q "stall window closes" "$LOG"
stream /v1/chat/completions "$(chat 20 'x' "$SCHAT")" "$TMP/mstall2"
gap=$(grep '"delta":{"content":"tok' "$TMP/mstall2" |
	awk 'NR > 1 && $1 - p > m { m = $1 - p } { p = $1 } END { print m + 0 }')
n=$(count '"delta":{"content":"tok' "$TMP/mstall2")
span=$(grep '"delta":{"content":"tok' "$TMP/mstall2" | awk 'NR == 1 { f = $1 } { l = $1 } END { print l - f }')
check "stall: the later stream has all 20 tokens (got $n)" [ "$n" = 20 ]
# A lower bound with room: the client reads the tokens, and under load it
# may read the first one late and the next few at once (0.366 s beside the
# suite under ASan); a burst would be a few ms.
check "stall: ... paced again: first to last token $span s >= 0.25 s (19 x --itl-ms 20 = 0.38 s)" fge "${span:-0}" 0.25
check "stall: once only; later max gap $gap s < 0.3 s" flt "$gap" 0.3
stop mstall

finish
