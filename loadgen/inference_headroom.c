/*
 * inference_headroom.c - the client's own headroom, measured every window,
 * so that a load generator that could not keep up is told apart from a
 * cluster that degraded (docs/metrics.md, "Client saturation").
 *
 * Per window, of the thread that runs the event loop (the controller's, or
 * a load agent's):
 *   busy       its CPU time over the window's wall time
 *              (CLOCK_THREAD_CPUTIME_ID): the time it ran, not the time it
 *              waited for a CPU
 *   run queue  the time it was ready to run but waited for a CPU
 *              (/proc/thread-self/schedstat): recorded, never judged, since
 *              a client on a busy machine that keeps its schedule is fine
 *   lag peak   the largest dispatch lag of an arrival (dispatched minus
 *              intended): a client behind its schedule lags more and more,
 *              and the peak over the window's elapsed time catches one
 *              exactly at capacity, where a slope fit sees a flat line
 *   held       arrivals that waited for an in-flight slot (max_in_flight):
 *              the server's slowness, not the client's, so not judged
 * A window is saturated when the client sent or dispatched something in
 * it and was busy at least GL_SAT_BUSY of the time, or its lag peak
 * reached GL_SAT_LAG_FRAC of the window (and at least GL_SAT_LAG_MIN_MS).
 * It then counts inference.client_saturated 1 and records how many load
 * agents the load needs at this client's requests per CPU-second, with
 * 30 % headroom (inference.agents_needed). The analysis judges no target
 * on a saturated window.
 */
#include <time.h>

#include "inference_int.h"

#define GL_SAT_BUSY 0.9
#define GL_SAT_LAG_FRAC 0.25
#define GL_SAT_LAG_MIN_MS 500.0
#define GL_SAT_HEADROOM 0.7 /* an agent planned at 70 % of what one core sends */

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Nanoseconds this thread has waited on a run queue, or -1 (no schedstat:
 * a kernel without CONFIG_SCHED_INFO). */
static int64_t runq_ns(void)
{
	unsigned long long run, wait;
	FILE *f = fopen("/proc/thread-self/schedstat", "re");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "%llu %llu", &run, &wait);
	fclose(f);
	return n == 2 ? (int64_t)wait : -1;
}

void inf_headroom_init(struct inf *w)
{
	struct inf_headroom *h = &w->hr;

	h->id_busy = gl_metrics_hist(w->m, "inference.client_busy_pct");
	h->id_runq = gl_metrics_hist(w->m, "inference.client_runq_pct");
	h->id_lag_peak = gl_metrics_hist(w->m, "inference.dispatch_lag_peak_ms");
	h->id_held = gl_metrics_counter(w->m, "inference.arrivals_held");
	h->id_sat = gl_metrics_counter(w->m, "inference.client_saturated");
	h->id_agents = gl_metrics_hist(w->m, "inference.agents_needed");
}

static void window_begin(struct inf *w)
{
	struct inf_headroom *h = &w->hr;

	h->wall0 = inf_now_ns(w);
	h->cpu0 = thread_cpu_ns();
	h->runq0 = runq_ns();
	h->lag_peak = 0;
	h->due = h->held = h->sent = 0;
}

void inf_headroom_start(struct inf *w)
{
	w->hr.stopped = 0;
	window_begin(w);
}

/* The load stops: the window it stops in is judged now, with what it
 * sent so far (the controller may close it without asking again). */
void inf_headroom_stop(struct inf *w)
{
	if (!w->hr.stopped)
		inf_headroom_window(w);
	w->hr.stopped = 1;
}

void inf_headroom_arrival(struct inf *w, int64_t lag_ns, int held)
{
	struct inf_headroom *h = &w->hr;

	h->due++;
	h->held += held != 0;
	if (lag_ns > h->lag_peak)
		h->lag_peak = lag_ns;
}

/* The whole schedule's offered rate (every agent's share), requests/s. */
static double offered_rate(const struct inf *w, double wall_s)
{
	if (w->mode == AR_CONSTANT || w->mode == AR_POISSON || w->mode == AR_GAMMA)
		return w->rate * (w->load > 0 ? w->load : 1);
	return wall_s > 0 ? (double)(w->hr.due > w->hr.sent ? w->hr.due : w->hr.sent) * w->shards / wall_s : 0;
}

/* Load agents the load needs: the offered rate over what one agent sends
 * per CPU-second, planned at GL_SAT_HEADROOM; a closed loop (its rate is
 * its users' answers) by its busy share alone. */
static double agents_needed(const struct inf *w, double wall_s, double cpu_s, double busy)
{
	double per_cpu_s = cpu_s > 0 ? (double)w->hr.sent / cpu_s : 0;
	double n;

	if (w->mode == AR_CLOSED || per_cpu_s <= 0)
		n = w->shards * busy / GL_SAT_HEADROOM;
	else
		n = offered_rate(w, wall_s) / (per_cpu_s * GL_SAT_HEADROOM);
	n = ceil(n);
	return n < 1 ? 1 : n;
}

void inf_headroom_window(struct inf *w)
{
	struct inf_headroom *h = &w->hr;
	int64_t now = inf_now_ns(w), cpu = thread_cpu_ns(), rq = runq_ns();
	double wall_s = (double)(now - h->wall0) / 1e9, cpu_s = (double)(cpu - h->cpu0) / 1e9;
	double busy, lag_ms = (double)h->lag_peak / 1e6;
	int sat;

	if (h->stopped)
		return;
	if (wall_s <= 0) {
		window_begin(w);
		return;
	}
	busy = cpu_s / wall_s;
	gl_metrics_record(w->m, h->id_busy, busy * 100);
	if (rq >= 0 && h->runq0 >= 0)
		gl_metrics_record(w->m, h->id_runq, (double)(rq - h->runq0) / 1e9 / wall_s * 100);
	if (h->due > 0)
		gl_metrics_record(w->m, h->id_lag_peak, lag_ms);
	gl_metrics_add(w->m, h->id_held, h->held);
	/* a window that sent and dispatched nothing (the load ended, a
	 * trace's gap) says nothing of the client's headroom */
	sat = (h->sent > 0 || h->due > 0) &&
	      (busy >= GL_SAT_BUSY || lag_ms >= fmax(GL_SAT_LAG_MIN_MS, GL_SAT_LAG_FRAC * wall_s * 1000));
	if (sat) {
		gl_metrics_add(w->m, h->id_sat, 1);
		gl_metrics_record(w->m, h->id_agents, agents_needed(w, wall_s, cpu_s, busy));
	}
	window_begin(w);
}
