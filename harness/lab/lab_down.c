/*
 * lab_down.c - `gauntlet lab down`: the lab taken apart from its journal
 * and from the mark its processes carry, after a finished `lab up` or one
 * killed halfway; nothing the lab did not make is touched.
 */
#define _GNU_SOURCE
#include "lab_int.h"

#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- down ----------------------------------------------------------------------------------------- */

int lab_rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p) != 0 && errno != ENOENT ? -1 : 0;
}

static void add_pid(pid_t *pids, int *np, pid_t pid)
{
	for (int i = 0; i < *np; i++)
		if (pids[i] == pid)
			return;
	if (*np < 512)
		pids[(*np)++] = pid;
}

/* the pid in a pidfile, when that process carries the lab's mark */
static void add_pid_file(pid_t *pids, int *np, const char *pf, const char *id)
{
	char *t = NULL;
	size_t tl;
	struct gl_err e = { 0 };
	int pid;

	if (gl_read_file(pf, 64, &t, &tl, &e) == 0 && (pid = atoi(t)) > 1 && lab_proc_marked(pid, id))
		add_pid(pids, np, (pid_t)pid);
	free(t);
}

/* what down did and what it left, for its closing line */
struct down_tally {
	int left, procs, links, ns, cgroups;
};

/* The lab's id from the journal's "id" line: it names the mark. */
static void journal_id(struct lab *L, const char *text)
{
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		if (!strncmp(p, "id\t", 3)) {
			int n = (int)((nl ? nl : p + strlen(p)) - p - 3);
			snprintf(L->id, sizeof(L->id), "%.*s", n, p + 3);
		}
		p = nl ? nl + 1 : NULL;
	}
}

/* The journal's processes still running as the ones it started (same
 * start time), and those of its pidfiles that carry the mark, into pids. */
static void journal_pids(struct lab *L, char *text, pid_t *pids, int *np)
{
	for (char *p = text; p && *p;) {
		char *nl = strchr(p, '\n'), name[64], pf[1100];
		int pid;
		unsigned long long st;
		if (nl)
			*nl = '\0';
		if (sscanf(p, "proc\t%63[^\t]\t%d\t%llu", name, &pid, &st) == 3 && pid > 1 && st &&
		    lab_proc_start(pid) == st)
			add_pid(pids, np, (pid_t)pid);
		else if (sscanf(p, "pidfile\t%63[^\t]\t%1099s", name, pf) == 2 && L->id[0])
			add_pid_file(pids, np, pf, L->id);
		if (nl)
			*nl = '\n';
		p = nl ? nl + 1 : NULL;
	}
}

/* 1. processes: every marked one, TERM then KILL; journaled pids too */
static void stop_processes(struct lab *L, char *text, struct down_tally *t)
{
	pid_t pids[512];
	int np;

	for (int round = 0; round < 2; round++) {
		np = L->id[0] ? lab_marked_pids(L->id, pids, (int)GL_ARRAY_LEN(pids)) : 0;
		journal_pids(L, text, pids, &np);
		if (!np)
			break;
		for (int i = 0; i < np; i++) {
			kill(pids[i], SIGCONT); /* a SIGSTOPped member cannot act on TERM */
			kill(pids[i], round ? SIGKILL : SIGTERM);
		}
		for (int w = 0; w < 50; w++) {
			int any = 0;
			lab_reap();
			for (int i = 0; i < np; i++)
				any |= lab_alive(pids[i]);
			if (!any)
				break;
			lab_sleep_ms(100);
		}
		t->procs += round ? 0 : np;
	}
	np = L->id[0] ? lab_marked_pids(L->id, pids, (int)GL_ARRAY_LEN(pids)) : 0;
	if (np) {
		t->left += np;
		lab_say("down: %d process(es) of the lab survived SIGKILL (first pid %d)", np, (int)pids[0]);
	}
}

/* One journal line's cgroup, route, nft table, link or namespace
 * removed, when it is still there. */
