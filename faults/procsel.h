/*
 * procsel.h - what the fault kinds that pick processes by pattern, pid or
 * pid file share (process_kill, control_plane_loss method signal): the
 * checks of their params (a pattern must be a valid extended regex that
 * names something, a path must be a plain absolute path), the name of the
 * state file that records the pids inject signalled, and the common part of
 * the one sh script each runs on the target host for every step.
 */
#ifndef GL_PROCSEL_H
#define GL_PROCSEL_H

#include <stddef.h>

#include <cjson/cJSON.h>

#define GL_PATTERN_MAX 256

/* NULL when pat is usable, else why not (in buf or a static string). */
const char *gl_pattern_problem(const char *pat, char *buf, size_t n);
/* 1 for an absolute path of plain characters, without "..". */
int gl_safe_abs_path(const char *s);

/* The state file of one fault's run: DIR/PREFIX-ID-TOKEN.pids, ID the
 * fault id made file-safe, TOKEN 8 random hex digits so that two runs of
 * one scenario on a host do not share it. */
void gl_procsel_state_file(char *out, size_t n, const char *dir, const char *prefix, const char *id);
/* Append "KEY=VAL" to argv (a cJSON array of strings: an env(1) command). */
void gl_argv_add_env(cJSON *argv, const char *key, const char *val);

/*
 * The script. A kind's script is
 *   GL_PROCSEL_SH_FUNCS  its own inject(), verify() and revert()  GL_PROCSEL_SH_DISPATCH
 * run as `sh -c SCRIPT NAME STEP [ARGS...]`: the dispatch calls the step's
 * function with ARGS. Inputs travel in the environment (never in argv,
 * where pgrep -f would find them in the script's own command line):
 * the selector GL_PIDFILE, GL_PID or GL_PAT (the first one set), GL_SIG
 * (the signal's name without SIG), GL_MAX (the most matches allowed),
 * GL_DIR (the state directory), GL_STATE (the state file).
 * The shared functions:
 *   pinfo PID     S (state), PP (parent pid) and ST (start time) from
 *                 /proc/PID/stat, with builtins only (comm may hold spaces,
 *                 so fields are counted after its closing ") "); fails when
 *                 the process is gone.
 *   ancestors     A=" $$ PPID ... ": the script and its ancestors (the
 *                 controller and whatever started it, or the ssh session).
 *   what          the selector, for messages.
 *   select_procs  the candidates, less pid 1, the ancestors and zombies:
 *                 N (how many), LIST ("PID STARTTIME" lines), BEST and
 *                 BEST_ST (the newest: latest start time, then highest
 *                 pid), STOPPED (those in state T).
 *   select_checked  inject's selection: makes GL_DIR, then select_procs,
 *                 and exits when nothing matches or more than GL_MAX do.
 *   verify_revert the state file is gone and, after a STOP, no selected
 *                 process is still stopped.
 */
