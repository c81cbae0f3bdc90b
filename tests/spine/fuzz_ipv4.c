/* libFuzzer target: the router's IPv4 header checks (fw_ipv4_check) on arbitrary bytes; a
 * packet they pass gets its TTL decremented (fw_ipv4_ttl_dec), which must leave a header that
 * still sums right, with a TTL one less and at least 1. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "fw_ipv4.h"
#include "fw_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *p = malloc(size ? size : 1);
  memcpy(p, data, size);
  if (fw_ipv4_check(p, (uint32_t)size) == FW_IPV4_OK) {
    uint8_t ttl = p[8];
    uint32_t hl = (p[0] & 0xfu) * 4u;
    (void)fw_ipv4_dst(p);
    fw_ipv4_ttl_dec(p);
    assert(p[8] == ttl - 1 && p[8] >= 1);
    assert(fw_wire_csum(p, hl) == 0xffffu);
    assert(fw_ipv4_check(p, (uint32_t)size) != FW_IPV4_CSUM);
  }
  free(p);
  return 0;
}
