/* fw_vi.h: a VI's entry in the SRAM VI table, and the firmware's private state of the VI kept in
 * step with it (fw_vi.c): a host may destroy and re-create a VI, nicd may connect or
 * disconnect it, while the firmware runs. Freestanding. */
#ifndef FW_VI_H
#define FW_VI_H

#include "fw_sram.h"

/* The firmware's VI masks (struct fw_vimask: sq_work, ack_work, ack_watch, rst_work). Words of
 * 32 bits: the LANai has no 64-bit shifter. Functions, so that the range of each shift is
 * proved once (the provers do not interpret << and >>). */
/*@ requires \valid(m) && vi < HOSTIF_NVI;
    assigns m->w[vi / 32]; */
static inline void fw_vim_set(struct fw_vimask *m, unsigned vi) {
  m->w[vi / 32u] |= 1u << (vi % 32u);
}
/*@ requires \valid(m) && vi < HOSTIF_NVI;
    assigns m->w[vi / 32]; */
static inline void fw_vim_clear(struct fw_vimask *m, unsigned vi) {
  m->w[vi / 32u] &= ~(1u << (vi % 32u));
}
/*@ requires \valid_read(m) && vi < HOSTIF_NVI;
    assigns \nothing; */
static inline bool fw_vim_has(const struct fw_vimask *m, unsigned vi) {
  return (m->w[vi / 32u] >> (vi % 32u) & 1u) != 0;
}
/*@ requires \valid_read(m);
    assigns \nothing; */
static inline bool fw_vim_any(const struct fw_vimask *m) {
  uint32_t any = 0;
  /*@ loop invariant 0 <= i <= FW_VIM_WORDS;
      loop assigns i, any;
      loop variant FW_VIM_WORDS - i; */
  for (unsigned i = 0; i < FW_VIM_WORDS; i++) any |= m->w[i];
  return any != 0;
}
/* The lowest VI at or above vi in m, or HOSTIF_NVI if there is none: the loops over a mask
 * go from one to the next, passing over empty words whole. */
/*@ requires \valid_read(m) && vi <= HOSTIF_NVI;
    assigns \nothing;
    ensures vi <= \result <= HOSTIF_NVI; */
static inline unsigned fw_vim_next(const struct fw_vimask *m, unsigned vi) {
  /*@ loop invariant \at(vi, Pre) <= vi <= HOSTIF_NVI;
      loop assigns vi;
      loop variant HOSTIF_NVI - vi; */
  while (vi < HOSTIF_NVI) {
    uint32_t rest = m->w[vi / 32u] >> (vi % 32u);
    if (rest & 1u) return vi;
    if (!rest) vi = vi / 32u * 32u + 32u;            /* none left in this word */
    else if (!(rest & 0xffu) && vi + 8u <= HOSTIF_NVI) vi += 8u;   /* none in the next 8 */
    else vi++;
  }
  return HOSTIF_NVI;
}

/* What the firmware reads of a VI entry. */
struct fw_vi_view {
  uint32_t state, reliability, ptag, gen, conn;
  uint16_t remote_node, remote_vi;
};

/*@ requires fw_sram_ok(fw) && vi < HOSTIF_NVI && \valid(w);
    assigns *w; */
static inline void fw_vi_read(struct fw *fw, unsigned vi, struct fw_vi_view *w) {
  w->state = fw_sram_rd32(fw, FW_VI_FIELD(vi, state));
  fw_sram_acquire();
  w->reliability = fw_sram_rd32(fw, FW_VI_FIELD(vi, reliability));
  w->ptag = fw_sram_rd32(fw, FW_VI_FIELD(vi, ptag));
  w->gen = fw_sram_rd32(fw, FW_VI_FIELD(vi, generation));
  w->remote_node = fw_sram_rd16(fw, FW_VI_FIELD(vi, remote_node));
  w->remote_vi = fw_sram_rd16(fw, FW_VI_FIELD(vi, remote_vi));
  w->conn = fw_sram_rd32(fw, FW_VI_FIELD(vi, conn));
}

/* Reads the entry and resets what belonged to an earlier connection or incarnation. Writes
 * only the VI's private state and its own SRAM entry (completions of sends whose
 * acknowledgement can no longer come, ring indices it adopts). */
/*@ requires fw_sram_ok(fw) && vi < HOSTIF_NVI && \valid(w) && \separated(w, fw);
    assigns fw->vi[vi], fw->ack_watch, fw->ack_work, fw->rst_work, *w,
            fw->sram[HOSTIF_VI_ADDR(vi) .. HOSTIF_VI_ADDR(vi) + sizeof(struct hostif_vi) - 1]; */
void fw_vi_sync(struct fw *fw, unsigned vi, struct fw_vi_view *w);

/* Sets a connected VI to ERROR (this NIC broke the connection) and flushes its posted
 * receives. */
void fw_vi_break(struct fw *fw, unsigned vi);

#endif
