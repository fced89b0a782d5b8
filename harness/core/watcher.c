/*
 * watcher.c - the dead-man's switch every fault that acts on a host gets
 * (docs/faults.md, "Dead-man's switch").
 *
 * Before a fault is injected, a watcher starts on its host, through the
 * host's own transport: a POSIX sh script, written from the plan, run
 * under setsid so that it outlives the command (and the ssh session) that
 * started it. It holds the kind's revert (gl_fault_ops.deadman). The
 * controller rewrites the watcher's lease file every safety.deadman_renew
 * from a thread of its own; when the lease has not changed for the
 * fault's grace, or the fault's planned end plus the grace has passed,
 * the watcher takes the claim and reverts the fault itself, leaving a
 * record. A normal revert takes the claim first and stops the watcher;
 * whoever holds the claim reverts, so a fault is never reverted by both,
 * and resume and `gauntlet revert` read the record instead of reverting
 * again.
 *
 * The claim is a directory (mkdir is atomic on every filesystem /run sits
 * on). Files, all in the watchers' directory D of the user the host's
 * transport runs commands as (GL_WATCH_DIR for root, /tmp/gauntlet-UID
 * for any other; that user's own, mode 0700, checked by every script
 * before use), named by B = D/dm.RUN.FAULT.NONCE (the plan keeps the name):
 *   B.sh     the watcher script      B.pid    its pid while it runs
 *   B.lease  renewal counter         B.claim  the claim (B.claim/by)
 *   B.rec    what the watcher did (why; armed, started and reverted_at,
 *            its start, its revert's start and end: `date +%s` on the
 *            host; the revert's status)    B.out    its revert's output
 *
 * Threads: ctl_dm_plan, ctl_dm_watch, ctl_dm_unwatch and the results run
 * on the loop thread; ctl_dm_arm, ctl_dm_claim and ctl_dm_cleanup on the
 * executor (or inline); the renewals on the watchers' own thread, which
 * touches only its table (under its mutex) and wakes the loop through a
 * pipe.
 */
#define _GNU_SOURCE
#include "controller_int.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "timeline.h"
#include "transport_ssh.h"

#define GL_WATCH_DIR "/run/gauntlet"
#define DM_SCRIPT_MAX (256 * 1024)
#define DM_RENEW_DEFAULT_NS 5000000000LL
#define DM_ARM_TIMEOUT_MS 30000
#define DM_CLAIM_TIMEOUT_MS 90000 /* the claim waits up to 60 s for a watcher mid-revert */
#define DM_MAX 64 /* watchers renewed at once */

/* ---- scripts --------------------------------------------------------------- */

/* The directory check every script starts with: GL_WATCH_DIR made if
 * missing, and refused unless it is a real directory of the user running
 * the script that nobody else may write (a planted /run/gauntlet would
 * otherwise choose what runs as root). */
static void put_dir_check(struct gl_buf *b)
{
	gl_buf_printf(
		b, "umask 077\n"
		   "if [ \"$(id -u)\" = 0 ]; then D=" GL_WATCH_DIR "; else D=/tmp/gauntlet-$(id -u); fi\n"
		   "[ -d \"$D\" ] || mkdir -m 700 \"$D\" 2>/dev/null || [ -d \"$D\" ] || "
		   "{ echo \"gauntlet: cannot make $D\"; exit 3; }\n"
		   "if [ -L \"$D\" ] || [ ! -d \"$D\" ]; then echo \"gauntlet: $D is not a directory\"; exit 3; fi\n"
		   "set -- $(ls -ldn \"$D\")\n"
		   "[ \"$3\" = \"$(id -u)\" ] || { echo \"gauntlet: $D belongs to uid $3, not $(id -u)\"; exit 3; }\n"
		   "case $1 in ?????w????*|????????w?*) echo \"gauntlet: $D is writable by others ($1)\"; exit 3;; "
		   "esac\n");
}

/* "pid P runs B.sh": its command line names the script (a pid reused by
 * another process is never signalled). */
#define DM_IS_WATCHER(p) \
	"[ -n \"" p "\" ] && [ -r /proc/" p "/cmdline ] && tr '\\000' ' ' < /proc/" p "/cmdline | grep -qF \"$B.sh\""

struct dm_cfg {
	char base[200];
	int64_t grace_s, end_s, renew_s;
	char host[GL_NAME_MAX];
};

