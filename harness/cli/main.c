/*
 * main.c - the gauntlet command line. Parses arguments,
 * dispatches to the controller, validator, reports and the target server,
 * and maps results to exit codes: 0 pass, 1 fail, 2 bad input, 3 aborted,
 * 4 harness or infrastructure error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents.h"
#include "analysis.h"
#include "compare.h"
#include "controller.h"
#include "evidence.h"
#include "ledger.h"
#include "figures.h"
#include "lab.h"
#include "netaddr.h"
#include "paths.h"
#include "plugin.h"
#include "report.h"
#include "scenario.h"
#include "store.h"
#include "target.h"
#include "timeline.h"
#include "training_bisect.h"
#include "training_sweep.h"
#include "transport_ssh.h"
#include "units.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: gauntlet COMMAND [ARGS]\n"
		   "  validate SCENARIO [--time-scale X] [--set path=value]... [--start TIME] [--allow-root DIR]...\n"
		   "  run SCENARIO [--out DIR] [--time-scale X] [--set path=value]... [--dry-run]\n"
		   "      [--allow-root DIR]... [--metrics-listen [HOST:]PORT] [--metrics-linger DURATION]\n"
		   "      (--allow-root, or GL_ALLOWED_ROOTS=DIR:DIR: more places the scenario's files may be)\n"
		   "  resume DIR [--dry-run] [--allow-root DIR]... [--metrics-listen [HOST:]PORT] [--metrics-linger "
		   "DURATION]\n"
		   "                          continue an interrupted run\n"
		   "  simulate SCENARIO [--seed N | --seeds N] [--crash-rate R] [--out DIR] [--set path=value]...\n"
		   "      [--jobs N]\n"
		   "                          the whole plan on a virtual clock against models, in seconds\n"
		   "                          (docs/simulation.md)\n"
		   "  revert DIR [--dry-run]  revert every fault the store still holds as injected\n"
		   "      (DIR and its store must be yours and not writable by others; --dry-run\n"
		   "       shows the stored plans without executing them)\n"
		   "  report DIR              re-render the reports from the store\n"
		   "  status DIR              where a run stands\n"
		   "  seal DIR --repo PATH [--sign-key KEY]\n"
		   "                          commit the run's evidence to a git repository\n"
		   "  verify DIR [--allowed-signers FILE]\n"
		   "                          check the run's files against its sealed commit\n"
		   "  compare BASE_DIR CAND_DIR [--all] [--out DIR] [--alpha A] [--tolerance T]\n"
		   "                          regression verdict between two runs: a summary;\n"
		   "                          --all lists every comparison (compare --help)\n"
		   "  nodes RUN_DIR|REPORT_JSON|EVIDENCE_REPO... [--all] [--json]\n"
		   "                          per node across runs: the runs it was seen in and a suspect in\n"
		   "                          (nodes --help)\n"
		   "  bisect SCENARIO --min-busbw GBPS [--steps N] [--message SIZE] [--job-timeout DURATION]\n"
		   "      [--budget DURATION] [--known-bad] [--set path=value]... [--json]\n"
		   "                          the host that slows the training all-reduce (bisect --help)\n"
		   "  sweep SCENARIO [--min-busbw GBPS] [--steps N] [--message SIZE] [--job-timeout DURATION]\n"
		   "      [--budget DURATION] [--parallel N] [--tolerance F] [--no-pairs] [--set path=value]...\n"
		   "      [--json]\n"
		   "                          every training host alone, then every pair: a busbw matrix\n"
		   "                          and its outliers (sweep --help)\n"
		   "  lab up|down|status [--dir DIR] [--workers N]\n"
		   "                          the local lab cluster (docs/lab.md)\n"
		   "  target --listen ADDR    OpenAI-compatible token-streaming target server\n"
		   "  agent                   a load agent: started by the controller through mpirun or srun,\n"
		   "                          never by hand (docs/agents.md)\n"
		   "  version\n"
		   "exit: 0 pass/ok, 1 fail, 2 bad input, 3 aborted, 4 harness error\n");
}

/* One command's usage, for `gauntlet COMMAND --help` (exit 0). */
static const struct {
	const char *cmd, *text;
} cmd_usage[] = {
	{ "validate", "usage: gauntlet validate SCENARIO [--time-scale X] [--set path=value]... [--start TIME]\n"
		      "                         [--allow-root DIR]...\n"
		      "Check a scenario and print its timeline. Exit 0 valid, 2 invalid (every error with\n"
		      "FILE:LINE:COL and its JSON path). A file the scenario names that is missing on this\n"
		      "machine is a warning here and an error for run.\n" },
	{ "run", "usage: gauntlet run SCENARIO [--out DIR] [--time-scale X] [--set path=value]... [--dry-run]\n"
		 "                    [--allow-root DIR]... [--metrics-listen [HOST:]PORT]\n"
		 "                    [--metrics-linger DURATION]\n"
		 "Run a soak: workloads, scheduled faults, targets, reports in DIR (new or empty, yours,\n"
		 "0700; default runs/NAME-ID). --dry-run prints the timeline and each fault's commands.\n"
		 "--allow-root or GL_ALLOWED_ROOTS=DIR:DIR: more places the scenario's files may be.\n"
		 "Exit 0 pass, 1 fail, 2 bad input, 3 aborted, 4 harness error.\n" },
	{ "resume", "usage: gauntlet resume DIR [--dry-run] [--allow-root DIR]... [--metrics-listen [HOST:]PORT]\n"
		    "                       [--metrics-linger DURATION]\n"
		    "Continue a run whose controller died, from its last commit; faults the journal holds\n"
		    "live are reconciled first. --dry-run shows the stored plans and executes nothing.\n" },
	{ "simulate", "usage: gauntlet simulate SCENARIO [--seed N] [--seeds N] [--crash-rate R] [--out DIR]\n"
		      "                         [--set path=value]... [--allow-root DIR]... [--jobs N]\n"
		      "Run the scenario's whole timeline through the controller, store, analysis and reports\n"
		      "on a virtual clock, against models of its workloads and faults: no host, process or\n"
		      "network is touched. --seeds N runs seeds N seeds from --seed (default 1); --crash-rate R\n"
		      "kills the simulated controller R times per simulated day (seeded) and resumes it from\n"
		      "its store. Per seed one line, 'seed N: ok' or 'seed N: VIOLATED INVARIANT: DETAIL';\n"
		      "--seed N reproduces a seed exactly. --out DIR keeps one seed's run directory (reports,\n"
		      "store). --jobs N: seeds side by side (default: one per CPU). Exit 0 when every seed\n"
		      "held, 1 otherwise, 2 bad input.\n" },
	{ "revert", "usage: gauntlet revert DIR [--dry-run]\n"
		    "Revert every fault the store still holds as injected (DIR and its store must be\n"
		    "yours and not writable by others). --dry-run shows the stored plans only.\n"
		    "Exit 0 when nothing is left injected, 1 otherwise.\n" },
	{ "report", "usage: gauntlet report DIR\n"
		    "Re-render every report of a run from its store alone (report.json, report.md,\n"
		    "report.html, junit.xml, timeseries.csv, manifest.json) and list them.\n" },
	{ "status", "usage: gauntlet status DIR\n"
		    "Where a run stands, on one screen: its state, whether its controller is alive, elapsed\n"
		    "and remaining (scenario time), the phase, the faults (those injected now first, since\n"
		    "when), the last closed window's figures per workload, load agents, the targets failing\n"
		    "so far (named) and the verdict.\n" },
	{ "seal", "usage: gauntlet seal DIR --repo PATH [--sign-key KEY]\n"
		  "Commit the run's evidence (reports, report.pdf too, scenario, store hash) to a git\n"
		  "repository and tag it; writes DIR/seal.json. --sign-key signs the commit and the tag with that SSH\n"
		  "private key (ssh-keygen), as git does with gpg.format=ssh.\n" },
	{ "bisect", "usage: gauntlet bisect SCENARIO --min-busbw GBPS [--steps N] [--message SIZE]\n"
		    "                       [--job-timeout DURATION] [--budget DURATION] [--known-bad]\n"
		    "                       [--set path=value]... [--json]\n"
		    "Find the host that slows the training workload's all-reduce: short gauntlet-train jobs\n"
		    "(one rank per host, no compute, --steps steps of --message bytes, default the\n"
		    "workload's) over halves of its hosts, launched as the workload launches. A job is bad\n"
		    "when it fails, runs past --job-timeout (60s), or its median busbw is below GBPS. The\n"
		    "whole set runs first (--known-bad skips it). A host is named only when two bad jobs\n"
		    "share it and no other host, each other host cleared by a good job: at most\n"
		    "ceil(log2 N) + 2 jobs once the set is known bad. Failing that, a link: a pair that\n"
		    "fails whose ends each pass beside a third host. Exit 0 when every host together\n"
		    "passed, 1 with a culprit or link named (or the failure not isolated), 2 bad input.\n" },
	{ "sweep", "usage: gauntlet sweep SCENARIO [--min-busbw GBPS] [--steps N] [--message SIZE]\n"
		   "                      [--job-timeout DURATION] [--budget DURATION] [--parallel N]\n"
		   "                      [--tolerance F] [--no-pairs] [--set path=value]... [--json]\n"
		   "Sweep the training workload's hosts with short gauntlet-train all-reduce jobs (no\n"
		   "compute, --steps steps, default 10, of --message bytes, default the workload's),\n"
		   "launched as the workload launches: first every host alone over its slots (2 ranks at\n"
		   "least) with shared memory and peer-to-peer off (NCCL_SHM_DISABLE, NCCL_P2P_DISABLE,\n"
		   "btl tcp,self), side by side; then every pair, in N - 1 rounds in which no host is in\n"
		   "two jobs, each round's pairs side by side (at most --parallel jobs at once, 32). A job\n"
		   "is bad when it fails, runs past --job-timeout (60s) or its median busbw is below\n"
		   "GBPS. A host whose alone busbw or pairs' busbw (the median but its lowest pair) is 4\n"
		   "spreads below the other hosts' (on the log of busbw: median and MAD, the spread at\n"
		   "least --tolerance, 0.1: out from a third below), or whose alone job was bad, is a\n"
		   "suspect; then a pair of hosts that are not, against what its two ends carry with\n"
		   "their other peers: a suspect link. No round starts past\n"
		   "--budget (30m). Exit 0 with no suspect, 1 with one (or rounds left out), 2 bad input.\n" },
	{ "verify", "usage: gauntlet verify DIR [--allowed-signers FILE]\n"
		    "Check the run's files against the commit DIR/seal.json names; exit 1 naming any\n"
		    "file that differs. --allowed-signers also checks the commit's and the tag's SSH\n"
		    "signatures and their signer against that file (ssh-keygen's format).\n" },
};

