/*
 * lab_etcd.c - the lab's etcd part: three members on 127.0.0.1, started
 * by DIR/bin/etcd-member.
 */
#define _GNU_SOURCE
#include "lab_int.h"

#include <stdio.h>
#include <string.h>

/* ---- part: etcd ------------------------------------------------------------------------ */

/* DIR/bin/etcd-member: starts member N (1-3) detached, with the ports
 * given; 0, or -1 when it cannot be written. */
static int write_member_script(struct lab *L, const char *script, const int *cport, const int *pport,
			       const char *cluster)
{
	char qd[2300], qid[200], qcl[1100], dd[1100];
	struct gl_buf b;
	int rc;

	snprintf(dd, sizeof(dd), "%s/etcd", L->dir);
	lab_shq(qd, sizeof(qd), dd);
	lab_shq(qid, sizeof(qid), L->id);
	lab_shq(qcl, sizeof(qcl), cluster);
	gl_buf_init(&b, 1 << 16);
	gl_buf_printf(&b,
		      "#!/bin/sh\n"
		      "# etcd-member N: start lab etcd member N (1-3) detached, its pid in %s/etcd/mN.pid.\n"
		      "# Used by `gauntlet lab up` and by the lab soak's control_plane_loss revert.\n"
		      "# Written by gauntlet lab up; removed by gauntlet lab down.\n"
		      "set -eu\n"
		      "D=%s\n"
		      "export %s=%s\n"
		      "case \"${1:-}\" in\n",
		      L->dir, qd, LAB_MARK, qid);
	for (int i = 0; i < 3; i++)
		gl_buf_printf(&b, "%d) C=%d; P=%d ;;\n", i + 1, cport[i], pport[i]);
	gl_buf_printf(
		&b,
		"*) echo \"usage: $0 1|2|3\" >&2; exit 2 ;;\n"
		"esac\n"
		"N=$1\n"
		"if [ -f \"$D/m$N.pid\" ] && kill -0 \"$(cat \"$D/m$N.pid\")\" 2>/dev/null; then\n"
		"\techo \"member m$N already runs (pid $(cat \"$D/m$N.pid\"))\" >&2; exit 0\n"
		"fi\n"
		"STATE=new\n"
		"[ -d \"$D/m$N/member\" ] && STATE=existing\n"
		"setsid -f sh -c 'echo $$ > \"$0\"; exec \"$@\"' \"$D/m$N.pid\" \\\n"
		"\tetcd --name \"m$N\" --data-dir \"$D/m$N\" \\\n"
		"\t--listen-client-urls \"http://127.0.0.1:$C\" --advertise-client-urls \"http://127.0.0.1:$C\" \\\n"
		"\t--listen-peer-urls \"http://127.0.0.1:$P\" --initial-advertise-peer-urls \"http://127.0.0.1:$P\" "
		"\\\n"
		"\t--initial-cluster %s --initial-cluster-state \"$STATE\" \\\n"
		"\t--initial-cluster-token %s --heartbeat-interval 100 --election-timeout 1000 \\\n"
		"\t</dev/null >>\"$D/m$N.log\" 2>&1\n"
		"i=0\n"
		"while [ ! -s \"$D/m$N.pid\" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done\n",
		qcl, qid);
	rc = lab_write_text(script, b.data, 0700);
	gl_buf_free(&b);
	return rc;
}

/* Up to 30 s for `etcdctl endpoint health` to pass on eps; 1 when it
 * did, else 0 with its last output in out. */
static int wait_healthy(const char *eps, char *out, size_t outn)
{
	char epflag[600];
	int ok = 0;

	snprintf(epflag, sizeof(epflag), "--endpoints=%s", eps);
	for (int i = 0; i < 150 && !ok; i++) {
		ok = LAB_RUN(out, outn, 5000, "env", "ETCDCTL_API=3", "etcdctl", epflag, "--dial-timeout=1s",
			     "--command-timeout=2s", "endpoint", "health") == 0;
		if (!ok)
			lab_sleep_ms(200);
	}
	return ok;
}

/* inventory: etcd.endpoints and etcd.members (each with its start command) */
static void add_inventory(struct lab *L, const char *script, const int *cport)
{
	cJSON *e = lab_inv_obj(L, "etcd");
	cJSON *epa = cJSON_AddArrayToObject(e, "endpoints");
	cJSON *members = cJSON_AddArrayToObject(e, "members");

	for (int i = 0; i < 3; i++) {
		char url[64], pf[1200], n[4];
		cJSON *m = cJSON_CreateObject();
		snprintf(url, sizeof(url), "http://127.0.0.1:%d", cport[i]);
		snprintf(pf, sizeof(pf), "%s/etcd/m%d.pid", L->dir, i + 1);
		snprintf(n, sizeof(n), "%d", i + 1);
		cJSON_AddItemToArray(epa, cJSON_CreateString(url));
		cJSON_AddStringToObject(m, "name", n);
		cJSON_AddStringToObject(m, "endpoint", url);
		cJSON_AddStringToObject(m, "pidfile", pf);
		cJSON_AddItemToObject(m, "start", lab_str_array((const char *const[]){ script, n, NULL }));
		cJSON_AddItemToArray(members, m);
	}
}

void lab_up_etcd(struct lab *L)
{
	char script[1100], out[2048], cluster[512] = "", eps[512] = "";
	int cport[3], pport[3];

	if (!lab_have("etcd") || !lab_have("etcdctl")) {
		lab_part(L, "etcd", 0,
			 "etcd or etcdctl is not installed (Debian: apt-get install etcd-server etcd-client)");
		return;
	}
	for (int i = 0; i < 3; i++) {
		cport[i] = lab_free_port();
		pport[i] = lab_free_port();
		if (cport[i] < 0 || pport[i] < 0 || cport[i] == pport[i]) {
			lab_part(L, "etcd", 0, "no free ports on 127.0.0.1");
			return;
		}
		snprintf(cluster + strlen(cluster), sizeof(cluster) - strlen(cluster), "%sm%d=http://127.0.0.1:%d",
			 i ? "," : "", i + 1, pport[i]);
		snprintf(eps + strlen(eps), sizeof(eps) - strlen(eps), "%shttp://127.0.0.1:%d", i ? "," : "", cport[i]);
	}
	snprintf(script, sizeof(script), "%s/bin/etcd-member", L->dir);
	if (write_member_script(L, script, cport, pport, cluster) != 0) {
		lab_part(L, "etcd", 0, "cannot write %s", script);
		return;
	}
	for (int i = 0; i < 3; i++) {
		char n[4], pf[1200];
		snprintf(n, sizeof(n), "%d", i + 1);
		snprintf(pf, sizeof(pf), "%s/etcd/m%d.pid", L->dir, i + 1);
		lab_journal_add(L, "pidfile\tetcd-m%d\t%s", i + 1, pf);
		if (LAB_RUN(out, sizeof(out), 10000, script, n) != 0) {
			lab_part(L, "etcd", 0, "%s %s: %.300s", script, n, out);
			return;
		}
	}
	if (!wait_healthy(eps, out, sizeof(out))) {
		lab_part(L, "etcd", 0, "the 3 members are not healthy after 30 s: %.300s (logs %s/etcd/m*.log)", out,
			 L->dir);
		return;
	}
	add_inventory(L, script, cport);
	lab_part(L, "etcd", 1, "3 members on %s", eps);
}
