/* vaddr.h: the VIA network address the tests and benchmarks use on the NIC fabric: a 2-byte
 * host address (the node) and a 2-byte discriminator. Header only. */
#ifndef VADDR_H
#define VADDR_H

#include "vipl.h"

static inline void vaddr_set(VIP_NET_ADDRESS *a, unsigned node, unsigned disc) {
  a->HostAddressLen = 2;
  a->DiscriminatorLen = 2;
  a->HostAddress[0] = (uint8_t)(node >> 8);
  a->HostAddress[1] = (uint8_t)node;
  a->HostAddress[2] = (uint8_t)(disc >> 8);
  a->HostAddress[3] = (uint8_t)disc;
}

#endif
