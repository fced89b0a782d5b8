/*
 * storage_schema.c - the storage workload's section of a scenario
 * ("workloads.storage"): its keys, pattern and engine, cold_start and
 * spikes. storage.c runs what this accepts.
 */
#include "storage_schema.h"

#include <stdio.h>
#include <string.h>

#include "cfg.h"
#include "opts.h"
#include "plugin.h"
#include "schema.h"

int gl_cold_start_parse(const cJSON *o, struct gl_cold_start *out)
{
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, "readers");
	const cJSON *sz = cJSON_GetObjectItemCaseSensitive(o, "size");
	const cJSON *wi = cJSON_GetObjectItemCaseSensitive(o, "within");

	if (!cJSON_IsNumber(r) || r->valuedouble < 1 || r->valuedouble > 100000 || !cJSON_IsString(sz) ||
	    !cJSON_IsString(wi) || gl_parse_size_bytes(sz->valuestring, &out->bytes_each, NULL) != 0 ||
	    gl_parse_duration_ns(wi->valuestring, &out->within_ns, NULL) != 0 || out->within_ns <= 0)
		return -1;
	out->readers = (int)r->valuedouble;
	out->required_gbps = (double)out->readers * (double)out->bytes_each / 1e9 / ((double)out->within_ns / 1e9);
	return 0;
}

static const char *const storage_patterns[] = { "checkpoint_write", "model_load", "dataset_read", "mixed", NULL };
static const char *const engines[] = { "sync", "aio", "fio", NULL };

#define AT(f) GL_OPT_AT(struct gl_storage_opts, f)

/* the section's keys, in the order an unknown key's message lists them */
static const struct gl_opt section[] = {
	{ "path", GL_OPT_STRING, 1, .len = 1024, .help = "directory the workload makes its own under", AT(path) },
	{ "pattern", GL_OPT_ENUM, .words = storage_patterns, .len = 1024, .def_s = "checkpoint_write",
	  .help = "the I/O the workload makes", AT(pattern) },
	{ "threads", GL_OPT_INT, .lo = 1, .hi = 4096, .def_n = 1, .help = "worker threads (default: readers)",
	  AT(threads) },
	{ "bs", GL_OPT_SIZE, .help = "block size (default: 4KiB reading patterns, 1MiB writing)", AT(bs) },
	{ "file_size", GL_OPT_SIZE, .def_s = "1GiB", .help = "size of each file", AT(file_size) },
	{ "files", GL_OPT_INT, .lo = 1, .hi = 1e6, .help = "files (default: the most threads at once)", AT(files) },
	{ "direct", GL_OPT_BOOL, .def_n = 1, .help = "O_DIRECT where the filesystem takes it", AT(direct) },
	{ "iodepth", GL_OPT_INT, .lo = 1, .hi = 4096, .def_n = 1, .help = "aio: I/Os in flight per thread",
	  AT(iodepth) },
	{ "rate_cap", GL_OPT_SIZE, .help = "bytes a second, all threads together; 0: none", AT(rate_cap) },
	{ "spikes", GL_OPT_CUSTOM, .help = "bursts of more threads or another bs" },
	{ "readers", GL_OPT_INT, .lo = 1, .hi = 4096, .def_n = 1, .help = "threads when threads is not given",
	  AT(readers) },
	{ "engine", GL_OPT_ENUM, .words = engines, .len = 1024, .def_s = "sync", .help = "sync, aio or fio",
	  AT(engine) },
	{ "cgroup", GL_OPT_STRING, .len = 1024, .help = "blkio/io cgroup the I/O runs in", AT(cgroup) },
	{ "reserve", GL_OPT_SIZE, .help = "free space never used (default: 5% of the filesystem, >= 1GiB)",
	  AT(reserve) },
	{ "verify", GL_OPT_BOOL, .help = "check every block read", AT(verify) },
	{ "read_pct", GL_OPT_INT, .lo = 0, .hi = 100, .def_n = 70, .help = "mixed: share of reads", AT(read_pct) },
	{ "allowed_roots", GL_OPT_CUSTOM, .help = "directories the path may lie under" },
	{ "fio_args", GL_OPT_CUSTOM, .help = "engine fio: fio's job arguments" },
	{ "fio_path", GL_OPT_STRING, .len = 1024, .def_s = "fio", .help = "engine fio: the fio binary", AT(fio_path) },
	{ "limit", GL_OPT_SIZE, .help = "bytes of I/O in all; then the workload idles", AT(limit) },
	{ "cold_start", GL_OPT_CUSTOM, .help = "model_load: N readers each load a size within a time" },
	{ "agents", GL_OPT_CUSTOM, .help = "load agents (docs/agents.md)" },
};

