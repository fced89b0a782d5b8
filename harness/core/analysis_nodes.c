/*
 * analysis_nodes.c - the per-node figures scored against their peers
 * (analysis.h says the rule, docs/nodes.md explains it): one pass over the
 * store's node_figures in window order, one window's rows at a time, so
 * that memory grows with the nodes, not with the run's length.
 */
#include "analysis_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "figures.h"
#include "nodes.h"

struct scan {
	struct gl_analysis *an;
	struct gl_node_result *res;
	int n, cap;
	int *slot; /* open-addressed index into res, -1 free; nslots a power of two */
	int nslots;
	struct gl_node_fig *rows; /* the current window's */
	int n_rows, cap_rows;
	int64_t idx;
	int failed;
	/* the faults' spans (docs/nodes.md, "Inside a fault's span"), by
	 * first window; those holding the current window */
	struct span {
		int w0, w1, host;
	} * spans, *active;
	int n_spans, next_span, n_active;
};

const struct gl_node_figure_def *gl_node_def_find(const char *workload, const char *kind, const char *figure)
{
	const struct gl_workload_ops *w;

	for (size_t i = 0; (w = gl_workload_at(i)); i++) {
		if (strcmp(w->name, workload) || !w->figures)
			continue;
		for (const struct gl_node_figure_def *d = w->figures->nodes; d && d->kind; d++)
			if (!strcmp(d->kind, kind) && !strcmp(d->figure, figure))
				return d;
	}
	return NULL;
}

static int grow_index(struct scan *s)
{
	int n = s->nslots ? s->nslots * 2 : 1024;
	int *slot = malloc((size_t)n * sizeof(*slot));

	if (!slot)
		return -1;
	memset(slot, 0xff, (size_t)n * sizeof(*slot));
	for (int i = 0; i < s->n; i++) {
		const struct gl_node_result *r = &s->res[i];
		uint32_t h = gl_node_key_hash(0, r->workload, r->kind, r->name, r->host, r->figure) & (uint32_t)(n - 1);
		while (slot[h] >= 0)
			h = (h + 1) & (uint32_t)(n - 1);
		slot[h] = i;
	}
	free(s->slot);
	s->slot = slot;
	s->nslots = n;
	return 0;
}

/* A name's short form: up to its first '.', unless it is a dotted
 * number (an IPv4 address, whose first part names nothing). */
static size_t short_len(const char *n)
{
	size_t k = strcspn(n, ".");

	return n[k] && strspn(n, "0123456789") >= k ? strlen(n) : k;
}

static int same_name(const char *a, const char *b)
{
	size_t ka = short_len(a), kb = short_len(b);

	return a[0] && b[0] && (!strcmp(a, b) || (ka == kb && !strncmp(a, b, ka)));
}

/* The scenario host a node's host names (docs/nodes.md): the one whose
 * name, ssh host, address or Slurm node it is, exactly or by the short
 * form of a DNS name ("gpu-3" and "gpu-3.cluster"); -1 when none does,
 * or more than one. */
static int host_index(const struct gl_scenario *sc, const char *host)
{
	int found = -1;

	for (int i = 0; sc && i < sc->n_hosts; i++) {
		const struct gl_host *h = &sc->hosts[i];
		if (!same_name(host, h->name) && !same_name(host, h->ssh_host) && strcmp(host, h->address) &&
		    !same_name(host, h->slurm_node))
			continue;
		if (found >= 0)
			return -1;
		found = i;
	}
	return found;
}

/* The result of f's node and figure, made on first sight; NULL out of memory. */
static struct gl_node_result *result_of(struct scan *s, const struct gl_node_fig *f)
{
	uint32_t h;
	struct gl_node_result *r;

