/*
 * report_md.c - report.md, for tickets: verdict first, then targets (a
 * missing threshold shows as a failure), faults, phases and run facts.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "units.h"

static void fmt_num(char *buf, size_t n, int has, double v)
{
	if (!has || !isfinite(v))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%.6g", v);
}

static void md_eval(struct gl_buf *b, const struct gl_analysis *an, const char *label, const char *name)
{
	char v[64];
	double x = 0;
	int has = gl_agg_eval(an->all, name, &x) == 0;

	fmt_num(v, sizeof(v), has, x);
	gl_buf_printf(b, "| %s | %s |\n", label, v);
}

static void md_count(struct gl_buf *b, const struct gl_analysis *an, const char *label, const char *name)
{
	int found = 0;
	int64_t v = gl_agg_counter(an->all, name, &found);

	gl_buf_printf(b, "| %s | %lld |\n", label, found ? (long long)v : 0LL);
}

/* Whole-run training figures: steps, times, checkpoints and what the
 * failure policy had to do (restores, lost steps, hangs). */
static void md_training(const struct gl_analysis *an, struct gl_buf *b)
{
	gl_buf_printf(b, "\n## Training\n\n| figure | value |\n|---|---|\n");
	md_count(b, an, "steps", "training.steps");
	md_eval(b, an, "step_time_s p50", "training.step_time_s.p50");
	md_eval(b, an, "step_time_s p95", "training.step_time_s.p95");
	md_eval(b, an, "comm_time_s p50", "training.comm_time_s.p50");
	md_eval(b, an, "busbw_gbps p50", "training.busbw_gbps.p50");
	md_count(b, an, "correctness errors", "training.correctness_errors");
	md_count(b, an, "checkpoint saves", "training.checkpoint.saves");
	md_eval(b, an, "checkpoint save_s max (max over ranks)", "training.checkpoint.save_s.max");
	md_eval(b, an, "checkpoint save_gbps min (min over ranks)", "training.checkpoint.save_gbps.min");
	md_count(b, an, "restores", "training.checkpoint.restores");
	md_eval(b, an, "restore_s max (relaunch to first step)", "training.checkpoint.restore_s.max");
	md_count(b, an, "lost steps", "training.lost_steps");
	md_count(b, an, "relaunches", "training.relaunches");
	md_count(b, an, "hangs (watchdog)", "training.hangs");
}

/* Storage: rates, the slowest steady windows, errors by class and, for a
 * cold-start requirement, the rate it needs next to what was measured. */
static void md_storage(const struct gl_analysis *an, struct gl_buf *b)
{
	const struct gl_workload_spec *ws = gl_scenario_workload(an->sc, "storage");
	const cJSON *cs = cJSON_GetObjectItemCaseSensitive(ws->cfg, "cold_start");
	struct gl_cold_start c;
	char v[64];

	gl_buf_printf(b, "\n## Storage\n\n| figure | value |\n|---|---|\n");
	md_eval(b, an, "read GB/s (whole run)", "storage.read_gbps");
	md_eval(b, an, "write GB/s (whole run)", "storage.write_gbps");
	fmt_num(v, sizeof(v), an->has_read_floor, an->read_floor_gbps);
	gl_buf_printf(b, "| read GB/s, slowest steady window | %s |\n", v);
	fmt_num(v, sizeof(v), an->has_write_floor, an->write_floor_gbps);
	gl_buf_printf(b, "| write GB/s, slowest steady window | %s |\n", v);
	md_count(b, an, "bytes read", "storage.read_bytes");
	md_count(b, an, "bytes written", "storage.write_bytes");
	md_count(b, an, "bytes verified on read-back", "storage.verified_bytes");
	md_eval(b, an, "op latency p99 ms", "storage.op_latency_ms.p99");
	md_eval(b, an, "fsync p99 ms", "storage.fsync_ms.p99");
	md_count(b, an, "errors", "storage.errors");
	{
		static const char *const cls[] = { "enospc", "edquot", "eio", "vanished", "rofs", "perm",
						   "reserve", "verify", "other" };
		for (size_t i = 0; i < sizeof(cls) / sizeof(cls[0]); i++) {
			char name[64];
			int found = 0;
			int64_t n;
			snprintf(name, sizeof(name), "storage.errors.%s", cls[i]);
			n = gl_agg_counter(an->all, name, &found);
			if (found && n)
				gl_buf_printf(b, "| errors: %s | %lld |\n", cls[i], (long long)n);
		}
	}
	if (cs && gl_cold_start_parse(cs, &c) == 0) {
		double m = 0;
		int has = gl_agg_eval(an->scope[GL_SCOPE_STEADY], "storage.read_gbps", &m) == 0;
		char mm[64], fl[64];
		fmt_num(mm, sizeof(mm), has, m);
		fmt_num(fl, sizeof(fl), an->has_read_floor, an->read_floor_gbps);
		gl_buf_printf(b, "\n**Cold start:** %d reader(s) x %.3g GB within %.3g s needs **%.3f GB/s** of reads; "
			      "measured %s GB/s over the steady windows, %s GB/s in the slowest one (%s).\n",
			      c.readers, c.bytes_each / 1e9, c.within_ns / 1e9, c.required_gbps, mm, fl,
			      !an->has_read_floor ? "no data: FAIL" : an->read_floor_gbps >= c.required_gbps
			      ? "meets it" : "FAILS it");
	}
}

