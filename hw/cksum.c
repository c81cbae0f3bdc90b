/* Internet checksum. 32-bit big-endian words are summed in 64 bits and folded at the end:
 * since 2^16 = 1 (mod 0xffff), this equals the RFC 1071 sum of 16-bit words. */
#include "cksum.h"

static uint16_t fold(uint64_t s) {
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return (uint16_t)s;
}

void hw_csum_init(struct hw_csum *c) {
  c->sum = 0;
  c->odd = 0;
}

void hw_csum_update(struct hw_csum *c, const void *data, size_t len) {
  const uint8_t *p = data;
  uint64_t s = c->sum;
  if (len == 0) return;
  if (c->odd) { /* completes the word whose high byte ended the previous chunk */
    s += *p++;
    len--;
    c->odd = 0;
  }
  while (len >= 4) {
    s += ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
    p += 4;
    len -= 4;
    if (s >> 62) s = fold(s); /* never reached for buffers under 2^32 words, kept for safety */
  }
  if (len >= 2) {
    s += ((uint32_t)p[0] << 8) | p[1];
    p += 2;
    len -= 2;
  }
  if (len) {
    s += (uint32_t)p[0] << 8;
    c->odd = 1;
  }
  c->sum = s;
}

uint16_t hw_csum_sum(const struct hw_csum *c) { return fold(c->sum); }

uint16_t hw_csum_final(const struct hw_csum *c) { return (uint16_t)~fold(c->sum); }

uint16_t hw_csum_sum_of(const void *data, size_t len) {
  struct hw_csum c;
  hw_csum_init(&c);
  hw_csum_update(&c, data, len);
  return hw_csum_sum(&c);
}

uint16_t hw_inet_csum(const void *data, size_t len) { return (uint16_t)~hw_csum_sum_of(data, len); }

uint16_t hw_csum_add(uint16_t a, uint16_t b) { return fold((uint32_t)a + b); }
