/*
 * lab_sshd.c - the lab's sshd part: a private sshd on 127.0.0.1 with
 * generated host and client keys and a known_hosts file.
 */
#define _GNU_SOURCE
#include "lab_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- part: sshd -------------------------------------------------------------------------- */

/* sshd_config: 127.0.0.1:port, key logins of user only; 0, or -1 (said) */
static int write_config(struct lab *L, const char *cfg, int port, const char *hk, const char *ak, const char *d,
			const char *user)
{
	struct gl_buf b;
	int rc;

	gl_buf_init(&b, 1 << 14);
	gl_buf_printf(&b,
		      "# written by gauntlet lab up; removed by gauntlet lab down\n"
		      "Port %d\nListenAddress 127.0.0.1\nHostKey %s\nAuthorizedKeysFile %s\n"
		      "PasswordAuthentication no\nKbdInteractiveAuthentication no\nPubkeyAuthentication yes\n"
		      "PermitRootLogin prohibit-password\nStrictModes no\nUsePAM no\nPidFile %s/sshd.pid\n"
		      /* bash reads ~/.bashrc for a command sshd runs only at shell
		       * level 1: the lab's nodes run their commands without the
		       * login user's interactive set-up (a version manager there
		       * cost 0.6 s an exec, seconds under load) */
		      "AllowUsers %s\nSetEnv SHLVL=1",
		      port, hk, ak, d, user);
	{
		cJSON *s = cJSON_GetObjectItemCaseSensitive(L->inv, "slurm");
		const cJSON *conf = s ? cJSON_GetObjectItemCaseSensitive(s, "conf") : NULL;
		/* sessions find the lab's Slurm (scontrol for drain_worker); one
		 * SetEnv line (sshd takes only the first) */
		if (cJSON_IsString(conf))
			gl_buf_printf(&b, " SLURM_CONF=%s", conf->valuestring);
		gl_buf_printf(&b, "\n");
	}
	rc = lab_write_text(cfg, b.data, 0600);
	gl_buf_free(&b);
	if (rc != 0)
		lab_part(L, "sshd", 0, "cannot write %s", cfg);
	return rc;
}

/* known_hosts: the host key (its type and key, no comment) for
 * [127.0.0.1]:port; 0, or -1 (said) */
static int write_known_hosts(struct lab *L, const char *hk, const char *kh, int port)
{
	char line[2048], *text = NULL, *sp;
	size_t len = 0;
	struct gl_err e = { 0 };

	snprintf(line, sizeof(line), "%s.pub", hk);
	if (gl_read_file(line, 8192, &text, &len, &e) != 0) {
		lab_part(L, "sshd", 0, "cannot read %s: %s", line, e.msg);
		return -1;
	}
	sp = strchr(text, ' ');
	sp = sp ? strchr(sp + 1, ' ') : NULL;
	if (sp)
		*sp = '\0';
	text[strcspn(text, "\n")] = '\0';
	snprintf(line, sizeof(line), "[127.0.0.1]:%d %s\n", port, text);
	free(text);
	if (lab_write_text(kh, line, 0600) != 0) {
		lab_part(L, "sshd", 0, "cannot write %s", kh);
		return -1;
	}
	return 0;
}

void lab_up_sshd(struct lab *L)
{
	char out[2048], d[1100], hk[1200], ck[1200], ak[1200], kh[1300], cfg[1200], log[1200], user[64] = "root";
	char line[2048], *text = NULL;
	size_t len = 0;
	int port;
	cJSON *hosts, *h;
	struct gl_err e = { 0 };

	if (access("/usr/sbin/sshd", X_OK) != 0 || !lab_have("ssh-keygen")) {
		lab_part(L, "sshd", 0,
			 "/usr/sbin/sshd or ssh-keygen is not installed (Debian: apt-get install openssh-server)");
		return;
	}
	if (!L->root) {
		const char *u = getenv("USER");
		if (!u || !*u) {
			lab_part(L, "sshd", 0, "not root and $USER is unset: cannot name the login user");
			return;
		}
		snprintf(user, sizeof(user), "%s", u);
	}
	snprintf(d, sizeof(d), "%s/ssh", L->dir);
	snprintf(hk, sizeof(hk), "%s/host_key", d);
	snprintf(ck, sizeof(ck), "%s/client_key", d);
	snprintf(ak, sizeof(ak), "%s/authorized_keys", d);
	snprintf(kh, sizeof(kh), "%s/known_hosts", d);
	snprintf(cfg, sizeof(cfg), "%s/sshd_config", d);
	if (LAB_RUN(out, sizeof(out), 20000, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "gauntlet-lab-host",
		    "-f", hk) != 0 ||
	    LAB_RUN(out, sizeof(out), 20000, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "gauntlet-lab-client",
		    "-f", ck) != 0) {
		lab_part(L, "sshd", 0, "ssh-keygen: %.300s", out);
		return;
	}
	snprintf(line, sizeof(line), "%s.pub", ck);
	if (gl_read_file(line, 8192, &text, &len, &e) != 0 || lab_write_text(ak, text, 0600) != 0) {
		free(text);
		lab_part(L, "sshd", 0, "cannot copy the client key into %s", ak);
		return;
	}
	free(text);
	port = lab_free_port();
	if (write_config(L, cfg, port, hk, ak, d, user) != 0)
		return;
	if (L->root)
		mkdir("/run/sshd", 0755); /* privilege separation directory */
	snprintf(log, sizeof(log), "%s/logs/sshd.log", L->dir);
	if (lab_spawn(L, "sshd", log, (const char *const[]){ "/usr/sbin/sshd", "-D", "-e", "-f", cfg, NULL }) < 0 ||
	    !lab_wait_tcp("127.0.0.1", port, 10)) {
		lab_part(L, "sshd", 0, "sshd does not listen on 127.0.0.1:%d (see %s)", port, log);
		return;
	}
	if (write_known_hosts(L, hk, kh, port) != 0)
		return;
	hosts = lab_inv_obj(L, "hosts");
	h = cJSON_AddObjectToObject(hosts, "lab-ssh");
	snprintf(line, sizeof(line), "%s@127.0.0.1:%d", user, port);
	cJSON_AddStringToObject(h, "ssh", line);
	cJSON_AddStringToObject(h, "key", ck);
	cJSON_AddStringToObject(h, "known_hosts", kh);
	lab_part(L, "sshd", 1, "127.0.0.1:%d, login %s with %s, host key in %s", port, user, ck, kh);
}