	if ((s->n + 1) * 2 > s->nslots && grow_index(s) != 0)
		return NULL;
	h = gl_node_key_hash(0, f->workload, f->kind, f->name, f->host, f->figure) & (uint32_t)(s->nslots - 1);
	for (; s->slot[h] >= 0; h = (h + 1) & (uint32_t)(s->nslots - 1)) {
		r = &s->res[s->slot[h]];
		if (!strcmp(r->workload, f->workload) && !strcmp(r->kind, f->kind) && !strcmp(r->name, f->name) &&
		    !strcmp(r->host, f->host) && !strcmp(r->figure, f->figure))
			return r;
	}
	if (s->n == s->cap) {
		int cap = s->cap ? s->cap * 2 : 64;
		struct gl_node_result *p = realloc(s->res, (size_t)cap * sizeof(*p));
		if (!p)
			return NULL;
		s->res = p;
		s->cap = cap;
	}
	r = &s->res[s->n];
	memset(r, 0, sizeof(*r));
	snprintf(r->workload, sizeof(r->workload), "%s", f->workload);
	snprintf(r->kind, sizeof(r->kind), "%s", f->kind);
	snprintf(r->name, sizeof(r->name), "%s", f->name);
	snprintf(r->host, sizeof(r->host), "%s", f->host);
	snprintf(r->figure, sizeof(r->figure), "%s", f->figure);
	r->def = gl_node_def_find(f->workload, f->kind, f->figure);
	r->host_idx = host_index(s->an->sc, f->host);
	for (int i = 0; i < GL_NODE_HEAT_COLS; i++)
		r->heat[i] = NAN;
	s->slot[h] = s->n;
	return &s->res[s->n++];
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double gl_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* rows grouped by workload, kind and figure */
static int cmp_group(const void *a, const void *b)
{
	const struct gl_node_fig *x = a, *y = b;
	int c = strcmp(x->workload, y->workload);
	if (!c)
		c = strcmp(x->kind, y->kind);
	return c ? c : strcmp(x->figure, y->figure);
}

/* The window's place in an->windows (by index), -1 when it has none. */
static int window_pos(const struct gl_analysis *an, int64_t idx)
{
	int lo = 0, hi = an->n_windows - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		if (an->windows[mid].idx == idx)
			return mid;
		if (an->windows[mid].idx < idx)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

static void note_z(struct gl_node_result *r, double z, int col)
{
	/* clamped before the conversion: a spread of next to nothing (peers
	 * that agree exactly, a figure without floors) makes z far past an
	 * int, which would land in the lowest bin */
	int b = (int)floor((fmin(fmax(z, -8.0), GL_NODE_ZMAX) + 8) * 10);

	b = b < 0 ? 0 : b >= GL_NODE_ZBINS ? GL_NODE_ZBINS - 1 : b;
	r->zbins[b]++;
	r->judged++;
	if (z >= GL_SUSPECT_Z)
		r->out++;
	if (col >= 0 && (isnan(r->heat[col]) || z > r->heat[col]))
		r->heat[col] = (float)z;
}

int gl_node_zscores(const struct gl_node_figure_def *d, const double *mean, const int64_t *n, int count, double *z)
{
	int64_t min_n = d->min_n > 0 ? d->min_n : 1;
	double *v = malloc((size_t)(count > 0 ? count : 1) * sizeof(*v)), med, spread;
	int k = 0;

	if (!v)
		return -1;
	for (int i = 0; i < count; i++) {
		z[i] = NAN;
		if (n[i] >= min_n)
			v[k++] = mean[i];
	}
	if (k < 3) {
		free(v);
		return 0;
	}
	med = gl_median(v, k);
	for (int i = 0; i < k; i++)
		v[i] = fabs(v[i] - med);
	spread = 1.4826 * gl_median(v, k);
	if (spread < d->rel_scale * fabs(med))
		spread = d->rel_scale * fabs(med);
	if (spread < d->min_scale)
		spread = d->min_scale;
	if (spread <= 0)
		spread = 1e-9;
	for (int i = 0; i < count; i++)
		if (n[i] >= min_n)
			z[i] = (d->higher_better ? med - mean[i] : mean[i] - med) / spread;
	free(v);
	return k;
}

/* Node f out (z at or above the threshold) in window pos: named by every
 * incident whose windows hold pos. */
static void incident_note(struct gl_analysis *an, int pos, const struct gl_node_fig *f, double z)
{
	for (int i = 0; i < an->n_incidents; i++) {
		struct gl_incident *inc = &an->incidents[i];
		struct gl_incident_node *x = NULL;
		if (pos < inc->w0 || pos > inc->w1)
			continue;
		for (int k = 0; k < inc->n_nodes && !x; k++)
			if (!strcmp(inc->nodes[k].kind, f->kind) && !strcmp(inc->nodes[k].name, f->name) &&
			    !strcmp(inc->nodes[k].figure, f->figure) && !strcmp(inc->nodes[k].workload, f->workload))
				x = &inc->nodes[k];
		if (!x && inc->n_nodes == GL_INCIDENT_NODES) {
			inc->more_nodes++;
			continue;
		}
		if (!x) {
			x = &inc->nodes[inc->n_nodes++];
			memset(x, 0, sizeof(*x));
			snprintf(x->workload, sizeof(x->workload), "%s", f->workload);
			snprintf(x->kind, sizeof(x->kind), "%s", f->kind);
			snprintf(x->name, sizeof(x->name), "%s", f->name);
			snprintf(x->host, sizeof(x->host), "%s", f->host);
			snprintf(x->figure, sizeof(x->figure), "%s", f->figure);
			x->z = z;
		}
		if (z > x->z)
			x->z = z;
		x->windows++;
	}
}

void gl_incident_nodes_text(const struct gl_incident *x, char *out, size_t n)
{
	size_t off = 0;

	snprintf(out, n, "-");
	for (int k = 0; k < x->n_nodes && off < n; k++) {
		const struct gl_incident_node *d = &x->nodes[k];
		off += (size_t)snprintf(out + off, n - off, "%s%s %s", k ? "; " : "", d->kind, d->name);
		if (off < n && strcmp(d->host, "-") && strcmp(d->host, d->name))
			off += (size_t)snprintf(out + off, n - off, " on %s", d->host);
		if (off < n)
			off += (size_t)snprintf(out + off, n - off, ": %s z %.1f in %d window(s)", d->figure, d->z,
						d->windows);
	}
	if (x->more_nodes && off < n)
		snprintf(out + off, n - off, "; and %d more", x->more_nodes);
}

/* A node's mean in a window judged: taken into its baseline while that is
 * not whole (NAN), else its self z against it (analysis.h GL_SELF_*). */
static double self_z(struct scan *s, struct gl_node_result *r, const struct gl_node_fig *f)
{
	const struct gl_node_figure_def *d = r->def;
	double x = f->sum / (double)f->n, base, spread;

	if (r->base_windows < s->an->self_base) {
		r->base_windows++;
		r->base_n += f->n;
		r->base_sum += f->sum;
		return NAN;
	}
	base = r->base_sum / (double)r->base_n;
	spread = d->rel_scale * fabs(base);
	if (spread < d->min_scale)
		spread = d->min_scale;
	if (spread <= 0)
		spread = 1e-9;
	return (d->higher_better ? base - x : x - base) / spread;
}

/* A later window's self z (what its peers moved taken off) into r's bins. */
static void self_note(struct gl_node_result *r, const struct gl_node_fig *f, double z)
{
	int b;

	z = z > GL_NODE_ZMAX ? GL_NODE_ZMAX : z;
	b = (int)floor((z + 8) * 10);
	b = b < 0 ? 0 : b >= GL_NODE_ZBINS ? GL_NODE_ZBINS - 1 : b;
	r->self_zbins[b]++;
	r->self_judged++;
	r->self_out += z >= GL_SUSPECT_Z;
	r->late_n += f->n;
	r->late_sum += f->sum;
}

/* The self z of a group's nodes in one window (z as scratch): each
 * against its own baseline; with 3 or more of them past their baseline,
 * less the median of theirs, so that what moved every node (a phase with
 * more load, a fault on the cluster's shared parts) moves no node's self
 * score, and a node that drifts from its own level while its peers hold
 * theirs does. */
static void self_group(struct scan *s, const struct gl_node_fig *g, int n, const struct gl_node_figure_def *d,
		       double *z)
{
	struct gl_node_result *r;
	double *v = malloc((size_t)n * sizeof(*v)), med = 0;
	int k = 0;

	for (int i = 0; i < n; i++) {
		z[i] = NAN;
		if (g[i].n >= (d->min_n > 0 ? d->min_n : 1) && (r = result_of(s, &g[i])))
			z[i] = self_z(s, r, &g[i]);
		if (v && !isnan(z[i]))
			v[k++] = z[i];
	}
	if (k >= 3)
		med = gl_median(v, k);
	for (int i = 0; i < n; i++)
		if (!isnan(z[i]) && (r = result_of(s, &g[i])))
			self_note(r, &g[i], z[i] - med);
	free(v);
}

/* One group's rows (one window, workload, kind and figure; the nodes
 * judged there) scored. */
static void score_group(struct scan *s, struct gl_node_fig *g, int n, int col, int pos)
{
	const struct gl_node_figure_def *d = gl_node_def_find(g[0].workload, g[0].kind, g[0].figure);
	double *mean, *z;
	int64_t *cnt;

	if (!d || d->shown_only)
		return;
	if (d->zero_expected) {
		for (int i = 0; i < n; i++) {
			struct gl_node_result *r = result_of(s, &g[i]);
			if (r && g[i].sum > 0) {
				note_z(r, GL_NODE_ZMAX, col); /* the top of the scale */
				incident_note(s->an, pos, &g[i], GL_NODE_ZMAX);
			}
		}
		return;
	}
	mean = malloc((size_t)n * sizeof(*mean));
	z = malloc((size_t)n * sizeof(*z));
	cnt = malloc((size_t)n * sizeof(*cnt));
	if (!mean || !z || !cnt) {
		s->failed = 1;
	} else {
		self_group(s, g, n, d, z);
		for (int i = 0; i < n; i++) {
			cnt[i] = g[i].n;
			mean[i] = g[i].n > 0 ? g[i].sum / (double)g[i].n : 0;
		}
		if (gl_node_zscores(d, mean, cnt, n, z) < 0)
			s->failed = 1;
		for (int i = 0; i < n; i++) {
			struct gl_node_result *r;
			if (!isnan(z[i]) && (r = result_of(s, &g[i]))) {
				note_z(r, z[i], col);
				if (z[i] >= GL_SUSPECT_Z)
					incident_note(s->an, pos, &g[i], z[i]);
			}
		}
	}
	free(mean);
	free(z);
	free(cnt);
}

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	return x->w0 - y->w0;
}

/* Each fault's span and the host it touches (its kind's touches hook);
 * 0, -1 out of memory. */
static int spans_load(struct scan *s)
{
	const struct gl_analysis *an = s->an;

	s->spans = calloc((size_t)an->n_faults + 1, sizeof(*s->spans));
	s->active = calloc((size_t)an->n_faults + 1, sizeof(*s->active));
	if (!s->spans || !s->active)
		return -1;
	for (int i = 0; i < an->n_faults; i++) {
		struct gl_fault_result *f = &an->faults[i];
		const struct gl_fault_spec *spec = NULL;
		for (int k = 0; k < an->sc->n_faults && !spec; k++)
			if (!strcmp(an->sc->faults[k].id, f->row.id))
				spec = &an->sc->faults[k];
		f->touches = spec && spec->ops && spec->ops->touches ? spec->ops->touches(an->sc, spec) : -1;
		if (f->span_w0 >= 0)
			s->spans[s->n_spans++] = (struct span){ f->span_w0, f->span_w1, f->touches };
	}
	if (s->n_spans > 1)
		qsort(s->spans, (size_t)s->n_spans, sizeof(*s->spans), cmp_span);
	return 0;
}

/* The spans holding window pos (pos only grows from call to call). */
static void spans_at(struct scan *s, int pos)
{
	int k = 0;

	for (; s->next_span < s->n_spans && s->spans[s->next_span].w0 <= pos; s->next_span++)
		s->active[s->n_active++] = s->spans[s->next_span];
	for (int i = 0; i < s->n_active; i++)
		if (s->active[i].w1 >= pos)
			s->active[k++] = s->active[i];
	s->n_active = k;
}

/* Is node r judged in window pos (docs/nodes.md)? In a window no fault
 * explains, yes; in one a fault explains, only when every fault
 * explaining it touches a known host and none touches r's (known) host. */
static int node_judged(const struct scan *s, int pos, const struct gl_node_result *r)
{
	if (pos < 0)
		return 0;
	if (!s->an->windows[pos].fault_span)
		return 1;
	if (r->host_idx < 0 || s->n_active == 0)
		return 0;
	for (int i = 0; i < s->n_active; i++)
		if (s->active[i].host < 0 || s->active[i].host == r->host_idx)
			return 0;
	return 1;
}

/* The current window's rows: totals, then each group of the nodes judged
 * there scored. */
static void window_done(struct scan *s)
{
	int pos = window_pos(s->an, s->idx), col = -1, n = 0;

	if (s->n_rows == 0)
		return;
	s->an->node_windows++;
	if (pos >= 0) {
		col = (int)((int64_t)pos * GL_NODE_HEAT_COLS / s->an->n_windows);
		spans_at(s, pos);
	}
	for (int i = 0; i < s->n_rows; i++) {
		struct gl_node_result *r = result_of(s, &s->rows[i]);
		if (!r) {
			s->failed = 1;
			continue;
		}
		if (r->n == 0 || s->rows[i].max > r->max)
			r->max = s->rows[i].max;
		r->n += s->rows[i].n;
		r->sum += s->rows[i].sum;
		if (node_judged(s, pos, r)) /* the rows judged, kept in place */
			s->rows[n++] = s->rows[i];
	}
	qsort(s->rows, (size_t)n, sizeof(*s->rows), cmp_group);
	for (int i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && !cmp_group(&s->rows[i], &s->rows[j]); j++)
			;
		score_group(s, &s->rows[i], j - i, col, pos);
	}
	s->n_rows = 0;
}

