/*
 * transport_ssh.c - the ssh transport: fault commands on remote hosts
 * through libssh2, shaped like the local transport in transport.c.
 *
 * One call: find or open the session for the host (TCP connect, SSH
 * handshake, host key checked against known_hosts, key or agent auth), open
 * a channel, exec the quoted command line, read stdout+stderr merged into a
 * capped buffer, collect the exit status. libssh2 runs non-blocking and
 * every wait is a poll() on the socket in the direction libssh2 asks for,
 * bounded by the one deadline of the call; on a thread that a stop request
 * interrupts (stop.h) a request ends the wait at once (GL_ESTOPPED: the
 * session is dropped, and the command on the host is left to its
 * timeout(1), as at a deadline). Sessions stay in a small cache
 * keyed by user@host:port (plus the key and known_hosts files, so a host
 * entry never rides on a session another entry verified) and are closed on
 * a deadline, on an error, or by gl_ssh_shutdown.
 *
 * Contracts are in transport_ssh.h; the command line sent and the exit
 * signal read back are in transport_ssh_cmd.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <libssh2.h>

#include "transport_ssh.h"
#include "transport_ssh_int.h"
#include "secrets.h"
#include "stop.h"

#define CMD_MAX (128 * 1024) /* quoted command line */
#define KNOWN_HOSTS_MAX (4u << 20)
#define CACHE_MAX 32 /* sessions kept open */
#define KEEPALIVE_S 15
#define CLOSE_GRACE_MS 500 /* polite disconnect on shutdown */
#define REUSE_OPEN_MAX_MS 5000 /* a cached session must answer by then */

struct ssh_conn {
	struct ssh_conn *next;
	char user[GL_NAME_MAX], host[256];
	int port;
	char key_path[1024], kh_path[1024]; /* as expanded */
	int fd;
	LIBSSH2_SESSION *sess;
	int64_t last_used_ns;
};

/* What one exec call needs on its way down. */
struct ssh_call {
	const struct gl_host *h;
	char host[256]; /* ssh_host without IPv6 brackets */
	int port;
	char key_path[1024], kh_path[1024];
	int64_t end_ns, deadline_ms;
	const char *phase; /* for errors: connect, handshake, ... */
	int timed_out;
};

/* Each thread keeps its own sessions (the fault executor, the watchers'
 * lease renewals, the loop thread): a libssh2 session is used by one
 * thread at a time, and a long step on one never delays a renewal. */
static __thread struct ssh_conn *conns;
static __thread int n_conns;
static pthread_mutex_t lib_mu = PTHREAD_MUTEX_INITIALIZER;
static int lib_ready;
static int n_opened;

