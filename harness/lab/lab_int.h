/*
 * lab_int.h - what the lab's files share (the command is lab.h).
 *
 * Who owns what:
 *   lab.c          the command: arguments, the lab directory, `up` (part by
 *                  part, then the inventory), dispatch to down, status, agent
 *   lab_util.c     helpers the parts share: running commands, ports and TCP
 *                  checks, /proc and the lab's mark, the journal, starting
 *                  daemons, a part's recorded state, the inventory's objects
 *   lab_net.c, lab_slurm.c, lab_workers.c, lab_etcd.c, lab_sshd.c,
 *   lab_storage.c, lab_mpi.c
 *                  one part each: lab_up_<part> builds it
 *   lab_down.c     `down`: taking the lab apart from its journal and mark
 *   lab_status.c   `status`: checking each part; reading the inventory back
 *   lab_agent.c    `agent`: the supervisor of one worker's replica
 *
 * Functions named lab_* are shared between these files.
 */
#ifndef GL_LAB_INT_H
#define GL_LAB_INT_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#include <cJSON.h>

#include "plugin.h"
#include "util.h"

#define LAB_DIR_DEFAULT "/var/lib/gauntlet-lab"
#define LAB_MAX_WORKERS 8
/* `lab status` on a directory with no lab (docs/lab.md, the exit table) */
#define LAB_EXIT_NO_LAB 3
#define LAB_CGROUP "gauntlet-lab"
#define LAB_MARK "GL_LAB_ID"
#define LAB_TARGET_PORT 8000
#define LAB_SLURMD_PORT 6818

struct lab {
	char dir[512];
	char journal[600];
	char id[40];
	char self[PATH_MAX]; /* this gauntlet binary */
	int root;
	int workers;
	int jfd; /* journal, also the lock */
	int failed; /* parts that could not be built */
	int net; /* the net part is up */
	cJSON *inv; /* the inventory being built */
	cJSON *parts; /* inv.parts: name -> {state, reason} */
};

/* lab_util.c */
void lab_shq(char *out, size_t n, const char *s);
void lab_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int lab_run(char *out, size_t outn, int timeout_ms, const char *const *argv);
#define LAB_RUN(out, n, ms, ...) lab_run(out, n, ms, (const char *const[]){ __VA_ARGS__, NULL })
int lab_have(const char *prog);
void lab_sleep_ms(int ms);
int lab_free_port(void);
int lab_tcp_ok(const char *ip, int port, int timeout_ms);
int lab_wait_tcp(const char *ip, int port, int seconds);
unsigned long long lab_proc_start(pid_t pid);
int lab_proc_marked(pid_t pid, const char *id);
int lab_marked_pids(const char *id, pid_t *out, int max);
int lab_journal_add(struct lab *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
pid_t lab_spawn(struct lab *L, const char *name, const char *log, const char *const *argv);
int lab_alive(pid_t pid);
void lab_reap(void);
void lab_part(struct lab *L, const char *name, int up, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
cJSON *lab_str_array(const char *const *v);
cJSON *lab_inv_obj(struct lab *L, const char *name);
int lab_write_text(const char *path, const char *text, int mode);

/* the parts */
void lab_worker_ip(int w, int host_side, char *out, size_t n); /* lab_net.c */
void lab_up_net(struct lab *L);
void lab_up_slurm(struct lab *L);
void lab_up_workers(struct lab *L);
void lab_up_etcd(struct lab *L);
void lab_up_sshd(struct lab *L);
void lab_up_storage(struct lab *L);
void lab_up_mpi(struct lab *L);

/* lab_down.c */
struct stat;
struct FTW;
int lab_rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw);
int lab_down(struct lab *L, int quiet);

/* lab_status.c */
int lab_check(struct lab *L, const cJSON *inv, int print);
cJSON *lab_load_inventory(struct lab *L);

/* lab_agent.c */
int lab_agent(int argc, char **argv);

#endif