/* `gauntlet COMMAND --help` or `-h` anywhere after the command: 1 when the
 * usage was printed. Commands with their own parsers (compare, lab,
 * target) answer it themselves. */
static int command_help(int argc, char **argv)
{
	for (int i = 2; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			for (size_t k = 0; k < sizeof(cmd_usage) / sizeof(cmd_usage[0]); k++)
				if (!strcmp(argv[1], cmd_usage[k].cmd)) {
					fputs(cmd_usage[k].text, stdout);
					return 1;
				}
	return 0;
}

static int parse_scale(const char *s, double *out)
{
	char *end;
	double x = strtod(s, &end);
	if (*end || !(x > 0) || x > 1e9) {
		fprintf(stderr, "gauntlet: --time-scale: expected a number above 0 (e.g. 1000), got '%s'\n", s);
		return -1;
	}
	*out = x;
	return 0;
}

/* --metrics-listen / --metrics-linger at argv[*i] (run and resume): 1 when
 * taken (*i moved past its value), 0 when not one of them, -1 on error. */
static int live_opt(int argc, char **argv, int *i, struct gl_live_opts *lo)
{
	const char *a = argv[*i], *val = *i + 1 < argc ? argv[*i + 1] : NULL;
	struct gl_err err = { 0 };

	if (!strcmp(a, "--metrics-listen") && val) {
		struct sockaddr_storage ss;
		socklen_t len;
		if (gl_listen_parse(val, "127.0.0.1", &ss, &len, &err) != 0) {
			fprintf(stderr, "gauntlet: --metrics-listen %s\n", err.msg);
			return -1;
		}
		lo->listen = val;
		(*i)++;
		return 1;
	}
	if (!strcmp(a, "--metrics-linger") && val) {
		if (gl_parse_duration_ns(val, &lo->linger_ns, &err) != 0 || lo->linger_ns > 3600000000000LL) {
			fprintf(stderr,
				"gauntlet: --metrics-linger: expected a duration up to 1h (e.g. 30s), got '%s'\n", val);
			return -1;
		}
		(*i)++;
		return 1;
	}
	return 0;
}

/* Options shared by validate and run. */
struct cli {
	const char *scenario, *out, *start;
	double scale;
	const char *sets[65];
	int n_sets, dry_run;
	struct gl_live_opts live;
};

static int parse_cli(int argc, char **argv, struct cli *c, int allow_run_opts)
{
	int k;

	memset(c, 0, sizeof(*c));
	c->scale = 1;
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--time-scale") && val) {
			if (parse_scale(val, &c->scale))
				return -1;
			i++;
		} else if (!strncmp(a, "--time-scale=", 13)) {
			if (parse_scale(a + 13, &c->scale))
				return -1;
		} else if (!strcmp(a, "--allow-root") && val) {
			struct gl_err err = { 0 };
			if (gl_paths_allow_root(val, &err) != 0) {
				fprintf(stderr, "gauntlet: --allow-root: %s\n", err.msg);
				return -1;
			}
			i++;
		} else if (!strcmp(a, "--set") && val) {
			if (c->n_sets >= 64) {
				fprintf(stderr, "gauntlet: at most 64 --set\n");
				return -1;
			}
			c->sets[c->n_sets++] = val;
			i++;
		} else if (allow_run_opts && !strcmp(a, "--out") && val) {
			c->out = val;
			i++;
		} else if (allow_run_opts && !strcmp(a, "--dry-run")) {
			c->dry_run = 1;
		} else if (allow_run_opts && (k = live_opt(argc, argv, &i, &c->live)) != 0) {
			if (k < 0)
				return -1;
		} else if (!allow_run_opts && !strcmp(a, "--start") && val) {
			c->start = val;
			i++;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "gauntlet: unknown or incomplete option '%s'\n", a);
			return -1;
		} else if (!c->scenario) {
			c->scenario = a;
		} else {
			fprintf(stderr, "gauntlet: unexpected argument '%s'\n", a);
			return -1;
		}
	}
	if (!c->scenario) {
		fprintf(stderr, "gauntlet: %s needs a SCENARIO file\n", argv[1]);
		return -1;
	}
	return 0;
}

