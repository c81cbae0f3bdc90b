/* fw_hal_hdma.c: the host DMA side of the data path's HAL. hdma_start turns a byte range of a
 * send or receive buffer into a chain of host DMA descriptors in SRAM (one per host piece the
 * range's payload maps to; the header and trailer never cross the bus), TERMINAL|WAKE on the
 * last, and starts it on the machine's channel. When the channel wakes, the payload sum the
 * engine computed while copying is folded into the message's checksum, a send message's
 * trailer (and a datagram's tail, fw_dgram.c) is written once its payload is all in SRAM, and
 * the machine's `done` event is raised. A range with no host bytes completes at once. Also fine_mode and fault. */
#include "fw_hal_hdma.h"

#include "datapath_hal.h"
#include "fw_dgram.h"
#include "fw_hal_tx.h"
#include "fw_rq.h"
#include "fw_sram.h"

/* Slices payload bytes [off, off + len) out of a list of host pieces covering the payload. */
static unsigned slice(const struct fw_piece *in, unsigned nin, uint32_t off, uint32_t len,
                      struct fw_piece *out, unsigned max) {
  unsigned n = 0;
  uint32_t pos = 0;
  for (unsigned i = 0; i < nin && len > 0; i++) {
    if (off < pos + in[i].len) {
      uint32_t skip = off - pos;
      uint32_t take = in[i].len - skip < len ? in[i].len - skip : len;
      if (n == max) break;
      out[n].addr = in[i].addr + skip;
      out[n].len = take;
      out[n].ptag = in[i].ptag;
      n++;
      off += take;
      len -= take;
    }
    pos += in[i].len;
  }
  return n;
}

