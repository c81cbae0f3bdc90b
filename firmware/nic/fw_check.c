/* fw_check.c: validation of work descriptors before any DMA: the operation, the segment
 * count, the lengths, and every segment inside one registered host memory region carrying
 * the VI's protection tag with the right access. A descriptor that fails completes with
 * HOSTIF_ST_FORMAT or HOSTIF_ST_PROTECTION and no byte of host memory is read or written.
 * Also the mapping of a byte range of a descriptor's data onto its segments. Freestanding. */
#include "fw.h"

uint32_t fw_check_desc(struct fw *fw, const struct hostif_desc *d, uint32_t vi_ptag,
                       bool send_q) {
  if (send_q ? (d->op != HOSTIF_OP_SEND && d->op != HOSTIF_OP_RDMA_WRITE)
             : d->op != HOSTIF_OP_RECV)
    return HOSTIF_ST_FORMAT;
  if (d->flags & ~(uint16_t)(HOSTIF_F_IMMEDIATE | HOSTIF_F_SIGNAL)) return HOSTIF_ST_FORMAT;
  if (d->nseg > HOSTIF_MAXSEG) return HOSTIF_ST_FORMAT;
  if (d->length > HOSTIF_MAX_XFER) return HOSTIF_ST_FORMAT;
  uint32_t total = 0;
  for (unsigned i = 0; i < d->nseg; i++) {
    if (d->seg[i].len > HOSTIF_MAX_XFER - total) return HOSTIF_ST_FORMAT;
    total += d->seg[i].len;
  }
  if (total != d->length) return HOSTIF_ST_FORMAT;
  if (d->op == HOSTIF_OP_RDMA_WRITE && d->rdma_addr + d->length < d->rdma_addr)
    return HOSTIF_ST_FORMAT;
  uint32_t access = send_q ? FWB_ACC_READ : FWB_ACC_WRITE;
  for (unsigned i = 0; i < d->nseg; i++) {
    const struct hostif_seg *s = &d->seg[i];
    if (s->len == 0) continue;
    if (s->ptag != vi_ptag) return HOSTIF_ST_PROTECTION;
    if (s->addr + s->len < s->addr) return HOSTIF_ST_PROTECTION;
    if (fwb_region_check(fw->board, s->addr, s->len, s->ptag, access) != FWB_REGION_OK)
      return HOSTIF_ST_PROTECTION;
  }
  return HOSTIF_ST_DONE;
}

unsigned fw_desc_pieces(const struct hostif_desc *d, uint32_t off, uint32_t len,
                        struct fw_piece *out, unsigned max) {
  unsigned n = 0;
  uint32_t pos = 0;
  for (unsigned i = 0; i < d->nseg && i < HOSTIF_MAXSEG && len > 0; i++) {
    uint32_t sl = d->seg[i].len;
    if (off < pos + sl) {
      uint32_t in = off - pos;
      uint32_t take = sl - in < len ? sl - in : len;
      if (n == max) return n;
      out[n].addr = d->seg[i].addr + in;
      out[n].len = take;
      out[n].ptag = d->seg[i].ptag;
      n++;
      off += take;
      len -= take;
    }
    pos += sl;
  }
  return n;
}