static int cmd_validate(int argc, char **argv)
{
	struct cli c;
	struct gl_diag d;
	struct gl_scenario_opts o = { 0 };
	struct gl_scenario *s;
	int code;

	if (parse_cli(argc, argv, &c, 0))
		return GL_EXIT_BAD_INPUT;
	o.time_scale = c.scale;
	o.sets = c.sets;
	o.start_wall_ns = gl_wall_ns();
	if (c.start) {
		/* a planned start for maintenance-window checks */
		struct gl_diag tmp;
		char buf[256];
		int n = snprintf(buf, sizeof(buf),
				 "{\"name\":\"x\",\"duration\":\"1s\",\"workloads\":{},\"safety\":{\"maintenance_"
				 "window\":[\"%s\",\"%s\"]}}",
				 c.start, c.start);
		struct gl_scenario *t;
		gl_diag_init(&tmp, NULL);
		t = gl_scenario_load_text("--start", buf, (size_t)n, NULL, &tmp);
		if (!t || !t->mw_start_wall_ns) {
			fprintf(stderr,
				"gauntlet: --start: expected an RFC 3339 time like 2026-12-01T00:00Z, got '%s'\n",
				c.start);
			gl_scenario_free(t);
			gl_diag_free(&tmp);
			return GL_EXIT_BAD_INPUT;
		}
		o.start_wall_ns = t->mw_start_wall_ns;
		gl_scenario_free(t);
		gl_diag_free(&tmp);
	}
	gl_diag_init(&d, NULL);
	d.missing_files_warn = 1; /* validate may run away from the cluster */
	s = gl_scenario_load_file(c.scenario, &o, &d);
	if (d.text.data)
		fputs(d.text.data, stderr);
	if (d.n_dropped)
		fprintf(stderr, "(%d more diagnostics not shown)\n", d.n_dropped);
	if (s && d.n_errors == 0) {
		gl_timeline_print(s, c.scale, stdout);
		gl_agents_print(s, stdout);
		gl_gates_print(s, stdout);
		gl_notify_print(s, stdout);
	}
	if (d.n_errors)
		fprintf(stderr, "%s: %d error(s)%s\n", c.scenario, d.n_errors,
			s && s->n_missing ? " (missing thresholds are failed gates)" : "");
	else
		printf("%s: valid\n", c.scenario);
	code = d.n_errors ? GL_EXIT_BAD_INPUT : GL_EXIT_OK;
	gl_diag_free(&d);
	gl_scenario_free(s);
	return code;
}

