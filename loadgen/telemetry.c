/*
 * telemetry.c - the telemetry workload: Prometheus probes of the cluster's
 * own health (DCGM exporter for GPUs, node exporter for hosts), scraped at
 * least once per analysis window so that targets can judge the soak on
 * what the hardware reported: "dcgm.xid_errors.delta == 0",
 * "dcgm.gpu_temp.max <= 85".
 *
 * It issues no load. One scrape thread of its own wakes on an absolute
 * schedule, fetches every probe at once (libcurl multi, one deadline), parses
 * each body with the bounded parser of prom.h and, only when a body parsed
 * whole, records what the scenario keeps into the window's metrics (the
 * recorder is thread-safe): gauges as every reading of every GPU, counters
 * as the increase since the previous scrape of the same series. A failed
 * scrape is data (telemetry.scrape_errors), logged once per probe and kind
 * of failure, never a reason to stop the soak.
 *
 * Config (workloads.telemetry): {"dcgm": [URL...], "node": [URL...],
 * "every": "5s", "timeout": "2s", "series": ["gpu_temp", ...],
 * "max_body": "8MiB", "preflight": true}. docs/telemetry.md has the rest.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "catalog.h"
#include "cfg.h"
#include "http.h"
#include "metrics.h"
#include "plugin.h"
#include "prom.h"
#include "store.h"
#include "telemetry_nodes.h"
#include "telemetry_schema.h"
#include "units.h"

enum { SRC_DCGM, SRC_NODE, N_SRC };
static const char *const src_key[N_SRC] = { "dcgm", "node" };

/* What the probes can keep. The scenario names series by the short name;
 * metric is the catalog name the readings are recorded under. */
struct series_def {
	const char *name;
	int src;
	const char *prom; /* exposition metric name */
	const char *metric;
	int counter; /* 1: increases per window; 0: every reading */
};

