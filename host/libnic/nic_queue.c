/* The two-level work queue of E-UDP section 4.2. L2 is the VI's ring in NIC SRAM (32 slots),
 * filled by programmed I/O; L1 is the list of records in host memory not yet in the ring.
 * Whenever libnic runs (post, poll, wait) it reaps completed slots in order and moves L1
 * records into the slots that frees, so L1 drains at the rate the NIC completes work: the
 * completions clock the PIO, as the paper's interrupt handler does. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nic_internal.h"
#include "ring.h"

static struct lnic_rec *rec_at(struct lnic_wq *q, uint32_t i) { return &q->rec[i & (q->cap - 1)]; }

static volatile struct hostif_ring *ring_of(struct lnic_vi *v, enum lnic_q qi) {
  return (volatile struct hostif_ring *)(void *)(v->dev->win.sram + v->q[qi].ring_addr);
}

static int wq_grow(struct lnic_wq *q) {
  uint32_t ncap = q->cap ? q->cap * 2 : 64;
  if (ncap > NIC_WQ_MAX) return -ENOSPC;
  struct lnic_rec *n = calloc(ncap, sizeof *n);
  if (!n) return -ENOMEM;
  for (uint32_t i = q->taken; i != q->posted; i++) n[i & (ncap - 1)] = *rec_at(q, i);
  free(q->rec);
  q->rec = n;
  q->cap = ncap;
  return 0;
}

static void doorbell(struct lnic_vi *v) {
  uint32_t val = (v->q[NIC_SQ].ring_prod & 0xffffu) | (v->q[NIC_RQ].ring_prod << 16);
  hwin_doorbell(&v->dev->win, HOSTIF_DOORBELL_VI(v->idx), val);
}

/* Keeps the device's L1 bit of the queue true: lnic_drain_all visits only the VIs whose bit is
 * set, not every entry (a server's poll loop calls it with each look, over all connections). */
_Static_assert(HOSTIF_NVI % 64 == 0, "VIs fill whole words of struct lnic_dev.l1");
static void l1_note(struct lnic_vi *v, enum lnic_q qi) {
  uint64_t bit = (uint64_t)1 << v->idx % 64, *w = &v->dev->l1[qi][v->idx / 64];
  if (v->q[qi].pushed != v->q[qi].posted) *w |= bit;
  else *w &= ~bit;
}

/* Moves L1 records into free ring slots; returns how many slots were written. */
static unsigned push(struct lnic_vi *v, enum lnic_q qi) {
  struct lnic_wq *q = &v->q[qi];
  volatile struct hostif_ring *ring = ring_of(v, qi);
  unsigned n = 0;
  while (q->pushed != q->posted) {
    struct lnic_rec *r = rec_at(q, q->pushed);
    if (!r->local_status) {
      if (!ring_may_produce(q->ring_prod, q->ring_reaped)) break; /* never over an unreaped slot */
      volatile struct hostif_desc *slot = &ring->slot[ring_slot(q->ring_prod)];
      memcpy((void *)slot, &r->d, offsetof(struct hostif_desc, status));
      slot->done_len = 0;
      slot->done_imm = 0;
      slot->done_flags = 0;
      slot->status = HOSTIF_ST_PENDING;
      r->ring_seq = q->ring_prod;
      q->ring_prod = ring_next(q->ring_prod);
      n++;
    }
    q->pushed++;
  }
  if (n) sram_st32(&ring->prod, q->ring_prod); /* release: the slots are visible first */
  l1_note(v, qi);
  return n;
}

/* A completion the NIC wrote for another descriptor than the slot's (a datagram VI completes
 * datagrams in the order they end: firmware/nic/fw_dgctx.c) names it by its cookie: the
 * records of the two trade places, so that the completion reaches that descriptor's owner. */
static void match_cookie(struct lnic_wq *q, struct lnic_rec *r, uint32_t cookie) {
  for (uint32_t i = q->reaped + 1; i != q->pushed; i++) {
    struct lnic_rec *o = rec_at(q, i);
    if (o->local_status || o->d.cookie != cookie) continue;
    struct hostif_desc d = r->d;
    void *c = r->cookie;
    r->d = o->d, r->cookie = o->cookie;
    o->d = d, o->cookie = c;
    return;
  }
}

static unsigned reap(struct lnic_vi *v, enum lnic_q qi) {
  struct lnic_wq *q = &v->q[qi];
  volatile struct hostif_ring *ring = ring_of(v, qi);
  unsigned n = 0;
  while (q->reaped != q->pushed) {
    struct lnic_rec *r = rec_at(q, q->reaped);
    struct lnic_cqe *c = &r->cqe;
    c->cookie = r->cookie;
    c->op = r->d.op;
    if (r->local_status) {
      c->status = r->local_status;
      c->len = c->imm = 0;
      c->flags = 0;
    } else {
      volatile struct hostif_desc *slot = &ring->slot[ring_slot(r->ring_seq)];
      uint32_t st = sram_ld32(&slot->status);   /* acquire: the fields before it are final */
      if (st == HOSTIF_ST_PENDING) break;
      if (slot->cookie != r->d.cookie) {
        match_cookie(q, r, slot->cookie);
        c->cookie = r->cookie;
        c->op = r->d.op;
      }
      c->status = st;
      c->len = slot->done_len;
      c->imm = slot->done_imm;
      c->flags = slot->done_flags;
      q->ring_reaped = ring_next(q->ring_reaped);
    }
    q->reaped++;
    n++;
    if (v->reap) v->reap(v->reap_ctx, c);
  }
  return n;
}

