/*
 * train.c - gauntlet-train's main: arguments, the world check, the step
 * loop, correctness checks, the heartbeat thread and the report lines.
 *
 * Values: rank r fills element i at step s with (r % 64 + 1) * g(s, i),
 * g in 1..64, so the sum over ranks is S * g(s, i) with S = sum of
 * (r % 64 + 1): exact in float for worlds up to several thousand ranks,
 * and one wrong contribution anywhere changes the result.
 *
 * Timing: step_s covers data load, compute and the all-reduce (the fill and
 * the check are harness work and stay out); comm_s is the all-reduce alone;
 * busbw = algbw * 2(n-1)/n with algbw = message bytes / 1e9 / comm_s, as
 * nccl-tests defines it for all-reduce.
 */
#include "train.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <time.h>
#include <unistd.h>

#include "manifest.h"
#include "units.h"
#include "util.h"

static pthread_mutex_t emit_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t stop_requested;
static volatile int hb_stop;

int64_t train_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void train_emit(const char *kind, const char *fmt, ...)
{
	char line[2048];
	int off, k;
	va_list ap;

	off = snprintf(line, sizeof(line), "GLT1 %s ", kind);
	va_start(ap, fmt);
	k = vsnprintf(line + off, sizeof(line) - (size_t)off - 1, fmt, ap);
	va_end(ap);
	if (k < 0)
		k = 0;
	off += k;
	if (off > (int)sizeof(line) - 12)
		off = (int)sizeof(line) - 12;
	/* The launcher forwards our stdout in pieces of its own choosing; a
	 * check value lets the reader drop a line that arrives cut or mixed. */
	off += snprintf(line + off, sizeof(line) - (size_t)off, " ck=%04x", train_line_check(line, (size_t)off));
	line[off++] = '\n';
	pthread_mutex_lock(&emit_lock);
	for (int done = 0; done < off;) {
		ssize_t w = write(1, line + done, (size_t)(off - done));
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += (int)w;
	}
	pthread_mutex_unlock(&emit_lock);
}

/* A message for people: on stderr, prefixed with the rank. */
static void say(const struct train *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct train *t, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gauntlet-train[%d]: ", t ? t->rank : -1);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void on_term(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static const struct train_backend *find_backend(const char *name)
{
	if (!strcmp(name, "mpi"))
		return &train_backend_mpi;
#ifdef GL_HAVE_NCCL
	if (!strcmp(name, "nccl"))
		return &train_backend_nccl;
#endif
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gauntlet-train [options]   (started by mpirun/srun, one process per rank)\n"
		   "  --backend mpi|nccl          all-reduce backend (default mpi)\n"
		   "  --message SIZE              all-reduce message size (default 64MiB)\n"
		   "  --compute DUR               compute time per step (default 0)\n"
		   "  --steps N                   stop after step N (default: until SIGTERM)\n"
		   "  --check-every N             check the reduced values every N steps (default 1, 0 off)\n"
		   "  --heartbeat DUR             per-rank heartbeat period (default 1s)\n"
		   "  --ckpt-dir DIR              checkpoint directory (shared by all ranks)\n"
		   "  --ckpt-size SIZE            checkpoint size, split over the ranks\n"
		   "  --ckpt-every-steps N | --ckpt-every DUR\n"
		   "  --ckpt-keep K               complete checkpoints kept (default 2)\n"
		   "  --ckpt-hash xxh3|sha256     shard hash (default xxh3); restore uses the manifest's\n"
		   "  --restore                   start from the newest verified checkpoint\n"
		   "  --dataset PATH              file or directory read during the data phase\n"
		   "  --data-per-step SIZE        bytes read per rank per step (default 1MiB)\n"
		   "  --expect-world N            fail unless the MPI world has N ranks\n"
		   "  --expect-hosts N            fail unless the ranks run on N distinct hosts\n"
		   "test hooks:\n"
		   "  --inject-corruption STEP:RANK   perturb one value of RANK's buffer at STEP\n"
		   "  --inject-compute-error STEP:RANK  RANK's compute canary answers wrong at STEP\n"
		   "  --kill-in-save STEP:RANK        RANK SIGKILLs itself halfway through its shard at STEP\n");
}

