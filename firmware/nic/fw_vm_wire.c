/* fw_vm_wire.c: PANIC packets on the wire (WIRE.md, "PANIC packets"). A received packet of
 * type PANIC goes through the receive path like any other (RDMA moves nothing of it to the
 * host); once complete it is checked (this node, the link's sender, whole, payload checksum
 * summed here since no host DMA engine summed it) and demultiplexed by kind: a message for a
 * program's trigger is queued as an activation; a control request or reply goes to
 * fw_vm_ctl.c. Sending (a program's SEND, control requests and replies) uses the send queue's
 * firmware messages (fw_txlocal_queue). Freestanding. */
#include "fw_vm_wire.h"

#include "fw_sram.h"
#include "fw_txlocal.h"
#include "fw_vm_ctl.h"
#include "fw_vm_run.h"

void fw_vm_wire_classify(struct fw *fw, struct fw_rxi *ri) {
  (void)fw;
  ri->verdict = FW_RX_PANIC; /* judged whole in fw_vm_wire_rx */
  ri->drop_reason = FW_DROP_NONE;
  ri->npiece = 0;
}

static bool whole(struct fw *fw, unsigned buf, const struct fw_rxi *ri) {
  const struct fw_wire_hdr *h = &ri->hdr;
  if (!ri->complete_ok || h->dst_node != fw->node || h->src_node != ri->src) return false;
  if (h->dst_vi > FW_WIRE_PANIC_REPLY || h->src_vi != 0) return false;
  const uint8_t *p = fw->sram + FW_RBUF_ADDR(buf) + FW_WIRE_HDR_LEN;
  return fw_wire_trailer_ok(p + h->len, fw_wire_csum(p, h->len));
}

void fw_vm_wire_rx(struct fw *fw, unsigned buf) {
  const struct fw_rxi *ri = &fw->rxi[buf];
  volatile struct hostif_panic_counters *c = &fw_ctr(fw)->panic;
  if (!fw->vm.on || !whole(fw, buf, ri)) {
    fw_count64v(&c->rx_drop_bad);
    return;
  }
  struct fw_wire_panic k;
  fw_wire_panic_view(&ri->hdr, &k);
  uint32_t payload = FW_RBUF_ADDR(buf) + FW_WIRE_HDR_LEN;
  if (k.kind == FW_WIRE_PANIC_REQ) {
    fw_vm_ctl_request(fw, &k, payload);
  } else if (k.kind == FW_WIRE_PANIC_REPLY) {
    fw_vm_ctl_reply(fw, &k, payload);
  } else {
    fw_count64v(&c->rx_pkts);
    uint32_t st = fw_vm_run_queue(fw, k.msg.prog, false, k.msg.trig, payload, k.len, NULL);
    if (st == HOSTIF_PANIC_EBUSY) fw_count64v(&c->rx_drop_full);
    else if (st != HOSTIF_PANIC_OK) fw_count64v(&c->rx_drop_no_prog);
  }
}

bool fw_vm_wire_tx(struct fw *fw, const struct fw_wire_panic *k, const uint8_t *payload) {
  struct fw_wire_hdr h;
  fw_wire_panic_hdr(k, &h);
  return fw_txlocal_queue(fw, &h, payload);
}

bool fw_vm_wire_send(struct fw *fw) {
  const struct fw_vm_send *q = &fw->vm.send;
  volatile struct hostif_panic_counters *c = &fw_ctr(fw)->panic;
  if (q->node == fw->node) { /* a program on this NIC: as if it had come back over the wire */
    uint32_t st = fw_vm_run_queue(fw, q->prog, false, q->trig, (uint32_t)(q->data - fw->sram), q->len,
                              NULL);
    if (st == HOSTIF_PANIC_EBUSY) fw_count64v(&c->rx_drop_full);
    else if (st != HOSTIF_PANIC_OK) fw_count64v(&c->rx_drop_no_prog);
    return true;
  }
  struct fw_wire_panic k = {.peer = q->node, .kind = FW_WIRE_PANIC_MSG, .len = q->len,
                            .msg = {q->prog, q->trig, fw->vm.cur_prog}};
  if (!fw_vm_wire_tx(fw, &k, q->data)) {
    fw_count64v(&c->send_fail);
    return false;
  }
  fw_count64v(&c->tx_pkts);
  return true;
}
