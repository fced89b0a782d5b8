#!/usr/bin/env bash
# test_lab.sh - the local lab end to end, in its own directory:
#  1. `gauntlet lab up` builds every part; `status` says healthy; a second
#     `up` changes nothing (same lab id, same processes);
#  2. scenarios/lab-soak.json at --time-scale 2.5 (about two minutes) against
#     it: the four reports are written, every fault is injected, verified and
#     reverted with recovery_s and restore_s, and each fault's effect is seen
#     in the store (connection errors to the drained and the flapped worker,
#     throttled storage windows, etcd writes failing over, a checkpoint
#     restore, no request answered by anything outside the machine);
#     report.pdf rendered (GAUNTLET_PDF=auto) and judged by pdf_check.py;
#     its live endpoint scraped every 5 s for the dashboard's queries; a
#     webhook receiver on loopback gets start, each fault, the end;
#     GL_LAB_SOAK=0 leaves this part out (the sanitizer pass does);
#     2c: two load agents as job steps of the lab's Slurm (srun), pinned to
#     lab-w2 and lab-w1 by slurm_node, in those workers' namespaces,
#     dialing the controller's lab address;
#     2d: a worker reaches another's replica through the host; nothing is
#     forwarded between a worker's link and any other interface
#     (training ranks on 8 workers, bisected: test_bisect);
#  3. `lab down` leaves nothing behind: no process carrying the lab's mark,
#     namespace, gl-lab link, unreachable route, nft table, cgroup, mount or
#     directory;
#  4. `lab up` SIGKILLed halfway: `lab down` cleans up; and again, a new
#     `lab up` cleans the unfinished lab first and builds a whole one.
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root: the lab builds network namespaces, Slurm and a cgroup"
for p in ip nsenter setsid etcd etcdctl slurmctld slurmd munged scontrol mpirun nft ssh-keygen curl chromium pdftoppm pdftotext; do
	command -v "$p" >/dev/null || skip "$p is not installed (scripts/setup.sh installs it)"
done
[ -x /usr/sbin/sshd ] || skip "/usr/sbin/sshd is not installed"
[ -x "$(dirname "$GAUNTLET")/gauntlet-train" ] || skip "gauntlet-train was not built (no MPI)"
reap_stale_labs
[ -e /run/netns/gl-lab-w1 ] && skip "a lab is already up on this machine (netns gl-lab-w1): this test builds its own"

LAB=$T/lab
lab_cleanup() {
	"$GAUNTLET" lab down --dir "$LAB" >/dev/null 2>&1
	ip link del "gl-fwt$$h" 2>/dev/null; ip netns del "gl-fwdtest-$$" 2>/dev/null # 2d's, if it was cut short
	cleanup
}
trap lab_cleanup EXIT
labid() { sed -n 's/^id\t//p' "$LAB/lab.journal" 2>/dev/null | head -1; }
marked() { # pids whose environment carries GL_LAB_ID=$1
	local p
	for p in /proc/[0-9]*; do
		grep -qz "^GL_LAB_ID=$1\$" "$p/environ" 2>/dev/null && echo "${p#/proc/}"
	done | sort -n
}
# Everything a lab could leave behind, one line each; nothing when clean.
leftovers() { # LAB-ID
	local p
	for p in $(marked "$1"); do echo "process $p: $(tr '\0' ' ' <"/proc/$p/cmdline" | cut -c1-100)"; done
	ip netns list | grep -o '^gl-lab-[^ ]*' | sed 's/^/netns /'
	ip -o link show | grep -o 'gl-lab[^:@ ]*' | sed 's/^/link /'
	ip route show type unreachable | grep '10\.77\.' | sed 's/^/route /'
	nft list tables 2>/dev/null | grep -E 'gauntlet_|gl_lab' | sed 's/^/nft table /'
	[ -d /sys/fs/cgroup/blkio/gauntlet-lab ] && echo "cgroup blkio/gauntlet-lab"
	[ -d /sys/fs/cgroup/gauntlet-lab ] && echo "cgroup gauntlet-lab"
	grep -E "gl-lab|$LAB" /proc/mounts | sed 's/^/mount /'
	[ -e "$LAB" ] && echo "directory $LAB"
}