static int parse_pair(const char *s, int64_t *a, int *b)
{
	char *end;
	long long x = strtoll(s, &end, 10);
	long y;

	if (end == s || *end != ':' || x < 1)
		return -1;
	y = strtol(end + 1, &end, 10);
	if (*end || y < 0)
		return -1;
	*a = x;
	*b = (int)y;
	return 0;
}

enum {
	O_BACKEND = 256,
	O_MESSAGE,
	O_COMPUTE,
	O_STEPS,
	O_CHECK,
	O_HB,
	O_CDIR,
	O_CSIZE,
	O_CSTEPS,
	O_CEVERY,
	O_CKEEP,
	O_CHASH,
	O_RESTORE,
	O_DATASET,
	O_DPS,
	O_EWORLD,
	O_EHOSTS,
	O_CORRUPT,
	O_CANARY,
	O_KILLSAVE,
	O_HELP
};
static const struct option long_opts[] = {
	{ "backend", 1, 0, O_BACKEND },
	{ "message", 1, 0, O_MESSAGE },
	{ "compute", 1, 0, O_COMPUTE },
	{ "steps", 1, 0, O_STEPS },
	{ "check-every", 1, 0, O_CHECK },
	{ "heartbeat", 1, 0, O_HB },
	{ "ckpt-dir", 1, 0, O_CDIR },
	{ "ckpt-size", 1, 0, O_CSIZE },
	{ "ckpt-every-steps", 1, 0, O_CSTEPS },
	{ "ckpt-every", 1, 0, O_CEVERY },
	{ "ckpt-keep", 1, 0, O_CKEEP },
	{ "ckpt-hash", 1, 0, O_CHASH },
	{ "restore", 0, 0, O_RESTORE },
	{ "dataset", 1, 0, O_DATASET },
	{ "data-per-step", 1, 0, O_DPS },
	{ "expect-world", 1, 0, O_EWORLD },
	{ "expect-hosts", 1, 0, O_EHOSTS },
	{ "inject-corruption", 1, 0, O_CORRUPT },
	{ "inject-compute-error", 1, 0, O_CANARY },
	{ "kill-in-save", 1, 0, O_KILLSAVE },
	{ "help", 0, 0, O_HELP },
	{ 0, 0, 0, 0 },
};

/* Option c (getopt_long's answer) with its argument arg into t: 0, or -1
 * when it is bad (said). */
