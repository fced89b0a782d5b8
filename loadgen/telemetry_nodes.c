/*
 * telemetry_nodes.c - the telemetry workload's per-GPU figures
 * (telemetry_nodes.h, docs/nodes.md). A GPU is named HOST/gpuN: HOST the
 * exporter's Hostname label, else the scenario host whose name, ssh host,
 * address or Slurm node is the probe URL's host, else that host:port; N
 * its "gpu" label (else its UUID, else its device), "/migM" added for a
 * MIG instance (GPU_I_ID). Its host is the scenario host whose name, ssh
 * host, address or Slurm node is the Hostname label, else the URL's host,
 * else the Hostname label (else the URL's host) as it is.
 *
 * The scrape thread tallies readings per GPU under a mutex (gl_ctx_node is
 * the loop thread's); the loop thread moves the tallies into the window
 * at each window close and at stop.
 */
#include "telemetry_nodes.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodes.h"
#include "scenario.h"

static const char *const fig_name[TL_GPU_NFIG] = { "temp_c", "sm_clock_mhz", "xid", "ecc_dbe" };
static const char *const fig_series[TL_GPU_NFIG] = { "gpu_temp", "sm_clock", "xid_errors", "ecc_dbe" };

#define SLOTS (TL_GPUS_MAX * 2)

struct gpu {
	char name[GL_NODE_NAME_MAX], host[GL_NODE_NAME_MAX];
	int64_t n[TL_GPU_NFIG];
	double sum[TL_GPU_NFIG], max[TL_GPU_NFIG];
};

struct tl_gpus {
	struct gl_ctx *ctx;
	pthread_mutex_t mu;
	struct gpu *g;
	int n;
	int slot[SLOTS]; /* index into g, -1 free */
	int full, full_logged;
};

struct tl_gpus *tl_gpus_new(struct gl_ctx *c)
{
	struct tl_gpus *g = calloc(1, sizeof(*g));

	if (!g || !(g->g = calloc(TL_GPUS_MAX, sizeof(*g->g)))) {
		free(g);
		return NULL;
	}
	g->ctx = c;
	pthread_mutex_init(&g->mu, NULL);
	memset(g->slot, 0xff, sizeof(g->slot));
	return g;
}

void tl_gpus_free(struct tl_gpus *g)
{
	if (!g)
		return;
	pthread_mutex_destroy(&g->mu);
	free(g->g);
	free(g);
}

int tl_gpu_figure(const char *series)
{
	for (int i = 0; i < TL_GPU_NFIG; i++)
		if (!strcmp(fig_series[i], series))
			return i;
	return -1;
}

/* url's "host:port" into addr and its host into host ("[v6]" unwrapped;
 * userinfo never kept). */
static void url_host(const char *url, char *addr, size_t na, char *host, size_t nh)
{
	const char *p = strstr(url, "://"), *end;
	size_t n;

	p = p ? p + 3 : url;
	end = p + strcspn(p, "/?#");
	for (const char *at = p; at < end; at++)
		if (*at == '@')
			p = at + 1;
	n = (size_t)(end - p) < na - 1 ? (size_t)(end - p) : na - 1;
	memcpy(addr, p, n);
	addr[n] = '\0';
	if (addr[0] == '[')
		snprintf(host, nh, "%.*s", (int)strcspn(addr + 1, "]"), addr + 1);
	else
		snprintf(host, nh, "%.*s", (int)strcspn(addr, ":"), addr);
}

/* The scenario host text names (its name, ssh host, address, Slurm node). */
static const char *scenario_host(struct gl_ctx *c, const char *text)
{
	const struct gl_scenario *sc = gl_ctx_scenario(c);

	for (int i = 0; text && *text && sc && i < sc->n_hosts; i++) {
		const struct gl_host *h = &sc->hosts[i];
		if (!strcmp(h->name, text) || !strcmp(h->ssh_host, text) || !strcmp(h->address, text) ||
		    !strcmp(gl_host_slurm_node(h), text))
			return h->name;
	}
	return NULL;
}