static const struct series_def defs[] = {
	{ "gpu_temp", SRC_DCGM, "DCGM_FI_DEV_GPU_TEMP", "dcgm.gpu_temp", 0 },
	{ "power_w", SRC_DCGM, "DCGM_FI_DEV_POWER_USAGE", "dcgm.power_w", 0 },
	{ "gpu_util", SRC_DCGM, "DCGM_FI_DEV_GPU_UTIL", "dcgm.gpu_util", 0 },
	{ "sm_clock", SRC_DCGM, "DCGM_FI_DEV_SM_CLOCK", "dcgm.sm_clock", 0 },
	/* DCGM_FI_DEV_XID_ERRORS holds the last XID seen, not a count: see
	 * apply() for how a change of it shows. */
	{ "xid_errors", SRC_DCGM, "DCGM_FI_DEV_XID_ERRORS", "dcgm.xid_errors.delta", 1 },
	{ "ecc_sbe", SRC_DCGM, "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "dcgm.ecc_sbe.delta", 1 },
	{ "ecc_dbe", SRC_DCGM, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "dcgm.ecc_dbe.delta", 1 },
	{ "pcie_replays", SRC_DCGM, "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "dcgm.pcie_replays.delta", 1 },
	{ "nvlink_crc", SRC_DCGM, "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", "dcgm.nvlink_crc.delta", 1 },
	{ "load1", SRC_NODE, "node_load1", "node.load1", 0 },
	{ "edac_ce", SRC_NODE, "node_edac_correctable_errors_total", "node.edac_ce.delta", 1 },
	{ "edac_ue", SRC_NODE, "node_edac_uncorrectable_errors_total", "node.edac_ue.delta", 1 },
};
#define N_DEFS ((int)GL_ARRAY_LEN(defs))

/* DCGM exporter adds pod/namespace/container labels while a job holds the
 * GPU; they come and go, so a DCGM series is identified by these alone. */
static const char *const dcgm_identity[] = { "gpu", "UUID", "device", "GPU_I_ID", "Hostname", "pci_bus_id", NULL };

#define DEF_EVERY_NS 5000000000LL
#define DEF_TIMEOUT_NS 2000000000LL
#define DEF_MAX_BODY (8u << 20)
#define MAX_PROBES 64
#define MAX_STATES 8192 /* counter series remembered (slots: 2x) */
#define MAX_READINGS 65536 /* kept readings per scrape of one probe */
#define MAX_PENDING 16 /* log lines waiting for the loop thread */

/* Kinds of scrape failure, each logged once per probe. */
enum { FK_CONNECT, FK_TIMEOUT, FK_HTTP, FK_BODY_SIZE, FK_PARSE, FK_OTHER, N_FK };
static const char *const fk_name[N_FK] = { "connect", "timeout", "http_status", "body_size", "parse", "other" };

struct reading {
	uint64_t key;
	int def;
	int gpu; /* its GPU (telemetry_nodes.h), -1 none */
	double value;
};

struct probe {
	char url[1024];
	int src;
	CURL *h;
	struct gl_buf body;
	int over_cap;
	unsigned logged; /* FK_ bits already logged */
	struct reading *rd; /* readings of the scrape being parsed */
	int n_rd, cap_rd;
	int idx;
	const int *keep; /* per def: kept? (owned by the workload) */
	struct tl_gpus *gpus; /* DCGM probes of a run: the per-GPU figures */
	const int *gfig; /* per def: the per-GPU figure it feeds, -1 none */
};

struct state_slot {
	uint64_t key; /* 0: empty */
	double prev;
};

struct telemetry {
	struct gl_ctx *ctx;
	struct gl_metrics *m;
	struct probe *pr;
	int n_pr;
	int keep[N_DEFS];
	int gfig[N_DEFS];
	struct tl_gpus *gpus;
	int id_def[N_DEFS];
	int id_scrapes, id_errors, id_missing, id_scrape_ms;
	int64_t period_ns, timeout_ns;
	size_t max_body;
	CURLM *multi;
	struct state_slot *st; /* open addressing, 2 * MAX_STATES slots */
	int n_st, st_full_logged;
	pthread_mutex_t st_mu; /* st between the scrape thread and the loop's saves */
	int st_dirty; /* a counter moved since the last save */
	pthread_t thr;
	int thr_started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stopping;
	char pending[MAX_PENDING][300];
	int n_pending;
};

static int curl_ready;

/* ---- config -------------------------------------------------------------- */

static int find_def(const char *name)
{
	for (int i = 0; i < N_DEFS; i++)
		if (!strcmp(defs[i].name, name))
			return i;
	return -1;
}

static int is_http_url(const char *u)
{
	return (!strncmp(u, "http://", 7) && u[7]) || (!strncmp(u, "https://", 8) && u[8]);
}

static void tl_check_keys(const cJSON *cfg, struct gl_diag *d, const char *path)
{
	static const char *const keys[] = {
		"dcgm", "node", "every", "timeout", "series", "max_body", "preflight", NULL
	};
	const cJSON *it;
	char p[512];

	cJSON_ArrayForEach(it, cfg)
	{
		int ok = 0;
		snprintf(p, sizeof(p), "%s.%s", path, it->string);
		for (int i = 0; keys[i]; i++)
			ok |= !strcmp(keys[i], it->string);
		if (!ok) {
			const char *best = NULL;
			int best_d = 3;
			for (int i = 0; keys[i]; i++) {
				int dd = gl_edit_distance(it->string, keys[i], 2);
				if (dd < best_d) {
					best_d = dd;
					best = keys[i];
				}
			}
			if (best)
				gl_diag_error(d, it, p, "unknown key '%s' (did you mean '%s'?)", it->string, best);
			else
				gl_diag_error(d, it, p,
					      "unknown key '%s', expected one of: dcgm, node, every, "
					      "timeout, series, max_body, preflight",
					      it->string);
		}
	}
}

/* The probes' URLs, counted per source into n_urls; returns how many. */
static int tl_check_probes(const cJSON *cfg, struct gl_diag *d, const char *path, int n_urls[N_SRC])
{
	const cJSON *it;
	int total = 0;
	char p[512];

	for (int s = 0; s < N_SRC; s++) {
		const cJSON *arr = cJSON_GetObjectItemCaseSensitive(cfg, src_key[s]);
		int i = 0;
		if (!arr)
			continue;
		snprintf(p, sizeof(p), "%s.%s", path, src_key[s]);
		if (!cJSON_IsArray(arr)) {
			gl_diag_error(d, arr, p, "expected an array of exporter URLs like \"http://gpu-a:%s/metrics\"",
				      s == SRC_DCGM ? "9400" : "9100");
			continue;
		}
		cJSON_ArrayForEach(it, arr)
		{
			char ip[600];
			snprintf(ip, sizeof(ip), "%s[%d]", p, i++);
			if (!cJSON_IsString(it) || !is_http_url(it->valuestring))
				gl_diag_error(d, it, ip, "expected an http:// or https:// URL of a metrics endpoint");
			else if (strlen(it->valuestring) >= sizeof(((struct probe *)0)->url))
				gl_diag_error(d, it, ip, "URL longer than 1023 bytes");
			else
				n_urls[s]++;
		}
		total += i;
	}
	return total;
}

static void tl_check_times(const cJSON *cfg, struct gl_diag *d, const char *path)
{
	int64_t every = DEF_EVERY_NS, timeout = DEF_TIMEOUT_NS;
	char p[512];

	for (int k = 0; k < 2; k++) {
		const char *key = k ? "timeout" : "every";
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(cfg, key);
		struct gl_err er = { 0 };
		int64_t ns;
		if (!v)
			continue;
		snprintf(p, sizeof(p), "%s.%s", path, key);
		if (!cJSON_IsString(v))
			gl_diag_error(d, v, p, "expected a duration like 5s or 500ms");
		else if (gl_parse_duration_ns(v->valuestring, &ns, &er) != 0)
			gl_diag_error(d, v, p, "%s", er.msg);
		else if (ns < 100000000LL)
			gl_diag_error(d, v, p, "%s under 100ms: expected at least 100ms", key);
		else
			*(k ? &timeout : &every) = ns;
	}
	if (timeout >= every)
		gl_diag_error(d, cJSON_GetObjectItemCaseSensitive(cfg, "timeout"), path,
			      "timeout must be shorter than every (a scrape must end before the next)");
}

/* "series": names the catalog knows, each from a source that has a probe */
static void tl_check_series(const cJSON *ser, struct gl_diag *d, const char *path, const int n_urls[N_SRC], int total)
{
	const cJSON *it;
	char p[512];

	int i = 0;
	snprintf(p, sizeof(p), "%s.series", path);
	if (!cJSON_IsArray(ser) || cJSON_GetArraySize(ser) == 0) {
		gl_diag_error(d, ser, p, "expected a non-empty array of series names like \"gpu_temp\"");
		return;
	}
	cJSON_ArrayForEach(it, ser)
	{
		char ip[600];
		int k;
		snprintf(ip, sizeof(ip), "%s[%d]", p, i++);
		if (!cJSON_IsString(it)) {
			gl_diag_error(d, it, ip, "expected a series name like \"gpu_temp\"");
			continue;
		}
		if ((k = find_def(it->valuestring)) < 0) {
			const char *best = NULL;
			int best_d = 4;
			char list[512] = "";
			size_t off = 0;
			for (int j = 0; j < N_DEFS; j++) {
				int dd = gl_edit_distance(it->valuestring, defs[j].name, 3);
				if (dd < best_d) {
					best_d = dd;
					best = defs[j].name;
				}
				off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", j ? ", " : "",
							defs[j].name);
			}
			if (best)
				gl_diag_error(d, it, ip, "unknown series '%s' (did you mean '%s'?)", it->valuestring,
					      best);
			else
				gl_diag_error(d, it, ip, "unknown series '%s', expected one of: %s", it->valuestring,
					      list);
		} else if (n_urls[defs[k].src] == 0 && total > 0) {
			gl_diag_error(d, it, ip, "series '%s' comes from %s exporter, but no \"%s\" probe is given",
				      it->valuestring, defs[k].src == SRC_DCGM ? "the DCGM" : "node",
				      src_key[defs[k].src]);
		}
	}
}

static void tl_validate(const struct gl_scenario *scn, const cJSON *cfg, struct gl_diag *d, const char *path)
{
	const cJSON *it, *ser = cJSON_GetObjectItemCaseSensitive(cfg, "series");
	int n_urls[N_SRC] = { 0 }, total;
	char p[512];

	tl_check_keys(cfg, d, path);
	total = tl_check_probes(cfg, d, path, n_urls);
	if (total == 0)
		gl_diag_error(d, cfg, path, "no probe: give \"dcgm\" and/or \"node\" as arrays of URLs");
	else if (total > MAX_PROBES)
		gl_diag_error(d, cfg, path, "%d probes: at most %d", total, MAX_PROBES);
	tl_check_times(cfg, d, path);
	if ((it = cJSON_GetObjectItemCaseSensitive(cfg, "max_body"))) {
		struct gl_err er = { 0 };
		uint64_t b = 0;
		snprintf(p, sizeof(p), "%s.max_body", path);
		if (!cJSON_IsString(it) || gl_parse_size_bytes(it->valuestring, &b, &er) != 0)
			gl_diag_error(d, it, p, "%s", er.code ? er.msg : "expected a size like 8MiB");
		else if (b < 4096 || b > (256u << 20))
			gl_diag_error(d, it, p, "expected a size between 4KiB and 256MiB");
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(cfg, "preflight")) && !cJSON_IsBool(it)) {
		snprintf(p, sizeof(p), "%s.preflight", path);
		gl_diag_error(d, it, p, "expected true or false");
	}
	if (ser)
		tl_check_series(ser, d, path, n_urls, total);
}