static void undo(const char *kind, const char *v, struct down_tally *t)
{
	char out[1024];

	if (!strcmp(kind, "cgroup")) {
		if (rmdir(v) == 0)
			t->cgroups++;
		else if (errno != ENOENT) {
			t->left++;
			lab_say("down: cannot remove cgroup %s: %s (a process still in it?)", v, strerror(errno));
		}
	} else if (!strcmp(kind, "route")) {
		if (LAB_RUN(out, sizeof(out), 5000, "ip", "route", "show", "type", "unreachable", v) != 0 || !out[0])
			return;
		if (LAB_RUN(out, sizeof(out), 5000, "ip", "route", "del", "unreachable", v) != 0) {
			t->left++;
			lab_say("down: ip route del unreachable %s: %s", v, out);
		}
	} else if (!strcmp(kind, "link")) {
		if (LAB_RUN(out, sizeof(out), 5000, "ip", "link", "show", "dev", v) != 0)
			return;
		if (LAB_RUN(out, sizeof(out), 5000, "ip", "link", "del", "dev", v) == 0)
			t->links++;
		else {
			t->left++;
			lab_say("down: ip link del %s: %s", v, out);
		}
	} else if (!strcmp(kind, "nft")) {
		/* the forwarding filter (lab_net.c); the links' own forwarding
		 * switches go with the links */
		if (LAB_RUN(out, sizeof(out), 5000, "nft", "list", "table", "inet", v) != 0)
			return;
		if (LAB_RUN(out, sizeof(out), 5000, "nft", "delete", "table", "inet", v) != 0) {
			t->left++;
			lab_say("down: nft delete table inet %s: %s", v, out);
		}
	} else if (!strcmp(kind, "netns")) {
		char p[300];
		snprintf(p, sizeof(p), "/run/netns/%s", v);
		if (access(p, F_OK) != 0)
			return;
		if (LAB_RUN(out, sizeof(out), 5000, "ip", "netns", "del", v) == 0)
			t->ns++;
		else {
			t->left++;
			lab_say("down: ip netns del %s: %s", v, out);
		}
	}
}

/* 2. cgroups, links, namespaces: newest first (text is cut into lines) */
static void undo_journal(char *text, struct down_tally *t)
{
	char *lines[1024], *line, *save = NULL;
	int nl = 0;

	for (line = strtok_r(text, "\n", &save); line && nl < 1024; line = strtok_r(NULL, "\n", &save))
		lines[nl++] = line;
	for (int i = nl - 1; i >= 0; i--) {
		char *v = strchr(lines[i], '\t');
		if (!v)
			continue;
		*v++ = '\0';
		undo(lines[i], v, t);
	}
}

/* Take the lab apart from its journal and its mark. Returns the count of
 * things that could not be removed. */
int lab_down(struct lab *L, int quiet)
{
	char *text = NULL, mark[1100];
	size_t len = 0;
	struct gl_err e = { 0 };
	struct down_tally t = { 0 };

	if (gl_read_file(L->journal, 1 << 20, &text, &len, &e) != 0)
		text = NULL;
	journal_id(L, text);
	stop_processes(L, text, &t);
	if (text)
		undo_journal(text, &t);
	free(text);
	/* 3. the lab's directory, only when it is ours */
	snprintf(mark, sizeof(mark), "%s/.gauntlet-lab", L->dir);
	if (access(mark, F_OK) == 0 && nftw(L->dir, lab_rm_cb, 32, FTW_DEPTH | FTW_PHYS) != 0) {
		t.left++;
		lab_say("down: cannot remove %s: %s", L->dir, strerror(errno));
	}
	if (!quiet)
		lab_say("down: stopped %d process(es), removed %d link(s), %d namespace(s), %d cgroup(s) and %s%s",
			t.procs, t.links, t.ns, t.cgroups, L->dir, t.left ? "; SOME THINGS WERE LEFT (above)" : "");
	return t.left;
}
