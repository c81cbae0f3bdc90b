/* libFuzzer target: arbitrary bytes as a datagram received by the UDP fabric (hw/udpwire.c:
 * the header, the nodes, then the link frame inside). The first byte picks which nodes this
 * endpoint hosts. What passes is a well-formed frame for a local node whose addresses agree
 * with the datagram's; nothing is read outside the input. */
#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "../../hw/udpwire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool local(const void *ctx, uint16_t node) { return (*(const uint8_t *)ctx >> (node % 8)) & 1; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  uint8_t mask = data[0];
  struct udpwire_nodes nodes = {.nodes = 8, .local = local, .ctx = &mask};
  struct udpwire_rx rx;
  enum udpwire_verdict v = udpwire_check(data + 1, size - 1, &nodes, &rx);
  assert(v < UDPWIRE_V_NVERDICTS && strcmp(udpwire_verdict_name(v), "?") != 0);
  if (v != UDPWIRE_V_OK) return 0;
  assert(rx.hdr.src < 8 && rx.hdr.dst < 8 && local(&mask, rx.hdr.dst));
  assert(rx.hdr.len == size - 1 - UDPWIRE_HDR_LEN);
  assert(rx.link.src == rx.hdr.src && rx.link.dst == rx.hdr.dst);
  assert(rx.link.len + HW_LINK_OVERHEAD == rx.hdr.len);
  assert(rx.payload + rx.link.len <= data + size);
  /* What passes re-encodes to the same bytes. */
  uint8_t again[UDPWIRE_HDR_LEN];
  udpwire_put(again, &rx.hdr);
  assert(memcmp(again, data + 1, UDPWIRE_HDR_LEN) == 0);
  return 0;
}
