/* fw_lpm.c: the router's forwarding table: check and longest-prefix lookup (fw_lpm.h; the
 * layout is iface/spine_if.h's). The host builds the table (host/spine/spine_lpm.c); the
 * firmware trusts nothing of it until fw_lpm_check has passed it. Freestanding. */
#include "fw_lpm.h"

#include <stddef.h>

static uint32_t rd16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t rd32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#define HEAD(t, f) rd32((t) + offsetof(struct spine_lpm_head, f))
#define IDX(t, b) rd16((t) + SPINE_LPM_IDX + 2u * (uint32_t)(b))
#define START(t, i) rd32((t) + SPINE_LPM_START + 4u * (uint32_t)(i))
#define IHOP(t, n, i) ((t)[SPINE_LPM_START + 4u * (uint32_t)(n) + (uint32_t)(i)])

uint32_t fw_lpm_gen(const uint8_t *t) { return HEAD(t, gen); }

/* The intervals of /8 number b: idx[b] .. idx[b+1]-1, the first starting at b << 24 and the
 * others increasing, all inside the /8. */
static bool region_ok(const uint8_t *t, uint32_t b) {
  uint32_t lo = IDX(t, b), hi = IDX(t, b + 1);
  if (START(t, lo) != b << 24) return false;
  for (uint32_t i = lo + 1; i < hi; i++) {
    uint32_t s = START(t, i);
    if (s <= START(t, i - 1) || s >> 24 != b) return false;
  }
  return true;
}

enum fw_lpm_err fw_lpm_check(const uint8_t *t, uint32_t cap) {
  if (cap < SPINE_LPM_START) return FW_LPM_E_SIZE;
  if (HEAD(t, magic) != SPINE_LPM_MAGIC) return FW_LPM_E_MAGIC;
  uint32_t n = HEAD(t, n), nhop = HEAD(t, nhop);
  if (n < 256u || n > SPINE_LPM_MAXN || nhop > SPINE_LPM_NHOP) return FW_LPM_E_COUNT;
  if (SPINE_LPM_SIZE(n) > cap) return FW_LPM_E_SIZE;
  if (IDX(t, 0) != 0 || IDX(t, 256) != n) return FW_LPM_E_INDEX;
  for (uint32_t b = 0; b < 256u; b++)
    if (IDX(t, b) >= IDX(t, b + 1)) return FW_LPM_E_INDEX;
  for (uint32_t b = 0; b < 256u; b++)
    if (!region_ok(t, b)) return FW_LPM_E_ORDER;
  for (uint32_t i = 0; i < n; i++)
    if (IHOP(t, n, i) != SPINE_LPM_NONE && IHOP(t, n, i) >= nhop) return FW_LPM_E_HOP;
  return FW_LPM_OK;
}

bool fw_lpm_lookup(const uint8_t *t, uint32_t addr, uint32_t *hop) {
  uint32_t n = HEAD(t, n), b = addr >> 24;
  /* the last interval of the /8 starting at or below addr: lo always qualifies */
  uint32_t lo = IDX(t, b), hi = IDX(t, b + 1);
  while (hi - lo > 1u) {
    uint32_t mid = lo + (hi - lo) / 2u;
    if (START(t, mid) <= addr) lo = mid;
    else hi = mid;
  }
  uint32_t h = IHOP(t, n, lo);
  if (h == SPINE_LPM_NONE) return false;
  *hop = rd32(t + SPINE_LPM_HOPS + 4u * h);
  return true;
}
