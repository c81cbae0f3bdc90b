/* peerdma.h: the peer DMA engine: one NIC copies a range of its SRAM into the SRAM of another
 * NIC on the same I/O bus (PCI peer-to-peer; nicd hosts them all in one process), as SPINE's
 * router moves a packet from its ingress to its egress adapter. The copy lands in a slot of
 * the target whose first word (its state) must be 0, else it is refused and nothing moves; the
 * source range carries the slot's new state in its first word. Then the engine rings the
 * target's doorbell `db`, which wakes its firmware. The transfer takes no emulated time (the
 * source firmware waits for it, so the bus time is the processor's). */
#ifndef HW_PEERDMA_H
#define HW_PEERDMA_H

#include <stdint.h>

#include "nic.h"

/* Makes nic a target of the other NICs' peer DMA (at most 64 NICs; nicd does it for each). */
void peerdma_attach(struct nic *nic);
void peerdma_detach(struct nic *nic);
/* Copies [from, from + len) of src's SRAM to [to, to + len) of node's. 0, or -ENODEV (no NIC
 * of that node here), -ERANGE (a range outside an SRAM, len < 4, to not 4-aligned), -EBUSY
 * (the target slot's state word is not 0). */
int peerdma_copy(struct nic *src, uint16_t node, uint32_t from, uint32_t to, uint32_t len,
                 unsigned db);

#endif
