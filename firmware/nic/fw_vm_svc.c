/* fw_vm_svc.c: the NIC services a PANIC program uses (struct vm_services of firmware/vm):
 *   SEND     a PANIC packet to (program, trigger) on the node the PANIC address routes to
 *            (fw_txlocal_queue); to this NIC's own node, straight into the activation queue
 *   DELIVER  SRAM -> host segment, GET host segment -> SRAM: the segment (hostif.h) must be
 *            attached, the range inside it and inside a region registered with its protection
 *            tag and access; one descriptor on the VM's host DMA channel, waited for (the
 *            handler cannot go on without it). Only an activation run holding the host DMA
 *            engine may DMA; an activation moves at most FW_VM_DMA_MAX bytes. A DELIVER into
 *            the lock/flag block of a segment attached with HOSTIF_PANIC_SEG_SYNC may only
 *            clear locks and set flags (PANIC 3.3).
 *   CLOCK    the board clock in ns, modulo 2^32
 *   DISPLAY  (program, value) into the SRAM ring the host reads; a full ring counts a drop
 * A service that fails makes the VM abort the activation with fault-service. Freestanding. */
#include "fw_vm_svc.h"

#include "fw_sram.h"
#include "fw_txlocal.h"
#include "fw_vm_wire.h"

#define PANIC_AT(field) (HOSTIF_PANIC_BASE + (uint32_t)offsetof(struct hostif_panic, field))

bool fw_vm_svc_route(struct fw *fw, uint32_t hi, uint32_t lo, uint16_t *node) {
  if (hi == 0 && lo < 0x10000u) { /* a bare node number */
    *node = (uint16_t)lo;
    return true;
  }
  for (unsigned i = 0; i < HOSTIF_PANIC_NROUTE; i++) {
    uint32_t at = PANIC_AT(route) + i * (uint32_t)sizeof(struct hostif_panic_route);
    if (!fw_sram_rd32(fw, at + offsetof(struct hostif_panic_route, used))) continue;
    if (fw_sram_rd32(fw, at + offsetof(struct hostif_panic_route, addr)) != lo ||
        fw_sram_rd32(fw, at + offsetof(struct hostif_panic_route, addr) + 4) != hi)
      continue;
    *node = (uint16_t)fw_sram_rd32(fw, at + offsetof(struct hostif_panic_route, node));
    return true;
  }
  return false;
}

/* A failed SEND returns 1, not -1: clang 14's LANai backend loops forever on the sign
 * extension of a negated bool that `ok ? 0 : -1` becomes. */
static int send_now(struct fw *fw) {
  struct fw_vm_send *q = &fw->vm.send;
  if (q->len > HOSTIF_PANIC_MSG_MAX || !fw_vm_svc_route(fw, q->hi, q->lo, &q->node)) {
    fw_count64v(&fw_ctr(fw)->panic.send_fail);
    return 1;
  }
  return fw_vm_wire_send(fw) ? 0 : 1;
}

static int svc_send(void *ctx, const uint8_t *data, uint32_t len, uint32_t trig, uint32_t prog,
                    uint64_t addr) {
  struct fw *fw = ctx;
  struct fw_vm_send *q = &fw->vm.send;
  q->data = data;
  q->len = len;
  q->trig = trig;
  q->prog = prog;
  q->hi = (uint32_t)(addr >> 32);
  q->lo = (uint32_t)addr;
  return send_now(fw);
}

static void svc_await(void *ctx) { (void)ctx; }

/* A DELIVER into the first HOSTIF_PANIC_SYNC bytes must write whole words, zero into lock
 * words and non-zero into flag words. */
static bool sync_ok(const uint8_t *data, uint32_t len, uint32_t off) {
  if (off >= HOSTIF_PANIC_SYNC) return true;
  uint32_t end = off + len < HOSTIF_PANIC_SYNC ? off + len : HOSTIF_PANIC_SYNC;
  if (off % 4 || end % 4) return false;
  for (uint32_t at = off; at < end; at += 4) {
    const uint8_t *w = data + (at - off);
    bool zero = (w[0] | w[1] | w[2] | w[3]) == 0;
    if (at / 4 < HOSTIF_PANIC_NLOCK ? !zero : zero) return false;
  }
  return true;
}

