/* rawhost.c: see rawhost.h. */
#include "rawhost.h"

#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

struct hostif_vi *rh_vi(struct hwin *w, unsigned vi) {
  return (struct hostif_vi *)(void *)(w->sram + HOSTIF_VI_ADDR(vi));
}

void rh_vi_create(struct hwin *w, unsigned vi, uint32_t ptag, uint32_t reliability) {
  struct hostif_vi *v = rh_vi(w, vi);
  memset(v, 0, sizeof *v);
  v->reliability = reliability;
  v->ptag = ptag;
  v->flags = HOSTIF_VI_F_RDMA_WRITE;   /* the raw host's VIs take RDMA Writes */
  v->owner_pid = 0;
  atomic_thread_fence(memory_order_release);
  v->state = HOSTIF_VI_IDLE;
}

void rh_vi_pair(struct hwin *a, unsigned via, uint16_t node_a, struct hwin *b, unsigned vib,
                uint16_t node_b) {
  rh_vi_pair_stamp(a, via, node_a, b, vib, node_b, 0);
}

void rh_vi_pair_stamp(struct hwin *a, unsigned via, uint16_t node_a, struct hwin *b,
                      unsigned vib, uint16_t node_b, uint32_t stamp) {
  struct hostif_vi *x = rh_vi(a, via), *y = rh_vi(b, vib);
  x->remote_node = node_b;
  x->remote_vi = (uint16_t)vib;
  y->remote_node = node_a;
  y->remote_vi = (uint16_t)via;
  x->conn = y->conn = stamp;
  atomic_thread_fence(memory_order_release);
  x->state = HOSTIF_VI_CONNECTED;
  y->state = HOSTIF_VI_CONNECTED;
}

struct hostif_desc rh_desc(uint16_t op, uint32_t ptag, unsigned nseg, const uint64_t *addr,
                           const uint32_t *len) {
  struct hostif_desc d;
  memset(&d, 0, sizeof d);
  d.op = op;
  d.nseg = (uint16_t)nseg;
  for (unsigned i = 0; i < nseg && i < HOSTIF_MAXSEG; i++) {
    d.seg[i].addr = addr[i];
    d.seg[i].len = len[i];
    d.seg[i].ptag = ptag;
    d.length += len[i];
  }
  return d;
}

static struct hostif_ring *ring(struct hwin *w, unsigned vi, bool sq) {
  struct hostif_vi *v = rh_vi(w, vi);
  return sq ? &v->sq : &v->rq;
}

uint32_t rh_post(struct hwin *w, unsigned vi, bool sq, const struct hostif_desc *d) {
  struct hostif_ring *r = ring(w, vi, sq);
  uint32_t i = r->prod;
  struct hostif_desc *s = &r->slot[i % HOSTIF_RING];
  memcpy(s, d, offsetof(struct hostif_desc, status));
  s->status = HOSTIF_ST_PENDING;
  atomic_thread_fence(memory_order_release);
  *(volatile uint32_t *)&r->prod = i + 1;
  hwin_doorbell(w, HOSTIF_DOORBELL_VI(vi), i + 1);
  return i;
}

uint32_t rh_done(struct hwin *w, unsigned vi, bool sq) {
  uint32_t d = *(volatile uint32_t *)&ring(w, vi, sq)->done;
  atomic_thread_fence(memory_order_acquire);
  return d;
}

struct hostif_desc rh_slot(struct hwin *w, unsigned vi, bool sq, uint32_t i) {
  struct hostif_desc d;
  memcpy(&d, &ring(w, vi, sq)->slot[i % HOSTIF_RING], sizeof d);
  return d;
}

volatile struct hostif_counters *rh_counters(struct hwin *w) {
  return (volatile struct hostif_counters *)(void *)(w->sram + HOSTIF_COUNTERS_ADDR);
}

bool rh_ready(struct hwin *w) {
  return *(volatile uint32_t *)(void *)(w->sram + HOSTIF_BASE) == HOSTIF_MAGIC;
}