# --- 1. up, status, up again -------------------------------------------------------------
start=$(date +%s.%N)
"$GAUNTLET" lab up --dir "$LAB" --workers 4 >"$T/up1.log" 2>&1; rc=$?
cat "$T/up1.log"
check "lab up: exit 0, every part built ($(python3 -c "print('%.1f' % ($(date +%s.%N) - $start))") s)" [ $rc -eq 0 ]
INV=$LAB/inventory.json
check "inventory: every part up (net, slurm, workers, etcd, sshd, storage, mpi)" json "$INV" \
	"sorted(k for k, v in r['parts'].items() if v['state'] == 'up') == sorted(['net', 'slurm', 'workers', 'etcd', 'sshd', 'storage', 'mpi']) or sys.exit(1)"
check "inventory: private (0600) in a 0700 directory" \
	bash -c "[ \$(stat -c %a '$INV') = 600 ] && [ \$(stat -c %a '$LAB') = 700 ]"
ID=$(labid)
P1=$(marked "$ID")
echo "lab $ID: $(echo $P1 | wc -w) marked processes"
"$GAUNTLET" lab status --dir "$LAB" >"$T/status.log" 2>&1; rc=$?
check "lab status: exit 0, nothing unhealthy" bash -c "[ $rc -eq 0 ] && ! grep -q UNHEALTHY '$T/status.log'"
"$GAUNTLET" lab up --dir "$LAB" >"$T/up2.log" 2>&1; rc=$?
check "lab up again: exit 0, 'nothing to do'" bash -c "[ $rc -eq 0 ] && grep -q 'nothing to do' '$T/up2.log'"
check "lab up again: same lab id, same processes" bash -c "[ '$(labid)' = '$ID' ] && [ '$(marked "$ID" | tr '\n' ' ')' = '$(echo "$P1" | tr '\n' ' ')' ]"

# --- 2. the lab soak, time-scaled to about two minutes ------------------------------------
if [ "${GL_LAB_SOAK:-1}" = 0 ]; then
	echo "note: the lab soak is left out here (GL_LAB_SOAK=0, as in the sanitizer pass of scripts/test.sh)"
else
R=$T/soak
start=$(date +%s)
# With its live endpoint, scraped every 5 s while it runs (the dashboard's
# queries are looked up in these scrapes), and report.pdf rendered at the end.
# A webhook receiver on loopback is told of every event (--set notify).
webhook_receiver ok hook
LAB_HOOK="http://127.0.0.1:$RPORT/hook" GAUNTLET_PDF=auto "$GAUNTLET" run "$GL_SOURCE_DIR/scenarios/lab-soak.json" \
	--set "inventory=$INV" --set 'notify=[{"url_env": "LAB_HOOK", "format": "json", "on": ["start", "fault", "target_missed", "abort", "error", "end"]}]' --time-scale 2.5 \
	--out "$R" --metrics-listen 127.0.0.1:0 >"$T/soak.log" 2>&1 &
SOAK=$!
PIDS+=("$SOAK")
# a scrape after every 3rd window the store closes (windows of 2 s: about
# 20 scrapes), until the run ends
n=0 NEXT=1
soak_next() { windows_ge "$R/run.db" "$NEXT" || gone "$SOAK"; }
while ! gone "$SOAK"; do
	until_ok 300 soak_next || break
	URL=$(grep -o 'http://[0-9.:]*/metrics' "$T/soak.log" | head -1)
	[ -n "$URL" ] && curl -s -m 5 "$URL" > "$T/scrape.$n.txt" 2>/dev/null && n=$((n + 1))
	NEXT=$((NEXT + 3))
done
wait "$SOAK"; rc=$?
grep -E 'fault:|verdict|run finished|error|report.pdf' "$T/soak.log" | grep -v 'checkpoint at' | head -40
check "lab soak: passes (exit $rc, $(($(date +%s) - start)) s)" [ $rc -eq 0 ]
for f in report.json report.html report.md junit.xml manifest.json report.pdf; do
	check "lab soak: $f written" [ -s "$R/$f" ]
done
check "lab soak: report.pdf is A4, a page per section, every chart drawn, the sign-off last (pdf_check.py)" \
	python3 "$GL_SOURCE_DIR/tests/scripts/pdf_check.py" "$R/report.pdf" "$R/report.html" "$R/report.json"
