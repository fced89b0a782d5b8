/*
 * netaddr.h - listen addresses as the command line writes them:
 * host:port, [ipv6]:port, and (where a default host is given) :port or a
 * bare port, which bind that default host (loopback for the metrics
 * listener: it is never exposed unless asked for).
 */
#ifndef GL_NETADDR_H
#define GL_NETADDR_H

#include <stddef.h>
#include <sys/socket.h>

#include "util.h"

/* Parse s into one socket address; port 0 means any free port. A host
 * name resolves to its first address. default_host (may be NULL) is used
 * when s is ":PORT" or "PORT"; without it the host is required. Errors
 * name s and what was expected. */
int gl_listen_parse(const char *s, const char *default_host, struct sockaddr_storage *ss, socklen_t *len,
		    struct gl_err *err);
/* "1.2.3.4:80" or "[::1]:80". */
void gl_addr_format(const struct sockaddr_storage *ss, char *buf, size_t n);
/* Bind and listen (non-blocking, close-on-exec) on ss; what names the flag
 * in messages. Returns the fd, or -1 with err set; *bound gets the
 * address really bound (port 0 resolved). */
int gl_listen_open(const struct sockaddr_storage *ss, socklen_t len, const char *what, char *bound, size_t bound_len,
		   struct gl_err *err);

#endif
