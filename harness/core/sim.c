/*
 * sim.c - `gauntlet simulate`: the virtual clock and its loop, simulated
 * controller crashes and resumes, and the invariants checked per seed
 * (sim.h; docs/simulation.md).
 *
 * The loop: libevent has no artificial time base, so the controller's
 * timers are armed here (ctl_sim_arm) as well as in libevent (far in the
 * future, so that event_del and event_pending keep their meaning). The
 * loop takes the earliest armed timer whose event is still pending, moves
 * the virtual clock to it, activates the event and lets libevent run its
 * callback (EVLOOP_NONBLOCK). Every callback of the real loop thus runs in
 * time order, at the exact moment it was due, with no thread and no wait.
 *
 * A crash: at seeded moments (exponential gaps, R per simulated day) the
 * loop stops between two callbacks; the controller is dropped without its
 * ordered stop, its store closed with what was not committed rolled back
 * (gl_store_abandon), as SIGKILL would leave it. The world stays as it
 * was (faults in, the training job ended with its launcher); after a
 * seeded down time (30 s to 10 min) the run is resumed through the real
 * `resume` path.
 */
#define _GNU_SOURCE
#include "controller_int.h"

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#include "analysis.h"
#include "hist.h"
#include "report_schema.h"
#include "sim.h"
#include "store.h"
#include "timeline.h"

#define NS 1000000000LL
#define SIM_TIMERS 32
#define SIM_WALL0 1767225600000000000LL /* 2026-01-01T00:00:00Z: wall time at SIM_MONO0 */
#define SIM_MONO0 (1000 * NS) /* virtual monotonic time at the start (0 means "not started") */
#define FAR_S (86400 * 365) /* the libevent twin of a virtual timer */

struct sim_timer {
	struct event *ev;
	int64_t at; /* virtual monotonic ns */
};

struct gl_sim {
	uint64_t seed, crash_rng;
	int64_t now;
	struct gl_clock clk;
	struct sim_timer t[SIM_TIMERS];
	int n_t;
	double crash_rate; /* per simulated day */
	int64_t next_crash; /* -1: none */
	int crashes, running, crashed;
	struct sim_world *world;
};

static struct gl_sim *active;

struct gl_sim *ctl_sim_active(void)
{
	return active;
}

static int64_t v_mono(void *arg)
{
	return ((struct gl_sim *)arg)->now;
}
static int64_t v_wall(void *arg)
{
	return SIM_WALL0 + ((struct gl_sim *)arg)->now - SIM_MONO0;
}

static void plan_crash(struct gl_sim *s)
{
	if (s->crash_rate <= 0) {
		s->next_crash = -1;
		return;
	}
	s->next_crash = s->now + (int64_t)(-log(sim_unit(&s->crash_rng)) * 86400.0 / s->crash_rate * 1e9);
}

void ctl_sim_run_id(struct gl_sim *s, char *out, size_t n)
{
	snprintf(out, n, "20260101T000000Z-sim%08llx", (unsigned long long)(s->seed & 0xffffffffULL));
}

int ctl_sim_bind(struct gl_sim *s, struct gl_scenario *sc, char *why, size_t why_n)
{
	(void)s;
	for (int i = 0; i < sc->n_workloads; i++) {
		const struct gl_workload_ops *o = sim_workload_ops(sc->workloads[i].name);
		if (!o) {
			snprintf(why, why_n, "workload '%s' has no simulation model", sc->workloads[i].name);
			return -1;
		}
		sc->workloads[i].ops = o;
	}
	for (int i = 0; i < sc->n_faults; i++)
		sc->faults[i].ops = &sim_fault_ops;
	/* no webhook is sent, no gate runs: neither is modelled */
	sc->n_gates = 0;
	return 0;
}

