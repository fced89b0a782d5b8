/*
 * storage.c - the storage workload: an I/O engine of its own that makes the
 * bursts GPU clusters put on their filesystems (checkpoint writes, cold model
 * loads, dataset reads) and measures them per window.
 *
 * Worker threads each run one pattern's op generator through an engine:
 * "sync" (pread/pwrite, one op in flight per thread) or "aio" (Linux native
 * AIO through the raw syscalls, iodepth ops in flight per thread; needs
 * direct I/O). Direct I/O is used where the filesystem takes it; where it
 * does not (tmpfs, some FUSE mounts) the engine falls back to buffered I/O
 * with fsync per file and says so once.
 *
 * Every block written carries a header (file, generation, offset) followed
 * by a filler that depends on the generation, so any read of a file the
 * engine wrote can be verified: "verify": true checks every block read and
 * counts mismatches.
 *
 * Safety (docs/storage.md): the engine writes only inside a directory it
 * creates under the configured path (gauntlet-storage-<run id>, with a
 * marker file), only files it created, never devices; the path must resolve
 * (symlinks followed) inside an allowed root; the planned footprint plus a
 * reserve must fit in the free space before the run starts, and each new
 * file checks the reserve again; ENOSPC, EIO, a vanished mount and the rest
 * become classified error counts while the run goes on; the directory and
 * its files are removed at the end.
 *
 * Threads: workers never touch the store or the event loop; they record
 * through the thread-safe metrics and leave error details in a small locked
 * list that the loop thread drains each window.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/aio_abi.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "fio.h"
#include "cfg.h"
#include "child.h"
#include "metrics.h"
#include "paths.h"
#include "plugin.h"
#include "storage_schema.h"
#include "store.h"
#include "units.h"

#define ALIGN 4096
#define HDR_MAGIC 0x474c5354u          /* "GLST" */
#define MAX_DEPTH 256
#define ERR_KEEP 64                    /* error details kept per window */

enum pattern { P_CKPT_WRITE, P_MODEL_LOAD, P_DATASET_READ, P_MIXED };
enum engine { E_SYNC, E_AIO, E_FIO };
enum err_class { EC_ENOSPC, EC_EDQUOT, EC_EIO, EC_VANISHED, EC_ROFS, EC_PERM, EC_RESERVE, EC_VERIFY,
		 EC_OTHER, EC_N };
static const char *const ec_names[EC_N] = { "enospc", "edquot", "eio", "vanished", "rofs", "perm",
					    "reserve", "verify", "other" };

struct blk_hdr {
	uint32_t magic, file;
	uint32_t gen, bs;
	uint64_t offset;
};

struct err_rec {
	int64_t window;
	char op[8];
	uint64_t bytes;
	int64_t latency_ns;
	enum err_class cls;
	char detail[160];
};

struct sto;

struct worker {
	struct sto *w;
	int idx;
	int measure;                 /* 0 while laying out files */
	int unbudgeted;              /* read-back of a checkpoint: not taken from "limit" */
	unsigned char *scratch;      /* max_bs bytes: the expected filler */
	int fk_file;                 /* what scratch holds */
	uint32_t fk_gen;
	uint64_t fk_bs;
	pthread_t th;
	int started;
	uint64_t rng;
	unsigned char *buf;          /* iodepth blocks of max_bs, aligned */
	int cur_file;                /* sequential patterns: the file in hand */
	int fd;
	uint64_t off;
	uint32_t gen;
	int64_t backoff_ns;
	aio_context_t aio;
};

struct sto {
	struct gl_ctx *ctx;
	struct gl_metrics *m;
	enum pattern pattern;
	enum engine engine;
	char root[PATH_MAX];         /* the configured path, resolved */
	char dir[PATH_MAX];          /* our directory inside it */
	int made_dir;
	int threads, max_threads, iodepth, files, direct, verify, read_pct;
	uint64_t bs, max_bs, file_size, rate_cap, reserve;
	int direct_ok;               /* direct I/O works on this filesystem */

	/* spikes, in scenario time */
	struct spike { int64_t every, dur, start; int threads; uint64_t bs; } *spikes;
	int n_spikes;
	double load;

	/* shared state of the workers */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	volatile int running;
	volatile int active;         /* workers allowed to run */
	volatile uint64_t cur_bs;
	uint32_t *file_gen;          /* generation each file holds; 0 = not written */
	uint64_t *file_bs;           /* block size of that generation's writes */
	int *file_busy;              /* a writer holds it */
	int64_t budget;              /* "limit": bytes of I/O left, -1 none */
	double tokens;               /* rate cap bucket, bytes */
	int64_t tokens_ns;
	struct err_rec errs[ERR_KEEP];
	int n_errs, errs_dropped;
	int64_t err_count[EC_N];
	int64_t window;              /* copy for workers */
	int prepared, prepare_failed;
	char notice[256];            /* one-time notice from a worker for the loop */
	int notice_said;

	struct worker *wk;
	struct event *ev_tick;

	/* cgroup placement */
	char cg_tasks[PATH_MAX];
	char cg_dir[PATH_MAX];
	int cg_made, cg_v2;

	/* fio */
	char **fio_argv;
	int fio_argc;
	pid_t fio_pid;
	int64_t fio_child_id;        /* its row in the store's children table */
	int fio_out, fio_err;
	struct event *ev_fio_out, *ev_fio_err;
	struct gl_fio_stream *fio_stream;
	uint64_t fio_last_read, fio_last_write, fio_last_err;
	struct gl_buf fio_stderr;

	int id_rbytes, id_wbytes, id_lat, id_fsync, id_errors, id_verified, id_class[EC_N];
};