static int host_errf(struct gl_err *err, int code, const struct ssh_call *k, const char *phase, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int host_errf(struct gl_err *err, int code, const struct ssh_call *k, const char *phase, const char *fmt, ...)
{
	char msg[GL_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (phase)
		return gl_errf(err, code, "host '%s' (%s:%d): %s: %s", k->h->name, k->h->ssh_host, k->port, phase, msg);
	return gl_errf(err, code, "host '%s' (%s:%d): %s", k->h->name, k->h->ssh_host, k->port, msg);
}

/* A wait given up for a stop request (stop.h), not for the deadline. */
static int stopped_errf(struct gl_err *err, const struct ssh_call *k)
{
	return host_errf(err, GL_ESTOPPED, k, k->phase, "stopped: %s came (the run is stopping)",
			 gl_stop_name(gl_stop_interrupts()));
}

static int timeout_errf(struct gl_err *err, struct ssh_call *k)
{
	if (gl_stop_interrupts())
		return stopped_errf(err, k);
	k->timed_out = 1;
	return host_errf(err, GL_ETIMEDOUT, k, k->phase, "timed out (the call's deadline of %lld ms passed)",
			 (long long)k->deadline_ms);
}

static const char *ssh_errmsg(LIBSSH2_SESSION *s)
{
	char *m = NULL;
	int n = 0;

	if (s)
		libssh2_session_last_error(s, &m, &n, 0);
	return m && *m ? m : "unknown libssh2 error";
}

/* "~/x" -> "$HOME/x"; anything else is copied. */
static int expand_home(const char *in, char *out, size_t n)
{
	const char *home;

	if (strncmp(in, "~/", 2) != 0)
		return snprintf(out, n, "%s", in) < (int)n ? 0 : -1;
	home = getenv("HOME");
	if (!home || !*home)
		return -1;
	return snprintf(out, n, "%s/%s", home, in + 2) < (int)n ? 0 : -1;
}

/* ---- waiting ------------------------------------------------------------ */

/* Wait until the socket is ready in the direction libssh2 is blocked on, at
 * most until the deadline (and at most a second, so callers can send
 * keepalives). Returns -GL_ETIMEDOUT once the deadline has passed, and
 * -GL_ESTOPPED once a stop request interrupts this thread (its pipe is
 * polled too, so that one wakes the wait). */
static int ssh_wait(const struct ssh_call *k, LIBSSH2_SESSION *s, int fd)
{
	int dir = libssh2_session_block_directions(s);
	int stop_fd = gl_stop_is_interruptible() ? gl_stop_fd() : -1;
	struct pollfd p[2] = { { fd, 0, 0 }, { stop_fd, POLLIN, 0 } };
	int64_t left_ns = k->end_ns - gl_now_ns();
	int64_t left_ms = (left_ns + 999999) / 1000000;

	if (gl_stop_interrupts())
		return -GL_ESTOPPED;
	if (left_ns <= 0)
		return -GL_ETIMEDOUT;
	if (dir & LIBSSH2_SESSION_BLOCK_INBOUND)
		p[0].events |= POLLIN;
	if (dir & LIBSSH2_SESSION_BLOCK_OUTBOUND)
		p[0].events |= POLLOUT;
	if (!p[0].events) {
		/* EAGAIN without a direction: do not spin */
		p[0].events = POLLIN;
		if (left_ms > 10)
			left_ms = 10;
	}
	if (left_ms > 1000)
		left_ms = 1000;
	if (poll(p, stop_fd >= 0 ? 2 : 1, (int)left_ms) < 0 && errno != EINTR)
		return -GL_EIO;
	return gl_stop_interrupts() ? -GL_ESTOPPED : 0;
}

/* ---- sessions ----------------------------------------------------------- */

static void conn_free(struct ssh_conn *c, int polite)
{
	if (!c)
		return;
	if (c->sess) {
		if (polite) {
			struct ssh_call k = { .end_ns = gl_now_ns() + CLOSE_GRACE_MS * 1000000LL };
			while (libssh2_session_disconnect(c->sess, "gauntlet done") == LIBSSH2_ERROR_EAGAIN)
				if (ssh_wait(&k, c->sess, c->fd) < 0)
					break;
		}
		/* with the socket shut, libssh2 cannot block (or EAGAIN) on
		 * closing channels a timed-out call left open */
		if (c->fd >= 0)
			shutdown(c->fd, SHUT_RDWR);
		for (int i = 0; i < 100 && libssh2_session_free(c->sess) == LIBSSH2_ERROR_EAGAIN; i++)
			;
	}
	if (c->fd >= 0)
		close(c->fd);
	free(c);
}

static void cache_remove(struct ssh_conn *c, int polite)
{
	for (struct ssh_conn **pp = &conns; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			n_conns--;
			break;
		}
	}
	conn_free(c, polite);
}

static struct ssh_conn *cache_find(const struct ssh_call *k)
{
	for (struct ssh_conn *c = conns; c; c = c->next)
		if (!strcmp(c->user, k->h->ssh_user) && !strcmp(c->host, k->host) && c->port == k->port &&
		    !strcmp(c->key_path, k->key_path) && !strcmp(c->kh_path, k->kh_path))
			return c;
	return NULL;
}

static void cache_add(struct ssh_conn *c)
{
	if (n_conns >= CACHE_MAX) {
		struct ssh_conn *lru = conns;
		for (struct ssh_conn *x = conns; x; x = x->next)
			if (x->last_used_ns < lru->last_used_ns)
				lru = x;
		cache_remove(lru, 1);
	}
	c->next = conns;
	conns = c;
	n_conns++;
}

/* A cached socket the peer closed (EOF or error) is dead; pending data
 * (a keepalive, or a disconnect message) is left for libssh2 to judge. */
static int conn_alive(const struct ssh_conn *c)
{
	struct pollfd p = { c->fd, POLLIN, 0 };
	char b;

	if (poll(&p, 1, 0) < 0)
		return 0;
	if (p.revents & (POLLERR | POLLHUP | POLLNVAL))
		return 0;
	if ((p.revents & POLLIN) && recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) == 0)
		return 0;
	return 1;
}

/* ---- connect ------------------------------------------------------------ */

