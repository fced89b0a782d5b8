/*
 * lab_slurm.c - the lab's slurm part: munged with a private key and
 * socket, slurmctld and one slurmd per worker namespace.
 */
#define _GNU_SOURCE
#include "lab_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- part: munge + slurm -------------------------------------------------------------- */

/* A private munge key, 1024 random bytes, mode 0400; 0, or -1 (said). */
static int write_munge_key(struct lab *L, const char *key)
{
	unsigned char k[1024];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC), kf;

	if (fd < 0 || read(fd, k, sizeof(k)) != (ssize_t)sizeof(k)) {
		lab_part(L, "slurm", 0, "cannot read /dev/urandom for the munge key");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	kf = open(key, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0400);
	if (kf < 0 || write(kf, k, sizeof(k)) != (ssize_t)sizeof(k)) {
		lab_part(L, "slurm", 0, "cannot write %s: %s", key, strerror(errno));
		if (kf >= 0)
			close(kf);
		return -1;
	}
	close(kf);
	return 0;
}

/* munged on its private key, socket, pid and seed file, answering a
 * munge | unmunge round trip within 5 s; 0, or -1 (said). */
static int start_munged(struct lab *L, const char *key, const char *sock)
{
	char kf[1200], sf[1200], pf[1200], sd[1200], lf[1200], log[1100], cmd[2400], qs[1300], out[2048];
	int ok = 0;

	snprintf(kf, sizeof(kf), "--key-file=%s", key);
	snprintf(sf, sizeof(sf), "--socket=%s", sock);
	snprintf(pf, sizeof(pf), "--pid-file=%s/slurm/munge/pid", L->dir);
	snprintf(sd, sizeof(sd), "--seed-file=%s/slurm/munge/seed", L->dir);
	snprintf(lf, sizeof(lf), "--log-file=%s/slurm/munge/log", L->dir);
	snprintf(log, sizeof(log), "%s/logs/munged.log", L->dir);
	if (lab_spawn(L, "munged", log, (const char *const[]){ "munged", "-F", "-f", kf, sf, pf, sd, lf, NULL }) < 0) {
		lab_part(L, "slurm", 0, "cannot start munged");
		return -1;
	}
	lab_shq(qs, sizeof(qs), sock);
	snprintf(cmd, sizeof(cmd), "munge -S %s -n | unmunge -S %s >/dev/null", qs, qs);
	for (int i = 0; i < 50 && !ok; i++) {
		ok = LAB_RUN(out, sizeof(out), 3000, "sh", "-c", cmd) == 0;
		if (!ok)
			lab_sleep_ms(100);
	}
	if (!ok) {
		lab_part(L, "slurm", 0, "munged did not answer on %s: %.300s (log %s)", sock, out, log);
		return -1;
	}
	return 0;
}

/* slurm.conf: the controller on 10.77.0.1 as host, a node per worker;
 * 0, or -1 (said). */
static int write_conf(struct lab *L, const char *conf, const char *host, int ctld_port, const char *sock)
{
	struct gl_buf b;
	int rc;

	gl_buf_init(&b, 1 << 16);
	gl_buf_printf(&b,
		      "# written by gauntlet lab up; removed by gauntlet lab down\n"
		      "ClusterName=gauntletlab\n"
		      "SlurmctldHost=%s(10.77.0.1)\n"
		      "SlurmctldPort=%d\nSlurmdPort=%d\n"
		      "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=%s\n"
		      "SlurmUser=root\nSlurmdUser=root\n"
		      "StateSaveLocation=%s/slurm/state\n"
		      "SlurmdSpoolDir=%s/slurm/spool/%%n\n"
		      "SlurmctldPidFile=%s/slurm/slurmctld.pid\n"
		      "SlurmdPidFile=%s/slurm/slurmd-%%n.pid\n"
		      "SlurmctldLogFile=%s/logs/slurmctld.log\n"
		      "SlurmdLogFile=%s/logs/slurmd-%%n.log\n"
		      "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/none\n"
		      "MpiDefault=none\nReturnToService=2\nSchedulerType=sched/builtin\nSelectType=select/linear\n"
		      "SlurmdTimeout=30\n",
		      host, ctld_port, LAB_SLURMD_PORT, sock, L->dir, L->dir, L->dir, L->dir, L->dir, L->dir);
	for (int w = 1; w <= L->workers; w++)
		gl_buf_printf(&b, "NodeName=lab-w%d NodeAddr=10.77.%d.2 CPUs=%ld State=UNKNOWN\n", w, w,
			      sysconf(_SC_NPROCESSORS_ONLN) > 0 ? sysconf(_SC_NPROCESSORS_ONLN) : 1L);
	gl_buf_printf(&b, "PartitionName=lab Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n");
	rc = lab_write_text(conf, b.data, 0644);
	gl_buf_free(&b);
	if (rc != 0)
		lab_part(L, "slurm", 0, "cannot write %s", conf);
	return rc;
}

/* One slurmd per worker namespace, its node's name added to nodes;
 * 0, or -1 (said). */