static void on_row(void *arg, const struct gl_node_fig *f)
{
	struct scan *s = arg;

	if (s->n_rows > 0 && f->idx != s->idx)
		window_done(s);
	s->idx = f->idx;
	if (s->n_rows == s->cap_rows) {
		int cap = s->cap_rows ? s->cap_rows * 2 : 256;
		struct gl_node_fig *p = realloc(s->rows, (size_t)cap * sizeof(*p));
		if (!p) {
			s->failed = 1;
			return;
		}
		s->rows = p;
		s->cap_rows = cap;
	}
	s->rows[s->n_rows++] = *f;
}

/* the median z of count in bins, to a tenth toward 0 */
static double zmedian(const uint32_t *bins, int count)
{
	uint32_t seen = 0;

	for (int b = 0; b < GL_NODE_ZBINS; b++) {
		seen += bins[b];
		if (seen * 2 >= (uint32_t)count) {
			double lo = b / 10.0 - 8; /* the bin [lo, lo + 0.1): toward 0 */
			return lo < 0 ? lo + 0.1 : lo;
		}
	}
	return 0;
}

/* names that are numbers (ranks, agents) in numeric order */
static int cmp_name(const char *a, const char *b)
{
	char *ea, *eb;
	long x = strtol(a, &ea, 10), y = strtol(b, &eb, 10);

	if (*a && *b && !*ea && !*eb && x != y)
		return x < y ? -1 : 1;
	return strcmp(a, b);
}