static int tcp_connect(struct ssh_call *k, int *fd_out, struct gl_err *err)
{
	struct addrinfo hints, *ai = NULL;
	char port_s[16], why[256] = "no address to try";
	int fd = -1, rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(port_s, sizeof(port_s), "%d", k->port);
	/* name resolution is the one step the deadline cannot interrupt */
	rc = getaddrinfo(k->host, port_s, &hints, &ai);
	if (rc != 0)
		return host_errf(err, GL_EIO, k, "connect", "cannot resolve '%s': %s", k->host, gai_strerror(rc));
	rc = -GL_EIO;
	for (struct addrinfo *p = ai; p; p = p->ai_next) {
		int soerr = 0;
		socklen_t slen = sizeof(soerr);

		fd = socket(p->ai_family, p->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, p->ai_protocol);
		if (fd < 0) {
			snprintf(why, sizeof(why), "socket: %s", strerror(errno));
			continue;
		}
		if (connect(fd, p->ai_addr, p->ai_addrlen) != 0) {
			if (errno != EINPROGRESS) {
				snprintf(why, sizeof(why), "%s", strerror(errno));
				goto next;
			}
			for (;;) {
				int stop_fd = gl_stop_is_interruptible() ? gl_stop_fd() : -1;
				struct pollfd pfd[2] = { { fd, POLLOUT, 0 }, { stop_fd, POLLIN, 0 } };
				int64_t left_ns = k->end_ns - gl_now_ns();
				int r;

				if (left_ns <= 0 || gl_stop_interrupts()) {
					rc = timeout_errf(err, k);
					goto out;
				}
				r = poll(pfd, stop_fd >= 0 ? 2 : 1, (int)((left_ns + 999999) / 1000000));
				if (r > 0 && pfd[0].revents)
					break;
				if (r > 0)
					continue; /* the stop pipe: said at the top */
				if (r < 0 && errno != EINTR) {
					snprintf(why, sizeof(why), "poll: %s", strerror(errno));
					goto next;
				}
			}
			if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &slen) != 0)
				soerr = errno;
			if (soerr != 0) {
				snprintf(why, sizeof(why), "%s", strerror(soerr));
				goto next;
			}
		}
		{
			/* TCP keepalives find a cached session whose peer
			 * vanished in about a minute, and keep NAT state */
			int one = 1, idle_s = 30, intvl_s = 10, cnt = 3;
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
			setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle_s, sizeof(idle_s));
			setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl_s, sizeof(intvl_s));
			setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
		}
		*fd_out = fd;
		fd = -1;
		rc = 0;
		goto out;
next:
		close(fd);
		fd = -1;
	}
	rc = host_errf(err, GL_EIO, k, "connect", "%s", why);
out:
	if (fd >= 0)
		close(fd);
	freeaddrinfo(ai);
	return rc;
}

/* ---- host key ----------------------------------------------------------- */

static size_t base64(const unsigned char *in, size_t n, char *out, size_t out_n, int pad)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)in[i] << 16 | (i + 1 < n ? (unsigned)in[i + 1] << 8 : 0) |
			     (i + 2 < n ? in[i + 2] : 0);
		char q[4] = { tab[v >> 18 & 63], tab[v >> 12 & 63], i + 1 < n ? tab[v >> 6 & 63] : '=',
			      i + 2 < n ? tab[v & 63] : '=' };
		for (int j = 0; j < 4; j++) {
			if (q[j] == '=' && !pad)
				break;
			if (o + 1 >= out_n)
				goto done;
			out[o++] = q[j];
		}
	}
done:
	if (out_n)
		out[o] = '\0';
	return o;
}

static const char *host_key_type_name(int type, int *kh_bits)
{
	switch (type) {
	case LIBSSH2_HOSTKEY_TYPE_RSA: *kh_bits = LIBSSH2_KNOWNHOST_KEY_SSHRSA; return "ssh-rsa";
	case LIBSSH2_HOSTKEY_TYPE_DSS: *kh_bits = LIBSSH2_KNOWNHOST_KEY_SSHDSS; return "ssh-dss";
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_256: *kh_bits = LIBSSH2_KNOWNHOST_KEY_ECDSA_256; return "ecdsa-sha2-nistp256";
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_384: *kh_bits = LIBSSH2_KNOWNHOST_KEY_ECDSA_384; return "ecdsa-sha2-nistp384";
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_521: *kh_bits = LIBSSH2_KNOWNHOST_KEY_ECDSA_521; return "ecdsa-sha2-nistp521";
	case LIBSSH2_HOSTKEY_TYPE_ED25519: *kh_bits = LIBSSH2_KNOWNHOST_KEY_ED25519; return "ssh-ed25519";
	default: *kh_bits = 0; return NULL;
	}
}

/* Field i (0-based, blank-separated) of a known_hosts line into out. */
static int line_field(const char *line, size_t len, int i, char *out, size_t n)
{
	size_t p = 0;

	for (int f = 0;; f++) {
		size_t s;
		while (p < len && (line[p] == ' ' || line[p] == '\t'))
			p++;
		if (p >= len)
			return -1;
		s = p;
		while (p < len && line[p] != ' ' && line[p] != '\t')
			p++;
		if (f == i) {
			if (p - s >= n)
				return -1;
			memcpy(out, line + s, p - s);
			out[p - s] = '\0';
			return 0;
		}
	}
}

/*
 * Load known_hosts line by line: libssh2 gives up on a whole file at the
 * first line it cannot parse (certificate authorities, security-key types),
 * so such lines are skipped here instead. A skipped line can only make the
 * check stricter, except @revoked, which is honoured by comparing keys.
 */
