/*
 * lab_status.c - `gauntlet lab status`: each built part checked from the
 * inventory, and reading the inventory back.
 */
#define _GNU_SOURCE
#include "lab_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- status ------------------------------------------------------------------------------------------ */

/* Check each built part; prints one line per part. Returns unhealthy parts. */
int lab_check(struct lab *L, const cJSON *inv, int print)
{
	char out[2048];
	int bad = 0;
	const cJSON *x, *parts = cJSON_GetObjectItemCaseSensitive(inv, "parts"), *p;

#define STATUS(name, ok, ...)                                                                   \
	do {                                                                                    \
		char _m[1024];                                                                  \
		snprintf(_m, sizeof(_m), __VA_ARGS__);                                          \
		if (!(ok))                                                                      \
			bad++;                                                                  \
		if (print)                                                                      \
			printf("lab: %-8s %s: %s\n", name, (ok) ? "healthy" : "UNHEALTHY", _m); \
	} while (0)

	cJSON_ArrayForEach(p, parts)
	{
		const char *st = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "state"));
		const char *nm = p->string;
		if (!st || strcmp(st, "up") != 0) {
			if (print)
				printf("lab: %-8s not built: %s\n", nm,
				       cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "reason")));
			continue;
		}
		if (!strcmp(nm, "net")) {
			int ok = 1;
			char why[256] = "namespaces and links present";
			for (int w = 1; w <= L->workers && ok; w++) {
				char path[64], h[32];
				snprintf(path, sizeof(path), "/run/netns/gl-lab-w%d", w);
				snprintf(h, sizeof(h), "gl-lab-w%dh", w);
				if (access(path, F_OK) != 0) {
					ok = 0;
					snprintf(why, sizeof(why), "namespace gl-lab-w%d is gone", w);
				} else if (LAB_RUN(out, sizeof(out), 5000, "ip", "-o", "link", "show", "dev", h) != 0) {
					ok = 0;
					snprintf(why, sizeof(why), "link %s is gone", h);
				} else if (!strstr(out, "state UP") && !strstr(out, ",UP")) {
					ok = 0;
					snprintf(why, sizeof(why), "link %s is down", h);
				}
			}
			STATUS(nm, ok, "%s", why);
		} else if (!strcmp(nm, "workers")) {
			cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(inv, "workers"))
			{
				const char *a = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, "address"));
				const char *ep = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, "endpoint"));
				const char *c = ep ? strrchr(ep, ':') : NULL;
				int ok = a && c && lab_tcp_ok(a, atoi(c + 1), 1000);
				STATUS(nm, ok, "%s %s",
				       cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, "name")),
				       ok ? "serving" : "not accepting connections");
			}
		} else if (!strcmp(nm, "etcd")) {
			const cJSON *e = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(inv, "etcd"),
									  "endpoints");
			char flag[600] = "--endpoints=";
			int i = 0, ok;
			cJSON_ArrayForEach(x, e) snprintf(flag + strlen(flag), sizeof(flag) - strlen(flag), "%s%s",
							  i++ ? "," : "", x->valuestring);
			ok = LAB_RUN(out, sizeof(out), 8000, "env", "ETCDCTL_API=3", "etcdctl", flag,
				     "--dial-timeout=1s", "--command-timeout=2s", "endpoint", "health") == 0;
			STATUS(nm, ok, "%s", ok ? "3 members healthy" : out);
		} else if (!strcmp(nm, "slurm")) {
			const cJSON *s = cJSON_GetObjectItemCaseSensitive(inv, "slurm");
			const char *conf = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "conf"));
			char env[1200];
			snprintf(env, sizeof(env), "SLURM_CONF=%s", conf ? conf : "");
			cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(s, "nodes"))
			{
				int ok = LAB_RUN(out, sizeof(out), 5000, "env", env, "scontrol", "-o", "show", "node",
						 x->valuestring) == 0 &&
					 !strstr(out, "DOWN") && !strstr(out, "NOT_RESPONDING");
				char *sf = strstr(out, "State=");
				STATUS(nm, ok, "%s %.*s", x->valuestring, sf ? (int)strcspn(sf, " ") : 60,
				       sf ? sf : out);
			}
		} else if (!strcmp(nm, "sshd")) {
			const char *ssh = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(inv, "hosts"),
								 "lab-ssh"),
				"ssh"));
			const char *c = ssh ? strrchr(ssh, ':') : NULL;
			int ok = c && lab_tcp_ok("127.0.0.1", atoi(c + 1), 1000);
			STATUS(nm, ok, "%s %s", ssh ? ssh : "?", ok ? "accepting" : "not accepting connections");
		} else if (!strcmp(nm, "storage")) {
			const cJSON *s = cJSON_GetObjectItemCaseSensitive(inv, "storage");
			const char *path = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "path"));
			int ok = path && access(path, W_OK) == 0;
			STATUS(nm, ok, "%s %s", path ? path : "?", ok ? "writable" : "missing");
		} else {
			STATUS(nm, 1, "%s", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "detail")));
		}
	}
#undef STATUS
	return bad;
}

cJSON *lab_load_inventory(struct lab *L)
{
	char path[1100], *text = NULL;
	size_t len;
	struct gl_err e = { 0 };
	cJSON *inv;

	snprintf(path, sizeof(path), "%s/inventory.json", L->dir);
	if (gl_read_file(path, 1 << 20, &text, &len, &e) != 0)
		return NULL;
	inv = cJSON_ParseWithLength(text, len);
	free(text);
	if (inv) {
		const cJSON *w = cJSON_GetObjectItemCaseSensitive(inv, "workers");
		L->workers = cJSON_IsArray(w) ? cJSON_GetArraySize(w) : L->workers;
	}
	return inv;
}