/* ---- one scrape ------------------------------------------------------------ */

static size_t on_body(char *data, size_t sz, size_t nm, void *arg)
{
	struct probe *p = arg;

	if (gl_buf_append(&p->body, data, sz * nm) != 0) {
		p->over_cap = 1;
		return 0; /* libcurl ends the transfer: CURLE_WRITE_ERROR */
	}
	return sz * nm;
}

static void setup_handle(CURL *h, struct probe *p, int64_t timeout_ns)
{
	curl_easy_setopt(h, CURLOPT_URL, p->url);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(timeout_ns / 1000000));
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)(timeout_ns / 1000000));
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, p);
	/* gzip is welcome; the cap applies to the inflated bytes */
	curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
}

/* A series' identity: probe, definition and the identifying labels. Pairs
 * are hashed one by one and summed, so label order does not matter. */
static uint64_t series_key(const struct probe *p, int def, const struct gl_prom_sample *s)
{
	uint64_t sum = 0x9E3779B97F4A7C15ULL * (uint64_t)(p->idx + 1) + (uint64_t)def * 0xC2B2AE3D27D4EB4FULL;

	for (int i = 0; i < s->n_labels; i++) {
		uint64_t h = 0xCBF29CE484222325ULL;
		const char *parts[2] = { s->labels[i].name, s->labels[i].value };
		if (p->src == SRC_DCGM) {
			int id = 0;
			for (int k = 0; dcgm_identity[k]; k++)
				id |= !strcmp(dcgm_identity[k], parts[0]);
			if (!id)
				continue;
		}
		for (int k = 0; k < 2; k++) {
			for (const unsigned char *c = (const unsigned char *)parts[k]; *c; c++) {
				h ^= *c;
				h *= 0x100000001B3ULL;
			}
			h ^= 0xFF; /* separator: ("ab","c") != ("a","bc") */
			h *= 0x100000001B3ULL;
		}
		sum += h;
	}
	return sum ? sum : 1; /* 0 marks an empty slot */
}

