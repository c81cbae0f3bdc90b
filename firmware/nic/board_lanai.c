/* board_lanai.c: the board HAL (fw_board.h) on the Verinic LANai card: SRAM at address 0 and
 * the memory-mapped register page of fw_board_regs.h (emulated around the instruction-set
 * simulator by nicd --lanai, nicd/iss_board.c). Commands return what the hardware
 * reports in FWB_R_RESULT, so the firmware sees the same results as on the emulated board.
 * Freestanding C11; built into the image by `make firmware-lanai`. */
#include "fw_board.h"
#include "fw_board_regs.h"
#include "hostif.h"

struct fw_board {
  uint32_t unused;
};

#define FWB_LANAI_SRAM HOSTIF_SRAM

static volatile uint32_t *reg(uint32_t off) {
  return (volatile uint32_t *)(uintptr_t)(FWB_REG_BASE + off);
}
static int32_t result(void) { return (int32_t)*reg(FWB_R_RESULT); }

uint8_t *fwb_sram(struct fw_board *b) {
  (void)b;
  return (uint8_t *)(uintptr_t)0;
}
uint32_t fwb_sram_size(struct fw_board *b) {
  (void)b;
  uint32_t s = *reg(FWB_R_SRAM_SIZE);
  return s ? s : FWB_LANAI_SRAM;
}
uint16_t fwb_node(struct fw_board *b) { (void)b; return (uint16_t)*reg(FWB_R_NODE); }
uint32_t fwb_events(struct fw_board *b) { (void)b; return *reg(FWB_R_EVENTS); }
void fwb_isr_clear(struct fw_board *b, uint32_t bits) { (void)b; *reg(FWB_R_ISR) = bits; }
void fwb_imr_set(struct fw_board *b, uint32_t mask) { (void)b; *reg(FWB_R_IMR) = mask; }
void fwb_class(struct fw_board *b, unsigned k) { (void)b; *reg(FWB_R_CLASS) = k; }
uint32_t fwb_doorbells_take(struct fw_board *b) { (void)b; return *reg(FWB_R_DB_TAKE); }
void fwb_signal_host(struct fw_board *b, uint32_t bits) { (void)b; *reg(FWB_R_HOST_IRQ) = bits; }

static uint32_t hdma_reg(unsigned ch, uint32_t r) { return r + FWB_HDMA_CH_STRIDE * ch; }

int fwb_hdma_start(struct fw_board *b, unsigned ch, uint32_t desc_addr) {
  (void)b;
  if (ch >= FWB_NHDMA) return -1;
  *reg(hdma_reg(ch, FWB_R_HDMA)) = desc_addr;
  return result();
}

void fwb_hdma_status(struct fw_board *b, unsigned ch, struct fwb_hdma_status *st) {
  (void)b;
  uint32_t s = ch < FWB_NHDMA ? *reg(hdma_reg(ch, FWB_R_HDMA_STATUS)) : 0;
  st->busy = (s & FWB_HDMA_BUSY) != 0;
  st->error = s & FWB_HDMA_ERROR_MASK;
  st->sum = ch < FWB_NHDMA ? (uint16_t)*reg(hdma_reg(ch, FWB_R_HDMA_SUM)) : 0;
}

int fwb_hdma_wait(struct fw_board *b, unsigned ch, uint64_t timeout_ns) {
  if (ch >= FWB_NHDMA) return -1;
  uint64_t end = fwb_clock_ns(b) + timeout_ns;
  while (*reg(hdma_reg(ch, FWB_R_HDMA_POLL)) & FWB_HDMA_BUSY)
    if (fwb_clock_ns(b) > end) return -1;
  return 0;
}

int fwb_send_start(struct fw_board *b, uint16_t dst, uint32_t sram, uint32_t len,
                   unsigned flags) {
  (void)b;
  *reg(FWB_R_SEND_DST) = dst;
  *reg(FWB_R_SEND_ADDR) = sram;
  *reg(FWB_R_SEND_LEN) = len;
  *reg(FWB_R_SEND_GO) = flags;
  return result();
}

int fwb_recv_arm(struct fw_board *b, uint32_t sram, uint32_t cap) {
  (void)b;
  *reg(FWB_R_RECV_ADDR) = sram;
  *reg(FWB_R_RECV_ARM) = cap;
  return result();
}

