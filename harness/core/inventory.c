/*
 * inventory.c - the run's inventory (inventory.h): the scenario's git
 * provenance through libgit2, and each host's kernel, GPU, driver, CUDA,
 * InfiniBand firmware, NCCL and MPI versions through the host's transport.
 *
 * Each figure comes from one command on the host, run as argv (a small
 * POSIX sh script where a fallback path is needed), with a deadline. Output
 * is parsed strictly; what does not parse is reported unavailable with the
 * first line of what the host said, never filled in. Exit status 127 is
 * "not found" for both transports (execvp in local, the shell in ssh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "images.h"
#include "inventory.h"
#include "paths.h"
#include "plugin.h"
#include "sha256.h"

struct inv {
	int64_t end_ns; /* the whole collection's deadline */
	int64_t budget_ms;
};

static cJSON *unavailable(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static cJSON *unavailable(const char *fmt, ...)
{
	cJSON *o = cJSON_CreateObject();
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	cJSON_AddStringToObject(o, "status", "unavailable");
	cJSON_AddStringToObject(o, "why", why);
	return o;
}

static cJSON *measured(cJSON *value, const char *command)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "value", value);
	cJSON_AddStringToObject(o, "source", "measured");
	cJSON_AddStringToObject(o, "command", command);
	return o;
}

/* Printable ASCII of s[0..n) up to the first newline into out: host output
 * goes into JSON that must stay valid UTF-8 whatever the host printed. */
