/*
 * null.c - the null workload: ticks at a fixed rate on the controller's
 * event loop and records how late each tick ran against its absolute
 * schedule (null.tick_lag_ms). It sends nothing anywhere, so it tests the
 * controller (timeline, windows, store, resume) on any machine, and what it
 * measures is real: the loop's own scheduling lag.
 *
 * Config: {"rate": ticks per second (default 100), "spin_us": busy work per
 * tick (default 0), "debug_every": a debug event (source "null") every N
 * ticks (default never: for the store's retention tests)}. The phase load
 * multiplier scales the rate.
 */
#include <stdlib.h>

#include <event2/event.h>

#include "metrics.h"
#include "plugin.h"
#include "null_schema.h"

struct null_wl {
	struct gl_ctx *ctx;
	struct event *ev;
	struct gl_null_opts o;
	double load;
	int64_t next_ns; /* absolute schedule, in run elapsed time */
	int id_lag, id_ticks;
	int64_t ticks;
	int running;
};

static void arm(struct null_wl *w)
{
	gl_ctx_arm_at(w->ctx, w->ev, w->next_ns);
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct null_wl *w = arg;
	int64_t now = gl_ctx_elapsed_ns(w->ctx), period;
	struct gl_metrics *m = gl_ctx_metrics(w->ctx);

	if (!w->running)
		return;
	gl_metrics_record(m, w->id_lag, (double)(now - w->next_ns) / 1e6);
	gl_metrics_add(m, w->id_ticks, 1);
	if (w->o.debug_every > 0 && ++w->ticks % w->o.debug_every == 0)
		gl_ctx_event(w->ctx, GL_LOG_DEBUG, "null", "tick %lld", (long long)w->ticks);
	if (w->o.spin_us > 0) {
		int64_t until = gl_now_ns() + (int64_t)(w->o.spin_us * 1000);
		while (gl_now_ns() < until)
			;
	}
	period = (int64_t)(1e9 / (w->o.rate * (w->load > 0 ? w->load : 1)));
	if (period < 1000)
		period = 1000;
	w->next_ns += period;
	/* After a long stall (or a resume) do not burst to catch up: skip
	 * ticks that are more than a second behind, counting them as lag. */
	if (now - w->next_ns > 1000000000LL)
		w->next_ns = now;
	arm(w);
}

static int null_init(struct gl_ctx *c, const cJSON *cfg, void **state, struct gl_err *err)
{
	struct null_wl *w = calloc(1, sizeof(*w));

	if (!w)
		return gl_errf(err, GL_ENOMEM, "null workload: out of memory");
	w->ctx = c;
	gl_null_opts_read(cfg, &w->o);
	w->load = 1;
	w->id_lag = gl_metrics_hist(gl_ctx_metrics(c), "null.tick_lag_ms");
	w->id_ticks = gl_metrics_counter(gl_ctx_metrics(c), "null.ticks");
	w->ev = evtimer_new(gl_ctx_base(c), on_tick, w);
	if (!w->ev || w->id_lag < 0 || w->id_ticks < 0) {
		free(w);
		return gl_errf(err, GL_ENOMEM, "null workload: cannot set up");
	}
	*state = w;
	return 0;
}

static int null_start(void *state, struct gl_err *err)
{
	struct null_wl *w = state;
	w->running = 1;
	w->next_ns = gl_ctx_elapsed_ns(w->ctx);
	arm(w);
	return 0;
}

static void null_set_load(void *state, double mult)
{
	((struct null_wl *)state)->load = mult;
}

static void null_stop(void *state)
{
	struct null_wl *w = state;
	w->running = 0;
	evtimer_del(w->ev);
}

static void null_free(void *state)
{
	struct null_wl *w = state;
	if (!w)
		return;
	if (w->ev)
		event_free(w->ev);
	free(w);
}

/* null_figures.c */
extern const struct gl_workload_figures gl_null_figures;

static const struct gl_workload_ops gl_workload_null = {
	.name = "null",
	.validate = gl_null_validate,
	.targets = gl_null_targets,
	.degraded_default = "null.tick_lag_ms.p99",
	.sim = &gl_null_sim,
	.init = null_init,
	.start = null_start,
	.set_load = null_set_load,
	.stop = null_stop,
	.free = null_free,
	.figures = &gl_null_figures,
};
GL_REGISTER_WORKLOAD(gl_workload_null, 50)
