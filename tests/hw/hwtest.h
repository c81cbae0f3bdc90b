/* Helpers shared by the hw tests (cmocka). */
#ifndef HW_TEST_H
#define HW_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "hostmem.h"
#include "../../hw/nic.h"

/* A NIC with the default configuration (and the given timing and node). */
struct nic *t_nic(uint16_t node, enum nic_timing timing);
/* Steps the NIC until nothing is due (at most limit steps). Returns the steps taken. */
unsigned t_run(struct nic *nic, unsigned limit);
/* Deterministic bytes. */
void t_fill(uint8_t *p, size_t n, uint32_t seed);
/* Reference Internet checksum sum: byte pairs, big-endian, folded at the end. */
uint16_t t_ref_sum(const uint8_t *p, size_t n);
/* Writes a host DMA descriptor at SRAM address at. */
void t_desc(struct nic *nic, uint32_t at, uint32_t next, uint16_t flags, uint32_t len,
            uint32_t sram, uint64_t host, uint32_t ptag);
struct nic_hdma_desc t_desc_read(struct nic *nic, uint32_t at);
/* nicd's wait (iface/wait.h) on this NIC's window alone: 1 doorbell pending, 0 timeout. */
int t_doorbell_wait(struct nic *nic, int64_t timeout_ns);

#endif