static void clean(const char *s, size_t n, char *out, size_t outn)
{
	size_t k = 0;

	while (n && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
		s++, n--;
	for (size_t i = 0; i < n && k + 1 < outn && s[i] != '\n' && s[i] != '\r'; i++)
		out[k++] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	while (k && out[k - 1] == ' ')
		k--;
	out[k] = '\0';
}

static void first_line(const struct gl_exec_result *r, char *out, size_t n)
{
	if (r->out.data && r->out.len)
		clean(r->out.data, r->out.len, out, n);
	else
		snprintf(out, n, "(no output)");
}

/* Run argv on h within the per-command and the overall deadline. Returns
 * 0 when it ran and exited 0; else sets *why to the unavailable record. */
static int run(struct inv *iv, const struct gl_host *h, const char *const *argv, const char *tool,
	       struct gl_exec_result *res, cJSON **why)
{
	int64_t left_ms = (iv->end_ns - gl_now_ns()) / 1000000;
	int64_t dl = left_ms < GL_INVENTORY_CMD_MS ? left_ms : GL_INVENTORY_CMD_MS;
	struct gl_err err = { 0 };
	char line[200];

	gl_buf_init(&res->out, 1); /* freeable whatever happens below */
	if (dl < 100) {
		*why = unavailable("not collected: the inventory's time budget of %lld s was spent",
				   (long long)iv->budget_ms / 1000);
		return -1;
	}
	if (gl_host_exec(h, argv, dl, res, &err) != 0) {
		*why = unavailable("%s", err.msg);
		return -1;
	}
	if (res->exit_status == 127) {
		*why = unavailable("%s not found on the host", tool);
		return -1;
	}
	if (res->exit_status != 0) {
		first_line(res, line, sizeof(line));
		*why = unavailable("%s exited %d: %s", tool, res->exit_status, line);
		return -1;
	}
	return 0;
}

/* Iterate lines of r's output: *pos is the cursor; returns 0 at the end. */
static int next_line(const struct gl_exec_result *r, size_t *pos, char *out, size_t n)
{
	const char *d = r->out.data;
	size_t len = r->out.len, i = *pos, k = 0;

	if (!d || i >= len)
		return 0;
	while (i < len && d[i] != '\n') {
		if (k + 1 < n)
			out[k++] = d[i] >= 0x20 && d[i] < 0x7f ? d[i] : (d[i] == '\t' ? ' ' : '?');
		i++;
	}
	out[k] = '\0';
	while (k && (out[k - 1] == ' ' || out[k - 1] == '\r'))
		out[--k] = '\0';
	*pos = i + 1;
	return 1;
}

static char *trim(char *s)
{
	size_t n;

	while (*s == ' ')
		s++;
	n = strlen(s);
	while (n && s[n - 1] == ' ')
		s[--n] = '\0';
	return s;
}

static cJSON *item_kernel(struct inv *iv, const struct gl_host *h)
{
	static const char *const argv[] = { "uname", "-r", NULL };
	struct gl_exec_result r;
	cJSON *out = NULL;
	char v[200];

	if (run(iv, h, argv, "uname", &r, &out) == 0) {
		first_line(&r, v, sizeof(v));
		out = r.out.len && v[0] ? measured(cJSON_CreateString(v), "uname -r")
					: unavailable("uname -r printed nothing");
	}
	gl_buf_free(&r.out);
	return out;
}

static cJSON *item_gpus(struct inv *iv, const struct gl_host *h)
{
	static const char *const argv[] = { "nvidia-smi",
					    "--query-gpu=name,driver_version,vbios_version,ecc.mode.current",
					    "--format=csv,noheader", NULL };
	struct gl_exec_result r;
	cJSON *out = NULL, *arr;
	char line[512], first[200] = "";
	size_t pos = 0;

	if (run(iv, h, argv, "nvidia-smi", &r, &out) != 0)
		goto done;
	arr = cJSON_CreateArray();
	while (next_line(&r, &pos, line, sizeof(line))) {
		char *f[5] = { 0 }, *p = line, *c;
		int nf = 0;
		if (!line[0])
			continue;
		if (!first[0])
			snprintf(first, sizeof(first), "%s", line);
		while (nf < 5 && p) {
			f[nf++] = p;
			if ((c = strchr(p, ',')))
				*c++ = '\0';
			p = c;
		}
		if (nf != 4)
			continue; /* a warning line, not a GPU */
		{
			cJSON *g = cJSON_CreateObject();
			cJSON_AddNumberToObject(g, "index", cJSON_GetArraySize(arr));
			cJSON_AddStringToObject(g, "name", trim(f[0]));
			cJSON_AddStringToObject(g, "driver_version", trim(f[1]));
			cJSON_AddStringToObject(g, "vbios_version", trim(f[2]));
			cJSON_AddStringToObject(g, "ecc_mode", trim(f[3]));
			cJSON_AddItemToArray(arr, g);
		}
	}
	if (cJSON_GetArraySize(arr) > 0) {
		out = measured(arr, "nvidia-smi --query-gpu=name,driver_version,vbios_version,ecc.mode.current "
				    "--format=csv,noheader");
	} else {
		cJSON_Delete(arr);
		out = unavailable("nvidia-smi listed no GPU: %s", first[0] ? first : "(no output)");
	}
done:
	gl_buf_free(&r.out);
	return out;
}

/* "CUDA Version: 12.4" in nvidia-smi's header: the newest CUDA the driver
 * supports, which is not the toolkit's version. */
static cJSON *item_cuda_driver(struct inv *iv, const struct gl_host *h)
{
	static const char *const argv[] = { "nvidia-smi", NULL };
	struct gl_exec_result r;
	cJSON *out = NULL;
	char line[512];
	size_t pos = 0;

	if (run(iv, h, argv, "nvidia-smi", &r, &out) != 0)
		goto done;
	while (!out && next_line(&r, &pos, line, sizeof(line))) {
		char *p = strstr(line, "CUDA Version:"), v[32];
		size_t k = 0;
		if (!p)
			continue;
		for (p += 13; *p == ' '; p++)
			;
		while (k + 1 < sizeof(v) && ((*p >= '0' && *p <= '9') || *p == '.'))
			v[k++] = *p++;
		v[k] = '\0';
		if (k)
			out = measured(cJSON_CreateString(v), "nvidia-smi (header: CUDA Version)");
	}
	if (!out)
		out = unavailable("nvidia-smi printed no 'CUDA Version'");
done:
	gl_buf_free(&r.out);
	return out;
}

static cJSON *item_cuda_toolkit(struct inv *iv, const struct gl_host *h)
{
	static const char *const argv[] = { "sh", "-c",
					    "for n in nvcc /usr/local/cuda/bin/nvcc; do"
					    " if command -v \"$n\" >/dev/null 2>&1; then \"$n\" --version; rc=$?;"
					    " echo \"path=$(command -v \"$n\")\"; exit $rc; fi; done; exit 127",
					    NULL };
	struct gl_exec_result r;
	cJSON *out = NULL;
	char line[512], path[256] = "", how[320], v[48] = "";
	size_t pos = 0;

	if (run(iv, h, argv, "nvcc", &r, &out) != 0)
		goto done;
	while (next_line(&r, &pos, line, sizeof(line))) {
		char *p;
		size_t k = 0;
		if (!strncmp(line, "path=", 5)) {
			snprintf(path, sizeof(path), "%s", line + 5);
			continue;
		}
		/* "Cuda compilation tools, release 13.0, V13.0.88" */
		if (v[0] || !(p = strstr(line, "release ")))
			continue;
		p = strstr(p, ", V") ? strstr(p, ", V") + 3 : p + 8;
		while (k + 1 < sizeof(v) && ((*p >= '0' && *p <= '9') || *p == '.'))
			v[k++] = *p++;
		v[k] = '\0';
	}
	if (v[0]) {
		snprintf(how, sizeof(how), "%s --version", path[0] ? path : "nvcc");
		out = measured(cJSON_CreateString(v), how);
	}
	if (!out)
		out = unavailable("nvcc --version printed no release line");
done:
	gl_buf_free(&r.out);
	return out;
}

/* Adapters and firmware: ibstat where installed, else the kernel's sysfs
 * (same facts, printed in ibstat's layout). */
static cJSON *item_infiniband(struct inv *iv, const struct gl_host *h)
{
	static const char *const argv[] = {
		"sh", "-c",
		"if command -v ibstat >/dev/null 2>&1; then exec ibstat; fi;"
		" set -- /sys/class/infiniband/*; [ -e \"$1\" ] || exit 127; echo source=sysfs;"
		" for d in \"$@\"; do echo \"CA '${d##*/}'\";"
		" echo \"\tCA type: $(cat \"$d/hca_type\" 2>/dev/null)\";"
		" echo \"\tFirmware version: $(cat \"$d/fw_ver\" 2>/dev/null)\"; done",
		NULL
	};
	struct gl_exec_result r;
	cJSON *out = NULL, *arr, *cur = NULL;
	char line[512], first[200] = "", how[64] = "ibstat";
	size_t pos = 0;

	if (run(iv, h, argv, "ibstat (or /sys/class/infiniband)", &r, &out) != 0)
		goto done;
	arr = cJSON_CreateArray();
	while (next_line(&r, &pos, line, sizeof(line))) {
		char *p = trim(line);
		if (!strcmp(p, "source=sysfs")) {
			snprintf(how, sizeof(how), "/sys/class/infiniband/*/{hca_type,fw_ver}");
			continue;
		}
		if (!first[0] && p[0])
			snprintf(first, sizeof(first), "%s", p);
		if (!strncmp(p, "CA '", 4) && strlen(p) > 5 && p[strlen(p) - 1] == '\'') {
			p[strlen(p) - 1] = '\0';
			cur = cJSON_CreateObject();
			cJSON_AddStringToObject(cur, "ca", p + 4);
			cJSON_AddItemToArray(arr, cur);
		} else if (cur && !strncmp(p, "CA type:", 8)) {
			cJSON_AddStringToObject(cur, "type", trim(p + 8));
		} else if (cur && !strncmp(p, "Firmware version:", 17)) {
			cJSON_AddStringToObject(cur, "firmware", trim(p + 17));
		}
	}
	if (cJSON_GetArraySize(arr) > 0) {
		out = measured(arr, how);
	} else {
		cJSON_Delete(arr);
		out = unavailable("no InfiniBand adapter listed: %s", first[0] ? first : "(no output)");
	}
done:
	gl_buf_free(&r.out);
	return out;
}

/* NCCL: the library the dynamic loader finds (ldconfig, then the usual
 * CUDA paths), its version from the "NCCL version X" string built into it,
 * else its file name (libnccl.so.2.21.5); nccl.h's defines otherwise. */
static cJSON *item_nccl(struct inv *iv, const struct gl_host *h)
{
	static const char *const argv[] = {
		"sh", "-c",
		"lib=$(ldconfig -p 2>/dev/null | sed -n 's/^[[:space:]]*libnccl\\.so\\.[0-9][0-9.]* .*=> //p' | head "
		"-n 1);"
		" if [ -z \"$lib\" ]; then for f in /usr/local/cuda/lib64/libnccl.so.* /usr/local/cuda/lib/libnccl.so.*"
		" /usr/lib/x86_64-linux-gnu/libnccl.so.* /usr/lib/aarch64-linux-gnu/libnccl.so.* "
		"/usr/lib64/libnccl.so.*;"
		" do [ -e \"$f\" ] && { lib=$f; break; }; done; fi;"
		" if [ -n \"$lib\" ]; then real=$(readlink -f \"$lib\"); echo \"lib=$real\";"
		" v=$(grep -a -o -m 1 'NCCL version [0-9][0-9.]*[+a-z0-9.]*' \"$real\" 2>/dev/null | head -n 1);"
		" [ -n \"$v\" ] && echo \"embedded=$v\"; fi;"
		" hdr=; for f in /usr/include/nccl.h /usr/local/cuda/include/nccl.h; do if [ -r \"$f\" ]; then"
		" hdr=$f; echo \"header=$f\"; grep -E '^#define NCCL_(MAJOR|MINOR|PATCH) ' \"$f\"; break; fi; done;"
		" [ -n \"$lib$hdr\" ] || exit 127; exit 0",
		NULL
	};
	struct gl_exec_result r;
	cJSON *out = NULL;
	char line[600], lib[400] = "", emb[64] = "", hdr[400] = "", how[900];
	int mj = -1, mn = -1, pt = -1;
	size_t pos = 0;

	if (run(iv, h, argv, "NCCL (library or nccl.h)", &r, &out) != 0)
		goto done;
	while (next_line(&r, &pos, line, sizeof(line))) {
		int x;
		if (!strncmp(line, "lib=", 4))
			snprintf(lib, sizeof(lib), "%s", line + 4);
		else if (!strncmp(line, "embedded=NCCL version ", 22))
			snprintf(emb, sizeof(emb), "%s", line + 22);
		else if (!strncmp(line, "header=", 7))
			snprintf(hdr, sizeof(hdr), "%s", line + 7);
		else if (sscanf(line, "#define NCCL_MAJOR %d", &x) == 1)
			mj = x;
		else if (sscanf(line, "#define NCCL_MINOR %d", &x) == 1)
			mn = x;
		else if (sscanf(line, "#define NCCL_PATCH %d", &x) == 1)
			pt = x;
	}
	if (emb[0]) {
		char v[64];
		snprintf(v, sizeof(v), "%.*s", (int)strcspn(emb, "+"), emb);
		snprintf(how, sizeof(how), "'NCCL version %s' in %s", emb, lib);
		out = measured(cJSON_CreateString(v), how);
	} else if (lib[0] && strstr(lib, ".so.") && strchr(strstr(lib, ".so.") + 4, '.')) {
		snprintf(how, sizeof(how), "file name %s", lib);
		out = measured(cJSON_CreateString(strstr(lib, ".so.") + 4), how);
	} else if (hdr[0] && mj >= 0 && mn >= 0 && pt >= 0) {
		char v[48];
		snprintf(v, sizeof(v), "%d.%d.%d", mj, mn, pt);
		snprintf(how, sizeof(how), "NCCL_MAJOR/MINOR/PATCH in %s%s%s", hdr,
			 lib[0] ? "; library without a version in it: " : "; no library found", lib);
		out = measured(cJSON_CreateString(v), how);
	} else {
		out = unavailable("no NCCL version found (library: %s, header: %s)", lib[0] ? lib : "none",
				  hdr[0] ? hdr : "none");
	}
done:
	gl_buf_free(&r.out);
	return out;
}

static cJSON *item_mpi(struct inv *iv, const struct gl_host *h)
{
	static const char *const argv[] = { "mpirun", "--version", NULL };
	struct gl_exec_result r;
	cJSON *out = NULL;
	char line[512], first[200] = "";
	size_t pos = 0;

	if (run(iv, h, argv, "mpirun", &r, &out) != 0)
		goto done;
	while (!out && next_line(&r, &pos, line, sizeof(line))) {
		char *p = trim(line), v[240];
		if (!p[0])
			continue;
		if (!first[0])
			snprintf(first, sizeof(first), "%s", p);
		if (strstr(p, "(Open MPI) ")) {
			snprintf(v, sizeof(v), "Open MPI %s", trim(strstr(p, "(Open MPI) ") + 11));
			out = measured(cJSON_CreateString(v), "mpirun --version");
		} else if (!strncmp(p, "Version:", 8)) {
			/* MPICH's Hydra: "HYDRA build details:" then "Version: X" */
			snprintf(v, sizeof(v), "MPICH (Hydra) %s", trim(p + 8));
			out = measured(cJSON_CreateString(v), "mpirun --version");
		} else if (strstr(p, "Version ") && strstr(p, "MPI")) {
			out = measured(cJSON_CreateString(p), "mpirun --version"); /* Intel MPI */
		}
	}
	if (!out)
		out = unavailable("mpirun --version printed no version: %s", first[0] ? first : "(no output)");
done:
	gl_buf_free(&r.out);
	return out;
}

static const struct {
	const char *key;
	cJSON *(*fn)(struct inv *iv, const struct gl_host *h);
} items[] = {
	{ "kernel", item_kernel },
	{ "gpus", item_gpus },
	{ "cuda_driver", item_cuda_driver },
	{ "cuda_toolkit", item_cuda_toolkit },
	{ "infiniband", item_infiniband },
	{ "nccl", item_nccl },
	{ "mpi", item_mpi },
};

static cJSON *host_inventory(struct inv *iv, const struct gl_host *h)
{
	static const char *const probe[] = { "true", NULL };
	cJSON *o = cJSON_CreateObject(), *down = NULL;
	struct gl_exec_result r;
	char addr[400];

	if (h->local) {
		cJSON_AddStringToObject(o, "transport", "local");
		if (h->netns[0])
			cJSON_AddStringToObject(o, "netns", h->netns);
	} else {
		cJSON_AddStringToObject(o, "transport", "ssh");
		snprintf(addr, sizeof(addr), "%s%s%s:%d", h->ssh_user, h->ssh_user[0] ? "@" : "", h->ssh_host,
			 h->ssh_port);
		cJSON_AddStringToObject(o, "address", addr);
	}
	/* one deadline for a host that does not answer, not one per item */
	if (run(iv, h, probe, "true", &r, &down) != 0) {
		const cJSON *why = cJSON_GetObjectItemCaseSensitive(down, "why");
		char msg[600];
		snprintf(msg, sizeof(msg), "host not reachable: %s", cJSON_GetStringValue(why));
		for (size_t i = 0; i < GL_ARRAY_LEN(items); i++)
			cJSON_AddItemToObject(o, items[i].key, unavailable("%s", msg));
		cJSON_Delete(down);
	} else {
		for (size_t i = 0; i < GL_ARRAY_LEN(items); i++)
			cJSON_AddItemToObject(o, items[i].key, items[i].fn(iv, h));
	}
	gl_buf_free(&r.out);
	return o;
}

/* --- the scenario's git provenance ------------------------------------- */

static cJSON *git_unavailable(const char *what)
{
	const git_error *e = git_error_last();
	return unavailable("%s: %s", what, e && e->message ? e->message : "libgit2 error");
}

static const char *status_word(unsigned flags)
{
	if (flags == GIT_STATUS_CURRENT)
		return "unmodified";
	if (flags & GIT_STATUS_IGNORED)
		return "ignored";
	if (flags & GIT_STATUS_WT_NEW && !(flags & GIT_STATUS_INDEX_NEW))
		return "untracked";
	if (flags & (GIT_STATUS_WT_DELETED | GIT_STATUS_INDEX_DELETED))
		return "deleted";
	if (flags & GIT_STATUS_INDEX_NEW)
		return "added";
	return "modified";
}

/* SHA-256 of the blob at rel in commit c, into hex; 0, or -1 if absent. */
static int committed_sha256(git_repository *repo, const git_commit *c, const char *rel, char hex[65])
{
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	int rc = -1;

	if (git_commit_tree(&tree, c) != 0 || git_tree_entry_bypath(&e, tree, rel) != 0 ||
	    git_tree_entry_type(e) != GIT_OBJECT_BLOB || git_blob_lookup(&blob, repo, git_tree_entry_id(e)) != 0)
		goto out;
	gl_sha256_hex(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob), hex);
	rc = 0;
out:
	git_blob_free(blob);
	git_tree_entry_free(e);
	git_tree_free(tree);
	return rc;
}

