/* SRAM accessors. Every range is checked without overflow: addr <= size && len <= size - addr. */
#include <string.h>

#include "nic_internal.h"

bool nic_sram_ok(const struct nic *nic, uint32_t addr, uint64_t len) {
  return addr <= nic->sram_size && len <= (uint64_t)(nic->sram_size - addr);
}

uint32_t nic_sram_size(const struct nic *nic) { return nic->sram_size; }

int nic_sram_read(const struct nic *nic, uint32_t addr, void *dst, size_t len) {
  if (!nic_sram_ok(nic, addr, len)) return NIC_ERANGE;
  if (len) memcpy(dst, nic->sram + addr, len);
  return NIC_OK;
}

int nic_sram_write(struct nic *nic, uint32_t addr, const void *src, size_t len) {
  if (!nic_sram_ok(nic, addr, len)) return NIC_ERANGE;
  if (len) memcpy(nic->sram + addr, src, len);
  return NIC_OK;
}

int nic_sram_read32(const struct nic *nic, uint32_t addr, uint32_t *v) {
  if (addr % 4) return NIC_EALIGN;
  return nic_sram_read(nic, addr, v, 4);
}

int nic_sram_write32(struct nic *nic, uint32_t addr, uint32_t v) {
  if (addr % 4) return NIC_EALIGN;
  return nic_sram_write(nic, addr, &v, 4);
}

void *nic_sram_ptr(struct nic *nic, uint32_t addr, size_t len) {
  return nic_sram_ok(nic, addr, len) ? nic->sram + addr : NULL;
}
