/*
 * summary.c - the per-workload summary tables report.md and report.html
 * both show (inference, training, storage, telemetry): one list of rows,
 * rendered twice, so the two documents cannot disagree on what a figure
 * is or which figures there are. Every value comes from the run's
 * aggregate (gl_agg_eval's rules); "n/a" is a figure nothing measured,
 * never 0.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "catalog.h"
#include "report.h"
#include "storage_schema.h"
#include "units.h"

struct sum {
	const struct gl_analysis *an;
	const struct gl_summary_ops *ops;
	void *arg;
};

static void num(char *buf, size_t n, int has, double v)
{
	if (!has || !isfinite(v))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%.6g", v);
}

static void eval(struct sum *s, const char *label, const char *name)
{
	char v[64];
	double x = 0;
	int has = gl_agg_eval(s->an->all, name, &x) == 0;

	num(v, sizeof(v), has, x);
	s->ops->row(s->arg, label, v);
}

static void count(struct sum *s, const char *label, const char *name)
{
	char v[64];
	int found = 0;
	int64_t x = gl_agg_counter(s->an->all, name, &found);

	if (found)
		snprintf(v, sizeof(v), "%lld", (long long)x);
	else
		snprintf(v, sizeof(v), "n/a");
	s->ops->row(s->arg, label, v);
}

struct cls {
	struct sum *s;
	size_t skip;
	const char *what;
};

static void each_class(void *arg, const char *name, int64_t v)
{
	struct cls *c = arg;
	char label[128], val[32];

	if (!v)
		return;
	snprintf(label, sizeof(label), "%s: %s", c->what, name + c->skip);
	snprintf(val, sizeof(val), "%lld", (long long)v);
	c->s->ops->row(c->s->arg, label, val);
}

static void inference(struct sum *s)
{
	struct cls c = { s, strlen("inference.errors."), "errors" };

	s->ops->section(s->arg, "inference", "Inference", NULL);
	count(s, "requests", "inference.requests");
	count(s, "errors", "inference.errors");
	eval(s, "error rate", "inference.error_rate");
	eval(s, "goodput (within the SLO)", "inference.goodput");
	gl_agg_each_counter(s->an->all, "inference.errors.", each_class, &c);
	eval(s, "throughput req/s", "inference.throughput_rps");
	eval(s, "output tokens/s", "inference.output_tokens_per_s");
	eval(s, "TTFT ms p50", "inference.ttft_ms.p50");
	eval(s, "TTFT ms p95", "inference.ttft_ms.p95");
	eval(s, "TTFT ms p99", "inference.ttft_ms.p99");
	eval(s, "TTFT from send ms p99", "inference.ttft_from_send_ms.p99");
	eval(s, "ITL ms p50", "inference.itl_ms.p50");
	eval(s, "ITL ms p99", "inference.itl_ms.p99");
	eval(s, "TPOT ms p50", "inference.tpot_ms.p50");
	eval(s, "TPOT ms p99", "inference.tpot_ms.p99");
	eval(s, "latency ms p50", "inference.latency_ms.p50");
	eval(s, "latency ms p99", "inference.latency_ms.p99");
	eval(s, "send lag ms p99", "inference.send_lag_ms.p99");
}

static void training(struct sum *s)
{
	s->ops->section(s->arg, "training", "Training", NULL);
	count(s, "steps", "training.steps");
	eval(s, "ETTR (productive / wall time)", "training.ettr");
	eval(s, "step_time_s p50", "training.step_time_s.p50");
	eval(s, "step_time_s p95", "training.step_time_s.p95");
	eval(s, "comm_time_s p50", "training.comm_time_s.p50");
	eval(s, "busbw_gbps p50", "training.busbw_gbps.p50");
	count(s, "correctness errors", "training.correctness_errors");
	count(s, "checkpoint saves", "training.checkpoint.saves");
	eval(s, "checkpoint save_s max (max over ranks)", "training.checkpoint.save_s.max");
	eval(s, "checkpoint save_gbps min (min over ranks)", "training.checkpoint.save_gbps.min");
	count(s, "restores", "training.checkpoint.restores");
	eval(s, "restore_s max (relaunch to first step)", "training.checkpoint.restore_s.max");
	count(s, "lost steps", "training.lost_steps");
	count(s, "job ends seen early (exit, signal, watchdog)", "training.job_failures");
	count(s, "relaunches", "training.relaunches");
	count(s, "hangs (watchdog)", "training.hangs");
}

static void storage(struct sum *s)
{
	const struct gl_analysis *an = s->an;
	const struct gl_workload_spec *ws = gl_scenario_workload(an->sc, "storage");
	const cJSON *cs = cJSON_GetObjectItemCaseSensitive(ws->cfg, "cold_start");
	struct cls c = { s, strlen("storage.errors."), "errors" };
	struct gl_cold_start cold;
	char note[512] = "", v[64];

	if (cs && gl_cold_start_parse(cs, &cold) == 0) {
		double m = 0;
		int has = gl_agg_eval(an->scope[GL_SCOPE_STEADY], "storage.read_gbps", &m) == 0;
		char mm[64], fl[64];
		num(mm, sizeof(mm), has, m);
		num(fl, sizeof(fl), an->has_read_floor, an->read_floor_gbps);
		snprintf(note, sizeof(note), "Cold start: %d reader(s) x %.3g GB within %.3g s needs %.3f GB/s of "
			 "reads; measured %s GB/s over the steady windows, %s GB/s in the slowest one (%s).",
			 cold.readers, cold.bytes_each / 1e9, cold.within_ns / 1e9, cold.required_gbps, mm, fl,
			 !an->has_read_floor ? "no data: FAIL" : an->read_floor_gbps >= cold.required_gbps
			 ? "meets it" : "FAILS it");
	}
	s->ops->section(s->arg, "storage", "Storage", note[0] ? note : NULL);
	eval(s, "read GB/s (whole run)", "storage.read_gbps");
	eval(s, "write GB/s (whole run)", "storage.write_gbps");
	num(v, sizeof(v), an->has_read_floor, an->read_floor_gbps);
	s->ops->row(s->arg, "read GB/s, slowest steady window", v);
	num(v, sizeof(v), an->has_write_floor, an->write_floor_gbps);
	s->ops->row(s->arg, "write GB/s, slowest steady window", v);
	count(s, "bytes read", "storage.read_bytes");
	count(s, "bytes written", "storage.write_bytes");
	count(s, "bytes verified on read-back", "storage.verified_bytes");
	eval(s, "op latency ms p99", "storage.op_latency_ms.p99");
	eval(s, "fsync ms p99", "storage.fsync_ms.p99");
	count(s, "errors", "storage.errors");
	gl_agg_each_counter(an->all, "storage.errors.", each_class, &c);
}

/* Every telemetry series of the catalog: gauges as p50 and max over every
 * reading, counters as their increases over the run. */