cJSON *gl_inventory_scenario_git(const char *path, const char *sha256)
{
	git_repository *repo = NULL;
	git_reference *head = NULL;
	git_commit *commit = NULL;
	git_status_list *sl = NULL;
	git_status_options so;
	char abs[PATH_MAX], dir[PATH_MAX], wd[PATH_MAX], *slash;
	const char *rel, *wdp;
	unsigned flags = 0;
	cJSON *o = NULL;
	int rc;

	git_libgit2_init();
	git_status_options_init(&so, GIT_STATUS_OPTIONS_VERSION);
	if (!realpath(path, abs)) {
		o = unavailable("%s: %s", path, strerror(errno));
		goto out;
	}
	snprintf(dir, sizeof(dir), "%s", abs);
	if ((slash = strrchr(dir, '/')))
		*(slash == dir ? slash + 1 : slash) = '\0';
	rc = git_repository_open_ext(&repo, dir, 0, NULL);
	if (rc == GIT_ENOTFOUND) {
		o = cJSON_CreateObject();
		cJSON_AddBoolToObject(o, "in_repository", 0);
		cJSON_AddStringToObject(o, "source", "measured");
		cJSON_AddStringToObject(o, "searched_from", dir);
		goto out;
	}
	if (rc != 0) {
		o = git_unavailable(dir);
		goto out;
	}
	wdp = git_repository_workdir(repo);
	if (!wdp || !realpath(wdp, wd)) {
		o = unavailable("%s: the repository found has no work tree", dir);
		goto out;
	}
	rel = abs + strlen(wd);
	if (strncmp(abs, wd, strlen(wd)) != 0 || *rel != '/') {
		o = unavailable("%s is not inside the work tree %s", abs, wd);
		goto out;
	}
	rel++;
	o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "in_repository", 1);
	cJSON_AddStringToObject(o, "source", "measured");
	cJSON_AddStringToObject(o, "repository", wd);
	cJSON_AddStringToObject(o, "path", rel);
	rc = git_repository_head(&head, repo);
	if (rc == 0 && git_reference_peel((git_object **)&commit, head, GIT_OBJECT_COMMIT) == 0) {
		char hex[GIT_OID_HEXSZ + 1], sha[65];
		git_oid_tostr(hex, sizeof(hex), git_commit_id(commit));
		cJSON_AddStringToObject(o, "commit", hex);
		if (git_reference_is_branch(head))
			cJSON_AddStringToObject(o, "branch", git_reference_shorthand(head));
		else
			cJSON_AddNullToObject(o, "branch");
		/* the strongest fact: the commit holds exactly the bytes that ran */
		cJSON_AddBoolToObject(o, "committed_file_matches_run",
				      committed_sha256(repo, commit, rel, sha) == 0 && sha256 && !strcmp(sha, sha256));
	} else {
		const git_error *e = git_error_last();
		cJSON_AddNullToObject(o, "commit");
		cJSON_AddNullToObject(o, "branch");
		cJSON_AddStringToObject(o, "commit_why",
					rc == GIT_EUNBORNBRANCH ? "the repository has no commits yet"
					: e && e->message       ? e->message
								: "HEAD cannot be read");
		cJSON_AddBoolToObject(o, "committed_file_matches_run", 0);
	}
	if (git_status_file(&flags, repo, rel) == 0) {
		cJSON_AddStringToObject(o, "file_status", status_word(flags));
		cJSON_AddBoolToObject(o, "file_dirty", flags != GIT_STATUS_CURRENT);
	} else {
		const git_error *e = git_error_last();
		cJSON_AddNullToObject(o, "file_status");
		cJSON_AddNullToObject(o, "file_dirty");
		cJSON_AddStringToObject(o, "file_status_why", e && e->message ? e->message : "status failed");
	}
	/* like `git describe --dirty`: tracked changes, staged or not */
	so.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	so.flags = GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
	if (git_status_list_new(&sl, repo, &so) == 0) {
		cJSON_AddBoolToObject(o, "worktree_dirty", git_status_list_entrycount(sl) > 0);
	} else {
		const git_error *e = git_error_last();
		cJSON_AddNullToObject(o, "worktree_dirty");
		cJSON_AddStringToObject(o, "worktree_why", e && e->message ? e->message : "status failed");
	}