/* ---- helpers ---------------------------------------------------------------- */






static uint64_t rnd(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static void sleep_ns(int64_t ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };
	nanosleep(&ts, NULL);
}

static enum err_class classify(int e)
{
	switch (e) {
	case ENOSPC: return EC_ENOSPC;
	case EDQUOT: return EC_EDQUOT;
	case EIO: return EC_EIO;
	case ENOENT: case ENODEV: case ENXIO: case ESTALE: case ENOTCONN: case ESHUTDOWN: return EC_VANISHED;
	case EROFS: return EC_ROFS;
	case EACCES: case EPERM: return EC_PERM;
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
static int check_range(struct worker *k, const unsigned char *b, uint64_t off, uint64_t len, int file,
		       uint32_t gen, uint64_t lbs)
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
			w->tokens = (double)w->rate_cap;          /* at most one second of burst */
		if (w->tokens >= (double)bytes) {
			w->tokens -= (double)bytes;
			pthread_mutex_unlock(&w->mu);
			return;
		}
		wait_ns = (int64_t)(((double)bytes - w->tokens) / (double)w->rate_cap * 1e9);
		pthread_mutex_unlock(&w->mu);
		sleep_ns(wait_ns < 1000000 ? 1000000 : wait_ns > 100000000 ? 100000000 : wait_ns);
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
		return 1;              /* "reserve": "0" turns the check off */
	if (statvfs(w->dir, &vs) != 0)
		return 1;              /* a vanished mount shows on the I/O itself */
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
		return -2;       /* the limit is reached: no more I/O */
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
		gl_metrics_record(w->m, w->id_lat, (double)(gl_now_ns() - t0) / 1e6);
		gl_metrics_add(w->m, writing ? w->id_wbytes : w->id_rbytes, (int64_t)len);
	}
	return 0;
}

static void back_off(struct worker *k)
{
	k->backoff_ns = k->backoff_ns ? k->backoff_ns * 2 : 50000000;
	if (k->backoff_ns > 1000000000)
		k->backoff_ns = 1000000000;
	sleep_ns(k->backoff_ns);
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

static long sys_io_setup(unsigned n, aio_context_t *c) { return syscall(SYS_io_setup, n, c); }
static long sys_io_destroy(aio_context_t c) { return syscall(SYS_io_destroy, c); }
static long sys_io_submit(aio_context_t c, long n, struct iocb **v) { return syscall(SYS_io_submit, c, n, v); }
static long sys_io_getevents(aio_context_t c, long mn, long mx, struct io_event *ev, struct timespec *t)
{
	return syscall(SYS_io_getevents, c, mn, mx, ev, t);
}

/* Random reads (dataset_read) or sequential reads of whole files
 * (model_load) with depth ops in flight on one thread. */
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
			if (w->budget >= 0) {
				/* "limit", as one_io takes it */
				int64_t cur = __atomic_load_n(&w->budget, __ATOMIC_RELAXED), len =
					(int64_t)(w->file_size - off < bs ? w->file_size - off : bs);
				int got = 0;
				while (cur >= len && !(got = __atomic_compare_exchange_n(&w->budget, &cur, cur - len, 0,
											 __ATOMIC_RELAXED, __ATOMIC_RELAXED)))
					;
				if (!got) {
					if (!inflight)
						sleep_ns(20000000);
					break;
				}
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
			sleep_ns(10000000);     /* parked (index above the active count) */
			continue;
		}
		{
			struct timespec to = { 0, 200000000 };
			long got = sys_io_getevents(k->aio, 1, inflight, evs, &to);
			int64_t now = gl_now_ns();
			for (long i = 0; i < got; i++) {
				int s = (int)evs[i].data;
				int64_t res = evs[i].res;
				if (res < 0 || (uint64_t)res != cbs[s].aio_nbytes) {
					op_error(w, "read", fs[s], (uint64_t)cbs[s].aio_offset, cbs[s].aio_nbytes,
						 res < 0 ? classify((int)-res) : EC_OTHER,
						 res < 0 ? strerror((int)-res) : "short read");
				} else {
					gl_metrics_record(w->m, w->id_lat, (double)(now - t_sub[s]) / 1e6);
					gl_metrics_add(w->m, w->id_rbytes, res);
					if (w->verify && w->file_gen[fs[s]]) {
						unsigned char *b = (unsigned char *)(uintptr_t)cbs[s].aio_buf;
						if (check_range(k, b, (uint64_t)cbs[s].aio_offset, (uint64_t)res, fs[s],
								w->file_gen[fs[s]], w->file_bs[fs[s]]))
							op_error(w, "verify", fs[s], (uint64_t)cbs[s].aio_offset, (uint64_t)res,
								 EC_VERIFY, "block content is not what was written");
						else
							gl_metrics_add(w->m, w->id_verified, res);
					}
				}
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
			snprintf(w->notice, sizeof(w->notice), "cannot put I/O threads in %s: %s (the storage_throttle "
				 "fault will not reach this workload)", w->cg_tasks, strerror(errno));
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
		}
		else
			__atomic_store_n(&w->prepare_failed, 1, __ATOMIC_RELAXED);
	}
}

