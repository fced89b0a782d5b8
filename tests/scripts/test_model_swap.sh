#!/usr/bin/env bash
# test_model_swap.sh - the model_swap fault kind and what it leans on, end
# to end against real servers on loopback:
#   - `gauntlet target`'s LoRA API (load with its load time, unload, the
#     model list, vLLM's errors), checked with curl;
#   - method lora, action unload, under load: requests to the adapter fail
#     in their own class (model_not_found) only while it is unloaded, as many
#     as the server counted 404s; the fault is verified, reverted (the
#     adapter listed again), recovery measured, the load time measured at
#     least the server's --lora-load-ms;
#   - action swap (a new version under the same name): the adapter is gone
#     for at least one load time, and the original path serves at the end;
#   - method kubernetes against k8s_deploy_mock.py (checks every request):
#     one JSON Patch that tests the resourceVersion, keeps the template in
#     an annotation and replaces the image; the rollout followed; revert
#     restores the exact template; method exec with a probe;
#   - the controller SIGKILLed during a kubernetes and a lora swap:
#     `gauntlet revert` restores the template from the cluster's annotation
#     and loads the adapter again;
#   - runbooks: validate refuses a fault without one under
#     safety.require_runbooks (exit 2, naming it) and a runbook file that is
#     not there; the reports list each fault's runbook; the manifest holds
#     the runbook's git blob id, the one `git hash-object` prints.
# The three runs go side by side (about 13 s), the two crashes too (about 5 s).
source "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || skip "curl is needed to drive the target's LoRA API"
command -v git >/dev/null || skip "git is needed for the runbook's blob id"

mkdir -p "$T/ad-v1" "$T/ad-v2"

# ---- 1. the target's LoRA API ---------------------------------------------------
start_target lora0 --lora sql="$T/ad-v1" --lora-load-ms 400 --itl-ms 1 --output-tokens 3
A0=$ADDR
code() { curl -s -o "$T/body" -w '%{http_code}' "$@"; }
models() { curl -s "http://$1/v1/models" | python3 -c "import json,sys; print(' '.join(m['id']+'='+m.get('root','') for m in json.load(sys.stdin)['data']))"; }
check "target: --lora lists the adapter with its path in /v1/models" \
	test "$(models "$A0")" = "gauntlet-target=gauntlet-target sql=$T/ad-v1"
check "target: a request naming the adapter is served (200) and names it in its body" \
	sh -c "test \"\$(curl -s -o '$T/b1' -w '%{http_code}' -XPOST http://$A0/v1/completions -d '{\"model\":\"sql\",\"prompt\":\"x\"}')\" = 200 && grep -q '\"model\":\"sql\"' '$T/b1'"
check "target: unload answers 200 'removed successfully'" \
	sh -c "test \"\$(curl -s -o '$T/b2' -w '%{http_code}' -XPOST http://$A0/v1/unload_lora_adapter -d '{\"lora_name\":\"sql\"}')\" = 200 && grep -q 'removed successfully' '$T/b2'"
check "target: after unload, a request naming it is 404 model_not_found" \
	sh -c "test \"\$(curl -s -o '$T/b3' -w '%{http_code}' -XPOST http://$A0/v1/completions -d '{\"model\":\"sql\",\"prompt\":\"x\"}')\" = 404 && grep -q model_not_found '$T/b3'"
check "target: unloading it again is 404 'cannot be found'" \
	sh -c "test \"\$(curl -s -o '$T/b4' -w '%{http_code}' -XPOST http://$A0/v1/unload_lora_adapter -d '{\"lora_name\":\"sql\"}')\" = 404 && grep -q 'cannot be found' '$T/b4'"
t_load=$(curl -s -o "$T/b5" -w '%{http_code} %{time_total}' -XPOST "http://$A0/v1/load_lora_adapter" -d "{\"lora_name\":\"sql\",\"lora_path\":\"$T/ad-v2\"}")
check "target: a load answers 200 after --lora-load-ms (400 ms; took ${t_load#* } s)" \
	python3 -c "import sys; c,t=sys.argv[1].split(); sys.exit(0 if c=='200' and float(t)>=0.39 else 1)" "$t_load"