static int cmd_run(int argc, char **argv)
{
	struct cli c;
	struct gl_run_opts o;

	if (parse_cli(argc, argv, &c, 1))
		return GL_EXIT_BAD_INPUT;
	o.scenario_path = c.scenario;
	o.out_dir = c.out;
	o.time_scale = c.scale;
	o.sets = c.sets;
	o.dry_run = c.dry_run;
	gl_controller_live_opts(&c.live);
	gl_controller_reporter(gl_report_write);
	return gl_controller_run(&o);
}

/* simulate's whole-number option NAME: 1 to max into *out, else -1 after
 * saying what it expected */
static int count_opt(const char *name, const char *val, long max, int *out)
{
	char *end = NULL;
	long n = strtol(val, &end, 10);

	if (!*val || *end || n < 1 || n > max) {
		fprintf(stderr, "gauntlet: simulate: %s: expected 1 to %ld, got '%s'\n", name, max, val);
		return -1;
	}
	*out = (int)n;
	return 0;
}

static int cmd_simulate(int argc, char **argv)
{
	struct gl_sim_opts o = { 0 };
	const char *sets[65];
	int n_sets = 0, seeds_given = 0;

	o.seed = 1;
	o.n_seeds = 1;
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		char *end = NULL;
		if (!strcmp(a, "--seed") && val) {
			errno = 0;
			o.seed = strtoull(val, &end, 10);
			if (errno || !*val || *end || val[0] == '-') {
				fprintf(stderr, "gauntlet: simulate: --seed: expected a whole number, got '%s'\n", val);
				return GL_EXIT_BAD_INPUT;
			}
			i++;
		} else if (!strcmp(a, "--seeds") && val) {
			if (count_opt("--seeds", val, 1000000, &o.n_seeds))
				return GL_EXIT_BAD_INPUT;
			seeds_given = 1;
			i++;
		} else if (!strcmp(a, "--crash-rate") && val) {
			o.crash_rate = strtod(val, &end);
			if (!*val || *end || !(o.crash_rate >= 0 && o.crash_rate <= 100000)) {
				fprintf(stderr,
					"gauntlet: simulate: --crash-rate: expected crashes per simulated day, 0 "
					"to 100000, got '%s'\n",
					val);
				return GL_EXIT_BAD_INPUT;
			}
			i++;
		} else if (!strcmp(a, "--jobs") && val) {
			if (count_opt("--jobs", val, 256, &o.jobs))
				return GL_EXIT_BAD_INPUT;
			i++;
		} else if (!strcmp(a, "--out") && val) {
			o.out_dir = val;
			i++;
		} else if (!strcmp(a, "--set") && val) {
			if (n_sets >= 64) {
				fprintf(stderr, "gauntlet: at most 64 --set\n");
				return GL_EXIT_BAD_INPUT;
			}
			sets[n_sets++] = val;
			i++;
		} else if (!strcmp(a, "--allow-root") && val) {
			struct gl_err err = { 0 };
			if (gl_paths_allow_root(val, &err) != 0) {
				fprintf(stderr, "gauntlet: --allow-root: %s\n", err.msg);
				return GL_EXIT_BAD_INPUT;
			}
			i++;
		} else if (a[0] == '-' || o.scenario_path) {
			fprintf(stderr, "gauntlet: simulate: unexpected argument '%s'\n", a);
			return GL_EXIT_BAD_INPUT;
		} else {
			o.scenario_path = a;
		}
	}
	if (!o.scenario_path) {
		fprintf(stderr, "gauntlet: simulate needs a SCENARIO file\n");
		return GL_EXIT_BAD_INPUT;
	}
	if (o.out_dir && seeds_given && o.n_seeds > 1) {
		fprintf(stderr, "gauntlet: simulate: --out keeps one seed's run: give --seed N, not --seeds\n");
		return GL_EXIT_BAD_INPUT;
	}
	sets[n_sets] = NULL;
	o.sets = sets;
	/* the run's own log is for a real run (it is in each run's store): a
	 * simulation says one line per seed; GAUNTLET_LOG=debug shows it all */
	if (!getenv("GAUNTLET_LOG"))
		gl_log_init(GL_LOG_ERROR);
	gl_controller_reporter(gl_report_write);
	gl_controller_reporter_an(o.out_dir ? gl_report_write_sim : gl_report_write_json);
	return gl_controller_simulate(&o);
}