static int svc_dma(struct fw *fw, bool to_host, uint8_t *data, uint32_t len, uint32_t seg,
                   uint32_t off) {
  struct fw_vm *v = &fw->vm;
  if (!v->dma_held || seg >= HOSTIF_PANIC_NSEG) return -1;
  uint32_t at = PANIC_AT(seg) + seg * (uint32_t)sizeof(struct hostif_panic_seg);
  struct hostif_panic_seg s;
  fw_sram_panic_seg_in(fw, &s, at); /* a snapshot: the host may change the entry */
  if (s.state != 1 || off > s.len || len > s.len - off) return -1;
  if (len > FW_VM_DMA_MAX - v->dma_bytes) return -1;
  if (to_host && (s.flags & HOSTIF_PANIC_SEG_SYNC) && !sync_ok(data, len, off)) return -1;
  if (len == 0) return 0;
  uint64_t host = s.addr + off;
  if (host < s.addr ||
      fwb_region_check(fw->board, host, len, s.ptag, to_host ? FWB_ACC_WRITE : FWB_ACC_READ) !=
          FWB_REGION_OK) {
    fw_count64v(&fw_ctr(fw)->protection_errors);
    return -1;
  }
  struct fwb_hdma_desc d = {0};
  d.flags = (uint16_t)((to_host ? FWB_HDMA_L2E : FWB_HDMA_E2L) | FWB_HDMA_TERMINAL);
  d.len = len;
  d.sram = (uint32_t)(data - fw->sram);
  d.host_hi = (uint32_t)(host >> 32);
  d.host_lo = (uint32_t)host;
  d.ptag = s.ptag;
  fw_sram_hdma_desc_out(fw, FW_VM_CHAIN, &d);
  if (fwb_hdma_start(fw->board, FW_CH_VM, FW_VM_CHAIN) != 0) return -1;
  int w = fwb_hdma_wait(fw->board, FW_CH_VM, FW_VM_DMA_NS);
  fwb_isr_clear(fw->board, FWB_ISR_WAKE(FW_CH_VM));
  struct fwb_hdma_status st;
  fwb_hdma_status(fw->board, FW_CH_VM, &st);
  if (w != 0 || st.error != FWB_HDMA_DONE) return -1;
  v->dma_bytes += len;
  fw_ctr_add(&fw_ctr(fw)->panic.dma_bytes, len);
  return 0;
}

static int svc_deliver(void *ctx, const uint8_t *data, uint32_t len, uint32_t seg, uint32_t off) {
  return svc_dma(ctx, true, (uint8_t *)(uintptr_t)data, len, seg, off);
}

static int svc_get(void *ctx, uint8_t *data, uint32_t len, uint32_t seg, uint32_t off) {
  return svc_dma(ctx, false, data, len, seg, off);
}

static uint32_t svc_clock(void *ctx) { return (uint32_t)fwb_clock_ns(((struct fw *)ctx)->board); }

static void svc_display(void *ctx, int32_t value) {
  struct fw *fw = ctx;
  uint32_t head = fw_sram_rd32(fw, PANIC_AT(display_head));
  uint32_t tail = fw_sram_rd32(fw, PANIC_AT(display_tail));
  fw_sram_acquire();
  if (head - tail >= HOSTIF_PANIC_DISPLAY) {
    fw_sram_wr32(fw, PANIC_AT(display_drops), fw_sram_rd32(fw, PANIC_AT(display_drops)) + 1);
    fw_count64v(&fw_ctr(fw)->panic.display_drops);
    return;
  }
  uint32_t e = PANIC_AT(display) + (head % HOSTIF_PANIC_DISPLAY) *
                                   (uint32_t)sizeof(struct hostif_panic_display);
  fw_sram_wr32(fw, e, fw->vm.cur_prog);
  fw_sram_wr32(fw, e + 4, (uint32_t)value);
  fw_sram_release();
  fw_sram_wr32(fw, PANIC_AT(display_head), head + 1);
}

const struct vm_services *fw_vm_svc_table(struct fw *fw) {
  struct vm_services *s = &fw->vm.svc;
  s->ctx = fw;
  s->send = svc_send;
  s->await = svc_await;
  s->deliver = svc_deliver;
  s->get = svc_get;
  s->clock = svc_clock;
  s->display = svc_display;
  return s;
}
