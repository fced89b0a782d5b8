#!/usr/bin/env bash
# test_http_client.sh - the inference workload's own HTTP/1.1 client
# (loadgen/inference_h1.c; docs/scenario.md "client") against `gauntlet
# target` on loopback. Ground truth is the server's own count of the
# answers it sent (gauntlet_target_requests_total on its /metrics, one
# server per run) and the exact output length every request asks for
# (ignore_eos: 20 tokens each):
#   (a) which client takes which endpoint: the own one for plain http://
#       to an IP address, libcurl for a host name or "client": "curl";
#   (b) the same load through both clients, streaming and not: no error,
#       20 tokens a request exactly, the server's answers the client's
#       requests (and at most those cut at the end);
#   (c) a server that shuts each connection once its answer is written,
#       without saying so (--misbehave close_after_reply): the request
#       sent on such a connection is sent again on a new one, so no error,
#       each answer whole, none counted that the server did not send;
#   (d) a server that closes idle connections (--idle-timeout-s 1) under
#       users that think 1.5 s: no error;
#   (e) an IPv6 address ([::1]);
#   (f) the server killed while it answers (slow_drip: the head at once,
#       the body a byte at a time): those requests count as truncated,
#       never as whole answers or malformed ones.
# Nothing is timed: the runs go side by side.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/inference_lib.sh"

# served RUN: the chat answers the run's own server started
served() { target_answers "${SRV[$1]}"; }
declare -A SRV=()
# mk RUN URL-HOST EXTRA TARGET_ARGS...: a server of its own and a scenario
mk() {
	local run=$1 host=$2 extra=$3; shift 3
	start_target "srv-$run" "$@"
	SRV[$run]=$ADDR
	scenario "$T/$run.json" 3s "http://${host:-$ADDR}/v1" "$extra"
}
OPEN='"arrival": { "mode": "constant", "rate": 40 }, "output_tokens": 20, "input_tokens": 32'
CLOSED='"arrival": { "mode": "closed", "users": 2 }, "output_tokens": 4, "input_tokens": 16, "preflight": false'
FAST=(--ttft-ms 1 --itl-ms 1)
mk own-s "" "$OPEN, \"stream\": true" "${FAST[@]}"
mk own-n "" "$OPEN, \"stream\": false" "${FAST[@]}"
mk curl-s "" "$OPEN, \"stream\": true, \"client\": \"curl\"" "${FAST[@]}"
mk curl-n "" "$OPEN, \"stream\": false, \"client\": \"curl\"" "${FAST[@]}"
mk name "localhost:0" "$OPEN, \"stream\": false" "${FAST[@]}"
sed -i "s|localhost:0|localhost:${SRV[name]#*:}|" "$T/name.json"
mk shut-n "" "$CLOSED, \"stream\": false" "${FAST[@]}" --misbehave close_after_reply
mk shut-s "" "$CLOSED, \"stream\": true" "${FAST[@]}" --misbehave close_after_reply
mk idle "" "$CLOSED, \"stream\": false, \"arrival\": { \"mode\": \"closed\", \"users\": 2, \"think_time\": \"1500ms\" }" \
	"${FAST[@]}" --idle-timeout-s 1
sed -i 's/"duration": "3s"/"duration": "5s"/' "$T/idle.json"
RUNS=(own-s own-n curl-s curl-n name shut-n shut-s idle)
v6=0
rm -f "$T/v6.ready"
"$GAUNTLET" target --listen '[::1]:0' --ready-file "$T/v6.ready" "${FAST[@]}" >"$T/v6-srv.log" 2>&1 &
PIDS+=("$!")
if wait_for "$T/v6.ready" 10; then
	v6=1
	SRV[v6]=$(cat "$T/v6.ready")
	scenario "$T/v6.json" 3s "http://${SRV[v6]}/v1" "$OPEN, \"stream\": true"
	RUNS+=(v6)
fi
run_all "${RUNS[@]}"

client_of() { sed -n 's/.*inference: endpoint [^ ]*: //p' "$T/$1.log" | head -1; }
# wsum RUN COUNTER: its sum over the run's stored windows
wsum() { sql "$T/$1/run.db" "select coalesce(sum(counter), 0) from window_metrics where name = 'inference.$2'"; }
for k in "${!RUNS[@]}"; do
	r=${RUNS[$k]}
	echo "$r: exit ${rcs[$k]}, $(client_of "$r"); requests $(wsum "$r" requests), errors $(wsum "$r" errors)" \
		"$(m "$r" '{k: v for k, v in i["errors_by_class"].items() if v}' 2>/dev/null), cut at the end $(wsum "$r" cut_at_end)," \
		"output tokens $(wsum "$r" output_tokens_total); the server answered $(served "$r")"
