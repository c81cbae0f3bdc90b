/* fw_le.h: the byte order of what the firmware shares through SRAM. Every multi-byte field
 * that hosts or the NIC hardware read or write (hostif.h, struct fwb_hdma_desc) is
 * little-endian, the PCI host's order. The LANai is big-endian, so there the firmware swaps:
 * word accessors through FW_LE32 and friends (fw_sram.h), and whole structs copied in or out
 * of SRAM through the one swap per struct below (each an involution: decode = encode).
 * Natively every macro is the identity and every swap a no-op. Byte data (payloads, wire
 * headers, PANIC module images) is never swapped. Freestanding C11. */
#ifndef FW_LE_H
#define FW_LE_H

#include <stdint.h>

#include "fw_board.h"
#include "hostif.h"

#ifdef __lanai__
#define FW_LE16(x) __builtin_bswap16(x)
#define FW_LE32(x) __builtin_bswap32(x)
#define FW_LE64(x) __builtin_bswap64(x)
#else
#define FW_LE16(x) (x)
#define FW_LE32(x) (x)
#define FW_LE64(x) (x)
#endif

#ifdef __lanai__
#define FW_SWAP16(f) ((f) = FW_LE16(f))
#define FW_SWAP32(f) ((f) = FW_LE32(f))
#define FW_SWAP64(f) ((f) = FW_LE64(f))

/* The host's part of a ring slot (before status); the NIC writes its part field by field
 * (fw_sram_complete). */
static inline void fw_le_desc(struct hostif_desc *d) {
  FW_SWAP16(d->op), FW_SWAP16(d->flags), FW_SWAP16(d->nseg), FW_SWAP16(d->reserved);
  FW_SWAP32(d->length), FW_SWAP32(d->imm), FW_SWAP64(d->rdma_addr);
  FW_SWAP32(d->rdma_ptag), FW_SWAP32(d->cookie);
  for (unsigned i = 0; i < HOSTIF_MAXSEG; i++)
    FW_SWAP64(d->seg[i].addr), FW_SWAP32(d->seg[i].len), FW_SWAP32(d->seg[i].ptag);
}
static inline void fw_le_hdma_desc(struct fwb_hdma_desc *d) {
  FW_SWAP32(d->next), FW_SWAP16(d->flags), FW_SWAP16(d->csum), FW_SWAP32(d->len);
  FW_SWAP32(d->sram), FW_SWAP32(d->host_hi), FW_SWAP32(d->host_lo), FW_SWAP32(d->ptag);
  FW_SWAP32(d->status);
}
static inline void fw_le_panic_cmd(struct hostif_panic_cmd *c) {
  FW_SWAP32(c->seq), FW_SWAP32(c->op), FW_SWAP32(c->node), FW_SWAP32(c->prog);
  FW_SWAP32(c->trigger), FW_SWAP32(c->len);
  for (unsigned i = 0; i < 4; i++) FW_SWAP32(c->arg[i]);
}
static inline void fw_le_panic_seg(struct hostif_panic_seg *s) {
  FW_SWAP32(s->state), FW_SWAP32(s->ptag), FW_SWAP64(s->addr), FW_SWAP32(s->len);
  FW_SWAP32(s->owner_pid), FW_SWAP32(s->flags), FW_SWAP32(s->reserved);
}
static inline void fw_le_panic_route(struct hostif_panic_route *r) {
  FW_SWAP32(r->used), FW_SWAP32(r->node), FW_SWAP64(r->addr);
}
static inline void fw_le_panic_prog(struct hostif_panic_prog *p) { /* name[] is bytes */
  FW_SWAP32(p->id), FW_SWAP32(p->state), FW_SWAP32(p->mem), FW_SWAP32(p->aborts);
  FW_SWAP32(p->activations), FW_SWAP32(p->reserved);
}
#else
#define fw_le_desc(d) ((void)(d))
#define fw_le_hdma_desc(d) ((void)(d))
#define fw_le_panic_cmd(c) ((void)(c))
#define fw_le_panic_seg(s) ((void)(s))
#define fw_le_panic_route(r) ((void)(r))
#define fw_le_panic_prog(p) ((void)(p))
#endif

#endif
