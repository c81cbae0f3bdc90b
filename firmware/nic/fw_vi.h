/* fw_vi.h: a VI's entry in the SRAM VI table, and the firmware's private state of the VI kept in
 * step with it (fw_vi.c): a host may destroy and re-create a VI, nicd may connect or
 * disconnect it, while the firmware runs. Freestanding. */
#ifndef FW_VI_H
#define FW_VI_H

#include "fw_sram.h"

/* 1u << vi, the bit of a VI in the firmware's masks (and HOSTIF_SIG_SQ). A function, so that
 * the range of the shift is proved once (-wp-auto wp:range enumerates vi; the provers do not
 * interpret <<). */
/*@ requires vi < 32;
    assigns \nothing; */
static inline uint32_t fw_vi_bit(unsigned vi) { return 1u << vi; }

/* What the firmware reads of a VI entry. */
struct fw_vi_view {
  uint32_t state, reliability, ptag, gen;
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
}

/* Reads the entry and resets what belonged to an earlier connection or incarnation. Writes
 * only the VI's private state and its own SRAM entry (completions of sends whose
 * acknowledgement can no longer come, ring indices it adopts). */
/*@ requires fw_sram_ok(fw) && vi < HOSTIF_NVI && \valid(w) && \separated(w, fw);
    assigns fw->vi[vi], fw->ack_watch, fw->ack_work, *w,
            fw->sram[HOSTIF_VI_ADDR(vi) .. HOSTIF_VI_ADDR(vi) + sizeof(struct hostif_vi) - 1]; */
void fw_vi_sync(struct fw *fw, unsigned vi, struct fw_vi_view *w);

/* Sets a connected VI to ERROR (this NIC broke the connection) and flushes its posted
 * receives. */
void fw_vi_break(struct fw *fw, unsigned vi);

#endif