/* The watcher itself (what B.sh holds). */
static void watcher_script(struct gl_buf *b, const struct dm_cfg *d, const char *run_id, const struct fault_rt *f,
			   const char *revert)
{
	gl_buf_printf(b,
		      "# gauntlet dead-man's switch: run %s, fault '%s' (%s%s%s) on host '%s'.\n"
		      "# While the controller lives it rewrites $B.lease every %lld s. If the lease\n"
		      "# stays the same for %lld s, or %lld s pass (the fault's planned end plus the\n"
		      "# grace; each renewal says how far off that is now), this script takes the\n"
		      "# claim ($B.claim; a normal revert takes it first and stops this script),\n"
		      "# runs the revert below and writes $B.rec.\n",
		      run_id, f->row.id, f->row.kind, f->row.method[0] ? "/" : "", f->row.method, d->host,
		      (long long)d->renew_s, (long long)d->grace_s, (long long)d->end_s);
	gl_buf_printf(
		b,
		"B=${0%%.sh}   # %s in the watchers' directory\n"
		"GRACE=%lld END=%lld\n"
		"echo $$ > \"$B.pid\"\n"
		"trap '' HUP INT\n"
		"trap 'rm -f \"$B.pid\"; exit 0' TERM\n"
		"start=$(date +%%s); last=$start; endat=$((start + END)); seen=$(cat \"$B.lease\" 2>/dev/null)\n"
		"while :; do\n"
		"\tsleep 1\n"
		"\t# its files removed: the fault was reverted and this watcher let go\n"
		"\t[ -e \"$B.sh\" ] || { rm -f \"$B.pid\"; exit 0; }\n"
		"\tnow=$(date +%%s); cur=$(cat \"$B.lease\" 2>/dev/null)\n"
		"\tif [ \"$cur\" != \"$seen\" ]; then\n"
		"\t\tseen=$cur; last=$now\n"
		"\t\t# \"SEQ LEFT\": the planned end plus the grace is LEFT s away (resume moves it)\n"
		"\t\tset -- $cur\n"
		"\t\tcase ${2:-x} in *[!0-9]*) ;; *) endat=$((now + $2));; esac\n"
		"\tfi\n"
		"\tif [ $((now - last)) -ge $GRACE ]; then why=\"lease not renewed for $((now - last)) s\"; break; fi\n"
		"\tif [ $now -ge $endat ]; then why=\"planned end plus grace passed\"; break; fi\n"
		"done\n"
		"mkdir \"$B.claim\" 2>/dev/null || { rm -f \"$B.pid\"; exit 0; }\n"
		"trap '' TERM\n"
		"echo watcher > \"$B.claim/by\"\n"
		"t0=$(date +%%s)\n"
		"(\n%s) > \"$B.out\" 2>&1 < /dev/null\n"
		"st=$?\n"
		"printf 'by=watcher\\nwhy=%%s\\narmed=%%s\\nstarted=%%s\\nreverted_at=%%s\\nstatus=%%s\\n' \"$why\" "
		"\"$start\" \"$t0\" \"$(date +%%s)\" \"$st\" > \"$B.rec.tmp\" && mv -f \"$B.rec.tmp\" \"$B.rec\"\n"
		"rm -f \"$B.pid\"\n",
		d->base, (long long)d->grace_s, (long long)d->end_s, revert);
}

/* Arm: write B.sh, a fresh lease, start it detached, wait for its pid. */
static void arm_script(struct gl_buf *b, const struct dm_cfg *d, const char *watcher)
{
	put_dir_check(b);
	gl_buf_printf(b,
		      "B=$D/%s\n"
		      "rm -rf \"$B.claim\"; rm -f \"$B.pid\" \"$B.rec\" \"$B.out\"\n"
		      "cat > \"$B.sh\" <<'" GL_WATCHER_EOF "'\n%s" GL_WATCHER_EOF "\n"
		      "echo 0 > \"$B.lease\"\n"
		      "setsid sh \"$B.sh\" < /dev/null > /dev/null 2>&1 &\n"
		      "i=0; while [ ! -s \"$B.pid\" ] && [ $i -lt 250 ]; do sleep 0.02; i=$((i + 1)); done\n"
		      "[ -s \"$B.pid\" ] || { echo \"gauntlet: the watcher did not start\"; exit 1; }\n"
		      "echo \"watcher pid $(cat \"$B.pid\")\"\n",
		      d->base, watcher);
}

/* Renew: the lease rewritten, then the watcher's state in one word. */
static void renew_script(struct gl_buf *b, const char *base, int pid, uint64_t seq, int64_t left_s)
{
	put_dir_check(b);
	gl_buf_printf(b,
		      "B=$D/%s P=%d\n"
		      "echo '%llu %lld' > \"$B.lease\"\n"
		      "if [ -f \"$B.rec\" ]; then echo fired; cat \"$B.rec\"\n"
		      "elif [ -d \"$B.claim\" ]; then echo claimed\n"
		      "elif " DM_IS_WATCHER("$P") "; then echo alive\n"
						  "else echo lost; fi\n",
		      base, pid, (unsigned long long)seq, (long long)(left_s > 0 ? left_s : 0));
}

/* Claim before a normal revert: "claimed" (the watcher stopped, its files
 * removed: go on), "claimed-held" (the claim is ours but the watcher did
 * not end: its files stay until the revert is done, so that it never
 * claims), "fired" and the record (the watcher reverted it), "none"
 * (never armed, or cleaned up already). */