done

# ---- (a) which client -------------------------------------------------------------------
check "(a) plain http:// to 127.0.0.1: the own client ($(client_of own-n))" [ "$(client_of own-n)" = "the own HTTP/1.1 client" ]
check "(a) \"client\": \"curl\": libcurl ($(client_of curl-n))" [ "$(client_of curl-n)" = libcurl ]
check "(a) a host name (localhost): libcurl ($(client_of name))" [ "$(client_of name)" = libcurl ]

# ---- (b) the same load through both ------------------------------------------------------
# every request 20 tokens, none failed; the server's answers at least the
# client's requests and at most those and the ones cut at the end (the
# server counts an answer when it starts it: a request cut at the end may
# have been started or not)
exact() {
	local r=$1 n q
	n=$(served "$r")
	q=$(wsum "$r" requests)
	[ "$(wsum "$r" errors)" = 0 ] && [ "$q" -ge 60 ] && [ "$(wsum "$r" output_tokens_total)" = $((20 * q)) ] &&
		[ "${n:-0}" -ge "$q" ] && [ "${n:-0}" -le $((q + $(wsum "$r" cut_at_end))) ]
}
for r in own-s own-n curl-s curl-n name; do
	check "(b) $r: no error, 20 tokens a request, the server's $(served "$r") answers the client's $(wsum "$r" requests) requests and at most those cut at the end" exact "$r"
done

# ---- (c) connections shut after each answer --------------------------------------------
# The server counts an answer when it starts it: one it started on a
# connection its own shutdown then cut (the next request came in before the
# shutdown) never reached the client, which sent that request again. So the
# client's answers are at most the server's, each whole (4 tokens).
answered_whole() {
	local r=$1 q
	q=$(wsum "$r" requests)
	[ "$(wsum "$r" errors)" = 0 ] && [ "$q" -ge 20 ] && [ "$(wsum "$r" output_tokens_total)" = $((4 * q)) ] &&
		[ "$q" -le "$(served "$r")" ]
}
for r in shut-n shut-s; do
	check "(c) $r: no request failed, each answer whole (4 tokens), none the server did not send ($(wsum "$r" requests) of $(served "$r"))" \
		answered_whole "$r"
done

# ---- (d) idle connections closed by the server -----------------------------------------
check "(d) idle: users thinking past the server's idle timeout, no error" \
	[ "$(wsum idle errors)" = 0 -a "$(wsum idle requests)" -ge 4 ]

# ---- (e) IPv6 ---------------------------------------------------------------------------
if [ $v6 = 1 ]; then
	check "(e) http://[::1]: the own client ($(client_of v6))" [ "$(client_of v6)" = "the own HTTP/1.1 client" ]
	check "(e) http://[::1]: no error, 20 tokens a request, every answer counted" exact v6
else
	part_skip "(e)" "no IPv6 loopback here: $(tail -1 "$T/v6-srv.log")"
fi
# ---- (f) the server killed in the middle of its answers --------------------------------
start_target srv-cut "${FAST[@]}" --misbehave slow_drip
SRV[cut]=$ADDR
CUT_PID=${PIDS[${#PIDS[@]} - 1]}
scenario "$T/cut.json" 4s "http://$ADDR/v1" '"arrival": { "mode": "constant", "rate": 5 }, "stream": false, "preflight": false, "timeout": "30s"'
"$GAUNTLET" run "$T/cut.json" --out "$T/cut" >"$T/cut.log" 2>&1 &
RUN_PID=$!
PIDS+=("$RUN_PID")
dripping() { # at least 3 answers begun and not ended
	[ "$(curl -sS "http://${SRV[cut]}/metrics" | sed -n 's/^gauntlet_target_in_flight //p')" -ge 3 ] 2>/dev/null
}
if until_ok 20 dripping; then
	kill -9 "$CUT_PID"
	wait "$RUN_PID"
	echo "cut: requests $(wsum cut requests), $(m cut '{k: v for k, v in i["errors_by_class"].items() if v}' 2>/dev/null)"
	check "(f) answers cut by the server's death: truncated, none malformed or whole" \
		m cut "i['errors_by_class']['truncated'] >= 3 and i['errors_by_class']['malformed'] == 0 and i['requests'] == i['errors']"
else
	bad "(f) the dripping server never held 3 answers at once"
fi
finish