static int cmd_resume(int argc, char **argv)
{
	struct gl_live_opts lo = { 0 };
	const char *dir = NULL;
	int dry_run = 0;

	for (int i = 2; i < argc; i++) {
		int k = live_opt(argc, argv, &i, &lo);
		if (k < 0)
			return GL_EXIT_BAD_INPUT;
		if (k)
			continue;
		if (!strcmp(argv[i], "--dry-run")) {
			dry_run = 1;
			continue;
		}
		if (!strcmp(argv[i], "--allow-root") && i + 1 < argc) {
			struct gl_err err = { 0 };
			if (gl_paths_allow_root(argv[++i], &err) != 0) {
				fprintf(stderr, "gauntlet: --allow-root: %s\n", err.msg);
				return GL_EXIT_BAD_INPUT;
			}
			continue;
		}
		if (argv[i][0] == '-' || dir) {
			fprintf(stderr, "gauntlet: resume: unexpected argument '%s'\n", argv[i]);
			return GL_EXIT_BAD_INPUT;
		}
		dir = argv[i];
	}
	if (!dir) {
		fprintf(stderr, "gauntlet: usage: gauntlet resume DIR [--dry-run] [--metrics-listen ADDR]\n");
		return GL_EXIT_BAD_INPUT;
	}
	gl_controller_live_opts(&lo);
	gl_controller_reporter(gl_report_write);
	return gl_controller_resume(dir, dry_run);
}

static int open_dir_store(const char *dir, struct gl_store **st, int reader)
{
	char db[1100];
	struct gl_err err = { 0 };

	snprintf(db, sizeof(db), "%s/run.db", dir);
	*st = reader ? gl_store_open_reader(db, &err) : gl_store_open(db, 0, &err);
	if (!*st) {
		fprintf(stderr, "gauntlet: %s\n", err.msg);
		return GL_EXIT_BAD_INPUT;
	}
	return GL_EXIT_OK;
}

static int controller_alive(const char *dir, int *pid);

static int cmd_report(const char *dir)
{
	struct gl_store *st;
	struct gl_err err = { 0 };
	int pid;
	/* beside a live controller only as a reader: a writer's checkpoint on
	 * close would hold the controller's writes for seconds (gl_store_open_reader) */
	int rc = open_dir_store(dir, &st, controller_alive(dir, &pid) == 1);

	if (rc)
		return rc;
	rc = gl_report_write(dir, st, &err);
	gl_store_close(st);
	if (rc) {
		fprintf(stderr, "gauntlet: report: %s\n", err.msg);
		return GL_EXIT_HARNESS_ERROR;
	}
	{
		/* every file gl_report_write rewrote (reports/report.c) */
		static const char *const files[] = { "report.json",   "report.md",      "junit.xml",
						     "manifest.json", "timeseries.csv", "report.html" };
		char pdf[1100];
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
			printf("%s/%s\n", dir, files[i]);
		/* rendered now, or removed (report.c) */
		snprintf(pdf, sizeof(pdf), "%s/report.pdf", dir);
		if (access(pdf, F_OK) == 0)
			printf("%s\n", pdf);
	}
	return GL_EXIT_OK;
}

/* Whether a controller holds DIR/run.lock (run and resume hold it
 * exclusively for their whole life; a killed one holds nothing): 1 alive
 * (*pid from the file, 0 if unreadable), 0 not, -1 no lock file. */