/* s's GPU named into name and host; -1 when s names no GPU. */
static int gpu_names(struct gl_ctx *c, const char *url, const struct gl_prom_sample *s, char *name, char *host)
{
	const char *label = gl_prom_label(s, "Hostname"), *id = gl_prom_label(s, "gpu");
	const char *mig = gl_prom_label(s, "GPU_I_ID"), *sh;
	char addr[GL_NODE_NAME_MAX], uhost[GL_NODE_NAME_MAX], idbuf[GL_NODE_NAME_MAX];

	if (id && *id) {
		snprintf(idbuf, sizeof(idbuf), "gpu%s", id);
	} else if ((id = gl_prom_label(s, "UUID")) && *id) {
		snprintf(idbuf, sizeof(idbuf), "%s", id);
	} else if ((id = gl_prom_label(s, "device")) && *id) {
		snprintf(idbuf, sizeof(idbuf), "%s", id);
	} else {
		return -1;
	}
	url_host(url, addr, sizeof(addr), uhost, sizeof(uhost));
	label = label && *label ? label : NULL;
	sh = scenario_host(c, uhost);
	snprintf(name, GL_NODE_NAME_MAX, "%s/%s%s%s",
		 label     ? label
		 : sh      ? sh
		 : addr[0] ? addr
			   : "-",
		 idbuf, mig && *mig ? "/mig" : "", mig && *mig ? mig : "");
	if (label && scenario_host(c, label))
		sh = scenario_host(c, label);
	snprintf(host, GL_NODE_NAME_MAX, "%s", sh ? sh : label ? label : uhost[0] ? uhost : "-");
	gl_node_text_fix(name);
	gl_node_text_fix(host);
	return 0;
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

int tl_gpu_of(struct tl_gpus *g, const char *url, const struct gl_prom_sample *s)
{
	char name[GL_NODE_NAME_MAX], host[GL_NODE_NAME_MAX];
	uint32_t h;
	int idx = -1;

	if (!g || gpu_names(g->ctx, url, s, name, host) != 0)
		return -1;
	pthread_mutex_lock(&g->mu);
	for (h = name_hash(name) & (SLOTS - 1); g->slot[h] >= 0; h = (h + 1) & (SLOTS - 1))
		if (!strcmp(g->g[g->slot[h]].name, name)) {
			idx = g->slot[h];
			break;
		}
	if (idx < 0 && g->n < TL_GPUS_MAX) {
		idx = g->slot[h] = g->n++;
		snprintf(g->g[idx].name, sizeof(g->g[idx].name), "%s", name);
		snprintf(g->g[idx].host, sizeof(g->g[idx].host), "%s", host);
	} else if (idx < 0) {
		g->full = 1;
	}
	pthread_mutex_unlock(&g->mu);
	return idx;
}

void tl_gpu_note(struct tl_gpus *g, int gpu, int fig, double value, double inc)
{
	struct gpu *x;
	double add = value, top = value;

	if (!g || gpu < 0 || gpu >= TL_GPUS_MAX || fig < 0 || fig >= TL_GPU_NFIG)
		return;
	if (fig == TL_GPU_XID || fig == TL_GPU_DBE) {
		if (!(inc > 0))
			return; /* kept only when it happens */
		add = fig == TL_GPU_XID ? 1 : inc; /* an XID: one change, its code the largest */
		top = fig == TL_GPU_XID ? value : inc;
	}
	pthread_mutex_lock(&g->mu);
	x = &g->g[gpu];
	if (x->n[fig] == 0 || top > x->max[fig])
		x->max[fig] = top;
	x->n[fig]++;
	x->sum[fig] += add;
	pthread_mutex_unlock(&g->mu);
}

void tl_gpus_flush(struct tl_gpus *g)
{
	int log_full = 0;

	if (!g)
		return;
	pthread_mutex_lock(&g->mu);
	for (int i = 0; i < g->n; i++)
		for (int f = 0; f < TL_GPU_NFIG; f++) {
			struct gpu *x = &g->g[i];
			if (x->n[f] == 0)
				continue;
			gl_ctx_node(g->ctx, "telemetry", "gpu", x->name, x->host, fig_name[f], x->n[f], x->sum[f],
				    x->max[f]);
			x->n[f] = 0;
			x->sum[f] = x->max[f] = 0;
		}
	if (g->full && !g->full_logged)
		log_full = g->full_logged = 1;
	pthread_mutex_unlock(&g->mu);
	if (log_full)
		gl_ctx_event(g->ctx, GL_LOG_WARN, "telemetry",
			     "more than %d GPUs: the others' figures are kept for the cluster, not per GPU",
			     TL_GPUS_MAX);
}