static int load_known_hosts(struct ssh_call *k, LIBSSH2_KNOWNHOSTS *kh, const char *key_b64, int *revoked,
			    struct gl_err *err)
{
	char *text = NULL;
	size_t len = 0, p = 0;
	int n_skipped = 0, rc;
	struct gl_err rerr = { 0 };

	*revoked = 0;
	rc = gl_read_file(k->kh_path, KNOWN_HOSTS_MAX, &text, &len, &rerr);
	if (rc < 0)
		return host_errf(err, GL_EINVAL, k, "hostkey", "cannot read known_hosts: %s; refusing to connect",
				 rerr.msg);
	while (p < len) {
		const char *line = text + p;
		size_t n = 0, s = 0, m;

		while (p + n < len && text[p + n] != '\n')
			n++;
		p += n + 1;
		while (s < n && (line[s] == ' ' || line[s] == '\t'))
			s++;
		if (s == n || line[s] == '#')
			continue;
		if (line[s] == '@') {
			char marker[32], blob[16384];
			if (line_field(line, n, 0, marker, sizeof(marker)) == 0 && !strcmp(marker, "@revoked") &&
			    line_field(line, n, 3, blob, sizeof(blob)) == 0 && !strcmp(blob, key_b64))
				*revoked = 1;
			n_skipped++;
			continue;
		}
		/* libssh2 looks one byte past len for a '\n' and cuts the key
		 * short when it finds one: hand it the '\n' itself, or stop
		 * before trailing blanks or a '\r' (CRLF files) */
		m = n;
		while (m > s && (line[m - 1] == '\r' || line[m - 1] == ' ' || line[m - 1] == '\t'))
			m--;
		if (m == n && line + n < text + len)
			m = n + 1;
		if (libssh2_knownhost_readline(kh, line, m, LIBSSH2_KNOWNHOST_FILE_OPENSSH) != 0)
			n_skipped++;
	}
	if (n_skipped)
		gl_debug("ssh: %s: %d known_hosts line(s) not usable by libssh2 were skipped", k->kh_path, n_skipped);
	free(text);
	return 0;
}

static int check_host_key(struct ssh_call *k, LIBSSH2_SESSION *s, struct gl_err *err)
{
	LIBSSH2_KNOWNHOSTS *kh = NULL;
	const char *key, *hash, *type_name;
	char fp[64] = "?", key_b64[8192];
	size_t key_len = 0;
	int type = 0, kh_bits = 0, revoked = 0, rc;

	key = libssh2_session_hostkey(s, &key_len, &type);
	if (!key)
		return host_errf(err, GL_EIO, k, "hostkey", "no host key from the server: %s", ssh_errmsg(s));
	type_name = host_key_type_name(type, &kh_bits);
	if (!type_name)
		return host_errf(err, GL_EINVAL, k, "hostkey",
				 "the server's host key type (%d) is not supported; refusing to connect", type);
	hash = libssh2_hostkey_hash(s, LIBSSH2_HOSTKEY_HASH_SHA256);
	if (hash) {
		char b[60];
		base64((const unsigned char *)hash, 32, b, sizeof(b), 0);
		snprintf(fp, sizeof(fp), "SHA256:%s", b);
	}
	base64((const unsigned char *)key, key_len, key_b64, sizeof(key_b64), 1);
	kh = libssh2_knownhost_init(s);
	if (!kh)
		return host_errf(err, GL_ENOMEM, k, "hostkey", "libssh2_knownhost_init: %s", ssh_errmsg(s));
	rc = load_known_hosts(k, kh, key_b64, &revoked, err);
	if (rc < 0)
		goto out;
	if (revoked) {
		rc = host_errf(err, GL_EINVAL, k, NULL,
			       "host key %s %s is marked @revoked in known_hosts %s; refusing to connect", type_name,
			       fp, k->kh_path);
		goto out;
	}
	switch (libssh2_knownhost_checkp(kh, k->host, k->port, key, key_len,
					 LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | kh_bits, NULL)) {
	case LIBSSH2_KNOWNHOST_CHECK_MATCH: rc = 0; break;
	case LIBSSH2_KNOWNHOST_CHECK_MISMATCH:
		rc = host_errf(err, GL_EINVAL, k, NULL,
			       "HOST KEY MISMATCH: the server's %s key %s differs from the one known_hosts %s "
			       "lists for it (the host was reinstalled, or someone is in the middle); refusing "
			       "to connect",
			       type_name, fp, k->kh_path);
		break;
	case LIBSSH2_KNOWNHOST_CHECK_NOTFOUND:
		rc = host_errf(err, GL_EINVAL, k, NULL,
			       "host key not in known_hosts %s; refusing to connect (the server offers %s %s; "
			       "add it with: ssh-keyscan -p %d %s >> %s, after checking it)",
			       k->kh_path, type_name, fp, k->port, k->host, k->kh_path);
		break;
	default:
		rc = host_errf(err, GL_EIO, k, "hostkey", "known_hosts check failed: %s; refusing to connect",
			       ssh_errmsg(s));
		break;
	}
out:
	libssh2_knownhost_free(kh);
	return rc;
}