void ctl_sim_arm(struct gl_ctx *c, struct event *ev, int64_t at_ns)
{
	struct gl_sim *s = c->sim;
	int64_t at = c->clk.mono_start ? c->clk.mono_start + (at_ns - c->clk.elapsed_base) : s->now;
	int k;

	if (at < s->now)
		at = s->now;
	for (k = 0; k < s->n_t && s->t[k].ev != ev; k++)
		;
	if (k == s->n_t) {
		if (s->n_t == SIM_TIMERS) {
			gl_ctx_fail(c, "simulation: more than %d timers", SIM_TIMERS);
			return;
		}
		s->n_t++;
	}
	s->t[k].ev = ev;
	s->t[k].at = at;
	{
		struct timeval far = { FAR_S, 0 };
		evtimer_add(ev, &far);
	}
}

int ctl_sim_killed(const struct gl_ctx *c)
{
	return c->sim && c->sim->crashed;
}

int ctl_sim_defer_flush(struct gl_ctx *c)
{
	return c->sim && c->sim->running && (c->win.idx % 360) != 0;
}

int ctl_sim_running(const struct gl_ctx *c)
{
	return c->sim && c->sim->running;
}

int ctl_sim_dispatch(struct gl_ctx *c)
{
	struct gl_sim *s = c->sim;

	s->running = 1;
	for (;;) {
		int best = -1;
		for (int k = 0; k < s->n_t; k++) {
			if (!event_pending(s->t[k].ev, EV_TIMEOUT, NULL)) {
				s->t[k--] = s->t[--s->n_t]; /* deleted meanwhile */
				continue;
			}
			if (best < 0 || s->t[k].at < s->t[best].at)
				best = k;
		}
		if (best < 0) {
			gl_ctx_fail(c, "simulation: no timer left: the loop would wait forever");
			break;
		}
		if (s->next_crash >= 0 && s->next_crash < s->t[best].at) {
			/* a real controller commits every 0.5 s: its last
			 * commit before the kill, at most that long before it
			 * (the open window's figures so far are in it) */
			int64_t last =
				s->next_crash - (int64_t)(sim_unit(&s->crash_rng) * (double)GL_COMMIT_INTERVAL_NS);
			if (last > s->now) {
				s->now = last;
				sim_world_time(s->world, s->now);
			}
			ctl_commit_now(c); /* also what window closes left open */
			s->now = s->next_crash;
			sim_world_time(s->world, s->now);
			s->crashed = 1;
			s->crashes++;
			plan_crash(s);
			s->running = 0;
			s->n_t = 0; /* the dead controller's events go with it */
			return 1;
		}
		s->now = s->t[best].at;
		sim_world_time(s->world, s->now);
		{
			struct event *ev = s->t[best].ev;
			s->t[best] = s->t[--s->n_t];
			event_del(ev);
			event_active(ev, EV_TIMEOUT, 1);
		}
		event_base_loop(c->base, EVLOOP_NONBLOCK);
		if (c->halt.reason != STOP_NONE || event_base_got_break(c->base))
			break;
	}
	s->running = 0;
	s->n_t = 0;
	return 0;
}

/* ---- the driver -------------------------------------------------------------- */

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb;
	(void)flag;
	(void)f;
	return remove(path);
}

struct wcheck {
	const int64_t *truth;
	int64_t n_truth;
	int64_t expect_idx, bad_idx, stored, want;
	int n_rows, gaps, incomplete;
	int64_t sum;
	struct gl_hist *merged;
};

static void on_window(void *arg, int64_t idx, int complete)
{
	struct wcheck *w = arg;

	if (idx != w->expect_idx && w->bad_idx < 0)
		w->gaps++, w->bad_idx = w->expect_idx;
	w->expect_idx = idx + 1;
	w->n_rows++;
	w->incomplete += !complete;
}

static void on_counter(void *arg, int64_t idx, const unsigned char *h, size_t len, int64_t counter)
{
	struct wcheck *w = arg;
	int64_t want = idx < w->n_truth ? w->truth[idx] : 0;

	(void)h;
	(void)len;
	w->sum += counter;
	if (counter != want && w->bad_idx < 0) {
		w->bad_idx = idx;
		w->stored = counter;
		w->want = want;
	}
}