static void *worker_main(void *arg)
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
			sleep_ns(5000000);
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
			sleep_ns(10000000);
			continue;
		}
		switch (w->pattern) {
		case P_CKPT_WRITE: {
			int f = -1;
			/* one writer per file at a time: take the next free one */
			pthread_mutex_lock(&w->mu);
			for (int i = 0; i < w->files && f < 0; i++) {
				int c = (next_file + i) % w->files;
				if (!w->file_busy[c])
					f = c;
			}
			if (f >= 0) {
				w->file_busy[f] = 1;
				next_file = f + w->max_threads;
			}
			pthread_mutex_unlock(&w->mu);
			if (f < 0) {
				sleep_ns(5000000);
				continue;
			}
			/* a checkpoint is written whole or not at all: its bytes
			 * come out of "limit" before the first block, so two
			 * writers near the limit never leave two half files (the
			 * old per-block take did, and neither was read back) */
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
			break;
		}
		case P_MODEL_LOAD:
			rc = read_file(w, k, next_file % w->files, bs);
			next_file += w->max_threads;
			break;
		case P_DATASET_READ:
			rc = random_op(w, k, 0, bs, fds);
			break;
		case P_MIXED:
			rc = random_op(w, k, (int)(rnd(&k->rng) % 100) >= w->read_pct, bs, fds);
			break;
		}
		if (rc == -2)
			sleep_ns(20000000);     /* "limit" reached: idle until the end */
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

/* ---- fio as the engine ----------------------------------------------------------------- */

static void on_fio_report(void *arg, const struct gl_fio_report *r)
{
	struct sto *w = arg;

	/* fio's reports are cumulative: the window gets the difference */
	if (r->read_bytes >= w->fio_last_read)
		gl_metrics_add(w->m, w->id_rbytes, (int64_t)(r->read_bytes - w->fio_last_read));
	if (r->write_bytes >= w->fio_last_write)
		gl_metrics_add(w->m, w->id_wbytes, (int64_t)(r->write_bytes - w->fio_last_write));
	if (r->total_err > w->fio_last_err) {
		gl_metrics_add(w->m, w->id_errors, (int64_t)(r->total_err - w->fio_last_err));
		gl_metrics_add(w->m, w->id_class[EC_OTHER], (int64_t)(r->total_err - w->fio_last_err));
	}
	w->fio_last_read = r->read_bytes;
	w->fio_last_write = r->write_bytes;
	w->fio_last_err = r->total_err;
	for (int i = 0; i < r->n_jobs; i++) {
		const struct gl_fio_job *j = &r->jobs[i];
		double rp = gl_fio_clat_ms(&j->read, 99.0), wp = gl_fio_clat_ms(&j->write, 99.0);
		if (rp >= 0 || wp >= 0)
			gl_ctx_event(w->ctx, GL_LOG_DEBUG, "storage", "fio job %s: clat p99 read %.3f ms, write %.3f ms "
				     "(since fio started)", j->name, rp, wp);
	}
}

static void on_fio_out(evutil_socket_t fd, short what, void *arg)
{
	struct sto *w = arg;
	char buf[65536];
	ssize_t r = read(fd, buf, sizeof(buf));
	struct gl_err err = { 0 };

	if (r > 0) {
		if (gl_fio_stream_feed(w->fio_stream, buf, (size_t)r, on_fio_report, w, &err) != 0)
			gl_ctx_event(w->ctx, GL_LOG_ERROR, "storage", "fio output: %s", err.msg);
		return;
	}
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	event_del(w->ev_fio_out);
}

static void on_fio_err(evutil_socket_t fd, short what, void *arg)
{
	struct sto *w = arg;
	char buf[4096];
	ssize_t r = read(fd, buf, sizeof(buf) - 1);

	if (r > 0) {
		buf[r] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		/* fio's stderr never mixes with its JSON: it only goes to the log */
		gl_ctx_event(w->ctx, GL_LOG_WARN, "storage", "fio: %s", buf);
		return;
	}
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	event_del(w->ev_fio_err);
}

