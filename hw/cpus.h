/* cpus.h: a NIC's firmware processors (one, or two as on the Tigon: shared SRAM, each with its
 * own event register and a private scratchpad). The hardware's ISR bits are routed: a bit in
 * the route of processor 1 is that processor's event, every other bit processor 0's. Each
 * processor reads, masks and clears only its own events, and reaches only its own scratchpad.
 * With one processor (the default) processor 0 sees every bit, as nic_events does. */
#ifndef HW_CPUS_H
#define HW_CPUS_H

#include <stddef.h>
#include <stdint.h>

struct nic;

enum {
  NIC_CPUS_MAX = 2,
  NIC_SCRATCH0 = 16 * 1024,   /* Tigon: CPU A's scratchpad (the paper, section 4.2) */
  NIC_SCRATCH1 = 8 * 1024,    /* CPU B's */
};

struct nic_cpus {
  int n;                          /* 1 or 2 */
  uint32_t route1;                /* the ISR bits that are processor 1's events */
  uint32_t imr1;                  /* processor 1's mask (processor 0's is the NIC's IMR) */
  int sem;                        /* the firmware semaphore: its holder + 1, 0 when free */
  uint8_t kick[NIC_CPUS_MAX];     /* the other processor changed work for this one */
  uint8_t scratch0[NIC_SCRATCH0];
  uint8_t scratch1[NIC_SCRATCH1];
};

/* Gives the NIC n processors (1 or 2) with this routing; -1 for another n. Processor 1's
 * mask starts at 0 (nothing unmasked); processor 0's is the NIC's IMR register. */
int nic_cpus_set(struct nic *nic, int n, uint32_t route1);
int nic_cpus(const struct nic *nic);
/* The ISR bits routed to processor cpu (every bit with one processor). */
uint32_t nic_cpu_route(const struct nic *nic, int cpu);
void nic_cpu_imr_set(struct nic *nic, int cpu, uint32_t mask);
/* Processor cpu's event register: the pending ISR bits routed to it and unmasked by it. */
uint32_t nic_cpu_events(const struct nic *nic, int cpu);
/* Clears those of bits that are processor cpu's; the other processor's stay pending. */
void nic_cpu_isr_clear(struct nic *nic, int cpu, uint32_t bits);
/* Processor cpu's scratchpad: its size, and a load or store inside it (-1 outside, or for a
 * processor the NIC does not have). */
size_t nic_scratch_size(const struct nic *nic, int cpu);
int nic_scratch_read(const struct nic *nic, int cpu, uint32_t off, void *buf, size_t len);
int nic_scratch_write(struct nic *nic, int cpu, uint32_t off, const void *buf, size_t len);

/* The firmware semaphore, a hardware register both processors share (the firmware's lock
 * over the state both write, firmware/nic/fw_cpus.c): processor cpu takes it if it is free
 * (1) or finds it held by the other (0); taking it again while holding it gives 1. Giving it
 * back releases it only if cpu holds it. nic_sem_holder: the holder, or -1 when free. */
int nic_sem_take(struct nic *nic, int cpu);
void nic_sem_give(struct nic *nic, int cpu);
int nic_sem_holder(const struct nic *nic);
/* The doorbell between the processors: nic_cpu_kick raises processor cpu's, which stays up
 * until that processor takes it (nic_cpu_kick_take: whether it was up). nic_cpu_kicked looks
 * without taking (a processor polling with nothing pending and no kick is idle). */
void nic_cpu_kick(struct nic *nic, int cpu);
int nic_cpu_kick_take(struct nic *nic, int cpu);
int nic_cpu_kicked(const struct nic *nic, int cpu);

#endif
