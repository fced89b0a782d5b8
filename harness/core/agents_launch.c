/*
 * agents_launch.c - load agents' launchers: the command each agent runs
 * under (mpirun or srun), its token and log, starting and ending the
 * launcher's process group; and the commands as validate and the reports
 * show them.
 */
#define _GNU_SOURCE
#include "agents_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "agent_wire.h"
#include "agents.h"
#include "cfg.h"
#include "child.h"
#include "metrics.h"
#include "netaddr.h"
#include "secrets.h"

/* ---- launching ----------------------------------------------------------------------------- */

static int add(char **v, int *n, const char *s)
{
	if (*n >= MAX_ARGS - 1 || !(v[*n] = strdup(s)))
		return -1;
	v[++*n] = NULL;
	return 0;
}

static void free_argv(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
}

/* What a launcher command is made of: the same for validate and
 * --dry-run (gl_agents_print) as for the run (a struct gl_agents). */
struct launch {
	const struct gl_scenario *sc;
	const cJSON *cfg; /* the "agents" object */
	int srun;
	const char *launcher_path, *binary, *key_env;
};

/* The launcher's command for agent index on scenario host host ("" =
 * wherever the launcher puts it), into v (strdup'd). */
static int launch_argv(const struct launch *l, const char *host, int index, char **v, int *n)
{
	const cJSON *extra = cJSON_GetObjectItemCaseSensitive(l->cfg, "launcher_args"), *e;
	const struct gl_host *h = host[0] ? gl_scenario_host(l->sc, host) : NULL;
	const char *hn = h ? (h->local ? "localhost" : h->ssh_host) : NULL;
	char b[512];
	int rc = 0;

	*n = 0;
	rc |= add(v, n, l->launcher_path);
	if (!l->srun) {
		static const char *pass[] = { "GAUNTLET_AGENT_TOKEN", "GAUNTLET_AGENT_CONTROLLER",
					      "GAUNTLET_AGENT_INDEX", GL_CHILD_MARK, "GAUNTLET_LOG" };
		rc |= add(v, n, "-np");
		rc |= add(v, n, "1");
		if (hn) {
			rc |= add(v, n, "-H");
			rc |= add(v, n, hn);
		}
		if (geteuid() == 0)
			rc |= add(v, n, "--allow-run-as-root");
		for (size_t i = 0; i < GL_ARRAY_LEN(pass); i++) {
			rc |= add(v, n, "-x");
			rc |= add(v, n, pass[i]);
		}
		if (l->key_env[0]) {
			rc |= add(v, n, "-x");
			rc |= add(v, n, l->key_env);
		}
	} else {
		rc |= add(v, n, "-n");
		rc |= add(v, n, "1");
		rc |= add(v, n, "-N");
		rc |= add(v, n, "1");
		if (h) {
			snprintf(b, sizeof(b), "--nodelist=%s", gl_host_slurm_node(h));
			rc |= add(v, n, b);
		}
		snprintf(b, sizeof(b), "--job-name=gauntlet-agent-%d", index);
		rc |= add(v, n, b);
		rc |= add(v, n, "--export=ALL");
		rc |= add(v, n, "--kill-on-bad-exit=1");
	}
	cJSON_ArrayForEach(e, extra) if (cJSON_IsString(e)) rc |= add(v, n, e->valuestring);
	rc |= add(v, n, l->binary);
	rc |= add(v, n, "agent");
	return rc;
}

static int build_argv(struct gl_agents *a, struct slot *s, char **v, int *n)
{
	struct launch l = { a->c->sc, a->cfg, a->srun, a->launcher_path, a->binary, a->key_env };

	return launch_argv(&l, s->host, s->index, v, n);
}

/* argv joined by spaces, as the store's children row records it */
static void join_argv(char **v, int n, char *text, size_t size)
{
	size_t off = 0;

	text[0] = '\0';
	for (int i = 0; i < n && off < size; i++)
		off += (size_t)snprintf(text + off, size - off, "%s%s", i ? " " : "", v[i]);
}

/* The scenario host agent index of count runs on ("" = wherever the
 * launcher puts it): agents fill the "hosts" slots in order ("gpu-a:2"
 * takes two), and with more agents than slots go round them again. */
