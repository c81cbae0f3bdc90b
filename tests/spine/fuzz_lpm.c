/* libFuzzer target: the router's forwarding table. Arbitrary bytes as a table through the
 * firmware's check (fw_lpm_check): a table it passes must look up inside its size (the buffer
 * is exactly that long) and agree with a linear scan of its intervals. The same bytes as a
 * route set through the router program's builder (spine_lpm_build): its table must pass the
 * check and agree with a brute-force longest-prefix match. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "fw_lpm.h"
#include "spine_lpm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t get32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

/* The last interval starting at or below a, by a linear scan. */
static bool scan(const uint8_t *t, uint32_t a, uint32_t *hop) {
  uint32_t n = get32(t + 4), i = 0;
  while (i + 1 < n && get32(t + SPINE_LPM_START + 4 * (i + 1)) <= a) i++;
  uint8_t h = t[SPINE_LPM_START + 4 * n + i];
  if (h == SPINE_LPM_NONE) return false;
  *hop = get32(t + SPINE_LPM_HOPS + 4 * h);
  return true;
}

static uint32_t mask(unsigned len) { return len ? ~0u << (32 - len) : 0; }

static void as_table(const uint8_t *data, size_t size) {
  uint8_t *t = malloc(size ? size : 1);
  memcpy(t, data, size);
  if (fw_lpm_check(t, (uint32_t)size) == FW_LPM_OK) {
    for (size_t k = 0; k + 4 <= size && k < 64; k += 4) {
      uint32_t a = get32(data + k), h1 = 0, h2 = 0;
      bool f1 = fw_lpm_lookup(t, a, &h1), f2 = scan(t, a, &h2);
      assert(f1 == f2 && h1 == h2);
    }
  }
  free(t);
}

static void as_routes(const uint8_t *data, size_t size) {
  static struct spine_route r[128];
  static uint8_t t[SPINE_BANK_SIZE];
  size_t n = 0;
  for (size_t k = 0; k + 6 <= size && n < 128; k += 6, n++) {
    r[n].prefix = get32(data + k);
    r[n].len = data[k + 4] % 33;
    r[n].hop = SPINE_HOP(data[k + 5] % 16, data[k + 5] / 16, 0);
  }
  long sz = spine_lpm_build(r, n, 1, t, sizeof t);
  assert(sz > 0);
  assert(fw_lpm_check(t, (uint32_t)sz) == FW_LPM_OK);
  for (size_t k = 0; k < n; k++) {
    uint32_t a = r[k].prefix & mask(r[k].len), h = 0;
    long best = -1;
    for (size_t j = 0; j < n; j++)
      if (((a ^ r[j].prefix) & mask(r[j].len)) == 0 && (best < 0 || r[j].len >= r[best].len)) best = (long)j;
    assert(fw_lpm_lookup(t, a, &h) && h == r[best].hop);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  as_table(data, size);
  as_routes(data, size);
  return 0;
}