static int on_sample(void *arg, const struct gl_prom_sample *s)
{
	struct probe *p = arg;

	for (int k = 0; k < N_DEFS; k++) {
		if (!p->keep[k] || defs[k].src != p->src || strcmp(defs[k].prom, s->name))
			continue;
		if (p->n_rd == p->cap_rd) {
			int nc = p->cap_rd ? p->cap_rd * 2 : 64;
			struct reading *nr;
			if (nc > MAX_READINGS)
				return -1;
			if (!(nr = realloc(p->rd, sizeof(*nr) * (size_t)nc)))
				return -1;
			p->rd = nr;
			p->cap_rd = nc;
		}
		p->rd[p->n_rd].key = series_key(p, k, s);
		p->rd[p->n_rd].def = k;
		p->rd[p->n_rd].gpu = p->gpus && p->gfig[k] >= 0 ? tl_gpu_of(p->gpus, p->url, s) : -1;
		p->rd[p->n_rd].value = s->value;
		p->n_rd++;
		break;
	}
	return 0;
}

/* Parse p->body into p->rd. Returns 0 or -1 with why filled. */
static int parse_body(struct probe *p, size_t max_body, char *why, size_t why_len)
{
	struct gl_prom_limits lim = { max_body, 1u << 16, 64, 1000000 };
	struct gl_err er = { 0 };

	p->n_rd = 0;
	if (gl_prom_parse(p->body.data ? p->body.data : "", p->body.len, &lim, on_sample, p, NULL, &er) != 0) {
		snprintf(why, why_len, "%s", er.code == GL_ESTATE ? "more kept readings than the cap" : er.msg);
		return -1;
	}
	return 0;
}

static struct state_slot *state_find(struct telemetry *w, uint64_t key, int *is_new)
{
	size_t n = 2 * MAX_STATES, i = (size_t)(key % n);

	for (;;) {
		if (w->st[i].key == key) {
			*is_new = 0;
			return &w->st[i];
		}
		if (w->st[i].key == 0)
			break;
		i = (i + 1) % n;
	}
	if (w->n_st >= MAX_STATES)
		return NULL;
	w->n_st++;
	w->st[i].key = key;
	*is_new = 1;
	return &w->st[i];
}

/* The log line waits for the loop thread (gl_ctx_event writes the store,
 * so only that thread may call it): it goes to stderr and the run's events
 * at the next window close or at stop. When too many wait, stderr only. */
static void note(struct telemetry *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct telemetry *w, const char *fmt, ...)
{
	char msg[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&w->mu);
	if (w->n_pending < MAX_PENDING)
		snprintf(w->pending[w->n_pending++], sizeof(w->pending[0]), "%s", msg);
	else
		gl_warn("telemetry: %s", msg);
	pthread_mutex_unlock(&w->mu);
}

