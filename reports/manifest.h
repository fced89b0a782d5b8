/*
 * manifest.h - manifest.json: what produced a run's evidence. The gauntlet
 * version and source revision, the run and the SHA-256 of its scenario,
 * where the scenario came from in git (commit, dirty flags), and the
 * inventory of every host (kernel, GPUs, driver, CUDA, InfiniBand firmware,
 * NCCL, MPI) and the workloads' container images (images.h: "images",
 * each measured with a digest or unavailable with the reason, "pinned"
 * false for an image named by tag) taken at run start and kept in the
 * store (inventory.h). Built from the analysis and the stored inventory
 * alone, so `gauntlet report` renders the same manifest at any later time.
 */
#ifndef GL_MANIFEST_H
#define GL_MANIFEST_H

#include <cjson/cJSON.h>

#include "analysis.h"
#include "store.h"

/* The manifest.json document (caller deletes; NULL only when out of
 * memory). inventory is the stored document (gl_inventory_collect's
 * output), borrowed; NULL when the store has none, which the manifest says
 * as unavailable rather than leaving out. Every inventory item comes out
 * as {"value", "source": "measured", ...} or {"status": "unavailable",
 * "why"}; a stored item of any other shape is shown unavailable. */
cJSON *gl_manifest_build(const struct gl_analysis *an, const cJSON *inventory);

/* The same with the inventory read from the store (document "inventory");
 * a missing or unreadable one is shown unavailable with the reason. */
cJSON *gl_manifest_from_store(const struct gl_analysis *an, struct gl_store *st);

/* Call line once for each image of manifest's "images" named by tag
 * without a digest (per workload and image; the scenario's name or a
 * pod's), with the warning text report.md and report.html show. */
void gl_manifest_image_warnings(const cJSON *manifest, void (*line)(void *arg, const char *text), void *arg);

#endif
