/* board_lanai.c: the board HAL (fw_board.h) on a LANai card: memory-mapped registers in the
 * top page of the address space and SRAM at address 0. Compile-only: no board is at hand and
 * no databook gives the register offsets, so the register block below mirrors the emulated
 * NIC's register page (hw/MEMORY-MAP.md) one word per field; when a card appears, only this
 * file changes. The host memory region table that the emulated NIC keeps in its window lives
 * here in SRAM at FWB_LANAI_REGIONS (same 64-byte entries), written by the host driver.
 * Freestanding C11; built into the image by `make firmware-lanai`. */
#include "fw_board.h"

struct fw_board {
  uint32_t unused;
};

#define FWB_LANAI_REGS    0xfffffe00u
#define FWB_LANAI_SRAM    (2u << 20)
#define FWB_LANAI_REGIONS 0x1f0000u   /* 256 x 64 B region table, above the firmware's buffers */
#define FWB_LANAI_NREGION 256u

enum {
  R_ISR = 0x00, R_IMR = 0x04, R_DB_TAKE = 0x08, R_HOST_IRQ = 0x0c, R_NODE = 0x10,
  R_SRAM_SIZE = 0x14, R_CLOCK_LO = 0x18, R_CLOCK_HI = 0x1c, R_HDMA_BUSY = 0x20,
  R_SEND_BUSY = 0x24,
  R_HDMA = 0x40,                    /* 4 channels x 16 B: START, STATUS (busy bit 31), SUM */
  R_SEND_DST = 0x80, R_SEND_ADDR = 0x84, R_SEND_LEN = 0x88, R_SEND_GO = 0x8c,
  R_RECV_ADDR = 0x90, R_RECV_ARM = 0x94, R_RECV_STATE = 0x98, R_RECV_LEN = 0x9c,
  R_RECV_FRAGS = 0xa0, R_RECV_SRC = 0xa4, R_RECV_FLAGS = 0xa8, R_RECV_ABORT = 0xac,
  R_TIMER = 0xb0,                   /* 3 timers: delay in ns (low 32 bits) starts it */
};

static volatile uint32_t *reg(uint32_t off) {
  return (volatile uint32_t *)(uintptr_t)(FWB_LANAI_REGS + off);
}

uint8_t *fwb_sram(struct fw_board *b) {
  (void)b;
  return (uint8_t *)(uintptr_t)0;
}
uint32_t fwb_sram_size(struct fw_board *b) {
  (void)b;
  uint32_t s = *reg(R_SRAM_SIZE);
  return s ? s : FWB_LANAI_SRAM;
}
uint16_t fwb_node(struct fw_board *b) { (void)b; return (uint16_t)*reg(R_NODE); }
uint32_t fwb_events(struct fw_board *b) { (void)b; return *reg(R_ISR) & *reg(R_IMR); }
void fwb_isr_clear(struct fw_board *b, uint32_t bits) { (void)b; *reg(R_ISR) = bits; }
void fwb_imr_set(struct fw_board *b, uint32_t mask) { (void)b; *reg(R_IMR) = mask; }
uint32_t fwb_doorbells_take(struct fw_board *b) { (void)b; return *reg(R_DB_TAKE); }
void fwb_signal_host(struct fw_board *b, uint32_t bits) { (void)b; *reg(R_HOST_IRQ) = bits; }

int fwb_hdma_start(struct fw_board *b, unsigned ch, uint32_t desc_addr) {
  (void)b;
  if (ch >= 4) return -1;
  if (*reg(R_HDMA + 16 * ch + 4) & 0x80000000u) return -2;
  *reg(R_HDMA + 16 * ch) = desc_addr;
  return 0;
}

void fwb_hdma_status(struct fw_board *b, unsigned ch, struct fwb_hdma_status *st) {
  (void)b;
  uint32_t s = *reg(R_HDMA + 16 * ch + 4);
  st->busy = (s & 0x80000000u) != 0;
  st->error = s & 0xffu;
  st->sum = (uint16_t)*reg(R_HDMA + 16 * ch + 8);
}