python3 "$GL_SOURCE_DIR/tests/scripts/pdf_check.py" "$R/report.pdf" "$R/report.html" "$R/report.json" | sed 's/^/   /'
# The Nodes section: per-node tables and heatmaps for the four workers'
# replicas (docs/nodes.md), in report.json, report.html as Chromium draws
# it (tests/scripts/cdp.py, the first heatmap captured alone and its
# pixels counted) and report.pdf (pdf_check.py above: its pages tinted).
check "lab soak: every worker's replica has its per-node figures, on its host lab-wN (report.json)" python3 -c "
import json; r=json.load(open('$R/report.json')); inv=json.load(open('$INV'))
l=[n for n in r['nodes']['list'] if n['kind']=='endpoint' and n['figure']=='ttft_ms']
got=sorted((n['name'], n['host']) for n in l)
want=sorted((w['address'] + ':8000', w['name']) for w in inv['workers'])
print('   endpoints', got, 'suspects', [(s['kind'], s['name']) for s in r['suspects']])
assert got == want and len(want) == 4, (got, want)"
check "lab soak: report.html's Nodes section lists the four replicas and draws their heatmap" python3 -c "
import re; h=open('$R/report.html').read(); sec=h[h.index('<section id=\"nodes\">'):]
sec=sec[:sec.index('</section>')]
svg=re.findall(r'<svg class=\"heat\".*?</svg>', sec, re.S)
assert all(('10.77.%d.2:8000' % w) in sec for w in (1, 2, 3, 4)), 'a replica missing'
assert svg and any(s.count('<rect') >= 4 * 60 for s in svg), [s.count('<rect') for s in svg]"
timeout 120 python3 "$GL_SOURCE_DIR/tests/scripts/cdp.py" "$(command -v chromium)" "$R/report.html" "$T/soak.png" \
	"$T/soak-browser.json" "$T/soak-heat.png" >"$T/soak-cdp.log" 2>&1; rc=$?
check "lab soak: Chromium draws the heatmaps (svg.heat with a size, 60 columns a row), no console error (rc $rc)" python3 -c "
import json; b=json.load(open('$T/soak-browser.json'))
print('   heatmaps drawn (x, y, w, h, cells):', b['heat'])
assert $rc == 0 and b['errors'] == [], b['errors']
assert b['heat'] and all(w >= 300 and n % 60 == 0 for x, y, w, h, n in b['heat']) and any(n >= 4 * 60 for x, y, w, h, n in b['heat']), b['heat']"
heat=$(python3 "$GL_SOURCE_DIR/tests/scripts/png_ink.py" "$T/soak-heat.png" 2>&1)
# Its judged cells (fill not the grey of a window no one judged: a fault's
# span, the warm-up) are 8 x 11 px each; the screenshot must show them
# tinted (pale green to red), whatever share of the run the faults took.
check "lab soak: the first heatmap's screenshot shows its judged cells, tinted ($heat)" python3 -c "
import json, re, sys; h=json.loads(sys.argv[1]); src=open('$R/report.html').read()
svg=re.search(r'<svg class=\"heat\".*?</svg>', src, re.S).group(0)
cells=len([f for f in re.findall(r'<rect [^>]*fill=\"(#[0-9a-f]{6})\"', svg) if f != '#eeeeee'])
print('   judged cells %d: %d tinted pixels, need %d' % (cells, h['tinted'], int(0.8 * cells * 88)))
assert cells >= 4 and h['tinted'] >= 0.8 * cells * 88, (cells, h)" "$heat"
check "lab soak: the live endpoint scraped during the run ($n scrapes)" [ "$n" -ge 5 ]
check "dashboard: every query of contrib/grafana/gauntlet.json is in the lab soak's scrapes" \
	python3 "$GL_SOURCE_DIR/tests/scripts/dashboard_check.py" "$GL_SOURCE_DIR/contrib/grafana/gauntlet.json" "$T"/scrape.*.txt
python3 "$GL_SOURCE_DIR/tests/scripts/dashboard_check.py" "$GL_SOURCE_DIR/contrib/grafana/gauntlet.json" "$T"/scrape.*.txt | tail -1 | sed 's/^/   /'
# The webhook's messages against the report: one start, each fault's
# injected and reverted (a drain naming its node, a flap its link), per
# target target_missed and target_recovered in turn, every target the run saw failing missed
# (the report's failing steady/degraded targets among them), the end with
# the report's verdict; nothing lost (report.json's counts).
check "webhook: start, every fault injected and reverted, target_missed and target_recovered in turn, the end with the verdict" \
	python3 - "$T/hook.jsonl" "$R/report.json" <<'PY'
import json, sys
msgs = [json.loads(l)["body"] for l in open(sys.argv[1])]
r = json.load(open(sys.argv[2]))
ev = [m["event"] for m in msgs]
bad = []
if ev.count("start") != 1 or ev[0] != "start": bad.append("start: %s" % ev[:3])
for f in r["faults"]:
    states = [m["fault"]["state"] for m in msgs if m["event"] == "fault" and m["fault"]["id"] == f["id"]]
    if states != ["injected", "reverted"]: bad.append("fault %s: %s" % (f["id"], states))
