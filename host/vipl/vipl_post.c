/* VIPL: posting descriptors and collecting completions. A VIA descriptor is translated into a
 * hostif descriptor (segments keep the caller's addresses; each carries the protection tag
 * from its memory handle, and the NIC checks it against the VI's tag and the region table).
 * Descriptors libnic can tell are malformed complete in order with an error status without
 * reaching the NIC, as the specification has the NIC report them. While a notification is
 * armed on a queue (vipl_notify.c), its Done and Wait calls return VIP_ERROR_RESOURCE; the
 * provider thread takes its completions with vipl_vi_try_done. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "vipl_internal.h"

#define SEG_PTAG(h) ((uint32_t)(h) >> 8)

/* Fills h from d; returns a hostif status for a descriptor refused locally (0 if fine). */
static uint32_t translate(struct vvi *v, VIP_DESCRIPTOR *d, bool send, struct hostif_desc *h) {
  VIP_DESCRIPTOR_SEGMENT *ds = (VIP_DESCRIPTOR_SEGMENT *)((char *)d + offsetof(VIP_DESCRIPTOR, DS));
  unsigned op = d->CS.Control & VIP_CONTROL_OP_MASK;
  unsigned first = 0, nseg = d->CS.SegCount;
  *h = (struct hostif_desc){0};
  if (d->CS.Control & VIP_CONTROL_RESERVED) return HOSTIF_ST_FORMAT;
  if (!send) {
    h->op = HOSTIF_OP_RECV;
  } else if (op == VIP_CONTROL_OP_SENDRECV) {
    h->op = HOSTIF_OP_SEND;
  } else if (op == VIP_CONTROL_OP_RDMAWRITE) {
    if (!v->attrs.EnableRdmaWrite) return HOSTIF_ST_PROTECTION;
    if (nseg < 1) return HOSTIF_ST_FORMAT;
    h->op = HOSTIF_OP_RDMA_WRITE;
    h->rdma_addr = ds[0].Remote.Data.AddressBits;
    h->rdma_ptag = HOSTIF_RDMA_HANDLE(SEG_PTAG(ds[0].Remote.Handle), (ds[0].Remote.Handle & 0xffu) + 1);
    first = 1;
  } else {
    return HOSTIF_ST_FORMAT;   /* RDMA Read is not supported; the reserved op is malformed */
  }
  if (nseg - first > HOSTIF_MAXSEG) return HOSTIF_ST_FORMAT;
  uint64_t total = 0;
  for (unsigned i = first; i < nseg; i++) {
    struct hostif_seg *s = &h->seg[h->nseg++];
    s->addr = ds[i].Local.Data.AddressBits;
    s->len = ds[i].Local.Length;
    s->ptag = SEG_PTAG(ds[i].Local.Handle);
    total += s->len;
  }
  if (total > v->attrs.MaxTransferSize || total > HOSTIF_MAX_XFER) return HOSTIF_ST_LENGTH;
  if (send && d->CS.Length != total) return HOSTIF_ST_FORMAT;
  h->length = (uint32_t)total;
  if (send && (d->CS.Control & VIP_CONTROL_IMMEDIATE)) {
    h->flags |= HOSTIF_F_IMMEDIATE;
    h->imm = d->CS.ImmediateData;
  }
  return 0;
}

static VIP_RETURN post(VIP_VI_HANDLE vh, VIP_DESCRIPTOR *d, bool send) {
  struct vvi *v = vh_get(vh, VH_VI);
  if (!v || !d || ((uintptr_t)d % VIP_DESCRIPTOR_ALIGNMENT)) return VIP_INVALID_PARAMETER;
  struct hostif_desc h;
  uint32_t local = translate(v, d, send, &h);
  d->CS.Status = 0;
  struct lnic_dev *dev = v->nic->dev;
  lnic_lock(dev);
  if (!send && !local && vipl_vi_broken(v)) local = HOSTIF_ST_FLUSHED;   /* nothing would take it */
  int rc = lnic_post(v->lv, send ? NIC_SQ : NIC_RQ, &h, d, local);
  if (rc == -EPIPE) vipl_nic_dead(v->nic);
  lnic_unlock(dev);
  return vipl_err(rc);
}

VIP_RETURN VipPostSend(VIP_VI_HANDLE ViHandle, VIP_DESCRIPTOR *DescriptorPtr, VIP_MEM_HANDLE mh) {
  (void)mh;   /* the descriptor is copied into the NIC by PIO: it needs no registration */
  return post(ViHandle, DescriptorPtr, true);
}