int fwb_hdma_wait(struct fw_board *b, unsigned ch, uint64_t timeout_ns) {
  uint64_t end = fwb_clock_ns(b) + timeout_ns;
  while (*reg(R_HDMA + 16 * ch + 4) & 0x80000000u)
    if (fwb_clock_ns(b) > end) return -1;
  return 0;
}

int fwb_send_start(struct fw_board *b, uint16_t dst, uint32_t sram, uint32_t len,
                   unsigned flags) {
  (void)b;
  *reg(R_SEND_DST) = dst;
  *reg(R_SEND_ADDR) = sram;
  *reg(R_SEND_LEN) = len;
  *reg(R_SEND_GO) = flags;
  return 0;
}

int fwb_recv_arm(struct fw_board *b, uint32_t sram, uint32_t cap) {
  (void)b;
  *reg(R_RECV_ADDR) = sram;
  *reg(R_RECV_ARM) = cap;
  return 0;
}

void fwb_recv_status(struct fw_board *b, struct fwb_recv_status *st) {
  (void)b;
  uint32_t s = *reg(R_RECV_STATE);
  st->state = s == 1 ? FWB_RECV_ARMED : s == 2 ? FWB_RECV_DONE : FWB_RECV_IDLE;
  st->len = *reg(R_RECV_LEN);
  st->frags = *reg(R_RECV_FRAGS);
  st->src = (uint16_t)*reg(R_RECV_SRC);
  st->flags = *reg(R_RECV_FLAGS);
}

int fwb_recv_abort(struct fw_board *b) { (void)b; *reg(R_RECV_ABORT) = 1; return 0; }

int fwb_timer_set(struct fw_board *b, unsigned t, uint64_t delay_ns) {
  (void)b;
  if (t >= 3) return -1;
  *reg(R_TIMER + 4 * t) = delay_ns > 0xffffffffu ? 0xffffffffu : (uint32_t)delay_ns;
  return 0;
}

uint64_t fwb_clock_ns(struct fw_board *b) {
  (void)b;
  uint32_t hi, lo;
  do {
    hi = *reg(R_CLOCK_HI);
    lo = *reg(R_CLOCK_LO);
  } while (hi != *reg(R_CLOCK_HI));
  return (uint64_t)hi << 32 | lo;
}
uint64_t fwb_hdma_busy_ns(struct fw_board *b) { (void)b; return *reg(R_HDMA_BUSY); }
uint64_t fwb_send_busy_ns(struct fw_board *b) { (void)b; return *reg(R_SEND_BUSY); }

/* One 64-byte entry: state (2 = valid), gen, ptag, access, host_base, len (as hw_region). */
enum fwb_region_verdict fwb_region_check(struct fw_board *b, uint64_t host, uint32_t len,
                                         uint32_t ptag, uint32_t access) {
  (void)b;
  enum fwb_region_verdict err = FWB_REGION_OUTSIDE;
  for (uint32_t id = 0; id < FWB_LANAI_NREGION; id++) {
    volatile const uint32_t *e = (volatile const uint32_t *)(uintptr_t)(FWB_LANAI_REGIONS + 64u * id);
    if (e[0] != 2u) continue;
    uint64_t base = (uint64_t)e[4] << 32 | e[5], rlen = (uint64_t)e[6] << 32 | e[7];
    if (host < base || host - base > rlen || len > rlen - (host - base)) continue;
    if (e[2] != ptag) {
      if (err == FWB_REGION_OUTSIDE) err = FWB_REGION_PTAG;
      continue;
    }
    if ((e[3] & access) != access) {
      err = FWB_REGION_ACCESS;
      continue;
    }
    return FWB_REGION_OK;
  }
  return err;
}
