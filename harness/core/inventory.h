/*
 * inventory.h - what the run ran on, taken once at run start and kept in
 * the store (gl_store_doc_put(st, "inventory", ...)) so that manifest.json
 * can be rendered again later from the store alone.
 *
 * Two parts: where the scenario file came from (its git repository, HEAD
 * commit, whether the file or the work tree were dirty, whether the
 * committed file is byte for byte the scenario that ran), and for each host
 * of the scenario, through its own transport (local, netns or ssh): kernel,
 * GPUs (name, driver, VBIOS, ECC mode from nvidia-smi), the CUDA version the
 * driver supports and the toolkit's (nvcc), InfiniBand adapters' firmware
 * (ibstat, else sysfs), NCCL and MPI versions.
 *
 * Every item is either {"value": V, "source": "measured", "command": how}
 * or {"status": "unavailable", "why": reason}: nothing is inferred from a
 * package name or assumed from another host.
 */
#ifndef GL_INVENTORY_H
#define GL_INVENTORY_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "scenario.h"

/* Seconds one inventory command may take, and the whole collection. */
#define GL_INVENTORY_CMD_MS 10000
#define GL_INVENTORY_BUDGET_MS 120000

/*
 * Collect the inventory of scenario sc: {"collected": RFC 3339,
 * "collect_s": x, "scenario_git": {...}, "hosts": {"NAME": {...}}}.
 * Bounded: each command has GL_INVENTORY_CMD_MS, the whole call
 * budget_ms (<= 0: GL_INVENTORY_BUDGET_MS); an unreachable host costs one
 * deadline, not one per item. Never fails the run: whatever cannot be
 * measured is marked unavailable with the reason. Returns a new tree
 * (cJSON_Delete), NULL only when out of memory.
 * Thread: the controller's thread (the ssh session cache is not locked).
 */
cJSON *gl_inventory_collect(const struct gl_scenario *sc, int64_t budget_ms);

/* The scenario_git part alone, for the scenario file at path whose bytes
 * hashed to sha256 (hex) when the run read it. */
cJSON *gl_inventory_scenario_git(const char *path, const char *sha256);

/* "runbooks": per fault id with a runbook, its URL, or its file's git blob
 * id, and the blob HEAD holds there when it lies in a repository. */
cJSON *gl_inventory_runbooks(const struct gl_scenario *sc);

#endif
