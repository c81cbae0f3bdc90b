/* The unit tests' stand-in firmware (see fakenic.h). */
#define _GNU_SOURCE
#include "fakenic.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../hw/window_nic.h" /* a fake NIC: it creates the window and raises signals */

int fake_create(struct fakenic *f, int n, bool publish) {
  snprintf(f->name, sizeof f->name, "/verinic-t%d-%d", (int)getpid(), n);
  int rc = hwin_create(&f->w, f->name, HW_SRAM_DEFAULT, (uint16_t)n);
  if (rc) return rc;
  volatile struct hostif_ctrl *c = (volatile void *)(f->w.sram + HOSTIF_BASE);
  c->version = HOSTIF_VERSION;
  c->nvi = HOSTIF_NVI;
  c->vi_off = HOSTIF_VI_ADDR(0);
  c->counters_off = HOSTIF_COUNTERS_ADDR;
  if (publish) __atomic_store_n(&c->magic, HOSTIF_MAGIC, __ATOMIC_RELEASE);
  return 0;
}

void fake_destroy(struct fakenic *f) { hwin_destroy(&f->w); }

static volatile struct hostif_vi *vi_at(struct fakenic *f, unsigned i) {
  return (volatile struct hostif_vi *)(void *)(f->w.sram + HOSTIF_VI_ADDR(i));
}

void fake_connect(struct fakenic *f, unsigned a, unsigned b) {
  vi_at(f, a)->remote_node = vi_at(f, b)->remote_node = (uint16_t)f->w.regs->node;
  vi_at(f, a)->remote_vi = (uint16_t)b;
  vi_at(f, b)->remote_vi = (uint16_t)a;
  __atomic_store_n(&vi_at(f, a)->state, HOSTIF_VI_CONNECTED, __ATOMIC_RELEASE);
  __atomic_store_n(&vi_at(f, b)->state, HOSTIF_VI_CONNECTED, __ATOMIC_RELEASE);
}

/* Is [addr, addr+len) inside one valid region with this tag and these access bits (a key in
 * bits 8..15 must be the region's, as the firmware's check has it)? */
static bool region_ok_acc(struct fakenic *f, uint64_t addr, uint64_t len, uint32_t ptag,
                          uint32_t acc) {
  if (len == 0) return true;
  uint32_t want = acc & 0xffu, key = acc >> HOSTIF_REGION_KEY_SHIFT;
  for (int i = 0; i < HW_REGIONS; i++) {
    struct hw_region *g = &f->w.regions[i];
    if (atomic_load(&g->state) == HW_REGION_VALID && g->ptag == ptag && addr >= g->host_base &&
        addr - g->host_base <= g->len && len <= g->len - (addr - g->host_base) &&
        (g->access & want) == want && (!key || g->access >> HOSTIF_REGION_KEY_SHIFT == key))
      return true;
  }
  return false;
}

static bool region_ok(struct fakenic *f, uint64_t addr, uint64_t len, uint32_t ptag) {
  return region_ok_acc(f, addr, len, ptag, 0);
}

/* An RDMA Write's target: the peer VI allows it, the handle's memory allows it. */
static bool rdma_ok(struct fakenic *f, const struct hostif_desc *d, volatile struct hostif_vi *peer) {
  uint32_t tag = d->rdma_ptag & HOSTIF_PTAG_MASK, key = d->rdma_ptag >> 24;
  return (peer->flags & HOSTIF_VI_F_RDMA_WRITE) &&
         region_ok_acc(f, d->rdma_addr, d->length, tag,
                       HOSTIF_REGION_RDMA_WRITE | key << HOSTIF_REGION_KEY_SHIFT);
}

static bool segs_ok(struct fakenic *f, const struct hostif_desc *d, uint32_t vi_ptag) {
  if (d->nseg > HOSTIF_MAXSEG) return false;
  for (unsigned i = 0; i < d->nseg; i++)
    if (d->seg[i].ptag != vi_ptag || !region_ok(f, d->seg[i].addr, d->seg[i].len, vi_ptag))
      return false;
  return true;
}

