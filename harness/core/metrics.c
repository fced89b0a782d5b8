/*
 * metrics.c - named per-window series behind one mutex. The lock is held
 * only for the length of one histogram update, so a storage worker thread
 * and the event loop can both record without measurable contention.
 */
#include "metrics.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct series {
	char name[96];
	struct gl_hist *h; /* NULL for a counter */
	int64_t counter;
};

struct gl_metrics {
	pthread_mutex_t lock;
	struct series s[GL_METRICS_MAX];
	int n;
};

struct gl_metrics *gl_metrics_new(void)
{
	struct gl_metrics *m = calloc(1, sizeof(*m));
	if (m)
		pthread_mutex_init(&m->lock, NULL);
	return m;
}

void gl_metrics_free(struct gl_metrics *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->n; i++)
		gl_hist_free(m->s[i].h);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

static int find(struct gl_metrics *m, const char *name)
{
	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->s[i].name, name))
			return i;
	return -1;
}

static int get_or_add(struct gl_metrics *m, const char *name, int hist)
{
	int id;

	if (strlen(name) >= sizeof(m->s[0].name))
		return -1;
	pthread_mutex_lock(&m->lock);
	id = find(m, name);
	if (id >= 0) {
		if ((m->s[id].h != NULL) != hist)
			id = -1;
	} else if (m->n < GL_METRICS_MAX) {
		struct series *s = &m->s[m->n];
		strcpy(s->name, name);
		s->counter = 0;
		s->h = hist ? gl_hist_new() : NULL;
		if (hist && !s->h) {
			id = -1;
		} else {
			id = m->n++;
		}
	}
	pthread_mutex_unlock(&m->lock);
	return id;
}

int gl_metrics_hist(struct gl_metrics *m, const char *name)
{
	return get_or_add(m, name, 1);
}
int gl_metrics_counter(struct gl_metrics *m, const char *name)
{
	return get_or_add(m, name, 0);
}

void gl_metrics_record(struct gl_metrics *m, int id, double v)
{
	if (id < 0 || id >= m->n || !m->s[id].h)
		return;
	pthread_mutex_lock(&m->lock);
	gl_hist_record(m->s[id].h, v);
	pthread_mutex_unlock(&m->lock);
}

void gl_metrics_record_many(struct gl_metrics *m, int id, const double *v, size_t n)
{
	if (id < 0 || id >= m->n || !m->s[id].h || !n)
		return;
	pthread_mutex_lock(&m->lock);
	for (size_t i = 0; i < n; i++)
		gl_hist_record(m->s[id].h, v[i]);
	pthread_mutex_unlock(&m->lock);
}

void gl_metrics_record_n(struct gl_metrics *m, int id, double v, uint64_t count)
{
	if (id < 0 || id >= m->n || !m->s[id].h || !count)
		return;
	pthread_mutex_lock(&m->lock);
	gl_hist_record_n(m->s[id].h, v, count);
	pthread_mutex_unlock(&m->lock);
}

void gl_metrics_add(struct gl_metrics *m, int id, int64_t n)
{
	if (id < 0 || id >= m->n)
		return;
	pthread_mutex_lock(&m->lock);
	m->s[id].counter += n;
	pthread_mutex_unlock(&m->lock);
}

int gl_metrics_merge(struct gl_metrics *m, const char *name, const struct gl_hist *h, int64_t counter)
{
	int id = get_or_add(m, name, h != NULL), rc = 0;

	if (id < 0)
		return -1;
	pthread_mutex_lock(&m->lock);
	if (h)
		rc = gl_hist_merge(m->s[id].h, h);
	else if (__builtin_add_overflow(m->s[id].counter, counter, &m->s[id].counter))
		/* held at the bound, never wrapped: the caller counts it */
		m->s[id].counter = counter < 0 ? INT64_MIN : INT64_MAX, rc = -1;
	pthread_mutex_unlock(&m->lock);
	return rc;
}

void gl_metrics_visit(struct gl_metrics *m, gl_metrics_visit_fn fn, void *arg)
{
	pthread_mutex_lock(&m->lock);
	for (int i = 0; i < m->n; i++)
		fn(arg, m->s[i].name, m->s[i].h, m->s[i].counter);
	pthread_mutex_unlock(&m->lock);
}

void gl_metrics_visit_reset(struct gl_metrics *m, gl_metrics_visit_fn fn, void *arg)
{
	pthread_mutex_lock(&m->lock);
	for (int i = 0; i < m->n; i++) {
		fn(arg, m->s[i].name, m->s[i].h, m->s[i].counter);
		if (m->s[i].h)
			gl_hist_reset(m->s[i].h);
		m->s[i].counter = 0;
	}
	pthread_mutex_unlock(&m->lock);
}

void gl_metrics_reset(struct gl_metrics *m)
{
	pthread_mutex_lock(&m->lock);
	for (int i = 0; i < m->n; i++) {
		if (m->s[i].h)
			gl_hist_reset(m->s[i].h);
		m->s[i].counter = 0;
	}
	pthread_mutex_unlock(&m->lock);
}

int64_t gl_metrics_counter_value(struct gl_metrics *m, const char *name)
{
	int64_t v = 0;
	int id;

	pthread_mutex_lock(&m->lock);
	id = find(m, name);
	if (id >= 0)
		v = m->s[id].counter;
	pthread_mutex_unlock(&m->lock);
	return v;
}

struct gl_hist *gl_metrics_hist_copy(struct gl_metrics *m, const char *name)
{
	struct gl_hist *c = NULL;
	int id;

	pthread_mutex_lock(&m->lock);
	id = find(m, name);
	if (id >= 0 && m->s[id].h && (c = gl_hist_new()))
		gl_hist_merge(c, m->s[id].h);
	pthread_mutex_unlock(&m->lock);
	return c;
}

int gl_metrics_restore_hist(struct gl_metrics *m, const char *name, const unsigned char *blob, size_t len)
{
	struct gl_hist *h = gl_hist_deserialize(blob, len);
	int id = gl_metrics_hist(m, name), rc = -1;

	if (h && id >= 0) {
		pthread_mutex_lock(&m->lock);
		gl_hist_reset(m->s[id].h);
		rc = gl_hist_merge(m->s[id].h, h);
		pthread_mutex_unlock(&m->lock);
	}
	gl_hist_free(h);
	return rc;
}

int gl_metrics_restore_counter(struct gl_metrics *m, const char *name, int64_t value)
{
	int id = gl_metrics_counter(m, name);

	if (id < 0)
		return -1;
	pthread_mutex_lock(&m->lock);
	m->s[id].counter = value;
	pthread_mutex_unlock(&m->lock);
	return 0;
}

size_t gl_metrics_memory(struct gl_metrics *m)
{
	size_t total = 0;

	pthread_mutex_lock(&m->lock);
	for (int i = 0; i < m->n; i++)
		if (m->s[i].h)
			total += gl_hist_memory(m->s[i].h);
	pthread_mutex_unlock(&m->lock);
	return total;
}
