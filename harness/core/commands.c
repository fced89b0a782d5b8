/*
 * commands.c - the commands on the engine: run (the scenario, --dry-run,
 * the run directory and its store, preflight), resume (the journal
 * reconciled with the timeline, then the loop goes on) and revert; and
 * what they share: opening a recorded run, showing its stored plans, the
 * run lock, building the faults, freeing the context.
 *
 * run and resume take SIGINT and SIGTERM as a stop request (stop.h) from
 * before their first phase on: the inventory, preflight and before gates
 * run with their commands interruptible and are checked after; a stop
 * there ends the run aborted and reported (stop_before_soak), from the
 * loop on ctl_drive sees to it.
 */
#define _GNU_SOURCE
#include "controller_int.h"

#include "agents.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "analysis.h"
#include "inventory.h"
#include "live.h"
#include "metrics.h"
#include "notify.h"
#include "secrets.h"
#include "sim.h"
#include "stop.h"
#include "timeline.h"

/* A fault's --dry-run description: whole scenarios are at most a few MiB,
 * and quoting at most quadruples a byte. */
#define DESCRIBE_MAX (64 << 20)

/* A description on a terminal: its lines as they are, any other control
 * character (CR, an escape sequence a value smuggled past the quoting) as
 * \xHH, so what is shown cannot hide or forge what runs. */
static void put_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char u = (unsigned char)*s;
		if ((u < 0x20 && u != '\n') || u == 0x7f)
			fprintf(f, "\\x%02x", u);
		else
			fputc(u, f);
	}
}

/* ---- set-up and tear-down ------------------------------------------------ */

