/* fw_check.c: validation of work descriptors before any DMA: the operation, the segment
 * count, the lengths, and every segment inside one registered host memory region carrying
 * the VI's protection tag with the right access. A descriptor that fails completes with
 * HOSTIF_ST_FORMAT or HOSTIF_ST_PROTECTION and no byte of host memory is read or written.
 * Also the mapping of a byte range of a descriptor's data onto its segments. Freestanding. */
#include "fw_check.h"

/* ACSL (proofs/modules.conf, module fw-check): fw_check_desc accepts only descriptors that
 * satisfy fw_desc_ok (fw_check.h: no length sum or address range overflows), and fw_check_pieces,
 * given one, writes only out[0 .. max - 1] and computes no overflowing offset or address. */

/*@ requires \valid_read(fw) && \valid_read(d);
    assigns \nothing;
    ensures \result == HOSTIF_ST_DONE ==> fw_desc_ok(d); */
uint32_t fw_check_desc(struct fw *fw, const struct hostif_desc *d, uint32_t vi_ptag,
                       bool send_q) {
  if (send_q ? (d->op != HOSTIF_OP_SEND && d->op != HOSTIF_OP_RDMA_WRITE)
             : d->op != HOSTIF_OP_RECV)
    return HOSTIF_ST_FORMAT;
  if (d->flags & ~(uint16_t)(HOSTIF_F_IMMEDIATE | HOSTIF_F_SIGNAL)) return HOSTIF_ST_FORMAT;
  if (d->nseg > HOSTIF_MAXSEG) return HOSTIF_ST_FORMAT;
  if (d->length > HOSTIF_MAX_XFER) return HOSTIF_ST_FORMAT;
  uint32_t total = 0;
  /*@ loop invariant 0 <= i <= d->nseg && total == fw_seg_sum(d, i) && total <= HOSTIF_MAX_XFER;
      loop invariant \forall integer j; 0 <= j <= i ==> fw_seg_sum(d, j) <= total;
      loop assigns i, total;
      loop variant d->nseg - i; */
  for (unsigned i = 0; i < d->nseg; i++) {
    if (d->seg[i].len > HOSTIF_MAX_XFER - total) return HOSTIF_ST_FORMAT;
    total += d->seg[i].len;
  }
  if (total != d->length) return HOSTIF_ST_FORMAT;
  if (d->op == HOSTIF_OP_RDMA_WRITE && d->length > UINT64_MAX - d->rdma_addr)
    return HOSTIF_ST_FORMAT;
  uint32_t access = send_q ? FWB_ACC_READ : FWB_ACC_WRITE;
  /*@ loop invariant 0 <= i <= d->nseg;
      loop invariant \forall integer j; 0 <= j < i ==>
        d->seg[j].addr + d->seg[j].len <= 18446744073709551615;
      loop assigns i;
      loop variant d->nseg - i; */
  for (unsigned i = 0; i < d->nseg; i++) {
    const struct hostif_seg *s = &d->seg[i];
    if (s->len == 0) continue;
    if (s->ptag != vi_ptag) return HOSTIF_ST_PROTECTION;
    if (s->len > UINT64_MAX - s->addr) return HOSTIF_ST_PROTECTION;
    if (fwb_region_check(fw->board, s->addr, s->len, s->ptag, access) != FWB_REGION_OK)
      return HOSTIF_ST_PROTECTION;
  }
  return HOSTIF_ST_DONE;
}

/*@ requires \valid_read(d) && fw_desc_ok(d);
    requires \valid(out + (0 .. max - 1)) && \separated(d, out + (0 .. max - 1));
    assigns out[0 .. max - 1];
    ensures \result <= max; */
unsigned fw_check_pieces(const struct hostif_desc *d, uint32_t off, uint32_t len,
                        struct fw_piece *out, unsigned max) {
  unsigned n = 0;
  uint32_t pos = 0;
  /*@ loop invariant 0 <= i <= d->nseg && n <= max && pos == fw_seg_sum(d, i);
      loop invariant len > 0 ==> pos <= off;
      loop assigns i, n, pos, off, len, out[0 .. max - 1];
      loop variant d->nseg - i; */
  for (unsigned i = 0; i < d->nseg && i < HOSTIF_MAXSEG && len > 0; i++) {
    uint32_t sl = d->seg[i].len;
    //@ assert fw_seg_sum(d, i + 1) == pos + sl && fw_seg_sum(d, i + 1) <= d->length;
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