const struct gl_opt *gl_storage_options(size_t *n)
{
	*n = GL_ARRAY_LEN(section);
	return section;
}

void gl_storage_opts_read(const cJSON *w, struct gl_storage_opts *o)
{
	gl_opts_fill(w, section, GL_ARRAY_LEN(section), o);
}

/* What storage.c runs a spike with: its threads and bs, else the
 * workload's (threads, or readers, else 1; bs, else the pattern's). */
static long spike_threads(const cJSON *w, const cJSON *sp)
{
	return gl_cfg_int(sp, "threads", gl_cfg_int(w, "threads", gl_cfg_int(w, "readers", 1)));
}

static const char *spike_bs(const cJSON *w, const cJSON *sp)
{
	const char *pat = gl_cfg_str(w, "pattern", "checkpoint_write");
	const char *def = !strcmp(pat, "dataset_read") || !strcmp(pat, "mixed") ? "4KiB" : "1MiB";
	return gl_cfg_str(sp, "bs", gl_cfg_str(w, "bs", def));
}

int gl_storage_spikes(const cJSON *w, struct gl_load_spike *out, int max)
{
	const cJSON *spikes = cJSON_GetObjectItemCaseSensitive(w, "spikes"), *sp;
	int n = 0;

	cJSON_ArrayForEach(sp, spikes)
	{
		if (!cJSON_IsObject(sp))
			continue;
		if (n < max) {
			struct gl_load_spike *o = &out[n];
			o->start_ns = gl_cfg_dur(sp, "start", 0);
			o->every_ns = gl_cfg_dur(sp, "every", 0);
			o->dur_ns = gl_cfg_dur(sp, "for", 0);
			snprintf(o->what, sizeof(o->what), "%ld thread(s), bs %s", spike_threads(w, sp),
				 spike_bs(w, sp));
		}
		n++;
	}
	return n;
}

/* A rate_cap (bytes a second, all threads together) below what a spike asks
 * for hides it: the spike's threads each move at least one block of its bs
 * a second (aio: iodepth blocks in flight) as long as one I/O takes at most
 * a second, so a cap under threads x bs (x iodepth) holds the spike to the
 * cap and it cannot show in the figures. A warning naming both: the
 * scenario may mean it, and it cannot be seen in a report. */
static void spike_vs_cap(const cJSON *w, const cJSON *sp, struct gl_diag *d, const char *path)
{
	const char *cap_s = gl_cfg_str(w, "rate_cap", NULL), *bs_s = spike_bs(w, sp);
	const char *eng = gl_cfg_str(w, "engine", "sync");
	uint64_t cap = 0, bs = 0;
	long threads = spike_threads(w, sp), depth = !strcmp(eng, "aio") ? gl_cfg_int(w, "iodepth", 1) : 1;
	double least;
	char inflight[64];

	if (!cap_s || gl_parse_size_bytes(cap_s, &cap, NULL) != 0 || cap == 0 || !strcmp(eng, "fio") ||
	    gl_parse_size_bytes(bs_s, &bs, NULL) != 0 || threads < 1 || depth < 1)
		return;
	least = (double)threads * (double)depth * (double)bs;
	if (least <= (double)cap)
		return;
	snprintf(inflight, sizeof(inflight), " with %ld I/Os in flight each", depth);
	gl_diag_warn(d, sp, path,
		     "rate_cap %s (a second, all threads together) hides this spike: its %ld thread(s)%s of %s blocks "
		     "ask at least %.4g MiB a second (a block per I/O a second), above the cap, so the spike cannot "
		     "show in the storage figures (raise rate_cap above that, or drop it)",
		     cap_s, threads, depth > 1 ? inflight : "", bs_s, least / 1048576.0);
}