/* ---- authentication ----------------------------------------------------- */

static int auth_agent(struct ssh_call *k, LIBSSH2_SESSION *s, int fd, struct gl_err *err)
{
	LIBSSH2_AGENT *agent = libssh2_agent_init(s);
	struct libssh2_agent_publickey *id = NULL, *prev = NULL;
	int rc, tried = 0;

	if (!agent)
		return host_errf(err, GL_EIO, k, "auth", "ssh-agent: %s", ssh_errmsg(s));
	if (libssh2_agent_connect(agent) != 0) {
		rc = host_errf(err, GL_EIO, k, "auth", "cannot connect to ssh-agent (SSH_AUTH_SOCK): %s",
			       ssh_errmsg(s));
		goto out;
	}
	if (libssh2_agent_list_identities(agent) != 0) {
		rc = host_errf(err, GL_EIO, k, "auth", "ssh-agent: cannot list identities: %s", ssh_errmsg(s));
		goto out;
	}
	rc = 1;
	while (rc != 0 && libssh2_agent_get_identity(agent, &id, prev) == 0) {
		tried++;
		while ((rc = libssh2_agent_userauth(agent, k->h->ssh_user, id)) == LIBSSH2_ERROR_EAGAIN)
			if (ssh_wait(k, s, fd) < 0) {
				rc = timeout_errf(err, k);
				goto out;
			}
		prev = id;
	}
	if (rc != 0)
		rc = host_errf(err, GL_EINVAL, k, "auth",
			       "none of the %d ssh-agent identities was accepted for user '%s'", tried, k->h->ssh_user);
out:
	libssh2_agent_disconnect(agent);
	libssh2_agent_free(agent);
	return rc;
}

#if LIBSSH2_VERSION_NUM < 0x010b00
#define RSA_HINT                                                                                      \
	"; note: this libssh2 signs RSA keys only with ssh-rsa (SHA-1), which OpenSSH 8.8 and later " \
	"refuse unless the host allows it (PubkeyAcceptedAlgorithms +ssh-rsa); an ed25519 or ECDSA key avoids that"
#else
#define RSA_HINT ""
#endif

/* An RSA key, by its PEM header or its .pub file; only for the hint above. */
static int key_is_rsa(const char *path)
{
	char head[64] = "", pub[1100];
	FILE *f = fopen(path, "r");

	if (f) {
		if (!fgets(head, sizeof(head), f))
			head[0] = '\0';
		fclose(f);
	}
	if (strstr(head, "BEGIN RSA PRIVATE KEY"))
		return 1;
	snprintf(pub, sizeof(pub), "%s.pub", path);
	f = fopen(pub, "r");
	head[0] = '\0';
	if (f) {
		if (!fgets(head, sizeof(head), f))
			head[0] = '\0';
		fclose(f);
	}
	return !strncmp(head, "ssh-rsa ", 8);
}

static int auth(struct ssh_call *k, LIBSSH2_SESSION *s, int fd, struct gl_err *err)
{
	const cJSON *pe = k->h->json ? cJSON_GetObjectItemCaseSensitive(k->h->json, "passphrase_env") : NULL;
	const char *pass_env = cJSON_IsString(pe) && pe->valuestring[0] ? pe->valuestring : NULL;
	const char *pass = NULL; /* only ever handed to libssh2 */
	int rc;

	if (!k->key_path[0]) {
		if (getenv("SSH_AUTH_SOCK"))
			return auth_agent(k, s, fd, err);
		return host_errf(err, GL_EINVAL, k, "auth",
				 "no \"key\" file given and no ssh-agent (SSH_AUTH_SOCK unset)");
	}
	if (access(k->key_path, R_OK) != 0)
		return host_errf(err, GL_EINVAL, k, "auth", "cannot read key file %s: %s", k->key_path,
				 strerror(errno));
	if (pass_env) {
		pass = gl_secret_getenv(pass_env);
		if (!pass)
			return host_errf(err, GL_EINVAL, k, "auth",
					 "passphrase_env names %s, which is not set in the environment", pass_env);
	}
	/* a NULL public key: libssh2 derives it from the private key (its
	 * OpenSSL backend can; where it cannot, KEY.pub is tried) */
	for (int with_pub = 0; with_pub < 2; with_pub++) {
		char pub[1100];
		snprintf(pub, sizeof(pub), "%s.pub", k->key_path);
		if (with_pub && access(pub, R_OK) != 0)
			break;
		while ((rc = libssh2_userauth_publickey_fromfile_ex(s, k->h->ssh_user, (unsigned)strlen(k->h->ssh_user),
								    with_pub ? pub : NULL, k->key_path, pass)) ==
		       LIBSSH2_ERROR_EAGAIN)
			if (ssh_wait(k, s, fd) < 0)
				return timeout_errf(err, k);
		/* only when the backend cannot derive it: a wrong passphrase
		 * reads better as the first error than as the second */
		if (rc != LIBSSH2_ERROR_FILE || !strstr(ssh_errmsg(s), "nimplemented"))
			break;
	}
	switch (rc) {
	case 0: return 0;
	case LIBSSH2_ERROR_FILE:
		if (pass_env)
			return host_errf(err, GL_EINVAL, k, "auth",
					 "cannot load private key %s (%s); check the passphrase in $%s", k->key_path,
					 ssh_errmsg(s), pass_env);
		return host_errf(err, GL_EINVAL, k, "auth",
				 "cannot load private key %s (%s); if it is encrypted, set \"passphrase_env\"",
				 k->key_path, ssh_errmsg(s));
	case LIBSSH2_ERROR_AUTHENTICATION_FAILED:
	case LIBSSH2_ERROR_PUBLICKEY_UNVERIFIED:
		return host_errf(err, GL_EINVAL, k, "auth", "the server refused key %s for user '%s' (%s)%s",
				 k->key_path, k->h->ssh_user, ssh_errmsg(s), key_is_rsa(k->key_path) ? RSA_HINT : "");
	default:
		return host_errf(err, GL_EIO, k, "auth", "key %s for user '%s': %s", k->key_path, k->h->ssh_user,
				 ssh_errmsg(s));
	}
}

