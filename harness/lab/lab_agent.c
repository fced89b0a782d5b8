/*
 * lab_agent.c - `gauntlet lab agent`: keeps one replica serving in a
 * worker's namespace, and stops it while Slurm has the node drained.
 */
#define _GNU_SOURCE
#include "lab_int.h"
#include "states.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- agent: keeps one replica serving, stops it while its node is drained ----------------- */

static volatile sig_atomic_t agent_stop;
static void agent_sig(int s)
{
	(void)s;
	agent_stop = 1;
}

/* The replica's SIGTERM, up to 5 s to end, then SIGKILL; reaped. */
static void stop_replica(pid_t child)
{
	kill(child, SIGTERM);
	for (int i = 0; i < 50 && waitpid(child, NULL, WNOHANG) == 0; i++)
		lab_sleep_ms(100);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

/* A `gauntlet target` replica on listen, inside netns when given; the
 * child's pid (or -1 when fork failed). */
static pid_t start_replica(const char *self, const char *listen, const char *netns)
{
	const char *av[24];
	int k = 0;
	pid_t child;

	if (netns) {
		av[k++] = "ip";
		av[k++] = "netns";
		av[k++] = "exec";
		av[k++] = netns;
	}
	av[k++] = self;
	av[k++] = "target";
	av[k++] = "--listen";
	av[k++] = listen;
	av[k++] = "--ttft-ms";
	av[k++] = "30";
	av[k++] = "--itl-ms";
	av[k++] = "5";
	av[k++] = "--max-seqs";
	av[k++] = "512";
	/* the adapter the lab soak's model_swap fault unloads and loads */
	av[k++] = "--lora";
	av[k++] = "lab-adapter=gauntlet-lab/lab-adapter";
	av[k++] = "--lora-load-ms";
	av[k++] = "300";
	av[k] = NULL;
	child = fork();
	if (child == 0) {
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		execvp(av[0], (char *const *)av);
		_exit(127);
	}
	return child;
}

/* Whether Slurm has node drained (its state flags name DRAIN), in *d;
 * 0, or -1 when its state could not be read. */
static int node_drained(const char *node, int *d)
{
	char out[4096], *s;

	if (LAB_RUN(out, sizeof(out), 3000, "scontrol", "-o", "show", "node", node) != 0)
		return -1;
	s = strstr(out, "State=");
	*d = s && strstr(s, "DRAIN") && (size_t)(strstr(s, "DRAIN") - s) < strcspn(s, " ");
	return 0;
}

int lab_agent(int argc, char **argv)
{
	const char *listen = NULL, *netns = NULL, *node = NULL;
	char self[PATH_MAX];
	pid_t child = -1;
	int drained = 0, restarts = 0;
	int64_t next_start = 0;
	ssize_t n;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--listen") && i + 1 < argc)
			listen = argv[++i];
		else if (!strcmp(argv[i], "--netns") && i + 1 < argc)
			netns = argv[++i];
		else if (!strcmp(argv[i], "--slurm-node") && i + 1 < argc)
			node = argv[++i];
		else {
			fprintf(stderr, "gauntlet lab agent: unknown argument '%s'\n", argv[i]);
			return GL_EXIT_BAD_INPUT;
		}
	}
	if (!listen) {
		fprintf(stderr, "gauntlet lab agent: --listen ADDR is required\n");
		return GL_EXIT_BAD_INPUT;
	}
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) <= 0)
		return GL_EXIT_HARNESS_ERROR;
	self[n] = '\0';
	signal(SIGTERM, agent_sig);
	signal(SIGINT, agent_sig);
	while (!agent_stop) {
		int st;
		if (child > 0 && waitpid(child, &st, WNOHANG) == child) {
			printf("agent %s: replica pid %d ended (%s %d)%s\n", listen, (int)child,
			       WIFSIGNALED(st) ? "signal" : "exit", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
			       drained ? "" : "; restarting in 1 s");
			fflush(stdout);
			child = -1;
			next_start = gl_now_ns() + 1000000000LL;
		}
		if (node) {
			int d;
			/* an unreadable state changes nothing */
			if (node_drained(node, &d) == 0) {
				if (d != drained) {
					printf("agent %s: node %s %s\n", listen, node,
					       d ? "drained: stopping the replica" : "resumed: starting the replica");
					fflush(stdout);
					drained = d;
					if (d && child > 0) {
						stop_replica(child);
						child = -1;
					}
					next_start = 0;
				}
			}
		}
		if (!drained && child < 0 && gl_now_ns() >= next_start) {
			child = start_replica(self, listen, netns);
			printf("agent %s: replica started, pid %d%s\n", listen, (int)child,
			       restarts++ ? " (restart)" : "");
			fflush(stdout);
		}
		lab_sleep_ms(node ? 300 : 200);
	}
	if (child > 0)
		stop_replica(child);
	return 0;
}