out:
	git_status_list_free(sl);
	git_commit_free(commit);
	git_reference_free(head);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return o;
}

/* --- runbooks ---------------------------------------------------------- */

/* One runbook file: its git blob id (what `git hash-object` prints for the
 * bytes there now) and, when it lies in a repository, the blob HEAD holds
 * at that path and the file's status. A reviewer can then fetch exactly
 * the procedure that was in force from the repository. */
static cJSON *runbook_file(const char *real)
{
	git_repository *repo = NULL;
	git_reference *head = NULL;
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	git_oid oid;
	char hex[GIT_OID_HEXSZ + 1], dir[PATH_MAX], wd[PATH_MAX], *slash;
	const char *wdp, *rel;
	unsigned flags = 0;
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "source", "measured");
	cJSON_AddStringToObject(o, "path", real);
	if (git_odb_hashfile(&oid, real, GIT_OBJECT_BLOB) != 0) {
		cJSON_Delete(o);
		return git_unavailable(real);
	}
	git_oid_tostr(hex, sizeof(hex), &oid);
	cJSON_AddStringToObject(o, "blob", hex);
	snprintf(dir, sizeof(dir), "%s", real);
	if ((slash = strrchr(dir, '/')))
		*(slash == dir ? slash + 1 : slash) = '\0';
	if (git_repository_open_ext(&repo, dir, 0, NULL) != 0 || !(wdp = git_repository_workdir(repo)) ||
	    !realpath(wdp, wd) || strncmp(real, wd, strlen(wd)) != 0 || real[strlen(wd)] != '/') {
		cJSON_AddBoolToObject(o, "in_repository", 0);
		goto out;
	}
	rel = real + strlen(wd) + 1;
	cJSON_AddBoolToObject(o, "in_repository", 1);
	cJSON_AddStringToObject(o, "repository", wd);
	cJSON_AddStringToObject(o, "repository_path", rel);
	if (git_repository_head(&head, repo) == 0 &&
	    git_reference_peel((git_object **)&commit, head, GIT_OBJECT_COMMIT) == 0 &&
	    git_commit_tree(&tree, commit) == 0 && git_tree_entry_bypath(&e, tree, rel) == 0) {
		char ch[GIT_OID_HEXSZ + 1];
		git_oid_tostr(ch, sizeof(ch), git_tree_entry_id(e));
		cJSON_AddStringToObject(o, "committed_blob", ch);
		cJSON_AddBoolToObject(o, "committed_matches", !strcmp(ch, hex));
	} else {
		cJSON_AddNullToObject(o, "committed_blob");
		cJSON_AddBoolToObject(o, "committed_matches", 0);
	}
	if (git_status_file(&flags, repo, rel) == 0)
		cJSON_AddStringToObject(o, "file_status", status_word(flags));
