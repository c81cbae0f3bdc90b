/* iss_board.c: the Verinic LANai card's register page (firmware/nic/fw_board_regs.h) around
 * the instruction-set simulator: each register access of the firmware becomes the hw/ call
 * board_emu.c makes for the native firmware, so both firmwares drive the same emulated
 * hardware the same way. Two registers also talk to the simulator: CLASS charges what follows
 * to an event class, and an EVENTS read that finds nothing while the class is IDLE yields (the
 * firmware polls forever; nicd then treats the NIC as idle for this pass). A read of a host
 * DMA channel's POLL register while it is busy advances that NIC's engines to their next event,
 * as time passes on a card while its processor spins. On a two-processor card (--cpus 2) each
 * processor has its own page: its events, mask and number, and the semaphore and doorbell
 * between them (hw/cpus.h). */
#include "../hw/cpus.h"
#include "../hw/lanai/iss.h"
#include "../hw/peerdma.h"
#include "fw_board_regs.h"
#include "hostif.h"
#include "nicd.h"

_Static_assert(FWB_REG_BASE == ISS_REG_BASE && FWB_REG_SIZE == ISS_REG_SIZE, "register page");
_Static_assert(FWB_NCLASS == ISS_NCLASS && FWB_NCLASS == HW_CPU_NCLASS, "event classes");
_Static_assert(FWB_NHDMA == NIC_HDMA_CHANNELS && FWB_NTIMERS == NIC_TIMERS, "engines");
_Static_assert(FWB_RECV_IDLE == 0 && FWB_RECV_ARMED == 1 && FWB_RECV_DONE == 2, "recv states");

uint64_t iss_board_now(const struct iss_board *b) {
  uint64_t dc = iss_stats(b->cpu)->cycles - b->c0;
  return b->t0 + (uint64_t)(((unsigned __int128)dc * 1000000000u) / b->hz);
}

/* Timing mode: the hardware has moved while the processor ran. */
static void catch_up(struct iss_board *b) {
  if (b->timed) nic_advance(b->nic, iss_board_now(b));
}

/* A channel's status, latching its sum for the SUM register. */
static uint32_t hdma_status(struct iss_board *b, unsigned ch) {
  struct nic_hdma_chan_status s;
  nic_hdma_status(b->nic, ch, &s);
  b->sum_latch[ch] = s.sum;
  return (s.busy ? FWB_HDMA_BUSY : 0) | ((uint32_t)s.error & FWB_HDMA_ERROR_MASK);
}

/* Reading STATE latches the other fields: the engine moves between the processor's reads. */
static uint32_t recv_field(struct iss_board *b, uint32_t off) {
  struct nic_recv_status *s = &b->recv_latch;
  switch (off) {
  case FWB_R_RECV_STATE:
    nic_recv_status(b->nic, s);
    return s->state == NIC_RECV_ARMED ? FWB_RECV_ARMED
           : s->state == NIC_RECV_DONE ? FWB_RECV_DONE : FWB_RECV_IDLE;
  case FWB_R_RECV_LEN: return s->len;
  case FWB_R_RECV_FRAGS: return s->frags;
  case FWB_R_RECV_SRC: return s->src;
  default: return s->flags;
  }
}

/* This processor's events (every one with one processor); with nothing pending and no
 * doorbell from the other processor, a processor polling in the IDLE class yields. */
static uint32_t events(struct iss_board *b) {
  uint32_t ev = nic_cpu_events(b->nic, (int)b->id);
  b->events_read = true;
  if (ev) b->saw_event = true;
  else if (b->cls == FWB_CLASS_IDLE && !nic_cpu_kicked(b->nic, (int)b->id)) {
    b->idle_yield = true;
    iss_yield(b->cpu);
  }
  return ev;
}