void fwb_recv_status(struct fw_board *b, struct fwb_recv_status *st) {
  (void)b;
  uint32_t s = *reg(FWB_R_RECV_STATE);
  st->state = s == FWB_RECV_ARMED ? FWB_RECV_ARMED : s == FWB_RECV_DONE ? FWB_RECV_DONE
                                                                      : FWB_RECV_IDLE;
  st->len = *reg(FWB_R_RECV_LEN);
  st->frags = *reg(FWB_R_RECV_FRAGS);
  st->src = (uint16_t)*reg(FWB_R_RECV_SRC);
  st->flags = *reg(FWB_R_RECV_FLAGS);
}

int fwb_recv_abort(struct fw_board *b) {
  (void)b;
  *reg(FWB_R_RECV_ABORT) = 1;
  return result();
}

int fwb_timer_set(struct fw_board *b, unsigned t, uint64_t delay_ns) {
  (void)b;
  if (t >= FWB_NTIMERS) return -1;
  *reg(FWB_R_TIMER + 4 * t) = delay_ns > 0xffffffffu ? 0xffffffffu : (uint32_t)delay_ns;
  return result();
}

/* A 64-bit value in two registers whose high half may move between the reads. */
static uint64_t read64(uint32_t lo_reg, uint32_t hi_reg) {
  uint32_t hi, lo;
  do {
    hi = *reg(hi_reg);
    lo = *reg(lo_reg);
  } while (hi != *reg(hi_reg));
  return (uint64_t)hi << 32 | lo;
}

uint64_t fwb_clock_ns(struct fw_board *b) {
  (void)b;
  return read64(FWB_R_CLOCK_LO, FWB_R_CLOCK_HI);
}
uint64_t fwb_hdma_busy_ns(struct fw_board *b) {
  (void)b;
  return read64(FWB_R_HDMA_BUSY_LO, FWB_R_HDMA_BUSY_HI);
}
uint64_t fwb_send_busy_ns(struct fw_board *b) {
  (void)b;
  return read64(FWB_R_SEND_BUSY_LO, FWB_R_SEND_BUSY_HI);
}

enum fwb_region_verdict fwb_region_check(struct fw_board *b, uint64_t host, uint32_t len,
                                         uint32_t ptag, uint32_t access) {
  (void)b;
  *reg(FWB_R_REGION_HOST_HI) = (uint32_t)(host >> 32);
  *reg(FWB_R_REGION_HOST_LO) = (uint32_t)host;
  *reg(FWB_R_REGION_LEN) = len;
  *reg(FWB_R_REGION_PTAG) = ptag;
  *reg(FWB_R_REGION_ACCESS) = access;
  uint32_t v = *reg(FWB_R_REGION_VERDICT);
  return v == FWB_REGION_OK ? FWB_REGION_OK : v == FWB_REGION_PTAG ? FWB_REGION_PTAG
                             : v == FWB_REGION_ACCESS ? FWB_REGION_ACCESS : FWB_REGION_OUTSIDE;
}

int fwb_peer_copy(struct fw_board *b, uint16_t node, uint32_t from, uint32_t to, uint32_t len) {
  (void)b;
  *reg(FWB_R_PEER_NODE) = node;
  *reg(FWB_R_PEER_FROM) = from;
  *reg(FWB_R_PEER_TO) = to;
  *reg(FWB_R_PEER_LEN) = len;
  return result();
}

unsigned fwb_cpu(struct fw_board *b) { (void)b; return *reg(FWB_R_CPU_ID); }
unsigned fwb_ncpus(struct fw_board *b) { (void)b; return *reg(FWB_R_NCPUS); }
void fwb_lock(struct fw_board *b) {
  (void)b;
  while (!*reg(FWB_R_SEM)) {}
}
void fwb_unlock(struct fw_board *b) { (void)b; *reg(FWB_R_SEM) = 0; }
void fwb_kick(struct fw_board *b) { (void)b; *reg(FWB_R_KICK) = 1; }
bool fwb_kicked(struct fw_board *b) { (void)b; return *reg(FWB_R_KICK) != 0; }
