/*
 * registry.c - the plug-ins of each family, in rank order. Workloads and
 * fault kinds register themselves (plugin.h, GL_REGISTER_WORKLOAD and
 * GL_REGISTER_FAULT) before main runs; the transports, which sit at this
 * layer, are listed here. An entry without its run hooks is known to
 * validation (so scenarios can be written and checked) and refused by `run`
 * in preflight (controller.c, preflight_plugins).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

/* More than any build registers; registering past it is a build defect. */
#define REGISTRY_MAX 32

extern const struct gl_transport_ops gl_transport_local;
extern const struct gl_transport_ops gl_transport_null;
extern const struct gl_transport_ops gl_transport_ssh;

struct slot {
	const void *ops;
	const char *name;
	int rank;
};

static struct slot workloads_r[REGISTRY_MAX], faults_r[REGISTRY_MAX];
static size_t n_workloads, n_faults;
static const struct gl_workload_ops *workloads[REGISTRY_MAX];
static const struct gl_fault_ops *faults[REGISTRY_MAX];

static const struct gl_transport_ops *const transports[] = {
	&gl_transport_local,
	&gl_transport_ssh,
	&gl_transport_null,
};

/* Insert (ops, name, rank) into r[0..*n) kept sorted by rank; a duplicate
 * name or rank, or a full table, ends the program (before main: nothing to
 * undo). */
static void insert(struct slot *r, size_t *n, const char *family, const void *ops, const char *name, int rank)
{
	size_t i;

	if (*n == REGISTRY_MAX) {
		fprintf(stderr, "gauntlet: registry: more than %d %s plug-ins (at %s)\n", REGISTRY_MAX, family, name);
		abort();
	}
	for (i = 0; i < *n; i++)
		if (!strcmp(r[i].name, name) || r[i].rank == rank) {
			fprintf(stderr, "gauntlet: registry: %s plug-in %s (rank %d) clashes with %s (rank %d)\n",
				family, name, rank, r[i].name, r[i].rank);
			abort();
		}
	for (i = *n; i > 0 && r[i - 1].rank > rank; i--)
		r[i] = r[i - 1];
	r[i] = (struct slot){ ops, name, rank };
	(*n)++;
}

void gl_register_workload(const struct gl_workload_ops *ops, int rank)
{
	insert(workloads_r, &n_workloads, "workload", ops, ops->name, rank);
	for (size_t i = 0; i < n_workloads; i++)
		workloads[i] = workloads_r[i].ops;
}

void gl_register_fault(const struct gl_fault_ops *ops, int rank)
{
	insert(faults_r, &n_faults, "fault", ops, ops->kind, rank);
	for (size_t i = 0; i < n_faults; i++)
		faults[i] = faults_r[i].ops;
}

const struct gl_workload_ops *gl_workload_find(const char *name)
{
	for (size_t i = 0; i < n_workloads; i++)
		if (!strcmp(workloads[i]->name, name))
			return workloads[i];
	return NULL;
}

const struct gl_fault_ops *gl_fault_find(const char *kind)
{
	for (size_t i = 0; i < n_faults; i++)
		if (!strcmp(faults[i]->kind, kind))
			return faults[i];
	return NULL;
}

const struct gl_workload_ops *gl_workload_at(size_t i)
{
	return i < n_workloads ? workloads[i] : NULL;
}

int gl_workload_rank_at(size_t i)
{
	return i < n_workloads ? workloads_r[i].rank : -1;
}

const struct gl_fault_ops *gl_fault_at(size_t i)
{
	return i < n_faults ? faults[i] : NULL;
}

const struct gl_transport_ops *gl_transport_find(const char *name)
{
	for (size_t i = 0; i < GL_ARRAY_LEN(transports); i++)
		if (!strcmp(transports[i]->name, name))
			return transports[i];
	return NULL;
}

void gl_registry_names(int family, char *buf, size_t n)
{
	size_t off = 0, cnt;

	buf[0] = '\0';
	cnt = family == GL_FAMILY_WORKLOAD ? n_workloads
	      : family == GL_FAMILY_FAULT  ? n_faults
					   : GL_ARRAY_LEN(transports);
	for (size_t i = 0; i < cnt && off < n; i++) {
		const char *name = family == GL_FAMILY_WORKLOAD ? workloads[i]->name
				   : family == GL_FAMILY_FAULT  ? faults[i]->kind
								: transports[i]->name;
		off += (size_t)snprintf(buf + off, n - off, "%s%s", i ? ", " : "", name);
	}
}