static int take_option(struct train *t, int c, char *arg)
{
	struct gl_err err = { 0 };
	char *end = NULL;
	long long v = 0;

	if (c == O_STEPS || c == O_CHECK || c == O_CSTEPS || c == O_CKEEP || c == O_EWORLD || c == O_EHOSTS) {
		v = strtoll(arg, &end, 10);
		if (end == arg || *end || v < 0) {
			say(t, "--%s: expected a whole number >= 0, got '%s'", long_opts[c - 256].name, arg);
			return -1;
		}
	}
	switch (c) {
	case O_BACKEND: t->backend_name = arg; break;
	case O_MESSAGE:
		if (gl_parse_size_bytes(arg, &t->message_bytes, &err) < 0)
			goto bad;
		break;
	case O_COMPUTE:
		if (gl_parse_duration_ns(arg, &t->compute_ns, &err) < 0)
			goto bad;
		break;
	case O_HB:
		if (gl_parse_duration_ns(arg, &t->heartbeat_ns, &err) < 0)
			goto bad;
		break;
	case O_CEVERY:
		if (gl_parse_duration_ns(arg, &t->ckpt_every_ns, &err) < 0)
			goto bad;
		break;
	case O_CSIZE:
		if (gl_parse_size_bytes(arg, &t->ckpt_bytes, &err) < 0)
			goto bad;
		break;
	case O_DPS:
		if (gl_parse_size_bytes(arg, &t->data_per_step, &err) < 0)
			goto bad;
		break;
	case O_STEPS: t->last_step = v; break;
	case O_CHECK: t->check_every = v; break;
	case O_CSTEPS: t->ckpt_every_steps = v; break;
	case O_CKEEP: t->ckpt_keep = (int)v; break;
	case O_EWORLD: t->expect_world = (int)v; break;
	case O_EHOSTS: t->expect_hosts = (int)v; break;
	case O_CDIR: t->ckpt_dir = arg; break;
	case O_CHASH:
		if ((t->ckpt_hash = ckpt_hash_parse(arg)) < 0) {
			say(t, "--ckpt-hash: expected xxh3 or sha256, got '%s'", arg);
			return -1;
		}
		break;
	case O_RESTORE: t->restore = 1; break;
	case O_DATASET: t->dataset = arg; break;
	case O_CORRUPT:
		if (parse_pair(arg, &t->corrupt_step, &t->corrupt_rank) < 0) {
			say(t, "--inject-corruption: expected STEP:RANK, got '%s'", arg);
			return -1;
		}
		break;
	case O_CANARY:
		if (parse_pair(arg, &t->canary_bad_step, &t->canary_bad_rank) < 0) {
			say(t, "--inject-compute-error: expected STEP:RANK, got '%s'", arg);
			return -1;
		}
		break;
	case O_KILLSAVE:
		if (parse_pair(arg, &t->kill_save_step, &t->kill_save_rank) < 0) {
			say(t, "--kill-in-save: expected STEP:RANK, got '%s'", arg);
			return -1;
		}
		break;
	case O_HELP: usage(stdout); exit(0);
	default: usage(stderr); return -1;
	}
	return 0;
bad:
	say(t, "--%s: %s", long_opts[c - 256].name, err.msg);
	return -1;
}

/* What the options must say together. */
static int check_args(const struct train *t)
{
	if (t->message_bytes < 4 || t->message_bytes % 4) {
		say(t, "--message: must be a positive multiple of 4 bytes (float32 elements), got %" PRIu64,
		    t->message_bytes);
		return -1;
	}
	if (t->message_bytes / 4 > 0x7fffffffu) {
		say(t, "--message: at most 8GiB (2^31-1 float32 elements per collective call)");
		return -1;
	}
	if (t->heartbeat_ns < 10000000) {
		say(t, "--heartbeat: at least 10ms");
		return -1;
	}
	if ((t->ckpt_every_steps || t->ckpt_every_ns || t->restore) && (!t->ckpt_dir || !t->ckpt_bytes)) {
		say(t, "checkpoints need --ckpt-dir and --ckpt-size");
		return -1;
	}
	if (t->ckpt_keep < 1) {
		say(t, "--ckpt-keep: at least 1");
		return -1;
	}
	return 0;
}

