/*
 * ckpt.c - checkpoints of gauntlet-train.
 *
 * Layout: DIR/step-NNNNNNNNNNNN/shard-RRRRR.bin, one per rank, and
 * MANIFEST.json, which makes the checkpoint complete. Save: rank 0 prepares
 * the directory (removing any old manifest there first), every rank writes
 * its shard (the checkpoint size split over the ranks) while hashing it
 * (--ckpt-hash: XXH3-128 by default, or SHA-256),
 * starts writeback as it goes and fsyncs at the end; the hashes and times
 * are gathered on rank 0, which writes the manifest to a temporary name,
 * fsyncs it, renames it into place and fsyncs the directory. A checkpoint
 * without a manifest (a rank died mid-save) is never chosen.
 *
 * Restore: rank 0 walks the complete checkpoints newest first; every rank
 * reads its shard back and checks its size and hash, with the hash the
 * manifest names (a manifest without "hash", the first format, is SHA-256);
 * if any rank disagrees
 * the checkpoint is quarantined (manifest renamed to MANIFEST.json.corrupt,
 * kept as evidence), reported with the ranks at fault, and the previous one
 * is tried.
 *
 * Retention: after each commit rank 0 keeps the newest --ckpt-keep complete
 * checkpoints and removes older ones and the debris of failed saves older
 * than the newest complete one. Only names this file writes are removed.
 */
#define _GNU_SOURCE
#include "train.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <xxhash.h>

#include "manifest.h"
#include "sha256.h"
#include "util.h"

#define CHUNK (4u << 20)
#define MANIFEST "MANIFEST.json"

struct shard_report {
	char digest[72];
	uint64_t bytes;
	double secs;
	int ok;
	char msg[244];
};

static void ckpt_path(const struct train *t, int64_t step, const char *leaf, char *out, size_t n)
{
	snprintf(out, n, "%s/step-%012" PRId64 "%s%s", t->ckpt_dir, step, leaf ? "/" : "", leaf ? leaf : "");
}

static uint64_t shard_bytes(const struct train *t)
{
	return (t->ckpt_bytes + (uint64_t)t->world - 1) / (uint64_t)t->world;
}

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

/* The shard's hash is a hash list: the hash of each 4 MiB chunk, then the
 * hash of those digests in order (XXH3-128 digests in canonical big-endian
 * form, or SHA-256 digests). Every byte is covered, on save and on
 * restore. XXH3 runs at tens of GB/s per core, so hashing every byte no
 * longer holds the save below the storage's speed; SHA-256 (~1.5 GB/s per
 * core) is there for who wants a cryptographic digest. */
struct hlist {
	int hash;
	struct gl_sha256 sh;
	XXH3_state_t *xx;
};

static int hlist_init(struct hlist *h, int hash)
{
	h->hash = hash;
	h->xx = NULL;
	if (hash == CKPT_HASH_XXH3)
		return (h->xx = XXH3_createState()) && XXH3_128bits_reset(h->xx) == XXH_OK ? 0 : -1;
	gl_sha256_init(&h->sh);
	return 0;
}

static void hlist_chunk(struct hlist *h, const void *buf, size_t n)
{
	if (h->hash == CKPT_HASH_XXH3) {
		XXH128_canonical_t c;
		XXH128_canonicalFromHash(&c, XXH3_128bits(buf, n));
		XXH3_128bits_update(h->xx, &c, sizeof(c));
	} else {
		struct gl_sha256 ch;
		unsigned char d[32];
		gl_sha256_init(&ch);
		gl_sha256_update(&ch, buf, n);
		gl_sha256_final(&ch, d);
		gl_sha256_update(&h->sh, d, sizeof(d));
	}
}

static void hlist_free(struct hlist *h)
{
	if (h->xx)
		XXH3_freeState(h->xx);
	h->xx = NULL;
}

/* hex: at least 65 bytes; frees the state */
static void hlist_hex(struct hlist *h, char *hex)
{
	if (h->hash == CKPT_HASH_XXH3) {
		XXH128_canonical_t c;
		XXH128_canonicalFromHash(&c, XXH3_128bits_digest(h->xx));
		for (size_t i = 0; i < sizeof(c.digest); i++)
			snprintf(hex + 2 * i, 3, "%02x", c.digest[i]);
	} else {
		gl_sha256_final_hex(&h->sh, hex);
	}
	hlist_free(h);
}