missed = [(m["target"]["scope"], m["target"]["metric"], m["target"]["expr"]) for m in msgs if m["event"] == "target_missed"]
# per target: missed, recovered, missed... (a withdrawal only follows a miss)
seq = {}
for m in msgs:
    if m["event"] in ("target_missed", "target_recovered"):
        seq.setdefault((m["target"]["scope"], m["target"]["metric"], m["target"]["expr"]), []).append(m["event"])
for k, v in seq.items():
    if any(e != ("target_missed", "target_recovered")[i % 2] for i, e in enumerate(v)): bad.append("%s: %s" % (k, v))
failing = {(t["scope"], t["metric"]) for t in r["targets"] if t["scope"] in ("steady", "degraded") and not t["pass"]}
if not failing <= {(a, b) for a, b, _ in missed}: bad.append("failing %s, missed %s" % (failing, missed))
# the drain names its node, the flap its link (what they act on, not the host that ran them)
for m in msgs:
    if m["event"] == "fault" and m["fault"]["kind"] == "drain_worker" and not m["fault"]["subject"].startswith("node "): bad.append("drain subject: %s" % m["fault"])
    if m["event"] == "fault" and m["fault"]["kind"] == "link_flap" and not m["fault"]["subject"].startswith("link "): bad.append("flap subject: %s" % m["fault"])
end = [m for m in msgs if m["event"] == "end"]
if len(end) != 1 or ev[-1] != "end" or end[0]["verdict"] != r["verdict"]: bad.append("end: %s" % end)
n = r.get("notify", {})
w = n.get("webhooks", [{}])[0]
if w.get("failed") != 0 or w.get("dropped") != 0 or w.get("sent", 0) < len(msgs) - 1: bad.append("counts: %s" % w)
print("   webhook: %d messages: %s; report.json notify: %s" % (len(msgs), ", ".join("%s %d" % (e, ev.count(e)) for e in dict.fromkeys(ev)), json.dumps(n)))
for b in bad: print("   " + b)
sys.exit(1 if bad else 0)
PY
check "lab soak: one fault of each kind the lab takes" json "$R/report.json" \
	"sorted(f['kind'] for f in r['faults']) == sorted(['drain_worker', 'link_flap', 'storage_throttle', 'control_plane_loss', 'process_kill', 'model_swap', 'partition']) or sys.exit(1)"
json "$R/report.json" "'\n'.join('%-13s %-10s verified %s/%s recovery_s %s restore_s %s' % (f['id'], f['state'], f['verified'], f.get('verified_revert'), f['recovery_s'], f['restore_s']) for f in r['faults'])"
check "lab soak: every fault injected, verified, reverted and verified reverted" json "$R/report.json" \
	"all((f['state'], f['verified'], f.get('verified_revert')) == ('reverted', True, True) for f in r['faults']) or sys.exit(1)"
check "lab soak: every fault has recovery_s and restore_s" json "$R/report.json" \
	"all(f['recovery_s'] is not None and f['restore_s'] is not None for f in r['faults']) or sys.exit(1)"
check "lab soak: every target judged, none missing" json "$R/report.json" \
	"len(r['targets']) >= 12 and all(t['pass'] and not t.get('missing') for t in r['targets']) or sys.exit(1)"
reqs() { python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])" "$R/run.db" "$1"; }
check "drain: the agent stopped lab-w1's replica and started it again" \
	bash -c "grep -q 'node lab-w1 drained: stopping the replica' '$LAB/logs/agent-w1.log' && grep -q 'node lab-w1 resumed' '$LAB/logs/agent-w1.log'"
# lab-w1 (endpoint 0) is touched by the drain only, lab-w2 (endpoint 1) by the flap and the partition
N0=$(reqs "select count(*) from requests where endpoint=0 and error_class='connect'")
check "drain: requests to lab-w1 refused while it was drained ($N0 connect errors)" [ "${N0:-0}" -gt 0 ]
N1=$(reqs "select count(*) from requests where endpoint=1 and error_class in ('connect','timeout_total','timeout_ttft')")
check "flap and partition: requests to lab-w2 failed while it was cut off ($N1)" [ "${N1:-0}" -gt 0 ]
check "no request was answered from outside the machine (no 4xx while a worker was unreachable)" json "$R/report.json" \
	"r['metrics']['inference']['errors_by_class']['http_4xx'] == 0 or sys.exit(1)"