static void claim_script(struct gl_buf *b, const char *base)
{
	put_dir_check(b);
	gl_buf_printf(
		b,
		"B=$D/%s\n"
		"if [ ! -e \"$B.sh\" ] && [ ! -e \"$B.rec\" ] && [ ! -e \"$B.claim\" ]; then echo none; exit 0; fi\n"
		"if mkdir \"$B.claim\" 2>/dev/null; then\n"
		"\techo controller > \"$B.claim/by\"\n"
		"\tp=$(cat \"$B.pid\" 2>/dev/null)\n"
		"\tif " DM_IS_WATCHER(
			"$p") "; then\n"
			      "\t\t# its group (it leads one: setsid), so that its sleep ends too\n"
			      "\t\tkill -TERM \"-$p\" 2>/dev/null || kill -TERM \"$p\"; i=0\n"
			      "\t\t# (its command line, not kill -0: a zombie nobody reaps still answers that)\n"
			      "\t\twhile " DM_IS_WATCHER(
				      "$p") " && [ $i -lt 250 ]; do sleep 0.02; i=$((i + 1)); done\n"
					    "\t\tif " DM_IS_WATCHER(
						    "$p") "; then echo claimed-held; exit 0; fi\n"
							  "\tfi\n"
							  "\t# the watcher is gone: its files go now (one step less "
							  "for every revert);\n"
							  "\t# a controller killed before its revert finds none and "
							  "reverts anyway\n"
							  "\trm -rf \"$B.claim\"; rm -f \"$B.sh\" \"$B.lease\" "
							  "\"$B.pid\" \"$B.rec\" \"$B.rec.tmp\" \"$B.out\"\n"
							  "\techo claimed; exit 0\n"
							  "fi\n"
							  "# taken: by the watcher (reverting or done) or by an "
							  "earlier controller\n"
							  "i=0\n"
							  "while [ ! -f \"$B.rec\" ] && [ \"$(cat \"$B.claim/by\" "
							  "2>/dev/null)\" != controller ] && "
							  "[ $i -lt 600 ] && { [ -e \"$B.pid\" ] || [ $i -lt 20 ]; }; "
							  "do sleep 0.1; i=$((i + 1)); done\n"
							  "if [ -f \"$B.rec\" ]; then echo fired; cat \"$B.rec\"; exit "
							  "0; fi\n"
							  "# an earlier controller's claim (killed before it was "
							  "done): revert again;\n"
							  "# its watcher may still run (that controller died before "
							  "stopping it):\n"
							  "# stop it as above, or its files, removed after this "
							  "revert, would leave\n"
							  "# it running unclaimed, to take the claim and revert again "
							  "later\n"
							  "p=$(cat \"$B.pid\" 2>/dev/null)\n"
							  "if " DM_IS_WATCHER(
								  "$p") "; then\n"
									"\tkill -TERM \"-$p\" 2>/dev/null || kill "
									"-TERM \"$p\"; i=0\n"
									"\twhile " DM_IS_WATCHER(
										"$p") " && [ $i -lt 250 ]; do sleep "
										      "0.02; i=$((i + 1)); done\n"
										      "\tif " DM_IS_WATCHER(
											      "$p") "; then echo "
												    "claimed-held; "
												    "exit 0; fi\n"
												    "fi\n"
												    "rm -rf "
												    "\"$B.claim\"; rm "
												    "-f \"$B.sh\" "
												    "\"$B.lease\" "
												    "\"$B.pid\" "
												    "\"$B.rec\" "
												    "\"$B.rec.tmp\" "
												    "\"$B.out\"\n"
												    "echo claimed\n",
		base);
}

/* Cleanup once the fault is reverted: a watcher still running (a claim
 * that found it slow to stop) is told to stop first; it also stops by
 * itself once its script is gone. */
static void cleanup_script(struct gl_buf *b, const char *base)
{
	put_dir_check(b);
	gl_buf_printf(b,
		      "B=$D/%s\n"
		      "p=$(cat \"$B.pid\" 2>/dev/null)\n"
		      "if " DM_IS_WATCHER("$p") "; then kill -TERM \"-$p\" 2>/dev/null || kill -TERM \"$p\"; fi\n"
						"rm -rf \"$B.claim\"; rm -f \"$B.sh\" \"$B.lease\" \"$B.pid\" "
						"\"$B.rec\" \"$B.rec.tmp\" \"$B.out\"\n",
		      base);
}

/* ---- the plan's record ---------------------------------------------------- */

/* base as the plan holds it: "dm." and [A-Za-z0-9_.-], a name in the
 * watchers' directory (a store edited by someone else never names another
 * path). */
