/*
 * cfg.h - reading a plug-in's scenario section after validation: each
 * getter returns the value of key k in object o, or def when it is absent
 * or not of the expected type. Validation (scenario.c) has already named
 * every bad value to the user; these never report.
 */
#ifndef GL_CFG_H
#define GL_CFG_H

#include <stdint.h>

#include <cjson/cJSON.h>

const char *gl_cfg_str(const cJSON *o, const char *k, const char *def);
double gl_cfg_num(const cJSON *o, const char *k, double def);
long gl_cfg_int(const cJSON *o, const char *k, long def);
int gl_cfg_bool(const cJSON *o, const char *k, int def);
/* "90s", "1h30m" (units.h grammar) */
int64_t gl_cfg_dur(const cJSON *o, const char *k, int64_t def);
/* "4MiB", "1GB" (units.h grammar) or a whole number of bytes */
uint64_t gl_cfg_size(const cJSON *o, const char *k, uint64_t def);

#endif
