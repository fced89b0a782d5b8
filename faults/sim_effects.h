/*
 * sim_effects.h - what each fault kind does to the world of `gauntlet
 * simulate` (its ops' sim; sim_effects.c), one hook per effect.
 */
#ifndef GL_SIM_EFFECTS_H
#define GL_SIM_EFFECTS_H

#include "plugin.h"

void gl_sim_drain(struct sim_fault *f, const struct sim_world *w, const struct gl_fault_spec *s);
void gl_sim_kill(struct sim_fault *f, const struct sim_world *w, const struct gl_fault_spec *s);
void gl_sim_xid(struct sim_fault *f, const struct sim_world *w, const struct gl_fault_spec *s);
void gl_sim_flap(struct sim_fault *f, const struct sim_world *w, const struct gl_fault_spec *s);
void gl_sim_partition(struct sim_fault *f, const struct sim_world *w, const struct gl_fault_spec *s);
void gl_sim_throttle_io(struct sim_fault *f, const struct sim_world *w, const struct gl_fault_spec *s);
void gl_sim_gpu_slow(struct sim_fault *f, const struct sim_world *w, const struct gl_fault_spec *s);
void gl_sim_adapter(struct sim_fault *f, const struct sim_world *w, const struct gl_fault_spec *s);

#endif
