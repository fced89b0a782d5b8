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
 *
 * This file: safety checks, cgroup setup and the workload's ops; the I/O
 * engine is in storage_engine.c, fio as the engine in storage_fio.c
 * (storage_int.h).
 */
#include "storage_int.h"
#include "storage_schema.h"

static const char *const ec_names[EC_N] = { "enospc", "edquot",  "eio",    "vanished", "rofs",
					    "perm",   "reserve", "verify", "other" };

/* ---- safety ---------------------------------------------------------------------------- */

static const char *const default_roots[] = { "/mnt",     "/data",   "/scratch", "/srv",  "/tmp",
					     "/var/tmp", "/lustre", "/gpfs",    "/home", NULL };

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
		snprintf(why, n,
			 "storage path %s is not a directory (the engine never writes to devices or "
			 "existing files)",
			 resolved);
		return -1;
	}
	if (roots) {
		cJSON_ArrayForEach(r, roots)
		{
			char rr[PATH_MAX];
			if (cJSON_IsString(r) && realpath(r->valuestring, rr) && strcmp(rr, "/") &&
			    gl_path_under(resolved, rr))
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
		snprintf(why, n,
			 "storage path %s (resolved) is outside the allowed roots (%s); name the root in "
			 "\"allowed_roots\" if it is meant",
			 resolved,
			 roots ? "the scenario's allowed_roots"
			       : "/mnt /data /scratch /srv /tmp /var/tmp /lustre /gpfs /home");
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
		snprintf(why, n,
			 "%s has %.3f GB free; the workload needs %.3f GB (files x file_size) plus a reserve "
			 "of %.3f GB that it never uses",
			 root, free_b / 1e9, need / 1e9, w->reserve / 1e9);
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
			gl_ctx_event(w->ctx, GL_LOG_WARN, "storage",
				     "cgroup v2: I/O throttling applies to whole "
				     "processes and the built-in engine runs as threads of the controller; use "
				     "\"engine\": \"fio\" to run storage I/O inside %s",
				     w->cg_dir);
		return;
	} else {
		gl_ctx_event(w->ctx, GL_LOG_WARN, "storage",
			     "no blkio (v1) or unified (v2) cgroup hierarchy: "
			     "\"cgroup\": \"%s\" is ignored",
			     cg);
		return;
	}
	if (mkdir(w->cg_dir, 0755) == 0)
		w->cg_made = 1;
	else if (errno != EEXIST)
		gl_ctx_event(w->ctx, GL_LOG_WARN, "storage", "cannot create cgroup %s: %s", w->cg_dir, strerror(errno));
}

/* ---- ops ------------------------------------------------------------------------------- */

/* The options: the table's, then the defaults that hang on other keys. */
static int apply_opts(struct sto *w, const cJSON *cfg, const struct gl_storage_opts *o, struct gl_err *err)
{
	w->pattern = o->pattern >= 0 ? (enum pattern)o->pattern : P_CKPT_WRITE;
	if (o->engine < 0)
		return gl_errf(err, GL_EINVAL, "storage: unknown engine '%s' (sync, aio, fio)",
			       gl_cfg_str(cfg, "engine", ""));
	w->engine = (enum engine)o->engine;
	w->threads = cJSON_GetObjectItemCaseSensitive(cfg, "threads") ? o->threads : o->readers;
	w->iodepth = o->iodepth > MAX_DEPTH ? MAX_DEPTH : o->iodepth;
	if (cJSON_GetObjectItemCaseSensitive(cfg, "bs"))
		w->bs = o->bs;
	else
		w->bs = w->pattern == P_DATASET_READ || w->pattern == P_MIXED ? 4096 : 1u << 20;
	w->file_size = o->file_size;
	w->direct = o->direct;
	w->verify = o->verify;
	w->read_pct = o->read_pct;
	w->rate_cap = o->rate_cap;
	w->budget = cJSON_GetObjectItemCaseSensitive(cfg, "limit") ? (int64_t)o->limit : -1;
	return 0;
}

