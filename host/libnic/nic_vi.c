/* VIs: claiming an entry of the SRAM VI table (compare-and-swap on its owner word, so several
 * host processes share a NIC; an entry whose owner died is taken back), handing it to another
 * owner (a VI fork() shares), and letting it go. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nic_internal.h"

static bool pid_dead(uint32_t pid) {
  return pid != 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

#define REAP_SLICE_US 5000
#define REAP_WAIT_SLICES 60   /* 300 ms: three of nicd's reaping passes */

/* A new VI starts with zeroed rings (nicd/CONNECT.md). */
static void wq_init(struct lnic_wq *q, uint32_t ring_addr, volatile struct hostif_ring *r) {
  memset(q, 0, sizeof *q);
  q->ring_addr = ring_addr;
  r->prod = 0;
  r->cons = 0;
  r->done = 0;
  for (unsigned i = 0; i < HOSTIF_RING; i++) r->slot[i].status = HOSTIF_ST_PENDING;
}

/* Claims a free entry, or one whose owner died without a peer to tell. A dead owner's entry
 * that still names a peer (CONNECTED, ERROR) is nicd's to reap: it breaks the peer first
 * (nicd/vitab.c), and an entry taken before that would leave the peer waiting for good.
 * Returns the index, 0 if none, and sets *reaping when such entries wait for nicd. */
static unsigned claim_entry(struct lnic_dev *d, uint32_t me, bool *reaping) {
  *reaping = false;
  /* Entries are taken round the table from where the last one was, not lowest first, so that
   * an entry just freed is taken again last: the messages of its old connection still on
   * their way (ACKs, retransmissions) find no VI, rather than a new connection between the
   * same two entries, whose stamp (hostif.h, conn) they would fail. */
  for (unsigned k = 0; k < HOSTIF_NVI - 1; k++) {
    unsigned i = 1 + (d->vi_next + k) % (HOSTIF_NVI - 1);
    volatile struct hostif_vi *e = lnic_hostif_vi(d, i);
    uint32_t owner = sram_ld32(&e->owner_pid);
    uint32_t state = sram_ld32(&e->state);
    if (owner == 0 && state == HOSTIF_VI_FREE) {
      if (sram_cas32(&e->owner_pid, 0, me)) return d->vi_next = i, i;
    } else if (owner != me && pid_dead(owner)) {
      if (HOSTIF_VI_NAMES_PEER(state)) *reaping = true;
      else if (sram_cas32(&e->owner_pid, owner, me)) return d->vi_next = i, i;
    }
  }
  return 0;
}

int lnic_vi_create(struct lnic_dev *d, uint32_t ptag, uint32_t reliability, struct lnic_vi **out) {
  if (!d || !out || reliability > HOSTIF_RELIABLE_DELIVERY) return -EINVAL;
  *out = NULL;
  if (lnic_dead_check(d, true)) return -EPIPE;
  struct lnic_vi *v = calloc(1, sizeof *v);
  if (!v) return -ENOMEM;
  uint32_t me = (uint32_t)getpid();
  unsigned idx;
  bool reaping;
  for (unsigned waited = 0;; waited++) {
    lnic_lock(d);
    idx = claim_entry(d, me, &reaping);
    if (idx || !reaping || waited >= REAP_WAIT_SLICES || lnic_dead_check(d, true)) break;
    lnic_unlock(d);
    usleep(REAP_SLICE_US);   /* nicd reaps dead owners' VIs every 100 ms */
  }
  if (!idx) {
    lnic_unlock(d);
    free(v);
    return -ENOSPC;
  }
  volatile struct hostif_vi *e = lnic_hostif_vi(d, idx);
  sram_st32(&e->state, HOSTIF_VI_FREE);   /* a reclaimed entry: the NIC stops using it */
  e->reliability = reliability;
  e->ptag = ptag;
  e->remote_node = 0;
  e->remote_vi = 0;
  e->flags = 0;   /* an earlier VI's RDMA or datagram flags (and port) are not this one's */
  e->port = 0;
  v->gen = sram_ld32(&e->generation) + 1;
  sram_st32(&e->generation, v->gen);
  v->dev = d;
  v->idx = idx;
  v->ptag = ptag;
  v->reliability = reliability;
  wq_init(&v->q[NIC_SQ], HOSTIF_VI_ADDR(idx) + (uint32_t)offsetof(struct hostif_vi, sq), &e->sq);
  wq_init(&v->q[NIC_RQ], HOSTIF_VI_ADDR(idx) + (uint32_t)offsetof(struct hostif_vi, rq), &e->rq);
  /* Publish: FREE -> IDLE after everything else (a dead owner's entry may be in any state). */
  uint32_t was = sram_ld32(&e->state);
  if (!sram_cas32(&e->state, was, HOSTIF_VI_IDLE)) {
    sram_st32(&e->owner_pid, 0);
    lnic_unlock(d);
    free(v);
    return -EAGAIN;
  }
  d->vi[idx] = v;
  lnic_unlock(d);
  *out = v;
  return 0;
}

