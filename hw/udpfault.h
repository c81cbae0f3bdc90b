/* Fault injection for the UDP transport (the kernel here has no netem): each datagram sent
 * may be lost, damaged (one byte changed), duplicated or held back to be sent after the next
 * one (reordered), with the given probabilities. The decisions come from a generator seeded
 * with `seed` and drawn in a fixed order per datagram, so a seed and a sequence of sends give
 * the same faults every time. */
#ifndef HW_UDPFAULT_H
#define HW_UDPFAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct udpfault_cfg {
  double loss, dup, reorder, corrupt; /* probabilities, 0..1 */
  uint64_t seed;
};

struct udpfault_verdict {
  bool drop, dup, hold, corrupt;
  size_t corrupt_at;    /* the byte changed, < the datagram's length */
  uint8_t corrupt_xor;  /* never 0 */
};

struct udpfault {
  struct udpfault_cfg cfg;
  uint64_t state;
  uint64_t loss, dup, reorder, corrupt; /* faults injected, by kind */
};

/* 0, or -EINVAL for a probability outside 0..1 (or NaN). */
int udpfault_init(struct udpfault *f, const struct udpfault_cfg *cfg);
/* Whether any probability is above 0. */
bool udpfault_active(const struct udpfault *f);
/* The faults for the next datagram of len (> 0) bytes; counts them. A dropped datagram has no
 * other fault. */
void udpfault_decide(struct udpfault *f, size_t len, struct udpfault_verdict *v);

#endif