# the LoRA swap: the adapter's requests fail in their own class, and only while it is away
NM=$(reqs "select count(*) from requests where error_class='model_not_found'")
check "model swap: requests to the unloaded adapter failed as model_not_found ($NM)" [ "${NM:-0}" -gt 0 ]
NO=$(reqs "select count(*) from requests r, faults f where f.id='swap-lora' and r.error_class='model_not_found' and (r.t_send_ns < f.injected_elapsed_ns - 50000000 or r.t_send_ns > f.reverted_elapsed_ns + 50000000)")
check "model swap: none of them outside the swap ($NO)" [ "${NO:-x}" = 0 ]
check "model swap: the adapter's reload measured (the replicas' 0.3 s load time)" json "$R/report.json" \
	"(lambda f: f['measured']['adapter_load_s'] >= 0.3 and f['recovery_s'] is not None)(next(x for x in r['faults'] if x['id'] == 'swap-lora')) or sys.exit(1)"
check "every worker served requests (4)" [ "$(reqs "select count(distinct endpoint) from requests where http_status=200")" = 4 ]
python3 - "$R" >"$T/throttle.txt" <<'PY'
import csv, json, sys
r = json.load(open(sys.argv[1] + "/report.json"))
f = next(x for x in r["faults"] if x["id"] == "throttle")
rows = list(csv.DictReader(open(sys.argv[1] + "/timeseries.csv")))
w = lambda x: float(x["storage.write_gbps"] or 0)
ts = r["run"]["time_scale"]   # fault times are scenario time, windows real time
a, b = f["injected_at_s"] / ts, f["reverted_at_s"] / ts
inside = [w(x) for x in rows if float(x["start_s"]) >= a and float(x["start_s"]) + 2 <= b]
print("throttle windows (GB/s):", inside, file=sys.stderr)
steady = sorted(w(x) for x in rows if x["scope"] == "steady" and x["phase"] == "steady")
print(max(inside) if inside else -1, steady[len(steady) // 2] if steady else -1)
PY
read -r THR STEADY <"$T/throttle.txt"
check "throttle: storage writes held down while throttled (max $THR GB/s inside, median steady $STEADY GB/s)" \
	python3 -c "import sys; t, s = float(sys.argv[1]), float(sys.argv[2]); sys.exit(not (0 <= t < s / 2))" "$THR" "$STEADY"
check "etcd loss: writes failed over to the other members (control_plane_recovery_s measured)" json "$R/report.json" \
	"(lambda f: f['measured']['control_plane_recovery_s'] >= 0)(next(x for x in r['faults'] if x['id'] == 'etcd-loss')) or sys.exit(1)"
check "etcd loss: member 2 restarted by the revert, the 3 members healthy" \
	env ETCDCTL_API=3 etcdctl --endpoints "$(json "$INV" "','.join(r['etcd']['endpoints'])")" --dial-timeout 2s endpoint health
check "kill-rank: the job was relaunched and restored from a checkpoint" json "$R/report.json" \
	"(lambda c: c['restores'] >= 1 and c['restore_s_max'] > 0)(r['metrics']['training']['checkpoint']) or sys.exit(1)"
check "partition: no nft table of the run left" bash -c "t=\$(nft list tables) && ! grep -q gauntlet_ <<< \"\$t\""
json "$R/report.json" "'\n'.join('   incident %s at %.1f s: %s' % (x['kind'], x['start_s'], x['what']) for x in r['incidents']['list']) or '   no incident'"
check "lab soak: every scheduled failure is explained: no incident counted (kill-rank's relaunch included)" json "$R/report.json" \
	"r['incidents']['counted'] == 0 and not any(x['kind'].startswith('training.') for x in r['incidents']['list']) or sys.exit(1)"

# --- 2b. a rank killed by this test, not by a fault: one incident, a failed verdict -------
cat > "$T/unscheduled.json" <<JSON
{
  "name": "lab-unscheduled", "inventory": "$INV", "duration": "40s", "window": "2s", "hold": 2,
  "incidents": { "max": 0 },
  "workloads": {
    "inference": { "endpoints": "\${inference.endpoints}", "api": "chat", "model": "gauntlet-target",
                   "arrival": { "mode": "poisson", "rate": 10 }, "output_tokens": 16, "timeout": "8s" },
    "training": { "launcher": "mpirun", "hosts": ["lab-ctl:2"], "backend": "mpi",
                  "binary": "\${training.binary}", "launcher_args": "\${training.launcher_args}",
                  "message": "1MiB", "compute": "25ms", "heartbeat": "200ms", "restart_backoff": "500ms",
                  "checkpoint": { "dir": "\${training.checkpoint_dir}/unscheduled", "every_steps": 50, "size": "8MiB" } }
  },
  "phases": [ { "name": "warmup", "for": "6s", "scope": "none" }, { "name": "steady", "for": "34s" } ],
  "targets": { "steady": { "inference.error_rate": "<= 0.05", "training.steps": ">= 5" } }
}
JSON
CK=$(json "$INV" "r['training']['checkpoint_dir']")/unscheduled
"$GAUNTLET" run "$T/unscheduled.json" --out "$T/unsch" >"$T/unsch.log" 2>&1 &
UPID=$!
PIDS+=("$UPID")
until_ok 90 sql_is "$T/unsch/run.db" "select elapsed_ns >= 20000000000 from run" 1
VICTIM=$(pgrep -n -f "gauntlet-train .*--ckpt-dir $CK")
[ -n "$VICTIM" ] && kill -KILL "$VICTIM"
wait "$UPID"; rc=$?
check "unscheduled kill: the test killed rank pid ${VICTIM:-none} at 20 s; the run fails (exit $rc, want 1)" \
	bash -c "[ -n '$VICTIM' ] && [ $rc -eq 1 ]"
json "$T/unsch/report.json" "'\n'.join('   incident %s at %.1f s: %s; %s' % (x['kind'], x['start_elapsed_s'], x['what'], x['event']) for x in r['incidents']['list']) or '   no incident'"
check "unscheduled kill: one incident, training.failure, after the kill; counted against max 0: the verdict fails" \
	json "$T/unsch/report.json" \
	"r['incidents']['count'] == 1 and r['incidents']['list'][0]['kind'] == 'training.failure' and 19 <= r['incidents']['list'][0]['start_elapsed_s'] <= 26 and (r['incidents']['counted'], r['incidents']['max'], r['incidents']['pass'], r['verdict']) == (1, 0, False, 'fail') or sys.exit(1)"
fi

# --- 2c. load agents on the lab's Slurm through srun --------------------------------------
# Two inference agents as Slurm job steps, pinned by "hosts" to lab-w2 and
# lab-w1 (inventory hosts whose slurm_node is their name, reached through
# the local transport: srun must name them lab-w2/lab-w1, not localhost),
# each inside that worker's network namespace, dialling the controller's
# lab address; the run counts both shares. Their server listens on that
# address too (2d checks that workers reach each other's replicas).
CTL_IP=$(json "$INV" "r['slurm']['controller']")
"$GAUNTLET" target --listen "$CTL_IP:0" --ready-file "$T/ctl-target.ready" --ttft-ms 20 --itl-ms 2 \
	>"$T/ctl-target.log" 2>&1 &
PIDS+=("$!")
wait_for "$T/ctl-target.ready" 10
CTL_TARGET=$(cat "$T/ctl-target.ready" 2>/dev/null)
cat > "$T/srun-agents.json" <<JSON
{
  "name": "lab-srun-agents", "inventory": "$INV", "duration": "12s", "window": "2s",
  "workloads": {
    "inference": { "endpoints": ["http://$CTL_TARGET/v1"], "api": "chat", "model": "gauntlet-target",
                   "arrival": { "mode": "constant", "rate": 40 }, "output_tokens": 8, "timeout": "8s",
                   "agents": { "launcher": "srun", "count": 2, "listen": "\${slurm.controller}:0",
                               "hosts": ["lab-w2", "lab-w1"],
                               "launcher_args": ["--partition=lab"] } }
  },
  "targets": { "steady": { "inference.error_rate": "<= 0.05", "inference.ttft_ms.p99": "<= 5000",
                           "agents.delivered_ratio": ">= 0.5" } }
}
JSON
SLURM_CONF=$(json "$INV" "r['slurm']['conf']") "$GAUNTLET" run "$T/srun-agents.json" --out "$T/srun" >"$T/srun.log" 2>&1 &
SPID=$!
PIDS+=("$SPID")
AGNS=""
# Until both agents connected, the run ended or 30 s passed: each pass
# looks only at processes named gauntlet (a pass over every process of a
# loaded machine takes seconds, and 150 of them outlast ctest's timeout).
# agents_seen: one pass; true once both connected and one was seen, or
# the run ended (AGNS gathers across passes: until_ok runs it here)
agents_seen() {
	local p ns SRID
	gone "$SPID" && return 0
	SRID=$(sql "$T/srun/run.db" "select id from run" 2>/dev/null)
	[ -n "$SRID" ] || return 1
	for p in $(pgrep -x gauntlet); do
		{ tr '\0' '\n' < /proc/$p/environ; } 2>/dev/null | grep -qx "GAUNTLET_RUN_ID=$SRID" || continue
		[ "$(basename "$(readlink /proc/$p/exe 2>/dev/null)")" = gauntlet ] || continue
		[ "$({ tr '\0' ' ' < /proc/$p/cmdline; } 2>/dev/null | cut -d' ' -f2)" = agent ] || continue
		ns=$(readlink /proc/$p/ns/net 2>/dev/null)
		[ -n "$ns" ] && case " $AGNS " in *" $ns "*) ;; *) AGNS="$AGNS $ns" ;; esac
	done
	[ "$(echo $AGNS | wc -w)" -ge 2 ] &&
		sql_is "$T/srun/run.db" "select count(*) from events where message like '%connected from%'" 2
}
until_ok 60 agents_seen
wait "$SPID"; rc=$?
check "srun agents: the run passes (exit $rc)" [ $rc -eq 0 ]
check "srun agents: 2 srun launches recorded, 2 agents connected" python3 -c "
import sqlite3; c=sqlite3.connect('$T/srun/run.db')
l=c.execute(\"select count(*) from children where source='agents' and what like 'srun %'\").fetchone()[0]
n=c.execute(\"select count(*) from events where source='agents' and message like '%connected from%'\").fetchone()[0]
assert (l, n) == (2, 2), (l, n)"
WANT_NS=$(for w in 1 2; do echo "net:[$(stat -L -c %i /run/netns/gl-lab-w$w 2>/dev/null)]"; done | sort | tr '\n' ' ')
GOT_NS=$(echo $AGNS | tr ' ' '\n' | sort | tr '\n' ' ')
check "srun agents: they ran in lab-w1's and lab-w2's namespaces, as pinned ($GOT_NS)" [ "$GOT_NS" = "$WANT_NS" ]
check "srun agents: srun named the nodes lab-w1 and lab-w2 (--nodelist)" python3 -c "
import sqlite3; c=sqlite3.connect('$T/srun/run.db')
w=[r[0] for r in c.execute(\"select what from children where source='agents' and what like 'srun %'\")]
got=sorted(x.split('--nodelist=')[1].split()[0] for x in w if '--nodelist=' in x)
print('srun nodelists:', got); assert got == ['lab-w1', 'lab-w2'], w"
check "srun agents: both shares counted (12 s at 40/s: more than 400 requests)" python3 -c "
import sqlite3; c=sqlite3.connect('$T/srun/run.db')
n=c.execute(\"select sum(counter) from window_metrics where name='inference.requests'\").fetchone()[0]
m=c.execute(\"select coalesce(sum(counter),0) from window_metrics where name='agents.missing'\").fetchone()[0]
assert n > 400 and m == 0, (n, m)"

# --- 2d. workers reach each other, and nothing else ---------------------------------------
# A worker reaches another worker's replica through the host, as a
# cluster's nodes reach each other; the host forwards nothing between a
# worker's link and any other interface, either way. The "other interface"
# is a veth into a namespace of this test's own (10.78.0.0/24), and nft
# counters at each far end count what arrives: pings from lab-w1 to it,
# and from it to lab-w1, must arrive nowhere; with the lab's filter set
# aside the same pings arrive (the checks can go red).
W1=$(json "$INV" "r['workers'][0]['address']")
W2_EP=$(json "$INV" "r['workers'][1]['endpoint']")
code=$(ip netns exec gl-lab-w1 curl -s -m 10 -o /dev/null -w '%{http_code}' "$W2_EP/models" 2>/dev/null)
check "forwarding: lab-w1 reaches lab-w2's replica ($W2_EP/models: HTTP $code)" [ "$code" = 200 ]
FNS=gl-fwdtest-$$
ip netns add "$FNS"
ip link add "gl-fwt$$h" type veth peer name "gl-fwt$$n" && ip link set "gl-fwt$$n" netns "$FNS" &&
	ip addr add 10.78.0.1/24 dev "gl-fwt$$h" && ip link set "gl-fwt$$h" up &&
	ip -n "$FNS" addr add 10.78.0.2/24 dev "gl-fwt$$n" && ip -n "$FNS" link set "gl-fwt$$n" up &&
	ip -n "$FNS" route add 10.77.0.0/16 via 10.78.0.1 &&
	echo 1 > "/proc/sys/net/ipv4/conf/gl-fwt$$h/forwarding"
# a counter of what arrives from FROM, in namespace NS (table gl_fwdtest)
arrivals_table() { # NS FROM
	ip netns exec "$1" nft -f - <<NFT
table inet gl_fwdtest {
	chain pre { type filter hook prerouting priority -300; ip saddr $2 counter; }
}
NFT
}
arrived() { # NS: packets counted so far
	ip netns exec "$1" nft list table inet gl_fwdtest 2>/dev/null | sed -n 's/.*counter packets \([0-9]*\).*/\1/p'
}
arrivals_table "$FNS" 10.77.0.0/16
arrivals_table gl-lab-w1 10.78.0.0/24
pings() {
	ip netns exec gl-lab-w1 ping -c 3 -i 0.2 -W 1 10.78.0.2 >/dev/null 2>&1
	ip netns exec "$FNS" ping -c 3 -i 0.2 -W 1 "$W1" >/dev/null 2>&1
	true
}
pings
out_n=$(arrived "$FNS"); in_n=$(arrived gl-lab-w1)
check "forwarding: nothing from a worker leaves the lab's links (lab-w1 -> 10.78.0.2: ${out_n:-?} packets arrived)" [ "$out_n" = 0 ]
check "forwarding: nothing from elsewhere enters a worker (10.78.0.2 -> lab-w1: ${in_n:-?} packets arrived)" [ "$in_n" = 0 ]
nft delete table inet gl_lab_forward 2>/dev/null
pings
out_n=$(arrived "$FNS"); in_n=$(arrived gl-lab-w1)
check "forwarding: the same pings arrive with the lab's filter set aside ($out_n out, $in_n in: the checks can fail)" \
	[ "${out_n:-0}" -gt 0 -a "${in_n:-0}" -gt 0 ]
ip netns exec gl-lab-w1 nft delete table inet gl_fwdtest 2>/dev/null
ip link del "gl-fwt$$h" 2>/dev/null
ip netns del "$FNS" 2>/dev/null

# --- 3. down leaves nothing ---------------------------------------------------------------
"$GAUNTLET" lab down --dir "$LAB" >"$T/down.log" 2>&1; rc=$?
cat "$T/down.log"
check "lab down: exit 0" [ $rc -eq 0 ]
leftovers "$ID" >"$T/left.txt"
check "lab down: nothing left (process, namespace, link, route, nft table, cgroup, mount, directory)" [ -n "$ID" -a ! -s "$T/left.txt" ]
cat "$T/left.txt"
"$GAUNTLET" lab status --dir "$LAB" >/dev/null 2>&1; rc=$?
check "lab status after down: exit 3 (no lab)" [ $rc -eq 3 ]

# --- 4. lab up SIGKILLed halfway -----------------------------------------------------------
crash_up() { # start lab up, SIGKILL it once slurmctld is journaled
	"$GAUNTLET" lab up --dir "$LAB" >"$T/crash.log" 2>&1 &
	local pid=$!
	wait_log "$LAB/lab.journal" $'^proc\tslurmctld' 60
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
}
crash_up
CID=$(labid)
check "crashed up: it had started processes (lab $CID: $(marked "$CID" | wc -l)) and left no inventory" \
	bash -c "[ -n '$CID' ] && [ -n '$(marked "$CID")' ] && [ ! -e '$LAB/inventory.json' ]"
"$GAUNTLET" lab status --dir "$LAB" >"$T/cstatus.log" 2>&1; rc=$?
check "crashed up: status says it stopped halfway (exit 3)" bash -c "[ $rc -eq 3 ] && grep -q 'stopped halfway' '$T/cstatus.log'"
"$GAUNTLET" lab down --dir "$LAB" >"$T/cdown.log" 2>&1; rc=$?
check "crashed up: lab down exits 0" [ $rc -eq 0 ]
leftovers "$CID" >"$T/left2.txt"
check "crashed up: lab down left nothing" [ ! -s "$T/left2.txt" ]
cat "$T/left2.txt"

crash_up
CID=$(labid)
"$GAUNTLET" lab up --dir "$LAB" >"$T/up3.log" 2>&1; rc=$?
check "up after a crashed up: takes the unfinished lab down first, then builds (exit $rc)" \
	bash -c "[ $rc -eq 0 ] && grep -q 'unfinished lab' '$T/up3.log'"
check "up after a crashed up: nothing of the crashed lab (${CID:-no id}) runs" [ -n "$CID" -a -z "$(marked "$CID")" ]
NID=$(labid)
"$GAUNTLET" lab down --dir "$LAB" >/dev/null 2>&1
leftovers "$NID" >"$T/left3.txt"
check "and its down leaves nothing" [ ! -s "$T/left3.txt" ]
cat "$T/left3.txt"
finish
