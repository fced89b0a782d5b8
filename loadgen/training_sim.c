/*
 * training_sim.c - the training workload's model for `gauntlet simulate`
 * (plugin.h: struct gl_workload_sim; docs/simulation.md): ranks from
 * "hosts"; a step is "compute" (default 250 ms) plus an all-reduce of
 * "message" at 360 GB/s bus bandwidth; a checkpoint of "checkpoint.size"
 * every "checkpoint.every" at 5 GB/s; a job that ends is relaunched after
 * "restart_backoff" (default 5 s) plus 10 s of launch, and restores its
 * last checkpoint at 5 GB/s (lost steps: those since it).
 */
#include "training_int.h"

#include "sim_model.h"

/* its metric ids, in the order of the names below */
enum {
	T_STEP,
	T_BUSBW,
	T_STEPS,
	T_CORR,
	T_LOST,
	T_SAVES,
	T_RESTORES,
	T_SAVE_S,
	T_RESTORE_S,
	T_PROD,
	T_RELAUNCH,
	T_FAIL
};

static int setup_training(struct sim_world *w, const struct gl_scenario *sc, const cJSON *cfg)
{
	const cJSON *hosts = cJSON_GetObjectItemCaseSensitive(cfg, "hosts"), *h;
	const cJSON *ck = cJSON_GetObjectItemCaseSensitive(cfg, "checkpoint");
	double msg = sim_size(cfg, "message", 64.0 * 1024 * 1024), ck_size;

	(void)sc;
	w->tr = 1;
	cJSON_ArrayForEach(h, hosts)
	{
		const char *s = cJSON_GetStringValue(h);
		const char *colon;
		if (!s || w->n_tr_hosts >= SIM_NODES)
			continue;
		colon = strchr(s, ':');
		snprintf(w->tr_hosts[w->n_tr_hosts++], GL_NAME_MAX, "%.*s", colon ? (int)(colon - s) : (int)strlen(s),
			 s);
		w->ranks += colon ? atoi(colon + 1) : 1;
	}
	if (w->ranks < 1)
		w->ranks = (int)sim_num(cfg, "ranks", 2);
	if (w->ranks < 2)
		w->ranks = 2;
	w->compute_s = (double)sim_dur(cfg, "compute", 250000000LL) / 1e9;
	w->busbw = 360e9;
	w->comm_s = msg * 2.0 * (w->ranks - 1) / w->ranks / w->busbw;
	ck_size = sim_size(ck, "size", 0);
	w->ckpt_every_ns = ck ? sim_dur(ck, "every", 0) : 0;
	w->save_s = ck_size / 5e9;
	w->restore_load_s = ck_size / 5e9;
	w->backoff_ns = sim_dur(cfg, "restart_backoff", 5 * SIM_NS);
	w->watchdog_ns = sim_dur(cfg, "watchdog", 120 * SIM_NS);
	w->t_steps = sim_truth_counter(w, "training.steps");
	w->q_step = sim_truth_quantile(w, "training", "step_time_s", 1e-6);
	return w->t_steps < 0 || w->q_step < 0 ? -1 : 0;
}

static void emit_job_ends(struct sim_wl *s, struct sim_world *w)
{
	struct gl_metrics *m = gl_ctx_metrics(s->c);

	if (!w->pend_fail)
		return;
	gl_metrics_add(m, s->id[T_FAIL], w->pend_fail);
	gl_metrics_add(m, s->id[T_LOST], w->pend_lost);
	w->pend_fail = w->pend_lost = 0;
}