check "target: the loaded adapter is listed with its new path" test "$(models "$A0")" = "gauntlet-target=gauntlet-target sql=$T/ad-v2"
check "target: loading a loaded name is 400 'already been loaded'" \
	sh -c "test \"\$(curl -s -o '$T/b6' -w '%{http_code}' -XPOST http://$A0/v1/load_lora_adapter -d '{\"lora_name\":\"sql\",\"lora_path\":\"$T/ad-v1\"}')\" = 400 && grep -q 'already been loaded' '$T/b6'"
check "target: loading from an absolute path with nothing there is 404 'No adapter found'" \
	sh -c "test \"\$(curl -s -o '$T/b7' -w '%{http_code}' -XPOST http://$A0/v1/load_lora_adapter -d '{\"lora_name\":\"x\",\"lora_path\":\"$T/none\"}')\" = 404 && grep -q 'No adapter found' '$T/b7'"
check "target: a load without lora_path is 400" \
	test "$(code -XPOST "http://$A0/v1/load_lora_adapter" -d '{"lora_name":"y"}')" = 400

# ---- the runs ---------------------------------------------------------------------
# The lora runs' scenario lives in a git repository with its runbook committed.
R=$T/repo
mkdir -p "$R/runbooks"
printf '# Adapter swapped out\n1. Check the serving logs.\n2. Reload the adapter.\n' > "$R/runbooks/lora.md"
git -C "$R" init -q && git -C "$R" add -A && git -C "$R" -c user.name=t -c user.email=t@t commit -qm runbooks
BLOB=$(git -C "$R" hash-object runbooks/lora.md)

start_target lora-a --lora sql="$T/ad-v1" --lora-load-ms 300 --itl-ms 2 --output-tokens 8
A=$ADDR
start_target lora-b --lora sql="$T/ad-v1" --lora-load-ms 1000 --itl-ms 2 --output-tokens 8
B=$ADDR
lora_scenario() { # FILE ENDPOINT FAULT_PARAMS_JSON
	cat > "$1" <<EOF
{ "name": "model-swap-lora", "duration": "13s", "window": "1s", "hold": 2,
  "hosts": { "me": { "local": true } },
  "store": { "requests": "all" },
  "workloads": { "inference": { "endpoints": ["http://$2/v1"], "model": "gauntlet-target",
      "adapters": [ { "model": "sql", "share": 0.5 } ],
      "arrival": { "mode": "constant", "rate": 20 }, "input_tokens": 16, "output_tokens": 8, "timeout": "5s" } },
  "faults": [ { "id": "swap", "at": "4s", "for": "3s", "kind": "model_swap", "method": "lora", "target": "me",
                "runbook": "runbooks/lora.md", "params": $3 } ],
  "targets": { "steady": { "inference.ttft_ms.p99": "<= 5000", "inference.error_rate": "<= 0.01" },
               "degraded": { "inference.error_rate": "<= 0.7" },
               "recovery": { "recovery_s": "<= 8", "restore_s": "<= 8" } },
  "safety": { "require_runbooks": true } }
EOF
}
lora_scenario "$R/unload.json" "$A" '{ "adapter": "sql", "path": "'"$T/ad-v1"'" }'
lora_scenario "$R/swap.json" "$B" '{ "adapter": "sql", "path": "'"$T/ad-v1"'", "action": "swap", "to_path": "'"$T/ad-v2"'" }'

# kubernetes and exec, one after the other in one run of the null workload
TOKEN=k8s-$RANDOM$RANDOM
python3 "$GL_SOURCE_DIR/tests/scripts/k8s_deploy_mock.py" "$T/k8s.port" "$T/k8s.log" "$T/k8s.state" "$TOKEN" \
	2>"$T/k8s.err" &
PIDS+=("$!")
wait_for "$T/k8s.port" 10 || { cat "$T/k8s.err"; skip "python3 cannot serve the Kubernetes stand-in"; }
KP=$(cat "$T/k8s.port")
cp "$T/k8s.state" "$T/k8s.before"
echo old > "$T/serving"
cat > "$T/k8s.json" <<EOF
{ "name": "model-swap-k8s", "duration": "12s", "window": "1s", "hold": 2,
  "hosts": { "me": { "local": true } },
  "workloads": { "null": { "rate": 100 } },
  "faults": [
    { "id": "k8s", "at": "2s", "for": "2s", "kind": "model_swap", "method": "kubernetes", "target": "me",
      "runbook": "https://runbooks.example/model-swap",
      "params": { "api": "http://127.0.0.1:$KP", "namespace": "serving", "deployment": "vllm",
                  "image": "vllm/vllm-openai:v0.6.4", "token_env": "GL_K8S_TOKEN",
                  "probe": { "url": "http://$A0/v1/models", "model": "gauntlet-target" } } },
    { "id": "exec", "at": "6s", "for": "1s", "kind": "model_swap", "method": "exec", "target": "me",
      "params": { "swap": ["sh", "-c", "echo new > $T/serving"], "restore": ["sh", "-c", "echo old > $T/serving"],
                  "probe": ["cat", "$T/serving"], "expect": "new", "expect_after": "old" } } ],
  "targets": { "steady": { "null.tick_lag_ms.p99": "<= 2000" }, "degraded": { "null.tick_lag_ms.p99": "<= 2000" },
               "recovery": { "recovery_s": "<= 8", "restore_s": "<= 8" } } }
