/*
 * image_schema.h - the keys that name a workload's container image, shared
 * by the inference and training sections of a scenario (docs/scenario.md,
 * "Images"): "image" (a reference like "registry/name:tag" or
 * "registry/name@sha256:<64 hex>") and "image_source" (where the running
 * image is read back: a Kubernetes API, namespace and pod selector).
 * harness/core/images.c collects what they name into the manifest.
 */
#ifndef GL_IMAGE_SCHEMA_H
#define GL_IMAGE_SCHEMA_H

#include <cjson/cJSON.h>

#include "diag.h"
#include "scenario.h"

/* The keys the workload's own key list must allow. */
#define GL_IMAGE_KEYS "image", "image_source"

/* Check w's "image" and "image_source", errors naming PATH.image... */
void gl_image_keys_validate(const struct gl_scenario *s, const cJSON *w, struct gl_diag *d, const char *path);

#endif
