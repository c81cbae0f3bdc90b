/* board_emu.c: the board HAL (fw_board.h) on the emulated NIC (hw/nic.h). Each call is the
 * corresponding hw/ call; the region check is the host DMA engine's own (nic_region_check),
 * so the firmware's verdict matches what the engine would do. Hosted C. */
#include "board_emu.h"

#include "../../hw/peerdma.h"
#include "../../hw/cpus.h"

#include "window.h"
#include "hostif.h"

_Static_assert(HOSTIF_REGION_KEY_SHIFT == HW_ACC_KEY_SHIFT, "registration keys where hw matches them");
_Static_assert(FWB_ISR_HOST_SIG == NIC_ISR_HOST_SIG && FWB_ISR_SEND == NIC_ISR_SEND &&
               FWB_ISR_RECV == NIC_ISR_RECV && FWB_ISR_HEAD == NIC_ISR_HEAD &&
               FWB_ISR_BUFF == NIC_ISR_BUFF && FWB_ISR_WAKE0 == NIC_ISR_WAKE0 &&
               FWB_ISR_TIMER0 == NIC_ISR_TIMER0 && FWB_ISR_LINK_DOWN == NIC_ISR_LINK_DOWN &&
               FWB_ISR_MEMORY == NIC_ISR_MEMORY, "ISR bits");
_Static_assert(FWB_HDMA_E2L == NIC_HDMA_E2L && FWB_HDMA_L2E == NIC_HDMA_L2E &&
               FWB_HDMA_TERMINAL == NIC_HDMA_TERMINAL && FWB_HDMA_WAKE == NIC_HDMA_WAKE &&
               FWB_HDMA_DONE == NIC_HDMA_DONE, "host DMA flags");
_Static_assert(sizeof(struct fwb_hdma_desc) == sizeof(struct nic_hdma_desc), "descriptor");
_Static_assert(offsetof(struct fwb_hdma_desc, csum) == offsetof(struct nic_hdma_desc, csum) &&
               offsetof(struct fwb_hdma_desc, ptag) == offsetof(struct nic_hdma_desc, ptag) &&
               offsetof(struct fwb_hdma_desc, status) == offsetof(struct nic_hdma_desc, status),
               "descriptor layout");
_Static_assert(FWB_SEND_SML == NIC_SEND_SML && FWB_SEND_SMLT == NIC_SEND_SMLT &&
               FWB_RECV_EOM == NIC_RECV_EOM && FWB_RECV_TRUNC == NIC_RECV_TRUNC, "engine flags");
_Static_assert(FWB_NCLASS == HW_CPU_NCLASS, "event classes");
#define SAME_CLASS(id, name) _Static_assert((int)FWB_CLASS_##id == (int)HW_CPU_CLASS_##id, #id);
HW_CPU_CLASSES(SAME_CLASS)
#undef SAME_CLASS
_Static_assert(FWB_ACC_READ == HW_ACC_NIC_READ && FWB_ACC_WRITE == HW_ACC_NIC_WRITE, "access");

uint8_t *fwb_sram(struct fw_board *b) { return nic_sram_ptr(b->nic, 0, nic_sram_size(b->nic)); }
uint32_t fwb_sram_size(struct fw_board *b) { return nic_sram_size(b->nic); }
uint16_t fwb_node(struct fw_board *b) { return nic_node(b->nic); }
uint32_t fwb_events(struct fw_board *b) { return nic_cpu_events(b->nic, (int)b->cpu); }
void fwb_isr_clear(struct fw_board *b, uint32_t bits) { nic_cpu_isr_clear(b->nic, (int)b->cpu, bits); }
void fwb_imr_set(struct fw_board *b, uint32_t mask) { nic_cpu_imr_set(b->nic, (int)b->cpu, mask); }
uint32_t fwb_doorbells_take(struct fw_board *b) { return nic_doorbells_take(b->nic); }
void fwb_signal_host(struct fw_board *b, uint32_t bits) { nic_signal_host(b->nic, bits); }
void fwb_class(struct fw_board *b, unsigned k) { (void)b, (void)k; }

