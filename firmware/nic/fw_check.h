/* fw_check.h: descriptor validation before any DMA, and the mapping of a descriptor's bytes to
 * host pieces (fw_check.c; proved, module fw-check). Freestanding. */
#ifndef FW_CHECK_H
#define FW_CHECK_H

#include "fw.h"

/* ACSL (proofs/modules.conf, module fw-check): a descriptor fw_check_desc accepts;
 * fw_check_pieces requires it (also fw_sq.c's sq_emit). No length sum or address range
 * overflows. */
/*@ logic integer fw_seg_sum{L}(struct hostif_desc *d, integer n) =
      n <= 0 ? 0 : fw_seg_sum(d, n - 1) + d->seg[n - 1].len;

    predicate fw_desc_ok{L}(struct hostif_desc *d) =
      d->nseg <= HOSTIF_MAXSEG && d->length <= HOSTIF_MAX_XFER &&
      fw_seg_sum(d, d->nseg) == d->length &&
      (\forall integer j; 0 <= j <= d->nseg ==> fw_seg_sum(d, j) <= d->length) &&
      (\forall integer j; 0 <= j < d->nseg ==> d->seg[j].addr + d->seg[j].len <= 18446744073709551615) &&
      (d->op == HOSTIF_OP_RDMA_WRITE ==> d->rdma_addr + d->length <= 18446744073709551615);
*/
/* Validates a descriptor snapshot for a VI: HOSTIF_ST_DONE if it may be used, else the
 * status to complete it with. want_op: the op expected (SEND/RDMA_WRITE for the send queue). */
uint32_t fw_check_desc(struct fw *fw, const struct hostif_desc *d, uint32_t vi_ptag, bool send_q);
/* Maps bytes [off, off + len) of a descriptor's data to host pieces. */
unsigned fw_check_pieces(const struct hostif_desc *d, uint32_t off, uint32_t len,
                        struct fw_piece *out, unsigned max);

#endif