static int fio_start(struct sto *w, struct gl_err *err)
{
	int o[2], e[2];
	pid_t pid;
	char procs[PATH_MAX + 32], mark[128];
	struct gl_child_gate gate;

	if (pipe2(o, O_CLOEXEC) != 0 || pipe2(e, O_CLOEXEC) != 0)
		return gl_errf(err, GL_EIO, "storage: pipe: %s", strerror(errno));
	if (gl_child_gate_open(&gate) != 0) {
		close(o[0]);
		close(o[1]);
		close(e[0]);
		close(e[1]);
		return gl_errf(err, GL_EIO, "storage: pipe: %s", strerror(errno));
	}
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", w->cg_dir);
	snprintf(mark, sizeof(mark), "%s", gl_ctx_child_mark(w->ctx));
	/* On the loop thread (plugin.h): fio dies with the controller and
	 * waits at the gate until the store holds its pid (child.h). */
	pid = fork();
	if (pid < 0) {
		gl_child_gate_close(&gate);
		return gl_errf(err, GL_EIO, "storage: fork: %s", strerror(errno));
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		setpgid(0, 0);
		if (gl_child_gate_wait(&gate) != 0)
			_exit(127);
		putenv(mark);
		if (w->cg_dir[0]) {
			int fd = open(procs, O_WRONLY);
			if (fd >= 0) {
				dprintf(fd, "%d\n", (int)getpid());
				close(fd);
			}
		}
		dup2(null, 0);
		dup2(o[1], 1);
		dup2(e[1], 2);
		if (chdir(w->dir) != 0)
			_exit(126);
		execvp(w->fio_argv[0], w->fio_argv);
		dprintf(2, "cannot run %s: %s\n", w->fio_argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	close(o[1]);
	close(e[1]);
	w->fio_child_id = gl_ctx_child_started(w->ctx, "storage", pid, "fio");
	gl_child_gate_release(&gate, w->fio_child_id > 0);
	if (w->fio_child_id <= 0) {
		close(o[0]);
		close(e[0]);
		waitpid(pid, NULL, 0);
		return gl_errf(err, GL_EIO, "storage: fio could not be recorded in the run store, so not started");
	}
	fcntl(o[0], F_SETFL, O_NONBLOCK);
	fcntl(e[0], F_SETFL, O_NONBLOCK);
	w->fio_pid = pid;
	w->fio_out = o[0];
	w->fio_err = e[0];
	w->ev_fio_out = event_new(gl_ctx_base(w->ctx), o[0], EV_READ | EV_PERSIST, on_fio_out, w);
	w->ev_fio_err = event_new(gl_ctx_base(w->ctx), e[0], EV_READ | EV_PERSIST, on_fio_err, w);
	event_add(w->ev_fio_out, NULL);
	event_add(w->ev_fio_err, NULL);
	gl_ctx_event(w->ctx, GL_LOG_INFO, "storage", "fio started (pid %d) in %s", (int)pid, w->dir);
	return 0;
}

/* Options only, and none that points fio outside our directory. */
static int fio_args_ok(const cJSON *args, char *why, size_t n)
{
	static const char *const banned[] = { "--filename", "--directory", "--opendir", "--filename_format",
					      "--output", "--output-format", "--status-interval", "--ioengine=sg",
					      "--ioengine=rbd", "--ioengine=rdma", "--exec_prerun", "--exec_postrun",
					      "--trigger", "--client", "--server", NULL };
	const cJSON *a;

	cJSON_ArrayForEach(a, args) {
		if (!cJSON_IsString(a) || strncmp(a->valuestring, "--", 2)) {
			snprintf(why, n, "fio_args holds only --options (no job files, whose filename= could point "
				 "anywhere): '%s'", cJSON_IsString(a) ? a->valuestring : "?");
			return -1;
		}
		for (int i = 0; banned[i]; i++)
			if (!strncmp(a->valuestring, banned[i], strlen(banned[i]))) {
				snprintf(why, n, "fio_args: %s is not allowed: gauntlet sets where fio writes (its own "
					 "directory) and how it reports", banned[i]);
				return -1;
			}
	}
	return 0;
}

/* ---- safety ---------------------------------------------------------------------------- */

static const char *const default_roots[] = { "/mnt", "/data", "/scratch", "/srv", "/tmp", "/var/tmp",
					     "/lustre", "/gpfs", "/home", NULL };

/* The configured path resolved, checked against the allowed roots. */
static int check_path(const cJSON *cfg, char *resolved, char *why, size_t n)
{
	const char *path = gl_cfg_str(cfg, "path", "");
	const cJSON *roots = cJSON_GetObjectItemCaseSensitive(cfg, "allowed_roots"), *r;
	struct stat st;
	int ok = 0;

	if (!realpath(path, resolved)) {
		snprintf(why, n, "storage path %s: %s", path, strerror(errno));
		return -1;
	}
	if (stat(resolved, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(why, n, "storage path %s is not a directory (the engine never writes to devices or "
			 "existing files)", resolved);
		return -1;
	}
	if (roots) {
		cJSON_ArrayForEach(r, roots) {
			char rr[PATH_MAX];
			if (cJSON_IsString(r) && realpath(r->valuestring, rr) && strcmp(rr, "/") && gl_path_under(resolved, rr))
				ok = 1;
		}
	} else {
		for (int i = 0; default_roots[i]; i++) {
			char rr[PATH_MAX];
			if (realpath(default_roots[i], rr) && gl_path_under(resolved, rr))
				ok = 1;
		}
	}
	if (!ok) {
		snprintf(why, n, "storage path %s (resolved) is outside the allowed roots (%s); name the root in "
			 "\"allowed_roots\" if it is meant", resolved,
			 roots ? "the scenario's allowed_roots" : "/mnt /data /scratch /srv /tmp /var/tmp /lustre /gpfs /home");
		return -1;
	}
	return 0;
}

static uint64_t footprint(const struct sto *w)
{
	return w->engine == E_FIO ? 0 : (uint64_t)w->files * w->file_size;
}

static int space_ok(const struct sto *w, const char *root, char *why, size_t n)
{
	struct statvfs vs;
	uint64_t free_b, need = footprint(w);

	if (statvfs(root, &vs) != 0) {
		snprintf(why, n, "statvfs %s: %s", root, strerror(errno));
		return -1;
	}
	free_b = (uint64_t)vs.f_bavail * vs.f_frsize;
	if (need + w->reserve > free_b) {
		snprintf(why, n, "%s has %.3f GB free; the workload needs %.3f GB (files x file_size) plus a reserve "
			 "of %.3f GB that it never uses", root, free_b / 1e9, need / 1e9, w->reserve / 1e9);
		return -1;
	}
	snprintf(why, n, "%.3f GB free; needs %.3f GB plus a %.3f GB reserve", free_b / 1e9, need / 1e9,
		 w->reserve / 1e9);
	return 0;
}

/* ---- cgroup ---------------------------------------------------------------------------- */

static void cgroup_setup(struct sto *w, const char *cg)
{
	struct stat st;

	if (!cg || !*cg)
		return;
	if (stat("/sys/fs/cgroup/blkio", &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(w->cg_dir, sizeof(w->cg_dir), "/sys/fs/cgroup/blkio/%s", cg);
		snprintf(w->cg_tasks, sizeof(w->cg_tasks), "%s/tasks", w->cg_dir);
	} else if (stat("/sys/fs/cgroup/cgroup.controllers", &st) == 0) {
		w->cg_v2 = 1;
		snprintf(w->cg_dir, sizeof(w->cg_dir), "/sys/fs/cgroup/%s", cg);
		if (mkdir(w->cg_dir, 0755) == 0)
			w->cg_made = 1;
		/* v2's io controller works on whole processes (it is not a
		 * threaded controller): the fio engine's process joins the
		 * cgroup, the built-in engine's threads cannot. */
		if (w->engine != E_FIO)
			gl_ctx_event(w->ctx, GL_LOG_WARN, "storage", "cgroup v2: I/O throttling applies to whole "
				     "processes and the built-in engine runs as threads of the controller; use "
				     "\"engine\": \"fio\" to run storage I/O inside %s", w->cg_dir);
		return;
	} else {
		gl_ctx_event(w->ctx, GL_LOG_WARN, "storage", "no blkio (v1) or unified (v2) cgroup hierarchy: "
			     "\"cgroup\": \"%s\" is ignored", cg);
		return;
	}
	if (mkdir(w->cg_dir, 0755) == 0)
		w->cg_made = 1;
	else if (errno != EEXIST)
		gl_ctx_event(w->ctx, GL_LOG_WARN, "storage", "cannot create cgroup %s: %s", w->cg_dir, strerror(errno));
}

/* ---- ops ------------------------------------------------------------------------------- */

static enum pattern pattern_of(const char *s)
{
	return !strcmp(s, "model_load") ? P_MODEL_LOAD : !strcmp(s, "dataset_read") ? P_DATASET_READ
	     : !strcmp(s, "mixed") ? P_MIXED : P_CKPT_WRITE;
}

static int sto_init(struct gl_ctx *c, const cJSON *cfg, void **state, struct gl_err *err)
{
	struct sto *w = calloc(1, sizeof(*w));
	const cJSON *sp = cJSON_GetObjectItemCaseSensitive(cfg, "spikes"), *e;
	const struct gl_scenario *sc = gl_ctx_scenario(c);
	double max_load = 1;
	const char *eng;

	if (!w)
		return gl_errf(err, GL_ENOMEM, "storage: out of memory");
	*state = w;
	w->ctx = c;
	w->m = gl_ctx_metrics(c);
	w->fio_out = w->fio_err = -1;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	w->pattern = pattern_of(gl_cfg_str(cfg, "pattern", "checkpoint_write"));
	eng = gl_cfg_str(cfg, "engine", "sync");
	w->engine = !strcmp(eng, "aio") ? E_AIO : !strcmp(eng, "fio") ? E_FIO : E_SYNC;
	if (strcmp(eng, "sync") && strcmp(eng, "aio") && strcmp(eng, "fio"))
		return gl_errf(err, GL_EINVAL, "storage: unknown engine '%s' (sync, aio, fio)", eng);
	w->threads = (int)gl_cfg_int(cfg, "threads", gl_cfg_int(cfg, "readers", 1));
	w->iodepth = (int)gl_cfg_int(cfg, "iodepth", 1);
	if (w->iodepth > MAX_DEPTH)
		w->iodepth = MAX_DEPTH;
	w->bs = gl_cfg_size(cfg, "bs", w->pattern == P_DATASET_READ || w->pattern == P_MIXED ? 4096 : 1u << 20);
	w->file_size = gl_cfg_size(cfg, "file_size", 1u << 30);
	w->direct = gl_cfg_bool(cfg, "direct", 1);
	w->verify = gl_cfg_bool(cfg, "verify", 0);
	w->read_pct = (int)gl_cfg_int(cfg, "read_pct", 70);
	w->rate_cap = gl_cfg_size(cfg, "rate_cap", 0);
	w->budget = cJSON_GetObjectItemCaseSensitive(cfg, "limit") ? (int64_t)gl_cfg_size(cfg, "limit", 0) : -1;
	w->load = 1;
	for (int i = 0; i < sc->n_phases; i++)
		if (sc->phases[i].load > max_load)
			max_load = sc->phases[i].load;
	w->max_threads = (int)ceil(w->threads * max_load);
	w->max_bs = w->bs;
	w->n_spikes = cJSON_GetArraySize(sp);
	w->spikes = calloc((size_t)w->n_spikes + 1, sizeof(*w->spikes));
	{
		int i = 0;
		cJSON_ArrayForEach(e, sp) {
			struct spike *s = &w->spikes[i++];
			s->every = gl_cfg_dur(e, "every", 0);
			s->dur = gl_cfg_dur(e, "for", 0);
			s->start = gl_cfg_dur(e, "start", 0);
			s->threads = (int)gl_cfg_int(e, "threads", w->threads);
			s->bs = gl_cfg_size(e, "bs", w->bs);
			if (s->threads > w->max_threads)
				w->max_threads = s->threads;
			if (s->bs > w->max_bs)
				w->max_bs = s->bs;
		}
	}
	w->files = (int)gl_cfg_int(cfg, "files", w->max_threads);
	w->active = w->threads;
	w->cur_bs = w->bs;
	if (w->bs < sizeof(struct blk_hdr) + 8 || w->bs > (256u << 20))
		return gl_errf(err, GL_EINVAL, "storage: bs must be between 64 B and 256 MiB");
	if (w->direct && (w->max_bs % ALIGN || w->file_size % ALIGN || w->bs % ALIGN))
		return gl_errf(err, GL_EINVAL, "storage: direct I/O needs bs and file_size in multiples of 4096 "
			       "(or \"direct\": false)");
	if (w->file_size < w->max_bs)
		return gl_errf(err, GL_EINVAL, "storage: file_size is smaller than bs");
	if (w->engine == E_FIO) {
		const cJSON *args = cJSON_GetObjectItemCaseSensitive(cfg, "fio_args");
		char why[512];
		int n = 0;
		if (!cJSON_IsArray(args) || !cJSON_GetArraySize(args))
			return gl_errf(err, GL_EINVAL, "storage: engine fio needs \"fio_args\" "
				       "([\"--name=w\", \"--rw=write\", \"--bs=1M\", \"--size=1G\", ...])");
		if (fio_args_ok(args, why, sizeof(why)) != 0)
			return gl_errf(err, GL_EINVAL, "storage: %s", why);
		w->fio_argv = calloc((size_t)cJSON_GetArraySize(args) + 8, sizeof(char *));
		w->fio_argv[n++] = strdup(gl_cfg_str(cfg, "fio_path", "fio"));
		w->fio_argv[n++] = strdup("--output-format=json");
		w->fio_argv[n++] = strdup("--status-interval=1");
		w->fio_argv[n++] = NULL;       /* --directory, once the directory exists */
		/* jobs as threads of the one fio process, which dies with the
		 * controller (child.h); job processes would live on */
		w->fio_argv[n++] = strdup("--thread");
		cJSON_ArrayForEach(e, args)
			w->fio_argv[n++] = strdup(e->valuestring);
		w->fio_argc = n;
		w->fio_stream = gl_fio_stream_new(64u << 20);
		gl_buf_init(&w->fio_stderr, 1 << 16);
	}
	{
		/* the reserve: 5% of the filesystem, at least 1 GiB, unless set */
		char root[PATH_MAX], why[512];
		struct statvfs vs;
		uint64_t def = 1u << 30;
		if (check_path(cfg, root, why, sizeof(why)) != 0)
			return gl_errf(err, GL_EINVAL, "storage: %s", why);
		if (statvfs(root, &vs) == 0 && (uint64_t)vs.f_blocks * vs.f_frsize / 20 > def)
			def = (uint64_t)vs.f_blocks * vs.f_frsize / 20;
		w->reserve = gl_cfg_size(cfg, "reserve", def);
		snprintf(w->root, sizeof(w->root), "%s", root);
		if (space_ok(w, root, why, sizeof(why)) != 0)
			return gl_errf(err, GL_EINVAL, "storage: %s", why);
	}
	w->file_gen = calloc((size_t)w->files, sizeof(uint32_t));
	w->file_busy = calloc((size_t)w->files, sizeof(int));
	w->file_bs = calloc((size_t)w->files, sizeof(uint64_t));
	w->wk = calloc((size_t)w->max_threads, sizeof(*w->wk));
	if (!w->file_gen || !w->file_busy || !w->file_bs || !w->wk || !w->spikes)
		return gl_errf(err, GL_ENOMEM, "storage: out of memory");
	w->id_rbytes = gl_metrics_counter(w->m, "storage.read_bytes");
	w->id_wbytes = gl_metrics_counter(w->m, "storage.write_bytes");
	w->id_errors = gl_metrics_counter(w->m, "storage.errors");
	w->id_verified = gl_metrics_counter(w->m, "storage.verified_bytes");
	w->id_lat = gl_metrics_hist(w->m, "storage.op_latency_ms");
	w->id_fsync = gl_metrics_hist(w->m, "storage.fsync_ms");
	for (int i = 0; i < EC_N; i++) {
		char name[64];
		snprintf(name, sizeof(name), "storage.errors.%s", ec_names[i]);
		w->id_class[i] = gl_metrics_counter(w->m, name);
	}
	cgroup_setup(w, gl_cfg_str(cfg, "cgroup", NULL));
	return 0;
}

/* Our directory: made here, or (resume) found with our run's marker. */
static int make_dir(struct sto *w, struct gl_err *err)
{
	char marker[PATH_MAX + 32], *text = NULL;
	size_t len;
	const char *id = gl_ctx_run_id(w->ctx);

	snprintf(w->dir, sizeof(w->dir), "%s/gauntlet-storage-%s", w->root, id[0] ? id : "run");
	snprintf(marker, sizeof(marker), "%s/.gauntlet-storage", w->dir);
	if (mkdir(w->dir, 0700) == 0) {
		w->made_dir = 1;
		return gl_write_file_atomic(marker, id, strlen(id), 0600, err);
	}
	if (errno != EEXIST)
		return gl_errf(err, GL_EIO, "storage: mkdir %s: %s", w->dir, strerror(errno));
	if (gl_read_file(marker, 256, &text, &len, NULL) != 0 || strcmp(text, id)) {
		free(text);
		return gl_errf(err, GL_EINVAL, "storage: %s exists and is not this run's (no matching marker): "
			       "refusing to write there", w->dir);
	}
	free(text);
	w->made_dir = 1;     /* ours, from before a resume */
	return 0;
}

static void on_tick(evutil_socket_t fd, short what, void *arg);

static int sto_start(void *state, struct gl_err *err)
{
	struct sto *w = state;
	struct timeval tv = { 0, 100000 };
	int rc;

	if ((rc = make_dir(w, err)) != 0)
		return rc;
	w->running = 1;
	w->window = gl_ctx_window(w->ctx);
	w->ev_tick = event_new(gl_ctx_base(w->ctx), -1, EV_PERSIST, on_tick, w);
	event_add(w->ev_tick, &tv);
	if (w->engine == E_FIO) {
		char d[PATH_MAX + 16];
		snprintf(d, sizeof(d), "--directory=%s", w->dir);
		w->fio_argv[3] = strdup(d);
		return fio_start(w, err);
	}
	{
		/* does this filesystem take O_DIRECT? */
		char p[PATH_MAX + 16];
		int fd;
		snprintf(p, sizeof(p), "%s/.direct-probe", w->dir);
		fd = open(p, O_CREAT | O_RDWR | O_DIRECT | O_CLOEXEC, 0600);
		w->direct_ok = fd >= 0;
		if (fd >= 0)
			close(fd);
		unlink(p);
		if (w->direct && !w->direct_ok)
			gl_ctx_event(w->ctx, GL_LOG_WARN, "storage", "%s does not take direct I/O: buffered I/O with "
				     "fsync per file instead", w->root);
		if (w->engine == E_AIO && !(w->direct && w->direct_ok)) {
			gl_ctx_event(w->ctx, GL_LOG_WARN, "storage", "engine aio needs direct I/O: using sync");
			w->engine = E_SYNC;
		}
	}
	if (w->pattern != P_CKPT_WRITE)
		gl_ctx_event(w->ctx, GL_LOG_INFO, "storage", "laying out %d file(s) of %.3f GB in %s (not measured)",
			     w->files, w->file_size / 1e9, w->dir);
	for (int i = 0; i < w->max_threads; i++) {
		struct worker *k = &w->wk[i];
		size_t bytes = (size_t)(w->iodepth + 1) * w->max_bs;
		k->w = w;
		k->idx = i;
		k->measure = 1;
		k->rng = 0x9E3779B97F4A7C15ULL * (uint64_t)(i + 1) ^ (uint64_t)gl_now_ns();
		if (!k->rng)
			k->rng = 1;
		if (posix_memalign((void **)&k->buf, ALIGN, bytes) != 0)
			return gl_errf(err, GL_ENOMEM, "storage: out of memory for I/O buffers");
		k->scratch = k->buf + (size_t)w->iodepth * w->max_bs;
		k->fk_file = -1;
		if (w->engine == E_AIO && sys_io_setup((unsigned)w->iodepth, &k->aio) != 0)
			return gl_errf(err, GL_EIO, "storage: io_setup: %s", strerror(errno));
		if (pthread_create(&k->th, NULL, worker_main, k) != 0)
			return gl_errf(err, GL_EIO, "storage: cannot start I/O thread %d", i);
		k->started = 1;
	}
	gl_ctx_event(w->ctx, GL_LOG_INFO, "storage", "%d I/O thread(s) (%d active at load 1), engine %s%s, %s in %s",
		     w->max_threads, w->threads, w->engine == E_AIO ? "aio" : "sync",
		     w->direct && w->direct_ok ? " direct" : " buffered", gl_cfg_str(gl_scenario_workload(
		     gl_ctx_scenario(w->ctx), "storage")->cfg, "pattern", "checkpoint_write"), w->dir);
	return 0;
}

/* Phase load and spikes decide how many workers run and the block size. */
static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct sto *w = arg;
	int64_t scn = (int64_t)((double)gl_ctx_elapsed_ns(w->ctx) * gl_ctx_time_scale(w->ctx));
	int active = (int)lround(w->threads * w->load);
	uint64_t bs = w->bs;

	for (int i = 0; i < w->n_spikes; i++) {
		const struct spike *s = &w->spikes[i];
		if (s->every > 0 && scn >= s->start && (scn - s->start) % s->every < s->dur) {
			if (s->threads > active)
				active = s->threads;
			bs = s->bs;
		}
	}
	if (active < 1)
		active = 1;
	if (active > w->max_threads)
		active = w->max_threads;
	if (active != w->active || bs != w->cur_bs)
		gl_ctx_event(w->ctx, GL_LOG_DEBUG, "storage", "%d active thread(s), bs %" PRIu64, active, bs);
	w->active = active;
	w->cur_bs = bs;
	if (w->notice[0]) {
		pthread_mutex_lock(&w->mu);
		gl_ctx_event(w->ctx, GL_LOG_WARN, "storage", "%s", w->notice);
		w->notice[0] = '\0';
		w->notice_said = 1;
		pthread_mutex_unlock(&w->mu);
	}
	if (w->fio_pid > 0) {
		int st;
		if (waitpid(w->fio_pid, &st, WNOHANG) == w->fio_pid) {
			w->fio_pid = 0;
			gl_ctx_child_ended(w->ctx, w->fio_child_id);
			gl_ctx_event(w->ctx, w->running ? GL_LOG_WARN : GL_LOG_INFO, "storage",
				     "fio ended (%s %d) before the run", WIFEXITED(st) ? "exit" : "signal",
				     WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		}
	}
}

static void sto_set_load(void *state, double mult)
{
	struct sto *w = state;
	w->load = mult > 0 ? mult : 1;
}

/* The loop thread: error details of the window into the store and log. */
static void sto_on_window(void *state)
{
	struct sto *w = state;
	struct gl_store *st = gl_ctx_store(w->ctx);
	struct err_rec errs[ERR_KEEP];
	int n, dropped;
	int64_t counts[EC_N];

	pthread_mutex_lock(&w->mu);
	n = w->n_errs;
	dropped = w->errs_dropped;
	memcpy(errs, w->errs, sizeof(errs[0]) * (size_t)n);
	memcpy(counts, w->err_count, sizeof(counts));
	memset(w->err_count, 0, sizeof(w->err_count));
	w->n_errs = w->errs_dropped = 0;
	w->window = gl_ctx_window(w->ctx) + 1;
	pthread_mutex_unlock(&w->mu);
	if (!n)
		return;
	if (st)
		for (int i = 0; i < n; i++) {
			struct gl_storage_op_row row = { errs[i].window, errs[i].op, errs[i].bytes, 0,
							 ec_names[errs[i].cls] };
			gl_store_storage_op_put(st, &row);
		}
	{
		char list[256] = "";
		size_t off = 0;
		for (int c = 0; c < EC_N; c++)
			if (counts[c])
				off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s %lld", off ? ", " : "",
							ec_names[c], (long long)counts[c]);
		gl_ctx_event(w->ctx, GL_LOG_WARN, "storage", "%d I/O error(s) in the window (%s)%s; first: %s",
			     n + dropped, list, dropped ? ", details of some not kept" : "", errs[0].detail);
	}
}

static void remove_files(struct sto *w)
{
	DIR *d;
	struct dirent *e;
	int n = 0;

	if (!w->made_dir || !w->dir[0])
		return;
	d = opendir(w->dir);
	if (d) {
		/* The directory is ours (made here, mode 0700, with our marker):
		 * every regular file in it was written by this engine or by the
		 * fio it started. Nothing below it is followed. */
		while ((e = readdir(d))) {
			struct stat st;
			if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
			    unlinkat(dirfd(d), e->d_name, 0) == 0)
				n++;
		}
		closedir(d);
	}
	if (rmdir(w->dir) != 0)
		gl_ctx_event(w->ctx, GL_LOG_WARN, "storage", "could not remove %s: %s", w->dir, strerror(errno));
	gl_ctx_event(w->ctx, GL_LOG_INFO, "storage", "removed %d file(s) and %s", n, w->dir);
	w->made_dir = 0;
}

static void sto_stop(void *state)
{
	struct sto *w = state;

	w->running = 0;
	if (w->ev_tick)
		event_del(w->ev_tick);
	for (int i = 0; i < w->max_threads; i++)
		if (w->wk && w->wk[i].started) {
			pthread_join(w->wk[i].th, NULL);
			w->wk[i].started = 0;
		}
	if (w->fio_pid > 0) {
		int64_t deadline = gl_now_ns() + 5000000000LL;
		int st;
		kill(-w->fio_pid, SIGTERM);
		while (waitpid(w->fio_pid, &st, WNOHANG) == 0) {
			if (gl_now_ns() > deadline) {
				kill(-w->fio_pid, SIGKILL);
				waitpid(w->fio_pid, &st, 0);
				break;
			}
			/* the final report comes on SIGTERM */
			on_fio_out(w->fio_out, EV_READ, w);
			sleep_ns(20000000);
		}
		while (w->fio_out >= 0) {
			char buf[65536];
			struct gl_err err = { 0 };
			ssize_t r = read(w->fio_out, buf, sizeof(buf));
			if (r <= 0)
				break;
			gl_fio_stream_feed(w->fio_stream, buf, (size_t)r, on_fio_report, w, &err);
		}
		w->fio_pid = 0;
		gl_ctx_child_ended(w->ctx, w->fio_child_id);
	}
	sto_on_window(w);
	remove_files(w);
}

static void sto_free(void *state)
{
	struct sto *w = state;

	if (!w)
		return;
	for (int i = 0; w->wk && i < w->max_threads; i++) {
		free(w->wk[i].buf);
		if (w->wk[i].aio)
			sys_io_destroy(w->wk[i].aio);
	}
	if (w->cg_made && rmdir(w->cg_dir) != 0)
		gl_warn("storage: could not remove cgroup %s: %s", w->cg_dir, strerror(errno));
	if (w->ev_tick)
		event_free(w->ev_tick);
	if (w->ev_fio_out)
		event_free(w->ev_fio_out);
	if (w->ev_fio_err)
		event_free(w->ev_fio_err);
	if (w->fio_out >= 0)
		close(w->fio_out);
	if (w->fio_err >= 0)
		close(w->fio_err);
	for (int i = 0; w->fio_argv && i < w->fio_argc; i++)
		free(w->fio_argv[i]);
	free(w->fio_argv);
	gl_fio_stream_free(w->fio_stream);
	gl_buf_free(&w->fio_stderr);
	free(w->file_gen);
	free(w->file_busy);
	free(w->file_bs);
	free(w->wk);
	free(w->spikes);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w);
}

static int sto_preflight(struct gl_ctx *c, const cJSON *cfg)
{
	char root[PATH_MAX], why[512];
	int bad = 0, ok;

	ok = check_path(cfg, root, why, sizeof(why)) == 0;
	bad |= gl_ctx_preflight(c, "storage", "path inside an allowed root", ok, ok ? root : why);
	if (ok && strcmp(gl_cfg_str(cfg, "engine", "sync"), "fio")) {
		struct sto t;
		struct statvfs vs;
		uint64_t def = 1u << 30;
		memset(&t, 0, sizeof(t));
		t.files = (int)gl_cfg_int(cfg, "files", gl_cfg_int(cfg, "threads", gl_cfg_int(cfg, "readers", 1)));
		t.file_size = gl_cfg_size(cfg, "file_size", 1u << 30);
		if (statvfs(root, &vs) == 0 && (uint64_t)vs.f_blocks * vs.f_frsize / 20 > def)
			def = (uint64_t)vs.f_blocks * vs.f_frsize / 20;
		t.reserve = gl_cfg_size(cfg, "reserve", def);
		ok = space_ok(&t, root, why, sizeof(why)) == 0;
		bad |= gl_ctx_preflight(c, "storage", "free space for the files and the reserve", ok, why);
	}
	if (!strcmp(gl_cfg_str(cfg, "engine", "sync"), "fio")) {
		const char *fio = gl_cfg_str(cfg, "fio_path", "fio");
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "command -v '%s' >/dev/null 2>&1", fio);
		ok = !strchr(fio, '\'') && system(cmd) == 0;
		bad |= gl_ctx_preflight(c, "storage", "fio found", ok, fio);
	}
	return bad ? -1 : 0;
}

const struct gl_workload_ops gl_workload_storage = {
	.name = "storage",
	.validate = gl_storage_validate,
	.targets = gl_storage_targets,
	.degraded_default = "storage.write_gbps",
	.init = sto_init,
	.start = sto_start,
	.set_load = sto_set_load,
	.on_window = sto_on_window,
	.stop = sto_stop,
	.free = sto_free,
	.preflight = sto_preflight,
};