/* Deterministic content: a pseudo-random chunk per (step, rank), with the
 * chunk's index and the step stamped in its last 16 bytes so no two chunks
 * are alike. */
static void fill_chunk(unsigned char *buf, size_t n, int64_t step, int rank)
{
	uint64_t x = (uint64_t)step * 0x9E3779B97F4A7C15ULL ^ ((uint64_t)rank + 1) * 0xBF58476D1CE4E5B9ULL;

	if (!x)
		x = 1;
	for (size_t i = 0; i + 8 <= n; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(buf + i, &x, 8);
	}
}

static int write_shard(struct train *t, int64_t step, struct shard_report *me)
{
	char path[4096];
	uint64_t total = shard_bytes(t), done = 0;
	unsigned char *buf = malloc(CHUNK);
	struct hlist hl = { 0 };
	int fd = -1, rc = -1;
	char leaf[32];

	snprintf(leaf, sizeof(leaf), "shard-%05d.bin", t->rank);
	ckpt_path(t, step, leaf, path, sizeof(path));
	if (!buf || hlist_init(&hl, t->ckpt_hash) < 0) {
		snprintf(me->msg, sizeof(me->msg), "out of memory");
		goto out;
	}
	fill_chunk(buf, CHUNK, step, t->rank);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(me->msg, sizeof(me->msg), "%s: %s", path, strerror(errno));
		goto out;
	}
	while (done < total) {
		size_t k = total - done < CHUNK ? (size_t)(total - done) : CHUNK, off = 0;
		uint64_t idx = done / CHUNK;

		if (k >= 16) {
			memcpy(buf + k - 16, &idx, sizeof(idx));
			memcpy(buf + k - 8, &step, sizeof(step));
		}
		/* every byte, as a trainer whose chunks all differ would */
		hlist_chunk(&hl, buf, k);
		while (off < k) {
			ssize_t w = write(fd, buf + off, k - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				snprintf(me->msg, sizeof(me->msg), "%s: write at %" PRIu64 ": %s", path, done + off,
					 strerror(errno));
				goto out;
			}
			off += (size_t)w;
		}
		/* Start writeback now, so the disk works while we hash the next
		 * chunk instead of all at once in the final fsync. */
		sync_file_range(fd, (off64_t)done, (off64_t)k, SYNC_FILE_RANGE_WRITE);
		done += k;
		if (step == t->kill_save_step && t->rank == t->kill_save_rank && done >= total / 2)
			raise(SIGKILL);
	}
	if (fsync(fd) < 0) {
		snprintf(me->msg, sizeof(me->msg), "%s: fsync: %s", path, strerror(errno));
		goto out;
	}
	hlist_hex(&hl, me->digest);
	me->bytes = total;
	rc = 0;
out:
	if (fd >= 0 && close(fd) < 0 && rc == 0) {
		snprintf(me->msg, sizeof(me->msg), "%s: close: %s", path, strerror(errno));
		rc = -1;
	}
	hlist_free(&hl);
	free(buf);
	return rc;
}

static void remove_ckpt_dir(const struct train *t, int64_t step)
{
	char dir[4096], p[4096];
	DIR *d;
	struct dirent *e;

	ckpt_path(t, step, NULL, dir, sizeof(dir));
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strncmp(e->d_name, "shard-", 6) || !strncmp(e->d_name, MANIFEST, strlen(MANIFEST))) {
			snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
			unlink(p);
		}
	}
	closedir(d);
	rmdir(dir);
}

struct ckpt_entry {
	int64_t step;
	int complete;
};

static int cmp_entry_desc(const void *a, const void *b)
{
	const struct ckpt_entry *x = a, *y = b;

	return x->step < y->step ? 1 : x->step > y->step ? -1 : 0;
}