static int parse_args(struct train *t, int argc, char **argv)
{
	int c;

	while ((c = getopt_long(argc, argv, "", long_opts, NULL)) != -1)
		if (take_option(t, c, optarg) < 0)
			return -1;
	if (optind < argc) {
		say(t, "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	return check_args(t);
}

/* ---- values and checks ---- */

static inline float g_val(int64_t step, size_t i)
{
	return (float)(((uint64_t)step * 31u + i) % 64u + 1u);
}

static void fill(struct train *t, int64_t step)
{
	float f = (float)(t->rank % 64 + 1);

	for (size_t i = 0; i < t->count; i++)
		t->send[i] = f * g_val(step, i);
	if (step == t->corrupt_step && t->rank == t->corrupt_rank)
		t->send[t->count / 2] += 1.0f;
}

/* Values of this rank's own contribution at step that differ from what
 * fill() makes without an injected fault: a rank that computed its part
 * wrongly finds it here, whatever the sum then shows. */
static int64_t check_own(const struct train *t, int64_t step)
{
	float f = (float)(t->rank % 64 + 1);
	int64_t bad = 0;

	for (size_t i = 0; i < t->count; i++)
		if (t->send[i] != f * g_val(step, i))
			bad++;
	return bad;
}

static int64_t check(const struct train *t, int64_t step)
{
	int64_t s = 0, bad = 0;

	for (int r = 0; r < t->world; r++)
		s += r % 64 + 1;
	for (size_t i = 0; i < t->count; i++)
		if (t->recv[i] != (float)s * g_val(step, i))
			bad++;
	return bad;
}

/* The compute canary, at each checked step: float32 multiply-adds on this
 * rank's CPU, in 8 lanes, of small integers that depend on the step, so
 * that every product and partial sum is a whole number below 2^24 and
 * exact: the answer is known in integers. A unit that computes wrongly
 * (silent data corruption in the arithmetic) gives another float. 1 when
 * this rank's answer was wrong, with it and the known one. */
#define CANARY_N 4096
static int canary(const struct train *t, int64_t step, double *got, int64_t *want)
{
	float lane[8] = { 0 }, sum = 0;
	int64_t exact = 0;

	for (int i = 0; i < CANARY_N; i++) {
		int64_t a = (i * 7 + step) % 61 + 1, b = (i * 13 + 3 * step) % 53 + 1;
		lane[i % 8] += (float)a * (float)b;
		exact += a * b;
	}
	for (int k = 0; k < 8; k++)
		sum += lane[k];
	if (step == t->canary_bad_step && t->rank == t->canary_bad_rank)
		sum += 1.0f; /* the test hook */
	*got = sum;
	*want = exact;
	return (double)sum != (double)exact;
}

/* ---- data phase ---- */

struct dataset {
	int fds[64];
	uint64_t sizes[64];
	int n;
	uint64_t total;
	char *buf;
	size_t buf_len;
};

static int dataset_open(struct train *t, struct dataset *ds, char *err, size_t n)
{
	struct stat st;

	memset(ds, 0, sizeof(*ds));
	if (!t->dataset)
		return 0;
	if (stat(t->dataset, &st) < 0) {
		snprintf(err, n, "dataset %s: %s", t->dataset, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		struct dirent **list;
		int k = scandir(t->dataset, &list, NULL, alphasort);
		if (k < 0) {
			snprintf(err, n, "dataset %s: %s", t->dataset, strerror(errno));
			return -1;
		}
		for (int i = 0; i < k; i++) {
			char p[4096];
			struct stat fs;
			snprintf(p, sizeof(p), "%s/%s", t->dataset, list[i]->d_name);
			if (ds->n < 64 && list[i]->d_name[0] != '.' && stat(p, &fs) == 0 && S_ISREG(fs.st_mode) &&
			    fs.st_size > 0) {
				int fd = open(p, O_RDONLY | O_CLOEXEC);
				if (fd >= 0) {
					ds->fds[ds->n] = fd;
					ds->sizes[ds->n++] = (uint64_t)fs.st_size;
					ds->total += (uint64_t)fs.st_size;
				}
			}
			free(list[i]);
		}
		free(list);
	} else if (S_ISREG(st.st_mode) && st.st_size > 0) {
		ds->fds[0] = open(t->dataset, O_RDONLY | O_CLOEXEC);
		if (ds->fds[0] >= 0) {
			ds->sizes[0] = (uint64_t)st.st_size;
			ds->total = ds->sizes[0];
			ds->n = 1;
		}
	}
	if (!ds->n) {
		snprintf(err, n, "dataset %s: no readable non-empty regular file", t->dataset);
		return -1;
	}
	ds->buf_len = 1 << 20;
	ds->buf = malloc(ds->buf_len);
	return ds->buf ? 0 : -1;
}

/* Read data_per_step bytes at a rank- and step-dependent place, wrapping. */
static int dataset_read(struct train *t, struct dataset *ds, int64_t step, char *err, size_t n)
{
	uint64_t want = t->data_per_step, pos;

	if (!ds->n || !want)
		return 0;
	pos = ((uint64_t)step * (uint64_t)t->world + (uint64_t)t->rank) * want % ds->total;
	while (want) {
		int f = 0;
		uint64_t off = pos;
		size_t k;
		ssize_t r;

		while (off >= ds->sizes[f]) {
			off -= ds->sizes[f];
			f++;
		}
		k = ds->buf_len;
		if (k > want)
			k = (size_t)want;
		if (k > ds->sizes[f] - off)
			k = (size_t)(ds->sizes[f] - off);
		r = pread(ds->fds[f], ds->buf, k, (off_t)off);
		if (r <= 0) {
			snprintf(err, n, "dataset read: %s", r < 0 ? strerror(errno) : "unexpected end of file");
			return -1;
		}
		want -= (uint64_t)r;
		pos = (pos + (uint64_t)r) % ds->total;
	}
	return 0;
}

static void dataset_close(struct dataset *ds)
{
	for (int i = 0; i < ds->n; i++)
		close(ds->fds[i]);
	free(ds->buf);
}

/* ---- heartbeat ---- */

static void *heartbeat_main(void *arg)
{
	struct train *t = arg;
	struct timespec slice = { 0, 20000000 };

	while (!hb_stop) {
		int64_t next = train_now_ns() + t->heartbeat_ns;
		train_emit("hb", "rank=%d step=%" PRId64 " host=%s pid=%d", t->rank, t->step, t->host, (int)getpid());
		while (!hb_stop && train_now_ns() < next)
			nanosleep(&slice, NULL);
	}
	return NULL;
}

/* ---- world check ---- */

static int world_check(struct train *t)
{
	char *names = NULL;
	int hosts = 1, ok = 1;
	size_t w = MPI_MAX_PROCESSOR_NAME + 1;
	char list[1024] = "";

	if (t->rank == 0)
		names = calloc((size_t)t->world, w);
	MPI_Gather(t->host, (int)w, MPI_CHAR, names, (int)w, MPI_CHAR, 0, t->comm);
	if (t->rank == 0) {
		size_t off = 0;
		hosts = 0;
		for (int r = 0; r < t->world; r++) {
			int seen = 0;
			for (int q = 0; q < r && !seen; q++)
				seen = !strcmp(names + (size_t)r * w, names + (size_t)q * w);
			if (seen)
				continue;
			hosts++;
			if (off < sizeof(list) - 1)
				off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", off ? "," : "",
							names + (size_t)r * w);
		}
		if (off >= sizeof(list))
			list[sizeof(list) - 1] = '\0';
		train_emit("start", "world=%d hosts=%d backend=%s message=%" PRIu64 " pid=%d names=%s", t->world, hosts,
			   t->be->name, t->message_bytes, (int)getpid(), list);
		if (t->expect_world && t->world != t->expect_world) {
			train_emit("error",
				   "what=world msg=MPI world has %d rank(s), expected %d: the launcher "
				   "did not start one MPI job (separate single-rank jobs? an mpirun of another "
				   "MPI implementation?)",
				   t->world, t->expect_world);
			ok = 0;
		} else if (t->expect_hosts && hosts != t->expect_hosts) {
			train_emit("error", "what=hosts msg=ranks run on %d distinct host(s) (%s), expected %d", hosts,
				   list, t->expect_hosts);
			ok = 0;
		}
		free(names);
	}
	MPI_Bcast(&ok, 1, MPI_INT, 0, t->comm);
	return ok ? 0 : -1;
}

/* ---- main ---- */

static void set_defaults(struct train *t)
{
	memset(t, 0, sizeof(*t));
	t->t0_ns = train_now_ns();
	t->backend_name = "mpi";
	t->message_bytes = 64u << 20;
	t->heartbeat_ns = 1000000000;
	t->check_every = 1;
	t->ckpt_keep = 2;
	t->ckpt_hash = CKPT_HASH_XXH3;
	t->data_per_step = 1u << 20;
	t->corrupt_step = t->kill_save_step = t->canary_bad_step = -1;
	t->rank = -1;
}

/* MPI started: this rank, the world, the host and the rank on it */
static void mpi_start(struct train *t, int *argc, char ***argv)
{
	MPI_Comm local;
	int provided, len = 0;

#ifdef __linux__
	/* A rank dies with the process that started it (mpirun, orted,
	 * slurmstepd): a launcher SIGKILLed with its controller must not leave
	 * ranks stepping and writing checkpoints nobody records. One whose
	 * parent is gone already fails MPI_Init, which needs that parent. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
	MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
	t->comm = MPI_COMM_WORLD;
	MPI_Comm_rank(t->comm, &t->rank);
	MPI_Comm_size(t->comm, &t->world);
	MPI_Get_processor_name(t->host, &len);
	t->host[len] = '\0';
	for (char *p = t->host; *p; p++)
		if (*p == ' ' || *p == '=' || *p == ',')
			*p = '_';
	MPI_Comm_split_type(t->comm, MPI_COMM_TYPE_SHARED, t->rank, MPI_INFO_NULL, &local);
	MPI_Comm_rank(local, &t->local_rank);
	MPI_Comm_free(&local);
}

/* the allreduce's send and receive buffers; without them the job aborts */
static void alloc_buffers(struct train *t)
{
	t->count = (size_t)(t->message_bytes / 4);
	t->send = malloc(t->count * sizeof(float));
	t->recv = malloc(t->count * sizeof(float));
	if (!t->send || !t->recv) {
		say(t, "cannot allocate 2 x %" PRIu64 " bytes", t->message_bytes);
		MPI_Abort(t->comm, TRAIN_EXIT_RUNTIME);
	}
}

/* SIGTERM and SIGINT end the run after the step under way */
static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
}

/* 1 when ok holds on every rank */
static int on_all_ranks(const struct train *t, int ok)
{
	int all;

	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, t->comm);
	return all;
}

enum step_end { STEP_NEXT, STEP_LAST, STEP_DEVICE, STEP_FAILED };

/* This rank's "rank" line: its own work and its wait in the all-reduce
 * since the last one. A straggler shows long compute and short wait; the
 * ranks it holds back, the opposite. */
static void emit_rank(struct train *t)
{
	if (t->acc_steps > 0)
		train_emit("rank", "rank=%d host=%s steps=%" PRId64 " compute_s=%.9f wait_s=%.9f max_compute_s=%.9f",
			   t->rank, t->host, t->acc_steps, t->acc_compute_s, t->acc_wait_s, t->acc_max_compute_s);
	t->acc_steps = 0;
	t->acc_compute_s = t->acc_wait_s = t->acc_max_compute_s = 0;
	t->acc_since_ns = train_now_ns();
}

/* A checked step whose sum was wrong somewhere: each rank checks what it
 * contributed and names itself when that was wrong; when none did, the
 * reduction itself (transport, a device's reduce) is named by rank 0. */
static void attribute_errors(struct train *t, int64_t step)
{
	int64_t own = check_own(t, step), owners = 0, mine = own > 0;

	if (own > 0)
		train_emit("sdc", "step=%" PRId64 " rank=%d host=%s mismatches=%" PRId64 " what=contribution", step,
			   t->rank, t->host, own);
	MPI_Allreduce(&mine, &owners, 1, MPI_INT64_T, MPI_SUM, t->comm);
	if (owners == 0 && t->rank == 0)
		train_emit("sdc", "step=%" PRId64 " rank=-1 host=- mismatches=0 what=reduce", step);
}

/* One step: its data, compute and allreduce, the check when due, the
 * control collective, its line, and a checkpoint when due. */
static enum step_end train_step(struct train *t, struct dataset *ds, int64_t *last_ckpt_ns, int *filled, char *err,
				size_t n)
{
	int64_t step = t->step + 1, t_begin, t_data, t_comp, t_comm, errors = 0;
	int64_t ctl[3], all[3];
	int checking = t->check_every &&
		       (step % t->check_every == 0 || step == t->corrupt_step || step == t->canary_bad_step);
	double comm_s, algbw, busbw;

	if (t->last_step && step > t->last_step)
		return STEP_LAST;
	if (checking || !*filled) { /* unchecked steps reuse the last fill */
		fill(t, step);
		if (t->be->load(t, err, n) < 0)
			return STEP_DEVICE;
		*filled = 1;
	}
	t_begin = train_now_ns();
	if (dataset_read(t, ds, step, err, n) < 0) {
		train_emit("error", "what=dataset rank=%d msg=%s", t->rank, err);
		return STEP_FAILED;
	}
	t_data = train_now_ns();
	if (t->compute_ns && t->be->compute(t, t->compute_ns, err, n) < 0)
		return STEP_DEVICE;
	t_comp = train_now_ns();
	if (t->be->allreduce(t, err, n) < 0)
		return STEP_DEVICE;
	t_comm = train_now_ns();
	if (checking) {
		double got;
		int64_t want;
		if (t->be->fetch(t, err, n) < 0)
			return STEP_DEVICE;
		errors = check(t, step);
		if (canary(t, step, &got, &want))
			train_emit("sdc",
				   "step=%" PRId64 " rank=%d host=%s mismatches=1 what=compute got=%.1f want=%" PRId64,
				   step, t->rank, t->host, got, want);
	}

	/* One small collective per step: errors summed over ranks; rank 0
	 * decides on a checkpoint and on stopping, so all ranks agree. */
	ctl[0] = errors;
	ctl[1] = t->rank == 0 && t->ckpt_every_ns && train_now_ns() - *last_ckpt_ns >= t->ckpt_every_ns;
	ctl[2] = stop_requested ? 1 : 0;
	MPI_Allreduce(ctl, all, 3, MPI_INT64_T, MPI_SUM, t->comm);
	t->step = step;

	if (checking && all[0] > 0)
		attribute_errors(t, step);

	comm_s = (t_comm - t_comp) / 1e9;
	t->acc_steps++;
	t->acc_compute_s += (t_comp - t_begin) / 1e9;
	t->acc_wait_s += comm_s;
	if ((t_comp - t_begin) / 1e9 > t->acc_max_compute_s)
		t->acc_max_compute_s = (t_comp - t_begin) / 1e9;
	if (train_now_ns() - t->acc_since_ns >= t->heartbeat_ns)
		emit_rank(t);
	algbw = comm_s > 0 ? (double)t->message_bytes / 1e9 / comm_s : 0;
	busbw = t->world > 1 ? algbw * 2.0 * (t->world - 1) / t->world : 0;
	if (t->rank == 0)
		train_emit("step",
			   "n=%" PRId64 " step_s=%.9f data_s=%.9f compute_s=%.9f comm_s=%.9f "
			   "algbw=%.6f busbw=%.6f errors=%" PRId64 " checked=%d",
			   step, (t_comm - t_begin) / 1e9, (t_data - t_begin) / 1e9, (t_comp - t_data) / 1e9, comm_s,
			   algbw, busbw, all[0], checking);
	if ((t->ckpt_every_steps && step % t->ckpt_every_steps == 0) || all[1]) {
		if (train_ckpt_save(t, step, err, n) < 0) {
			train_emit("error", "what=checkpoint rank=%d step=%" PRId64 " msg=%s", t->rank, step, err);
			return STEP_FAILED;
		}
		*last_ckpt_ns = train_now_ns();
	}
	return all[2] ? STEP_LAST : STEP_NEXT;
}

int main(int argc, char **argv)
{
	struct train t;
	struct dataset ds;
	pthread_t hb;
	char err[1024] = "";
	int rc = TRAIN_EXIT_OK, filled = 0, hb_started = 0, ok;
	int64_t last_ckpt_ns, restored = 0, restore_t0;
	enum step_end e;

	set_defaults(&t);
	mpi_start(&t, &argc, &argv);
	if (parse_args(&t, argc, argv) < 0) {
		MPI_Finalize();
		return TRAIN_EXIT_USAGE;
	}
	if (!(t.be = find_backend(t.backend_name))) {
		if (t.rank == 0)
			train_emit("error", "what=backend msg=backend '%s' is not built into this gauntlet-train%s",
				   t.backend_name,
				   strcmp(t.backend_name, "nccl") ? " (mpi or nccl)"
								  : " (CUDA/NCCL were not found when it was built)");
		MPI_Finalize();
		return TRAIN_EXIT_NO_DEVICE;
	}
	catch_signals();
	if (world_check(&t) < 0) {
		MPI_Finalize();
		return TRAIN_EXIT_WORLD;
	}

	alloc_buffers(&t);
	ok = t.be->init(&t, err, sizeof(err)) == 0;
	if (!ok)
		train_emit("error", "what=backend rank=%d host=%s msg=%s", t.rank, t.host, err);
	if (!on_all_ranks(&t, ok)) {
		MPI_Finalize();
		return TRAIN_EXIT_NO_DEVICE;
	}
	ok = dataset_open(&t, &ds, err, sizeof(err)) == 0;
	if (!ok)
		train_emit("error", "what=dataset rank=%d msg=%s", t.rank, err);
	if (!on_all_ranks(&t, ok)) {
		rc = TRAIN_EXIT_RUNTIME;
		goto out;
	}

	if (pthread_create(&hb, NULL, heartbeat_main, &t) == 0)
		hb_started = 1;

	restore_t0 = train_now_ns();
	if (t.restore) {
		if (train_ckpt_restore(&t, &restored, err, sizeof(err)) < 0) {
			train_emit("error", "what=restore rank=%d msg=%s", t.rank, err);
			rc = TRAIN_EXIT_RUNTIME;
			goto out;
		}
		t.step = restored;
	}
	if (t.rank == 0)
		train_emit("ready", "step=%" PRId64 " restored=%d load_s=%.6f since_start_s=%.6f", restored, t.restore,
			   (train_now_ns() - restore_t0) / 1e9, (train_now_ns() - t.t0_ns) / 1e9);

	last_ckpt_ns = t.acc_since_ns = train_now_ns();
	while ((e = train_step(&t, &ds, &last_ckpt_ns, &filled, err, sizeof(err))) == STEP_NEXT)
		;
	emit_rank(&t);
	if (e == STEP_DEVICE)
		goto device_error;
	if (e == STEP_FAILED) {
		rc = TRAIN_EXIT_RUNTIME;
		goto out;
	}
	if (t.rank == 0)
		train_emit("end", "steps=%" PRId64 " stopped=%d", t.step, (int)stop_requested);
	goto out;

device_error:
	train_emit("error", "what=device rank=%d host=%s msg=%s", t.rank, t.host, err);
	hb_stop = 1;
	if (hb_started)
		pthread_join(hb, NULL);
	t.be->fini(&t);
	MPI_Abort(t.comm, TRAIN_EXIT_RUNTIME);
	return TRAIN_EXIT_RUNTIME;
out:
	hb_stop = 1;
	if (hb_started)
		pthread_join(hb, NULL);
	dataset_close(&ds);
	t.be->fini(&t);
	free(t.send);
	free(t.recv);
	MPI_Finalize();
	return rc;
}
