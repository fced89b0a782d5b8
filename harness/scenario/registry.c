/*
 * registry.c - the one explicit table of plug-ins per family. A plug-in not
 * listed here does not exist (no constructor tricks a static link could
 * drop). Every entry has its run hooks; one added without them would be
 * known to validation (so scenarios can be written and checked) and refused
 * by `run` in preflight (controller.c, preflight_plugins).
 */
#include <stdio.h>
#include <string.h>

#include "plugin.h"

extern const struct gl_workload_ops gl_workload_null;
extern const struct gl_workload_ops gl_workload_inference;
extern const struct gl_workload_ops gl_workload_training;
extern const struct gl_workload_ops gl_workload_storage;
extern const struct gl_workload_ops gl_workload_telemetry;
extern const struct gl_fault_ops gl_fault_null;
extern const struct gl_fault_ops gl_fault_exec;
extern const struct gl_fault_ops gl_fault_process_kill;
extern const struct gl_fault_ops gl_fault_storage_throttle;
extern const struct gl_fault_ops gl_fault_link_flap;
extern const struct gl_fault_ops gl_fault_partition;
extern const struct gl_fault_ops gl_fault_drain_worker;
extern const struct gl_fault_ops gl_fault_control_plane_loss;
extern const struct gl_fault_ops gl_fault_model_swap;
extern const struct gl_fault_ops gl_fault_gpu_throttle;
extern const struct gl_fault_ops gl_fault_fabric_port;
extern const struct gl_fault_ops gl_fault_gpu_xid;
extern const struct gl_transport_ops gl_transport_local;
extern const struct gl_transport_ops gl_transport_null;
extern const struct gl_transport_ops gl_transport_ssh;

static const struct gl_workload_ops *const workloads[] = {
	&gl_workload_inference, &gl_workload_training, &gl_workload_storage, &gl_workload_telemetry, &gl_workload_null,
};

static const struct gl_fault_ops *const faults[] = {
	&gl_fault_drain_worker, &gl_fault_link_flap, &gl_fault_partition, &gl_fault_storage_throttle, &gl_fault_control_plane_loss, &gl_fault_model_swap,
	&gl_fault_process_kill, &gl_fault_exec, &gl_fault_null,
	&gl_fault_gpu_throttle,
	&gl_fault_fabric_port,
	&gl_fault_gpu_xid,
};

static const struct gl_transport_ops *const transports[] = {
	&gl_transport_local, &gl_transport_ssh, &gl_transport_null,
};

const struct gl_workload_ops *gl_workload_find(const char *name)
{
	for (size_t i = 0; i < GL_ARRAY_LEN(workloads); i++)
		if (!strcmp(workloads[i]->name, name))
			return workloads[i];
	return NULL;
}

const struct gl_fault_ops *gl_fault_find(const char *kind)
{
	for (size_t i = 0; i < GL_ARRAY_LEN(faults); i++)
		if (!strcmp(faults[i]->kind, kind))
			return faults[i];
	return NULL;
}

const struct gl_workload_ops *gl_workload_at(size_t i)
{
	return i < GL_ARRAY_LEN(workloads) ? workloads[i] : NULL;
}

const struct gl_fault_ops *gl_fault_at(size_t i)
{
	return i < GL_ARRAY_LEN(faults) ? faults[i] : NULL;
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
	cnt = family == GL_FAMILY_WORKLOAD ? GL_ARRAY_LEN(workloads)
	    : family == GL_FAMILY_FAULT ? GL_ARRAY_LEN(faults) : GL_ARRAY_LEN(transports);
	for (size_t i = 0; i < cnt && off < n; i++) {
		const char *name = family == GL_FAMILY_WORKLOAD ? workloads[i]->name
				 : family == GL_FAMILY_FAULT ? faults[i]->kind : transports[i]->name;
		off += (size_t)snprintf(buf + off, n - off, "%s%s", i ? ", " : "", name);
	}
}
