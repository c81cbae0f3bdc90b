/* fw_vi.h: reading a VI entry of the SRAM VI table, and keeping the firmware's private VI
 * state in step with it (a host may destroy and re-create a VI, nicd may connect or
 * disconnect it, while the firmware runs). Freestanding. */
#ifndef FW_VI_H
#define FW_VI_H

#include "fw_sram.h"

struct fw_vi_view {
  uint32_t state, reliability, ptag, gen;
  uint16_t remote_node, remote_vi;
};

/*@ requires fw_mem_ok(fw) && vi < HOSTIF_NVI && \valid(w);
    assigns *w; */
static inline void fw_vi_read(struct fw *fw, unsigned vi, struct fw_vi_view *w) {
  w->state = fw_rd32(fw, FW_VI_FIELD(vi, state));
  fw_acquire();
  w->reliability = fw_rd32(fw, FW_VI_FIELD(vi, reliability));
  w->ptag = fw_rd32(fw, FW_VI_FIELD(vi, ptag));
  w->gen = fw_rd32(fw, FW_VI_FIELD(vi, generation));
  w->remote_node = fw_rd16(fw, FW_VI_FIELD(vi, remote_node));
  w->remote_vi = fw_rd16(fw, FW_VI_FIELD(vi, remote_vi));
}

/* Reads the entry and resets what belonged to an earlier connection or incarnation. Writes
 * only the VI's private state and its own SRAM entry (completions of sends whose
 * acknowledgement can no longer come, ring indices it adopts). */
/*@ requires fw_mem_ok(fw) && vi < HOSTIF_NVI && \valid(w) && \separated(w, fw);
    assigns fw->vi[vi], fw->ack_watch, fw->ack_work, *w,
            fw->sram[HOSTIF_VI_ADDR(vi) .. HOSTIF_VI_ADDR(vi) + sizeof(struct hostif_vi) - 1]; */
void fw_vi_sync(struct fw *fw, unsigned vi, struct fw_vi_view *w);

#endif