static uint32_t clampu(uint32_t v, uint32_t lo, uint32_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* SDMA's step: the payload sum so far, and the trailer once the payload is all in SRAM. */
/*@ requires fw_ok(fw) && buf < FW_NSBUF;
    assigns fw->txq[fw->sbuf_txe[buf]].status, fw->txq[fw->sbuf_txe[buf]].sum,
            fw->txq[fw->sbuf_txe[buf]].trailer_done, fw->vi[0 .. HOSTIF_NVI - 1].dg_tx_sum,
            fw->sram[FW_SBUF_ADDR(buf) .. FW_SBUF_ADDR(buf) + FW_BUF_STRIDE - 1];
    ensures fw_ok(fw); */
static void finish_send(struct fw *fw, uint8_t buf, uint32_t p0, uint32_t p1, bool ok,
                        uint16_t sum) {
  //@ assert fw->sbuf_txe[buf] < FW_TXQ;
  struct fw_txe *e = &fw->txq[fw->sbuf_txe[buf]];
  if (!ok) e->status = HOSTIF_ST_PROTECTION;
  else if (p1 > p0) e->sum = fw_wire_csum_at(e->sum, sum, p0);
  if (!e->trailer_done && p1 == e->hdr.len && e->hdr.len <= FW_MAX_PAYLOAD) {
    /* A message whose payload could not be fetched leaves with a trailer that can never
     * check: the receiver drops it. */
    uint8_t *p = fw->sram + FW_SBUF_ADDR(buf) + FW_WIRE_HDR_LEN + e->hdr.len;
    //@ assert \valid(p + (0 .. 3)) && \separated(p + (0 .. 3), fw);
    uint16_t t = fw_wire_trailer_word(e->sum, e->status == HOSTIF_ST_DONE);
    /* fw_wire_trailer_put's bytes, written here so WP sees each store (a call's havoc of
     * p[0 .. 3] left datapath_inv out of CVC4's reach) */
    p[0] = (uint8_t)(t >> 8);
    p[1] = (uint8_t)t;
    p[2] = 0;
    p[3] = 0;
    e->trailer_done = true;
    //@ assert datapath_inv(&fw->dp);
    //@ assert FW_BOUNDS(fw);
    fw_dgram_tx_sealed(fw, buf);
  }
  //@ assert datapath_inv(&fw->dp);
  //@ assert FW_BOUNDS(fw);
}

/* RDMA's step: the payload sum so far, or the DMA error. */
/*@ requires fw_ok(fw) && buf < FW_NRBUF;
    assigns fw->rxi[buf].dma_err, fw->rxi[buf].sum;
    ensures fw_ok(fw); */
static void finish_recv(struct fw *fw, uint8_t buf, uint32_t p0, uint32_t p1, bool ok,
                        uint16_t sum) {
  struct fw_rxi *ri = &fw->rxi[buf];
  if (!ok) ri->dma_err = true;
  else if (p1 > p0) ri->sum = fw_wire_csum_at(ri->sum, sum, p0);
}

/* The SDMA or RDMA step that the channel's DMA (or an empty range) completes; the channel
 * is free again. */
/*@ requires fw_ok(fw) && ch <= FW_CH_RDMA && buf < FW_NSBUF && buf < FW_NRBUF;
    assigns fw->txq[fw->sbuf_txe[buf]].status, fw->txq[fw->sbuf_txe[buf]].sum,
            fw->txq[fw->sbuf_txe[buf]].trailer_done, fw->vi[0 .. HOSTIF_NVI - 1].dg_tx_sum,
            fw->rxi[buf].dma_err, fw->rxi[buf].sum,
            fw->sram[FW_SBUF_ADDR(buf) .. FW_SBUF_ADDR(buf) + FW_BUF_STRIDE - 1],
            fw->hreq[ch].busy;
    ensures fw_ok(fw); */
static void finish(struct fw *fw, unsigned ch, uint8_t buf, uint32_t p0, uint32_t p1, bool ok,
                   uint16_t sum) {
  if (ch == FW_CH_SDMA) finish_send(fw, buf, p0, p1, ok, sum);
  else finish_recv(fw, buf, p0, p1, ok, sum);
  fw->hreq[ch].busy = false;
  //@ assert datapath_inv(&fw->dp);
  //@ assert FW_BOUNDS(fw);
}

void datapath_hal_hdma_start(datapath_t *sys, bool to_host, uint8_t buf, uint16_t off,
                             uint16_t len, datapath_event_t done) {
  struct fw *fw = fw_of(sys);
  unsigned ch = to_host ? FW_CH_RDMA : FW_CH_SDMA;
  const struct fw_piece *src;
  unsigned nsrc;
  uint32_t plen, base;
  if (!to_host) {
    if (off == 0) fw_hal_tx_bind(fw, buf); /* SDMA's first DMA of a message into this buffer */
    const struct fw_txe *e = &fw->txq[fw->sbuf_txe[buf]];
    src = e->piece;
    nsrc = e->npiece;
    plen = e->hdr.len;
    base = FW_SBUF_ADDR(buf);
  } else {
    struct fw_rxi *ri = &fw->rxi[buf];
    if (ri->verdict == FW_RX_UNKNOWN) fw_rq_classify(fw, buf);
    src = ri->piece;
    nsrc = ri->verdict == FW_RX_DATA || ri->verdict == FW_RX_RDMA ? ri->npiece : 0;
    plen = nsrc ? ri->hdr.len : 0;
    base = FW_RBUF_ADDR(buf);
  }
  uint32_t p0 = clampu(off, FW_WIRE_HDR_LEN, FW_WIRE_HDR_LEN + plen) - FW_WIRE_HDR_LEN;
  uint32_t p1 = clampu((uint32_t)off + len, FW_WIRE_HDR_LEN, FW_WIRE_HDR_LEN + plen) - FW_WIRE_HDR_LEN;
  struct fw_piece pc[FW_CHAIN_MAX];
  unsigned n = p1 > p0 ? slice(src, nsrc, p0, p1 - p0, pc, FW_CHAIN_MAX) : 0;
  if (n == 0) {
    finish(fw, ch, buf, p0, p1, true, 0);
    if (!datapath_raise(sys, done)) fw_fault(fw, HOSTIF_FAULT_RAISE_HDMA_EMPTY);
    return;
  }
  uint32_t chain = FW_CHAIN_ADDR(ch);
  uint32_t at = base + FW_WIRE_HDR_LEN + p0;
  for (unsigned i = 0; i < n; i++) {
    struct fwb_hdma_desc d;
    d.next = chain + FWB_HDMA_DESC_SIZE * (i + 1);
    d.flags = (uint16_t)((to_host ? FWB_HDMA_L2E : FWB_HDMA_E2L) |
                         (i + 1 == n ? FWB_HDMA_TERMINAL | FWB_HDMA_WAKE : 0));
    d.csum = 0;
    d.len = pc[i].len;
    d.sram = at;
    d.host_hi = (uint32_t)(pc[i].addr >> 32);
    d.host_lo = (uint32_t)pc[i].addr;
    d.ptag = pc[i].ptag;
    d.status = 0;
    fw_sram_hdma_desc_out(fw, chain + FWB_HDMA_DESC_SIZE * i, &d);
    at += pc[i].len;
  }
  fw->hreq[ch].busy = true;
  fw->hreq[ch].buf = buf;
  fw->hreq[ch].p0 = p0;
  fw->hreq[ch].p1 = p1;
  fw->hreq[ch].done = done;
  if (fwb_hdma_start(fw->board, ch, chain) != 0) {
    fw_fault(fw, HOSTIF_FAULT_HDMA_START);
    finish(fw, ch, buf, p0, p1, false, 0);
    if (!datapath_raise(sys, done)) fw_fault(fw, HOSTIF_FAULT_RAISE_HDMA_REFUSED);
  }
}

void fw_hal_hdma_wake(struct fw *fw, unsigned ch) {
  if (!fw->hreq[ch].busy) return;
  struct fwb_hdma_status st;
  fwb_hdma_status(fw->board, ch, &st);
  if (st.busy) return;
  datapath_event_t done = fw->hreq[ch].done;
  //@ assert fw->hreq[ch].buf < FW_NSBUF;
  finish(fw, ch, fw->hreq[ch].buf, fw->hreq[ch].p0, fw->hreq[ch].p1, st.error == FWB_HDMA_DONE,
         st.sum);
  if (!datapath_raise(&fw->dp, done)) fw_fault(fw, HOSTIF_FAULT_RAISE_HDMA_DONE);
}

bool datapath_hal_fine_mode(datapath_t *sys) { return fw_of(sys)->cfg.fine_mode; }

/* A machine's run-time check failed: counted by code, with its place ("file.esm:LINE"). */
void datapath_hal_fault(datapath_t *sys, int code, const char *where) {
  struct fw *fw = fw_of(sys);
  unsigned id = code >= datapath_FAULT_ASSERT && code <= datapath_FAULT_DIV_ZERO
                    ? HOSTIF_FAULT_DP_ASSERT + (unsigned)(code - datapath_FAULT_ASSERT)
                    : HOSTIF_FAULT_DP_OTHER;
  fw_fault(fw, id);
  volatile char *w = fw_ctr(fw)->last_fault_where;
  unsigned i = 0;
  for (; where && where[i] && i + 1 < sizeof fw_ctr(fw)->last_fault_where; i++) w[i] = where[i];
  w[i] = 0;
}
