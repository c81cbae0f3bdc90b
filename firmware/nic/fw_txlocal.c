/* fw_txlocal.c: messages the firmware sends of its own accord (acknowledgements, PANIC VM
 * packets). They share the send queue and the data path with VIA messages: SDMA's host DMA
 * step finds no host pieces and completes at once, so the payload must already be in the
 * send buffer. It is copied into an SRAM staging slot when queued (the caller's buffer may
 * change right after) and from there into the send buffer when SDMA binds the message.
 * Freestanding. */
#include "fw_sram.h"

static int stage_take(struct fw *fw) {
  for (unsigned i = 0; i < FW_LOCAL_SLOTS; i++)
    if (!(fw->stage_busy & (1u << i))) {
      fw->stage_busy = (uint8_t)(fw->stage_busy | 1u << i);
      return (int)i;
    }
  return -1;
}

bool fw_tx_local(struct fw *fw, const struct fw_wire_hdr *h, const uint8_t *payload) {
  if (fw->tx_head - fw->tx_done >= FW_TXQ || h->len > FW_MAX_PAYLOAD) return false;
  int stage = FW_LOCAL_SLOTS;
  if (h->len) {
    stage = stage_take(fw);
    if (stage < 0) return false;
    uint8_t *dst = fw->sram + FW_LOCAL_ADDR(stage);
    for (uint32_t i = 0; i < h->len; i++) dst[i] = payload[i];
  }
  struct fw_txe *e = &fw->txq[fw->tx_head % FW_TXQ];
  e->vi = 0;
  e->slot = 0;
  e->status = HOSTIF_ST_DONE;
  e->npiece = 0;
  e->trailer_done = false;
  e->local = true;
  e->stage = (uint8_t)stage;
  e->sum = 0;
  e->hdr = *h;
  e->hdr.src_node = fw->node;
  e->hdr.msg_off = 0;
  e->hdr.msg_len = h->len;
  fw->tx_head++;
  if (!datapath_raise(&fw->dp, datapath_EV_doorbell)) fw_count32(&fw->faults);
  return true;
}

void fw_tx_local_bind(struct fw *fw, struct fw_txe *e, unsigned buf) {
  if (e->stage >= FW_LOCAL_SLOTS) return;
  const uint8_t *src = fw->sram + FW_LOCAL_ADDR(e->stage);
  uint8_t *dst = fw->sram + FW_SBUF_ADDR(buf) + FW_WIRE_HDR_LEN;
  for (uint32_t i = 0; i < e->hdr.len; i++) dst[i] = src[i];
  e->sum = fw_csum(src, e->hdr.len);
  fw->stage_busy = (uint8_t)(fw->stage_busy & ~(1u << e->stage));
  e->stage = FW_LOCAL_SLOTS;
}

void fw_tx_local_done(struct fw *fw, struct fw_txe *e) {
  volatile struct hostif_counters *c = fw_ctr(fw);
  if (e->hdr.type == FW_WIRE_ACK) c->tx_acks++;
  else if (e->hdr.type == FW_WIRE_NACK) c->tx_nacks++;
  e->local = false;
}
