/*
 * netaddr.c - listen addresses (netaddr.h), shared by `gauntlet target
 * --listen` and `gauntlet run --metrics-listen`.
 */
#include "netaddr.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>

int gl_listen_parse(const char *s, const char *default_host, struct sockaddr_storage *ss, socklen_t *len,
		    struct gl_err *err)
{
	const char *colon, *host_start = s, *host_end, *port_s;
	char host[256], *end;
	struct addrinfo hints, *ai = NULL;
	unsigned long port;
	size_t hl;
	int rc, v6 = 0;

	if (s[0] == '[') {
		host_start = s + 1;
		host_end = strchr(s, ']');
		if (!host_end || host_end[1] != ':')
			return gl_errf(err, GL_EINVAL, "'%s': expected [ipv6]:port", s);
		colon = host_end + 1;
		v6 = 1;
	} else if (default_host && !strchr(s, ':')) {
		colon = NULL; /* a bare port */
		host_end = s;
	} else {
		colon = strrchr(s, ':');
		if (!colon || strchr(s, ':') != colon)
			return gl_errf(err, GL_EINVAL, "'%s': expected host:port or [ipv6]:port", s);
		host_end = colon;
	}
	port_s = colon ? colon + 1 : s;
	errno = 0;
	port = strtoul(port_s, &end, 10);
	if (port_s[0] < '0' || port_s[0] > '9' || *end || errno || port > 65535)
		return gl_errf(err, GL_EINVAL, "'%s': expected a port 0..65535", s);
	hl = (size_t)(host_end - host_start);
	if (hl == 0 && default_host) {
		snprintf(host, sizeof(host), "%s", default_host);
	} else {
		if (hl == 0 || hl >= sizeof(host))
			return gl_errf(err, GL_EINVAL, "'%s': expected a host before the port", s);
		memcpy(host, host_start, hl);
		host[hl] = '\0';
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = v6 ? AF_INET6 : AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | (v6 ? AI_NUMERICHOST : 0);
	rc = getaddrinfo(host, port_s, &hints, &ai);
	if (rc != 0 || !ai)
		return gl_errf(err, GL_EINVAL, "'%s': cannot resolve: %s", s, rc ? gai_strerror(rc) : "no address");
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

void gl_addr_format(const struct sockaddr_storage *ss, char *buf, size_t n)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
		inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof(ip));
		snprintf(buf, n, "[%s]:%u", ip, ntohs(a->sin6_port));
	} else {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
		inet_ntop(AF_INET, &a->sin_addr, ip, sizeof(ip));
		snprintf(buf, n, "%s:%u", ip, ntohs(a->sin_port));
	}
}

int gl_listen_open(const struct sockaddr_storage *ss_in, socklen_t len, const char *what, char *bound, size_t bound_len,
		   struct gl_err *err)
{
	struct sockaddr_storage ss = *ss_in;
	int fd, one = 1;

	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		gl_errf(err, GL_EIO, "%s: socket: %s", what, strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0) {
		gl_errf(err, GL_EIO, "%s: bind: %s", what, strerror(errno));
		goto fail;
	}
	if (listen(fd, SOMAXCONN) < 0) {
		gl_errf(err, GL_EIO, "%s: listen: %s", what, strerror(errno));
		goto fail;
	}
	len = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		gl_errf(err, GL_EIO, "%s: getsockname: %s", what, strerror(errno));
		goto fail;
	}
	gl_addr_format(&ss, bound, bound_len);
	return fd;
fail:
	close(fd);
	return -1;
}
