/* VIPL: completion queues. A CQ is the set of work queues associated with it; VipCQDone
 * reports, once per completion, a (VI, queue) whose completions it has not yet reported,
 * taking the queues round-robin; the descriptor itself is then taken with VipSendDone or
 * VipRecvDone, as the specification describes. Waiting sleeps on the host signals of every
 * member VI. */
#include <errno.h>
#include <stdlib.h>

#include "futex.h"
#include "vipl_ext.h"
#include "vipl_internal.h"

VIP_RETURN VipCreateCQ(VIP_NIC_HANDLE NicHandle, VIP_ULONG EntryCount, VIP_CQ_HANDLE *CQHandle) {
  struct vnic *n = vh_get(NicHandle, VH_NIC);
  if (!n || !CQHandle || EntryCount == 0 || EntryCount > NIC_WQ_MAX) return VIP_INVALID_PARAMETER;
  struct vcq *c = calloc(1, sizeof *c);
  if (!c) return VIP_ERROR_RESOURCE;
  c->nic = n;
  c->entries = (unsigned)EntryCount;
  c->handle = vh_new(VH_CQ, c);
  if (!c->handle) {
    free(c);
    return VIP_ERROR_RESOURCE;
  }
  lnic_lock(n->dev);
  n->ncqs++;
  lnic_unlock(n->dev);
  *CQHandle = c->handle;
  return VIP_SUCCESS;
}

VIP_RETURN VipDestroyCQ(VIP_CQ_HANDLE CQHandle) {
  struct vcq *c = vh_get(CQHandle, VH_CQ);
  if (!c) return VIP_INVALID_PARAMETER;
  lnic_lock(c->nic->dev);
  unsigned members = c->nmem;
  if (!members) c->nic->ncqs--;
  lnic_unlock(c->nic->dev);
  if (members) return VIP_INVALID_STATE;   /* VIs still use it */
  vh_free(CQHandle);
  vipl_notify_cq_gone(c);
  free(c);
  return VIP_SUCCESS;
}

VIP_RETURN VipResizeCQ(VIP_CQ_HANDLE CQHandle, VIP_ULONG EntryCount) {
  struct vcq *c = vh_get(CQHandle, VH_CQ);
  if (!c || EntryCount == 0 || EntryCount > NIC_WQ_MAX) return VIP_INVALID_PARAMETER;
  lnic_lock(c->nic->dev);
  c->entries = (unsigned)EntryCount;   /* entries live with the work queues: nothing moves */
  lnic_unlock(c->nic->dev);
  return VIP_SUCCESS;
}

/* A wait sleeps on the signal bits of the members it saw, or, with none, on `joined`; a
 * queue that joins meanwhile would not wake it, and the members it saw may have left since (a
 * server whose last connection closed slept through the next one's first request, until its
 * slice of 5 ms ended). So a join wakes the sleepers on the bits they sleep on. */
void vipl_cq_join(struct vcq *c, struct vvi *vi, int q) {
  vi->cq[q] = c;
  c->mem[c->nmem].vi = vi;
  c->mem[c->nmem++].q = q;
  atomic_fetch_add(&c->joined, 1);
  futex_wake(&c->joined);
  lnic_wake(c->nic->dev, c->sleep_bits | c->nic->nt.sleep_bits);
  vipl_notify_look(c->nic);
}

void vipl_cq_detach(struct vvi *vi) {
  for (int q = 0; q < 2; q++) {
    struct vcq *c = vi->cq[q];
    if (!c) continue;
    for (unsigned i = 0; i < c->nmem; i++)
      if (c->mem[i].vi == vi && c->mem[i].q == q) {
        c->mem[i] = c->mem[--c->nmem];
        break;
      }
    vi->cq[q] = NULL;
  }
}

void vipl_cq_progress(struct vcq *c) {
  for (unsigned i = 0; i < c->nmem; i++) {
    vipl_vi_broken(c->mem[i].vi);
    lnic_progress(c->mem[i].vi->lv, c->mem[i].q);
  }
}

/* A member queue with a completion not yet reported, round robin from the last one. */
static bool cq_pending(struct vcq *c, VIP_VI_HANDLE *vh, VIP_BOOLEAN *rq) {
  for (unsigned k = 0; k < c->nmem; k++) {
    unsigned i = (c->rr + k) % c->nmem;
    struct vvi *v = c->mem[i].vi;
    int q = c->mem[i].q;
    if (v->completed[q] != v->cq_reported[q]) {
      v->cq_reported[q]++;
      c->rr = i + 1;
      *vh = v->handle;
      *rq = q == NIC_RQ;
      return true;
    }
  }
  return false;
}

/* Completions the last look found are reported before the NIC is looked at again: a look
 * visits every member queue (a server's CQ has two per connection), and was taken for every
 * completion, which with 200 connections cost nginx over half its time. */
static VIP_RETURN cq_try(struct vcq *c, VIP_VI_HANDLE *vh, VIP_BOOLEAN *rq, uint32_t *l1mask) {
  *l1mask = lnic_drain_all(c->nic->dev);
  if (cq_pending(c, vh, rq)) return VIP_SUCCESS;
  vipl_cq_progress(c);
  if (cq_pending(c, vh, rq)) return VIP_SUCCESS;
  if (lnic_is_dead(c->nic->dev)) {
    vipl_nic_dead(c->nic);   /* outstanding descriptors complete flushed: report them */
    for (unsigned i = 0; i < c->nmem; i++) {
      struct vvi *v = c->mem[i].vi;
      int q = c->mem[i].q;
      if (v->completed[q] != v->cq_reported[q]) {
        v->cq_reported[q]++;
        *vh = v->handle;
        *rq = q == NIC_RQ;
        return VIP_SUCCESS;
      }
    }
    return VIP_ERROR_RESOURCE;
  }
  return VIP_NOT_DONE;
}