/* "spikes", and the most threads and the largest bs the run will use */
static void read_spikes(struct sto *w, const cJSON *cfg)
{
	const cJSON *sp = cJSON_GetObjectItemCaseSensitive(cfg, "spikes"), *e;
	const struct gl_scenario *sc = gl_ctx_scenario(w->ctx);
	double max_load = 1;
	int i = 0;

	for (int p = 0; p < sc->n_phases; p++)
		if (sc->phases[p].load > max_load)
			max_load = sc->phases[p].load;
	w->max_threads = (int)ceil(w->threads * max_load);
	w->max_bs = w->bs;
	w->n_spikes = cJSON_GetArraySize(sp);
	w->spikes = calloc((size_t)w->n_spikes + 1, sizeof(*w->spikes));
	cJSON_ArrayForEach(e, sp)
	{
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

static int check_sizes(const struct sto *w, struct gl_err *err)
{
	if (w->bs < sizeof(struct blk_hdr) + 8 || w->bs > (256u << 20))
		return gl_errf(err, GL_EINVAL, "storage: bs must be between 64 B and 256 MiB");
	if (w->direct && (w->max_bs % ALIGN || w->file_size % ALIGN || w->bs % ALIGN))
		return gl_errf(err, GL_EINVAL,
			       "storage: direct I/O needs bs and file_size in multiples of 4096 "
			       "(or \"direct\": false)");
	if (w->file_size < w->max_bs)
		return gl_errf(err, GL_EINVAL, "storage: file_size is smaller than bs");
	return 0;
}

/* engine fio: its command line, fio_args checked */
static int fio_setup(struct sto *w, const cJSON *cfg, const struct gl_storage_opts *o, struct gl_err *err)
{
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(cfg, "fio_args"), *e;
	char why[512];
	int n = 0;

	if (!cJSON_IsArray(args) || !cJSON_GetArraySize(args))
		return gl_errf(err, GL_EINVAL,
			       "storage: engine fio needs \"fio_args\" "
			       "([\"--name=w\", \"--rw=write\", \"--bs=1M\", \"--size=1G\", ...])");
	if (st_fio_args_ok(args, why, sizeof(why)) != 0)
		return gl_errf(err, GL_EINVAL, "storage: %s", why);
	w->fio_argv = calloc((size_t)cJSON_GetArraySize(args) + 8, sizeof(char *));
	w->fio_argv[n++] = strdup(o->fio_path);
	w->fio_argv[n++] = strdup("--output-format=json");
	w->fio_argv[n++] = strdup("--status-interval=1");
	w->fio_argv[n++] = NULL; /* --directory, once the directory exists */
	/* jobs as threads of the one fio process, which dies with the
	 * controller (child.h); job processes would live on */
	w->fio_argv[n++] = strdup("--thread");
	cJSON_ArrayForEach(e, args) w->fio_argv[n++] = strdup(e->valuestring);
	w->fio_argc = n;
	w->fio_stream = gl_fio_stream_new(64u << 20);
	gl_buf_init(&w->fio_stderr, 1 << 16);
	return 0;
}

/* The path inside the allowed roots, and room for the files and the
 * reserve: 5% of the filesystem, at least 1 GiB, unless set. */
static int check_room(struct sto *w, const cJSON *cfg, const struct gl_storage_opts *o, struct gl_err *err)
{
	char root[PATH_MAX], why[512];
	struct statvfs vs;
	uint64_t def = 1u << 30;

	if (check_path(cfg, root, why, sizeof(why)) != 0)
		return gl_errf(err, GL_EINVAL, "storage: %s", why);
	if (statvfs(root, &vs) == 0 && (uint64_t)vs.f_blocks * vs.f_frsize / 20 > def)
		def = (uint64_t)vs.f_blocks * vs.f_frsize / 20;
	w->reserve = cJSON_GetObjectItemCaseSensitive(cfg, "reserve") ? o->reserve : def;
	snprintf(w->root, sizeof(w->root), "%s", root);
	if (space_ok(w, root, why, sizeof(why)) != 0)
		return gl_errf(err, GL_EINVAL, "storage: %s", why);
	return 0;
}

static void register_metrics(struct sto *w)
{
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
}

static int sto_init(struct gl_ctx *c, const cJSON *cfg, void **state, struct gl_err *err)
{
	struct sto *w = calloc(1, sizeof(*w));
	struct gl_storage_opts o;
	int rc;

	if (!w)
		return gl_errf(err, GL_ENOMEM, "storage: out of memory");
	*state = w;
	w->ctx = c;
	w->m = gl_ctx_metrics(c);
	w->fio_out = w->fio_err = -1;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	gl_storage_opts_read(cfg, &o);
	if ((rc = apply_opts(w, cfg, &o, err)) != 0)
		return rc;
	w->load = 1;
	read_spikes(w, cfg);
	w->files = cJSON_GetObjectItemCaseSensitive(cfg, "files") ? o.files : w->max_threads;
	w->active = w->threads;
	w->cur_bs = w->bs;
	if ((rc = check_sizes(w, err)) != 0 || (w->engine == E_FIO && (rc = fio_setup(w, cfg, &o, err)) != 0) ||
	    (rc = check_room(w, cfg, &o, err)) != 0)
		return rc;
	w->file_gen = calloc((size_t)w->files, sizeof(uint32_t));
	w->file_busy = calloc((size_t)w->files, sizeof(int));
	w->file_bs = calloc((size_t)w->files, sizeof(uint64_t));
	w->wk = calloc((size_t)w->max_threads, sizeof(*w->wk));
	if (!w->file_gen || !w->file_busy || !w->file_bs || !w->wk || !w->spikes)
		return gl_errf(err, GL_ENOMEM, "storage: out of memory");
	register_metrics(w);
	cgroup_setup(w, o.cgroup);
	return 0;
}

/* Our directory: made here, or (resume) found with our run's marker. */
static int make_dir(struct sto *w, struct gl_err *err)
{
	char marker[PATH_MAX + 32], *text = NULL;
	size_t len;
	const char *id = gl_ctx_run_id(w->ctx);

	int shard, shards;
	int64_t origin;

	/* with load agents, each has a directory of its own: two on one
	 * host (or one shared filesystem) never touch each other's files */
	gl_ctx_shard(w->ctx, &shard, &shards, &origin);
	if (shards > 1)
		snprintf(w->dir, sizeof(w->dir), "%s/gauntlet-storage-%s-agent%d", w->root, id[0] ? id : "run", shard);
	else
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
		return gl_errf(err, GL_EINVAL,
			       "storage: %s exists and is not this run's (no matching marker): "
			       "refusing to write there",
			       w->dir);
	}
	free(text);
	w->made_dir = 1; /* ours, from before a resume */
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
		return st_fio_start(w, err);
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
			gl_ctx_event(w->ctx, GL_LOG_WARN, "storage",
				     "%s does not take direct I/O: buffered I/O with "
				     "fsync per file instead",
				     w->root);
		if (w->engine == E_AIO && !(w->direct && w->direct_ok)) {
			gl_ctx_event(w->ctx, GL_LOG_WARN, "storage", "engine aio needs direct I/O: using sync");
			w->engine = E_SYNC;
		}
	}
	if (w->pattern != P_CKPT_WRITE)
		gl_ctx_event(w->ctx, GL_LOG_INFO, "storage", "laying out %d file(s) of %.3f GB in %s (not measured)",
			     w->files, w->file_size / 1e9, w->dir);
	w->tally_ns = gl_ctx_elapsed_ns(w->ctx);
	w->tally_on = 1;
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
		if (w->engine == E_AIO && st_sys_io_setup((unsigned)w->iodepth, &k->aio) != 0)
			return gl_errf(err, GL_EIO, "storage: io_setup: %s", strerror(errno));
		if (pthread_create(&k->th, NULL, st_worker_main, k) != 0)
			return gl_errf(err, GL_EIO, "storage: cannot start I/O thread %d", i);
		k->started = 1;
	}
	gl_ctx_event(w->ctx, GL_LOG_INFO, "storage", "%d I/O thread(s) (%d active at load 1), engine %s%s, %s in %s",
		     w->max_threads, w->threads, w->engine == E_AIO ? "aio" : "sync",
		     w->direct && w->direct_ok ? " direct" : " buffered",
		     gl_cfg_str(gl_scenario_workload(gl_ctx_scenario(w->ctx), "storage")->cfg, "pattern",
				"checkpoint_write"),
		     w->dir);
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