int fwb_hdma_start(struct fw_board *b, unsigned ch, uint32_t desc_addr) {
  return nic_hdma_start(b->nic, ch, desc_addr);
}

void fwb_hdma_status(struct fw_board *b, unsigned ch, struct fwb_hdma_status *st) {
  struct nic_hdma_chan_status s;
  nic_hdma_status(b->nic, ch, &s);
  st->busy = s.busy;
  st->error = (uint32_t)s.error;
  st->sum = s.sum;
}

int fwb_hdma_wait(struct fw_board *b, unsigned ch, uint64_t timeout_ns) {
  uint64_t end = nic_clock(b->nic) + timeout_ns;
  for (;;) {
    struct nic_hdma_chan_status s;
    if (nic_hdma_status(b->nic, ch, &s) != 0) return -1;
    if (!s.busy) return 0;
    if (nic_next_due(b->nic) > end || !nic_step(b->nic)) return -1;
  }
}

int fwb_send_start(struct fw_board *b, uint16_t dst, uint32_t sram, uint32_t len,
                   unsigned flags) {
  return nic_send_start(b->nic, dst, sram, len, flags);
}

int fwb_recv_arm(struct fw_board *b, uint32_t sram, uint32_t cap) {
  return nic_recv_arm(b->nic, sram, cap);
}

void fwb_recv_status(struct fw_board *b, struct fwb_recv_status *st) {
  struct nic_recv_status s;
  nic_recv_status(b->nic, &s);
  st->state = s.state == NIC_RECV_ARMED ? FWB_RECV_ARMED
              : s.state == NIC_RECV_DONE ? FWB_RECV_DONE : FWB_RECV_IDLE;
  st->len = s.len;
  st->frags = s.frags;
  st->src = s.src;
  st->flags = s.flags;
}

int fwb_recv_abort(struct fw_board *b) { return nic_recv_abort(b->nic); }
int fwb_timer_set(struct fw_board *b, unsigned t, uint64_t delay_ns) {
  return nic_timer_set(b->nic, t, delay_ns);
}
uint64_t fwb_clock_ns(struct fw_board *b) { return nic_clock(b->nic); }
uint64_t fwb_hdma_busy_ns(struct fw_board *b) { return nic_counter(b->nic, HW_CTR_HDMA_BUSY_NS); }
uint64_t fwb_send_busy_ns(struct fw_board *b) { return nic_counter(b->nic, HW_CTR_SEND_BUSY_NS); }

enum fwb_region_verdict fwb_region_check(struct fw_board *b, uint64_t host, uint32_t len,
                                         uint32_t ptag, uint32_t access) {
  switch (nic_region_check(b->nic, host, len, ptag, access)) {
  case NIC_HDMA_DONE: return FWB_REGION_OK;
  case NIC_HDMA_EPTAG: return FWB_REGION_PTAG;
  case NIC_HDMA_EACCESS: return FWB_REGION_ACCESS;
  default: return FWB_REGION_OUTSIDE;
  }
}

int fwb_peer_copy(struct fw_board *b, uint16_t node, uint32_t from, uint32_t to, uint32_t len) {
  return peerdma_copy(b->nic, node, from, to, len, HOSTIF_DOORBELL_PANIC);
}

unsigned fwb_cpu(struct fw_board *b) { return b->cpu; }
unsigned fwb_ncpus(struct fw_board *b) { return (unsigned)nic_cpus(b->nic); }

/* nicd runs one processor's pass at a time, so the semaphore is always free here; the spin is
 * what a card's processor does. */
void fwb_lock(struct fw_board *b) {
  while (!nic_sem_take(b->nic, (int)b->cpu)) {}
}
void fwb_unlock(struct fw_board *b) { nic_sem_give(b->nic, (int)b->cpu); }
void fwb_kick(struct fw_board *b) { nic_cpu_kick(b->nic, (int)(b->cpu ^ 1u)); }
bool fwb_kicked(struct fw_board *b) { return nic_cpu_kick_take(b->nic, (int)b->cpu) != 0; }
