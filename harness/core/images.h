/*
 * images.h - the container images the inference and training workloads
 * run, for manifest.json's "images" (docs/evidence.md): taken with the
 * inventory at run start and kept in the store with it.
 *
 * Sources, each an entry {"workload", "source", "image", "digest" (or
 * null), "pinned", "status": "measured" | "unavailable", "reason"}:
 *   scenario    the workload's "image" as written (its digest when it has
 *               one; a tag alone is recorded unpinned, without a digest);
 *   host        `crictl inspecti -o json IMAGE`, else `docker image inspect
 *               IMAGE`, on each reachable host of the scenario, through its
 *               transport: the repo digest the runtime holds;
 *   kubernetes  the workload's "image_source": the pods matching its
 *               selector, each container's status image and imageID.
 * Nothing here fails a run: what cannot be read is "unavailable" with the
 * reason. Each command or request has GL_INVENTORY_CMD_MS, all of them end
 * by the inventory's deadline.
 */
#ifndef GL_IMAGES_H
#define GL_IMAGES_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "scenario.h"

/* The "images" array for sc. hosts is the inventory's "hosts" object
 * (borrowed; a host whose kernel could not be read as unreachable is not
 * asked again), end_ns the collection's deadline (gl_now_ns clock).
 * NULL only when out of memory. */
cJSON *gl_images_collect(const struct gl_scenario *sc, const cJSON *hosts, int64_t end_ns);

#endif