static int conn_open(struct ssh_call *k, struct ssh_conn **out, struct gl_err *err)
{
	struct ssh_conn *c = calloc(1, sizeof(*c));
	int rc;

	if (!c)
		return host_errf(err, GL_ENOMEM, k, "connect", "out of memory");
	c->fd = -1;
	snprintf(c->user, sizeof(c->user), "%s", k->h->ssh_user);
	snprintf(c->host, sizeof(c->host), "%s", k->host);
	c->port = k->port;
	snprintf(c->key_path, sizeof(c->key_path), "%s", k->key_path);
	snprintf(c->kh_path, sizeof(c->kh_path), "%s", k->kh_path);

	k->phase = "connect";
	rc = tcp_connect(k, &c->fd, err);
	if (rc < 0)
		goto fail;

	k->phase = "handshake";
	c->sess = libssh2_session_init();
	if (!c->sess) {
		rc = host_errf(err, GL_ENOMEM, k, "handshake", "libssh2_session_init failed");
		goto fail;
	}
	libssh2_session_set_blocking(c->sess, 0);
	while ((rc = libssh2_session_handshake(c->sess, c->fd)) == LIBSSH2_ERROR_EAGAIN)
		if (ssh_wait(k, c->sess, c->fd) < 0) {
			rc = timeout_errf(err, k);
			goto fail;
		}
	if (rc != 0) {
		rc = host_errf(err, GL_EIO, k, "handshake", "%s", ssh_errmsg(c->sess));
		goto fail;
	}
	libssh2_keepalive_config(c->sess, 1, KEEPALIVE_S);

	k->phase = "hostkey";
	rc = check_host_key(k, c->sess, err);
	if (rc < 0)
		goto fail;

	k->phase = "auth";
	rc = auth(k, c->sess, c->fd, err);
	if (rc < 0)
		goto fail;

	n_opened++;
	gl_debug("ssh: host '%s': session opened to %s@%s:%d", k->h->name, c->user, c->host, c->port);
	*out = c;
	return 0;
fail:
	conn_free(c, 0);
	return rc;
}

/* ---- exec --------------------------------------------------------------- */

/* The read's deadline passed, or a stop request came. */
static int read_timeout(struct ssh_call *k, const char *what, struct gl_err *err)
{
	if (gl_stop_interrupts())
		return stopped_errf(err, k);
	k->timed_out = 1;
	return host_errf(err, GL_ETIMEDOUT, k, "read", "'%s' did not finish within %lld ms", what,
			 (long long)k->deadline_ms);
}

/*
 * The started command's output (stdout and stderr merged) into res->out up
 * to its cap, then the channel closed, its exit status in res (128 + the
 * signal's number when a signal ended it) and the channel freed. what (the
 * command's name) is for errors.
 */
static int read_channel(struct ssh_call *k, struct ssh_conn *c, LIBSSH2_CHANNEL *ch, const char *what,
			struct gl_exec_result *res, struct gl_err *err)
{
	LIBSSH2_SESSION *s = c->sess;
	char buf[16384];
	char *sig = NULL;
	size_t sig_len = 0;
	int next_ka = 0, rc;