#define GL_PROCSEL_SH_FUNCS                                                                              \
	"set -f\n"                                                                                       \
	"pinfo() {\n"                                                                                    \
	"	L=\n"                                                                                          \
	"	{ read -r L < \"/proc/$1/stat\"; } 2>/dev/null || return 1\n"                                  \
	"	[ -n \"$L\" ] || return 1\n"                                                                   \
	"	R=${L##*) }\n"                                                                                 \
	"	set -- $R\n"                                                                                   \
	"	S=$1 PP=$2 ST=${20}\n"                                                                         \
	"}\n"                                                                                            \
	"ancestors() {\n"                                                                                \
	"	A=\" $$ \" a=$PPID\n"                                                                          \
	"	while [ \"${a:-0}\" -gt 1 ]; do\n"                                                             \
	"		case $A in *\" $a \"*) break ;; esac\n"                                                       \
	"		A=\"$A$a \"\n"                                                                                \
	"		pinfo \"$a\" || break\n"                                                                      \
	"		a=$PP\n"                                                                                      \
	"	done\n"                                                                                        \
	"}\n"                                                                                            \
	"what() {\n"                                                                                     \
	"	if [ -n \"${GL_PIDFILE:-}\" ]; then echo \"pid file $GL_PIDFILE\";\n"                          \
	"	elif [ -n \"${GL_PID:-}\" ]; then echo \"pid $GL_PID\"; else echo \"pattern '$GL_PAT'\"; fi\n" \
	"}\n"                                                                                            \
	"select_procs() {\n"                                                                             \
	"	if [ -n \"${GL_PIDFILE:-}\" ]; then\n"                                                         \
	"		cands=\n"                                                                                     \
	"		{ read -r cands < \"$GL_PIDFILE\"; } 2>/dev/null || { echo \"cannot read $(what)\"; exit 3; " \
	"}\n"                                                                                            \
	"	elif [ -n \"${GL_PID:-}\" ]; then\n"                                                           \
	"		cands=$GL_PID\n"                                                                              \
	"	else\n"                                                                                        \
	"		cands=$(pgrep -f -- \"$GL_PAT\"); rc=$?\n"                                                    \
	"		[ \"$rc\" -le 1 ] || { echo \"pgrep failed (exit $rc)\"; exit 5; }\n"                         \
	"	fi\n"                                                                                          \
	"	ancestors\n"                                                                                   \
	"	N=0 LIST= BEST= BEST_ST= STOPPED=\n"                                                           \
	"	for p in $cands; do\n"                                                                         \
	"		case $p in ''|*[!0-9]*) continue ;; esac\n"                                                   \
	"		[ \"$p\" -gt 1 ] || continue\n"                                                               \
	"		case $A in *\" $p \"*) continue ;; esac\n"                                                    \
	"		pinfo \"$p\" || continue\n"                                                                   \
	"		case $S in Z|X|x) continue ;; esac\n"                                                         \
	"		[ \"$S\" = T ] && STOPPED=\"$STOPPED $p\"\n"                                                  \
	"		N=$((N + 1))\n"                                                                               \
	"		LIST=\"$LIST$p $ST\n\"\n"                                                                     \
	"		if [ -z \"$BEST\" ] || [ \"$ST\" -gt \"$BEST_ST\" ] || { [ \"$ST\" -eq \"$BEST_ST\" ] && [ "  \
	"\"$p\" -gt \"$BEST\" ]; }; then\n"                                                              \
	"			BEST=$p BEST_ST=$ST\n"                                                                       \
	"		fi\n"                                                                                         \
	"	done\n"                                                                                        \
	"}\n"                                                                                            \
	"select_checked() {\n"                                                                           \
	"	mkdir -p -- \"$GL_DIR\" || { echo \"cannot create $GL_DIR\"; exit 5; }\n"                      \
	"	select_procs\n"                                                                                \
	"	[ \"$N\" -gt 0 ] || { echo \"no process matches $(what)\"; exit 3; }\n"                        \
	"	if [ \"$N\" -gt \"$GL_MAX\" ]; then\n"                                                         \
	"		echo \"$(what) matches $N processes, more than max_matches $GL_MAX: refusing\"; exit 4\n"     \
	"	fi\n"                                                                                          \
	"}\n"                                                                                            \
	"verify_revert() {\n"                                                                            \
	"	[ ! -e \"$GL_STATE\" ] || { echo \"$GL_STATE is still there\"; exit 1; }\n"                    \
	"	[ \"$GL_SIG\" = STOP ] || { echo ok; exit 0; }\n"                                              \
	"	select_procs\n"                                                                                \
	"	[ -z \"$STOPPED\" ] || { echo \"still stopped ($(what)):$STOPPED\"; exit 1; }\n"               \
	"	echo ok\n"                                                                                     \
	"}\n"

#define GL_PROCSEL_SH_DISPATCH                                      \
	"step=$1; shift\n"                                          \
	"case $step in\n"                                           \
	"inject|verify|revert|verify_revert) \"$step\" \"$@\" ;;\n" \
	"*) echo \"unknown step '$step'\"; exit 2 ;;\n"             \
	"esac\n"

#endif