static int cmp_result(const void *a, const void *b)
{
	const struct gl_node_result *x = a, *y = b;
	int c = strcmp(x->workload, y->workload);
	if (!c)
		c = strcmp(x->kind, y->kind);
	if (!c)
		c = strcmp(x->figure, y->figure);
	if (!c)
		c = cmp_name(x->name, y->name);
	return c ? c : strcmp(x->host, y->host);
}

int gl_suspect_cmp(const void *a, const void *b)
{
	const struct gl_suspect *x = a, *y = b;
	return x->score > y->score ? -1 : x->score < y->score ? 1 : cmp_name(x->name, y->name);
}

/* the mean over the run of a result */
static double run_mean(const struct gl_node_result *r)
{
	return r->n > 0 ? r->sum / (double)r->n : 0;
}

/* Each group's median of its nodes' run means, the scores, who is a suspect. */
static int finish_scores(struct gl_analysis *an)
{
	double *v = malloc((size_t)(an->n_nodes > 0 ? an->n_nodes : 1) * sizeof(*v)); /* one group's means */

	if (!v)
		return -1;
	for (int i = 0, j; i < an->n_nodes; i = j) {
		double med = 0;
		int k = 0;
		for (j = i;
		     j < an->n_nodes && !strcmp(an->nodes[j].workload, an->nodes[i].workload) &&
		     !strcmp(an->nodes[j].kind, an->nodes[i].kind) && !strcmp(an->nodes[j].figure, an->nodes[i].figure);
		     j++)
			if (an->nodes[j].n > 0)
				v[k++] = run_mean(&an->nodes[j]);
		if (k > 0)
			med = gl_median(v, k);
		for (int m = i; m < j; m++) {
			struct gl_node_result *r = &an->nodes[m];
			r->peer_median = med;
			if (!r->def || r->def->shown_only)
				continue;
			if (r->def->zero_expected) {
				r->score = r->out > 0 ? r->sum : 0;
				r->suspect = r->out > 0;
			} else {
				r->score = r->judged > 0 ? zmedian(r->zbins, r->judged) : 0;
				r->suspect = r->judged >= GL_SUSPECT_WINDOWS && r->score >= GL_SUSPECT_Z;
				r->self_score = r->self_judged > 0 ? zmedian(r->self_zbins, r->self_judged) : 0;
				r->self_suspect = r->self_judged >= GL_SUSPECT_WINDOWS && r->self_score >= GL_SUSPECT_Z;
			}
		}
	}
	free(v);
	return 0;
}

