/* fw_dgram.c: the datagram tail (WIRE.md "Datagrams"): the IPv4 and UDP headers a datagram
 * carries once, behind the trailer of its last message. Every payload byte is summed once,
 * by the host DMA engine as it copies (fw_hal_hdma.c); the sums of a datagram's messages
 * combine by ones'-complement addition, byte-swapped at an odd offset (fw_wire_csum_at).
 * The sender puts the UDP checksum over the pseudo-header, the UDP header and those sums into
 * the tail; the receiver adds up its DMA engine's sums of the messages it delivered (in the
 * datagram's reassembly context, fw_dgctx.c) and checks the whole. Freestanding. */
#include "fw_dgram.h"

static bool is_dgram_msg(const struct fw_wire_hdr *h) {
  return h->type == FW_WIRE_DATA && h->dst_vi == 0;
}

void fw_dgram_tx_sealed(struct fw *fw, unsigned buf) {
  const struct fw_txe *e = &fw->txq[fw->sbuf_txe[buf]];
  const struct fw_wire_hdr *h = &e->hdr;
  if (e->local || !is_dgram_msg(h) || e->vi >= HOSTIF_NVI) return;
  struct fw_vi *v = &fw->vi[e->vi];
  v->dg_tx_sum = fw_wire_csum_at(h->msg_off == 0 ? 0 : v->dg_tx_sum, e->sum, h->msg_off);
  if (!fw_wire_tail_len(h) || h->len + FW_WIRE_UDP_LEN > FW_MAX_PAYLOAD) return;
  struct fw_wire_udp u = {.src_ip = e->ip_src, .dst_ip = e->ip_dst, .id = (uint16_t)h->imm,
                          .sport = (uint16_t)h->rdma_handle,
                          .dport = (uint16_t)(h->rdma_handle >> 16), .len = (uint16_t)h->msg_len};
  fw_wire_udp_put(fw->sram + FW_SBUF_ADDR(buf) + FW_WIRE_HDR_LEN + h->len + FW_TRAILER, &u,
                  v->dg_tx_sum);
}

uint16_t fw_dgram_rx_sum(const struct fw *fw, const struct fw_rxi *ri) {
  const struct fw_wire_hdr *h = &ri->hdr;
  uint16_t before = h->msg_off == 0 ? 0 : fw->vi[h->dst_vi].dg[ri->dgctx % FW_DG_NCTX].sum;
  return fw_wire_csum_at(before, ri->sum, h->msg_off);
}

unsigned fw_dgram_rx_check(struct fw *fw, unsigned buf) {
  const struct fw_rxi *ri = &fw->rxi[buf];
  const struct fw_wire_hdr *h = &ri->hdr;
  if (!ri->tail) return FW_DROP_NONE;
  struct fw_wire_udp u;
  const uint8_t *t = fw->sram + FW_RBUF_ADDR(buf) + FW_WIRE_HDR_LEN + h->len + FW_TRAILER;
  if (!fw_wire_udp_get(t, &u) || u.len != h->msg_len || u.sport != (uint16_t)h->rdma_handle ||
      u.dport != (uint16_t)(h->rdma_handle >> 16) || u.id != (uint16_t)h->imm)
    return FW_DROP_MALFORMED;
  return fw_wire_udp_ok(&u, fw_dgram_rx_sum(fw, ri)) ? FW_DROP_NONE : FW_DROP_CHECKSUM;
}