uint32_t lnic_vi_state(struct lnic_vi *v) {
  return sram_ld32(&lnic_hostif_vi(v->dev, v->idx)->state);
}

int lnic_vi_flush_idle(struct lnic_vi *v) {
  volatile struct hostif_vi *e = lnic_hostif_vi(v->dev, v->idx);
  if (sram_ld32(&e->state) != HOSTIF_VI_IDLE || (sram_ld32(&e->flags) & HOSTIF_VI_F_DGRAM))
    return -EBUSY;
  lnic_wq_flush(v, NIC_SQ, HOSTIF_ST_FLUSHED);
  lnic_wq_flush(v, NIC_RQ, HOSTIF_ST_FLUSHED);
  return 0;
}

/* The entry is still v's: the generation of its creation, and not freed (destroyed, or reaped
 * by nicd, whose FREE keeps the generation). */
static bool still_v(struct lnic_vi *v, volatile struct hostif_vi *e) {
  return sram_ld32(&e->state) != HOSTIF_VI_FREE && sram_ld32(&e->generation) == v->gen;
}

int lnic_vi_set_owner(struct lnic_vi *v, uint32_t pid) {
  if (!v || pid == 0) return -EINVAL;
  if (pid_dead(pid)) return -ESRCH;
  volatile struct hostif_vi *e = lnic_hostif_vi(v->dev, v->idx);
  for (;;) {
    uint32_t owner = sram_ld32(&e->owner_pid);
    if (!still_v(v, e) || owner == 0 || pid_dead(owner)) return -EPIPE;
    if (owner == pid) return 0;
    if (!sram_cas32(&e->owner_pid, owner, pid)) continue;
    /* Only a new VI made in the entry in between (by the owner we replaced: it destroyed v,
     * which a process sharing v never does while another holds it) makes this wrong. */
    if (still_v(v, e)) return 0;
    sram_cas32(&e->owner_pid, pid, owner);
    return -EPIPE;
  }
}

int lnic_vi_destroy(struct lnic_vi *v, bool force) {
  if (!v) return -EINVAL;
  struct lnic_dev *d = v->dev;
  lnic_lock(d);
  volatile struct hostif_vi *e = lnic_hostif_vi(d, v->idx);
  if (!force) {
    lnic_progress(v, NIC_SQ);
    lnic_progress(v, NIC_RQ);
    if (sram_ld32(&e->state) == HOSTIF_VI_CONNECTED ||
        lnic_wq_outstanding(v, NIC_SQ) || lnic_wq_outstanding(v, NIC_RQ)) {
      lnic_unlock(d);
      return -EBUSY;
    }
  }
  sram_st32(&e->state, HOSTIF_VI_FREE);
  sram_st32(&e->owner_pid, 0);
  d->vi[v->idx] = NULL;
  d->l1[NIC_SQ][v->idx / 64] &= ~((uint64_t)1 << v->idx % 64);   /* a forced destroy may */
  d->l1[NIC_RQ][v->idx / 64] &= ~((uint64_t)1 << v->idx % 64);   /* leave records in L1 */
  lnic_unlock(d);
  free(v->q[0].rec);
  free(v->q[1].rec);
  free(v);
  return 0;
}
