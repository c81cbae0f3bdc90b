/* fw_spine.h: SPINE's IP router on the NIC (fw_spine.c; host/spine/README.md): IP packets
 * (wire type FW_WIRE_IP) routed by the forwarding table in SRAM to another router port's NIC,
 * over the fabric or by peer DMA, or to this host; route updates from the host through the
 * router's mailbox. Freestanding. */
#ifndef FW_SPINE_H
#define FW_SPINE_H

#include <stdbool.h>
#include <stdint.h>

#include "spine_if.h"

struct fw;
struct fw_rxi;

/* The `ack` word of an IP message (WIRE.md, "IP packets"): 0 from a host; TRANSIT|node from
 * another port of the same router, to be sent on to node; UP: handed up to its own host by
 * this NIC's router. */
#define FW_SPINE_W_TRANSIT 0x80000000u
#define FW_SPINE_W_UP      0x40000000u

struct fw_spine {
  bool on;                        /* CONFIG done: IP packets are routed */
  uint8_t nport, self, mode;
  uint16_t port_node[SPINE_NPORT];
  uint32_t bank;                  /* SPINE_BANK_NONE until a table is in use */
  uint32_t gen;
  uint32_t cmd_seen;
  bool draining;                  /* a TABLE switched, waits for the old table's packets */
  uint32_t drain_mark;            /* send queue position (tx_head) when it switched */
  uint8_t peer_next;              /* peer DMA: the inbox slot to try first */
  uint32_t inbox_next;            /* peer DMA: the next inbox slot to take */
};

void fw_spine_init(struct fw *fw);
/* Every pass of the dispatcher: the mailbox, an update's drain, the peer DMA inbox. */
void fw_spine_pump(struct fw *fw);
/* Classifies an IP message whose header has arrived: true if the router takes it (verdict
 * FW_RX_IP, judged by fw_spine_rx at its end); false: it is for this host's IP endpoint. */
bool fw_spine_classify(struct fw *fw, struct fw_rxi *ri);
/* The whole message of an FW_RX_IP buffer is in SRAM: route, send on, or drop and count. */
void fw_spine_rx(struct fw *fw, unsigned buf);

#endif
