/* fw_hal_tx.c: the send side of the data path's HAL (datapath_hal.h). SDMA reads tx_len, the
 * length of the oldest queued message not yet in a send buffer (fw_sq.c queues them); it has
 * no side effects, as an ESM hardware value must not. SDMA's first host DMA into a buffer
 * (hdma_start at offset 0, fw_hal_hdma.c) names the buffer, and fw_hal_tx_bind then binds that
 * message to it and writes its wire header there, so a data-path message is
 * header + payload + trailer (WIRE.md) and the machines' offsets are SRAM offsets in the
 * buffer (a datagram's last message adds its tail, fw_dgram.c). send_start puts a fragment on the link (SML, or SMLT for the last); tx_complete
 * retires the message and completes its descriptor when it was the last. Freestanding. */
#include "fw_hal_tx.h"

#include "datapath_hal.h"
#include "fw_sq.h"
#include "fw_sram.h"
#include "fw_txlocal.h"

int32_t datapath_hal_tx_len(datapath_t *sys) {
  const struct fw *fw = fw_of(sys);
  if (fw->tx_fetch == fw->tx_head) return 1; /* none queued: fw_hal_tx_bind counts the fault */
  const struct fw_wire_hdr *h = &fw->txq[fw->tx_fetch % FW_TXQ].hdr;
  return (int32_t)(FW_WIRE_HDR_LEN + h->len + FW_TRAILER + fw_wire_tail_len(h));
}

void fw_hal_tx_bind(struct fw *fw, uint8_t buf) {
  if (fw->tx_fetch == fw->tx_head) { /* a doorbell event without a queued message */
    fw_fault(fw, HOSTIF_FAULT_TX_LEN_NO_MESSAGE);
    return;
  }
  uint32_t idx = fw->tx_fetch % FW_TXQ;
  fw->sbuf_txe[buf] = (uint8_t)idx;
  fw->tx_fetch++;
  struct fw_txe *e = &fw->txq[idx];
  uint32_t hdr[FW_WIRE_HDR_LEN / 4];
  fw_wire_encode((uint8_t *)hdr, &e->hdr);
  fw_sram_out(fw, FW_SBUF_ADDR(buf), hdr, FW_WIRE_HDR_LEN);
  if (e->local) fw_txlocal_bind(fw, e, buf);
}

void datapath_hal_send_start(datapath_t *sys, uint8_t buf, uint16_t off, uint16_t len,
                             bool last) {
  struct fw *fw = fw_of(sys);
  const struct fw_txe *e = &fw->txq[fw->sbuf_txe[buf]];
  if (fwb_send_start(fw->board, e->hdr.dst_node, FW_SBUF_ADDR(buf) + off, len,
                     last ? FWB_SEND_SMLT : FWB_SEND_SML) != 0)
    fw_fault(fw, HOSTIF_FAULT_SEND_START);
}

void datapath_hal_tx_complete(datapath_t *sys, uint8_t buf) {
  struct fw *fw = fw_of(sys);
  uint8_t idx = fw->sbuf_txe[buf];
  if (idx != fw->tx_done % FW_TXQ) fw_fault(fw, HOSTIF_FAULT_TX_ORDER); /* machines complete in order */
  fw->tx_done++;
  if (fw->txq[idx].local) fw_txlocal_done(fw, &fw->txq[idx]);
  else fw_sq_msg_done(fw, &fw->txq[idx]);
}