static void emit_training(struct sim_wl *s, struct sim_world *w, int64_t t1)
{
	struct gl_metrics *m = gl_ctx_metrics(s->c);
	int64_t idx = sim_window(s);
	int64_t steps = 0;
	double slow = sim_any_active(w, FX_GPU_SLOW, 1) >= 0 ? 1.5 : 1.0;

	if (w->tr_last < 0 || t1 <= w->tr_last)
		return;
	emit_job_ends(s, w);
	for (;;) {
		if (!w->job_up) {
			/* relaunch at job_t (unless a partition keeps the
			 * network cut), then the checkpoint is loaded */
			int64_t first;
			if (sim_any_active(w, FX_PARTITION, 1) >= 0 || w->job_t + 10 * SIM_NS > t1)
				break;
			first = w->job_t + 10 * SIM_NS + (int64_t)(w->restore_load_s * 1e9);
			if (first > t1)
				break;
			w->job_up = 1;
			gl_metrics_add(m, s->id[T_RELAUNCH], 1);
			if (w->ckpt_step > 0 || w->ckpt_every_ns) {
				gl_metrics_add(m, s->id[T_RESTORES], 1);
				gl_metrics_record(m, s->id[T_RESTORE_S], (double)(first - w->job_t) / 1e9);
			}
			w->job_t = first;
			if (w->ckpt_every_ns)
				w->next_ckpt = first + w->ckpt_every_ns;
			continue;
		}
		{
			int64_t start = w->job_t, end, until;
			double compute = w->compute_s * slow * (1.0 + 0.01 * sim_normal(&w->rng));
			double comm = w->comm_s;
			end = start + (int64_t)((compute + comm) * 1e9);
			until = sim_stall_until(w, start, end);
			if (until == INT64_MAX) {
				/* the network is cut: past the watchdog the job is
				 * ended (relaunched once the cut is reverted) */
				if (t1 - start > w->watchdog_ns) {
					sim_job_end(w, start + w->watchdog_ns);
					emit_job_ends(s, w);
				}
				break;
			}
			if (until > start) {
				comm += (double)(until - start) / 1e9;
				end = start + (int64_t)((compute + comm) * 1e9);
			}
			if (end > t1)
				break;
			w->job_t = end;
			w->step_idx++;
			steps++;
			gl_metrics_record(m, s->id[T_STEP], compute + comm);
			gl_metrics_record(m, s->id[T_BUSBW], w->comm_s / comm * w->busbw / 1e9);
			gl_metrics_add(m, s->id[T_PROD], (int64_t)((compute + comm) * 1e6));
			sim_truth_draw(w, w->q_step, compute + comm);
			if (w->ckpt_every_ns && w->job_t >= w->next_ckpt) {
				w->job_t += (int64_t)(w->save_s * 1e9);
				w->ckpt_step = w->step_idx;
				w->next_ckpt += w->ckpt_every_ns;
				gl_metrics_add(m, s->id[T_SAVES], 1);
				gl_metrics_record(m, s->id[T_SAVE_S], w->save_s);
			}
		}
	}
	gl_metrics_add(m, s->id[T_STEPS], steps);
	gl_metrics_add(m, s->id[T_CORR], 0);
	sim_truth_add(w, w->t_steps, idx, steps);
	w->tr_last = t1;
}

static int metrics(const struct sim_world *w, const char *const **names)
{
	static const char *const tr[] = {
		"h:training.step_time_s",         "h:training.busbw_gbps",        "c:training.steps",
		"c:training.correctness_errors",  "c:training.lost_steps",        "c:training.checkpoint.saves",
		"c:training.checkpoint.restores", "h:training.checkpoint.save_s", "h:training.checkpoint.restore_s",
		"c:training.productive_us",       "c:training.relaunches",        "c:training.job_failures"
	};

	(void)w;
	*names = tr;
	return 12;
}

static void start(struct sim_world *w)
{
	w->tr_last = w->now;
	if (!w->job_up && !w->step_idx && !w->ckpt_step && !w->pend_fail) {
		w->job_up = 1; /* the first launch */
		w->job_t = w->now;
		if (w->ckpt_every_ns)
			w->next_ckpt = w->now + w->ckpt_every_ns;
	} else if (!w->job_up && w->job_t < w->now) {
		w->job_t = w->now; /* relaunched by this controller */
	}
}

const struct gl_workload_sim gl_training_sim = {
	.setup = setup_training,
	.metrics = metrics,
	.start = start,
	.emit = emit_training,
};