int gl_report_md(const struct gl_analysis *an, struct gl_buf *b)
{
	char wall[40], d[64];
	int failed = 0;

	for (int i = 0; i < an->n_targets; i++)
		failed += !an->targets[i].pass;
	gl_format_wall(an->run.started_wall_ns, wall, sizeof(wall));
	gl_buf_printf(b, "# gauntlet report: %s\n\n", an->run.name);
	gl_buf_printf(b, "**Verdict: %s**", strcmp(an->verdict, "pass") == 0 ? "PASS"
					     : strcmp(an->verdict, "aborted") == 0 ? "ABORTED" : "FAIL");
	gl_buf_printf(b, " (%d of %d targets failed or missing; %d fault(s) left injected; run %s)\n\n", failed,
		      an->n_targets, an->faults_left_injected, an->run.state);
	gl_buf_printf(b, "| run | |\n|---|---|\n");
	gl_buf_printf(b, "| id | `%s` |\n| scenario | %s (`%s`) |\n| scenario sha256 | `%s` |\n", an->run.id,
		      an->run.name, an->run.scenario_path, an->run.scenario_sha256);
	gl_buf_printf(b, "| started | %s |\n| measured | %.1f s in %d windows of %.3g s |\n", wall,
		      an->duration_s, an->n_windows, (double)an->run.window_ns / 1e9);
	gl_format_duration(an->run.duration_ns, d, sizeof(d));
	gl_buf_printf(b, "| planned | %s at time scale %g |\n| resumes | %d |\n| gauntlet | %s (%s) |\n\n", d,
		      an->run.time_scale, an->run.resumes, an->run.version, an->run.git_rev);
	if (an->generator_saturated)
		gl_buf_printf(b, "> **Warning:** the load generator was saturated (send lag p99 above 5 ms); latency figures include client delay.\n\n");

	if (an->n_preflight) {
		gl_buf_printf(b, "## Preflight%s\n\n| result | subject | check | detail |\n|---|---|---|---|\n",
			      an->preflight_failed ? ": FAILED, nothing was started or injected" : "");
		for (int i = 0; i < an->n_preflight; i++)
			gl_buf_printf(b, "| %s | %s | %s | %s |\n", an->preflight[i].ok ? "ok" : "FAILED",
				      an->preflight[i].subject, an->preflight[i].check, an->preflight[i].detail);
		gl_buf_printf(b, "\n");
	}
	gl_buf_printf(b, "## Targets\n\n| result | scope | metric | target | measured | windows | note |\n|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < an->n_targets; i++) {
		const struct gl_target_result *t = &an->targets[i];
		char m[64], th[64] = "missing";
		fmt_num(m, sizeof(m), t->has, t->measured);
		if (!t->spec->missing)
			snprintf(th, sizeof(th), "%s %g", gl_cmp_str(t->spec->expr.op), t->spec->expr.threshold);
		gl_buf_printf(b, "| %s | %s | `%s` | %s | %s | %d | %s |\n",
			      t->spec->missing ? "MISSING" : t->pass ? "pass" : "FAIL", gl_scope_name(t->spec->scope),
			      t->spec->metric, th, m, t->windows_judged, t->note);
	}
	if (an->n_faults) {
		gl_buf_printf(b, "\n## Faults\n\n| id | kind | target | state | injected at | reverted at | verified | recovery_s | restore_s | note |\n|---|---|---|---|---|---|---|---|---|---|\n");
		for (int i = 0; i < an->n_faults; i++) {
			const struct gl_fault_result *f = &an->faults[i];
			char ia[64] = "-", ra[64] = "-", rc[64], rs[64];
			/* to the millisecond: finer is noise at any time scale */
			if (f->row.injected_scn_ns >= 0)
				gl_format_duration((f->row.injected_scn_ns + 500000) / 1000000 * 1000000, ia, sizeof(ia));
			if (f->row.reverted_scn_ns >= 0)
				gl_format_duration((f->row.reverted_scn_ns + 500000) / 1000000 * 1000000, ra, sizeof(ra));
			fmt_num(rc, sizeof(rc), f->recovery_s >= 0, f->recovery_s);
			fmt_num(rs, sizeof(rs), f->restore_s >= 0, f->restore_s);
			gl_buf_printf(b, "| %s | %s%s%s | %s | %s | %s | %s | %s | %s | %s | %s%s%s |\n", f->row.id,
				      f->row.kind, f->row.method[0] ? "/" : "", f->row.method, f->row.target,
				      f->row.state, ia, ra,
				      f->row.verified == 1 ? "yes" : f->row.verified == 0 ? "NO" : "n/a", rc, rs,
				      f->recovery_note, f->row.error[0] ? " " : "", f->row.error);
		}
	}
	if (gl_scenario_workload(an->sc, "training"))
		md_training(an, b);
	if (gl_scenario_workload(an->sc, "storage"))
		md_storage(an, b);
	gl_buf_printf(b, "\n## Phases\n\n| phase | start | end | load | judged as | measured s |\n|---|---|---|---|---|---|\n");
	for (int i = 0; i < an->sc->n_phases; i++) {
		const struct gl_phase *p = &an->sc->phases[i];
		char s0[64], s1[64];
		gl_format_duration(p->start_ns, s0, sizeof(s0));
		gl_format_duration(p->start_ns + p->dur_ns, s1, sizeof(s1));
		gl_buf_printf(b, "| %s | %s | %s | %g | %s | %.1f |\n", p->name, s0, s1, p->load,
			      gl_scope_name(p->scope), gl_agg_seconds(an->phase[i]));
	}
	gl_buf_printf(b, "\nTimes in the tables are scenario time; durations measured on the system (recovery_s, restore_s, measured) are real seconds. Definitions: docs/metrics.md.\n");
	return b->len >= b->max ? -GL_ELIMIT : 0;
}
