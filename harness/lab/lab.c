/*
 * lab.c - the local lab: a small real cluster on one Linux machine.
 *
 * `gauntlet lab up` builds it part by part, `down` takes it apart, `status`
 * checks each part. Parts (docs/lab.md maps each to a real cluster's part):
 *
 *   net      a veth pair gl-lab0/gl-lab0p (10.77.0.1, the controller's address),
 *            an unreachable route for 10.77.0.0/16 (nothing leaks out)
 *            and per worker a network namespace gl-lab-wN joined to the host
 *            by a veth pair gl-lab-wNh <-> gl-lab-wNn (10.77.N.1 / 10.77.N.2)
 *   workers  per worker a supervisor (`gauntlet lab agent`) keeping a
 *            `gauntlet target` replica serving inside the namespace; it stops
 *            the replica while Slurm has the node drained
 *   etcd     three members on 127.0.0.1, started by DIR/bin/etcd-member
 *   slurm    munged (private key and socket), slurmctld on 10.77.0.1, one
 *            slurmd per worker namespace (nodes lab-w1, lab-w2, ...)
 *   sshd     a private sshd on 127.0.0.1 with generated host and client keys
 *            and a known_hosts file
 *   storage  DIR/storage and a blkio (v1) or io (v2) cgroup gauntlet-lab
 *   mpi      the mpirun arguments the training workload needs here
 *
 * Crash safety: before each thing is made, a line naming it is appended to
 * DIR/lab.journal and synced; every process the lab starts carries
 * GL_LAB_ID=<id> in its environment. `down` reads the journal and scans
 * /proc for that variable, so it cleans up after a `lab up` that was
 * SIGKILLed halfway, and it never touches anything it did not make.
 *
 * This file is the command (`gauntlet lab up|down|status|agent`), building
 * the lab part by part and writing its inventory; lab_int.h says what the
 * lab's other files own.
 */
#define _GNU_SOURCE
#include "lab_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan.h"
#include "states.h"

/* The lab directory reaches generated shell scripts (bin/etcd-member, the
 * munge check), slurm.conf and sshd_config: only plain path characters,
 * so no quote, space, '$' or newline can turn into code or a config line
 * there. 1 when dir is fine, else 0 with why. */