static void scrape_failed(struct telemetry *w, struct probe *p, int kind, const char *why)
{
	gl_metrics_add(w->m, w->id_errors, 1);
	if (p->logged & (1u << kind))
		return;
	p->logged |= 1u << kind;
	note(w, "%s: scrape failed (%s): %s; further %s failures of this probe are only counted", p->url, fk_name[kind],
	     why, fk_name[kind]);
}

/* Record one parsed scrape. Gauges: every reading. Counters: the increase
 * since the series' previous reading; the first reading is the baseline; a
 * decrease is a counter reset (driver reload, exporter restart), so the new
 * value is the increase since the reset. For DCGM_FI_DEV_XID_ERRORS (the
 * last XID seen) any change to a non-zero code shows as a non-zero delta;
 * a change back to 0 is a reset and adds nothing. */
static void apply(struct telemetry *w, struct probe *p)
{
	for (int i = 0; i < p->n_rd; i++) {
		const struct reading *r = &p->rd[i];
		const struct series_def *d = &defs[r->def];
		struct state_slot *s;
		int is_new;
		double inc;

		if ((p->src == SRC_DCGM && gl_dcgm_is_blank(r->value)) || !isfinite(r->value) || r->value < 0) {
			gl_metrics_add(w->m, w->id_missing, 1);
			continue;
		}
		if (!d->counter) {
			gl_metrics_record(w->m, w->id_def[r->def], r->value);
			tl_gpu_note(w->gpus, r->gpu, w->gfig[r->def], r->value, 0);
			continue;
		}
		pthread_mutex_lock(&w->st_mu);
		if (!(s = state_find(w, r->key, &is_new))) {
			pthread_mutex_unlock(&w->st_mu);
			if (!w->st_full_logged) {
				w->st_full_logged = 1;
				note(w, "more than %d counter series: new ones are not followed", MAX_STATES);
			}
			continue;
		}
		inc = is_new ? 0 : r->value >= s->prev ? r->value - s->prev : r->value;
		if (is_new || s->prev != r->value)
			w->st_dirty = 1;
		s->prev = r->value;
		pthread_mutex_unlock(&w->st_mu);
		tl_gpu_note(w->gpus, r->gpu, w->gfig[r->def], r->value, inc);
		if (inc > 0)
			gl_metrics_add(w->m, w->id_def[r->def], (int64_t)llround(inc < 9e18 ? inc : 9e18));
	}
}

static int stopping(struct telemetry *w)
{
	int s;
	pthread_mutex_lock(&w->mu);
	s = w->stopping;
	pthread_mutex_unlock(&w->mu);
	return s;
}

/* Fetch every probe at once, each with the scrape deadline. */
static void scrape_all(struct telemetry *w)
{
	int64_t t0 = gl_now_ns();
	int running = 0;
	CURLMsg *msg;
	int left;

	for (int i = 0; i < w->n_pr; i++) {
		struct probe *p = &w->pr[i];
		p->body.len = 0; /* keep the allocation for the next scrape */
		p->over_cap = 0;
		curl_multi_add_handle(w->multi, p->h);
	}
	do {
		if (curl_multi_perform(w->multi, &running) != CURLM_OK)
			break;
		if (running && curl_multi_poll(w->multi, NULL, 0, 200, NULL) != CURLM_OK)
			break;
	} while (running && !stopping(w));
	while ((msg = curl_multi_info_read(w->multi, &left))) {
		struct probe *p = NULL;
		long status = 0;
		char why[GL_ERR_MSG_MAX];

		if (msg->msg != CURLMSG_DONE)
			continue;
		for (int i = 0; i < w->n_pr; i++)
			if (w->pr[i].h == msg->easy_handle)
				p = &w->pr[i];
		if (!p)
			continue;
		curl_easy_getinfo(p->h, CURLINFO_RESPONSE_CODE, &status);
		if (msg->data.result != CURLE_OK) {
			CURLcode rc = msg->data.result;
			int kind = p->over_cap                                                         ? FK_BODY_SIZE
				   : rc == CURLE_OPERATION_TIMEDOUT                                    ? FK_TIMEOUT
				   : (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST) ? FK_CONNECT
												       : FK_OTHER;
			if (p->over_cap)
				snprintf(why, sizeof(why), "body over %zu bytes", w->max_body);
			else
				snprintf(why, sizeof(why), "%s", curl_easy_strerror(rc));
			scrape_failed(w, p, kind, why);
		} else if (status != 200) {
			snprintf(why, sizeof(why), "HTTP %ld", status);
			scrape_failed(w, p, FK_HTTP, why);
		} else if (parse_body(p, w->max_body, why, sizeof(why)) != 0) {
			scrape_failed(w, p, FK_PARSE, why);
		} else {
			apply(w, p);
			gl_metrics_add(w->m, w->id_scrapes, 1);
		}
	}
	for (int i = 0; i < w->n_pr; i++)
		curl_multi_remove_handle(w->multi, w->pr[i].h);
	gl_metrics_record(w->m, w->id_scrape_ms, (double)(gl_now_ns() - t0) / 1e6);
}