void gl_storage_validate(const struct gl_scenario *s, const cJSON *w, struct gl_diag *d, const char *path)
{
	static const char *const skeys[] = { "every", "for", "threads", "bs", "start", NULL };
	const cJSON *spikes = cJSON_GetObjectItemCaseSensitive(w, "spikes"), *sp;
	char p[512];
	uint64_t sz;
	long l;

	gl_opts_check_keys(d, w, path, section, GL_ARRAY_LEN(section), NULL);
	gl_check_agents(s, d, w, path);
	gl_opts_validate(d, w, path, section, GL_ARRAY_LEN(section));
	{
		const cJSON *cs = cJSON_GetObjectItemCaseSensitive(w, "cold_start");
		static const char *const ckeys[] = { "readers", "size", "within", NULL };
		int64_t ns;
		gl_join(p, sizeof(p), path, "cold_start");
		if (cs && gl_want_object(d, cs, p)) {
			gl_check_keys(d, cs, p, ckeys);
			gl_get_int(d, cs, "readers", p, 1, 1, 100000, &l);
			gl_get_size(d, cs, "size", p, 1, &sz);
			gl_get_duration(d, cs, "within", p, 1, &ns);
			if (strcmp(gl_cfg_str(w, "pattern", "checkpoint_write"), "model_load"))
				gl_diag_error(d, cs, p,
					      "cold_start describes model loads: it needs \"pattern\": \"model_load\"");
		}
	}
	gl_check_string_array(d, w, "allowed_roots", path, 0);
	gl_check_string_array(d, w, "fio_args", path, !strcmp(gl_cfg_str(w, "engine", "sync"), "fio"));
	gl_join(p, sizeof(p), path, "spikes");
	if (spikes) {
		int i = 0;
		if (!cJSON_IsArray(spikes))
			gl_diag_error(d, spikes, p, "expected an array of {\"every\", \"for\", ...}");
		else
			cJSON_ArrayForEach(sp, spikes)
			{
				char spp[600];
				int64_t every = 0, dur = 0, start = 0;
				snprintf(spp, sizeof(spp), "%s[%d]", p, i++);
				if (!gl_want_object(d, sp, spp))
					continue;
				gl_check_keys(d, sp, spp, skeys);
				gl_get_duration(d, sp, "every", spp, 1, &every);
				gl_get_duration(d, sp, "for", spp, 1, &dur);
				/* any start: the first spike at start, then every "every" */
				gl_get_duration(d, sp, "start", spp, 0, &start);
				gl_get_int(d, sp, "threads", spp, 0, 1, 4096, &l);
				gl_get_size(d, sp, "bs", spp, 0, &sz);
				if (every > 0 && dur > every)
					gl_diag_error(d, sp, spp, "a spike's \"for\" is longer than its \"every\"");
				spike_vs_cap(w, sp, d, spp);
			}
	}
}

/* Judged by the write rate of the patterns that write and the read rate
 * of those that read; a cold-start requirement is the read target, unless
 * one is written. */
void gl_storage_targets(const cJSON *w, struct gl_target_need *n)
{
	const cJSON *pat = cJSON_GetObjectItemCaseSensitive(w, "pattern");
	const char *p = cJSON_IsString(pat) ? pat->valuestring : "checkpoint_write";
	const cJSON *cs = cJSON_GetObjectItemCaseSensitive(w, "cold_start");
	struct gl_cold_start c;

	if (!strcmp(p, "checkpoint_write") || !strcmp(p, "mixed"))
		gl_need_require(n, GL_SCOPE_STEADY, "storage.write_gbps", 0, "storage.write_gbps", NULL);
	if (cs && gl_cold_start_parse(cs, &c) == 0 && !gl_need_has(n, GL_SCOPE_STEADY, "storage.read_gbps", 0)) {
		struct gl_target_expr e = { GL_CMP_GE, c.required_gbps };
		char text[64];
		snprintf(text, sizeof(text), ">= %.6g", c.required_gbps);
		gl_need_imply(n, "storage.read_gbps", GL_SCOPE_STEADY, cs, &e, text);
	}
	if (strcmp(p, "checkpoint_write") != 0)
		gl_need_require(n, GL_SCOPE_STEADY, "storage.read_gbps", 0, "storage.read_gbps", NULL);
}