static void add_evidence(struct gl_suspect *sp, const struct gl_node_result *r)
{
	size_t len = strlen(sp->evidence);
	const struct gl_node_figure_def *d = r->def;

	if (len + 8 >= sizeof(sp->evidence))
		return;
	if (d->zero_expected && d->max_note)
		snprintf(sp->evidence + len, sizeof(sp->evidence) - len,
			 "%s%s: %.0f %s in %d window(s), the largest %s %.0f", len ? "; " : "", d->label, r->sum,
			 d->unit, r->out, d->max_note, r->max);
	else if (d->zero_expected)
		snprintf(sp->evidence + len, sizeof(sp->evidence) - len, "%s%s: %.0f %s in %d window(s)",
			 len ? "; " : "", d->label, r->sum, d->unit, r->out);
	else if (d->shown_only)
		snprintf(sp->evidence + len, sizeof(sp->evidence) - len, "%s%s %.3g %s against the peers' %.3g",
			 len ? "; " : "", d->label, run_mean(r), d->unit, r->peer_median);
	else if (r->suspect)
		snprintf(sp->evidence + len, sizeof(sp->evidence) - len,
			 "%s%s %.3g %s against the peers' median %.3g (z %.1f; out in %d of %d windows)",
			 len ? "; " : "", d->label, run_mean(r), d->unit, r->peer_median, r->score, r->out, r->judged);
	len = strlen(sp->evidence);
	if (r->self_suspect && !d->shown_only && len + 8 < sizeof(sp->evidence))
		snprintf(sp->evidence + len, sizeof(sp->evidence) - len,
			 "%s%s %.3g %s against its own %.3g in its first %d windows (self z %.1f; out in %d of %d "
			 "later windows)",
			 len ? "; " : "", d->label, r->late_sum / (double)r->late_n, d->unit,
			 r->base_sum / (double)r->base_n, r->base_windows, r->self_score, r->self_out, r->self_judged);
}