int lnic_post(struct lnic_vi *v, enum lnic_q qi, const struct hostif_desc *d, void *cookie,
             uint32_t local_status) {
  if (!v || !d || (qi != NIC_SQ && qi != NIC_RQ)) return -EINVAL;
  if (lnic_dead_check(v->dev, false)) return -EPIPE;
  struct lnic_wq *q = &v->q[qi];
  if (q->posted - q->taken == q->cap) {
    int rc = wq_grow(q);
    if (rc) return rc;
  }
  struct lnic_rec *r = rec_at(q, q->posted);
  r->d = *d;
  r->d.flags |= HOSTIF_F_SIGNAL;
  r->d.cookie = q->posted;
  r->cookie = cookie;
  r->local_status = local_status;
  r->ring_seq = 0;
  q->posted++;
  reap(v, qi);
  if (push(v, qi)) doorbell(v);
  uint32_t l1 = q->posted - q->pushed;
  if (l1 > q->l1_max) q->l1_max = l1;
  if (l1) lnic_drainer_kick(v->dev);
  return 0;
}

int lnic_progress(struct lnic_vi *v, enum lnic_q qi) {
  struct lnic_wq *q = &v->q[qi];
  if (q->reaped == q->posted) return 0;
  unsigned n = reap(v, qi);
  if (q->pushed != q->posted && push(v, qi)) doorbell(v);
  return (int)n;
}

int lnic_take(struct lnic_vi *v, enum lnic_q qi, struct lnic_cqe *out) {
  struct lnic_wq *q = &v->q[qi];
  if (q->taken == q->reaped) return -EAGAIN;
  *out = rec_at(q, q->taken)->cqe;
  q->taken++;
  return 0;
}

uint32_t lnic_wq_ready(const struct lnic_vi *v, enum lnic_q qi) {
  return v->q[qi].reaped - v->q[qi].taken;
}
uint32_t lnic_wq_outstanding(const struct lnic_vi *v, enum lnic_q qi) {
  return v->q[qi].posted - v->q[qi].reaped;
}
uint32_t lnic_wq_l1_len(const struct lnic_vi *v, enum lnic_q qi) {
  return v->q[qi].posted - v->q[qi].pushed;
}

void lnic_wq_flush(struct lnic_vi *v, enum lnic_q qi, uint32_t status) {
  struct lnic_wq *q = &v->q[qi];
  reap(v, qi);
  while (q->reaped != q->posted) {
    struct lnic_rec *r = rec_at(q, q->reaped);
    r->cqe = (struct lnic_cqe){.cookie = r->cookie, .status = status, .op = r->d.op};
    q->reaped++;
    if (v->reap) v->reap(v->reap_ctx, &r->cqe);
  }
  q->pushed = q->posted;
  q->ring_reaped = q->ring_prod;
  l1_note(v, qi);
}

uint32_t lnic_drain_all(struct lnic_dev *d) {
  uint32_t mask = 0;
  d->drains++;
  for (int qi = 0; qi < 2; qi++)
    for (unsigned k = 0; k < HOSTIF_NVI / 64; k++)
      for (uint64_t m = d->l1[qi][k]; m; m &= m - 1) {
        unsigned i = k * 64 + (unsigned)__builtin_ctzll(m);
        struct lnic_vi *v = d->vi[i];
        lnic_progress(v, (enum lnic_q)qi);
        if (v->q[qi].pushed != v->q[qi].posted)
          mask |= qi == NIC_SQ ? HOSTIF_SIG_SQ(i) : HOSTIF_SIG_RQ(i);
      }
  return mask;
}

void lnic_vi_kick(struct lnic_vi *v) { doorbell(v); }

bool lnic_vi_peer_settling(struct lnic_vi *v) {
  volatile struct hostif_ring *r = ring_of(v, NIC_SQ);
  return (__atomic_load_n(&r->rel_seq, __ATOMIC_ACQUIRE) & HOSTIF_REL_SEQ_VALID) ||
         sram_ld32(&r->cons) != sram_ld32(&r->done);
}

void lnic_vi_resync(struct lnic_vi *v) {
  for (int qi = 0; qi < 2; qi++) {
    lnic_progress(v, (enum lnic_q)qi);
    volatile struct hostif_ring *ring = ring_of(v, (enum lnic_q)qi);
    uint32_t at = v->q[qi].ring_reaped;
    if (sram_ld32(&ring->done) == at && sram_ld32(&ring->cons) == at) continue;
    ring->cons = at;
    sram_st32(&ring->done, at);
  }
  doorbell(v);
}
