/* VIPL: notification (VipSendNotify, VipRecvNotify, VipCQNotify). A Notify arms a handler for
 * the next completion of a work queue or CQ and returns at once. Each NIC has a provider thread,
 * started at its first Notify (programs that never call Notify have none, and their calls only
 * look at one word, vipl_notify_armed), that waits on the armed queues' signal bits in slices
 * of 5 ms, as VipRecvWait and VipCQWait do. When an armed queue has a completion the thread
 * takes it under the device lock exactly as VipSendDone/VipRecvDone (VipCQDone for a CQ)
 * would, disarms the notification (one shot: the program calls Notify again for the next),
 * drops the lock and calls the handler. So a broken connection or a dead nicd delivers the
 * flushed descriptors (vipl_break.c), and a handler may call VIPL, re-arm, post or destroy.
 * While armed, the queue's (CQ's) Done and Wait return VIP_ERROR_RESOURCE, and so does a second
 * Notify: a queue has one taker at a time. VipDestroyVi first stops deliveries to the VI and
 * waits for a handler of it running on the thread to return (unless the handler itself
 * destroys it), so the VI is never torn down under its handler; it drops the notifications
 * when it succeeds and keeps them when it fails. VipDestroyCQ likewise (a CQ it destroys has
 * no members). VipCloseNic stops and joins the thread. After fork() the
 * child has no provider thread and none of the parent's notifications: an armed notification
 * and the thread belong to the process id that armed or started them, and the child's first
 * Notify starts its own thread. */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "vipl_internal.h"

#define SLICE_NS 5000000   /* as VipRecvWait: liveness, breaks and lost wake-ups */

/* One handler call, decided under the lock and made without it. */
struct call {
  void (*vi_fn)(VIP_PVOID, VIP_NIC_HANDLE, VIP_VI_HANDLE, VIP_DESCRIPTOR *);
  void (*cq_fn)(VIP_PVOID, VIP_NIC_HANDLE, VIP_VI_HANDLE, VIP_BOOLEAN);
  void *ctx;
  VIP_NIC_HANDLE nic;
  VIP_VI_HANDLE vi;
  VIP_DESCRIPTOR *desc;
  VIP_BOOLEAN rq;
  const void *obj;   /* the VI or CQ */
};

bool vipl_notify_armed(struct vnotify *nt) {
  if (!nt->pid) return false;
  if (nt->pid == getpid()) return true;
  nt->pid = 0;   /* armed by the parent before a fork: not this process's */
  return false;
}

static bool thread_here(const struct vnic *n) { return n->nt.pid && n->nt.pid == getpid(); }

/* Lock held: the armed VI queues, round-robin, then the armed CQs (or the other way round
 * after a VI's call, so neither starves the other). Takes one completion into *c and disarms
 * its notification; else ORs the bits to wait on into *mask and tells whether anything is
 * armed. */
static bool take_one(struct vnic *n, struct call *c, uint32_t *mask, bool *armed) {
  static const unsigned nslots = 2 * HOSTIF_NVI;
  for (int pass = 0; pass < 2; pass++) {
    bool cqs = (pass == 0) == (n->nt.rr >= nslots);
    if (!cqs) {
      for (unsigned k = 0; k < nslots; k++) {
        unsigned s = (n->nt.rr % nslots + k) % nslots;
        struct lnic_vi *lv = n->dev->vi[s / 2];
        struct vvi *v = lv ? lv->reap_ctx : NULL;
        int q = (int)(s % 2);
        if (!v || v->notify_hold || !vipl_notify_armed(&v->notify[q])) continue;
        *armed = true;
        uint32_t l1 = 0;
        VIP_DESCRIPTOR *d = NULL;
        VIP_RETURN r = vipl_vi_try_done(v, q, &d, &l1);
        *mask |= l1 | (q == NIC_SQ ? HOSTIF_SIG_SQ(lv->idx) : HOSTIF_SIG_RQ(lv->idx));
        if (r != VIP_SUCCESS) continue;   /* VIP_ERROR_RESOURCE: dead and nothing left */
        *c = (struct call){.vi_fn = v->notify[q].vi_fn, .ctx = v->notify[q].ctx,
                           .nic = n->handle, .vi = v->handle, .desc = d, .obj = v};
        v->notify[q].pid = 0;
        n->nt.rr = nslots + s + 1;   /* CQs first next time, then the VI slots after s */
        return true;
      }
    } else {
      for (struct vcq **pc = &n->nt.cqs; *pc;) {
        struct vcq *q = *pc;
        if (!vipl_notify_armed(&q->notify)) {   /* stale (a fork): unlink */
          *pc = q->notify_next;
          continue;
        }
        *armed = true;
        VIP_VI_HANDLE vh = NULL;
        VIP_BOOLEAN rq = 0;
        uint32_t m = 0;
        VIP_RETURN r = vipl_cq_try(q, &vh, &rq, &m);
        *mask |= m;
        if (r == VIP_SUCCESS) {
          *c = (struct call){.cq_fn = q->notify.cq_fn, .ctx = q->notify.ctx, .nic = n->handle,
                             .vi = vh, .rq = rq, .obj = q};
          q->notify.pid = 0;
          *pc = q->notify_next;
          n->nt.rr %= nslots;   /* VI slots first next time */
          return true;
        }
        pc = &q->notify_next;
      }
    }
  }
  return false;
}

