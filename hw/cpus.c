/* cpus.c: a NIC's firmware processors: event routing, per-processor masks, private
 * scratchpads, the semaphore and the doorbell between them (cpus.h). */
#include "cpus.h"

#include <string.h>

#include "nic_internal.h"

/* A NIC created without nic_cpus_set has one processor. */
static int count(const struct nic *nic) { return nic->cpus.n ? nic->cpus.n : 1; }

static int valid(const struct nic *nic, int cpu) { return cpu >= 0 && cpu < count(nic); }

int nic_cpus_set(struct nic *nic, int n, uint32_t route1) {
  if (n < 1 || n > NIC_CPUS_MAX) return -1;
  nic->cpus.n = n;
  nic->cpus.route1 = n > 1 ? route1 : 0;
  nic->cpus.imr1 = 0;
  return 0;
}

int nic_cpus(const struct nic *nic) { return count(nic); }

uint32_t nic_cpu_route(const struct nic *nic, int cpu) {
  if (!valid(nic, cpu)) return 0;
  return cpu == 1 ? nic->cpus.route1 : ~nic->cpus.route1;
}

void nic_cpu_imr_set(struct nic *nic, int cpu, uint32_t mask) {
  if (cpu == 0) nic_imr_set(nic, mask);
  else if (valid(nic, cpu)) nic->cpus.imr1 = mask;
}

uint32_t nic_cpu_events(const struct nic *nic, int cpu) {
  if (!valid(nic, cpu)) return 0;
  uint32_t imr = cpu ? nic->cpus.imr1 : nic_imr(nic);
  return nic_isr(nic) & nic_cpu_route(nic, cpu) & imr;
}

void nic_cpu_isr_clear(struct nic *nic, int cpu, uint32_t bits) {
  nic_isr_clear(nic, bits & nic_cpu_route(nic, cpu));
}

static uint8_t *scratch(const struct nic *nic, int cpu, size_t *size) {
  if (!valid(nic, cpu)) return NULL;
  *size = cpu ? NIC_SCRATCH1 : NIC_SCRATCH0;
  return cpu ? (uint8_t *)nic->cpus.scratch1 : (uint8_t *)nic->cpus.scratch0;
}

size_t nic_scratch_size(const struct nic *nic, int cpu) {
  size_t size = 0;
  return scratch(nic, cpu, &size) ? size : 0;
}

int nic_scratch_read(const struct nic *nic, int cpu, uint32_t off, void *buf, size_t len) {
  size_t size = 0;
  uint8_t *p = scratch(nic, cpu, &size);
  if (!p || off > size || len > size - off) return -1;
  memcpy(buf, p + off, len);
  return 0;
}

int nic_scratch_write(struct nic *nic, int cpu, uint32_t off, const void *buf, size_t len) {
  size_t size = 0;
  uint8_t *p = scratch(nic, cpu, &size);
  if (!p || off > size || len > size - off) return -1;
  memcpy(p + off, buf, len);
  return 0;
}

int nic_sem_take(struct nic *nic, int cpu) {
  if (!valid(nic, cpu)) return 0;
  if (nic->cpus.sem && nic->cpus.sem != cpu + 1) return 0;
  nic->cpus.sem = cpu + 1;
  return 1;
}

void nic_sem_give(struct nic *nic, int cpu) {
  if (valid(nic, cpu) && nic->cpus.sem == cpu + 1) nic->cpus.sem = 0;
}

int nic_sem_holder(const struct nic *nic) { return nic->cpus.sem - 1; }

void nic_cpu_kick(struct nic *nic, int cpu) {
  if (valid(nic, cpu)) nic->cpus.kick[cpu] = 1;
}

int nic_cpu_kick_take(struct nic *nic, int cpu) {
  if (!valid(nic, cpu) || !nic->cpus.kick[cpu]) return 0;
  nic->cpus.kick[cpu] = 0;
  return 1;
}

int nic_cpu_kicked(const struct nic *nic, int cpu) { return valid(nic, cpu) && nic->cpus.kick[cpu]; }
