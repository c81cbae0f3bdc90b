/* sv_config.c: SOVIA's tunables and their environment variables: SOVIA_W (window, default
 * 32), SOVIA_T (delayed-ACK threshold, 16), SOVIA_COPY_THRESHOLD (bytes copied rather than
 * registered, 2048), SOVIA_COMBINE (small-message combining, 1), SOVIA_COMBINE_US (its timer,
 * 1000), SOVIA_CONNECT_MS (connect timeout, 10000), SOVIA_RCVBUF (receive ring bound, bytes;
 * 0 = w x 32 KB). Out-of-range values are clamped; sv_window fits (w, t) to the NIC. */
#include <stdlib.h>

#include "sv_int.h"

struct sv_cfg sv_defaults = {32, 16, 2048, true, 1000, 10000, 0};

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

unsigned sv_credit_w(unsigned w) { return w < 2 ? 2 : w; }

unsigned sv_credit_t(unsigned w, unsigned t) {
  unsigned cw = sv_credit_w(w);
  if (t < 1) t = 1;
  return t > cw - 1 ? cw - 1 : t;
}

void sv_window(unsigned w, unsigned t, unsigned *wd, unsigned *cw, unsigned *ct) {
  unsigned c = sv_credit_w(w), k = sv_credit_t(w, t);
  while (c > 2 && c + c / k > SV_NIC_RING) {
    c--;
    if (k > c - 1) k = c - 1;
  }
  *wd = w < c ? w : c;
  *cw = c;
  *ct = k;
}

void sv_config_load(void) {
  struct sv_cfg *c = &sv_defaults;
  c->w = env_u("SOVIA_W", 32, 1, SV_WMAX);
  c->t = sv_credit_t(c->w, env_u("SOVIA_T", 16, 1, SV_WMAX));
  c->copy_threshold = env_u("SOVIA_COPY_THRESHOLD", 2048, 0, 0x7fffffff);
  c->combine = env_u("SOVIA_COMBINE", 1, 0, 1) != 0;
  c->combine_us = env_u("SOVIA_COMBINE_US", 1000, 1, 10000000);
  c->connect_ms = env_u("SOVIA_CONNECT_MS", 10000, 1, 3600000);
  c->rcvbuf = env_u("SOVIA_RCVBUF", 0, 0, 1u << 30);
}