static void complete(volatile struct hostif_ring *r, volatile struct hostif_desc *s, uint32_t st,
                     uint32_t len, uint32_t imm, uint16_t flags) {
  s->done_len = len;
  s->done_imm = imm;
  s->done_flags = flags;
  __atomic_store_n(&s->status, st, __ATOMIC_RELEASE);
  __atomic_store_n(&r->done, r->done + 1, __ATOMIC_RELEASE);
}

/* Copies the send's gather list into the receive's scatter list; returns bytes or -1 if
 * the receive is too small. */
static long scatter(const struct hostif_desc *src, const struct hostif_desc *dst) {
  uint64_t cap = 0;
  for (unsigned i = 0; i < dst->nseg; i++) cap += dst->seg[i].len;
  if (src->length > cap) return -1;
  unsigned di = 0;
  uint32_t doff = 0;
  for (unsigned i = 0; i < src->nseg; i++) {
    const uint8_t *p = (const uint8_t *)(uintptr_t)src->seg[i].addr;
    uint32_t left = src->seg[i].len;
    while (left) {
      while (doff == dst->seg[di].len) di++, doff = 0;
      uint32_t n = dst->seg[di].len - doff < left ? dst->seg[di].len - doff : left;
      memcpy((uint8_t *)(uintptr_t)dst->seg[di].addr + doff, p, n);
      p += n, left -= n, doff += n;
    }
  }
  return src->length;
}

unsigned fake_step(struct fakenic *f, unsigned limit) {
  unsigned done = 0, sends = 0, sigs = 0;
  for (unsigned i = 1; i < HOSTIF_NVI; i++) {
    volatile struct hostif_vi *v = vi_at(f, i);
    volatile struct hostif_ring *sq = &v->sq;
    while (sq->cons != __atomic_load_n(&sq->prod, __ATOMIC_ACQUIRE) && (!limit || sends < limit)) {
      volatile struct hostif_desc *s = &sq->slot[sq->cons % HOSTIF_RING];
      struct hostif_desc d;
      memcpy(&d, (const void *)s, sizeof d);
      volatile struct hostif_vi *peer = vi_at(f, v->remote_vi);
      uint32_t st = HOSTIF_ST_DONE;
      if (v->state != HOSTIF_VI_CONNECTED) st = HOSTIF_ST_DISCONNECTED;
      else if (!segs_ok(f, &d, v->ptag)) st = HOSTIF_ST_PROTECTION;
      else if (d.op == HOSTIF_OP_RDMA_WRITE && !rdma_ok(f, &d, peer))
        st = HOSTIF_ST_RDMA_PROT;
      bool needs_recv = st == HOSTIF_ST_DONE &&
                        (d.op == HOSTIF_OP_SEND || (d.flags & HOSTIF_F_IMMEDIATE));
      volatile struct hostif_ring *rq = &peer->rq;
      if (needs_recv && rq->cons == __atomic_load_n(&rq->prod, __ATOMIC_ACQUIRE)) break;
      if (st == HOSTIF_ST_DONE && d.op == HOSTIF_OP_RDMA_WRITE) {
        struct hostif_desc tgt = {.nseg = 1, .seg = {{.addr = d.rdma_addr, .len = d.length}}};
        scatter(&d, &tgt);
      }
      if (needs_recv) {
        volatile struct hostif_desc *rs = &rq->slot[rq->cons % HOSTIF_RING];
        struct hostif_desc r;
        memcpy(&r, (const void *)rs, sizeof r);
        uint32_t rst = HOSTIF_ST_DONE;
        long n = 0;
        if (!segs_ok(f, &r, peer->ptag)) rst = HOSTIF_ST_PROTECTION;
        else if (d.op == HOSTIF_OP_SEND && (n = scatter(&d, &r)) < 0) rst = HOSTIF_ST_LENGTH;
        rq->cons++;
        complete(rq, rs, rst, rst == HOSTIF_ST_DONE ? (uint32_t)n : 0, d.imm,
                 d.flags & HOSTIF_F_IMMEDIATE);
        sigs |= HOSTIF_SIG_VI(v->remote_vi);
        done++;
      }
      sq->cons++;
      sends++;
      complete(sq, s, st, st == HOSTIF_ST_DONE ? d.length : 0, 0, 0);
      sigs |= HOSTIF_SIG_VI(i);
      done++;
    }
  }
  if (sigs) hwin_signal_host(&f->w, sigs);
  return done;
}