/* The scrape thread: one scrape at start (the counters' baseline and a
 * first reading), then at the middle of each period on the window grid, so
 * a period equal to the window puts one scrape in each window however the
 * boundary jitters. */
static void *scrape_main(void *arg)
{
	struct telemetry *w = arg;

	scrape_all(w);
	for (;;) {
		int64_t now = gl_ctx_elapsed_ns(w->ctx), half = w->period_ns / 2, next, wait_ns;
		struct timespec ts;
		int stop;

		/* the first tick j * period + half after now (floor division:
		 * now may be below half) */
		next = now < half ? half : ((now - half) / w->period_ns + 1) * w->period_ns + half;
		wait_ns = next - now;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += (time_t)(wait_ns / 1000000000LL);
		ts.tv_nsec += (long)(wait_ns % 1000000000LL);
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&w->mu);
		while (!w->stopping && pthread_cond_timedwait(&w->cv, &w->mu, &ts) != ETIMEDOUT)
			;
		stop = w->stopping;
		pthread_mutex_unlock(&w->mu);
		if (stop)
			break;
		scrape_all(w);
	}
	return NULL;
}

/* ---- the workload ---------------------------------------------------------- */

static void tl_free(void *state);
static void load_baselines(struct telemetry *w);

static int tl_init(struct gl_ctx *c, const cJSON *cfg, void **state, struct gl_err *err)
{
	struct telemetry *w = calloc(1, sizeof(*w));
	const cJSON *ser = cJSON_GetObjectItemCaseSensitive(cfg, "series"), *it;
	const struct gl_scenario *sc = gl_ctx_scenario(c);
	pthread_condattr_t ca;
	int rc = 0, n = 0;

	if (!w)
		return gl_errf(err, GL_ENOMEM, "telemetry: out of memory");
	*state = w;
	pthread_mutex_init(&w->mu, NULL);
	pthread_mutex_init(&w->st_mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (!curl_ready) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		curl_ready = 1;
	}
	w->ctx = c;
	w->m = gl_ctx_metrics(c);
	/* at least one scrape per window (windows are real time, never scaled:
	 * docs/architecture.md, "Time model") */
	w->period_ns = gl_cfg_dur(cfg, "every", DEF_EVERY_NS);
	if (sc && sc->window_ns > 0 && sc->window_ns < w->period_ns)
		w->period_ns = sc->window_ns;
	w->timeout_ns = gl_cfg_dur(cfg, "timeout", DEF_TIMEOUT_NS);
	/* a scrape must end well before the next one is due */
	if (w->timeout_ns > w->period_ns * 8 / 10)
		w->timeout_ns = w->period_ns * 8 / 10;
	w->max_body = (size_t)gl_cfg_size(cfg, "max_body", DEF_MAX_BODY);
	for (int s = 0; s < N_SRC; s++)
		n += cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(cfg, src_key[s]));
	w->pr = calloc((size_t)n + 1, sizeof(*w->pr));
	w->st = calloc(2 * MAX_STATES, sizeof(*w->st));
	w->multi = curl_multi_init();
	w->gpus = tl_gpus_new(c);
	for (int k = 0; k < N_DEFS; k++)
		w->gfig[k] = tl_gpu_figure(defs[k].name);
	if (!w->pr || !w->st || !w->multi || !w->gpus) {
		rc = gl_errf(err, GL_ENOMEM, "telemetry: out of memory");
		goto out;
	}
	for (int s = 0; s < N_SRC; s++)
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(cfg, src_key[s]))
		{
			struct probe *p = &w->pr[w->n_pr];
			if (!cJSON_IsString(it))
				continue;
			snprintf(p->url, sizeof(p->url), "%s", it->valuestring);
			p->src = s;
			p->idx = w->n_pr++;
			p->keep = w->keep;
			p->gpus = s == SRC_DCGM ? w->gpus : NULL;
			p->gfig = w->gfig;
			gl_buf_init(&p->body, w->max_body);
			if (!(p->h = curl_easy_init())) {
				rc = gl_errf(err, GL_ENOMEM, "telemetry: cannot create a curl handle");
				goto out;
			}
			setup_handle(p->h, p, w->timeout_ns);
		}
	/* kept: what "series" names, else every series of the sources given */
	for (int k = 0; k < N_DEFS; k++) {
		int has_src = 0;
		for (int i = 0; i < w->n_pr; i++)
			has_src |= w->pr[i].src == defs[k].src;
		w->keep[k] = ser ? 0 : has_src;
	}
	cJSON_ArrayForEach(it, ser) if (cJSON_IsString(it) && find_def(it->valuestring) >= 0)
		w->keep[find_def(it->valuestring)] = 1;
	for (int k = 0; k < N_DEFS; k++) {
		w->id_def[k] = -1;
		if (!w->keep[k])
			continue;
		w->id_def[k] = defs[k].counter ? gl_metrics_counter(w->m, defs[k].metric)
					       : gl_metrics_hist(w->m, defs[k].metric);
		if (w->id_def[k] < 0) {
			rc = gl_errf(err, GL_ELIMIT, "telemetry: cannot register metric %s", defs[k].metric);
			goto out;
		}
	}
	w->id_scrapes = gl_metrics_counter(w->m, "telemetry.scrapes");
	w->id_errors = gl_metrics_counter(w->m, "telemetry.scrape_errors");
	w->id_missing = gl_metrics_counter(w->m, "telemetry.missing");
	w->id_scrape_ms = gl_metrics_hist(w->m, "telemetry.scrape_ms");
	if (w->id_scrapes < 0 || w->id_errors < 0 || w->id_missing < 0 || w->id_scrape_ms < 0)
		rc = gl_errf(err, GL_ELIMIT, "telemetry: cannot register its metrics");