static int lab_dir_ok(const char *dir, char *why, size_t n)
{
	for (const char *c = dir; *c; c++) {
		unsigned char u = (unsigned char)*c;
		if (!((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') ||
		      strchr("/._+-", u))) {
			if (u < 0x20 || u >= 0x7f)
				snprintf(why, n, "byte 0x%02x at %zu is not allowed", u, (size_t)(c - dir));
			else
				snprintf(why, n, "character %c (0x%02x) at %zu is not allowed", u, u,
					 (size_t)(c - dir));
			return 0;
		}
		if (c[0] == '/' && (c[1] == '-' || (c[1] == '.' && (c[2] == '/' || !c[2] ||
								    (c[2] == '.' && (c[3] == '/' || !c[3])))))) {
			snprintf(why, n,
				 c[1] == '-' ? "a component at %zu starts with '-'"
					     : "a component at %zu is '.' or '..'",
				 (size_t)(c - dir + 1));
			return 0;
		}
	}
	return 1;
}

/* ---- inventory --------------------------------------------------------------------------------- */

static int write_inventory(struct lab *L)
{
	char path[1100], *text;
	cJSON *hosts = lab_inv_obj(L, "hosts"), *h;
	int rc;

	/* the controller itself, and each worker as a local host in its namespace */
	h = cJSON_AddObjectToObject(hosts, "lab-ctl");
	cJSON_AddBoolToObject(h, "local", 1);
	if (L->net)
		for (int w = 1; w <= L->workers; w++) {
			char name[32], ns[32], ip[32];
			snprintf(name, sizeof(name), "lab-w%d", w);
			snprintf(ns, sizeof(ns), "gl-lab-w%d", w);
			h = cJSON_AddObjectToObject(hosts, name);
			cJSON_AddBoolToObject(h, "local", 1);
			cJSON_AddStringToObject(h, "netns", ns);
			cJSON_AddStringToObject(h, "slurm_node", name);
			lab_worker_ip(w, 0, ip, sizeof(ip));
			cJSON_AddStringToObject(h, "address", ip);
		}
	snprintf(path, sizeof(path), "%s/inventory.json", L->dir);
	if (!(text = cJSON_Print(L->inv)))
		return -1;
	rc = lab_write_text(path, text, 0600);
	cJSON_free(text);
	return rc;
}

/* ---- entry ------------------------------------------------------------------------------------------- */

static int open_journal(struct lab *L, int create)
{
	L->jfd = open(L->journal, O_RDWR | O_APPEND | O_CLOEXEC | (create ? O_CREAT : 0), 0600);
	if (L->jfd < 0)
		return -1;
	if (flock(L->jfd, LOCK_EX | LOCK_NB) != 0) {
		fprintf(stderr, "gauntlet lab: another `gauntlet lab` command holds %s; waiting\n", L->journal);
		if (flock(L->jfd, LOCK_EX) != 0)
			return -1;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gauntlet lab up [--dir DIR] [--workers N]\n"
		   "       gauntlet lab down [--dir DIR]\n"
		   "       gauntlet lab status [--dir DIR]\n"
		   "DIR defaults to $GL_LAB_DIR or " LAB_DIR_DEFAULT "; N (worker namespaces) to 2.\n"
		   "up writes DIR/inventory.json, which scenarios name with \"inventory\".\n");
}

static int lab_up(struct lab *L)
{
	char p[1100];
	struct stat st;
	cJSON *inv;
	int bad;

	/* already up: healthy is done; unhealthy is reported, never rebuilt
	 * under a run that may be using it */
	if ((inv = lab_load_inventory(L))) {
		lab_say("a lab is already up in %s; checking it", L->dir);
		bad = lab_check(L, inv, 1);
		cJSON_Delete(inv);
		if (bad)
			lab_say("%d check(s) failed: `gauntlet lab down` then `gauntlet lab up` rebuilds it", bad);
		else
			lab_say("nothing to do; inventory %s/inventory.json", L->dir);
		return bad ? 1 : 0;
	}
	/* a journal without an inventory: an earlier up died halfway */
	if (access(L->journal, F_OK) == 0) {
		lab_say("%s holds an unfinished lab (an earlier `lab up` stopped halfway): taking it down first",
			L->dir);
		if (open_journal(L, 0) != 0)
			return GL_EXIT_HARNESS_ERROR;
		if (lab_down(L, 0) != 0)
			return GL_EXIT_HARNESS_ERROR;
		close(L->jfd);
		L->jfd = -1;
	}
	if (stat(L->dir, &st) == 0) {
		DIR *d = opendir(L->dir);
		struct dirent *e;
		int n = 0;
		snprintf(p, sizeof(p), "%s/.gauntlet-lab", L->dir);
		while (d && (e = readdir(d)))
			n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
		if (d)
			closedir(d);
		if (n && access(p, F_OK) != 0) {
			fprintf(stderr, "gauntlet lab: %s exists and is not a lab directory: choose another --dir\n",
				L->dir);
			return GL_EXIT_BAD_INPUT;
		}
	}
	if (gl_mkdir_p(L->dir, 0700, NULL) != 0) {
		fprintf(stderr, "gauntlet lab: cannot make %s: %s\n", L->dir, strerror(errno));
		return GL_EXIT_HARNESS_ERROR;
	}
	snprintf(p, sizeof(p), "%s/.gauntlet-lab", L->dir);
	if (lab_write_text(p, "a gauntlet lab directory: `gauntlet lab down` removes it\n", 0600) != 0 ||
	    open_journal(L, 1) != 0) {
		fprintf(stderr, "gauntlet lab: cannot write in %s: %s\n", L->dir, strerror(errno));
		return GL_EXIT_HARNESS_ERROR;
	}
	{
		unsigned char r[8];
		int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
		if (fd < 0 || read(fd, r, sizeof(r)) != (ssize_t)sizeof(r)) {
			fprintf(stderr, "gauntlet lab: cannot read /dev/urandom\n");
			return GL_EXIT_HARNESS_ERROR;
		}
		close(fd);
		snprintf(L->id, sizeof(L->id), "gl-lab-%02x%02x%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2], r[3], r[4],
			 r[5], r[6], r[7]);
	}
	lab_journal_add(L, "id\t%s", L->id);
	for (const char *sub = "logs\0etcd\0slurm\0ssh\0bin\0"; *sub; sub += strlen(sub) + 1) {
		snprintf(p, sizeof(p), "%s/%s", L->dir, sub);
		gl_mkdir_p(p, 0700, NULL);
	}
	L->inv = cJSON_CreateObject();
	cJSON_AddStringToObject(L->inv, "lab_id", L->id);
	cJSON_AddStringToObject(L->inv, "dir", L->dir);
	cJSON_AddStringToObject(L->inv, "gauntlet", L->self);
	cJSON_AddBoolToObject(L->inv, "root", L->root);
	L->parts = cJSON_AddObjectToObject(L->inv, "parts");
	lab_say("building in %s (id %s)%s", L->dir, L->id, L->root ? "" : "; not root: some parts cannot be built");
	lab_up_net(L);
	lab_up_slurm(L);
	lab_up_workers(L);
	lab_up_etcd(L);
	lab_up_sshd(L);
	lab_up_storage(L);
	lab_up_mpi(L);
	if (write_inventory(L) != 0)
		return GL_EXIT_HARNESS_ERROR;
	lab_say("inventory: %s/inventory.json (%d lab_part(s) not built)", L->dir, L->failed);
	return L->failed ? 1 : 0;
}

/* --dir and --workers after the subcommand; 0, or 2 (a usage error, said) */
static int parse_args(struct lab *L, int argc, char **argv, const char **dir)
{
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
			*dir = argv[++i];
		} else if (!strcmp(argv[i], "--workers") && i + 1 < argc) {
			char *end;
			long w = strtol(argv[++i], &end, 10);
			if (*end || w < 1 || w > LAB_MAX_WORKERS) {
				fprintf(stderr, "gauntlet lab: --workers: expected 1 to %d, got '%s'\n",
					LAB_MAX_WORKERS, argv[i]);
				return GL_EXIT_BAD_INPUT;
			}
			L->workers = (int)w;
		} else {
			fprintf(stderr, "gauntlet lab: unknown argument '%s'\n", argv[i]);
			usage(stderr);
			return GL_EXIT_BAD_INPUT;
		}
	}
	return 0;
}