/* The suspects: per node, its figures that made it one, then what it
 * shows beside them. */
static int list_suspects(struct gl_analysis *an)
{
	for (int i = 0; i < an->n_nodes; i++) {
		struct gl_node_result *r = &an->nodes[i];
		struct gl_suspect *sp = NULL;
		if (!r->suspect && !r->self_suspect)
			continue;
		for (int k = 0; k < an->n_suspects; k++)
			if (!strcmp(an->suspects[k].workload, r->workload) && !strcmp(an->suspects[k].kind, r->kind) &&
			    !strcmp(an->suspects[k].name, r->name) && !strcmp(an->suspects[k].host, r->host))
				sp = &an->suspects[k];
		if (!sp) {
			struct gl_suspect *p = realloc(an->suspects, (size_t)(an->n_suspects + 1) * sizeof(*p));
			if (!p)
				return -1;
			an->suspects = p;
			sp = &an->suspects[an->n_suspects++];
			memset(sp, 0, sizeof(*sp));
			snprintf(sp->workload, sizeof(sp->workload), "%s", r->workload);
			snprintf(sp->kind, sizeof(sp->kind), "%s", r->kind);
			snprintf(sp->name, sizeof(sp->name), "%s", r->name);
			snprintf(sp->host, sizeof(sp->host), "%s", r->host);
		}
		if (r->suspect && r->score > sp->score)
			sp->score = r->score;
		if (r->suspect && r->out > sp->windows)
			sp->windows = r->out;
		if (r->self_suspect && r->self_score > sp->score)
			sp->score = r->self_score;
		if (r->self_suspect && r->self_out > sp->windows)
			sp->windows = r->self_out;
		add_evidence(sp, r);
	}
	/* what else the suspect nodes show (a straggler's short wait) */
	for (int k = 0; k < an->n_suspects; k++)
		for (int i = 0; i < an->n_nodes; i++) {
			const struct gl_node_result *r = &an->nodes[i];
			if (r->def && r->def->shown_only && r->n > 0 &&
			    !strcmp(an->suspects[k].workload, r->workload) && !strcmp(an->suspects[k].kind, r->kind) &&
			    !strcmp(an->suspects[k].name, r->name) && !strcmp(an->suspects[k].host, r->host))
				add_evidence(&an->suspects[k], r);
		}
	if (an->n_suspects > 1)
		qsort(an->suspects, (size_t)an->n_suspects, sizeof(*an->suspects), gl_suspect_cmp);
	return 0;
}