	k->phase = "read";
	for (;;) {
		ssize_t n = libssh2_channel_read(ch, buf, sizeof(buf));

		if (n > 0) {
			size_t room = res->out.max - res->out.len;
			/* output past the cap is read and dropped */
			if (room)
				gl_buf_append(&res->out, buf, (size_t)n < room ? (size_t)n : room);
			continue;
		}
		if (n == 0 && libssh2_channel_eof(ch))
			break;
		if (n < 0 && n != LIBSSH2_ERROR_EAGAIN)
			return host_errf(err, GL_EIO, k, "read", "'%s': %s", what, ssh_errmsg(s));
		libssh2_keepalive_send(s, &next_ka);
		if (ssh_wait(k, s, c->fd) < 0)
			return read_timeout(k, what, err);
	}
	while ((rc = libssh2_channel_close(ch)) == LIBSSH2_ERROR_EAGAIN)
		if (ssh_wait(k, s, c->fd) < 0)
			return read_timeout(k, what, err);
	while ((rc = libssh2_channel_wait_closed(ch)) == LIBSSH2_ERROR_EAGAIN)
		if (ssh_wait(k, s, c->fd) < 0)
			return read_timeout(k, what, err);
	if (rc != 0)
		return host_errf(err, GL_EIO, k, "read", "'%s': closing the channel: %s", what, ssh_errmsg(s));
	res->exit_status = libssh2_channel_get_exit_status(ch);
	if (libssh2_channel_get_exit_signal(ch, &sig, &sig_len, NULL, NULL, NULL, NULL) == 0 && sig) {
		int sn = gl_ssh_signal_number(sig);
		res->exit_status = sn > 0 ? 128 + sn : 255;
		libssh2_free(s, sig);
	}
	/* a channel not freed by the deadline goes with its session */
	while (libssh2_channel_free(ch) == LIBSSH2_ERROR_EAGAIN)
		if (ssh_wait(k, s, c->fd) < 0)
			break;
	return 0;
}

/*
 * Run the command on a channel of c. *started is set once the exec request
 * may have reached the server: from then on the call is never retried.
 * open_ms (0: none) bounds opening the channel; when that bound passes
 * before the call's deadline, the session is taken for dead (*stale = 1),
 * not the call for timed out.
 */
static int run_channel(struct ssh_call *k, struct ssh_conn *c, const char *const *argv, int64_t open_ms,
		       struct gl_exec_result *res, int *started, int *stale, struct gl_err *err)
{
	LIBSSH2_SESSION *s = c->sess;
	LIBSSH2_CHANNEL *ch = NULL;
	struct ssh_call probe = *k;
	struct gl_buf cmd;
	int next_ka = 0, rc;

	gl_buf_init(&cmd, CMD_MAX);
	*started = 0;
	*stale = 0;
	k->phase = "exec";
	if (open_ms > 0 && gl_now_ns() + open_ms * 1000000LL < k->end_ns)
		probe.end_ns = gl_now_ns() + open_ms * 1000000LL;
	if (libssh2_keepalive_send(s, &next_ka) != 0) {
		rc = host_errf(err, GL_EIO, k, "exec", "session lost: %s", ssh_errmsg(s));
		goto out;
	}
	while (!(ch = libssh2_channel_open_session(s))) {
		if (libssh2_session_last_errno(s) != LIBSSH2_ERROR_EAGAIN) {
			rc = host_errf(err, GL_EIO, k, "exec", "cannot open a channel: %s", ssh_errmsg(s));
			goto out;
		}
		if (ssh_wait(&probe, s, c->fd) < 0)
			goto open_timeout;
	}
	while ((rc = libssh2_channel_handle_extended_data2(ch, LIBSSH2_CHANNEL_EXTENDED_DATA_MERGE)) ==
	       LIBSSH2_ERROR_EAGAIN)
		if (ssh_wait(&probe, s, c->fd) < 0)
			goto open_timeout;
	if (gl_ssh_command_line(argv, (k->end_ns - gl_now_ns()) / 1000000, &cmd) < 0) {
		rc = host_errf(err, GL_ELIMIT, k, "exec", "command line longer than %d bytes", CMD_MAX);
		goto out;
	}
	*started = 1;
	while ((rc = libssh2_channel_exec(ch, cmd.data)) == LIBSSH2_ERROR_EAGAIN)
		if (ssh_wait(k, s, c->fd) < 0) {
			rc = timeout_errf(err, k);
			goto out;
		}
	if (rc != 0) {
		rc = host_errf(err, GL_EIO, k, "exec", "'%s' could not be started: %s", argv[0], ssh_errmsg(s));
		goto out;
	}
	rc = read_channel(k, c, ch, argv[0], res, err);
	goto out;
open_timeout:
	if (gl_stop_interrupts()) {
		rc = stopped_errf(err, k);
	} else if (probe.end_ns < k->end_ns) {
		*stale = 1;
		rc = host_errf(err, GL_EIO, k, "exec", "the session did not answer within %lld ms", (long long)open_ms);
	} else {
		rc = timeout_errf(err, k);
	}
out:
	/* on failure the channel is left to the session, which the caller
	 * closes (libssh2_session_free frees its channels) */
	gl_buf_free(&cmd);
	return rc;
}