static void sleep_cond(struct vnic *n, long ns) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_nsec += ns;
  if (ts.tv_nsec >= 1000000000) ts.tv_sec++, ts.tv_nsec -= 1000000000;
  pthread_cond_timedwait(&n->nt.wake, &n->dev->lock, &ts);
}

static void *provider_main(void *arg) {
  struct vnic *n = arg;
  struct lnic_dev *dev = n->dev;
  lnic_lock(dev);
  while (!n->nt.stop) {
    struct call c;
    uint32_t mask = 0;
    bool armed = false;
    if (take_one(n, &c, &mask, &armed)) {
      n->nt.busy = c.obj;
      lnic_unlock(dev);
      if (c.vi_fn) c.vi_fn(c.ctx, c.nic, c.vi, c.desc);
      else c.cq_fn(c.ctx, c.nic, c.vi, c.rq);
      lnic_lock(dev);
      n->nt.busy = NULL;
      pthread_cond_broadcast(&n->nt.idle);
      continue;
    }
    if (!armed || lnic_is_dead(dev)) {   /* nothing to wait for until the next Notify */
      pthread_cond_wait(&n->nt.wake, &dev->lock);
      continue;
    }
    if (!mask) {   /* a CQ without members */
      sleep_cond(n, SLICE_NS);
      continue;
    }
    n->nt.sleep_bits = mask;
    lnic_unlock(dev);
    lnic_wait_once(dev, mask, SLICE_NS);   /* -EPIPE: take_one flushes and delivers; woken
                                              without its bits (a queue joined a CQ): looks */
    lnic_lock(dev);
    n->nt.sleep_bits = 0;
  }
  lnic_unlock(dev);
  return NULL;
}

void vipl_notify_look(struct vnic *n) {
  if (thread_here(n)) pthread_cond_signal(&n->nt.wake);
}

/* Lock held: the thread of this process runs (started now if need be) and looks again. */
static VIP_RETURN thread_on(struct vnic *n) {
  if (thread_here(n)) {
    pthread_cond_signal(&n->nt.wake);
    return VIP_SUCCESS;
  }
  /* Never started, or started by the parent before a fork: this process has no thread, and
   * the parent's condition variables may have had waiters. */
  pthread_cond_init(&n->nt.wake, NULL);
  pthread_cond_init(&n->nt.idle, NULL);
  n->nt.stop = false;
  n->nt.busy = NULL;
  if (lnic_thread_start(&n->nt.thread, false, provider_main, n) != 0) {
    pthread_cond_destroy(&n->nt.wake);
    pthread_cond_destroy(&n->nt.idle);
    n->nt.pid = 0;
    return VIP_ERROR_RESOURCE;
  }
  n->nt.pid = getpid();
  return VIP_SUCCESS;
}

static VIP_RETURN vi_notify(VIP_VI_HANDLE vh, int q, void *ctx,
                            void (*fn)(VIP_PVOID, VIP_NIC_HANDLE, VIP_VI_HANDLE, VIP_DESCRIPTOR *)) {
  struct vvi *v = vh_get(vh, VH_VI);
  if (!v || !fn) return VIP_INVALID_PARAMETER;
  struct vnic *n = v->nic;
  lnic_lock(n->dev);
  VIP_RETURN r;
  if (vipl_notify_armed(&v->notify[q])) {
    r = VIP_ERROR_RESOURCE;   /* one notification per queue */
  } else if (lnic_is_dead(n->dev) && !lnic_wq_outstanding(v->lv, q) && !lnic_wq_ready(v->lv, q)) {
    r = VIP_ERROR_RESOURCE;   /* as VipRecvWait: nothing will ever complete */
  } else {
    v->notify[q] = (struct vnotify){.vi_fn = fn, .ctx = ctx, .pid = getpid()};
    r = thread_on(n);
    if (r != VIP_SUCCESS) v->notify[q].pid = 0;
  }
  lnic_unlock(n->dev);
  return r;
}