VIP_RETURN VipPostRecv(VIP_VI_HANDLE ViHandle, VIP_DESCRIPTOR *DescriptorPtr, VIP_MEM_HANDLE mh) {
  (void)mh;
  return post(ViHandle, DescriptorPtr, false);
}

/* One attempt: progress, take the oldest completion. Device lock held. */
VIP_RETURN vipl_vi_try_done(struct vvi *v, int q, VIP_DESCRIPTOR **out, uint32_t *l1mask) {
  *l1mask = lnic_drain_all(v->nic->dev);
  vipl_vi_broken(v);
  lnic_progress(v->lv, q);
  struct lnic_cqe c;
  if (lnic_take(v->lv, q, &c) == 0) {
    *out = c.cookie;
    return VIP_SUCCESS;
  }
  if (lnic_wq_outstanding(v->lv, q) && lnic_is_dead(v->nic->dev)) {
    vipl_nic_dead(v->nic);   /* flushes: the descriptors complete with an error status */
    if (lnic_take(v->lv, q, &c) == 0) {
      *out = c.cookie;
      return VIP_SUCCESS;
    }
  }
  if (lnic_is_dead(v->nic->dev)) return VIP_ERROR_RESOURCE;
  return VIP_NOT_DONE;
}

static VIP_RETURN done(VIP_VI_HANDLE vh, int q, VIP_DESCRIPTOR **out) {
  struct vvi *v = vh_get(vh, VH_VI);
  if (!v || !out) return VIP_INVALID_PARAMETER;
  *out = NULL;
  uint32_t l1mask;
  lnic_lock(v->nic->dev);
  VIP_RETURN r = vipl_notify_armed(&v->notify[q]) ? VIP_ERROR_RESOURCE
                                                  : vipl_vi_try_done(v, q, out, &l1mask);
  lnic_unlock(v->nic->dev);
  return r;
}

/* Lost wake-ups (another thread took the signal) cost at most one slice. */
#define WAIT_SLICE_NS 5000000

static VIP_RETURN wait_q(VIP_VI_HANDLE vh, int q, VIP_ULONG ms, VIP_DESCRIPTOR **out) {
  struct vvi *v = vh_get(vh, VH_VI);
  if (!v || !out) return VIP_INVALID_PARAMETER;
  *out = NULL;
  int64_t timeout = vipl_timeout_ns(ms);
  uint64_t start = lnic_now_ns();
  for (;;) {
    uint32_t l1mask;
    lnic_lock(v->nic->dev);
    /* A notification armed meanwhile takes the queue: this wait ends within a slice. */
    VIP_RETURN r = vipl_notify_armed(&v->notify[q]) ? VIP_ERROR_RESOURCE
                                                    : vipl_vi_try_done(v, q, out, &l1mask);
    lnic_unlock(v->nic->dev);
    if (r != VIP_NOT_DONE) return r;
    uint64_t waited = lnic_now_ns() - start;
    if (timeout >= 0 && waited >= (uint64_t)timeout) return VIP_TIMEOUT;
    int64_t slice = WAIT_SLICE_NS;
    if (timeout >= 0 && (uint64_t)timeout - waited < (uint64_t)slice)
      slice = (int64_t)((uint64_t)timeout - waited);
    uint32_t mine = q == NIC_SQ ? HOSTIF_SIG_SQ(v->lv->idx) : HOSTIF_SIG_RQ(v->lv->idx);
    int rc = lnic_wait(v->nic->dev, mine | l1mask, slice);
    if (rc == -EPIPE) continue;   /* vipl_vi_try_done reports it (after flushing) */
  }
}

VIP_RETURN VipSendDone(VIP_VI_HANDLE ViHandle, VIP_DESCRIPTOR **DescriptorPtr) {
  return done(ViHandle, NIC_SQ, DescriptorPtr);
}
VIP_RETURN VipRecvDone(VIP_VI_HANDLE ViHandle, VIP_DESCRIPTOR **DescriptorPtr) {
  return done(ViHandle, NIC_RQ, DescriptorPtr);
}
VIP_RETURN VipSendWait(VIP_VI_HANDLE ViHandle, VIP_ULONG Timeout, VIP_DESCRIPTOR **DescriptorPtr) {
  return wait_q(ViHandle, NIC_SQ, Timeout, DescriptorPtr);
}
VIP_RETURN VipRecvWait(VIP_VI_HANDLE ViHandle, VIP_ULONG Timeout, VIP_DESCRIPTOR **DescriptorPtr) {
  return wait_q(ViHandle, NIC_RQ, Timeout, DescriptorPtr);
}