static int controller_alive(const char *dir, int *pid)
{
	char path[1100], buf[32];
	int fd, alive;
	ssize_t n;

	*pid = 0;
	snprintf(path, sizeof(path), "%s/run.lock", dir);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	alive = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
	if (alive && (n = pread(fd, buf, sizeof(buf) - 1, 0)) > 0) {
		buf[n] = '\0';
		*pid = atoi(buf);
	}
	close(fd);
	return alive;
}

/* status: one screen. Lists (faults, failing targets) stop after this
 * many lines with "... and N more". */
#define STATUS_LIST_MAX 6

static int keep_last_window(int i, struct gl_agg *w, void *arg)
{
	struct gl_agg **out = arg;

	(void)i;
	*out = gl_agg_new();
	return *out ? gl_agg_merge(*out, w) : -1;
}

/* The last stored window's key figures, one line per workload that has
 * any: the figures `status` and the progress line headline. */
static void status_window(struct gl_store *st, const struct gl_analysis *an, int running)
{
	const struct gl_window_info *wi;
	const struct gl_workload_ops *ops;
	struct gl_agg *w = NULL;
	struct gl_err err = { 0 };
	const char *group = NULL;
	int found;
	int64_t expected, missing;

	if (an->n_windows == 0) {
		printf("last window: none closed yet\n");
		return;
	}
	/* while the run goes on, the store also holds the window still open
	 * (partial, committed as it fills): the last closed one is the last
	 * complete one, as the endpoint shows it; once the run has ended its
	 * last window, partial or not, is the last */
	wi = &an->windows[an->n_windows - 1];
	for (int i = an->n_windows - 1; running && i >= 0; i--)
		if (an->windows[i].complete) {
			wi = &an->windows[i];
			break;
		}
	if (gl_windows_each(st, wi, 1, keep_last_window, &w, &err) != 0 || !w) {
		printf("last window %lld: cannot read it: %s\n", (long long)wi->idx,
		       err.msg[0] ? err.msg : "out of memory");
		gl_agg_free(w);
		return;
	}
	printf("last window %lld (%s, %.3g s of real time%s):\n", (long long)wi->idx,
	       wi->phase >= 0 && wi->phase < an->sc->n_phases ? an->sc->phases[wi->phase].name : "-", gl_agg_seconds(w),
	       wi->complete ? "" : ", partial");
	/* each workload's status figures (figures.h), in the registry's order */
	for (size_t i = 0; (ops = gl_workload_at(i)); i++) {
		for (const struct gl_status_row *f = ops->figures ? ops->figures->status : NULL; f && f->metric; f++) {
			double v;
			if (gl_agg_eval(w, f->metric, &v) != 0)
				continue;
			if (!group || strcmp(group, ops->name)) {
				printf("%s  %s: ", group ? "\n" : "", ops->name);
				group = ops->name;
			} else {
				printf(", ");
			}
			printf("%s%.6g%s", f->pre, v, f->post);
		}
	}
	if (group)
		printf("\n");
	expected = gl_agg_counter(w, "agents.expected", &found);
	missing = gl_agg_counter(w, "agents.missing", NULL);
	if (found) {
		struct gl_child_row *ch = NULL;
		int n_ch = 0, launchers = 0;
		if (gl_store_child_list(st, &ch, &n_ch, &err) == 0)
			for (int i = 0; i < n_ch; i++)
				launchers += !strcmp(ch[i].source, "agents");
		free(ch);
		printf("agents: %lld expected, %lld reporting, %lld missing in the last window; %lld lost, %lld "
		       "relaunched so far; %d launcher(s) not ended\n",
		       (long long)expected, (long long)(expected - missing), (long long)missing,
		       (long long)gl_agg_counter(an->all, "agents.lost", NULL),
		       (long long)gl_agg_counter(an->all, "agents.relaunched", NULL), launchers);
	}
	gl_agg_free(w);
}

/* The phase the position is in, by the scenario's schedule. */
static void status_phase(const struct gl_analysis *an, int64_t pos, int running)
{
	char a[48], b[48];

	for (int i = 0; running && i < an->sc->n_phases; i++) {
		const struct gl_phase *ph = &an->sc->phases[i];
		if (pos >= ph->start_ns && pos < ph->start_ns + ph->dur_ns) {
			gl_format_duration_human(ph->start_ns, a, sizeof(a));
			gl_format_duration_human(ph->start_ns + ph->dur_ns, b, sizeof(b));
			printf("phase: %s (%s to %s, phase %d of %d)\n", ph->name, a, b, i + 1, an->sc->n_phases);
			return;
		}
	}
	printf("phase: none (%s)\n", running ? "past the timeline's end" : "the run has ended");
}

