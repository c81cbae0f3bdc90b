/* spine_lpm.c: builds the router's range table from a route set (spine_lpm.h). Every route
 * cuts the address space at its first address and one past its last; every /8 is cut too.
 * Each piece gets the hop of the longest route covering its first address (route updates are
 * rare: a quadratic build of 1,000 routes takes a few milliseconds), and neighbours with the
 * same hop inside one /8 are merged. */
#include "spine_lpm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint32_t mask(uint8_t len) { return len ? ~0u << (32 - len) : 0; }

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static void wr16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void wr32(uint8_t *p, uint32_t v) {
  wr16(p, v);
  wr16(p + 2, v >> 16);
}

/* The index of route set r's longest route covering a, or -1. Of two of the same prefix the
 * later wins. */
static long best(const struct spine_route *r, size_t n, uint32_t a) {
  long b = -1;
  for (size_t i = 0; i < n; i++)
    if (((a ^ r[i].prefix) & mask(r[i].len)) == 0 && (b < 0 || r[i].len >= r[b].len)) b = (long)i;
  return b;
}

/* hop's entry in hops[0..*nh-1], added if new; -1 when the table is full. */
static int hop_slot(uint32_t *hops, uint32_t *nh, uint32_t hop) {
  for (uint32_t i = 0; i < *nh; i++)
    if (hops[i] == hop) return (int)i;
  if (*nh == SPINE_LPM_NHOP) return -1;
  hops[*nh] = hop;
  return (int)(*nh)++;
}

/* The sorted distinct cut points: every /8 and both ends of every route. */
static size_t cuts(const struct spine_route *r, size_t n, uint64_t *c) {
  size_t k = 0;
  for (uint64_t b = 0; b < 256; b++) c[k++] = b << 24;
  for (size_t i = 0; i < n; i++) {
    uint64_t lo = r[i].prefix & mask(r[i].len);
    c[k++] = lo;
    if (lo + (1ull << (32 - r[i].len)) < (1ull << 32)) c[k++] = lo + (1ull << (32 - r[i].len));
  }
  qsort(c, k, sizeof *c, cmp_u64);
  size_t u = 0;
  for (size_t i = 0; i < k; i++)
    if (u == 0 || c[i] != c[u - 1]) c[u++] = c[i];
  return u;
}

long spine_lpm_build(const struct spine_route *r, size_t n, uint32_t gen, uint8_t *t, size_t cap) {
  for (size_t i = 0; i < n; i++)
    if (r[i].len > 32) return -EINVAL;
  uint64_t *c = malloc((256 + 2 * n) * sizeof *c);
  uint32_t *start = malloc((256 + 2 * n) * sizeof *start);
  uint8_t *ih = malloc(256 + 2 * n);
  long rc = -ENOMEM;
  if (!c || !start || !ih) goto out;
  uint32_t hops[SPINE_LPM_NHOP], nh = 0;
  size_t k = cuts(r, n, c), m = 0;
  rc = -ENOSPC;
  for (size_t i = 0; i < k; i++) {
    uint32_t a = (uint32_t)c[i];
    long b = best(r, n, a);
    int h = SPINE_LPM_NONE;
    if (b >= 0 && (h = hop_slot(hops, &nh, r[b].hop)) < 0) goto out;
    if (m > 0 && (a & 0xffffffu) != 0 && ih[m - 1] == h) continue;   /* merged */
    start[m] = a;
    ih[m++] = (uint8_t)h;
  }
  if (m > SPINE_LPM_MAXN || SPINE_LPM_SIZE(m) > cap) goto out;
  memset(t, 0, SPINE_LPM_START);
  wr32(t, SPINE_LPM_MAGIC);
  wr32(t + 4, (uint32_t)m);
  wr32(t + 8, nh);
  wr32(t + 12, gen);
  for (uint32_t i = 0; i < nh; i++) wr32(t + SPINE_LPM_HOPS + 4 * i, hops[i]);
  size_t j = 0;
  for (uint32_t b = 0; b <= 256; b++) {
    while (j < m && start[j] >> 24 < b) j++;
    wr16(t + SPINE_LPM_IDX + 2 * b, b == 256 ? (uint32_t)m : (uint32_t)j);
  }
  for (size_t i = 0; i < m; i++) {
    wr32(t + SPINE_LPM_START + 4 * i, start[i]);
    t[SPINE_LPM_START + 4 * m + i] = ih[i];
  }
  rc = (long)SPINE_LPM_SIZE(m);
out:
  free(c);
  free(start);
  free(ih);
  return rc;
}