static int lock_dir(struct gl_ctx *c)
{
	char path[1100];
	snprintf(path, sizeof(path), "%s/run.lock", c->run.dir);
	c->run.lock_fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (c->run.lock_fd < 0) {
		fprintf(stderr, "gauntlet: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (flock(c->run.lock_fd, LOCK_EX | LOCK_NB) != 0) {
		char pid[32] = "";
		ssize_t n = pread(c->run.lock_fd, pid, sizeof(pid) - 1, 0);
		if (n > 0)
			pid[n] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		fprintf(stderr, "gauntlet: %s: another gauntlet (pid %s) is running this run\n", c->run.dir,
			pid[0] ? pid : "?");
		close(c->run.lock_fd);
		c->run.lock_fd = -1;
		return -1;
	}
	if (ftruncate(c->run.lock_fd, 0) == 0) {
		char pid[32];
		int n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
		if (pwrite(c->run.lock_fd, pid, (size_t)n, 0) < 0) {
			/* the pid is informative only */
		}
	}
	return 0;
}

static void ctx_free(struct gl_ctx *c)
{
	ctl_dm_stop(c);
	ctl_fx_stop(c);
	if (c->wl.state)
		for (int i = 0; i < c->sc->n_workloads; i++)
			if (c->wl.state[i] && c->sc->workloads[i].ops->free)
				c->sc->workloads[i].ops->free(c->wl.state[i]);
	free(c->wl.state);
	if (c->wl.agents)
		for (int i = 0; i < c->sc->n_workloads; i++)
			gl_agents_free(c->wl.agents[i]);
	free(c->wl.agents);
	gl_metrics_free(c->win.closing);
	if (c->win.ev_settle)
		event_free(c->win.ev_settle);
	if (c->faults)
		for (int i = 0; i < c->sc->n_faults; i++) {
			cJSON_Delete(c->faults[i].plan);
			free(c->faults[i].row.plan);
		}
	free(c->faults);
	free(c->timeline.ev);
	free(c->halt.abort_since);
	if (c->timeline.timer)
		event_free(c->timeline.timer);
	if (c->win.ev_commit)
		event_free(c->win.ev_commit);
	if (c->win.ev_close)
		event_free(c->win.ev_close);
	if (c->halt.ev)
		event_free(c->halt.ev);
	gl_notify_free(c->obs.nt);
	gl_live_free(c->obs.live);
	if (c->base)
		event_base_free(c->base);
	gl_metrics_free(c->m);
	gl_nodes_free(c->nodes);
	if (ctl_sim_killed(c))
		gl_store_abandon(c->st); /* a simulated kill: what was not committed is lost */
	else
		gl_store_close(c->st);
	gl_scenario_free(c->sc);
	if (c->run.lock_fd >= 0)
		close(c->run.lock_fd);
	/* every thread that logs is gone: the log's clock is the process's
	 * again (c is about to go) */
	if (c->clk.log) {
		gl_log_clock(NULL, NULL);
		c->clk.log = 0;
	}
	/* every thread and workload that used a secret is gone: wipe the
	 * copies taken from the environment (secrets.h) */
	gl_secrets_clear();
}

/* Every workload and fault kind used must have its run hooks in this build. */
static int preflight_plugins(const struct gl_scenario *s)
{
	int bad = 0;
	for (int i = 0; i < s->n_workloads; i++) {
		const struct gl_workload_ops *o = s->workloads[i].ops;
		if (!o->init || !o->start || !o->stop) {
			fprintf(stderr,
				"gauntlet: workload '%s' cannot run in this build yet (its engine is not built)\n",
				o->name);
			bad = 1;
		}
	}
	for (int i = 0; i < s->n_faults; i++) {
		const struct gl_fault_ops *o = s->faults[i].ops;
		if (!o->plan || !o->inject || !o->revert) {
			fprintf(stderr, "gauntlet: faults[%d] '%s': fault kind '%s' cannot run in this build yet\n", i,
				s->faults[i].id, o->kind);
			bad = 1;
		}
	}
	return bad ? -1 : 0;
}

/* A stop request (SIGINT, SIGTERM) before the soak started: during the
 * start-up, the inventory, preflight or the before gates (gates_ran: they
 * recorded what they did not finish). Nothing was started or injected by
 * this process; faults a killed controller left in (resume) are reverted.
 * The gates not run are recorded so, and the run ends aborted and
 * reported like any other (exit 3). */
static int stop_before_soak(struct gl_ctx *c, const char *during, int gates_ran)
{
	/* the loop's clock never ran: what is journaled now happens at the
	 * point the run stood (0, or the resume point) */
	c->clk.held = 1;
	gl_ctx_event(c, GL_LOG_WARN, "controller", "%s during %s: nothing was started%s", c->halt.msg, during,
		     ctl_active_faults(c) ? "; the faults still in from before the resume are reverted" : "");
	if (!gates_ran)
		ctl_gates_skip(c, 0, c->halt.msg);
	ctl_gates_skip(c, 1, c->halt.msg);
	ctl_notify_open_for_stop(c);
	ctl_notify_stopping(c);
	ctl_revert_all(c, c->halt.msg);
	return ctl_finish(c);
}

/* The workloads' surveys (plugin.h survey: training's node sweep), once
 * the before gates passed and before any load; a fresh run's only. A
 * stop request ends them and the run (stop_before_soak). 0 to go on, 1
 * when the run ended (*code). */
static int run_surveys(struct gl_ctx *c, int *code)
{
	int stopped = 0;

	if (c->sim)
		return 0;
	for (int w = 0; w < c->sc->n_workloads && !stopped; w++) {
		const struct gl_workload_spec *ws = &c->sc->workloads[w];
		struct gl_err e = { 0 };
		if (!ws->ops || !ws->ops->survey)
			continue;
		gl_stop_interruptible(1);
		stopped = ws->ops->survey(c, ws->cfg) != 0;
		gl_stop_interruptible(0);
		if (gl_store_flush(c->st, &e) != 0)
			gl_ctx_event(c, GL_LOG_ERROR, "controller", "%s", e.msg);
	}
	if (ctl_stopping(c) || stopped) {
		*code = stop_before_soak(c, "the node sweep", 1);
		return 1;
	}
	return 0;
}

/* The "before" gates (docs/gates.md), once preflight passed and before
 * any workload is set up (run; resume, for those a killed process did not
 * finish): one failure stops the run as a failed one (exit 4), reported,
 * with nothing started. A stop request ends them and the run
 * (stop_before_soak). 0 to go on, 1 when the run ended (*code). */
static int run_before_gates(struct gl_ctx *c, int *code)
{
	struct gl_err rerr = { 0 };
	char why[700];
	int failed;

	if (c->sc->n_gates == 0)
		return 0;
	gl_stop_interruptible(1);
	failed = ctl_gates_run(c, 0, why, sizeof(why));
	gl_stop_interruptible(0);
	if (ctl_stopping(c)) {
		*code = stop_before_soak(c, "the before gates", 1);
		return 1;
	}
	if (failed == 0)
		return 0;
	gl_ctx_event(c, GL_LOG_ERROR, "controller",
		     "%d gate run(s) failed before the soak: nothing was started or "
		     "injected",
		     failed);
	gl_store_run_finish(c->st, "failed", gl_verdict_name(GL_VERDICT_FAIL), GL_EXIT_HARNESS_ERROR, gl_wall_ns());
	ctl_notify_failed_start(c, why);
	if (ctl_write_reports(c->run.dir, c->st, &rerr) != 0)
		fprintf(stderr, "gauntlet: report: %s\n", rerr.msg);
	fprintf(stderr,
		"gauntlet: %s\ngauntlet: a gate failed before the soak: nothing was started (exit 4); report: "
		"%s/report.json\n",
		why, c->run.dir);
	*code = GL_EXIT_HARNESS_ERROR;
	return 1;
}

static int build_faults(struct gl_ctx *c, int fresh)
{
	c->faults = calloc((size_t)c->sc->n_faults + 1, sizeof(*c->faults));
	if (!c->faults)
		return -1;
	for (int i = 0; i < c->sc->n_faults; i++) {
		struct fault_rt *f = &c->faults[i];
		const struct gl_fault_spec *s = &c->sc->faults[i];
		struct gl_err err = { 0 };
		f->spec = s;
		if (!s->ops->plan) {
			/* kind not built: run refuses it in preflight; revert and
			 * resume use the journaled plan */
			continue;
		}
		if (s->ops->plan(c->sc, s, &f->plan, &err) != 0) {
			fprintf(stderr, "gauntlet: faults[%d] '%s': cannot plan: %s\n", i, s->id, err.msg);
			return -1;
		}
		if (!fresh)
			continue;
		snprintf(f->row.id, sizeof(f->row.id), "%s", s->id);
		snprintf(f->row.kind, sizeof(f->row.kind), "%s", s->kind);
		snprintf(f->row.method, sizeof(f->row.method), "%s", s->method);
		snprintf(f->row.target, sizeof(f->row.target), "%s", s->target);
		f->row.at_ns = s->at_ns;
		f->row.dur_ns = s->dur_ns;
		f->row.state = GL_FAULT_PLANNED;
		f->row.verified = f->row.verified_revert = -1;
		f->row.injected_elapsed_ns = f->row.reverted_elapsed_ns = -1;
		f->row.injected_scn_ns = f->row.reverted_scn_ns = -1;
	}
	return 0;
}

static void make_run_id(char *out, size_t n)
{
	unsigned char rnd[4] = { 0 };
	char t[40];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	time_t now = time(NULL);
	struct tm tm;

	if (fd >= 0) {
		if (read(fd, rnd, sizeof(rnd)) < 0) {
			/* fall back to the clock below */
		}
		close(fd);
	}
	if (!rnd[0] && !rnd[1])
		*(uint32_t *)rnd = (uint32_t)gl_now_ns();
	gmtime_r(&now, &tm);
	strftime(t, sizeof(t), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(out, n, "%s-%02x%02x%02x%02x", t, rnd[0], rnd[1], rnd[2], rnd[3]);
}

static void print_diag(const struct gl_diag *d)
{
	if (d->text.data)
		fputs(d->text.data, stderr);
	if (d->n_dropped)
		fprintf(stderr, "(%d more diagnostics not shown)\n", d->n_dropped);
}

/* SIGINT and SIGTERM from here on are a request to stop (stop.h):
 * whatever phase they come in, the run ends aborted and reported. */
static int install_stop(void)
{
	if (gl_stop_install() == 0)
		return 0;
	fprintf(stderr, "gauntlet: cannot set up the SIGINT/SIGTERM handler: %s\n", strerror(errno));
	return -1;
}

static int start_loop(struct gl_ctx *c)
{
	if (ctl_start_loop(c) == 0)
		return 0;
	fprintf(stderr, "gauntlet: cannot start: %s\n", c->halt.msg[0] ? c->halt.msg : "out of memory");
	return -1;
}

/* The scenario file, validated (missing thresholds only warned of: they
 * fail the verdict), and bound to the simulation if there is one. 0 or
 * the exit code. */
static int load_scenario(struct gl_ctx *c, const struct gl_run_opts *o)
{
	struct gl_scenario_opts so = { o->time_scale, o->sets, 0, NULL };
	struct gl_diag d;

	gl_diag_init(&d, NULL);
	so.start_wall_ns = gl_wall_ns();
	c->sc = gl_scenario_load_file(o->scenario_path, &so, &d);
	if (!c->sc || d.n_errors > c->sc->n_missing) {
		print_diag(&d);
		fprintf(stderr, "gauntlet: %s: invalid scenario, nothing was run\n", o->scenario_path);
		gl_diag_free(&d);
		return GL_EXIT_BAD_INPUT;
	}
	if (d.n_errors) {
		print_diag(&d);
		fprintf(stderr, "gauntlet: running anyway: the missing thresholds above fail the verdict\n");
	}
	gl_diag_free(&d);
	if (c->sim) {
		char why[200];
		if (ctl_sim_bind(c->sim, c->sc, why, sizeof(why)) != 0) {
			fprintf(stderr, "gauntlet: simulate: %s\n", why);
			return GL_EXIT_BAD_INPUT;
		}
	}
	return 0;
}

/* --dry-run: the timeline, agents, gates, webhooks and every fault's
 * commands, as the run would execute them. */
static void print_dry_run(struct gl_ctx *c)
{
	gl_timeline_print(c->sc, c->clk.scale, stdout);
	gl_agents_print(c->sc, stdout);
	gl_gates_print(c->sc, stdout);
	gl_notify_print(c->sc, stdout);
	for (int i = 0; i < c->sc->n_faults; i++) {
		struct gl_buf b;
		gl_buf_init(&b, DESCRIBE_MAX);
		if (c->sc->faults[i].ops->describe)
			c->sc->faults[i].ops->describe(c->faults[i].plan, &b);
		ctl_dm_plan(c, &c->faults[i]);
		ctl_dm_describe(&c->faults[i], c->faults[i].plan, &b);
		printf("fault '%s' on host '%s':\n", c->faults[i].row.id, c->faults[i].row.target);
		put_text(stdout, b.data ? b.data : "  (no commands)\n");
		if (b.cut)
			printf("  (THE DESCRIPTION ABOVE IS INCOMPLETE: it did not fit in %d MiB; the run would "
			       "execute more than is shown)\n",
			       DESCRIBE_MAX >> 20);
		if (c->sc->faults[i].runbook[0])
			printf("  runbook: %s\n", c->sc->faults[i].runbook);
		gl_buf_free(&b);
	}
	printf("dry run: nothing was started, injected or written\n");
}

/* The run's id and directory, made and locked. A new directory, or an
 * empty one of ours: never one another user prepared (links planted in it
 * would redirect root's writes). 0 or the exit code. */
static int make_run_dir(struct gl_ctx *c, const struct gl_run_opts *o, struct gl_run_row *row)
{
	struct gl_err err = { 0 };
	size_t n;

	if (c->sim)
		ctl_sim_run_id(c->sim, row->id, sizeof(row->id));
	else
		make_run_id(row->id, sizeof(row->id));
	snprintf(c->run.id, sizeof(c->run.id), "%s", row->id);
	if (o->out_dir)
		snprintf(c->run.dir, sizeof(c->run.dir), "%s", o->out_dir);
	else
		snprintf(c->run.dir, sizeof(c->run.dir), "runs/%s-%s", c->sc->name, row->id);
	n = strlen(c->run.dir);
	while (n > 1 && c->run.dir[n - 1] == '/')
		c->run.dir[--n] = '\0';
	if (gl_rundir_create(c->run.dir, &err) != 0) {
		fprintf(stderr, "gauntlet: %s\n", err.msg);
		return err.code == GL_EINVAL ? GL_EXIT_BAD_INPUT : GL_EXIT_HARNESS_ERROR;
	}
	return lock_dir(c) != 0 ? GL_EXIT_HARNESS_ERROR : 0;
}

/* The new store: the run row, the phases, the journal of every planned
 * fault and the scenario's inventory (resume and report rebuild the
 * scenario from it). 0 or the exit code. */
static int create_store(struct gl_ctx *c, const struct gl_run_opts *o, struct gl_run_row *row)
{
	struct gl_err err = { 0 };
	struct utsname un;
	char db[1100];
	cJSON *sets;
	int rc;

	snprintf(db, sizeof(db), "%s/run.db", c->run.dir);
	if (!(c->st = gl_store_open(db, 1, &err))) {
		fprintf(stderr, "gauntlet: %s\n", err.msg);
		return GL_EXIT_BAD_INPUT;
	}
	if (c->sim)
		gl_store_no_sync(c->st);
	ctl_store_policy(c);
	/* the run exists: log lines carry its clock, at 0 until the loop
	 * starts (the events stored before then are at 0 too) */
	ctl_log_clock_start(c);
	snprintf(row->name, sizeof(row->name), "%s", c->sc->name);
	snprintf(row->scenario_path, sizeof(row->scenario_path), "%s", o->scenario_path);
	row->scenario_text = c->sc->text;
	snprintf(row->scenario_sha256, sizeof(row->scenario_sha256), "%s", c->sc->sha256);
	sets = cJSON_CreateArray();
	for (int i = 0; o->sets && o->sets[i]; i++)
		cJSON_AddItemToArray(sets, cJSON_CreateString(o->sets[i]));
	row->sets_json = cJSON_PrintUnformatted(sets);
	cJSON_Delete(sets);
	row->time_scale = c->clk.scale;
	row->window_ns = c->sc->window_ns;
	row->duration_ns = c->sc->duration_ns;
	row->started_wall_ns = gl_wall_ns();
	snprintf(row->version, sizeof(row->version), "%s", GL_VERSION);
	snprintf(row->git_rev, sizeof(row->git_rev), "%s", GL_GIT_REV);
	if (uname(&un) == 0)
		snprintf(row->hostname, sizeof(row->hostname), "%s", un.nodename);
	rc = gl_store_run_create(c->st, row, &err);
	free(row->sets_json);
	row->sets_json = NULL;
	if (rc != 0) {
		fprintf(stderr, "gauntlet: %s\n", err.msg);
		return GL_EXIT_HARNESS_ERROR;
	}
	for (int i = 0; i < c->sc->n_phases; i++) {
		const struct gl_phase *p = &c->sc->phases[i];
		gl_store_phase_put(c->st, i, p->name, p->start_ns, p->start_ns + p->dur_ns, p->load,
				   gl_scope_name(p->scope));
	}
	for (int i = 0; i < c->sc->n_faults; i++)
		if (ctl_journal(c, &c->faults[i]) != 0)
			return GL_EXIT_HARNESS_ERROR;
	if (c->sc->inventory_text && gl_store_doc_put(c->st, "scenario_inventory", c->sc->inventory_text, &err) != 0) {
		fprintf(stderr, "gauntlet: the scenario's inventory %s could not be stored: %s\n",
			c->sc->inventory_path, err.msg);
		return GL_EXIT_HARNESS_ERROR;
	}
	return 0;
}

/* Provenance for manifest.json, kept in the store; bounded, and never a
 * reason to fail the run; a stop request ends its commands (their items
 * say so). */
static void store_inventory(struct gl_ctx *c)
{
	struct gl_err ierr = { 0 };
	cJSON *inv;
	char *text;

	gl_ctx_event(c, GL_LOG_INFO, "inventory", "collecting from %d host(s)", c->sc->n_hosts);
	gl_stop_interruptible(1);
	inv = gl_inventory_collect(c->sc, 0);
	gl_stop_interruptible(0);
	text = inv ? cJSON_PrintUnformatted(inv) : NULL;
	if (!text || gl_store_doc_put(c->st, "inventory", text, &ierr) != 0)
		gl_ctx_event(c, GL_LOG_WARN, "inventory", "not stored: %s", text ? ierr.msg : "out of memory");
	else
		gl_ctx_event(c, GL_LOG_INFO, "inventory", "%d host(s) in %.1f s", c->sc->n_hosts,
			     cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(inv, "collect_s")));
	cJSON_free(text);
	cJSON_Delete(inv);
}

/* What a run asks of its hosts before the soak: the inventory, preflight
 * (a failure ends the run failed, reported), the before gates. A stop
 * request between them ends the run. 0 to go on, 1 when the run ended
 * (*code). */
static int before_soak(struct gl_ctx *c, int *code)
{
	struct gl_err rerr = { 0 };
	int rc;

	store_inventory(c);
	if (ctl_stopping(c)) {
		*code = stop_before_soak(c, "the inventory", 0);
		return 1;
	}
	gl_stop_interruptible(1);
	rc = ctl_preflight_run(c);
	gl_stop_interruptible(0);
	if (ctl_stopping(c)) {
		*code = stop_before_soak(c, "preflight", 0);
		return 1;
	}
	if (rc != 0) {
		gl_ctx_event(c, GL_LOG_ERROR, "controller", "preflight failed: nothing was started or injected");
		gl_store_run_finish(c->st, "failed", gl_verdict_name(GL_VERDICT_FAIL), GL_EXIT_HARNESS_ERROR,
				    gl_wall_ns());
		ctl_notify_failed_start(c, "preflight failed: nothing was started or injected");
		if (ctl_write_reports(c->run.dir, c->st, &rerr) != 0)
			fprintf(stderr, "gauntlet: report: %s\n", rerr.msg);
		fprintf(stderr, "gauntlet: preflight failed (see above); report: %s/report.json\n", c->run.dir);
		*code = GL_EXIT_HARNESS_ERROR;
		return 1;
	}
	return run_before_gates(c, code) || run_surveys(c, code);
}

int gl_controller_run(const struct gl_run_opts *o)
{
	struct gl_ctx c = { .run.lock_fd = -1 };
	struct gl_run_row row = { 0 };
	int code;

	c.sim = ctl_sim_active();
	if ((code = load_scenario(&c, o)) != 0) {
		gl_scenario_free(c.sc);
		return code;
	}
	gl_secrets_take(c.sc->root); /* before any thread or child (secrets.h) */
	c.clk.scale = o->time_scale > 0 ? o->time_scale : 1;
	if (preflight_plugins(c.sc) != 0) {
		gl_scenario_free(c.sc);
		return GL_EXIT_HARNESS_ERROR;
	}
	/* the webhooks' URLs, before anything is stored (--dry-run sends
	 * nothing and needs none) */
	if (!o->dry_run && !c.sim && (code = ctl_notify_open(&c)) != 0)
		goto out;
	code = GL_EXIT_HARNESS_ERROR;
	if (build_faults(&c, 1) != 0)
		goto out;
	if (o->dry_run) {
		print_dry_run(&c);
		code = GL_EXIT_OK;
		goto out;
	}
	if (install_stop() != 0)
		goto out;
	if ((code = make_run_dir(&c, o, &row)) != 0 || (code = create_store(&c, o, &row)) != 0)
		goto out;
	if (ctl_stopping(&c)) {
		code = stop_before_soak(&c, "the start-up", 0);
		goto out;
	}
	/* a simulation asks no host anything: no inventory, preflight or gate */
	if (!c.sim && before_soak(&c, &code) != 0)
		goto out;
	code = GL_EXIT_HARNESS_ERROR;
	if (start_loop(&c) != 0)
		goto out;
	gl_ctx_event(&c, GL_LOG_INFO, "controller", "run %s started in %s (time scale %g)", row.id, c.run.dir,
		     c.clk.scale);
	ctl_notify_start(&c);
	c.clk.elapsed_base = 0;
	code = ctl_drive(&c);
out:
	ctx_free(&c);
	return code;
}

/* Open DIR's store and scenario as the run recorded them. */
static int open_existing(struct gl_ctx *c, const char *dir, struct gl_run_row *row)
{
	struct gl_err err = { 0 };
	struct gl_diag d;
	char db[1100];

	snprintf(c->run.dir, sizeof(c->run.dir), "%s", dir);
	snprintf(db, sizeof(db), "%s/run.db", dir);
	if (access(db, F_OK) != 0) {
		fprintf(stderr, "gauntlet: %s: no run store (run.db) here\n", dir);
		return GL_EXIT_BAD_INPUT;
	}
	/* The plans in this store run as us: refuse one another user could
	 * have written, before touching anything in the directory. */
	if (gl_path_trusted(dir, 1, &err) != 0) {
		fprintf(stderr, "gauntlet: %s\n", err.msg);
		return GL_EXIT_BAD_INPUT;
	}
	if (lock_dir(c) != 0)
		return GL_EXIT_HARNESS_ERROR;
	c->st = gl_store_open(db, 0, &err);
	if (!c->st || gl_store_run_load(c->st, row, &err) != 0) {
		fprintf(stderr, "gauntlet: %s\n", err.msg);
		return err.code == GL_EINVAL ? GL_EXIT_BAD_INPUT : GL_EXIT_HARNESS_ERROR;
	}
	if (c->sim)
		gl_store_no_sync(c->st);
	c->sc = gl_scenario_from_store(c->st, row, &d);
	if (!c->sc || d.n_errors > c->sc->n_missing) {
		print_diag(&d);
		gl_diag_free(&d);
		fprintf(stderr, "gauntlet: %s: the stored scenario does not validate with this gauntlet\n", dir);
		return GL_EXIT_BAD_INPUT;
	}
	gl_diag_free(&d);
	if (c->sim) {
		char why[200];
		if (ctl_sim_bind(c->sim, c->sc, why, sizeof(why)) != 0) {
			fprintf(stderr, "gauntlet: simulate: %s\n", why);
			return GL_EXIT_BAD_INPUT;
		}
	}
	ctl_store_policy(c);
	gl_secrets_take(c->sc->root); /* before any thread or child (secrets.h) */
	c->clk.scale = row->time_scale;
	if (build_faults(c, 0) != 0)
		return GL_EXIT_HARNESS_ERROR;
	/* Take each fault's state from the journal, matching by id. */
	{
		struct gl_fault_row *rows;
		int n;
		if (gl_store_fault_list(c->st, &rows, &n, &err) != 0) {
			fprintf(stderr, "gauntlet: %s\n", err.msg);
			return GL_EXIT_HARNESS_ERROR;
		}
		for (int i = 0; i < c->sc->n_faults; i++)
			for (int j = 0; j < n; j++)
				if (!strcmp(rows[j].id, c->sc->faults[i].id)) {
					c->faults[i].row = rows[j];
					rows[j].plan = NULL;
					/* Revert with the plan that was journaled, not a new one. */
					if (c->faults[i].row.plan) {
						cJSON *p = cJSON_Parse(c->faults[i].row.plan);
						if (p) {
							cJSON_Delete(c->faults[i].plan);
							c->faults[i].plan = p;
						}
					}
				}
		gl_fault_rows_free(rows, n);
	}
	return 0;
}

/* Print what reverting each fault the journal holds as live would execute:
 * the plan stored in run.db, as --dry-run describes a new run's. */
static int print_live_plans(struct gl_ctx *c, FILE *out)
{
	int n = 0;

	for (int i = 0; i < c->sc->n_faults; i++) {
		struct fault_rt *f = &c->faults[i];
		struct gl_buf b;

		if (!gl_fault_state_live(f->row.state))
			continue;
		n++;
		gl_buf_init(&b, DESCRIBE_MAX);
		if (f->spec->ops->describe)
			f->spec->ops->describe(f->plan, &b);
		ctl_dm_describe(f, f->plan, &b);
		fprintf(out, "fault '%s' (%s on host '%s', journal state %s): its stored plan:\n", f->row.id,
			f->row.kind, f->row.target, gl_fault_state_name(f->row.state));
		put_text(out, b.data ? b.data : "  (no commands)\n");
		if (b.cut)
			fprintf(out,
				"  (THE PLAN ABOVE IS INCOMPLETE: it did not fit in %d MiB; more would be "
				"executed than is shown)\n",
				DESCRIBE_MAX >> 20);
		gl_buf_free(&b);
	}
	if (!n)
		fprintf(out, "no fault is injected: nothing to revert\n");
	return n;
}

/* The plans in a store run as whoever runs resume or revert. When another
 * gauntlet version or host wrote the store, show them before executing
 * anything (they may mean something else here); --dry-run shows them and
 * stops. Returns 1 when the caller must stop (dry run). */
static int show_plans_if_needed(struct gl_ctx *c, const struct gl_run_row *row, const char *what, int dry_run)
{
	struct utsname un;
	const char *host = uname(&un) == 0 ? un.nodename : "";
	int other_version = strcmp(row->version, GL_VERSION) != 0 || strcmp(row->git_rev, GL_GIT_REV) != 0;
	int other_host = strcmp(row->hostname, host) != 0;

	if (dry_run) {
		printf("dry run of %s %s: run %s, written by gauntlet %s (%s) on host '%s'\n", what, c->run.dir,
		       row->id, row->version, row->git_rev, row->hostname);
		print_live_plans(c, stdout);
		printf("dry run: nothing was executed\n");
		return 1;
	}
	if (other_version || other_host) {
		fprintf(stderr,
			"gauntlet: %s: this store was written by gauntlet %s (%s) on host '%s'; this is gauntlet %s "
			"(%s) on host '%s'. The plans %s executes now:\n",
			c->run.dir, row->version, row->git_rev, row->hostname, GL_VERSION, GL_GIT_REV, host, what);
		print_live_plans(c, stderr);
	}
	return 0;
}

/* The outage this resume ends: from the last commit the store holds (work
 * after it was lost with the controller) to now. */
static void record_outage(struct gl_ctx *c, const struct gl_run_row *row, int64_t base)
{
	struct gl_outage_row o = { row->resumes + 1, base, row->progress_wall_ns, gl_wall_ns() };

	gl_store_outage_put(c->st, &o);
	if (o.down_wall_ns > 0)
		c->run.down_ns = o.resumed_wall_ns - o.down_wall_ns;
	if (o.down_wall_ns > 0)
		gl_ctx_event(c, GL_LOG_WARN, "controller",
			     "run %s resumed at elapsed %.3f s (resume #%d): "
			     "the controller was down %.3f s since its last commit",
			     row->id, (double)base / 1e9, row->resumes + 1,
			     (double)(o.resumed_wall_ns - o.down_wall_ns) / 1e9);
	else
		gl_ctx_event(c, GL_LOG_INFO, "controller", "run %s resumed at elapsed %.3f s (resume #%d)", row->id,
			     (double)base / 1e9, row->resumes + 1);
}

static void restore_node(void *arg, const struct gl_node_fig *f)
{
	struct gl_ctx *c = arg;

	gl_nodes_add(c->nodes, f->idx, f->workload, f->kind, f->name, f->host, f->figure, f->n, f->sum, f->max);
}

/* Put back the open window and its figures: the last row when open (a
 * fault step's commit can write it past its boundary, killed before the
 * window timer closed it: the loop closes it at once), else base's. */
static void restore_window(struct gl_ctx *c, int64_t base)
{
	struct gl_err ferr = { 0 };
	int64_t idx, start;
	struct gl_store_figs *cur;
	struct gl_store_fig f;
	int have;

	c->win.idx = base / c->sc->window_ns;
	c->win.start_ns = c->win.idx * c->sc->window_ns;
	c->win.restored = 1;
	if (gl_store_window_open(c->st, &idx, &start) && idx < c->win.idx) {
		c->win.idx = idx;
		c->win.start_ns = start;
	}
	cur = gl_store_figs_open(c->st, c->win.idx, &ferr);
	have = cur ? gl_store_figs_next(cur, &f, &ferr) : -1;

	for (; have == 1; have = gl_store_figs_next(cur, &f, &ferr)) {
		if (!f.name)
			continue;
		if (f.hist)
			gl_metrics_restore_hist(c->m, f.name, f.hist, f.hist_len);
		else
			gl_metrics_restore_counter(c->m, f.name, f.counter);
	}
	if (have < 0)
		gl_ctx_event(c, GL_LOG_WARN, "controller",
			     "resume: the figures of the window the stop "
			     "cut were not read back (%s): that window holds only what comes after",
			     ferr.msg);
	gl_store_figs_close(cur);
	if (gl_store_nodes_scan(c->st, c->win.idx, restore_node, c, &ferr) != 0)
		gl_ctx_event(c, GL_LOG_WARN, "controller",
			     "resume: the node figures of the window the stop cut were not read back (%s)", ferr.msg);
}

/* Reconcile the journal with the timeline position base. */
static void reconcile_faults(struct gl_ctx *c, int64_t base)
{
	for (int i = 0; i < c->sc->n_faults; i++) {
		struct fault_rt *f = &c->faults[i];
		int64_t t_inj = gl_timeline_real_ns(f->spec->at_ns, c->clk.scale);
		int64_t t_rev = gl_timeline_real_ns(f->spec->at_ns + f->spec->dur_ns, c->clk.scale);
		if (f->row.state == GL_FAULT_INJECTING) {
			/* Died mid-inject: unknown effect; revert, then inject again if due.
			 * The row stays "injecting" during this clean-up, so a controller
			 * killed again now leaves the same case for the next resume (as
			 * "reverting" it would be reverted and never injected again). */
			/* Still due, or not yet (killed after the inject started but
			 * before the commit that passed its time): planned again, in
			 * the same commit as the revert (executor.c), or a kill
			 * between two commits would lose it. An instantaneous fault
			 * never happened: it is still owed. */
			f->replan = base < t_rev || f->spec->dur_ns == 0;
			ctl_start_step(c, f, GL_FAULT_INJECTING, FX_REVERT, "controller died while injecting");
			f->replan = 0;
		} else if (f->row.state == GL_FAULT_REVERTING || f->row.state == GL_FAULT_REVERT_FAILED) {
			ctl_fault_revert(c, f, "revert owed from before the resume");
		} else if (f->row.state == GL_FAULT_INJECTED && f->spec->dur_ns > 0 && t_rev <= base) {
			ctl_fault_revert(c, f, "revert time passed while the controller was down");
		} else if (f->row.state == GL_FAULT_INJECTED && f->spec->ops->ended && f->plan) {
			/* a fault that ends itself (a flap loop) and did while
			 * this controller was down: over now, not at its planned
			 * revert; the revert takes its record of when it ended */
			struct gl_err e = { 0 };
			int ended = f->spec->ops->ended(c, f->plan, &e);
			if (ended > 0)
				ctl_fault_revert(c, f, "it ended by itself while the controller was down");
			else if (ended < 0)
				gl_ctx_event(c, GL_LOG_WARN, "fault",
					     "'%s': cannot tell whether it ended by itself "
					     "while the controller was down (%s): reverted at its planned time",
					     f->row.id, e.msg);
		}
		if (f->row.state == GL_FAULT_PLANNED && t_inj <= base)
			ctl_fault_inject(c, f); /* due before the stop but never started */
	}
}

int gl_controller_resume(const char *dir, int dry_run)
{
	struct gl_ctx c = { .run.lock_fd = -1, .sim = ctl_sim_active() };
	struct gl_run_row row = { 0 };
	int code = open_existing(&c, dir, &row);
	int64_t base;

	if (code != 0)
		goto out;
	if (show_plans_if_needed(&c, &row, "resume", dry_run))
		goto out;
	if (!strcmp(row.state, "finished") || !strcmp(row.state, "failed")) {
		fprintf(stderr, "gauntlet: %s: nothing to resume: the run is %s (verdict %s)\n", dir, row.state,
			row.verdict[0] ? row.verdict : "none");
		code = GL_EXIT_BAD_INPUT;
		goto out;
	}
	if (install_stop() != 0) {
		code = GL_EXIT_HARNESS_ERROR;
		goto out;
	}
	/* log lines carry the run's clock from here: held where the last
	 * commit left it until the loop goes on from there */
	if (!c.sim && (code = ctl_notify_open(&c)) != 0)
		goto out;
	snprintf(c.run.id, sizeof(c.run.id), "%s", row.id);
	c.clk.elapsed_base = row.elapsed_ns;
	ctl_log_clock_start(&c);
	/* count this resume at once: one killed in its preflight or start-up
	 * was still a restart of the controller (it may have reverted
	 * faults); the record must not lose it */
	gl_store_run_resumed(c.st, row.resumes + 1);
	c.run.resumes = row.resumes + 1;
	if (preflight_plugins(c.sc) != 0) {
		code = GL_EXIT_HARNESS_ERROR;
		goto out;
	}
	code = GL_EXIT_HARNESS_ERROR;
	if (ctl_stopping(&c)) {
		code = stop_before_soak(&c, "the start-up", 0);
		goto out;
	}
	/* the before gates a killed first process did not finish (stopped
	 * during a long diagnostic): still before any load */
	if (run_before_gates(&c, &code) != 0 || start_loop(&c) != 0)
		goto out;
	base = row.elapsed_ns;
	c.clk.elapsed_base = base;
	c.clk.mono_start = gl_now_ns();
	/* The steps reconciliation runs below happen, on the run's timeline,
	 * at the resume point: the loop restarts from there (time spent here
	 * is down time, like the time the controller was dead), so their
	 * journal times must not run ahead of it. */
	c.clk.held = 1;
	snprintf(c.run.id, sizeof(c.run.id), "%s", row.id);
	record_outage(&c, &row, base);
	ctl_notify_start(&c);
	/* Nothing the dead controller started may run beside what this one
	 * starts: two training jobs would share a checkpoint directory. */
	if (ctl_stop_leftovers(&c, "resume") != 0) {
		fprintf(stderr,
			"gauntlet: %s: processes of the run are still running and could not be stopped "
			"(see above); nothing was started\n",
			dir);
		gl_store_flush(c.st, NULL);
		goto out;
	}
	restore_window(&c, base);
	reconcile_faults(&c, base);
	c.clk.held = 0;
	code = ctl_drive(&c);
out:
	gl_run_row_free(&row);
	ctx_free(&c);
	return code;
}

int gl_controller_revert(const char *dir, int dry_run)
{
	struct gl_ctx c = { .run.lock_fd = -1 };
	struct gl_run_row row = { 0 };
	int code = open_existing(&c, dir, &row), left = 0, done = 0, by_watcher = 0;

	if (code != 0)
		goto out;
	if (show_plans_if_needed(&c, &row, "revert", dry_run))
		goto out;
	for (int i = 0; i < c.sc->n_faults; i++) {
		struct fault_rt *f = &c.faults[i];
		if (!gl_fault_state_live(f->row.state))
			continue;
		if (!f->spec->ops->revert) {
			fprintf(stderr, "gauntlet: fault '%s': kind '%s' has no revert in this build\n", f->row.id,
				f->row.kind);
			left++;
			continue;
		}
		ctl_fault_revert(&c, f, "gauntlet revert");
		if (f->row.state != GL_FAULT_REVERTED)
			left++;
		else if (!strcmp(f->row.reverted_by, "watcher"))
			by_watcher++;
		else
			done++;
	}
	gl_store_flush(c.st, NULL);
	if (by_watcher)
		printf("%d fault(s) reverted, %d found reverted by their watcher (nothing left to do), %d still "
		       "injected\n",
		       done, by_watcher, left);
	else
		printf("%d fault(s) reverted, %d still injected\n", done, left);
	code = left ? GL_EXIT_FAIL : GL_EXIT_OK;
out:
	gl_run_row_free(&row);
	ctx_free(&c);
	return code;
}