/* Checkpoint directories under ckpt_dir, newest first. */
static int list_ckpts(const struct train *t, struct ckpt_entry **out)
{
	DIR *d = opendir(t->ckpt_dir);
	struct dirent *e;
	struct ckpt_entry *v = NULL;
	int n = 0, cap = 0;

	*out = NULL;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char *end, p[4096];
		long long s;
		struct stat st;

		if (strncmp(e->d_name, "step-", 5) || strlen(e->d_name) != 17)
			continue;
		s = strtoll(e->d_name + 5, &end, 10);
		if (*end || s < 1)
			continue;
		if (n == cap) {
			struct ckpt_entry *nv = realloc(v, (size_t)(cap = cap ? cap * 2 : 16) * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		ckpt_path(t, s, MANIFEST, p, sizeof(p));
		v[n].step = s;
		v[n].complete = stat(p, &st) == 0;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, (size_t)n, sizeof(*v), cmp_entry_desc);
	*out = v;
	return n;
}

static void prune(const struct train *t)
{
	struct ckpt_entry *v;
	int n = list_ckpts(t, &v), kept = 0;
	int64_t newest = -1;

	for (int i = 0; i < n; i++) {
		if (v[i].complete && kept < t->ckpt_keep) {
			kept++;
			if (newest < 0)
				newest = v[i].step;
			continue;
		}
		if (v[i].complete || (newest >= 0 && v[i].step < newest)) {
			remove_ckpt_dir(t, v[i].step);
			train_emit("ckpt_removed", "step=%" PRId64 " complete=%d", v[i].step, v[i].complete);
		}
	}
	free(v);
}

static int write_manifest(const struct train *t, int64_t step, const struct shard_report *all, char *err, size_t n)
{
	cJSON *m = cJSON_CreateObject(), *sh = cJSON_AddArrayToObject(m, "shards");
	char tmp[4096], fin[4096], dir[4096], *text;
	int rc = -1, fd;

	cJSON_AddStringToObject(m, "format", "gauntlet-checkpoint-1");
	cJSON_AddNumberToObject(m, "step", (double)step);
	cJSON_AddNumberToObject(m, "world", t->world);
	cJSON_AddStringToObject(m, "backend", t->be->name);
	cJSON_AddNumberToObject(m, "bytes", (double)t->ckpt_bytes);
	/* "hash" names the shard digest: "xxh3_chunks" is XXH3-128 over the
	 * canonical (big-endian) XXH3-128 digests of the shard's chunk_bytes
	 * pieces, in order (the last piece may be shorter); "sha256_chunks"
	 * the same with SHA-256. The first format had no "hash" (SHA-256). */
	cJSON_AddStringToObject(m, "hash", ckpt_hash_name(t->ckpt_hash));
	cJSON_AddNumberToObject(m, "chunk_bytes", CHUNK);
	for (int r = 0; r < t->world; r++) {
		cJSON *o = cJSON_CreateObject();
		char leaf[32];
		snprintf(leaf, sizeof(leaf), "shard-%05d.bin", r);
		cJSON_AddNumberToObject(o, "rank", r);
		cJSON_AddStringToObject(o, "file", leaf);
		cJSON_AddNumberToObject(o, "bytes", (double)all[r].bytes);
		cJSON_AddStringToObject(o, ckpt_hash_key(t->ckpt_hash), all[r].digest);
		cJSON_AddNumberToObject(o, "save_s", all[r].secs);
		cJSON_AddItemToArray(sh, o);
	}
	text = cJSON_Print(m);
	cJSON_Delete(m);
	ckpt_path(t, step, MANIFEST ".tmp", tmp, sizeof(tmp));
	ckpt_path(t, step, MANIFEST, fin, sizeof(fin));
	ckpt_path(t, step, NULL, dir, sizeof(dir));
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || !text) {
		snprintf(err, n, "%s: %s", tmp, fd < 0 ? strerror(errno) : "out of memory");
		goto out;
	}
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text) || fsync(fd) < 0) {
		snprintf(err, n, "%s: write: %s", tmp, strerror(errno));
		goto out;
	}
	if (rename(tmp, fin) < 0 || fsync_dir(dir) < 0) {
		snprintf(err, n, "%s: commit: %s", fin, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	free(text);
	return rc;
}

/* MPI_Gather of n bytes to rank 0, waiting asleep: a rank that has written
 * its shard would otherwise spin in the collective (OpenMPI polls) and take
 * a core from the ranks still writing theirs. */
static void gather_asleep(const void *send, int n, void *recv, MPI_Comm comm)
{
	MPI_Request rq;
	int done = 0;

	MPI_Igather(send, n, MPI_BYTE, recv, n, MPI_BYTE, 0, comm, &rq);
	for (;;) {
		struct timespec ts = { 0, 1000000 };
		MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
		if (done)
			break;
		nanosleep(&ts, NULL);
	}
}

int train_ckpt_save(struct train *t, int64_t step, char *err, size_t n)
{
	struct shard_report me, *all = NULL;
	int64_t t0;
	int ok = 1;
	char dir[4096], p[4096];

	memset(&me, 0, sizeof(me));
	if (t->rank == 0) {
		struct gl_err ge = { 0 };
		ckpt_path(t, step, NULL, dir, sizeof(dir));
		ckpt_path(t, step, MANIFEST, p, sizeof(p));
		if (gl_mkdir_p(dir, 0755, &ge) < 0) {
			ok = 0;
			snprintf(me.msg, sizeof(me.msg), "%s", ge.msg);
		}
		/* A manifest left from an earlier pass over this step must go
		 * before any shard is rewritten. */
		if (unlink(p) == 0)
			fsync_dir(dir);
	}
	MPI_Bcast(&ok, 1, MPI_INT, 0, t->comm);
	t0 = train_now_ns();
	if (ok)
		me.ok = write_shard(t, step, &me) == 0;
	me.secs = (train_now_ns() - t0) / 1e9;
	if (t->rank == 0)
		all = calloc((size_t)t->world, sizeof(*all));
	gather_asleep(&me, (int)sizeof(me), all, t->comm);
	if (t->rank == 0) {
		double save_s = 0, min_gbps = -1;
		int bad = -1;
		for (int r = 0; r < t->world; r++) {
			double g = all[r].secs > 0 ? (double)all[r].bytes / 1e9 / all[r].secs : 0;
			if (!all[r].ok && bad < 0)
				bad = r;
			if (all[r].secs > save_s)
				save_s = all[r].secs;
			if (min_gbps < 0 || g < min_gbps)
				min_gbps = g;
		}
		if (bad < 0 && write_manifest(t, step, all, me.msg, sizeof(me.msg)) < 0)
			bad = 0, all[0].ok = 0, snprintf(all[0].msg, sizeof(all[0].msg), "%s", me.msg);
		if (bad >= 0) {
			train_emit("ckpt_failed", "step=%" PRId64 " rank=%d msg=%s", step, bad,
				   all[bad].msg[0] ? all[bad].msg : "no shard written");
			remove_ckpt_dir(t, step);
		} else {
			train_emit("ckpt",
				   "step=%" PRId64 " save_s=%.6f save_gbps=%.6f bytes=%" PRIu64 " shard_bytes=%" PRIu64
				   " hash=%s",
				   step, save_s, min_gbps, shard_bytes(t) * (uint64_t)t->world, shard_bytes(t),
				   ckpt_hash_name(t->ckpt_hash));
			prune(t);
		}
		free(all);
	}
	/* A failed save is reported and training goes on: the previous
	 * checkpoint stays the one a restore would use. */
	(void)err;
	(void)n;
	return 0;
}

/* Rank 0: read a checkpoint's manifest; sets *hash, fills digests[world]
 * and bytes[world]. */
static int read_manifest(const struct train *t, int64_t step, int *hash, char (*digests)[72], uint64_t *bytes,
			 char *why, size_t n)
{
	char p[4096], *text = NULL;
	size_t len;
	struct gl_err ge = { 0 };
	int rc;

	ckpt_path(t, step, MANIFEST, p, sizeof(p));
	if (gl_read_file(p, 1 << 24, &text, &len, &ge) < 0) {
		snprintf(why, n, "%s", ge.msg);
		return -1;
	}
	rc = ckpt_manifest_parse(text, t->world, hash, digests, bytes, why, n);
	free(text);
	return rc;
}

static int verify_shard(const struct train *t, int64_t step, int hash, const char *digest, uint64_t bytes, char *why,
			size_t n)
{
	char path[4096], leaf[32], hex[72];
	unsigned char *buf = malloc(CHUNK);
	struct hlist hl = { 0 };
	uint64_t total = 0;
	int fd, rc = -1;

	snprintf(leaf, sizeof(leaf), "shard-%05d.bin", t->rank);
	ckpt_path(t, step, leaf, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !buf || hlist_init(&hl, hash) < 0) {
		snprintf(why, n, "%s: %s", path, fd < 0 ? strerror(errno) : "out of memory");
		goto out;
	}
	for (;;) {
		/* whole chunks (short only at the end), as the writer hashed them */
		size_t got = 0;
		while (got < CHUNK) {
			ssize_t r = read(fd, buf + got, CHUNK - got);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				snprintf(why, n, "%s: read: %s", path, strerror(errno));
				goto out;
			}
			if (r == 0)
				break;
			got += (size_t)r;
		}
		if (!got)
			break;
		hlist_chunk(&hl, buf, got);
		total += got;
		if (got < CHUNK)
			break;
	}
	hlist_hex(&hl, hex);
	if (total != bytes)
		snprintf(why, n, "%s: %" PRIu64 " bytes, manifest says %" PRIu64, path, total, bytes);
	else if (strcmp(hex, digest))
		snprintf(why, n, "%s: %s %.16s..., manifest says %.16s...", path, ckpt_hash_name(hash), hex, digest);
	else
		rc = 0;
out:
	if (fd >= 0)
		close(fd);
	hlist_free(&hl);
	free(buf);
	return rc;
}

