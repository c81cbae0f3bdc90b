/* fw_vi.h: a VI's entry in the SRAM VI table, and the firmware's private state of the VI kept in
 * step with it (fw_vi.c): a host may destroy and re-create a VI, nicd may connect or
 * disconnect it, while the firmware runs. Freestanding. */
#ifndef FW_VI_H
#define FW_VI_H

#include "fw_sram.h"

/* The bit of a VI in the firmware's 64-bit masks (sq_work, ack_work, ack_watch, rst_work).
 * A function, so that the range of the shift is proved once (the provers do not interpret
 * <<). Only 32-bit and constant shifts: the LANai has no 64-bit shifter, and a variable one
 * is a run-time library call. */
/*@ requires vi < 64;
    assigns \nothing; */
static inline uint64_t fw_vi_bit(unsigned vi) {
  uint32_t b = 1u << (vi & 31u);
  return vi < 32u ? (uint64_t)b : (uint64_t)b << 32;
}
/* Whether mask has the bit of VI vi or of a higher one: the loops over a mask stop there. */
/*@ requires vi < 64;
    assigns \nothing; */
static inline bool fw_vi_from(uint64_t mask, unsigned vi) {
  return (mask & ~(fw_vi_bit(vi) - 1u)) != 0;
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