/* The loop thread: the window's per-host figures (storage_nodes.c), and
 * its error details into the store and log. */
static void sto_on_window(void *state)
{
	struct sto *w = state;
	struct gl_store *st = gl_ctx_store(w->ctx);
	struct err_rec errs[ERR_KEEP];
	int n, dropped;
	int64_t counts[EC_N];

	st_node_window(w);
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
			st_on_fio_out(w->fio_out, EV_READ, w);
			gl_sleep_ns(20000000);
		}
		while (w->fio_out >= 0) {
			char buf[65536];
			struct gl_err err = { 0 };
			ssize_t r = read(w->fio_out, buf, sizeof(buf));
			if (r <= 0)
				break;
			gl_fio_stream_feed(w->fio_stream, buf, (size_t)r, st_on_fio_report, w, &err);
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
			st_sys_io_destroy(w->wk[i].aio);
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

static const struct gl_workload_ops gl_workload_storage = {
	.name = "storage",
	.validate = gl_storage_validate,
	.targets = gl_storage_targets,
	.degraded_default = "storage.write_gbps",
	.incidents = gl_storage_incidents,
	.floor_read = "storage.read_gbps",
	.floor_write = "storage.write_gbps",
	.live_figures = gl_storage_live_figures,
	.sim = &gl_storage_sim,
	.spikes = gl_storage_spikes,
	.init = sto_init,
	.start = sto_start,
	.set_load = sto_set_load,
	.on_window = sto_on_window,
	.stop = sto_stop,
	.free = sto_free,
	.preflight = sto_preflight,
	.figures = &gl_storage_figures,
};
GL_REGISTER_WORKLOAD(gl_workload_storage, 30)