static void telemetry(struct sum *s)
{
	size_t n;
	const struct gl_metric_def *cat = gl_catalog(&n);

	s->ops->section(s->arg, "telemetry", "Telemetry", NULL);
	for (size_t i = 0; i < n; i++) {
		char label[160], name[160];
		if (strcmp(cat[i].workload, "telemetry") != 0)
			continue;
		if (cat[i].kind == GL_MK_HIST) {
			snprintf(label, sizeof(label), "%s (%s) p50", cat[i].name, cat[i].unit);
			snprintf(name, sizeof(name), "%s.p50", cat[i].name);
			eval(s, label, name);
			snprintf(label, sizeof(label), "%s (%s) max", cat[i].name, cat[i].unit);
			snprintf(name, sizeof(name), "%s.max", cat[i].name);
			eval(s, label, name);
		} else if (cat[i].kind == GL_MK_COUNTER) {
			snprintf(label, sizeof(label), "%s (%s)", cat[i].name, cat[i].unit);
			count(s, label, cat[i].name);
		}
	}
}

void gl_report_summary(const struct gl_analysis *an, const struct gl_summary_ops *ops, void *arg)
{
	struct sum s = { an, ops, arg };

	if (gl_scenario_workload(an->sc, "inference"))
		inference(&s);
	if (gl_scenario_workload(an->sc, "training"))
		training(&s);
	if (gl_scenario_workload(an->sc, "storage"))
		storage(&s);
	if (gl_scenario_workload(an->sc, "telemetry"))
		telemetry(&s);
}
