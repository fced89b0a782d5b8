/*
 * manifest.h - manifest.json: what produced a run's evidence. The gauntlet
 * version and source revision, the run and the SHA-256 of its scenario,
 * where the scenario came from in git (commit, dirty flags), and the
 * inventory of every host (kernel, GPUs, driver, CUDA, InfiniBand firmware,
 * NCCL, MPI) taken at run start and kept in the store (inventory.h). Built
 * from the analysis and the stored inventory alone, so `gauntlet report`
 * renders the same manifest at any later time.
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

#endif