EOF

"$GAUNTLET" run "$R/unload.json" --out "$T/unload" >"$T/unload.log" 2>&1 &
P1=$!
"$GAUNTLET" run "$R/swap.json" --out "$T/swap" >"$T/swap.log" 2>&1 &
P2=$!
GL_K8S_TOKEN=$TOKEN "$GAUNTLET" run "$T/k8s.json" --out "$T/k8s" >"$T/k8s-run.log" 2>&1 &
P3=$!
PIDS+=("$P1" "$P2" "$P3")
wait "$P1"; RC1=$?
wait "$P2"; RC2=$?
wait "$P3"; RC3=$?

# ---- 2. lora unload under load ------------------------------------------------
check "lora unload: the run passes (exit 0; got $RC1)" test "$RC1" = 0 || tail -20 "$T/unload.log"
U=$T/unload/report.json
check "lora unload: the fault was verified, reverted and its revert verified" \
	json "$U" "[(f['state'], f['verified'], f['verified_revert']) for f in r['faults']] == [('reverted', True, True)]"
check "lora unload: recovery measured" json "$U" "r['faults'][0]['recovery_s'] is not None and r['faults'][0]['restore_s'] is not None"
check "lora unload: requests to the adapter failed as model_not_found, none as http_4xx" \
	json "$U" "r['metrics']['inference']['errors_by_class'].get('model_not_found', 0) >= 10 and r['metrics']['inference']['errors_by_class'].get('http_4xx', 0) == 0"
n404=$(curl -s "http://$A/metrics" | awk -F' ' '/^gauntlet_target_requests_total\{endpoint="\/v1\/chat\/completions",status="404"\}/ {print $2}')
nmnf=$(sql "$T/unload/run.db" "select count(*) from requests where error_class='model_not_found'")
check "lora unload: model_not_found rows ($nmnf) = the 404s the server counted (${n404:-none})" test "$nmnf" = "${n404:-x}"
# every one of them sent while the adapter was away: after inject began,
# before the revert's load answered (plus the run's clock granularity)
outside=$(sql "$T/unload/run.db" "select count(*) from requests r, faults f where r.error_class='model_not_found' and (r.t_send_ns < f.injected_elapsed_ns - 50000000 or r.t_send_ns > f.reverted_elapsed_ns + 50000000)")
check "lora unload: every model_not_found request was sent while the adapter was unloaded ($outside outside)" test "$outside" = 0
check "lora unload: the adapter's load measured at least the server's 0.3 s" \
	json "$U" "r['faults'][0]['measured'].get('adapter_load_s', 0) >= 0.3"
check "lora unload: the server unloaded and loaded it once each" \
	sh -c "curl -s http://$A/metrics | grep -qx 'gauntlet_target_lora_unloads_total 1' && curl -s http://$A/metrics | grep -qx 'gauntlet_target_lora_loads_total 1'"
check "lora unload: after the run the adapter is listed again, from its path" test "$(models "$A")" = "gauntlet-target=gauntlet-target sql=$T/ad-v1"
check "lora unload: adapter requests counted apart: about half of all, their errors = the model_not_found ones" \
	json "$U" "0.35 < r['metrics']['inference']['adapter_requests'] / r['metrics']['inference']['requests'] < 0.65 and r['metrics']['inference']['adapter_errors'] == r['metrics']['inference']['errors_by_class']['model_not_found']"