static int start_slurmds(struct lab *L, const char *conf, cJSON *nodes)
{
	for (int w = 1; w <= L->workers; w++) {
		char ns[32], node[32], sp[1200], log[1100];
		snprintf(ns, sizeof(ns), "gl-lab-w%d", w);
		snprintf(node, sizeof(node), "lab-w%d", w);
		snprintf(sp, sizeof(sp), "%s/slurm/spool/%s", L->dir, node);
		gl_mkdir_p(sp, 0700, NULL);
		snprintf(log, sizeof(log), "%s/logs/slurmd-%s.out", L->dir, node);
		/* nsenter, not `ip netns exec`: that remounts /sys, and slurmd
		 * needs /sys/fs/cgroup */
		snprintf(sp, sizeof(sp), "--net=/run/netns/%s", ns);
		if (lab_spawn(L, node, log,
			      (const char *const[]){ "nsenter", sp, "slurmd", "-D", "-N", node, "-f", conf, NULL }) <
		    0) {
			lab_part(L, "slurm", 0, "cannot start slurmd for %s", node);
			return -1;
		}
		cJSON_AddItemToArray(nodes, cJSON_CreateString(node));
	}
	return 0;
}

/* Up to 30 s for every node to be registered, idle and not down (a down
 * one resumed now and then); 1 when they are, else 0 with the last
 * `scontrol show node` output in out. */
static int wait_nodes_idle(struct lab *L, char *out, size_t outn)
{
	int ok = 0;

	for (int i = 0; i < 150 && !ok; i++) {
		ok = 1;
		for (int w = 1; w <= L->workers && ok; w++) {
			char node[32], arg[64];
			snprintf(node, sizeof(node), "lab-w%d", w);
			snprintf(arg, sizeof(arg), "NodeName=%s", node);
			ok = LAB_RUN(out, outn, 5000, "scontrol", "-o", "show", "node", node) == 0 &&
			     strstr(out, "State=IDLE") && !strstr(out, "DOWN") && !strstr(out, "NOT_RESPONDING");
			if (!ok && strstr(out, "DOWN") && i % 10 == 9)
				LAB_RUN(NULL, 0, 5000, "scontrol", "update", arg, "State=RESUME");
		}
		if (!ok)
			lab_sleep_ms(200);
	}
	return ok;
}

/* root, the programs, and the net part; 1 when slurm can be built, else
 * 0 (said) */
static int can_build(struct lab *L)
{
	const char *need[] = { "munged", "munge", "unmunge", "slurmctld", "slurmd", "scontrol", "nsenter", NULL };

	if (!L->root) {
		lab_part(L, "slurm", 0, "needs root (slurmctld and slurmd run as SlurmUser root; munged as root)");
		return 0;
	}
	for (int i = 0; need[i]; i++)
		if (!lab_have(need[i])) {
			lab_part(L, "slurm", 0, "%s is not installed (Debian: apt-get install slurm-wlm munge)",
				 need[i]);
			return 0;
		}
	if (!L->net) {
		lab_part(L, "slurm", 0, "needs the net part (one slurmd per worker namespace)");
		return 0;
	}
	return 1;
}

void lab_up_slurm(struct lab *L)
{
	char out[2048], p[1100], conf[1100], sock[1100], key[1100], host[256] = "", log[1100];
	int ctld_port;
	cJSON *s, *nodes;

	if (!can_build(L))
		return;
	if (gethostname(host, sizeof(host) - 1) != 0 || !host[0]) {
		lab_part(L, "slurm", 0, "gethostname: %s", strerror(errno));
		return;
	}
	host[strcspn(host, ".")] = '\0';
	snprintf(p, sizeof(p), "%s/slurm/spool", L->dir);
	gl_mkdir_p(p, 0700, NULL);
	snprintf(p, sizeof(p), "%s/slurm/state", L->dir);
	gl_mkdir_p(p, 0700, NULL);
	snprintf(p, sizeof(p), "%s/slurm/munge", L->dir);
	gl_mkdir_p(p, 0700, NULL);
	/* munge: a private key, socket, pid and seed file */
	snprintf(key, sizeof(key), "%s/slurm/munge/key", L->dir);
	snprintf(sock, sizeof(sock), "%s/slurm/munge/sock", L->dir);
	if (write_munge_key(L, key) != 0 || start_munged(L, key, sock) != 0)
		return;
	ctld_port = lab_free_port();
	snprintf(conf, sizeof(conf), "%s/slurm/slurm.conf", L->dir);
	if (write_conf(L, conf, host, ctld_port, sock) != 0)
		return;
	setenv("SLURM_CONF", conf, 1);
	snprintf(log, sizeof(log), "%s/logs/slurmctld.out", L->dir);
	if (lab_spawn(L, "slurmctld", log, (const char *const[]){ "slurmctld", "-D", "-f", conf, NULL }) < 0) {
		lab_part(L, "slurm", 0, "cannot start slurmctld");
		return;
	}
	if (!lab_wait_tcp("10.77.0.1", ctld_port, 15)) {
		lab_part(L, "slurm", 0, "slurmctld does not listen on 10.77.0.1:%d (see %s and %s/logs/slurmctld.log)",
			 ctld_port, log, L->dir);
		return;
	}
	nodes = cJSON_CreateArray();
	if (start_slurmds(L, conf, nodes) != 0) {
		cJSON_Delete(nodes);
		return;
	}
	if (!wait_nodes_idle(L, out, sizeof(out))) {
		lab_part(L, "slurm", 0, "the nodes did not come up idle within 30 s: %.300s (logs in %s/logs)", out,
			 L->dir);
		cJSON_Delete(nodes);
		return;
	}
	s = lab_inv_obj(L, "slurm");
	cJSON_AddStringToObject(s, "conf", conf);
	cJSON_AddStringToObject(s, "controller", "10.77.0.1");
	cJSON_AddNumberToObject(s, "port", ctld_port);
	cJSON_AddItemToObject(s, "nodes", nodes);
	lab_part(L, "slurm", 1,
		 "munged, slurmctld on 10.77.0.1:%d, slurmd for %d nodes in their namespaces; SLURM_CONF=%s", ctld_port,
		 L->workers, conf);
}