static int base_ok(const char *s)
{
	const char *pre = "dm.";
	size_t n = strlen(pre);

	if (!s || strncmp(s, pre, n) != 0 || strlen(s) >= sizeof(((struct dm_cfg *)0)->base) || !s[n])
		return 0;
	for (s += n; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.-", *s))
			return 0;
	return 1;
}

static const cJSON *dm_obj(const cJSON *plan)
{
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(plan, "deadman");
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(d, "base");

	return cJSON_IsObject(d) && cJSON_IsString(b) && base_ok(b->valuestring) ? d : NULL;
}

static int64_t dm_num(const cJSON *d, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(d, k);
	return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : 0;
}

static void file_safe(const char *in, char *out, size_t n)
{
	size_t i = 0;

	for (; *in && i + 1 < n; in++)
		out[i++] = isalnum((unsigned char)*in) || strchr("_.-", *in) ? *in : '_';
	out[i] = '\0';
}

/* The revert text and host of a plan (ops->deadman); 0, GL_DEADMAN_NONE
 * (why in b) or < 0. */
static int kind_revert(struct gl_ctx *c, const struct fault_rt *f, const cJSON *plan, struct gl_host *h,
		       struct gl_buf *b, struct gl_err *err)
{
	const struct gl_fault_ops *ops = f->spec ? f->spec->ops : NULL;

	if (!ops || !ops->deadman) {
		gl_buf_printf(b, "its kind has no watcher");
		return GL_DEADMAN_NONE;
	}
	return ops->deadman(c, plan, h, b, err);
}

/* The host a plan's watcher runs on (where the kind's revert runs): 0, or
 * what kind_revert returned (the plan has no watcher, or an error). */
static int watcher_host(struct gl_ctx *c, const struct fault_rt *f, const cJSON *plan, struct gl_host *h,
			struct gl_err *err)
{
	struct gl_buf scratch;
	int rc;

	gl_buf_init(&scratch, DM_SCRIPT_MAX);
	rc = kind_revert(c, f, plan, h, &scratch, err);
	gl_buf_free(&scratch);
	return rc;
}

int ctl_dm_plan(struct gl_ctx *c, struct fault_rt *f)
{
	struct gl_buf b;
	struct gl_host h;
	struct gl_err err = { 0 };
	cJSON *d;
	int rc;
	int ret = 0;
	int64_t renew = c->sc->deadman_renew_ns ? c->sc->deadman_renew_ns : DM_RENEW_DEFAULT_NS;
	int64_t grace = f->spec->deadman_grace_ns ? f->spec->deadman_grace_ns
			: c->sc->deadman_grace_ns ? c->sc->deadman_grace_ns
						  : 2 * renew + 30000000000LL;

	if (!f->plan || !strcmp(f->row.kind, "null") || c->sim)
		return 0;
	cJSON_DeleteItemFromObjectCaseSensitive(f->plan, "deadman");
	gl_buf_init(&b, DM_SCRIPT_MAX);
	rc = f->row.dur_ns <= 0 ? GL_DEADMAN_NOTHING : kind_revert(c, f, f->plan, &h, &b, &err);
	d = cJSON_AddObjectToObject(f->plan, "deadman");
	if (!d)
		goto out;
	if (rc != 0) {
		const char *why = rc < 0               ? err.msg
				  : f->row.dur_ns <= 0 ? "an instantaneous fault is reverted at once"
				  : b.data             ? b.data
						       : "none";
		cJSON_AddStringToObject(d, "none", why);
		snprintf(f->row.deadman, sizeof(f->row.deadman), "%s: %s",
			 rc == GL_DEADMAN_NOTHING ? "not needed" : "none", why);
		if (rc < 0 && c->clk.mono_start)
			gl_ctx_event(c, GL_LOG_WARN, "fault", "'%s': no dead-man's switch: %s", f->row.id, why);
		if (rc != GL_DEADMAN_NOTHING && c->sc->require_deadman)
			ret = -1;
	} else {
		char id[64], nonce[9] = "", run[40];
		unsigned char r[4] = { 0 };
		int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
		int64_t t_rev = gl_timeline_real_ns(f->spec->at_ns + f->spec->dur_ns, c->clk.scale);
		int64_t left = t_rev - (c->clk.mono_start ? gl_ctx_elapsed_ns(c) : 0);

		if (fd >= 0) {
			if (read(fd, r, sizeof(r)) != (ssize_t)sizeof(r))
				r[0] ^= (unsigned char)getpid();
			close(fd);
		}
		snprintf(nonce, sizeof(nonce), "%02x%02x%02x%02x", r[0], r[1], r[2], r[3]);
		file_safe(f->row.id, id, sizeof(id));
		file_safe(c->run.id[0] ? c->run.id : "dryrun", run, sizeof(run));
		{
			char base[200];
			snprintf(base, sizeof(base), "dm.%s.%s.%s", run, id, nonce);
			cJSON_AddStringToObject(d, "base", base);
		}
		cJSON_AddStringToObject(d, "host", h.name);
		cJSON_AddNumberToObject(d, "renew_s", (double)((renew + 999999999) / 1000000000));
		cJSON_AddNumberToObject(d, "grace_s", (double)((grace + 999999999) / 1000000000));
		cJSON_AddNumberToObject(
			d, "end_s",
			(double)((left > 0 ? (left + 999999999) / 1000000000 : 0) + (grace + 999999999) / 1000000000));
		snprintf(f->row.deadman, sizeof(f->row.deadman), "armed");
	}
out:
	gl_buf_free(&b);
	return ret;
}

static int cfg_of(const cJSON *d, struct dm_cfg *cfg)
{
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(d, "host");

	memset(cfg, 0, sizeof(*cfg));
	if (!d)
		return -1;
	snprintf(cfg->base, sizeof(cfg->base), "%s", cJSON_GetObjectItemCaseSensitive(d, "base")->valuestring);
	snprintf(cfg->host, sizeof(cfg->host), "%s", cJSON_IsString(h) ? h->valuestring : "?");
	cfg->grace_s = dm_num(d, "grace_s");
	cfg->end_s = dm_num(d, "end_s");
	cfg->renew_s = dm_num(d, "renew_s");
	return cfg->grace_s >= 2 && cfg->end_s >= 0 ? 0 : -1;
}

/* The watcher's text for a fault (arm, --dry-run): 0, or GL_DEADMAN_NONE
 * / < 0 as kind_revert. */
static int build_watcher(struct gl_ctx *c, const struct fault_rt *f, const cJSON *plan, struct gl_host *h,
			 struct dm_cfg *cfg, struct gl_buf *out, struct gl_err *err)
{
	struct gl_buf rv;
	int rc;

	if (cfg_of(dm_obj(plan), cfg) != 0)
		return GL_DEADMAN_NONE;
	gl_buf_init(&rv, DM_SCRIPT_MAX);
	rc = kind_revert(c, f, plan, h, &rv, err);
	if (rc == 0 && (!rv.data || rv.cut || strstr(rv.data, GL_WATCHER_EOF)))
		rc = gl_errf(err, GL_EINVAL, "fault '%s': its revert does not fit a watcher script", f->row.id);
	if (rc == 0) {
		watcher_script(out, cfg, c ? c->run.id : "?", f, rv.data);
		if (out->cut)
			rc = gl_errf(err, GL_ELIMIT, "fault '%s': the watcher script is too long", f->row.id);
	}
	gl_buf_free(&rv);
	return rc;
}

void ctl_dm_describe(const struct fault_rt *f, const cJSON *plan, struct gl_buf *out)
{
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(plan, "deadman");
	const cJSON *none = cJSON_GetObjectItemCaseSensitive(d, "none");
	struct gl_host h;
	struct dm_cfg cfg;
	struct gl_buf w;
	struct gl_err err = { 0 };

	if (cJSON_IsString(none)) {
		gl_buf_printf(out, "  dead-man's switch: none (%s)\n", none->valuestring);
		return;
	}
	gl_buf_init(&w, DM_SCRIPT_MAX);
	if (build_watcher(NULL, f, plan, &h, &cfg, &w, &err) == 0) {
		gl_buf_printf(
			out,
			"  dead-man's switch: on host '%s', grace %lld s, started before inject as setsid sh D/%s.sh "
			"(D: " GL_WATCH_DIR " as root, else /tmp/gauntlet-UID):\n",
			cfg.host, (long long)cfg.grace_s, cfg.base);
		for (const char *p = w.data; p && *p;) {
			size_t n = strcspn(p, "\n");
			gl_buf_printf(out, "    | ");
			for (size_t k = 0; k < n; k++) /* tabs as spaces: the terminal shows them */
				gl_buf_printf(out, p[k] == '\t' ? "    " : "%c", p[k]);
			gl_buf_printf(out, "\n");
			p += n + (p[n] == '\n');
		}
	} else if (d) {
		gl_buf_printf(out, "  dead-man's switch: none%s%s\n", err.msg[0] ? ": " : "", err.msg);
	}
	gl_buf_free(&w);
}

/* Run a script on h: 0 with its trimmed output in out, or < 0. */
static int run_sh(const struct gl_host *h, const char *script, int64_t timeout_ms, char *out, size_t n, int *status,
		  struct gl_err *err)
{
	const char *argv[] = { "sh", "-c", script, NULL };
	struct gl_exec_result res = { 0 };
	int rc = gl_host_exec(h, argv, timeout_ms, &res, err);

	if (out && n) {
		snprintf(out, n, "%s", rc == 0 && res.out.data ? res.out.data : "");
		for (size_t l = strlen(out); l && (out[l - 1] == '\n' || out[l - 1] == ' '); l--)
			out[l - 1] = '\0';
	}
	if (status)
		*status = rc == 0 ? (res.timed_out ? -1 : res.exit_status) : -1;
	gl_buf_free(&res.out);
	return rc;
}

int ctl_dm_arm(struct gl_ctx *c, const struct fault_rt *f, int *pid, struct gl_err *err)
{
	struct gl_buf w, a;
	struct gl_host h;
	struct dm_cfg cfg;
	char out[512];
	int rc, status;

	*pid = 0;
	gl_buf_init(&w, DM_SCRIPT_MAX);
	gl_buf_init(&a, DM_SCRIPT_MAX + 4096);
	rc = build_watcher(c, f, f->plan, &h, &cfg, &w, err);
	if (rc == GL_DEADMAN_NONE || rc == GL_DEADMAN_NOTHING) {
		rc = 0;
		goto out;
	}
	if (rc)
		goto out;
	arm_script(&a, &cfg, w.data);
	rc = run_sh(&h, a.data, DM_ARM_TIMEOUT_MS, out, sizeof(out), &status, err);
	if (rc == 0 && (status != 0 || sscanf(out, "watcher pid %d", pid) != 1 || *pid <= 0))
		rc = gl_errf(err, GL_EIO, "the dead-man's switch did not start on host '%s' (exit %d): %s", h.name,
			     status, out[0] ? out : "no output");
out:
	gl_buf_free(&w);
	gl_buf_free(&a);
	return rc;
}

/* Parse a record ("key=value" lines) into rec. */
static void parse_rec(const char *text, struct ctl_dm_rec *rec)
{
	const char *p = text;

	memset(rec, 0, sizeof(*rec));
	rec->status = -1;
	while (p && *p) {
		size_t n = strcspn(p, "\n");
		char line[300];
		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1), p);
		if (!strncmp(line, "why=", 4))
			snprintf(rec->why, sizeof(rec->why), "%s", line + 4);
		else if (!strncmp(line, "armed=", 6))
			rec->armed = strtoll(line + 6, NULL, 10);
		else if (!strncmp(line, "started=", 8))
			rec->started = strtoll(line + 8, NULL, 10);
		else if (!strncmp(line, "reverted_at=", 12))
			rec->reverted_at = strtoll(line + 12, NULL, 10);
		else if (!strncmp(line, "status=", 7))
			rec->status = atoi(line + 7);
		p += n + (p[n] == '\n');
	}
}