/* The signal bits of the CQ's member queues (only the receive queues' with VIPX_CQ_RECV_ONLY). */
static uint32_t cq_bits(struct vcq *c, VIP_ULONG flags) {
  uint32_t mask = 0;
  for (unsigned i = 0; i < c->nmem; i++) {
    unsigned vi = c->mem[i].vi->lv->idx;
    if (c->mem[i].q == NIC_RQ) mask |= HOSTIF_SIG_RQ(vi);
    else if (!(flags & VIPX_CQ_RECV_ONLY)) mask |= HOSTIF_SIG_SQ(vi);
  }
  return mask;
}

VIP_RETURN VipCQDone(VIP_CQ_HANDLE CQHandle, VIP_VI_HANDLE *ViHandle, VIP_BOOLEAN *RecvQueue) {
  struct vcq *c = vh_get(CQHandle, VH_CQ);
  if (!c || !ViHandle || !RecvQueue) return VIP_INVALID_PARAMETER;
  uint32_t l1mask;
  lnic_lock(c->nic->dev);
  VIP_RETURN r = vipl_notify_armed(&c->notify) ? VIP_ERROR_RESOURCE
                                               : cq_try(c, ViHandle, RecvQueue, &l1mask);
  lnic_unlock(c->nic->dev);
  return r;
}

/* flags: VipxCQWaitEx's (VIPX_CQ_RECV_ONLY, VIPX_CQ_ONCE); VipCQWait passes none. */
static VIP_RETURN cq_wait(VIP_CQ_HANDLE CQHandle, VIP_ULONG Timeout, VIP_VI_HANDLE *ViHandle,
                          VIP_BOOLEAN *RecvQueue, VIP_ULONG flags) {
  struct vcq *c = vh_get(CQHandle, VH_CQ);
  if (!c || !ViHandle || !RecvQueue) return VIP_INVALID_PARAMETER;
  int64_t timeout = vipl_timeout_ns(Timeout);
  uint64_t start = lnic_now_ns();
  bool woken = false;   /* VIPX_CQ_ONCE: a sleep ended without our signal: one look, then go */
  for (;;) {
    lnic_lock(c->nic->dev);
    uint32_t mask = 0;
    VIP_RETURN r = vipl_notify_armed(&c->notify) ? VIP_ERROR_RESOURCE
                                                 : cq_try(c, ViHandle, RecvQueue, &mask);
    mask |= cq_bits(c, flags);
    uint32_t joined = atomic_load(&c->joined);
    lnic_unlock(c->nic->dev);
    if (r != VIP_NOT_DONE) return r;
    uint64_t waited = lnic_now_ns() - start;
    if (woken || (timeout >= 0 && waited >= (uint64_t)timeout)) return VIP_TIMEOUT;
    int64_t slice = 5000000;
    if (timeout >= 0 && (uint64_t)timeout - waited < (uint64_t)slice)
      slice = (int64_t)((uint64_t)timeout - waited);
    if (mask) {   /* a sleep that ends without our bits (a queue joined, or another
                     waiter took them) looks again with the members as they are now */
      lnic_lock(c->nic->dev);
      if (atomic_load(&c->joined) != joined) {   /* joined since the look: look again */
        lnic_unlock(c->nic->dev);
        continue;
      }
      c->sleepers++;
      c->sleep_bits |= mask;
      lnic_unlock(c->nic->dev);
      int rc = lnic_wait_once(c->nic->dev, mask, slice);
      lnic_lock(c->nic->dev);
      if (--c->sleepers == 0) c->sleep_bits = 0;
      lnic_unlock(c->nic->dev);
      woken = (flags & VIPX_CQ_ONCE) && (rc == -EINTR || rc == -EAGAIN);
    } else {
      futex_wait(&c->joined, joined, slice);
    }
  }
}

VIP_RETURN VipCQWait(VIP_CQ_HANDLE CQHandle, VIP_ULONG Timeout, VIP_VI_HANDLE *ViHandle,
                     VIP_BOOLEAN *RecvQueue) {
  return cq_wait(CQHandle, Timeout, ViHandle, RecvQueue, 0);
}

VIP_RETURN VipxCQWaitEx(VIP_CQ_HANDLE CQHandle, VIP_ULONG Timeout, VIP_ULONG Flags,
                        VIP_VI_HANDLE *ViHandle, VIP_BOOLEAN *RecvQueue) {
  if (Flags & ~(VIP_ULONG)(VIPX_CQ_RECV_ONLY | VIPX_CQ_ONCE)) return VIP_INVALID_PARAMETER;
  return cq_wait(CQHandle, Timeout, ViHandle, RecvQueue, Flags);
}

/* The provider thread's VipCQDone (vipl_notify.c), with VipCQWait's signal bits. */
VIP_RETURN vipl_cq_try(struct vcq *c, VIP_VI_HANDLE *vh, VIP_BOOLEAN *rq, uint32_t *mask) {
  VIP_RETURN r = cq_try(c, vh, rq, mask);
  *mask |= cq_bits(c, 0);
  return r;
}
