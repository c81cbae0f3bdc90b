/* ippkt.h: IPv4 test packets for the router's tests and benchmark: a UDP-protocol packet
 * of a given length with its header checksum, a sequence number and a pattern to check. */
#ifndef SPINE_IPPKT_H
#define SPINE_IPPKT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define IP4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

static inline uint16_t ippkt_csum(const uint8_t *p, size_t n) {
  uint32_t s = 0;
  for (size_t i = 0; i + 1 < n; i += 2) s += (uint32_t)p[i] << 8 | p[i + 1];
  if (n & 1) s += (uint32_t)p[n - 1] << 8;
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return (uint16_t)~s;
}

static inline void ippkt_put32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}
static inline uint32_t ippkt_get32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A packet of len (>= 28) bytes from src to dst with ttl; bytes 20..23 carry seq, the rest a
 * pattern of seq. */
static inline void ippkt_make(uint8_t *p, size_t len, uint32_t src, uint32_t dst, uint8_t ttl,
                              uint32_t seq) {
  memset(p, 0, 20);
  p[0] = 0x45;
  p[2] = (uint8_t)(len >> 8);
  p[3] = (uint8_t)len;
  p[8] = ttl;
  p[9] = 17;
  ippkt_put32(p + 12, src);
  ippkt_put32(p + 16, dst);
  uint16_t c = ippkt_csum(p, 20);
  p[10] = (uint8_t)(c >> 8);
  p[11] = (uint8_t)c;
  ippkt_put32(p + 20, seq);
  for (size_t i = 24; i < len; i++) p[i] = (uint8_t)(seq * 31u + i);
}

/* The packet as ippkt_make(len, src, dst, ttl, seq) made it, with TTL ttl_now and its header
 * checksum right. */
static inline bool ippkt_ok(const uint8_t *p, size_t len, uint32_t dst, uint8_t ttl_now, uint32_t seq) {
  if (len < 24 || p[0] != 0x45 || p[8] != ttl_now || ippkt_csum(p, 20) != 0) return false;
  if (ippkt_get32(p + 16) != dst || ippkt_get32(p + 20) != seq) return false;
  for (size_t i = 24; i < len; i++)
    if (p[i] != (uint8_t)(seq * 31u + i)) return false;
  return true;
}

#endif