int ctl_dm_claim(struct gl_ctx *c, const struct fault_rt *f, const cJSON *plan, struct ctl_dm_rec *rec,
		 struct gl_err *err)
{
	const cJSON *d = dm_obj(plan);
	struct gl_buf b;
	struct gl_host h;
	char out[2048];
	int rc, status;

	memset(rec, 0, sizeof(*rec));
	if (!d)
		return CTL_DM_NONE;
	rc = watcher_host(c, f, plan, &h, err);
	if (rc)
		return rc < 0 ? rc : CTL_DM_NONE;
	gl_buf_init(&b, 16384);
	claim_script(&b, cJSON_GetObjectItemCaseSensitive(d, "base")->valuestring);
	rc = run_sh(&h, b.data, DM_CLAIM_TIMEOUT_MS, out, sizeof(out), &status, err);
	gl_buf_free(&b);
	if (rc)
		return rc;
	if (status != 0)
		return gl_errf(err, GL_EIO, "the dead-man's switch on host '%s' could not be claimed (exit %d): %s",
			       h.name, status, out);
	if (!strncmp(out, "fired", 5)) {
		parse_rec(out + 5, rec);
		return CTL_DM_FIRED;
	}
	if (!strncmp(out, "claimed-held", 12))
		return CTL_DM_CLAIMED_HELD;
	return !strncmp(out, "none", 4) ? CTL_DM_NONE : CTL_DM_CLAIMED;
}