out:
	if (rc) {
		tl_free(w);
		*state = NULL;
	}
	return rc;
}

static int tl_start(void *state, struct gl_err *err)
{
	struct telemetry *w = state;
	int rc;

	if (gl_ctx_resumes(w->ctx) > 0)
		load_baselines(w); /* before the first scrape */
	if ((rc = pthread_create(&w->thr, NULL, scrape_main, w)) != 0)
		return gl_errf(err, GL_EIO, "telemetry: cannot start the scrape thread: %s", strerror(rc));
	w->thr_started = 1;
	return 0;
}

/* Loop thread: move the scrape thread's log lines into the run's events. */
static void flush_notes(struct telemetry *w)
{
	char msgs[MAX_PENDING][300];
	int n;

	pthread_mutex_lock(&w->mu);
	n = w->n_pending;
	memcpy(msgs, w->pending, sizeof(msgs[0]) * (size_t)n);
	w->n_pending = 0;
	pthread_mutex_unlock(&w->mu);
	for (int i = 0; i < n; i++)
		gl_ctx_event(w->ctx, GL_LOG_WARN, "telemetry", "%s", msgs[i]);
}

/* Loop thread: the counters' last readings into the store (doc
 * "telemetry.baselines", only when one moved), so that a resumed run
 * takes them as its baselines and an increase while no controller ran
 * (an XID during a crash) still counts, in the first window after. */
static void save_baselines(struct telemetry *w)
{
	cJSON *o = NULL;
	char *text = NULL, key[24];
	struct gl_err err = { 0 };

	pthread_mutex_lock(&w->st_mu);
	if (w->st_dirty && (o = cJSON_CreateObject())) {
		for (size_t i = 0; i < 2 * MAX_STATES; i++)
			if (w->st[i].key) {
				snprintf(key, sizeof(key), "%016llx", (unsigned long long)w->st[i].key);
				cJSON_AddNumberToObject(o, key, w->st[i].prev);
			}
		w->st_dirty = 0;
	}
	pthread_mutex_unlock(&w->st_mu);
	if (o && (text = cJSON_PrintUnformatted(o)) &&
	    gl_store_doc_put(gl_ctx_store(w->ctx), "telemetry.baselines", text, &err) != 0)
		gl_ctx_event(w->ctx, GL_LOG_WARN, "telemetry", "cannot keep the counters' baselines: %s", err.msg);
	free(text);
	cJSON_Delete(o);
}

/* tl_start on resume: the baselines the run had kept. */
static void load_baselines(struct telemetry *w)
{
	char *text = NULL;
	struct gl_err err = { 0 };
	cJSON *o, *it;
	int is_new, n = 0;

	if (gl_store_doc_get(gl_ctx_store(w->ctx), "telemetry.baselines", &text, &err) != 0 || !text)
		return;
	o = cJSON_Parse(text);
	cJSON_ArrayForEach(it, o)
	{
		unsigned long long k = strtoull(it->string, NULL, 16);
		struct state_slot *sl;
		if (!k || !cJSON_IsNumber(it) || !(sl = state_find(w, (uint64_t)k, &is_new)))
			continue;
		sl->prev = it->valuedouble;
		n++;
	}
	cJSON_Delete(o);
	free(text);
	gl_ctx_event(w->ctx, GL_LOG_INFO, "telemetry", "resume: %d counter baseline(s) taken from the store", n);
}

