/*
 * storage_schema.c - the storage workload's section of a scenario
 * ("workloads.storage"): its keys, pattern and engine, cold_start and
 * spikes. storage.c runs what this accepts.
 */
#include "storage_schema.h"

#include <stdio.h>
#include <string.h>

#include "cfg.h"
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

static const char *const storage_patterns[] = { "checkpoint_write", "model_load", "dataset_read",
						 "mixed", NULL };

void gl_storage_validate(const struct gl_scenario *s, const cJSON *w, struct gl_diag *d, const char *path)
{
	static const char *const keys[] = { "path", "pattern", "threads", "bs", "file_size", "files",
					    "direct", "iodepth", "rate_cap", "spikes", "readers",
					    "engine", "cgroup", "reserve", "verify", "read_pct",
					    "allowed_roots", "fio_args", "fio_path", "limit", "cold_start",
					    "agents", NULL };
	static const char *const engines[] = { "sync", "aio", "fio", NULL };
	static const char *const skeys[] = { "every", "for", "threads", "bs", "start", NULL };
	const cJSON *spikes = cJSON_GetObjectItemCaseSensitive(w, "spikes"), *sp;
	char buf[1024], p[512];
	uint64_t sz;
	long l;
	int b;

	gl_check_keys(d, w, path, keys);
	gl_check_agents(s, d, w, path);
	gl_get_string(d, w, "path", path, 1, buf, sizeof(buf));
	gl_get_enum(d, w, "pattern", path, 0, storage_patterns, buf, sizeof(buf));
	gl_get_enum(d, w, "engine", path, 0, engines, buf, sizeof(buf));
	gl_get_string(d, w, "cgroup", path, 0, buf, sizeof(buf));
	gl_get_string(d, w, "fio_path", path, 0, buf, sizeof(buf));
	gl_get_size(d, w, "reserve", path, 0, &sz);
	gl_get_size(d, w, "limit", path, 0, &sz);
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
				gl_diag_error(d, cs, p, "cold_start describes model loads: it needs \"pattern\": \"model_load\"");
		}
	}
	gl_get_bool(d, w, "verify", path, &b);
	gl_get_int(d, w, "read_pct", path, 0, 0, 100, &l);
	gl_check_string_array(d, w, "allowed_roots", path, 0);
	gl_check_string_array(d, w, "fio_args", path, !strcmp(gl_cfg_str(w, "engine", "sync"), "fio"));
	gl_get_int(d, w, "threads", path, 0, 1, 4096, &l);
	gl_get_int(d, w, "readers", path, 0, 1, 4096, &l);
	gl_get_int(d, w, "iodepth", path, 0, 1, 4096, &l);
	gl_get_int(d, w, "files", path, 0, 1, 1000000, &l);
	gl_get_size(d, w, "bs", path, 0, &sz);
	gl_get_size(d, w, "file_size", path, 0, &sz);
	gl_get_size(d, w, "rate_cap", path, 0, &sz);
	gl_get_bool(d, w, "direct", path, &b);
	gl_join(p, sizeof(p), path, "spikes");
	if (spikes) {
		int i = 0;
		if (!cJSON_IsArray(spikes))
			gl_diag_error(d, spikes, p, "expected an array of {\"every\", \"for\", ...}");
		else
			cJSON_ArrayForEach(sp, spikes) {
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