out:
	git_tree_entry_free(e);
	git_tree_free(tree);
	git_commit_free(commit);
	git_reference_free(head);
	git_repository_free(repo);
	return o;
}

cJSON *gl_inventory_runbooks(const struct gl_scenario *sc)
{
	cJSON *out = cJSON_CreateObject();

	git_libgit2_init();
	for (int i = 0; i < sc->n_faults; i++) {
		const struct gl_fault_spec *f = &sc->faults[i];
		struct gl_err e = { 0 };
		char real[1100];
		cJSON *o;
		if (!f->runbook[0] || cJSON_GetObjectItemCaseSensitive(out, f->id))
			continue;
		if (gl_runbook_is_url(f->runbook)) {
			o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "source", "measured");
			cJSON_AddStringToObject(o, "url", f->runbook);
		} else if (gl_path_confine(sc->path, sc->root, f->runbook, real, sizeof(real), &e) != 0) {
			o = unavailable("%s", e.msg);
		} else {
			o = runbook_file(real);
		}
		cJSON_AddStringToObject(o, "runbook", f->runbook);
		cJSON_AddItemToObject(out, f->id, o);
	}
	git_libgit2_shutdown();
	return out;
}

cJSON *gl_inventory_collect(const struct gl_scenario *sc, int64_t budget_ms)
{
	struct inv iv;
	cJSON *doc = cJSON_CreateObject(), *hosts;
	int64_t t0 = gl_now_ns();
	char wall[40];

	if (!doc)
		return NULL;
	iv.budget_ms = budget_ms > 0 ? budget_ms : GL_INVENTORY_BUDGET_MS;
	iv.end_ns = t0 + iv.budget_ms * 1000000;
	gl_format_wall(gl_wall_ns(), wall, sizeof(wall));
	cJSON_AddStringToObject(doc, "collected", wall);
	cJSON_AddItemToObject(doc, "scenario_git", gl_inventory_scenario_git(sc->path, sc->sha256));
	cJSON_AddItemToObject(doc, "runbooks", gl_inventory_runbooks(sc));
	hosts = cJSON_AddObjectToObject(doc, "hosts");
	for (int i = 0; i < sc->n_hosts; i++)
		cJSON_AddItemToObject(hosts, sc->hosts[i].name, host_inventory(&iv, &sc->hosts[i]));
	/* after the hosts: an unreachable one is known by then, not probed again */
	cJSON_AddItemToObject(doc, "images", gl_images_collect(sc, hosts, iv.end_ns));
	cJSON_AddNumberToObject(doc, "collect_s", (double)((gl_now_ns() - t0) / 1000000) / 1e3);
	return doc;
}