void ctl_dm_cleanup(struct gl_ctx *c, const struct fault_rt *f, const cJSON *plan)
{
	const cJSON *d = dm_obj(plan);
	struct gl_buf b;
	struct gl_host h;
	struct gl_err err = { 0 };

	if (!d || watcher_host(c, f, plan, &h, &err) != 0)
		return;
	gl_buf_init(&b, 16384);
	cleanup_script(&b, cJSON_GetObjectItemCaseSensitive(d, "base")->valuestring);
	if (run_sh(&h, b.data, 30000, NULL, 0, NULL, &err) != 0)
		gl_warn("fault '%s': the watcher's files on host '%s' were not removed: %s", f->row.id, h.name,
			err.msg);
	gl_buf_free(&b);
}

/* ---- lease renewals --------------------------------------------------------- */

enum { R_NONE, R_ALIVE, R_LOST, R_FIRED, R_CLAIMED, R_ERROR };

struct dm_entry {
	int idx, used;
	struct gl_host h;
	char base[200];
	int pid;
	int64_t end_ns; /* run elapsed: the planned end plus the grace */
	int64_t grace_s;
	int injecting; /* armed, its inject still running: no end yet */
	int result, reported; /* R_*: last seen, last acted on */
	char detail[600];
};

struct gl_dm {
	struct gl_ctx *c;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int quit, on;
	int64_t renew_ns;
	uint64_t seq;
	struct dm_entry e[DM_MAX];
	int pipe[2];
	struct event *ev;
};