/* A failed run's bisection (store document "bisect"): kept for the
 * reports, and its culprit a suspect host (or its link a suspect link)
 * of the workload that ran it,
 * scored by how far below the threshold its bad jobs ran (threshold over
 * their best busbw; 1000 for jobs that failed without one). */
static int bisect_suspect(struct gl_store *st, struct gl_analysis *an, struct gl_err *err)
{
	const cJSON *cul, *link, *j;
	char name[96];
	struct gl_suspect *sp;
	double min, best = -1;
	char *text = NULL;
	int n_bad = 0;

	if (gl_store_doc_get(st, "bisect", &text, err) != 0)
		return -1;
	if (!text)
		return 0;
	an->bisect = cJSON_Parse(text);
	free(text);
	if (!an->bisect)
		return 0; /* not ours, or damaged: the reports say none */
	cul = cJSON_GetObjectItemCaseSensitive(an->bisect, "culprit");
	link = cJSON_GetObjectItemCaseSensitive(an->bisect, "link");
	if (cJSON_GetArraySize(link) == 2 && cJSON_IsString(cJSON_GetArrayItem(link, 0)) &&
	    cJSON_IsString(cJSON_GetArrayItem(link, 1)))
		snprintf(name, sizeof(name), "%s<->%s", cJSON_GetArrayItem(link, 0)->valuestring,
			 cJSON_GetArrayItem(link, 1)->valuestring);
	else if (cJSON_IsString(cul))
		snprintf(name, sizeof(name), "%s", cul->valuestring);
	else
		return 0;
	min = gl_cfg_num(an->bisect, "min_busbw_gbps", 0);
	cJSON_ArrayForEach(j, cJSON_GetObjectItemCaseSensitive(an->bisect, "jobs"))
	{
		const cJSON *bw = cJSON_GetObjectItemCaseSensitive(j, "busbw_gbps");
		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "bad")))
			continue;
		n_bad++;
		if (cJSON_IsNumber(bw) && bw->valuedouble > best)
			best = bw->valuedouble;
	}
	sp = realloc(an->suspects, (size_t)(an->n_suspects + 1) * sizeof(*sp));
	if (!sp)
		return gl_errf(err, GL_ENOMEM, "analysis: out of memory (suspects)");
	an->suspects = sp;
	sp = &an->suspects[an->n_suspects++];
	memset(sp, 0, sizeof(*sp));
	snprintf(sp->workload, sizeof(sp->workload), "%s", gl_cfg_str(an->bisect, "workload", ""));
	snprintf(sp->kind, sizeof(sp->kind), "%s", cJSON_IsString(cul) ? "host" : "link");
	snprintf(sp->name, sizeof(sp->name), "%s", name);
	/* a link's host: its two ends */
	if (cJSON_IsString(cul))
		snprintf(sp->host, sizeof(sp->host), "%s", cul->valuestring);
	else
		snprintf(sp->host, sizeof(sp->host), "%s,%s", cJSON_GetArrayItem(link, 0)->valuestring,
			 cJSON_GetArrayItem(link, 1)->valuestring);
	sp->score = best > 0 && min > 0 ? min / best : 1000;
	if (best >= 0)
		snprintf(sp->evidence, sizeof(sp->evidence),
			 "bisection: %d bad all-reduce job(s), the best at %.3g GB/s against %.3g; %s", n_bad, best,
			 min, gl_cfg_str(an->bisect, "detail", ""));
	else
		snprintf(sp->evidence, sizeof(sp->evidence),
			 "bisection: %d bad all-reduce job(s), none with a busbw; %s", n_bad,
			 gl_cfg_str(an->bisect, "detail", ""));
	if (an->n_suspects > 1)
		qsort(an->suspects, (size_t)an->n_suspects, sizeof(*an->suspects), gl_suspect_cmp);
	return 0;
}