/* The lab directory and its journal's path from --dir (or the default);
 * 0, or 2 when dir is not one a lab may use (said). */
static int set_dir(struct lab *L, const char *dir)
{
	char why[128];

	if (!dir || !*dir)
		dir = LAB_DIR_DEFAULT;
	if (dir[0] != '/' || strlen(dir) >= sizeof(L->dir) - 64 || !strcmp(dir, "/")) {
		fprintf(stderr, "gauntlet lab: --dir: expected an absolute path other than /, got '%s'\n", dir);
		return GL_EXIT_BAD_INPUT;
	}
	if (!lab_dir_ok(dir, why, sizeof(why))) {
		/* before anything is made: the directory reaches generated
		 * shell scripts, slurm.conf and sshd_config */
		struct gl_buf q;
		gl_buf_init(&q, 256);
		gl_buf_append_argv(&q, (const char *const[]){ dir, NULL });
		fprintf(stderr,
			"gauntlet lab: --dir %s: %s; a lab directory is an absolute path of letters, "
			"digits and / . _ + - (no component starting with '-', no '.' or '..')\n",
			q.data ? q.data : "", why);
		gl_buf_free(&q);
		return GL_EXIT_BAD_INPUT;
	}
	snprintf(L->dir, sizeof(L->dir), "%s", dir);
	while (strlen(L->dir) > 1 && L->dir[strlen(L->dir) - 1] == '/')
		L->dir[strlen(L->dir) - 1] = '\0';
	snprintf(L->journal, sizeof(L->journal), "%s/lab.journal", L->dir);
	return 0;
}

/* `down`: a directory without a journal held no running lab */
static int cmd_down(struct lab *L)
{
	if (access(L->journal, F_OK) != 0) {
		char mark[1100];
		snprintf(mark, sizeof(mark), "%s/.gauntlet-lab", L->dir);
		if (access(mark, F_OK) == 0) {
			nftw(L->dir, lab_rm_cb, 32, FTW_DEPTH | FTW_PHYS);
			lab_say("down: removed %s (it held no running lab)", L->dir);
		} else {
			lab_say("down: no lab in %s; nothing to do", L->dir);
		}
		return 0;
	}
	if (open_journal(L, 0) != 0) {
		fprintf(stderr, "gauntlet lab: cannot open %s: %s\n", L->journal, strerror(errno));
		return GL_EXIT_HARNESS_ERROR;
	}
	return lab_down(L, 0) ? 1 : 0;
}

static int cmd_status(struct lab *L)
{
	cJSON *inv = lab_load_inventory(L);
	int rc;

	if (!inv) {
		lab_say("no lab in %s (%s)", L->dir,
			access(L->journal, F_OK) == 0 ? "a journal but no inventory: `lab up` stopped halfway; "
							"`gauntlet lab down` cleans it"
						      : "`gauntlet lab up` builds one");
		return LAB_EXIT_NO_LAB;
	}
	lab_say("lab %s in %s", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(inv, "lab_id")), L->dir);
	rc = lab_check(L, inv, 1) ? 1 : 0;
	cJSON_Delete(inv);
	return rc;
}

int gl_lab_main(int argc, char **argv)
{
	struct lab L = { .jfd = -1, .workers = 2 };
	const char *cmd, *dir = getenv("GL_LAB_DIR");
	ssize_t n;
	int rc = 0;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "agent"))
		return lab_agent(argc - 2, argv + 2);
	if (parse_args(&L, argc, argv, &dir) != 0 || set_dir(&L, dir) != 0)
		return GL_EXIT_BAD_INPUT;
	L.root = geteuid() == 0;
	if ((n = readlink("/proc/self/exe", L.self, sizeof(L.self) - 1)) <= 0) {
		fprintf(stderr, "gauntlet lab: cannot find this binary (/proc/self/exe)\n");
		return GL_EXIT_HARNESS_ERROR;
	}
	L.self[n] = '\0';
	signal(SIGPIPE, SIG_IGN);

	if (!strcmp(cmd, "up")) {
		rc = lab_up(&L);
	} else if (!strcmp(cmd, "down")) {
		rc = cmd_down(&L);
	} else if (!strcmp(cmd, "status")) {
		rc = cmd_status(&L);
	} else {
		fprintf(stderr, "gauntlet lab: unknown subcommand '%s'\n", cmd);
		usage(stderr);
		return GL_EXIT_BAD_INPUT;
	}
	cJSON_Delete(L.inv);
	if (L.jfd >= 0)
		close(L.jfd);
	return rc;
}