static void *dm_main(void *arg)
{
	struct gl_dm *w = arg;

	pthread_mutex_lock(&w->mu);
	while (!w->quit) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += w->renew_ns / 1000000000LL;
		ts.tv_nsec += w->renew_ns % 1000000000LL;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		while (!w->quit && pthread_cond_timedwait(&w->cv, &w->mu, &ts) != ETIMEDOUT)
			;
		if (w->quit)
			break;
		w->seq++;
		for (int i = 0; i < DM_MAX && !w->quit; i++) {
			struct dm_entry e;
			struct gl_buf b;
			struct gl_err err = { 0 };
			char out[600];
			int rc, status, r;
			uint64_t seq = w->seq;

			if (!w->e[i].used || w->e[i].result == R_FIRED || w->e[i].result == R_LOST)
				continue;
			e = w->e[i];
			pthread_mutex_unlock(&w->mu);
			gl_buf_init(&b, 16384);
			/* while the inject runs the end stays a grace away: the
			 * controller reverts once the inject is done, and a
			 * watcher that fired before then would revert before the
			 * fault was in and leave it in unguarded */
			renew_script(&b, e.base, e.pid, seq,
				     e.injecting ? e.grace_s
						 : (e.end_ns - gl_ctx_elapsed_ns(w->c) + 999999999) / 1000000000);
			/* a renewal never takes longer than the interval it keeps */
			rc = run_sh(&e.h, b.data, w->renew_ns / 1000000 > 2000 ? w->renew_ns / 1000000 : 2000, out,
				    sizeof(out), &status, &err);
			gl_buf_free(&b);
			r = rc                            ? R_ERROR
			    : status != 0                 ? R_ERROR
			    : !strncmp(out, "alive", 5)   ? R_ALIVE
			    : !strncmp(out, "fired", 5)   ? R_FIRED
			    : !strncmp(out, "claimed", 7) ? R_CLAIMED
			    : !strncmp(out, "lost", 4)    ? R_LOST
							  : R_ERROR;
			pthread_mutex_lock(&w->mu);
			if (!w->e[i].used || strcmp(w->e[i].base, e.base) != 0)
				continue; /* unwatched meanwhile */
			w->e[i].result = r;
			if (r == R_ERROR)
				snprintf(w->e[i].detail, sizeof(w->e[i].detail), "%s",
					 rc       ? err.msg
					 : out[0] ? out
						  : "the renewal script failed");
			else
				snprintf(w->e[i].detail, sizeof(w->e[i].detail), "%s", out);
			if (r != w->e[i].reported) {
				char one = 1;
				if (write(w->pipe[1], &one, 1) < 0) {
					/* the loop reads the table on its next wake-up anyway */
				}
			}
		}
	}
	pthread_mutex_unlock(&w->mu);
	gl_ssh_thread_done();
	return NULL;
}

/* Loop thread: act on what the renewals found. */
static void on_dm(evutil_socket_t fd, short what, void *arg)
{
	struct gl_ctx *c = arg;
	struct gl_dm *w = c->dm;
	char buf[64];

	while (read(w->pipe[0], buf, sizeof(buf)) > 0)
		;
	for (int i = 0; i < DM_MAX; i++) {
		struct dm_entry e;
		struct fault_rt *f;

		pthread_mutex_lock(&w->mu);
		e = w->e[i];
		if (e.used)
			w->e[i].reported = e.result;
		pthread_mutex_unlock(&w->mu);
		if (!e.used || e.result == e.reported || e.idx < 0 || e.idx >= c->sc->n_faults)
			continue;
		f = &c->faults[e.idx];
		switch (e.result) {
		case R_LOST:
			gl_ctx_event(
				c, GL_LOG_ERROR, "fault",
				"'%s': its dead-man's switch on host '%s' is LOST (watcher pid %d is not running and "
				"left no record): the fault is no longer guarded against the loss of this controller",
				f->row.id, e.h.name, e.pid);
			snprintf(f->row.deadman, sizeof(f->row.deadman), "lost");
			if (!f->busy)
				ctl_journal(c, f);
			break;
		case R_FIRED: {
			struct ctl_dm_rec rec;
			if (f->busy && f->row.state == GL_FAULT_INJECTING) {
				f->dm_fired_inject = 1; /* apply_job journals it and reverts */
				break;
			}
			parse_rec(strchr(e.detail, '\n') ? strchr(e.detail, '\n') + 1 : "", &rec);
			gl_ctx_event(
				c, GL_LOG_ERROR, "fault",
				"'%s' was reverted by its watcher on host '%s' (%s) while this controller ran: its "
				"lease renewals did not arrive",
				f->row.id, e.h.name, rec.why[0] ? rec.why : "no reason recorded");
			snprintf(f->row.deadman, sizeof(f->row.deadman), "fired");
			ctl_fault_revert(c, f, "its watcher reverted it");
			break;
		}
		case R_ERROR:
			gl_ctx_event(c, GL_LOG_WARN, "fault",
				     "'%s': cannot renew the lease of its watcher on host '%s': %s", f->row.id,
				     e.h.name, e.detail);
			break;
		case R_ALIVE:
			if (e.reported == R_ERROR)
				gl_ctx_event(c, GL_LOG_INFO, "fault",
					     "'%s': its watcher's lease on host '%s' renewed again", f->row.id,
					     e.h.name);
			break;
		default: break;
		}
	}
}