/* The registers of a two-processor card (fw_board_regs.h). */
static bool cpus_read(struct iss_board *b, uint32_t off, uint32_t *v) {
  switch (off) {
  case FWB_R_CPU_ID: *v = b->id; return true;
  case FWB_R_NCPUS: *v = (uint32_t)nic_cpus(b->nic); return true;
  case FWB_R_SEM: *v = (uint32_t)nic_sem_take(b->nic, (int)b->id); return true;
  case FWB_R_KICK:
    *v = (uint32_t)nic_cpu_kick_take(b->nic, (int)b->id);
    if (*v) b->saw_event = true;
    return true;
  default: return false;
  }
}

static bool cpus_write(struct iss_board *b, uint32_t off, uint32_t v) {
  (void)v;
  switch (off) {
  case FWB_R_SEM: nic_sem_give(b->nic, (int)b->id); return true;
  case FWB_R_KICK: nic_cpu_kick(b->nic, (int)(b->id ^ 1u)); return true;
  default: return false;
  }
}

static bool hdma_read(struct iss_board *b, uint32_t off, uint32_t *v) {
  unsigned ch = (off - FWB_R_HDMA) / FWB_HDMA_CH_STRIDE;
  switch (FWB_R_HDMA + (off - FWB_R_HDMA) % FWB_HDMA_CH_STRIDE) {
  case FWB_R_HDMA_STATUS: *v = hdma_status(b, ch); return true;
  case FWB_R_HDMA_SUM: *v = b->sum_latch[ch]; return true;
  case FWB_R_HDMA_POLL:
    if (!b->timed && (hdma_status(b, ch) & FWB_HDMA_BUSY)) (void)nic_step(b->nic);
    *v = hdma_status(b, ch);
    return true;
  default: return false; /* START is write-only */
  }
}

static bool bus_read(void *ctx, uint32_t off, uint32_t *v) {
  struct iss_board *b = ctx;
  catch_up(b);
  if (off >= FWB_R_HDMA && off < FWB_R_HDMA + FWB_NHDMA * FWB_HDMA_CH_STRIDE)
    return hdma_read(b, off, v);
  switch (off) {
  case FWB_R_ISR: *v = nic_isr(b->nic); return true;
  case FWB_R_IMR: *v = nic_imr(b->nic); return true;
  case FWB_R_EVENTS: *v = events(b); return true;
  case FWB_R_DB_TAKE: *v = nic_doorbells_take(b->nic); return true;
  case FWB_R_NODE: *v = nic_node(b->nic); return true;
  case FWB_R_SRAM_SIZE: *v = nic_sram_size(b->nic); return true;
  case FWB_R_CLOCK_LO: *v = (uint32_t)nic_clock(b->nic); return true;
  case FWB_R_CLOCK_HI: *v = (uint32_t)(nic_clock(b->nic) >> 32); return true;
  case FWB_R_HDMA_BUSY_LO: *v = (uint32_t)nic_counter(b->nic, HW_CTR_HDMA_BUSY_NS); return true;
  case FWB_R_HDMA_BUSY_HI: *v = (uint32_t)(nic_counter(b->nic, HW_CTR_HDMA_BUSY_NS) >> 32); return true;
  case FWB_R_SEND_BUSY_LO: *v = (uint32_t)nic_counter(b->nic, HW_CTR_SEND_BUSY_NS); return true;
  case FWB_R_SEND_BUSY_HI: *v = (uint32_t)(nic_counter(b->nic, HW_CTR_SEND_BUSY_NS) >> 32); return true;
  case FWB_R_RESULT: *v = (uint32_t)b->result; return true;
  case FWB_R_RECV_STATE: case FWB_R_RECV_LEN: case FWB_R_RECV_FRAGS: case FWB_R_RECV_SRC:
  case FWB_R_RECV_FLAGS:
    *v = recv_field(b, off);
    return true;
  case FWB_R_REGION_VERDICT: *v = b->verdict; return true;
  default: return cpus_read(b, off, v);
  }
}

static uint32_t region_verdict(struct iss_board *b, uint32_t access) {
  uint64_t host = (uint64_t)b->rg_hi << 32 | b->rg_lo;
  switch (nic_region_check(b->nic, host, b->rg_len, b->rg_ptag, access)) {
  case NIC_HDMA_DONE: return FWB_REGION_OK;
  case NIC_HDMA_EPTAG: return FWB_REGION_PTAG;
  case NIC_HDMA_EACCESS: return FWB_REGION_ACCESS;
  default: return FWB_REGION_OUTSIDE;
  }
}

