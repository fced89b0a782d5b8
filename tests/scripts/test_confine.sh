#!/usr/bin/env bash
# test_confine.sh - files a scenario names stay inside its directory or the
# allowed roots (harness/lib/paths.c): an inventory or trace reached through
# "..", an absolute path or a symbolic link outside them is refused with a
# message naming the path and what it resolved to; safety.allowed_roots
# lets a named directory in, and "/" is never accepted as a root.
source "$(dirname "$0")/lib.sh"

mkdir -p "$T/sc/sub" "$T/outside"
echo '{"hosts": {}, "x": {"n": 1}}' > "$T/outside/inv.json"
echo '{"hosts": {}, "x": {"n": 1}}' > "$T/sc/inv.json"
ln -s "$T/outside/inv.json" "$T/sc/link.json"
inv_scenario() { # FILE INVENTORY [SAFETY]
	cat > "$1" <<JSON
{ "name": "confine", "duration": "2s", "window": "1s", "inventory": "$2",
  "hosts": { "localhost": { "local": true } },
  "workloads": { "null": { "rate": "\${x.n}" } },
  "targets": { "steady": { "null.tick_lag_ms.p99": "<= 50", "null.ticks": ">= 1" } }${3:+, $3} }
JSON
}
# The scenario lives in $T/sc/sub; $T/outside is reached by ".." and by a link.
# /tmp is a default root, so the tests use allowed_roots to make the rule strict.
STRICT='"safety": { "allowed_roots": ["/nonexistent-root"] }'
inv_scenario "$T/sc/sub/ok.json" "../inv.json" "$STRICT"
inv_scenario "$T/sc/sub/up.json" "../../outside/inv.json" "$STRICT"
inv_scenario "$T/sc/sub/abs.json" "$T/outside/inv.json" "$STRICT"
inv_scenario "$T/sc/sub/link.json" "../link.json" "$STRICT"
inv_scenario "$T/sc/sub/allowed.json" "../../outside/inv.json" "\"safety\": { \"allowed_roots\": [\"$T/outside\"] }"
# beside its inventory: nothing but the "/" root is wrong with it
inv_scenario "$T/sc/slash.json" "inv.json" '"safety": { "allowed_roots": ["/"] }'
cp "$T/sc/sub/ok.json" "$T/sc/ok.json"; sed -i 's|"\.\./inv.json"|"inv.json"|' "$T/sc/ok.json"

"$GAUNTLET" validate "$T/sc/ok.json" >/dev/null 2>"$T/ok.err"
check "an inventory in the scenario's directory is read" [ $? -eq 0 ]
"$GAUNTLET" validate "$T/sc/sub/ok.json" >/dev/null 2>"$T/ok2.err"; rc=$?
check "'..' out of the scenario's directory is refused (exit $rc; roots limited by allowed_roots)" \
	bash -c "[ $rc -eq 2 ] && grep -q 'outside the scenario' '$T/ok2.err'"
for c in up abs link; do
	"$GAUNTLET" validate "$T/sc/sub/$c.json" >/dev/null 2>"$T/$c.err"
	rc=$?
	check "$c: refused (exit 2), the message names the resolved path" \
		bash -c "[ $rc -eq 2 ] && grep -q 'resolves to $T/outside/inv.json, outside the scenario' '$T/$c.err'"
done
"$GAUNTLET" validate "$T/sc/sub/allowed.json" >/dev/null 2>"$T/allowed.err"
check "a directory named in safety.allowed_roots is let in" [ $? -eq 0 ]
"$GAUNTLET" validate "$T/sc/slash.json" >/dev/null 2>"$T/slash.err"; rc=$?
check "\"/\" is refused as a root (exit $rc, an error, not a warning)" \
	bash -c "[ $rc -eq 2 ] && grep -q ': safety.allowed_roots\[\]: expected an absolute directory path other than' '$T/slash.err'"
head -2 "$T/up.err"

# A trace outside the roots stops the run before anything starts.
cat > "$T/sc/sub/trace.json" <<JSON
{ "name": "confine-trace", "duration": "2s", "window": "1s",
  "hosts": { "localhost": { "local": true } },
  "workloads": { "inference": { "endpoints": ["http://127.0.0.1:9/v1"], "api": "chat", "model": "m",
                                "arrival": { "mode": "trace" }, "trace": "../../outside/inv.json", "preflight": false } },
  "targets": { "steady": { "inference.ttft_ms.p99": "<= 50", "inference.error_rate": "<= 0.1" } },
  $STRICT }
JSON
"$GAUNTLET" run "$T/sc/sub/trace.json" --out "$T/trace-run" >"$T/trace.log" 2>&1
rc=$?
check "a trace outside the roots stops the run (exit $rc) with the reason" \
	bash -c "[ $rc -ne 0 ] && grep -q 'trace: ../../outside/inv.json resolves to' '$T/trace.log'"
finish