struct seed_result {
	char verdict[16];
	int code, crashes, faults, windows;
	char violated[600];
};

#define VIOLATE(r, ...)                                                              \
	do {                                                                         \
		if (!(r)->violated[0])                                               \
			snprintf((r)->violated, sizeof((r)->violated), __VA_ARGS__); \
	} while (0)

static void check_counter(struct gl_store *st, const char *name, const int64_t *truth, int64_t n_truth, int64_t total,
			  struct seed_result *r)
{
	struct wcheck w = { truth, n_truth, 0, -1, 0, 0, 0, 0, 0, 0, NULL };
	struct gl_err err = { 0 };

	if (gl_store_metric_scan(st, name, on_counter, &w, &err) != 0) {
		VIOLATE(r, "store-readable: %s", err.msg);
		return;
	}
	if (w.bad_idx >= 0)
		VIOLATE(r, "window-figures: window %lld: %s stored %lld, the model produced %lld", (long long)w.bad_idx,
			name, (long long)w.stored, (long long)w.want);
	else if (w.sum != total)
		VIOLATE(r, "window-figures: %s over the run: stored %lld, the model produced %lld", name,
			(long long)w.sum, (long long)total);
}

/* The run's quantiles of a distribution, as report.json gives them over
 * every window, against the model's exact ones. */
static void check_quantile(const cJSON *report, const char *wl, const char *fig, const struct sim_world *wd, int which,
			   struct seed_result *r)
{
	static const struct {
		double q;
		const char *key;
	} qs[] = { { 0.5, "p50" }, { 0.99, "p99" } };
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(report, "metrics"), wl), fig);

	for (size_t i = 0; i < 2; i++) {
		double truth = sim_world_quantile(wd, which, qs[i].q);
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, qs[i].key);
		if (truth < 0)
			continue;
		/* the histogram keeps 3 significant digits, the truth buckets
		 * are 0.1 % wide: 1 % is well outside both */
		if (!cJSON_IsNumber(v))
			VIOLATE(r, "figures-equal-truth: report.json has no %s.%s %s; the model's is %g", wl, fig,
				qs[i].key, truth);
		else if (fabs(v->valuedouble - truth) > 0.01 * truth)
			VIOLATE(r, "figures-equal-truth: %s.%s %s: report.json says %g, the model's truth is %g", wl,
				fig, qs[i].key, v->valuedouble, truth);
	}
}

