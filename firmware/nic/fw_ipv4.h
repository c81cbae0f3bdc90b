/* fw_ipv4.h: the IPv4 header (RFC 791) as the router sees it: the checks a packet must pass
 * before it is routed, and the TTL decrement with its checksum update (RFC 1624). Works on the
 * packet's bytes in SRAM (network byte order). Freestanding; fuzz target fuzz_ipv4. */
#ifndef FW_IPV4_H
#define FW_IPV4_H

#include <stdbool.h>
#include <stdint.h>

#define FW_IPV4_HLEN 20u

enum fw_ipv4_verdict {
  FW_IPV4_OK = 0,
  FW_IPV4_BAD,        /* shorter than a header, not version 4, IHL < 5, header or total
                         length beyond the packet, total length below the header */
  FW_IPV4_CSUM,       /* the header checksum fails */
  FW_IPV4_TTL,        /* TTL 0 or 1: it may not be forwarded */
};

/* Judges the packet p of len bytes (the wire message's payload). */
enum fw_ipv4_verdict fw_ipv4_check(const uint8_t *p, uint32_t len);
/* The destination address (p passed fw_ipv4_check). */
uint32_t fw_ipv4_dst(const uint8_t *p);
/* TTL - 1 and the header checksum updated incrementally (p passed fw_ipv4_check, so TTL >= 2
 * and the TTL never wraps). */
void fw_ipv4_ttl_dec(uint8_t *p);

#endif
