/* spine_lpm.h: the router program's side of the forwarding table: a route set and the table
 * the NICs' firmware looks up (layout: iface/spine_if.h), built from it. */
#ifndef SPINE_LPM_H
#define SPINE_LPM_H

#include <stddef.h>
#include <stdint.h>

#include "spine_if.h"

struct spine_route {
  uint32_t prefix;     /* host byte order; bits beyond len are ignored */
  uint8_t len;         /* 0..32 */
  uint32_t hop;        /* SPINE_HOP(next-hop node, port, flags) */
};

/* Builds the table of routes r[0..n-1] (a later route replaces an earlier one of the same
 * prefix) into t (cap bytes), generation gen. Returns its size, or -EINVAL (a length > 32),
 * -ENOSPC (more than SPINE_LPM_NHOP distinct hops, or more intervals than fit cap). */
long spine_lpm_build(const struct spine_route *r, size_t n, uint32_t gen, uint8_t *t, size_t cap);

#endif