static bool bus_write(void *ctx, uint32_t off, uint32_t v) {
  struct iss_board *b = ctx;
  catch_up(b);
  if (off >= FWB_R_HDMA && off < FWB_R_HDMA + FWB_NHDMA * FWB_HDMA_CH_STRIDE) {
    if ((off - FWB_R_HDMA) % FWB_HDMA_CH_STRIDE != 0) return false; /* only START */
    b->result = nic_hdma_start(b->nic, (off - FWB_R_HDMA) / FWB_HDMA_CH_STRIDE, v);
    return true;
  }
  if (off >= FWB_R_TIMER && off < FWB_R_TIMER + 4 * FWB_NTIMERS) {
    b->result = nic_timer_set(b->nic, (off - FWB_R_TIMER) / 4, v);
    return true;
  }
  switch (off) {
  case FWB_R_ISR: nic_cpu_isr_clear(b->nic, (int)b->id, v); return true;
  case FWB_R_IMR: nic_cpu_imr_set(b->nic, (int)b->id, v); return true;
  case FWB_R_HOST_IRQ:
    nic_signal_host(b->nic, v);
    if (b->timed && vt_signal(nic_window(b->nic)->regs, v, iss_board_now(b), b->wake_ns)) {
      /* A host runs again at that time: the processor must not run past it before the host
       * has had its turn (its next request would reach the processor late by as much as the
       * slice overshot, which depends on when the loop looked at the hosts). */
      uint64_t at = iss_board_now(b) + b->wake_ns;
      if (at < b->woke_ns) b->woke_ns = at;
      iss_yield(b->cpu);
    }
    return true;
  case FWB_R_CLASS:
    if (v >= FWB_NCLASS) return false;
    b->cls = v;
    iss_set_class(b->cpu, v);
    return true;
  case FWB_R_SEND_DST: b->send_dst = v; return true;
  case FWB_R_SEND_ADDR: b->send_addr = v; return true;
  case FWB_R_SEND_LEN: b->send_len = v; return true;
  case FWB_R_SEND_GO:
    b->result = nic_send_start(b->nic, (uint16_t)b->send_dst, b->send_addr, b->send_len, v);
    return true;
  case FWB_R_RECV_ADDR: b->recv_addr = v; return true;
  case FWB_R_RECV_ARM: b->result = nic_recv_arm(b->nic, b->recv_addr, v); return true;
  case FWB_R_RECV_ABORT: b->result = nic_recv_abort(b->nic); return true;
  case FWB_R_REGION_HOST_HI: b->rg_hi = v; return true;
  case FWB_R_REGION_HOST_LO: b->rg_lo = v; return true;
  case FWB_R_REGION_LEN: b->rg_len = v; return true;
  case FWB_R_REGION_PTAG: b->rg_ptag = v; return true;
  case FWB_R_REGION_ACCESS: b->verdict = region_verdict(b, v); return true;
  case FWB_R_PEER_NODE: b->peer_node = v; return true;
  case FWB_R_PEER_FROM: b->peer_from = v; return true;
  case FWB_R_PEER_TO: b->peer_to = v; return true;
  case FWB_R_PEER_LEN:
    b->result = peerdma_copy(b->nic, (uint16_t)b->peer_node, b->peer_from, b->peer_to, v,
                             HOSTIF_DOORBELL_PANIC);
    return true;
  default: return cpus_write(b, off, v);
  }
}

void iss_board_init(struct iss_board *b, struct nic *nic, struct iss_bus *bus) {
  /* Not IDLE: a processor yields when it finds no event while idle, and booting it must first
   * finish the dispatcher pass that runs its machines' first steps (RECV arms the receive
   * engine there); in timing mode it would otherwise sleep until an event that never comes. */
  *b = (struct iss_board){.nic = nic, .cls = FWB_CLASS_OTHER};
  *bus = (struct iss_bus){.ctx = b, .read = bus_read, .write = bus_write};
}