void ag_agent_host(const cJSON *ac, int count, int index, char *out, size_t size)
{
	const cJSON *h;
	int k = 0, want = 0;

	out[0] = '\0';
	for (int pass = 0; pass < 2; pass++) {
		/* pass 0 counts the slots the agents fill, pass 1 finds index's */
		if (pass == 1) {
			if (k == 0)
				return;
			want = index < k ? index : index % k;
			k = 0;
		}
		cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(ac, "hosts"))
		{
			char name[128], *colon;
			long slots = 1;
			if (!cJSON_IsString(h))
				continue;
			snprintf(name, sizeof(name), "%s", h->valuestring);
			if ((colon = strchr(name, ':'))) {
				*colon = '\0';
				slots = strtol(colon + 1, NULL, 10);
			}
			for (long j = 0; j < slots && k < count; j++, k++)
				if (pass == 1 && k == want) {
					snprintf(out, size, "%s", name);
					return;
				}
		}
	}
}

static int open_log(struct gl_agents *a, int index)
{
	char p[1200];

	snprintf(p, sizeof(p), "%s/agents", a->c->run.dir);
	if (mkdir(p, 0700) != 0 && errno != EEXIST)
		return -1;
	snprintf(p, sizeof(p), "%s/agents/%s-%d.log", a->c->run.dir, a->name, index);
	return open(p, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
}

/* A launch's token: 32 random bytes in hex. Each launch has its own, so a
 * token read from a launcher's environment is worth nothing once its
 * agent said hello, and a relaunch never takes an earlier one. */
static int new_token(char out[65])
{
	unsigned char rnd[32];

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return -1;
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(out + 2 * i, 3, "%02x", rnd[i]);
	explicit_bzero(rnd, sizeof(rnd));
	return 0;
}

int ag_spawn(struct gl_agents *a, struct slot *s)
{
	char *argv[MAX_ARGS];
	char text[1024] = "", envs[5][1200], mark[128];
	const char *key = a->key_env[0] ? gl_secret_getenv(a->key_env) : NULL;
	char *keyenv = NULL;
	struct gl_child_gate gate;
	int n = 0, logfd;
	pid_t pid;

	if (new_token(s->token) != 0)
		return -1;
	if (build_argv(a, s, argv, &n) != 0) {
		free_argv(argv, n);
		return -1;
	}
	join_argv(argv, n, text, sizeof(text));
	snprintf(envs[0], sizeof(envs[0]), "GAUNTLET_AGENT_TOKEN=%s", s->token);
	snprintf(envs[1], sizeof(envs[1]), "GAUNTLET_AGENT_CONTROLLER=%s", a->addr);
	snprintf(envs[2], sizeof(envs[2]), "GAUNTLET_AGENT_INDEX=%d", s->index);
	snprintf(envs[3], sizeof(envs[3]), "GAUNTLET_LOG=%s", getenv("GAUNTLET_LOG") ? getenv("GAUNTLET_LOG") : "info");
	snprintf(mark, sizeof(mark), "%s", gl_ctx_child_mark(a->c));
	if (key && asprintf(&keyenv, "%s=%s", a->key_env, key) < 0)
		keyenv = NULL;
	logfd = open_log(a, s->index);
	if (logfd < 0 || gl_child_gate_open(&gate) != 0) {
		if (logfd >= 0)
			close(logfd);
		free_argv(argv, n);
		free(keyenv);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		gl_child_gate_close(&gate);
		close(logfd);
		free_argv(argv, n);
		free(keyenv);
		return -1;
	}
	if (pid == 0) {
		if (gl_child_enter(&gate, logfd) != 0)
			_exit(127);
		for (int i = 0; i < 4; i++)
			putenv(envs[i]);
		putenv(mark);
		if (keyenv)
			putenv(keyenv);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], argv);
		dprintf(2, "gauntlet: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	close(logfd);
	if (keyenv) {
		explicit_bzero(keyenv, strlen(keyenv));
		free(keyenv);
	}
	explicit_bzero(envs[0], sizeof(envs[0]));
	s->child_id = gl_ctx_child_started(a->c, "agents", pid, text);
	gl_child_gate_release(&gate, s->child_id > 0);
	free_argv(argv, n);
	if (s->child_id <= 0) {
		waitpid(pid, NULL, 0);
		return -1;
	}
	s->launcher = pid;
	s->state = S_LAUNCHED;
	s->launched_ns = mono();
	s->launches++;
	gl_ctx_event(a->c, GL_LOG_INFO, "agents", "%s agent %d: launched (%s%s%s, pid %d)", a->name, s->index,
		     a->srun ? "srun" : "mpirun", s->host[0] ? " on " : "", s->host, (int)pid);
	return 0;
}

/* End a launcher's process group and wait for it: SIGTERM, then SIGKILL
 * after 2 s (at the end of the run only: the loop does not wait). */
static void end_launcher_pid(struct gl_agents *a, pid_t *pid, int64_t *id)
{
	int64_t t0 = mono();
	int st;

	if (*pid <= 0)
		return;
	kill(-*pid, SIGTERM);
	kill(-*pid, SIGCONT);
	while (waitpid(*pid, &st, WNOHANG) == 0) {
		if (mono() - t0 > 2000000000LL) {
			kill(-*pid, SIGKILL);
			waitpid(*pid, &st, 0);
			break;
		}
		usleep(20000);
	}
	gl_ctx_child_ended(a->c, *id);
	*pid = 0;
	*id = 0;
}

void ag_end_launcher(struct gl_agents *a, struct slot *s)
{
	end_launcher_pid(a, &s->launcher, &s->child_id);
	end_launcher_pid(a, &s->dying, &s->dying_id);
}

/* The loop must not wait on a launcher: SIGTERM its group now, the tick
 * reaps it and sends SIGKILL after 2 s. */
void ag_let_launcher_go(struct gl_agents *a, struct slot *s)
{
	if (s->launcher <= 0)
		return;
	if (s->dying > 0)
		end_launcher_pid(a, &s->dying, &s->dying_id);
	s->dying = s->launcher;
	s->dying_id = s->child_id;
	s->kill_at_ns = mono() + 2000000000LL;
	kill(-s->dying, SIGTERM);
	kill(-s->dying, SIGCONT);
	s->launcher = 0;
	s->child_id = 0;
}

void ag_reap_dying(struct gl_agents *a, struct slot *s)
{
	int st;

	if (s->dying <= 0)
		return;
	if (waitpid(s->dying, &st, WNOHANG) == s->dying) {
		gl_ctx_child_ended(a->c, s->dying_id);
		s->dying = 0;
		s->dying_id = 0;
	} else if (mono() >= s->kill_at_ns) {
		kill(-s->dying, SIGKILL);
	}
}

/* ---- the commands, as validate and the reports show them ------------------------------------ */

void ag_self_binary(char *out, size_t n)
{
	ssize_t k = readlink("/proc/self/exe", out, n - 1);
	if (k <= 0)
		snprintf(out, n, "gauntlet");
	else
		out[k] = '\0';
}

void gl_agents_each_command(const struct gl_scenario *sc, int shown,
			    void (*fn)(void *arg, const char *workload, int index, int count, const char *host,
				       const char *cmd),
			    void *arg)
{
	char self[1024];

	ag_self_binary(self, sizeof(self));
	for (int w = 0; w < sc->n_workloads; w++) {
		const cJSON *ac = cJSON_GetObjectItemCaseSensitive(sc->workloads[w].cfg, "agents");
		struct launch l;
		int count;
		if (!cJSON_IsObject(ac))
			continue;
		l.sc = sc;
		l.cfg = ac;
		l.srun = !strcmp(gl_cfg_str(ac, "launcher", "mpirun"), "srun");
		l.launcher_path = gl_cfg_str(ac, "launcher_path", l.srun ? "srun" : "mpirun");
		l.binary = gl_cfg_str(ac, "binary", self);
		l.key_env = gl_cfg_str(sc->workloads[w].cfg, "api_key_env", "");
		count = (int)gl_cfg_int(ac, "count", 1);
		for (int i = 0; i < count && (shown <= 0 || i < shown); i++) {
			char *argv[MAX_ARGS], host[128], text[1024];
			int n = 0;
			ag_agent_host(ac, count, i, host, sizeof(host));
			if (launch_argv(&l, host, i, argv, &n) == 0)
				join_argv(argv, n, text, sizeof(text));
			else
				snprintf(text, sizeof(text), "(out of memory)");
			free_argv(argv, n);
			fn(arg, sc->workloads[w].name, i, count, host, text);
		}
	}
}

static void print_one(void *arg, const char *workload, int index, int count, const char *host, const char *cmd)
{
	FILE *f = arg;

	if (index == 0)
		fprintf(f, "agents of %s (%d; launched before the clock starts, each by its own command):\n", workload,
			count);
	fprintf(f, "  agent %d%s%s: %s\n", index, host[0] ? " on " : "", host, cmd);
	if (index == GL_AGENTS_SHOWN - 1 && count > GL_AGENTS_SHOWN)
		fprintf(f, "  ... and %d more (agents %d to %d), each the same with its own host%s\n",
			count - GL_AGENTS_SHOWN, GL_AGENTS_SHOWN, count - 1,
			strstr(cmd, "--job-name=") ? " and job name" : "");
}

void gl_agents_print(const struct gl_scenario *sc, FILE *f)
{
	gl_agents_each_command(sc, GL_AGENTS_SHOWN, print_one, f);
}
