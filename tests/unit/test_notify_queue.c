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
 *
 * Then two webhooks, each with a receiver of its own: both get their first
 * message at once (a sender each) and both hold it. 300 more are queued
 * for each: every queue has its own bound, so each drops 44. The second
 * receiver answers and gets its end next while the first still holds its
 * try; the deadline then ends both, each webhook's messages counted as
 * its own.
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

static int listener(char *url, size_t n, const char *path)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int lis = socket(AF_INET, SOCK_STREAM, 0);

	CHECK(lis >= 0 && bind(lis, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(lis, 16) == 0 &&
	      getsockname(lis, (struct sockaddr *)&a, &al) == 0);
	snprintf(url, n, "http://127.0.0.1:%d/%s", ntohs(a.sin_port), path);
	return lis;
}

/* (sent, failed, dropped) of webhook i, from gl_notify_report */
static void counts(struct gl_notify *n, int i, long long c[3])
{
	char *r = gl_notify_report(n);
	cJSON *j = r ? cJSON_Parse(r) : NULL;
	cJSON *w = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "webhooks"), i);

	c[0] = (long long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(w, "sent"));
	c[1] = (long long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(w, "failed"));
	c[2] = (long long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(w, "dropped"));
	cJSON_Delete(j);
	free(r);
}

/* Two webhooks: a queue and a sender each. */
static void two_webhooks(void)
{
	struct gl_notify_spec spec[2] = { { .url_env = "GL_UNIT_NOTIFY_A", .on = (1u << GL_NEV_N) - 1 },
					  { .url_env = "GL_UNIT_NOTIFY_B", .on = (1u << GL_NEV_N) - 1 } };
	struct gl_scenario sc = { .notify = spec, .n_notify = 2 };
	struct gl_err err = { 0 };
	struct gl_notify *n;
	char url[2][128], buf[16384];
	int lis[2], c[2], b2;
	long long k[2][3];
	const char *ok = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";

	lis[0] = listener(url[0], sizeof(url[0]), "a");
	lis[1] = listener(url[1], sizeof(url[1]), "b");
	setenv("GL_UNIT_NOTIFY_A", url[0], 1);
	setenv("GL_UNIT_NOTIFY_B", url[1], 1);
	n = gl_notify_new(&sc, &err);
	CHECK(n != NULL);
	if (!n)
		return;
	CHECK(gl_notify_start(n, "run-2", "two") == 0);

	/* both first messages taken at once, each by its own sender, both held */
	gl_notify_event(n, GL_NEV_START, "first", NULL);
	for (int i = 0; i < 2; i++) {
		c[i] = accept_within(lis[i], 5000);
		printf("webhook %d: its first message %s\n", i, c[i] >= 0 ? "arrived" : "did not arrive within 5 s");
		CHECK(c[i] >= 0);
		buf[0] = '\0';
		if (c[i] >= 0)
			read_request(c[i], buf, sizeof(buf), 2000);
		CHECK(strstr(buf, "\"event\":\"start\"") != NULL);
	}
	for (int i = 0; i < 300; i++) {
		char t[32];
		snprintf(t, sizeof(t), "message %d", i);
		gl_notify_event(n, i == 9 ? GL_NEV_END : GL_NEV_FAULT, t, NULL);
	}
	counts(n, 0, k[0]);
	counts(n, 1, k[1]);
	printf("300 each behind held messages: dropped %lld and %lld\n", k[0][2], k[1][2]);
	CHECK(k[0][2] == 300 - GL_NOTIFY_QUEUE && k[1][2] == 300 - GL_NOTIFY_QUEUE);

	/* the second answered: its end comes next, the first still held */
	if (c[1] >= 0) {
		CHECK(write(c[1], ok, strlen(ok)) == (ssize_t)strlen(ok));
		close(c[1]);
	}
	b2 = accept_within(lis[1], 5000);
	CHECK(b2 >= 0);
	buf[0] = '\0';
	if (b2 >= 0)
		read_request(b2, buf, sizeof(buf), 2000);
	CHECK(strstr(buf, "\"event\":\"end\"") != NULL && strstr(buf, "\"text\":\"message 9\"") != NULL);

	/* the deadline ends both: A's held start and B's end cut, the rest dropped */
	gl_notify_finish(n, 0);
	counts(n, 0, k[0]);
	counts(n, 1, k[1]);
	printf("after the deadline: A sent %lld, failed %lld, dropped %lld; B sent %lld, failed %lld, dropped %lld\n",
	       k[0][0], k[0][1], k[0][2], k[1][0], k[1][1], k[1][2]);
	CHECK(k[0][0] == 0 && k[0][1] == 1 && k[0][2] == 300);
	CHECK(k[1][0] == 1 && k[1][1] == 1 && k[1][2] == 299);
	if (c[0] >= 0)
		close(c[0]);
	close(lis[0]);
	close(lis[1]);
	if (b2 >= 0)
		close(b2);
	gl_notify_free(n);
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
	two_webhooks();
	return check_done();
}