# ---- runbooks in the reports and the manifest -----------------------------------
check "runbook: report.json names each fault's runbook" json "$U" "r['faults'][0]['runbook'] == 'runbooks/lora.md'"
check "runbook: report.md has it in the faults table" grep -q '| runbooks/lora.md |' "$T/unload/report.md"
check "runbook: report.html has it" grep -q 'runbooks/lora.md' "$T/unload/report.html"
check "runbook: junit.xml has it as a property" grep -q '<property name="fault.swap.runbook" value="runbooks/lora.md"' "$T/unload/junit.xml"
check "runbook: manifest.json holds its git blob id, the one git hash-object prints ($BLOB)" \
	json "$T/unload/manifest.json" "r['runbooks']['swap']['blob'] == '$BLOB' and r['runbooks']['swap']['committed_blob'] == '$BLOB' and r['runbooks']['swap']['committed_matches'] is True"

# ---- 3. lora swap --------------------------------------------------------------
check "lora swap: the run ends (exit 0 or 1: the gap may fail a degraded window; got $RC2)" test "$RC2" -le 1 || tail -20 "$T/swap.log"
S=$T/swap/report.json
check "lora swap: verified, reverted and revert verified" \
	json "$S" "[(f['state'], f['verified'], f['verified_revert']) for f in r['faults']] == [('reverted', True, True)]"
check "lora swap: the adapter was gone at least one load time (1 s)" \
	json "$S" "r['faults'][0]['measured'].get('adapter_gone_s', 0) >= 1.0"
check "lora swap: requests in the gap failed as model_not_found" \
	json "$S" "r['metrics']['inference']['errors_by_class'].get('model_not_found', 0) >= 3"
check "lora swap: at the end the original version serves" test "$(models "$B")" = "gauntlet-target=gauntlet-target sql=$T/ad-v1"

# ---- 4. kubernetes and exec ------------------------------------------------------
K=$T/k8s/report.json
check "kubernetes+exec: the run passes (exit 0; got $RC3)" test "$RC3" = 0 || tail -20 "$T/k8s-run.log"
check "kubernetes: verified, reverted, revert verified" \
	json "$K" "[(f['id'], f['state'], f['verified'], f['verified_revert']) for f in r['faults']][0] == ('k8s', 'reverted', True, True)"
check "kubernetes: the rollout followed to its end (at least the stand-in's 0.8 s)" \
	json "$K" "r['faults'][0]['measured'].get('rollout_s', 0) >= 0.8"
check "kubernetes: the stand-in saw no request it did not expect" \
	python3 -c "
import json,sys
bad=[l for l in map(json.loads, open('$T/k8s.log')) if l['error']]
print(bad[:3]) if bad else None; sys.exit(1 if bad else 0)"
check "kubernetes: the swap was one JSON Patch: test resourceVersion, save the template, replace the image" \
	python3 -c "
import json,sys
before=json.load(open('$T/k8s.before'))
p=[l for l in map(json.loads, open('$T/k8s.log')) if l['method']=='PATCH']
ops=p[0]['body']
ok = ops[0]=={'op':'test','path':'/metadata/resourceVersion','value':'100'} \
 and {'op':'replace','path':'/spec/template/spec/containers/0/image','value':'vllm/vllm-openai:v0.6.4'} in ops \
 and any(o['op']=='add' and o['path']=='/metadata/annotations/gauntlet.dev~1previous-template' and json.loads(o['value'])==before['spec']['template'] for o in ops) \
 and p[0]['status']==200
sys.exit(0 if ok else 1)"
template_back() { # the stand-in's Deployment has its first template and only its own annotation
	python3 -c "
import json,sys
b=json.load(open('$T/k8s.before')); a=json.load(open('$T/k8s.state'))
sys.exit(0 if a['spec']['template']==b['spec']['template'] and a['metadata']['annotations']=={'deployment.kubernetes.io/revision':'1'} else 1)"
}
check "kubernetes: revert restored the exact template, removed its annotations, kept the others" template_back
check "kubernetes: two template changes seen (generation 3)" json "$T/k8s.state" "r['metadata']['generation'] == 3"
check "exec: verified by its probe, reverted, the old model serving again" \
	sh -c "python3 -c \"import json,sys; r=json.load(open('$K')); f=[f for f in r['faults'] if f['id']=='exec'][0]; sys.exit(0 if (f['state'],f['verified'],f['verified_revert'])==('reverted',True,True) else 1)\" && grep -qx old '$T/serving'"
check "runbook: a URL runbook is reported as written; a fault without one as null" \
	json "$K" "[f['runbook'] for f in r['faults']] == ['https://runbooks.example/model-swap', None]"

