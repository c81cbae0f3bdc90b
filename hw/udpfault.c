/* Deterministic fault decisions: splitmix64, five draws per datagram whatever they decide. */
#include "udpfault.h"

#include <errno.h>

static uint64_t next(struct udpfault *f) {
  uint64_t z = (f->state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* A draw in [0, 1) with 53 bits. */
static double unit(struct udpfault *f) { return (double)(next(f) >> 11) * 0x1.0p-53; }

static bool prob_ok(double p) { return p >= 0.0 && p <= 1.0; } /* false for NaN too */

int udpfault_init(struct udpfault *f, const struct udpfault_cfg *cfg) {
  if (!prob_ok(cfg->loss) || !prob_ok(cfg->dup) || !prob_ok(cfg->reorder) || !prob_ok(cfg->corrupt))
    return -EINVAL;
  *f = (struct udpfault){.cfg = *cfg, .state = cfg->seed};
  return 0;
}

bool udpfault_active(const struct udpfault *f) {
  return f->cfg.loss > 0 || f->cfg.dup > 0 || f->cfg.reorder > 0 || f->cfg.corrupt > 0;
}

void udpfault_decide(struct udpfault *f, size_t len, struct udpfault_verdict *v) {
  double dl = unit(f), dc = unit(f), dd = unit(f), dr = unit(f);
  uint64_t where = next(f);
  *v = (struct udpfault_verdict){0};
  if (dl < f->cfg.loss) {
    v->drop = true;
    f->loss++;
    return;
  }
  if (dc < f->cfg.corrupt && len) {
    v->corrupt = true;
    v->corrupt_at = (size_t)(where % len);
    v->corrupt_xor = (uint8_t)(1u << (where >> 32) % 8);
    f->corrupt++;
  }
  if (dd < f->cfg.dup) {
    v->dup = true;
    f->dup++;
  }
  if (dr < f->cfg.reorder) v->hold = true; /* counted when a datagram really overtakes it */
}
