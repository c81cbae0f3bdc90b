/* fw_vm_wire.h: PANIC packets (fw_vm_wire.c): received ones demultiplexed, data and control ones
 * sent. Freestanding. */
#ifndef FW_VM_WIRE_H
#define FW_VM_WIRE_H

#include "fw.h"

/* Classifies a received PANIC packet (fw_rq.c calls it for type PANIC). */
void fw_vm_wire_classify(struct fw *fw, struct fw_rxi *ri);
/* A received PANIC packet is complete in receive buffer buf (fw_rq.c). */
void fw_vm_wire_rx(struct fw *fw, unsigned buf);
/* Sends PANIC packet k (fw_wire.h's view) with its k->len bytes of payload (copied now):
 * false if the send queue is full. */
bool fw_vm_wire_tx(struct fw *fw, const struct fw_wire_panic *k, const uint8_t *payload);
/* The program's SEND in fw->vm.send (routed): over the wire, or for this node straight into
 * the activation queue. false (counted) if the send queue is full. */
bool fw_vm_wire_send(struct fw *fw);

#endif
