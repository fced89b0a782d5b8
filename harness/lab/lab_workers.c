/*
 * lab_workers.c - the lab's workers part: per worker a `gauntlet lab agent`
 * keeping a `gauntlet target` replica serving in the worker's namespace.
 */
#define _GNU_SOURCE
#include "lab_int.h"

#include <stdio.h>

/* ---- part: workers (inference replicas) -------------------------------------------- */

void lab_up_workers(struct lab *L)
{
	cJSON *eps = cJSON_CreateArray(), *ws = cJSON_CreateArray();
	int slurm = cJSON_GetObjectItemCaseSensitive(L->inv, "slurm") != NULL;

	for (int w = 1; w <= L->workers; w++) {
		char ip[32], listen[64], name[32], log[1100], node[32], url[128], ns[32];
		int port = L->net ? LAB_TARGET_PORT : lab_free_port();
		const char *argv[24];
		int n = 0;
		cJSON *o;

		if (L->net)
			lab_worker_ip(w, 0, ip, sizeof(ip));
		else
			snprintf(ip, sizeof(ip), "127.0.0.1");
		snprintf(listen, sizeof(listen), "%s:%d", ip, port);
		snprintf(name, sizeof(name), "agent-w%d", w);
		snprintf(node, sizeof(node), "lab-w%d", w);
		snprintf(ns, sizeof(ns), "gl-lab-w%d", w);
		snprintf(log, sizeof(log), "%s/logs/agent-w%d.log", L->dir, w);
		argv[n++] = L->self;
		argv[n++] = "lab";
		argv[n++] = "agent";
		argv[n++] = "--listen";
		argv[n++] = listen;
		if (L->net) {
			argv[n++] = "--netns";
			argv[n++] = ns;
		}
		if (slurm) {
			argv[n++] = "--slurm-node";
			argv[n++] = node;
		}
		argv[n] = NULL;
		if (lab_spawn(L, name, log, argv) < 0 || !lab_wait_tcp(ip, port, 15)) {
			lab_part(L, "workers", 0, "the replica of worker %d does not listen on %s (see %s)", w, listen,
				 log);
			cJSON_Delete(eps);
			cJSON_Delete(ws);
			return;
		}
		snprintf(url, sizeof(url), "http://%s/v1", listen);
		cJSON_AddItemToArray(eps, cJSON_CreateString(url));
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", node);
		cJSON_AddStringToObject(o, "address", ip);
		cJSON_AddStringToObject(o, "endpoint", url);
		if (L->net) {
			char h[32];
			snprintf(h, sizeof(h), "gl-lab-w%dh", w);
			cJSON_AddStringToObject(o, "netns", ns);
			cJSON_AddStringToObject(o, "link", h);
			lab_worker_ip(w, 1, ip, sizeof(ip));
			cJSON_AddStringToObject(o, "host_address", ip);
		}
		cJSON_AddItemToArray(ws, o);
	}
	cJSON_AddItemToObject(lab_inv_obj(L, "inference"), "endpoints", eps);
	cJSON_AddItemToObject(L->inv, "workers", ws);
	lab_part(L, "workers", 1, "%d replicas of gauntlet target, each kept serving by `gauntlet lab agent`%s",
		 L->workers, slurm ? " (stopped while Slurm has its node drained)" : "");
}