/* report.json, parsed (NULL: a violation said why). */
static cJSON *read_report(const char *dir, struct seed_result *r)
{
	char path[1200];
	char *text;
	long len;
	cJSON *doc;
	FILE *f;

	snprintf(path, sizeof(path), "%s/report.json", dir);
	f = fopen(path, "rb");
	if (!f) {
		VIOLATE(r, "report-schema: %s: %s", path, strerror(errno));
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	text = len >= 0 ? malloc((size_t)len + 1) : NULL;
	if (!text || fread(text, 1, (size_t)len, f) != (size_t)len) {
		fclose(f);
		free(text);
		VIOLATE(r, "report-schema: %s: cannot read", path);
		return NULL;
	}
	fclose(f);
	text[len] = '\0';
	doc = cJSON_Parse(text);
	free(text);
	if (!doc)
		VIOLATE(r, "report-schema: %s does not parse", path);
	return doc;
}

static void check_schema(const cJSON *doc, struct seed_result *r)
{
	char err[512];
	int n = 0, rc = gl_report_schema_check(doc, err, sizeof(err), &n);

	if (rc == -2)
		VIOLATE(r, "report-schema: the schema cannot be checked: %s", err);
	else if (rc != 0)
		VIOLATE(r, "report-schema: report.json: %s (%d error(s))", err, n);
}

/* Every invariant of one finished seed; the first that fails goes into r. */
static void check_run(const char *dir, struct gl_sim *s, struct seed_result *r)
{
	const struct sim_truth *t = sim_world_truth(s->world);
	struct gl_store *st;
	struct gl_err err = { 0 };
	struct gl_run_row row = { 0 };
	struct gl_fault_row *rows = NULL;
	int n = 0;
	char db[1200];

	snprintf(db, sizeof(db), "%s/run.db", dir);
	st = gl_store_open_reader(db, &err);
	if (!st || gl_store_run_load(st, &row, &err) != 0) {
		VIOLATE(r, "store-readable: %s", err.msg);
		gl_store_close(st);
		return;
	}
	snprintf(r->verdict, sizeof(r->verdict), "%s", row.verdict);
	/* faults: each injected one reverted exactly once, journal and model
	 * agreeing */
	if (gl_store_fault_list(st, &rows, &n, &err) != 0)
		VIOLATE(r, "store-readable: %s", err.msg);
	r->faults = n;
	for (int i = 0; i < n; i++) {
		int inj = 0, rev = 0, act = 0;
		if (sim_world_fault(s->world, rows[i].id, &inj, &rev, &act) != 0) {
			VIOLATE(r, "fault-reverted: fault '%s' is in the journal but not in the plan", rows[i].id);
			continue;
		}
		if (act)
			VIOLATE(r,
				"fault-reverted: fault '%s' (%s) is still in on the simulated cluster (injected %d, "
				"reverted %d); the journal says %s",
				rows[i].id, rows[i].kind, inj, rev, gl_fault_state_name(rows[i].state));
		else if (inj != rev)
			VIOLATE(r, "fault-reverted: fault '%s' (%s) injected %d time(s), reverted %d time(s)",
				rows[i].id, rows[i].kind, inj, rev);
		else if (inj && rows[i].state != GL_FAULT_REVERTED)
			VIOLATE(r,
				"fault-reverted: fault '%s' (%s) is reverted on the simulated cluster, the journal "
				"says %s",
				rows[i].id, rows[i].kind, gl_fault_state_name(rows[i].state));
		else if (!inj)
			VIOLATE(r, "fault-reverted: fault '%s' (%s) was never injected (journal: %s)", rows[i].id,
				rows[i].kind, gl_fault_state_name(rows[i].state));
	}
	gl_fault_rows_free(rows, n);
	if (strcmp(row.state, "finished") != 0)
		VIOLATE(r, "run-finished: the run ended %s (exit %d, verdict %s)", row.state, r->code, row.verdict);
	/* windows: each index once, none missing, all complete */
	{
		struct wcheck w = { 0 };
		w.bad_idx = -1;
		if (gl_store_window_scan(st, on_window, &w, &err) != 0)
			VIOLATE(r, "store-readable: %s", err.msg);
		r->windows = w.n_rows;
		if (w.gaps)
			VIOLATE(r, "windows-once: window %lld is missing from the store", (long long)w.bad_idx);
		else if (w.incomplete)
			VIOLATE(r, "windows-once: %d window(s) left incomplete", w.incomplete);
	}
	for (int i = 0; i < t->n; i++)
		check_counter(st, t->metric[i], t->per[i], t->n_windows, t->tot[i], r);
	gl_run_row_free(&row);
	gl_store_close(st);
	{
		cJSON *doc = read_report(dir, r);
		if (doc) {
			check_schema(doc, r);
			for (int i = 0; i < t->n_q; i++)
				check_quantile(doc, t->q_workload[i], t->q_figure[i], s->world, i, r);
		}
		cJSON_Delete(doc);
	}
}

/* One seed, with crashes at crash_rate; the run directory is dir. */
static int run_seed(const struct gl_sim_opts *o, uint64_t seed, double crash_rate, const char *dir,
		    struct seed_result *r)
{
	struct gl_sim s;
	struct gl_run_opts ro = { o->scenario_path, dir, 1, o->sets, 0 };
	struct gl_scenario *sc;
	struct gl_scenario_opts so = { 1, o->sets, SIM_WALL0, NULL };
	struct gl_diag d;
	uint64_t down_rng = seed ^ 0xd0d0d0d0ULL;

	memset(r, 0, sizeof(*r));
	memset(&s, 0, sizeof(s));
	s.seed = seed;
	s.now = SIM_MONO0;
	s.crash_rng = seed * 0x9e3779b97f4a7c15ULL ^ 0xc3a5c85c97cb3127ULL;
	s.crash_rate = crash_rate;
	s.clk.mono_ns = v_mono;
	s.clk.wall_ns = v_wall;
	s.clk.arg = &s;
	/* a simulation reads none of the files the scenario names (traces,
	 * keys, CA bundles): it may run away from the cluster, as validate */
	gl_diag_files_warn_default(1);
	gl_diag_init(&d, NULL);
	sc = gl_scenario_load_file(o->scenario_path, &so, &d);
	gl_diag_free(&d);
	if (!sc) {
		snprintf(r->violated, sizeof(r->violated), "scenario: %s does not load", o->scenario_path);
		return -1;
	}
	s.world = sim_world_new(sc, seed);
	gl_scenario_free(sc);
	if (!s.world) {
		snprintf(r->violated, sizeof(r->violated), "out of memory");
		return -1;
	}
	plan_crash(&s);
	sim_world_time(s.world, s.now);
	active = &s;
	sim_world_set(s.world);
	sim_world_controller(s.world, 1);
	gl_clock_use(&s.clk);
	r->code = gl_controller_run(&ro);
	while (r->code == GL_SIM_KILLED) {
		/* the controller is dead for a while; the cluster is not */
		s.crashed = 0;
		sim_world_controller(s.world, 0);
		s.now += 30 * NS + (int64_t)(sim_unit(&down_rng) * 570.0 * 1e9);
		sim_world_time(s.world, s.now);
		plan_crash(&s);
		sim_world_controller(s.world, 1);
		r->code = gl_controller_resume(dir, 0);
	}
	gl_clock_use(NULL);
	r->crashes = s.crashes;
	if (r->code == 2 || r->code == 4)
		snprintf(r->violated, sizeof(r->violated),
			 "run-finished: the simulated run ended with exit %d (see "
			 "above)",
			 r->code);
	else
		check_run(dir, &s, r);
	active = NULL;
	sim_world_set(NULL);
	sim_world_free(s.world);
	return 0;
}

/* One seed: its line (without the newline) into line; 1 when an
 * invariant failed. */
static int one_seed(const struct gl_sim_opts *o, uint64_t seed, const char *base, char *line, size_t n)
{
	struct seed_result ref = { 0 }, r = { 0 };
	char dir[1200], ref_dir[1200];
	struct timespec t0, t1;

	if (o->out_dir)
		snprintf(dir, sizeof(dir), "%s", o->out_dir);
	else
		snprintf(dir, sizeof(dir), "%s/seed-%llu", base, (unsigned long long)seed);
	snprintf(ref_dir, sizeof(ref_dir), "%s/seed-%llu.nocrash", base, (unsigned long long)seed);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* the verdict without crashes, for the verdict-stable invariant */
	if (o->crash_rate > 0) {
		run_seed(o, seed, 0, ref_dir, &ref);
		nftw(ref_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	}
	run_seed(o, seed, o->crash_rate, dir, &r);
	if (!r.violated[0] && o->crash_rate > 0 && ref.violated[0])
		snprintf(r.violated, sizeof(r.violated), "%.500s (the run without crashes)", ref.violated);
	if (!r.violated[0] && o->crash_rate > 0 && strcmp(ref.verdict, r.verdict) != 0)
		snprintf(r.violated, sizeof(r.violated), "verdict-stable: verdict %s with %d crash(es), %s without",
			 r.verdict, r.crashes, ref.verdict);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!o->out_dir)
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	if (r.violated[0]) {
		snprintf(line, n, "seed %llu: VIOLATED %s", (unsigned long long)seed, r.violated);
		return 1;
	}
	snprintf(line, n, "seed %llu: ok (verdict %s, %d crash(es), %d fault(s), %d windows, %.1f s)",
		 (unsigned long long)seed, r.verdict, r.crashes, r.faults, r.windows,
		 (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}

#define LINE_MAX_SIM 1024

/* Seeds side by side, one process each (a seed's run is a process's
 * whole state: the clock, the world, the store), at most jobs at once;
 * their lines printed in seed order as they come. */
static int seeds_parallel(const struct gl_sim_opts *o, const char *base, int jobs)
{
	int n = o->n_seeds, next = 0, printed = 0, running = 0, bad = 0;
	pid_t *pid = calloc((size_t)n, sizeof(pid_t));
	int *fd = calloc((size_t)n, sizeof(int));
	char(*lines)[LINE_MAX_SIM] = calloc((size_t)n, LINE_MAX_SIM);
	char *done = calloc((size_t)n, 1);

	if (!pid || !fd || !lines || !done) {
		free(pid);
		free(fd);
		free(lines);
		free(done);
		fprintf(stderr, "gauntlet: simulate: out of memory\n");
		return GL_EXIT_HARNESS_ERROR;
	}
	fflush(stdout);
	fflush(stderr);
	while (printed < n) {
		while (running < jobs && next < n) {
			int p[2];
			if (pipe(p) != 0)
				break;
			pid[next] = fork();
			if (pid[next] == 0) {
				char line[LINE_MAX_SIM];
				int b;
				close(p[0]);
				b = one_seed(o, o->seed + (uint64_t)next, base, line, sizeof(line));
				if (write(p[1], line, strlen(line)) < 0)
					_exit(3);
				_exit(b);
			}
			close(p[1]);
			if (pid[next] < 0) {
				close(p[0]);
				break;
			}
			fd[next++] = p[0];
			running++;
		}
		if (!running)
			break;
		{
			int st = 0;
			pid_t w = waitpid(-1, &st, 0);
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				break;
			for (int k = 0; k < next; k++) {
				ssize_t got;
				if (pid[k] != w)
					continue;
				got = read(fd[k], lines[k], LINE_MAX_SIM - 1);
				close(fd[k]);
				if (got <= 0)
					snprintf(lines[k], LINE_MAX_SIM,
						 "seed %llu: VIOLATED harness: the seed's process "
						 "ended with status %d and no line",
						 (unsigned long long)(o->seed + (uint64_t)k), st);
				bad += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
				done[k] = 1;
				running--;
			}
		}
		while (printed < n && done[printed]) {
			printf("%s\n", lines[printed++]);
			fflush(stdout);
		}
	}
	free(pid);
	free(fd);
	free(lines);
	free(done);
	return printed < n ? GL_EXIT_HARNESS_ERROR : bad ? GL_EXIT_FAIL : GL_EXIT_OK;
}

int gl_controller_simulate(const struct gl_sim_opts *o)
{
	int bad = 0;
	char buf[1100];
	const char *td = getenv("TMPDIR");
	struct stat sb;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int jobs = o->jobs > 0 ? o->jobs : cpus > 0 ? (int)cpus : 1;

	/* the runs kept nowhere (all but --out's) go in memory where there
	 * is a tmpfs for them: they are thrown away */
	if (!(td && *td) && stat("/dev/shm", &sb) == 0 && S_ISDIR(sb.st_mode) && access("/dev/shm", W_OK) == 0)
		td = "/dev/shm";
	snprintf(buf, sizeof(buf), "%s/gauntlet-simulate-XXXXXX", td && *td ? td : "/tmp");
	if (!mkdtemp(buf)) {
		fprintf(stderr, "gauntlet: simulate: cannot make a working directory %s: %s\n", buf, strerror(errno));
		return GL_EXIT_HARNESS_ERROR;
	}
	if (o->n_seeds > 1 && jobs > 1) {
		bad = seeds_parallel(o, buf, jobs);
	} else {
		for (int k = 0; k < o->n_seeds; k++) {
			char line[LINE_MAX_SIM];
			bad |= one_seed(o, o->seed + (uint64_t)k, buf, line, sizeof(line));
			printf("%s\n", line);
			fflush(stdout);
		}
	}
	nftw(buf, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return bad;
}