static int ssh_exec(const struct gl_host *h, const char *const *argv, int64_t deadline_ms, struct gl_exec_result *res,
		    struct gl_err *err)
{
	struct ssh_call k;
	struct ssh_conn *c;
	int rc = 0;

	memset(&k, 0, sizeof(k));
	k.h = h;
	k.port = h && h->ssh_port > 0 ? h->ssh_port : 22;
	k.deadline_ms = deadline_ms;
	k.end_ns = gl_now_ns() + deadline_ms * 1000000LL;
	res->exit_status = -1;
	res->timed_out = 0;
	gl_buf_init(&res->out, GL_SSH_OUT_MAX);
	if (!h || !h->ssh_host[0] || !h->ssh_user[0])
		return gl_errf(err, GL_EINVAL, "ssh exec: host '%s' has no ssh user@host", h ? h->name : "?");
	if (!argv || !argv[0])
		return host_errf(err, GL_EINVAL, &k, "exec", "empty command");
	if (deadline_ms <= 0)
		return host_errf(err, GL_EINVAL, &k, "exec", "'%s': the deadline must be positive, got %lld ms",
				 argv[0], (long long)deadline_ms);
	{
		/* "[::1]" as the scenario may write it; libssh2 adds the
		 * brackets itself when it looks up [host]:port */
		size_t n = strlen(h->ssh_host);
		if (h->ssh_host[0] == '[' && n > 2 && h->ssh_host[n - 1] == ']')
			snprintf(k.host, sizeof(k.host), "%.*s", (int)(n - 2), h->ssh_host + 1);
		else
			snprintf(k.host, sizeof(k.host), "%s", h->ssh_host);
	}
	if (expand_home(h->key, k.key_path, sizeof(k.key_path)) < 0)
		return host_errf(err, GL_EINVAL, &k, "auth", "cannot expand key path %s ($HOME unset, or too long)",
				 h->key);
	if (!h->known_hosts[0])
		return host_errf(err, GL_EINVAL, &k, "hostkey",
				 "no known_hosts file given; host keys are always checked, refusing to connect");
	if (expand_home(h->known_hosts, k.kh_path, sizeof(k.kh_path)) < 0)
		return host_errf(err, GL_EINVAL, &k, "hostkey",
				 "cannot expand known_hosts path %s ($HOME unset, or too long)", h->known_hosts);
	pthread_mutex_lock(&lib_mu);
	if (!lib_ready && libssh2_init(0) == 0)
		lib_ready = 1;
	rc = lib_ready;
	pthread_mutex_unlock(&lib_mu);
	if (!rc)
		return host_errf(err, GL_EIO, &k, "connect", "libssh2_init failed");

	c = cache_find(&k);
	if (c && !conn_alive(c)) {
		gl_debug("ssh: host '%s': cached session is closed, reconnecting", h->name);
		cache_remove(c, 0);
		c = NULL;
	}
	for (int attempt = 0;; attempt++) {
		struct gl_err tmp = { 0 };
		int reused = c != NULL, started = 0, stale = 0;
		int64_t open_ms = 0;

		if (!c) {
			rc = conn_open(&k, &c, err);
			if (rc < 0)
				break;
			c->last_used_ns = gl_now_ns();
			cache_add(c);
		}
		if (reused) {
			/* a session can die silently (a partition, a NAT that
			 * forgot it): do not spend the whole deadline on it */
			open_ms = (k.end_ns - gl_now_ns()) / 2000000;
			if (open_ms > REUSE_OPEN_MAX_MS)
				open_ms = REUSE_OPEN_MAX_MS;
			if (open_ms < 1)
				open_ms = 1;
		}
		rc = run_channel(&k, c, argv, open_ms, res, &started, &stale, &tmp);
		if (rc == 0) {
			c->last_used_ns = gl_now_ns();
			break;
		}
		/* a failed call leaves the session in an unknown state */
		cache_remove(c, 0);
		c = NULL;
		if (reused && !started && (stale || !k.timed_out) && attempt == 0 && tmp.code != GL_ESTOPPED) {
			gl_debug("ssh: host '%s': cached session failed (%s), reconnecting once", h->name, tmp.msg);
			continue;
		}
		gl_errf(err, tmp.code, "%s", tmp.msg);
		break;
	}
	if (k.timed_out)
		res->timed_out = 1;
	return rc;
}

const struct gl_transport_ops gl_transport_ssh = { .name = "ssh", .exec = ssh_exec };

void gl_ssh_thread_done(void)
{
	while (conns)
		cache_remove(conns, 1);
}

void gl_ssh_shutdown(void)
{
	gl_ssh_thread_done();
	pthread_mutex_lock(&lib_mu);
	if (lib_ready) {
		libssh2_exit();
		lib_ready = 0;
	}
	pthread_mutex_unlock(&lib_mu);
}

int gl_ssh_sessions_opened(void)
{
	return n_opened;
}
