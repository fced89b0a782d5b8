/*
 * telemetry_nodes.h - the telemetry workload's per-GPU figures
 * (telemetry_nodes.c, docs/nodes.md): each GPU a DCGM exporter serves is a
 * node of kind "gpu", its readings tallied per window on the scrape thread
 * and handed to gl_ctx_node on the loop thread.
 */
#ifndef GL_TELEMETRY_NODES_H
#define GL_TELEMETRY_NODES_H

#include "plugin.h"
#include "prom.h"

/* The per-GPU figures, in the order of telemetry_figures.c's nodes[]. */
enum { TL_GPU_TEMP, TL_GPU_CLOCK, TL_GPU_XID, TL_GPU_DBE, TL_GPU_NFIG };

#define TL_GPUS_MAX 1024 /* GPUs followed per run; more are left out, logged once */

struct tl_gpus;

struct tl_gpus *tl_gpus_new(struct gl_ctx *c);
void tl_gpus_free(struct tl_gpus *g);
/* The per-GPU figure a series (its short name, "gpu_temp") feeds, -1 none. */
int tl_gpu_figure(const char *series);
/* Scrape thread: the GPU a DCGM sample of the probe at url is about, made
 * on first sight: its index, or -1 when the sample names no GPU (no
 * "gpu", "UUID" or "device" label) or TL_GPUS_MAX are followed. */
int tl_gpu_of(struct tl_gpus *g, const char *url, const struct gl_prom_sample *s);
/* Scrape thread: a reading of figure fig of GPU gpu. A gauge (temperature,
 * clock) adds the reading; a counter adds when inc > 0: an XID change
 * counts 1 (its largest the code), an ECC counter its increase. */
void tl_gpu_note(struct tl_gpus *g, int gpu, int fig, double value, double inc);
/* Loop thread: the window's tallies into gl_ctx_node (the window in force),
 * then cleared; logs once when GPUs were left out. */
void tl_gpus_flush(struct tl_gpus *g);

#endif