int train_ckpt_restore(struct train *t, int64_t *step, char *err, size_t n)
{
	struct ckpt_entry *v = NULL;
	char(*digests)[72] = NULL;
	uint64_t *bytes = NULL;
	int count = 0, tried = 0;

	*step = 0;
	if (t->rank == 0) {
		count = list_ckpts(t, &v);
		digests = calloc((size_t)t->world, sizeof(*digests));
		bytes = calloc((size_t)t->world, sizeof(*bytes));
	}
	MPI_Bcast(&count, 1, MPI_INT, 0, t->comm);
	for (int i = 0; i < count; i++) {
		struct {
			int64_t step;
			int usable, hash;
		} cand = { 0, 0, 0 };
		char my_digest[72] = "", why[512] = "";
		uint64_t my_bytes = 0;
		int ok, all_ok, *oks = NULL;
		int64_t t0 = train_now_ns();

		if (t->rank == 0) {
			cand.step = v[i].step;
			if (!v[i].complete)
				train_emit("ckpt_skip",
					   "step=%" PRId64 " reason=incomplete (no manifest: a save that "
					   "did not finish)",
					   v[i].step);
			else if (read_manifest(t, v[i].step, &cand.hash, digests, bytes, why, sizeof(why)) < 0)
				train_emit("ckpt_skip", "step=%" PRId64 " reason=%s", v[i].step, why);
			else
				cand.usable = 1;
		}
		MPI_Bcast(&cand, (int)sizeof(cand), MPI_BYTE, 0, t->comm);
		if (!cand.usable)
			continue;
		tried++;
		MPI_Scatter(digests, (int)sizeof(*digests), MPI_BYTE, my_digest, (int)sizeof(my_digest), MPI_BYTE, 0,
			    t->comm);
		MPI_Scatter(bytes, 1, MPI_UINT64_T, &my_bytes, 1, MPI_UINT64_T, 0, t->comm);
		ok = verify_shard(t, cand.step, cand.hash, my_digest, my_bytes, why, sizeof(why)) == 0;
		if (!ok)
			train_emit("ckpt_corrupt", "step=%" PRId64 " rank=%d host=%s msg=%s", cand.step, t->rank,
				   t->host, why);
		MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, t->comm);
		if (t->rank == 0)
			oks = calloc((size_t)t->world, sizeof(int));
		MPI_Gather(&ok, 1, MPI_INT, oks, 1, MPI_INT, 0, t->comm);
		if (t->rank == 0) {
			if (all_ok) {
				double secs = (train_now_ns() - t0) / 1e9;
				train_emit("restore",
					   "step=%" PRId64 " verify_s=%.6f bytes=%" PRIu64 " tried=%d hash=%s",
					   cand.step, secs, bytes[0] * (uint64_t)t->world, tried,
					   ckpt_hash_name(cand.hash));
			} else {
				char list[512] = "", from[4096], to[4096];
				size_t off = 0;
				for (int r = 0; r < t->world && off < sizeof(list) - 8; r++)
					if (!oks[r])
						off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%d",
									off ? "," : "", r);
				ckpt_path(t, cand.step, MANIFEST, from, sizeof(from));
				ckpt_path(t, cand.step, MANIFEST ".corrupt", to, sizeof(to));
				rename(from, to);
				train_emit("ckpt_rejected",
					   "step=%" PRId64 " ranks=%s reason=shard hash mismatch; "
					   "quarantined as " MANIFEST ".corrupt, trying the previous checkpoint",
					   cand.step, list);
			}
			free(oks);
		}
		if (all_ok) {
			*step = cand.step;
			break;
		}
	}
	if (t->rank == 0 && *step == 0)
		train_emit("restore", "step=0 verify_s=0 bytes=0 tried=%d none=1", tried);
	free(v);
	free(digests);
	free(bytes);
	(void)err;
	(void)n;
	return 0;
}