int ctl_dm_start(struct gl_ctx *c)
{
	struct gl_dm *w = calloc(1, sizeof(*w));

	if (!w)
		return -1;
	c->dm = w;
	w->c = c;
	w->renew_ns = c->sc->deadman_renew_ns ? c->sc->deadman_renew_ns : DM_RENEW_DEFAULT_NS;
	pthread_mutex_init(&w->mu, NULL);
	{
		pthread_condattr_t ca;
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&w->cv, &ca);
		pthread_condattr_destroy(&ca);
	}
	if (pipe2(w->pipe, O_CLOEXEC | O_NONBLOCK) != 0)
		return -1;
	w->ev = event_new(c->base, w->pipe[0], EV_READ | EV_PERSIST, on_dm, c);
	if (!w->ev || event_add(w->ev, NULL) != 0 || pthread_create(&w->th, NULL, dm_main, w) != 0)
		return -1;
	w->on = 1;
	/* resume: the watchers of faults still in keep being renewed */
	for (int i = 0; i < c->sc->n_faults; i++)
		if (c->faults[i].row.state == GL_FAULT_INJECTED)
			ctl_dm_watch(c, &c->faults[i]);
	return 0;
}

void ctl_dm_stop(struct gl_ctx *c)
{
	struct gl_dm *w = c->dm;

	if (!w)
		return;
	if (w->on) {
		pthread_mutex_lock(&w->mu);
		w->quit = 1;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->th, NULL);
	}
	if (w->ev)
		event_free(w->ev);
	if (w->pipe[0] > 0) {
		close(w->pipe[0]);
		close(w->pipe[1]);
	}
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w);
	c->dm = NULL;
}

/* Put f's watcher (pid) into the renewed set: 0, -1 when it has none, -2
 * when the set is full. Loop thread, or the executor while f is busy. */
static int dm_watch(struct gl_ctx *c, struct fault_rt *f, int pid, int injecting)
{
	struct gl_dm *w = c->dm;
	const cJSON *d = dm_obj(f->plan);
	struct gl_host h;
	struct gl_err err = { 0 };
	int slot = -1;
	int64_t end = gl_timeline_real_ns(f->spec->at_ns + f->spec->dur_ns, c->clk.scale);

	if (!w || !d || pid <= 0 || watcher_host(c, f, f->plan, &h, &err) != 0)
		return -1;
	/* injected after its planned end (a slow inject, a busy executor, a
	 * resume): the controller reverts at once, so the end counts from then */
	if (!injecting && f->row.injected_elapsed_ns > end)
		end = f->row.injected_elapsed_ns;
	ctl_dm_unwatch(c, f);
	pthread_mutex_lock(&w->mu);
	for (int i = 0; i < DM_MAX && slot < 0; i++)
		if (!w->e[i].used)
			slot = i;
	if (slot >= 0) {
		struct dm_entry *e = &w->e[slot];
		memset(e, 0, sizeof(*e));
		e->used = 1;
		e->idx = (int)(f - c->faults);
		e->h = h;
		e->pid = pid;
		e->grace_s = dm_num(d, "grace_s");
		e->end_ns = end + e->grace_s * 1000000000LL;
		e->injecting = injecting;
		snprintf(e->base, sizeof(e->base), "%s", cJSON_GetObjectItemCaseSensitive(d, "base")->valuestring);
	}
	pthread_mutex_unlock(&w->mu);
	return slot >= 0 ? 0 : -2;
}

void ctl_dm_watch_arming(struct gl_ctx *c, struct fault_rt *f, int pid)
{
	dm_watch(c, f, pid, 1); /* a full set is said by ctl_dm_watch once injected */
}

void ctl_dm_watch(struct gl_ctx *c, struct fault_rt *f)
{
	const cJSON *pid = cJSON_GetObjectItemCaseSensitive(dm_obj(f->plan), "pid");

	if (!c->dm || !cJSON_IsNumber(pid))
		return;
	if (dm_watch(c, f, (int)pid->valuedouble, 0) == -2)
		gl_ctx_event(c, GL_LOG_WARN, "fault",
			     "'%s': more than %d watchers at once: its lease is not renewed, so "
			     "its watcher reverts it after its grace",
			     f->row.id, DM_MAX);
}

void ctl_dm_unwatch(struct gl_ctx *c, struct fault_rt *f)
{
	struct gl_dm *w = c->dm;
	int idx = (int)(f - c->faults);

	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	for (int i = 0; i < DM_MAX; i++)
		if (w->e[i].used && w->e[i].idx == idx)
			w->e[i].used = 0;
	pthread_mutex_unlock(&w->mu);
}