static void tl_on_window(void *state)
{
	struct telemetry *w = state;

	flush_notes(w);
	save_baselines(w);
	tl_gpus_flush(w->gpus); /* into the window closing */
}

static void tl_stop(void *state)
{
	struct telemetry *w = state;

	if (!w->thr_started)
		return;
	pthread_mutex_lock(&w->mu);
	w->stopping = 1;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	curl_multi_wakeup(w->multi); /* a scrape in flight ends within its poll */
	pthread_join(w->thr, NULL);
	w->thr_started = 0;
	flush_notes(w);
	save_baselines(w);
	tl_gpus_flush(w->gpus); /* into the last window */
}

static void tl_free(void *state)
{
	struct telemetry *w = state;

	if (!w)
		return;
	tl_stop(w);
	for (int i = 0; w->pr && i < w->n_pr; i++) {
		if (w->pr[i].h)
			curl_easy_cleanup(w->pr[i].h);
		gl_buf_free(&w->pr[i].body);
		free(w->pr[i].rd);
	}
	if (w->multi)
		curl_multi_cleanup(w->multi);
	free(w->pr);
	free(w->st);
	tl_gpus_free(w->gpus);
	pthread_mutex_destroy(&w->st_mu);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	free(w);
}

/* Each probe answers 200 within the timeout and its body parses whole. A
 * scenario that means to start while an exporter is down says
 * "preflight": false. */
static int tl_preflight(struct gl_ctx *c, const cJSON *cfg)
{
	int64_t timeout_ns = gl_cfg_dur(cfg, "timeout", DEF_TIMEOUT_NS);
	size_t max_body = (size_t)gl_cfg_size(cfg, "max_body", DEF_MAX_BODY);
	const cJSON *it;
	int bad = 0;

	if (!gl_cfg_bool(cfg, "preflight", 1)) {
		gl_ctx_preflight(c, "telemetry", "exporters answer", 1,
				 "not checked: \"preflight\": false in the scenario");
		return 0;
	}
	if (!curl_ready) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		curl_ready = 1;
	}
	for (int s = 0; s < N_SRC; s++)
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(cfg, src_key[s]))
		{
			struct probe p;
			int keep[N_DEFS] = { 0 };
			char detail[GL_ERR_MSG_MAX] = "";
			long status = 0;
			CURLcode res;
			int ok = 0;

			if (!cJSON_IsString(it))
				continue;
			memset(&p, 0, sizeof(p));
			snprintf(p.url, sizeof(p.url), "%s", it->valuestring);
			p.src = s;
			p.keep = keep;
			gl_buf_init(&p.body, max_body);
			if ((p.h = curl_easy_init())) {
				setup_handle(p.h, &p, timeout_ns);
				gl_http_stoppable(p.h); /* a stop request ends the wait (stop.h) */
				res = curl_easy_perform(p.h);
				curl_easy_getinfo(p.h, CURLINFO_RESPONSE_CODE, &status);
				if (p.over_cap)
					snprintf(detail, sizeof(detail), "body over %zu bytes", max_body);
				else if (res != CURLE_OK)
					snprintf(detail, sizeof(detail), "%s", curl_easy_strerror(res));
				else if (status != 200)
					snprintf(detail, sizeof(detail), "HTTP %ld", status);
				else if (parse_body(&p, max_body, detail, sizeof(detail)) == 0)
					ok = 1;
				curl_easy_cleanup(p.h);
			} else {
				snprintf(detail, sizeof(detail), "cannot create a curl handle");
			}
			bad |= gl_ctx_preflight(c, p.url,
						s == SRC_DCGM ? "DCGM exporter answers and parses"
							      : "node exporter answers and parses",
						ok, detail) != 0;
			gl_buf_free(&p.body);
			free(p.rd);
		}
	return bad ? -1 : 0;
}

/* telemetry_figures.c */
extern const struct gl_workload_figures gl_telemetry_figures;

static const struct gl_workload_ops gl_workload_telemetry = {
	.name = "telemetry",
	.validate = tl_validate,
	.targets = gl_telemetry_targets,
	.incidents = gl_telemetry_incidents,
	.sim = &gl_telemetry_sim,
	.init = tl_init,
	.start = tl_start,
	.on_window = tl_on_window,
	.stop = tl_stop,
	.free = tl_free,
	.preflight = tl_preflight,
	.figures = &gl_telemetry_figures,
};
GL_REGISTER_WORKLOAD(gl_workload_telemetry, 40)
