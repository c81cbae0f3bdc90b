/* fw_ipv4.c: IPv4 header checks and the TTL decrement of a forwarded packet (fw_ipv4.h).
 * Freestanding. */
#include "fw_ipv4.h"

#include "fw_wire.h"

static uint32_t be16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }

enum fw_ipv4_verdict fw_ipv4_check(const uint8_t *p, uint32_t len) {
  if (len < FW_IPV4_HLEN || p[0] >> 4 != 4u) return FW_IPV4_BAD;
  uint32_t hl = (p[0] & 0xfu) * 4u, total = be16(p + 2);
  if (hl < FW_IPV4_HLEN || hl > len || total < hl || total > len) return FW_IPV4_BAD;
  if (fw_wire_csum(p, hl) != 0xffffu) return FW_IPV4_CSUM;
  if (p[8] <= 1u) return FW_IPV4_TTL;
  return FW_IPV4_OK;
}

uint32_t fw_ipv4_dst(const uint8_t *p) { return be16(p + 16) << 16 | be16(p + 18); }

/* RFC 1624, eqn. 3: HC' = ~(~HC + ~m + m'), m the 16-bit word holding TTL and protocol. */
void fw_ipv4_ttl_dec(uint8_t *p) {
  uint32_t m = be16(p + 8);
  p[8] = (uint8_t)(p[8] - 1u);
  uint32_t m2 = be16(p + 8);
  uint32_t s = (~be16(p + 10) & 0xffffu) + (~m & 0xffffu) + m2;
  s = (s & 0xffffu) + (s >> 16);
  s = (s & 0xffffu) + (s >> 16);
  uint32_t hc = ~s & 0xffffu;
  p[10] = (uint8_t)(hc >> 8);
  p[11] = (uint8_t)hc;
}
