/*
 * storage_nodes.c - the storage workload's per-node figures (docs/nodes.md):
 * kind "host", named after the host the I/O ran on (gl_ctx_host: a load
 * agent's host, else the controller's), per window its write and read
 * rates and the mean time of one operation. The I/O threads keep their own
 * tallies (storage_int.h, struct tally); the loop thread takes the
 * window's share of each at the window's end, so no op waits on a lock.
 */
#include "storage_int.h"

/* Does the pattern write, read? A figure the pattern never moves is not
 * recorded (0 MB/s on every host says nothing); one it does is recorded
 * every window, 0 when the host moved nothing: a stuck host stands out. */
static int pattern_writes(const struct sto *w)
{
	return w->pattern == P_CKPT_WRITE || (w->pattern == P_MIXED && w->read_pct < 100);
}

static int pattern_reads(const struct sto *w)
{
	return w->pattern == P_MODEL_LOAD || w->pattern == P_DATASET_READ ||
	       (w->pattern == P_MIXED && w->read_pct > 0) || (w->pattern == P_CKPT_WRITE && w->verify);
}

/* The workers' I/O since the last call: each tally's growth, its largest
 * op taken. */
static void take(struct sto *w, struct tally *d)
{
	memset(d, 0, sizeof(*d));
	for (int i = 0; w->wk && i < w->max_threads; i++) {
		struct worker *k = &w->wk[i];
		struct tally now;
		uint64_t mx;
		now.rbytes = __atomic_load_n(&k->t.rbytes, __ATOMIC_RELAXED);
		now.wbytes = __atomic_load_n(&k->t.wbytes, __ATOMIC_RELAXED);
		now.ops = __atomic_load_n(&k->t.ops, __ATOMIC_RELAXED);
		now.lat_ns = __atomic_load_n(&k->t.lat_ns, __ATOMIC_RELAXED);
		mx = __atomic_exchange_n(&k->t.lat_max_ns, 0, __ATOMIC_RELAXED);
		d->rbytes += now.rbytes - k->seen.rbytes;
		d->wbytes += now.wbytes - k->seen.wbytes;
		d->ops += now.ops - k->seen.ops;
		d->lat_ns += now.lat_ns - k->seen.lat_ns;
		if (mx > d->lat_max_ns)
			d->lat_max_ns = mx;
		k->seen = now;
	}
}

void st_node_window(struct sto *w)
{
	const char *host = gl_ctx_host(w->ctx);
	int64_t now = gl_ctx_elapsed_ns(w->ctx);
	double secs = (double)(now - w->tally_ns) / 1e9;
	struct tally d;

	/* fio reports its own totals (storage_fio.c): no per-host figures;
	 * after the last window's (stop), nothing is left to take */
	if (w->engine == E_FIO || !w->tally_on || w->tally_done)
		return;
	if (!w->running)
		w->tally_done = 1;
	if (secs <= 0)
		return;
	take(w, &d);
	w->tally_ns = now;
	if (pattern_writes(w))
		gl_ctx_node(w->ctx, "storage", "host", host, host, "write_mbps", 1, (double)d.wbytes / 1e6 / secs,
			    (double)d.wbytes / 1e6 / secs);
	if (pattern_reads(w))
		gl_ctx_node(w->ctx, "storage", "host", host, host, "read_mbps", 1, (double)d.rbytes / 1e6 / secs,
			    (double)d.rbytes / 1e6 / secs);
	if (d.ops > 0)
		gl_ctx_node(w->ctx, "storage", "host", host, host, "op_ms", (int64_t)d.ops, (double)d.lat_ns / 1e6,
			    (double)d.lat_max_ns / 1e6);
}
