/*
 * test_notify_queue.c - the webhooks' queue (harness/core/notify.c) is
 * bounded and drops the right messages. A receiver on loopback that this
 * test drives by hand takes the first message and holds it unanswered, so
 * the sender thread is stuck on it; 300 more are queued meanwhile, the
 * 10th of them an `end`. The queue holds 256: 44 are dropped, the oldest
 * ones that are not the end, so once the first is answered the next
 * message the receiver gets is the end. Then the end deadline (0 here) cuts
 * the try under way and drops the rest: every message is counted once as
 * sent, failed or dropped.
 */
#include "notify.h"

#include "check.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* What one connection sent within ms (the request is small). */
static void read_request(int fd, char *buf, size_t n, int ms)
{
	size_t k = 0;
	struct pollfd p = { fd, POLLIN, 0 };

	buf[0] = '\0';
	while (k + 1 < n && poll(&p, 1, ms) == 1) {
		ssize_t r = read(fd, buf + k, n - 1 - k);
		if (r <= 0)
			break;
		k += (size_t)r;
		buf[k] = '\0';
		if (strstr(buf, "\r\n\r\n") && buf[k - 1] == '}')
			break;
	}
}

static int accept_within(int lis, int ms)
{
	struct pollfd p = { lis, POLLIN, 0 };
	return poll(&p, 1, ms) == 1 ? accept(lis, NULL, NULL) : -1;
}

int main(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	struct gl_notify_spec spec = { .url_env = "GL_UNIT_NOTIFY_HOOK", .on = (1u << GL_NEV_N) - 1 };
	struct gl_scenario sc = { .notify = &spec, .n_notify = 1 };
	struct gl_err err = { 0 };
	struct gl_notify *n;
	int64_t sent, failed, dropped;
	char url[128], buf[16384];
	int lis = socket(AF_INET, SOCK_STREAM, 0), c1, c2;
	const char *ok = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";

	CHECK(lis >= 0 && bind(lis, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(lis, 16) == 0 &&
	      getsockname(lis, (struct sockaddr *)&a, &al) == 0);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/hook", ntohs(a.sin_port));

	unsetenv("GL_UNIT_NOTIFY_HOOK");
	CHECK(gl_notify_new(&sc, &err) == NULL && err.code == GL_EINVAL &&
	      strstr(err.msg, "notify[0] (GL_UNIT_NOTIFY_HOOK)") != NULL);
	setenv("GL_UNIT_NOTIFY_HOOK", url, 1);
	memset(&err, 0, sizeof(err));
	n = gl_notify_new(&sc, &err);
	CHECK(n != NULL);
	if (!n)
		return check_done();
	CHECK(gl_notify_start(n, "run-1", "queue") == 0);

	/* the first message: taken by the sender, held unanswered */
	gl_notify_event(n, GL_NEV_START, "first", NULL);
	c1 = accept_within(lis, 5000);
	CHECK(c1 >= 0);
	read_request(c1, buf, sizeof(buf), 2000);
	CHECK(strstr(buf, "\"event\":\"start\"") != NULL);
	for (int i = 0; i < 300; i++) {
		char t[32];
		snprintf(t, sizeof(t), "message %d", i);
		gl_notify_event(n, i == 9 ? GL_NEV_END : GL_NEV_FAULT, t, NULL);
	}
	gl_notify_totals(n, &sent, &failed, &dropped);
	printf("queued 300 behind a held message: sent %lld, failed %lld, dropped %lld\n", (long long)sent,
	       (long long)failed, (long long)dropped);
	CHECK(sent == 0 && failed == 0 && dropped == 300 - GL_NOTIFY_QUEUE);

	/* answered: the next one the receiver gets is the end, not message 0 */
	if (c1 >= 0) {
		CHECK(write(c1, ok, strlen(ok)) == (ssize_t)strlen(ok));
		close(c1);
	}
	c2 = accept_within(lis, 5000);
	CHECK(c2 >= 0);
	read_request(c2, buf, sizeof(buf), 2000);
	CHECK(strstr(buf, "\"event\":\"end\"") != NULL && strstr(buf, "\"text\":\"message 9\"") != NULL);

	/* the deadline cuts the end's try and drops the 255 behind it */
	gl_notify_finish(n, 0);
	gl_notify_totals(n, &sent, &failed, &dropped);
	printf("after the deadline: sent %lld, failed %lld, dropped %lld\n", (long long)sent, (long long)failed,
	       (long long)dropped);
	CHECK(sent == 1 && failed == 1 && dropped == 299);
	CHECK(sent + failed + dropped == 301);
	{
		char *r = gl_notify_report(n);
		CHECK(r && strstr(r, "\"name\":\"notify[0] (GL_UNIT_NOTIFY_HOOK)\"") && strstr(r, "\"dropped\":299") &&
		      !strstr(r, url));
		free(r);
	}
	if (c2 >= 0)
		close(c2);
	close(lis);
	gl_notify_free(n);
	return check_done();
}