VIP_RETURN VipSendNotify(VIP_VI_HANDLE ViHandle, VIP_PVOID Context,
                         void (*Handler)(VIP_PVOID, VIP_NIC_HANDLE, VIP_VI_HANDLE, VIP_DESCRIPTOR *)) {
  return vi_notify(ViHandle, NIC_SQ, Context, Handler);
}

VIP_RETURN VipRecvNotify(VIP_VI_HANDLE ViHandle, VIP_PVOID Context,
                         void (*Handler)(VIP_PVOID, VIP_NIC_HANDLE, VIP_VI_HANDLE, VIP_DESCRIPTOR *)) {
  return vi_notify(ViHandle, NIC_RQ, Context, Handler);
}

VIP_RETURN VipCQNotify(VIP_CQ_HANDLE CQHandle, VIP_PVOID Context,
                       void (*Handler)(VIP_PVOID, VIP_NIC_HANDLE, VIP_VI_HANDLE, VIP_BOOLEAN)) {
  struct vcq *c = vh_get(CQHandle, VH_CQ);
  if (!c || !Handler) return VIP_INVALID_PARAMETER;
  struct vnic *n = c->nic;
  lnic_lock(n->dev);
  VIP_RETURN r = VIP_SUCCESS;
  if (vipl_notify_armed(&c->notify)) {
    r = VIP_ERROR_RESOURCE;
  } else {
    c->notify = (struct vnotify){.cq_fn = Handler, .ctx = Context, .pid = getpid()};
    bool listed = false;   /* a stale entry a fork left may still be there */
    for (struct vcq *x = n->nt.cqs; x; x = x->notify_next) listed |= x == c;
    if (!listed) {
      c->notify_next = n->nt.cqs;
      n->nt.cqs = c;
    }
    r = thread_on(n);
    if (r != VIP_SUCCESS) c->notify.pid = 0;   /* unlinked at the next scan */
  }
  lnic_unlock(n->dev);
  return r;
}

/* Lock held: until the provider thread no longer runs a handler of obj (not when called from
 * that handler, which would wait for itself). */
static void wait_not_busy(struct vnic *n, const void *obj) {
  if (!thread_here(n) || pthread_equal(pthread_self(), n->nt.thread)) return;
  while (n->nt.busy == obj) pthread_cond_wait(&n->nt.idle, &n->dev->lock);
}

void vipl_notify_vi_hold(struct vvi *v) {
  struct vnic *n = v->nic;
  lnic_lock(n->dev);
  v->notify_hold = true;
  wait_not_busy(n, v);
  lnic_unlock(n->dev);
}

void vipl_notify_vi_release(struct vvi *v) {
  struct vnic *n = v->nic;
  lnic_lock(n->dev);
  v->notify_hold = false;
  if (thread_here(n)) pthread_cond_signal(&n->nt.wake);
  lnic_unlock(n->dev);
}

void vipl_notify_vi_gone(struct vvi *v) {
  struct vnic *n = v->nic;
  lnic_lock(n->dev);
  v->notify[NIC_SQ].pid = v->notify[NIC_RQ].pid = 0;
  lnic_unlock(n->dev);
}

void vipl_notify_cq_gone(struct vcq *c) {
  struct vnic *n = c->nic;
  lnic_lock(n->dev);
  wait_not_busy(n, c);   /* then, the lock held, no call of it can start: unlink it */
  c->notify.pid = 0;
  for (struct vcq **pc = &n->nt.cqs; *pc; pc = &(*pc)->notify_next)
    if (*pc == c) {
      *pc = c->notify_next;
      break;
    }
  lnic_unlock(n->dev);
}

VIP_RETURN vipl_notify_stop(struct vnic *n) {
  lnic_lock(n->dev);
  if (!thread_here(n)) {   /* none, or the parent's (fork) */
    n->nt.pid = 0;
    lnic_unlock(n->dev);
    return VIP_SUCCESS;
  }
  if (pthread_equal(pthread_self(), n->nt.thread)) {
    lnic_unlock(n->dev);
    return VIP_INVALID_STATE;   /* from a handler: the thread cannot join itself */
  }
  n->nt.stop = true;
  pthread_cond_signal(&n->nt.wake);
  lnic_unlock(n->dev);
  pthread_join(n->nt.thread, NULL);
  pthread_cond_destroy(&n->nt.wake);
  pthread_cond_destroy(&n->nt.idle);
  n->nt.pid = 0;
  return VIP_SUCCESS;
}