static void status_faults(const struct gl_analysis *an)
{
	int live = 0, shown = 0;

	for (int i = 0; i < an->n_faults; i++)
		live += gl_fault_state_live(an->faults[i].row.state);
	printf("faults: %d planned in all, %d injected now\n", an->n_faults, live);
	/* those in now first, with since when; then the rest in journal order */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < an->n_faults; i++) {
			const struct gl_fault_row *f = &an->faults[i].row;
			char since[64] = "";
			if (gl_fault_state_live(f->state) != !pass)
				continue;
			if (shown++ >= STATUS_LIST_MAX)
				continue;
			if (!pass && f->injected_scn_ns >= 0) {
				char t[48];
				gl_format_duration_human(f->injected_scn_ns, t, sizeof(t));
				snprintf(since, sizeof(since), " since %s", t);
			}
			printf("  %-16s %-20s %s%s\n", f->id, f->kind, gl_fault_state_name(f->state), since);
		}
	if (shown > STATUS_LIST_MAX)
		printf("  ... and %d more\n", shown - STATUS_LIST_MAX);
}

static int cmd_status(const char *dir)
{
	struct gl_store *st;
	struct gl_analysis *an = NULL;
	struct gl_err err = { 0 };
	int rc = open_dir_store(dir, &st, 1), failing = 0, no_data = 0, later = 0, pid = 0, alive, running;
	char d[64], e[64], r[64];
	int64_t pos;
	struct gl_buf names;

	if (rc)
		return rc;
	if (gl_analyze(st, &an, &err) != 0) {
		fprintf(stderr, "gauntlet: status: %s\n", err.msg);
		gl_store_close(st);
		return GL_EXIT_HARNESS_ERROR;
	}
	pos = (int64_t)((double)an->run.elapsed_ns * an->run.time_scale);
	if (pos > an->run.duration_ns)
		pos = an->run.duration_ns;
	pos = pos / 1000000000 * 1000000000; /* to the second: what status shows */
	gl_format_duration_human(an->run.duration_ns, d, sizeof(d));
	gl_format_duration_human(pos, e, sizeof(e));
	gl_format_duration_human(an->run.duration_ns - pos, r, sizeof(r));
	running = !strcmp(an->run.state, "running");
	alive = controller_alive(dir, &pid);
	/* As the live endpoint counts them while a run goes on: missing
	 * thresholds, and steady and degraded targets failing over their
	 * windows so far; those without data yet and recovery targets (judged
	 * at the end) apart. A finished run: every target as judged. */
	gl_buf_init(&names, 1 << 16);
	for (int i = 0; i < an->n_targets; i++) {
		const struct gl_target_result *t = &an->targets[i];
		int fail;
		if (running && !t->spec->missing &&
		    ((t->spec->scope != GL_SCOPE_STEADY && t->spec->scope != GL_SCOPE_DEGRADED) || t->spec->drift)) {
			later++;
			continue;
		}
		if (running && !t->spec->missing && !t->has) {
			no_data++;
			continue;
		}
		fail = t->spec->missing || !t->pass;
		if (fail && failing < STATUS_LIST_MAX) {
			char v[64];
			if (t->has)
				snprintf(v, sizeof(v), "%.6g", t->measured);
			else
				snprintf(v, sizeof(v), "nothing");
			gl_buf_printf(&names, "  failing: %s %s %s (measured %s)\n", gl_scope_name(t->spec->scope),
				      t->spec->metric, t->spec->missing ? "(no threshold written)" : t->spec->expr_text,
				      v);
		}
		failing += fail;
	}
	if (failing > STATUS_LIST_MAX)
		gl_buf_printf(&names, "  ... and %d more failing\n", failing - STATUS_LIST_MAX);
	/* one state: a run the store holds as running whose controller is
	 * gone has stopped, and says so first */
	if (running && alive != 1)
		printf("run %s (%s): stopped (controller not running; resume with: gauntlet resume %s)\n", an->run.id,
		       an->run.name, dir);
	else
		printf("run %s (%s): %s\n", an->run.id, an->run.name, an->run.state);
	if (running && alive == 1)
		printf("controller: running (pid %d holds %s/run.lock)\n", pid, dir);
	printf("timeline: %s of %s (scenario time), %s remaining, %d window(s), %d resume(s)\n", e, d, r, an->n_windows,
	       an->run.resumes);
	status_phase(an, pos, running);
	status_faults(an);
	status_window(st, an, running);
	if (running)
		printf("targets: %d failing so far, %d passing, %d without data yet, %d judged at the end\n", failing,
		       an->n_targets - failing - no_data - later, no_data, later);
	else
		printf("targets: %d of %d failing\n", failing, an->n_targets);
	if (names.data)
		fputs(names.data, stdout);
	printf("verdict: %s\n", an->run.verdict[0] ? an->run.verdict : "(not finished)");
	gl_buf_free(&names);
	gl_analysis_free(an);
	gl_store_close(st);
	return GL_EXIT_OK;
}