# ---- 5. the controller SIGKILLed during a swap: `gauntlet revert` undoes it ----------
python3 - "$T/k8s.json" "$T/k8s-crash.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["duration"] = "60s"
s["faults"] = [dict(s["faults"][0], at="1s", **{"for": "50s"})]
json.dump(s, open(sys.argv[2], "w"))
PY
sed 's|"at": "4s", "for": "3s"|"at": "1s", "for": "50s"|; s|"duration": "13s"|"duration": "60s"|; s|ad-v1"|ad-v2"|g' "$R/unload.json" |
	sed "s|http://$A/v1|http://$A0/v1|" > "$R/crash.json"
GL_K8S_TOKEN=$TOKEN "$GAUNTLET" run "$T/k8s-crash.json" --out "$T/kc" >"$T/kc.log" 2>&1 &
PK=$!
"$GAUNTLET" run "$R/crash.json" --out "$T/lc" >"$T/lc.log" 2>&1 &
PL=$!
PIDS+=("$PK" "$PL")
injected() { [ "$(sql "$1/run.db" "select state from faults" 2>/dev/null)" = injected ]; }
until_ok 15 injected "$T/kc"; until_ok 15 injected "$T/lc"
kill -9 "$PK" "$PL"; wait "$PK" "$PL" 2>/dev/null
check "crash: the deployment still runs the swapped image, its old template in the annotation" \
	json "$T/k8s.state" "r['spec']['template']['spec']['containers'][0]['image'] == 'vllm/vllm-openai:v0.6.4' and 'gauntlet.dev/previous-template' in r['metadata']['annotations']"
check "crash: the adapter is still unloaded" sh -c "! curl -s http://$A0/v1/models | grep -q '\"id\":\"sql\"'"
GL_K8S_TOKEN=$TOKEN "$GAUNTLET" revert "$T/kc" >"$T/kc-revert.log" 2>&1; rc=$?
check "crash: gauntlet revert of the kubernetes swap exits 0 (got $rc)" [ $rc -eq 0 ]
check "crash: the exact template is back, the annotations gone" template_back
"$GAUNTLET" revert "$T/lc" >"$T/lc-revert.log" 2>&1; rc=$?
check "crash: gauntlet revert of the lora unload exits 0 (got $rc)" [ $rc -eq 0 ]
check "crash: the adapter is loaded again, from its path" test "$(models "$A0")" = "gauntlet-target=gauntlet-target sql=$T/ad-v2"
check "crash: both journals say reverted" \
	test "$(sql "$T/kc/run.db" "select state from faults")$(sql "$T/lc/run.db" "select state from faults")" = revertedreverted

# ---- 6. validate: runbooks and model_swap params -----------------------------------
refused() { # DESC FILE GREP_PATTERN: validate exits 2 and its output matches
	local out rc
	out=$("$GAUNTLET" validate "$2" 2>&1); rc=$?
	check "validate: $1 is refused (exit 2; got $rc)" sh -c 'test "$1" = 2 && printf "%s" "$2" | grep -q -- "$3"' _ "$rc" "$out" "$3"
}
sed 's|"runbook": "runbooks/lora.md", ||' "$R/unload.json" > "$R/nobook.json"
refused "a fault without a runbook under require_runbooks, naming it" "$R/nobook.json" "fault 'swap' (model_swap) has no \"runbook\""
sed 's|runbooks/lora.md|runbooks/none.md|' "$R/unload.json" > "$R/gone.json"
refused "a runbook file that is not there, naming the path" "$R/gone.json" 'faults\[0\].runbook.*none.md'
check "validate: the scenario with its runbook passes (exit 0)" "$GAUNTLET" validate "$R/unload.json"
check "dry run: the lora commands and the runbook shown" \
	sh -c "'$GAUNTLET' run '$R/unload.json' --dry-run 2>&1 | grep -q 'inject: POST http://$A/v1/unload_lora_adapter' && '$GAUNTLET' run '$R/unload.json' --dry-run 2>&1 | grep -qx '  runbook: runbooks/lora.md'"
sed 's|"action": "swap", "to_path": "[^"]*"|"action": "swap"|' "$R/swap.json" > "$R/noto.json"
refused "action swap without to_path" "$R/noto.json" 'faults\[0\].params.to_path'
sed 's|"image": "vllm/vllm-openai:v0.6.4", ||' "$T/k8s.json" > "$T/noimage.json"
refused "method kubernetes with neither image nor args" "$T/noimage.json" 'needs "image" or "args"'
finish
