/*
 * storage_engine.c - the storage workload's own I/O engine (storage.c has
 * the whole story): blocks that carry their file, generation and offset so
 * every read can be verified, the rate cap, the "sync" op loop (pread and
 * pwrite, one op in flight per thread) and the "aio" one (Linux native AIO,
 * iodepth ops in flight), and the worker threads that run them.
 */
#include "storage_int.h"

/* ---- helpers ---------------------------------------------------------------- */

static uint64_t rnd(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static enum err_class classify(int e)
{
	switch (e) {
	case ENOSPC: return EC_ENOSPC;
	case EDQUOT: return EC_EDQUOT;
	case EIO: return EC_EIO;
	case ENOENT:
	case ENODEV:
	case ENXIO:
	case ESTALE:
	case ENOTCONN:
	case ESHUTDOWN: return EC_VANISHED;
	case EROFS: return EC_ROFS;
	case EACCES:
	case EPERM: return EC_PERM;
	default: return EC_OTHER;
	}
}

static void file_path(const struct sto *w, int f, char *out, size_t n)
{
	snprintf(out, n, "%s/f-%06d.dat", w->dir, f);
}

/* Record a failed operation: counted at once, detail kept for the loop. */
static void op_error(struct sto *w, const char *op, int f, uint64_t off, uint64_t bytes, enum err_class cls,
		     const char *why)
{
	gl_metrics_add(w->m, w->id_errors, 1);
	gl_metrics_add(w->m, w->id_class[cls], 1);
	pthread_mutex_lock(&w->mu);
	w->err_count[cls]++;
	if (w->n_errs < ERR_KEEP) {
		struct err_rec *e = &w->errs[w->n_errs++];
		e->window = w->window;
		snprintf(e->op, sizeof(e->op), "%s", op);
		e->bytes = bytes;
		e->latency_ns = 0;
		e->cls = cls;
		snprintf(e->detail, sizeof(e->detail), "%s f-%06d.dat at %" PRIu64 ": %s", op, f, off, why);
	} else {
		w->errs_dropped++;
	}
	pthread_mutex_unlock(&w->mu);
}

/* One measured op of this worker's thread into its own tally (struct
 * tally): no lock, no other writer. */
void st_tally(struct worker *k, int writing, uint64_t bytes, int64_t lat_ns)
{
	struct tally *t = &k->t;
	uint64_t lat = lat_ns > 0 ? (uint64_t)lat_ns : 0, cur = __atomic_load_n(&t->lat_max_ns, __ATOMIC_RELAXED);

	__atomic_fetch_add(writing ? &t->wbytes : &t->rbytes, bytes, __ATOMIC_RELAXED);
	__atomic_fetch_add(&t->lat_ns, lat, __ATOMIC_RELAXED);
	__atomic_fetch_add(&t->ops, 1, __ATOMIC_RELAXED);
	/* the reader may take it to 0 meanwhile: the loop sees that and retries */
	while (lat > cur &&
	       !__atomic_compare_exchange_n(&t->lat_max_ns, &cur, lat, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* ---- block content -------------------------------------------------------------- */

static void fill_block(unsigned char *b, uint64_t bs, int file, uint32_t gen, uint64_t off)
{
	struct blk_hdr h = { HDR_MAGIC, (uint32_t)file, gen, (uint32_t)bs, off };
	uint64_t x = ((uint64_t)gen + 1) * 0x9E3779B97F4A7C15ULL ^ ((uint64_t)file + 7) * 0xBF58476D1CE4E5B9ULL;

	memcpy(b, &h, sizeof(h));
	/* the filler depends on file and generation, not on the offset, so a
	 * worker makes it once per file pass; only the header changes */
	for (uint64_t i = sizeof(h); i + 8 <= bs; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(b + i, &x, 8);
	}
}

/* Check a read of len bytes at off against what the file's last pass
 * wrote in blocks of lbs: each block is its header, then the filler of
 * (file, generation) from the same position. The filler is made once per
 * (file, generation, block size) into the worker's scratch. */
static int check_range(struct worker *k, const unsigned char *b, uint64_t off, uint64_t len, int file, uint32_t gen,
		       uint64_t lbs)
{
	uint64_t x = off, end = off + len;

	if (!lbs)
		return -1;
	if (k->fk_file != file || k->fk_gen != gen || k->fk_bs != lbs) {
		fill_block(k->scratch, lbs, file, gen, 0);
		k->fk_file = file;
		k->fk_gen = gen;
		k->fk_bs = lbs;
	}
	while (x < end) {
		uint64_t blk = x - x % lbs, stop = blk + lbs < end ? blk + lbs : end, p = x - blk;
		struct blk_hdr h = { HDR_MAGIC, (uint32_t)file, gen, (uint32_t)lbs, blk };
		const unsigned char *hb = (const unsigned char *)&h;

		for (; p < sizeof(h) && blk + p < stop; p++)
			if (b[blk + p - off] != hb[p])
				return -1;
		if (blk + p < stop && memcmp(b + (blk + p - off), k->scratch + p, stop - (blk + p)))
			return -1;
		x = stop;
	}
	return 0;
}

/* ---- rate cap ---------------------------------------------------------------------- */

static void take_tokens(struct sto *w, uint64_t bytes)
{
	if (!w->rate_cap)
		return;
	for (;;) {
		int64_t now = gl_now_ns(), wait_ns = 0;
		pthread_mutex_lock(&w->mu);
		w->tokens += (double)(now - w->tokens_ns) / 1e9 * (double)w->rate_cap;
		w->tokens_ns = now;
		if (w->tokens > (double)w->rate_cap)
			w->tokens = (double)w->rate_cap; /* at most one second of burst */
		if (w->tokens >= (double)bytes) {
			w->tokens -= (double)bytes;
			pthread_mutex_unlock(&w->mu);
			return;
		}
		wait_ns = (int64_t)(((double)bytes - w->tokens) / (double)w->rate_cap * 1e9);
		pthread_mutex_unlock(&w->mu);
		gl_sleep_ns(wait_ns < 1000000 ? 1000000 : wait_ns > 100000000 ? 100000000 : wait_ns);
		if (!w->running)
			return;
	}
}

/* ---- files ------------------------------------------------------------------------- */

/* create: a new file, as a checkpoint writer makes one (truncating what an
 * earlier pass left: its space is given back first). */
static int open_file(struct sto *w, int f, int writing, int create, int *err_out)
{
	char p[PATH_MAX];
	int flags = (writing ? O_RDWR : O_RDONLY) | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT | O_TRUNC : 0);
	int fd;

	file_path(w, f, p, sizeof(p));
	if (w->direct && w->direct_ok) {
		fd = open(p, flags | O_DIRECT, 0600);
		if (fd >= 0 || errno != EINVAL) {
			*err_out = errno;
			return fd;
		}
	}
	fd = open(p, flags, 0600);
	*err_out = errno;
	return fd;
}

/* The reserve: never let the filesystem's free space drop below it. */
static int reserve_ok(struct sto *w, uint64_t more)
{
	struct statvfs vs;

	if (!w->reserve)
		return 1; /* "reserve": "0" turns the check off */
	if (statvfs(w->dir, &vs) != 0)
		return 1; /* a vanished mount shows on the I/O itself */
	return (uint64_t)vs.f_bavail * vs.f_frsize >= more + w->reserve;
}

/* ---- the op loop: one worker, sync engine --------------------------------------------- */

/* Take len bytes of "limit": 0, or -2 when fewer are left (no more I/O). */
static int take_budget(struct sto *w, uint64_t len)
{
	int64_t cur = __atomic_load_n(&w->budget, __ATOMIC_RELAXED);

	do {
		if (cur < (int64_t)len)
			return -2;
	} while (!__atomic_compare_exchange_n(&w->budget, &cur, cur - (int64_t)len, 0, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return 0;
}

static int one_io(struct sto *w, struct worker *k, int writing, int f, int fd, uint64_t off, uint64_t len,
		  unsigned char *buf)
{
	int64_t t0;
	ssize_t r = 0;
	uint64_t done = 0;

	if (k->measure && !k->unbudgeted && w->budget >= 0 && take_budget(w, len) != 0)
		return -2; /* the limit is reached: no more I/O */
	take_tokens(w, len);
	t0 = gl_now_ns();
	while (done < len) {
		r = writing ? pwrite(fd, buf + done, len - done, (off_t)(off + done))
			    : pread(fd, buf + done, len - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		done += (uint64_t)r;
	}
	if (done < len) {
		int e = r < 0 ? errno : EIO;
		op_error(w, writing ? "write" : "read", f, off, len, classify(e),
			 r < 0 ? strerror(e) : "short read (file shorter than expected)");
		return -1;
	}
	if (k->measure) {
		int64_t lat = gl_now_ns() - t0;
		gl_metrics_record(w->m, w->id_lat, (double)lat / 1e6);
		gl_metrics_add(w->m, writing ? w->id_wbytes : w->id_rbytes, (int64_t)len);
		st_tally(k, writing, len, lat);
	}
	return 0;
}

static void back_off(struct worker *k)
{
	k->backoff_ns = k->backoff_ns ? k->backoff_ns * 2 : 50000000;
	if (k->backoff_ns > 1000000000)
		k->backoff_ns = 1000000000;
	gl_sleep_ns(k->backoff_ns);
}

/* Write file f whole with generation gen: bs blocks, fsync, close. */
static int write_file(struct sto *w, struct worker *k, int f, uint32_t gen, uint64_t bs)
{
	int e = 0, fd, rc = 0;
	int64_t t0;

	if (!reserve_ok(w, w->file_size)) {
		op_error(w, "write", f, 0, w->file_size, EC_RESERVE,
			 "skipped: the filesystem's free space is at the reserve");
		return -1;
	}
	fd = open_file(w, f, 1, 1, &e);
	if (fd < 0) {
		op_error(w, "open", f, 0, 0, classify(e), strerror(e));
		return -1;
	}
	fill_block(k->buf, bs, f, gen, 0);
	for (uint64_t off = 0; off < w->file_size && w->running; off += bs) {
		uint64_t len = w->file_size - off < bs ? w->file_size - off : bs;
		struct blk_hdr h = { HDR_MAGIC, (uint32_t)f, gen, (uint32_t)bs, off };
		memcpy(k->buf, &h, sizeof(h));
		if ((rc = one_io(w, k, 1, f, fd, off, len, k->buf)) < 0)
			break;
	}
	if (rc == 0 && w->running) {
		t0 = gl_now_ns();
		if (fsync(fd) != 0) {
			op_error(w, "fsync", f, 0, 0, classify(errno), strerror(errno));
			rc = -1;
		} else if (k->measure) {
			gl_metrics_record(w->m, w->id_fsync, (double)(gl_now_ns() - t0) / 1e6);
		}
	}
	close(fd);
	return w->running ? rc : -1;
}

/* Read file f whole, sequentially; cold: its page cache dropped first. */
static int read_file(struct sto *w, struct worker *k, int f, uint64_t bs)
{
	int e = 0, fd = open_file(w, f, 0, 0, &e), rc = 0;
	uint32_t gen = w->file_gen[f];

	if (fd < 0) {
		op_error(w, "open", f, 0, 0, classify(e), strerror(e));
		return -1;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	for (uint64_t off = 0; off < w->file_size && w->running; off += bs) {
		uint64_t len = w->file_size - off < bs ? w->file_size - off : bs;
		if ((rc = one_io(w, k, 0, f, fd, off, len, k->buf)) < 0)
			break;
		if (w->verify && gen) {
			if (check_range(k, k->buf, off, len, f, gen, w->file_bs[f]) != 0)
				op_error(w, "verify", f, off, len, EC_VERIFY, "block content is not what was written");
			else
				gl_metrics_add(w->m, w->id_verified, (int64_t)len);
		}
	}
	close(fd);
	return rc;
}

/* One random block op (dataset_read, mixed). */
static int random_op(struct sto *w, struct worker *k, int writing, uint64_t bs, int *fds)
{
	int f = (int)(rnd(&k->rng) % (uint64_t)w->files), e = 0, rc;
	uint64_t blocks = w->file_size / bs, off;

	if (!blocks)
		blocks = 1;
	off = rnd(&k->rng) % blocks * bs;
	if (fds[f] < 0) {
		fds[f] = open_file(w, f, w->pattern == P_MIXED, 0, &e);
		if (fds[f] < 0) {
			op_error(w, "open", f, 0, 0, classify(e), strerror(e));
			return -1;
		}
	}
	if (writing) {
		/* mixed writes keep the file's generation: only the block changes */
		fill_block(k->buf, bs, f, w->file_gen[f], off);
		return one_io(w, k, 1, f, fds[f], off, bs, k->buf);
	}
	if ((rc = one_io(w, k, 0, f, fds[f], off, bs, k->buf)) < 0)
		return rc;
	if (w->verify && w->file_gen[f] && w->pattern != P_MIXED) {
		if (check_range(k, k->buf, off, bs, f, w->file_gen[f], w->file_bs[f]) != 0)
			op_error(w, "verify", f, off, bs, EC_VERIFY, "block content is not what was written");
		else
			gl_metrics_add(w->m, w->id_verified, (int64_t)bs);
	}
	return 0;
}

/* ---- aio engine (direct I/O, iodepth in flight) ------------------------------------------ */

long st_sys_io_setup(unsigned n, aio_context_t *c)
{
	return syscall(SYS_io_setup, n, c);
}
long st_sys_io_destroy(aio_context_t c)
{
	return syscall(SYS_io_destroy, c);
}
static long sys_io_submit(aio_context_t c, long n, struct iocb **v)
{
	return syscall(SYS_io_submit, c, n, v);
}
static long sys_io_getevents(aio_context_t c, long mn, long mx, struct io_event *ev, struct timespec *t)
{
	return syscall(SYS_io_getevents, c, mn, mx, ev, t);
}

/* Random reads (dataset_read) or sequential reads of whole files
 * (model_load) with depth ops in flight on one thread. */
/* A read the kernel finished: counted, or an error; checked with "verify". */
static void aio_done(struct sto *w, struct worker *k, const struct iocb *cb, int f, int64_t lat_ns, int64_t res)
{
	if (res < 0 || (uint64_t)res != cb->aio_nbytes) {
		op_error(w, "read", f, (uint64_t)cb->aio_offset, cb->aio_nbytes,
			 res < 0 ? classify((int)-res) : EC_OTHER, res < 0 ? strerror((int)-res) : "short read");
		return;
	}
	gl_metrics_record(w->m, w->id_lat, (double)lat_ns / 1e6);
	gl_metrics_add(w->m, w->id_rbytes, res);
	st_tally(k, 0, (uint64_t)res, lat_ns);
	if (w->verify && w->file_gen[f]) {
		unsigned char *b = (unsigned char *)(uintptr_t)cb->aio_buf;
		if (check_range(k, b, (uint64_t)cb->aio_offset, (uint64_t)res, f, w->file_gen[f], w->file_bs[f]))
			op_error(w, "verify", f, (uint64_t)cb->aio_offset, (uint64_t)res, EC_VERIFY,
				 "block content is not what was written");
		else
			gl_metrics_add(w->m, w->id_verified, res);
	}
}

static void aio_loop(struct sto *w, struct worker *k, int *fds)
{
	struct iocb cbs[MAX_DEPTH], *ptrs[1];
	struct io_event evs[MAX_DEPTH];
	int64_t t_sub[MAX_DEPTH];
	int fs[MAX_DEPTH], inflight = 0, depth = w->iodepth, free_slot[MAX_DEPTH], n_free = 0;
	uint64_t bs = w->cur_bs, seq_off = 0;
	int seq_file = k->idx % w->files;

	for (int i = 0; i < depth; i++)
		free_slot[n_free++] = i;
	while (w->running || inflight) {
		/* fill the queue */
		while (w->running && n_free > 0 && k->idx < w->active) {
			int s = free_slot[n_free - 1], f, e = 0;
			uint64_t off;
			if (w->pattern == P_MODEL_LOAD) {
				if (seq_off >= w->file_size) {
					seq_off = 0;
					seq_file = (seq_file + w->threads) % w->files;
				}
				f = seq_file;
				off = seq_off;
				seq_off += bs;
			} else {
				uint64_t blocks = w->file_size / bs ? w->file_size / bs : 1;
				f = (int)(rnd(&k->rng) % (uint64_t)w->files);
				off = rnd(&k->rng) % blocks * bs;
			}
			if (fds[f] < 0 && (fds[f] = open_file(w, f, 0, 0, &e)) < 0) {
				op_error(w, "open", f, 0, 0, classify(e), strerror(e));
				back_off(k);
				break;
			}
			/* "limit", as one_io takes it */
			if (w->budget >= 0 && take_budget(w, w->file_size - off < bs ? w->file_size - off : bs) != 0) {
				if (!inflight)
					gl_sleep_ns(20000000);
				break;
			}
			take_tokens(w, bs);
			memset(&cbs[s], 0, sizeof(cbs[s]));
			cbs[s].aio_fildes = (uint32_t)fds[f];
			cbs[s].aio_lio_opcode = IOCB_CMD_PREAD;
			cbs[s].aio_buf = (uint64_t)(uintptr_t)(k->buf + (size_t)s * w->max_bs);
			cbs[s].aio_nbytes = w->file_size - off < bs ? w->file_size - off : bs;
			cbs[s].aio_offset = (int64_t)off;
			cbs[s].aio_data = (uint64_t)s;
			ptrs[0] = &cbs[s];
			t_sub[s] = gl_now_ns();
			fs[s] = f;
			if (sys_io_submit(k->aio, 1, ptrs) != 1) {
				op_error(w, "read", f, off, bs, classify(errno), strerror(errno));
				back_off(k);
				break;
			}
			n_free--;
			inflight++;
		}
		if (!inflight) {
			if (!w->running)
				break;
			gl_sleep_ns(10000000); /* parked (index above the active count) */
			continue;
		}
		{
			struct timespec to = { 0, 200000000 };
			long got = sys_io_getevents(k->aio, 1, inflight, evs, &to);
			int64_t now = gl_now_ns();
			for (long i = 0; i < got; i++) {
				int s = (int)evs[i].data;
				aio_done(w, k, &cbs[s], fs[s], now - t_sub[s], evs[i].res);
				free_slot[n_free++] = s;
				inflight--;
			}
		}
		bs = w->cur_bs;
	}
}

/* ---- worker ------------------------------------------------------------------------------ */

static void join_cgroup(struct sto *w)
{
	char tid[32];
	int fd;

	if (!w->cg_tasks[0])
		return;
	snprintf(tid, sizeof(tid), "%ld\n", (long)syscall(SYS_gettid));
	fd = open(w->cg_tasks, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, tid, strlen(tid)) < 0) {
		pthread_mutex_lock(&w->mu);
		if (!w->notice[0] && !w->notice_said)
			snprintf(w->notice, sizeof(w->notice),
				 "cannot put I/O threads in %s: %s (the storage_throttle "
				 "fault will not reach this workload)",
				 w->cg_tasks, strerror(errno));
		pthread_mutex_unlock(&w->mu);
	}
	if (fd >= 0)
		close(fd);
}

/* Lay out the files the read patterns need (not measured). Worker k
 * writes files k, k + threads, ... */
static void prepare(struct sto *w, struct worker *k)
{
	for (int f = k->idx; f < w->files && w->running; f += w->max_threads) {
		int tries = 0;
		while (w->running && write_file(w, k, f, 1, w->max_bs) != 0 && ++tries < 3)
			back_off(k);
		if (tries < 3) {
			w->file_bs[f] = w->max_bs;
			w->file_gen[f] = 1;
		} else
			__atomic_store_n(&w->prepare_failed, 1, __ATOMIC_RELAXED);
	}
}

/* The next checkpoint file this worker writes whole (and reads back with
 * "verify"): 0, -2 at the limit, another error, or 1 when every file is
 * taken by another writer (after a short sleep). */
static int ckpt_write_next(struct sto *w, struct worker *k, int *next_file, uint64_t bs)
{
	int f = -1, rc;

	/* one writer per file at a time: take the next free one */
	pthread_mutex_lock(&w->mu);
	for (int i = 0; i < w->files && f < 0; i++) {
		int c = (*next_file + i) % w->files;
		if (!w->file_busy[c])
			f = c;
	}
	if (f >= 0) {
		w->file_busy[f] = 1;
		*next_file = f + w->max_threads;
	}
	pthread_mutex_unlock(&w->mu);
	if (f < 0) {
		gl_sleep_ns(5000000);
		return 1;
	}
	/* a checkpoint is written whole or not at all: its bytes
	 * come out of "limit" before the first block, so two writers
	 * near the limit never both run out mid-file (two half files,
	 * neither read back) */
	if (k->measure && w->budget >= 0 && take_budget(w, w->file_size) != 0) {
		rc = -2;
	} else {
		k->unbudgeted = 1;
		rc = write_file(w, k, f, w->file_gen[f] + 1, bs);
		k->unbudgeted = 0;
	}
	pthread_mutex_lock(&w->mu);
	if (rc == 0) {
		w->file_bs[f] = bs;
		w->file_gen[f]++;
	}
	pthread_mutex_unlock(&w->mu);
	if (rc == 0 && w->verify) {
		/* read the checkpoint back, cold, and check it */
		k->unbudgeted = 1;
		read_file(w, k, f, bs);
		k->unbudgeted = 0;
	}
	pthread_mutex_lock(&w->mu);
	w->file_busy[f] = 0;
	pthread_mutex_unlock(&w->mu);
	return rc;
}

void *st_worker_main(void *arg)
{
	struct worker *k = arg;
	struct sto *w = k->w;
	int *fds = malloc((size_t)w->files * sizeof(int));
	int next_file = k->idx;

	join_cgroup(w);
	for (int i = 0; fds && i < w->files; i++)
		fds[i] = -1;
	if (!fds)
		return NULL;
	if (w->pattern != P_CKPT_WRITE) {
		k->measure = 0;
		prepare(w, k);
		k->measure = 1;
		__atomic_add_fetch(&w->prepared, 1, __ATOMIC_RELAXED);
		while (w->running && __atomic_load_n(&w->prepared, __ATOMIC_RELAXED) < w->max_threads)
			gl_sleep_ns(5000000);
		/* the measured part starts clean: nothing of the layout counted */
	}
	if (w->engine == E_AIO && (w->pattern == P_DATASET_READ || w->pattern == P_MODEL_LOAD)) {
		aio_loop(w, k, fds);
		goto out;
	}
	while (w->running) {
		uint64_t bs = w->cur_bs;
		int rc = 0;

		if (k->idx >= w->active) {
			gl_sleep_ns(10000000);
			continue;
		}
		switch (w->pattern) {
		case P_CKPT_WRITE:
			if ((rc = ckpt_write_next(w, k, &next_file, bs)) == 1)
				continue;
			break;
		case P_MODEL_LOAD:
			rc = read_file(w, k, next_file % w->files, bs);
			next_file += w->max_threads;
			break;
		case P_DATASET_READ: rc = random_op(w, k, 0, bs, fds); break;
		case P_MIXED: rc = random_op(w, k, (int)(rnd(&k->rng) % 100) >= w->read_pct, bs, fds); break;
		}
		if (rc == -2)
			gl_sleep_ns(20000000); /* "limit" reached: idle until the end */
		else if (rc != 0 && w->running)
			back_off(k);
		else
			k->backoff_ns = 0;
	}
out:
	for (int i = 0; i < w->files; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	return NULL;
}