static int cmd_seal(int argc, char **argv)
{
	const char *dir = NULL, *repo = NULL, *key = NULL;
	struct gl_err err = { 0 };
	int code;

	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--repo") && i + 1 < argc) {
			repo = argv[++i];
		} else if (!strncmp(argv[i], "--repo=", 7)) {
			repo = argv[i] + 7;
		} else if (!strcmp(argv[i], "--sign-key") && i + 1 < argc) {
			key = argv[++i];
		} else if (!strncmp(argv[i], "--sign-key=", 11)) {
			key = argv[i] + 11;
		} else if (argv[i][0] != '-' && !dir) {
			dir = argv[i];
		} else {
			fprintf(stderr, "gauntlet: seal: unexpected argument '%s'\n", argv[i]);
			return GL_EXIT_BAD_INPUT;
		}
	}
	if (!dir || !repo || !repo[0] || (key && !key[0])) {
		fprintf(stderr, "gauntlet: usage: gauntlet seal DIR --repo PATH [--sign-key KEY]\n");
		return GL_EXIT_BAD_INPUT;
	}
	code = gl_seal(dir, repo, key, stdout, &err);
	if (code == GL_EVIDENCE_BAD_INPUT || code == GL_EVIDENCE_ERROR)
		fprintf(stderr, "gauntlet: seal: %s\n", err.msg);
	return code;
}

static int cmd_verify(int argc, char **argv)
{
	const char *dir = NULL, *allowed = NULL;
	struct gl_err err = { 0 };
	int code;

	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--allowed-signers") && i + 1 < argc) {
			allowed = argv[++i];
		} else if (!strncmp(argv[i], "--allowed-signers=", 18)) {
			allowed = argv[i] + 18;
		} else if (argv[i][0] != '-' && !dir) {
			dir = argv[i];
		} else {
			fprintf(stderr, "gauntlet: verify: unexpected argument '%s'\n", argv[i]);
			return GL_EXIT_BAD_INPUT;
		}
	}
	if (!dir || (allowed && !allowed[0])) {
		fprintf(stderr, "gauntlet: usage: gauntlet verify DIR [--allowed-signers FILE]\n");
		return GL_EXIT_BAD_INPUT;
	}
	code = gl_verify(dir, allowed, stdout, &err);
	if (code == GL_EVIDENCE_BAD_INPUT || code == GL_EVIDENCE_ERROR)
		fprintf(stderr, "gauntlet: verify: %s\n", err.msg);
	return code;
}

static int dispatch(int argc, char **argv);

int main(int argc, char **argv)
{
	int code = dispatch(argc, argv);

	gl_ssh_shutdown(); /* close cached ssh sessions */
	return code;
}

static int dispatch(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;
	const char *lvl = getenv("GAUNTLET_LOG");

	gl_log_init(lvl && !strcmp(lvl, "debug") ? GL_LOG_DEBUG : GL_LOG_INFO);
	/* What the harness writes about a cluster (store, reports, evidence,
	 * comparisons) is for its operator only: 0600 files, 0700 folders.
	 * Children (fault commands, fio, mpirun) inherit this too. */
	if (cmd && strcmp(cmd, "lab") != 0 && strcmp(cmd, "target") != 0)
		umask(077);
	if (!cmd || !strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		usage(cmd ? stdout : stderr);
		return cmd ? GL_EXIT_OK : GL_EXIT_BAD_INPUT;
	}
	if (command_help(argc, argv))
		return GL_EXIT_OK;
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("gauntlet %s (%s)\n", GL_VERSION, GL_GIT_REV);
		return GL_EXIT_OK;
	}
	if (!strcmp(cmd, "validate") || !strcmp(cmd, "run") || !strcmp(cmd, "resume") || !strcmp(cmd, "simulate")) {
		struct gl_err err = { 0 };
		if (gl_paths_read_env(&err) != 0) {
			fprintf(stderr, "gauntlet: %s\n", err.msg);
			return GL_EXIT_BAD_INPUT;
		}
	}
	if (!strcmp(cmd, "validate"))
		return cmd_validate(argc, argv);
	if (!strcmp(cmd, "run"))
		return cmd_run(argc, argv);
	if (!strcmp(cmd, "target"))
		return gl_target_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "resume"))
		return cmd_resume(argc, argv);
	if (!strcmp(cmd, "simulate"))
		return cmd_simulate(argc, argv);
	if (!strcmp(cmd, "revert") && argc == 4 && !strcmp(argv[3], "--dry-run"))
		return gl_controller_revert(argv[2], 1);
	if (!strcmp(cmd, "revert") || !strcmp(cmd, "report") || !strcmp(cmd, "status")) {
		if (argc != 3) {
			fprintf(stderr, "gauntlet: usage: gauntlet %s DIR\n", cmd);
			return GL_EXIT_BAD_INPUT;
		}
		if (!strcmp(cmd, "revert"))
			return gl_controller_revert(argv[2], 0);
		if (!strcmp(cmd, "report"))
			return cmd_report(argv[2]);
		return cmd_status(argv[2]);
	}
	if (!strcmp(cmd, "compare"))
		return gl_compare_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "nodes"))
		return gl_ledger_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "bisect"))
		return gl_training_bisect_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "sweep"))
		return gl_training_sweep_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "seal"))
		return cmd_seal(argc, argv);
	if (!strcmp(cmd, "verify"))
		return cmd_verify(argc, argv);
	if (!strcmp(cmd, "lab"))
		return gl_lab_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "agent"))
		return gl_agent_main(argc - 1, argv + 1);
	fprintf(stderr, "gauntlet: unknown command '%s'\n", cmd);
	usage(stderr);
	return GL_EXIT_BAD_INPUT;
}