/* An incident names a node that stood out against its peers in at least
 * a quarter of its windows (one, for an incident of up to 4), or by a
 * wrong value (a figure where any is a fault): one window's noise in a
 * long incident (a healthy replica's TTFT once 4.7 spreads out while its
 * peer's errors burst for 12 windows) names nothing. */
static void incident_nodes_prune(struct gl_analysis *an)
{
	for (int i = 0; i < an->n_incidents; i++) {
		struct gl_incident *inc = &an->incidents[i];
		int need = (inc->w1 - inc->w0 + 1 + 3) / 4, k = 0;
		for (int j = 0; j < inc->n_nodes; j++) {
			const struct gl_incident_node *x = &inc->nodes[j];
			const struct gl_node_figure_def *d = gl_node_def_find(x->workload, x->kind, x->figure);
			if (x->windows >= need || (d && d->zero_expected))
				inc->nodes[k++] = *x;
		}
		inc->n_nodes = k;
	}
}

int gl_nodes_analyze(struct gl_store *st, struct gl_analysis *an, struct gl_err *err)
{
	struct scan s = { .an = an };
	int rc;

	an->self_base = an->n_windows / GL_SELF_BASE_SHARE;
	if (an->self_base < GL_SELF_BASE_MIN)
		an->self_base = GL_SELF_BASE_MIN;
	if (spans_load(&s) != 0)
		s.failed = 1;
	rc = s.failed ? 0 : gl_store_nodes_scan(st, -1, on_row, &s, err);
	window_done(&s);
	free(s.rows);
	free(s.slot);
	free(s.spans);
	free(s.active);
	if (rc || s.failed) {
		free(s.res);
		return rc ? rc : gl_errf(err, GL_ENOMEM, "analysis: out of memory (node figures)");
	}
	an->nodes = s.res;
	an->n_nodes = s.n;
	if (an->n_nodes > 1) /* qsort takes no NULL array, even empty */
		qsort(an->nodes, (size_t)an->n_nodes, sizeof(*an->nodes), cmp_result);
	for (int i = 0; i < an->n_nodes; i++) /* sorted: the defs are found again by name */
		an->nodes[i].def = gl_node_def_find(an->nodes[i].workload, an->nodes[i].kind, an->nodes[i].figure);
	if (finish_scores(an) != 0 || list_suspects(an) != 0)
		return gl_errf(err, GL_ENOMEM, "analysis: out of memory (suspects)");
	incident_nodes_prune(an);
	if (bisect_suspect(st, an, err) != 0 || gl_sweep_analyze(st, an, err) != 0)
		return -1;
	an->suspects_failed = an->sc->suspects_max >= 0 && an->n_suspects > an->sc->suspects_max;
	return 0;
}
