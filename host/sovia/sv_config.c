/* sv_config.c: SOVIA's tunables and their environment variables: SOVIA_W (window, default
 * 32), SOVIA_T (delayed-ACK threshold, 16), SOVIA_COPY_THRESHOLD (bytes copied rather than
 * registered, 2048), SOVIA_COMBINE (small-message combining, 1), SOVIA_COMBINE_US (its timer,
 * 1000), SOVIA_CONNECT_MS (connect timeout, 10000). Out-of-range values are clamped. */
#include <stdlib.h>

#include "sv_int.h"

struct sv_cfg sv_defaults = {32, 16, 2048, true, 1000, 10000};

static unsigned env_u(const char *name, unsigned def, unsigned lo, unsigned hi) {
  const char *v = getenv(name);
  if (!v || !*v) return def;
  char *end;
  unsigned long x = strtoul(v, &end, 0);
  if (*end) return def;
  if (x < lo) x = lo;
  if (x > hi) x = hi;
  return (unsigned)x;
}

void sv_config_load(void) {
  struct sv_cfg *c = &sv_defaults;
  c->w = env_u("SOVIA_W", 32, 1, SV_WMAX);
  c->t = env_u("SOVIA_T", 16, 1, SV_WMAX);
  if (c->w < 2) c->w = 2;              /* the close needs W >= T + 1 (README, "w = 1") */
  if (c->t > c->w - 1) c->t = c->w - 1;
  c->copy_threshold = env_u("SOVIA_COPY_THRESHOLD", 2048, 0, 0x7fffffff);
  c->combine = env_u("SOVIA_COMBINE", 1, 0, 1) != 0;
  c->combine_us = env_u("SOVIA_COMBINE_US", 1000, 1, 10000000);
  c->connect_ms = env_u("SOVIA_CONNECT_MS", 10000, 1, 3600000);
}
