/* Helpers shared by the hw tests. */
#include "hwtest.h"

#include <string.h>

#include "wait.h"

struct nic *t_nic(uint16_t node, enum nic_timing timing) {
  struct nic_config c;
  nic_config_default(&c);
  c.node = node;
  c.timing = timing;
  int err = 0;
  struct nic *nic = nic_create(&c, &err);
  assert_non_null(nic);
  assert_int_equal(err, NIC_OK);
  nic_imr_set(nic, ~0u);
  return nic;
}

unsigned t_run(struct nic *nic, unsigned limit) {
  unsigned n = 0;
  while (n < limit && nic_step(nic)) n++;
  return n;
}

void t_fill(uint8_t *p, size_t n, uint32_t seed) {
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    p[i] = (uint8_t)x;
  }
}

uint16_t t_ref_sum(const uint8_t *p, size_t n) {
  uint32_t s = 0;
  for (size_t i = 0; i < n; i += 2) {
    s += (uint32_t)p[i] << 8;
    if (i + 1 < n) s += p[i + 1];
    s = (s & 0xffff) + (s >> 16);
  }
  return (uint16_t)s;
}

void t_desc(struct nic *nic, uint32_t at, uint32_t next, uint16_t flags, uint32_t len,
            uint32_t sram, uint64_t host, uint32_t ptag) {
  struct nic_hdma_desc d = {
      .next = next, .flags = flags, .len = len, .sram = sram,
      .host_hi = (uint32_t)(host >> 32), .host_lo = (uint32_t)host, .ptag = ptag,
  };
  assert_int_equal(nic_sram_write(nic, at, &d, sizeof d), NIC_OK);
}

struct nic_hdma_desc t_desc_read(struct nic *nic, uint32_t at) {
  struct nic_hdma_desc d;
  assert_int_equal(nic_sram_read(nic, at, &d, sizeof d), NIC_OK);
  return d;
}

int t_doorbell_wait(struct nic *nic, int64_t timeout_ns) {
  struct wait_set s = {.r = {nic_window(nic)->regs}, .n = 1};
  return wait_doorbell(&s, WAIT_NICD_SPIN_NS, timeout_ns);
}
