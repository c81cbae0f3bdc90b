/* VIPL: VIs. Creating one claims an entry of the NIC's VI table through libnic and hooks
 * completion reaping, so each VIA descriptor's control segment is written the moment its
 * completion is seen (programs that poll CS.Status directly work too). VipxSetViOwner hands
 * an entry to another process (vipl_ext.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vipl_ext.h"
#include "vipl_internal.h"

static uint32_t vip_status(const struct lnic_cqe *c) {
  uint32_t s = VIP_STATUS_DONE;
  switch (c->op) {
  case HOSTIF_OP_RECV: s |= VIP_STATUS_OP_RECEIVE; break;
  case HOSTIF_OP_RDMA_WRITE: s |= VIP_STATUS_OP_RDMA_WRITE; break;
  default: s |= VIP_STATUS_OP_SEND; break;
  }
  switch (c->status) {
  case HOSTIF_ST_DONE: break;
  case HOSTIF_ST_PROTECTION: s |= VIP_STATUS_PROTECTION_ERROR; break;   /* a local fault */
  case HOSTIF_ST_RDMA_PROT: s |= VIP_STATUS_RDMA_PROT_ERROR; break;      /* the peer refused */
  case HOSTIF_ST_LENGTH: s |= VIP_STATUS_LENGTH_ERROR; break;
  case HOSTIF_ST_FORMAT: s |= VIP_STATUS_FORMAT_ERROR; break;
  case HOSTIF_ST_DISCONNECTED: s |= VIP_STATUS_TRANSPORT_ERROR; break;
  case HOSTIF_ST_TRANSPORT: s |= VIP_STATUS_TRANSPORT_ERROR; break;      /* the retry limit */
  case HOSTIF_ST_FLUSHED: s |= VIP_STATUS_DESC_FLUSHED_ERROR; break;
  case HOSTIF_ST_REMOTE: s |= VIP_STATUS_REMOTE_DESC_ERROR; break;
  default: s |= VIP_STATUS_FORMAT_ERROR; break;
  }
  if (c->op == HOSTIF_OP_RECV && (c->flags & HOSTIF_F_IMMEDIATE)) s |= VIP_STATUS_IMMEDIATE;
  return s;
}

/* Called by libnic, device lock held, for every completion in queue order. */
static void reap_hook(void *ctx, const struct lnic_cqe *c) {
  struct vvi *v = ctx;
  VIP_DESCRIPTOR *d = c->cookie;
  int q = c->op == HOSTIF_OP_RECV ? NIC_RQ : NIC_SQ;
  v->completed[q]++;
  if (!d) return;
  d->CS.Length = c->len;
  if (c->op == HOSTIF_OP_RECV && (c->flags & HOSTIF_F_IMMEDIATE)) d->CS.ImmediateData = c->imm;
  __atomic_store_n(&d->CS.Status, vip_status(c), __ATOMIC_RELEASE);   /* last, as a NIC would */
}

/* What the NIC enforces of the attributes on incoming work: RDMA Writes may target the VI. */
static void vi_set_flags(struct vvi *v) {
  volatile struct hostif_vi *e = lnic_hostif_vi(v->nic->dev, v->lv->idx);
  __atomic_store_n(&e->flags, v->attrs.EnableRdmaWrite ? HOSTIF_VI_F_RDMA_WRITE : 0u, __ATOMIC_RELEASE);
}

/* Device lock held: the VI's queues join their CQs (cq[0] send, cq[1] receive; NULL: none). */
static void cq_attach(struct vvi *v, struct vcq *const cq[2]) {
  for (int q = 0; q < 2; q++)
    if (cq[q]) vipl_cq_join(cq[q], v, q);
}

VIP_RETURN VipCreateVi(VIP_NIC_HANDLE NicHandle, VIP_VI_ATTRIBUTES *ViAttribs,
                       VIP_CQ_HANDLE SendCQHandle, VIP_CQ_HANDLE RecvCQHandle,
                       VIP_VI_HANDLE *ViHandle) {
  struct vnic *n = vh_get(NicHandle, VH_NIC);
  if (!n || !ViAttribs || !ViHandle) return VIP_INVALID_PARAMETER;
  *ViHandle = NULL;
  struct vptag *p = vh_get(ViAttribs->Ptag, VH_PTAG);
  if (!p || p->nic != n) return VIP_INVALID_PTAG;
  int rel = vipl_rel_to_hostif(ViAttribs->ReliabilityLevel);
  if (rel < 0) return VIP_INVALID_RELIABILITY_LEVEL;
  if (ViAttribs->MaxTransferSize > HOSTIF_MAX_XFER) return VIP_INVALID_MTU;
  if (ViAttribs->EnableRdmaRead) return VIP_INVALID_RDMAREAD;
  struct vcq *cq[2] = {NULL, NULL};
  if (SendCQHandle && !(cq[NIC_SQ] = vh_get(SendCQHandle, VH_CQ))) return VIP_INVALID_PARAMETER;
  if (RecvCQHandle && !(cq[NIC_RQ] = vh_get(RecvCQHandle, VH_CQ))) return VIP_INVALID_PARAMETER;
  for (int q = 0; q < 2; q++)
    if (cq[q] && (cq[q]->nic != n || cq[q]->nmem >= VCQ_MAX_MEMBERS)) return VIP_INVALID_PARAMETER;
  struct vvi *v = calloc(1, sizeof *v);
  if (!v) return VIP_ERROR_RESOURCE;
  int rc = lnic_vi_create(n->dev, p->tag, (uint32_t)rel, &v->lv);
  if (rc) {
    free(v);
    return vipl_err(rc);
  }
  v->handle = vh_new(VH_VI, v);
  if (!v->handle) {
    lnic_vi_destroy(v->lv, true);
    free(v);
    return VIP_ERROR_RESOURCE;
  }
  v->nic = n;
  v->ptag = p;
  v->attrs = *ViAttribs;
  vi_set_flags(v);
  if (!v->attrs.MaxTransferSize) v->attrs.MaxTransferSize = HOSTIF_MAX_XFER;
  lnic_lock(n->dev);
  v->lv->reap = reap_hook;
  v->lv->reap_ctx = v;
  cq_attach(v, cq);
  p->users++;
  n->nvis++;
  lnic_unlock(n->dev);
  *ViHandle = v->handle;
  return VIP_SUCCESS;
}

VIP_RETURN VipDestroyVi(VIP_VI_HANDLE ViHandle) {
  struct vvi *v = vh_get(ViHandle, VH_VI);
  if (!v) return VIP_INVALID_PARAMETER;
  struct vnic *n = v->nic;
  /* Leave the CQs first: a thread in VipCQWait walks their members under the device lock and
   * must never reach the libnic VI that lnic_vi_destroy frees. */
  struct vcq *cq[2] = {v->cq[0], v->cq[1]};
  VIP_RETURN pr = vipl_peer_stop(v);   /* a pending peer request ends first (vipl_peer.c) */
  if (pr != VIP_SUCCESS) return pr;
  vipl_notify_vi_hold(v);   /* no handler of it runs from here on (vipl_notify.c) */
  lnic_lock(n->dev);
  vipl_cq_detach(v);
  lnic_unlock(n->dev);
  int rc = lnic_vi_destroy(v->lv, false);
  if (rc == -EBUSY && lnic_alive(n->dev) != 0) rc = lnic_vi_destroy(v->lv, true);
  if (rc) {                      /* connected, or descriptors outstanding: VIP_INVALID_STATE */
    lnic_lock(n->dev);
    cq_attach(v, cq);
    lnic_unlock(n->dev);
    vipl_notify_vi_release(v);   /* its notifications stay armed */
    return vipl_err(rc);
  }
  vh_free(ViHandle);
  vipl_notify_vi_gone(v);
  vipl_peer_gone(v);
  lnic_lock(n->dev);
  v->ptag->users--;
  n->nvis--;
  lnic_unlock(n->dev);
  free(v);
  return VIP_SUCCESS;
}

static VIP_VI_STATE vi_state(struct vvi *v) {
  if (lnic_alive(v->nic->dev) != 0) return VIP_STATE_ERROR;
  switch (lnic_vi_state(v->lv)) {
  case HOSTIF_VI_CONNECTED: return VIP_STATE_CONNECTED;
  case HOSTIF_VI_ERROR: return VIP_STATE_ERROR;
  default:
    return v->pending_connect || vipl_peer_pending(v) ? VIP_STATE_CONNECT_PENDING : VIP_STATE_IDLE;
  }
}

VIP_RETURN VipQueryVi(VIP_VI_HANDLE ViHandle, VIP_VI_STATE *State, VIP_VI_ATTRIBUTES *ViAttribs,
                      VIP_BOOLEAN *ViSendQEmpty, VIP_BOOLEAN *ViRecvQEmpty) {
  struct vvi *v = vh_get(ViHandle, VH_VI);
  if (!v) return VIP_INVALID_PARAMETER;
  lnic_lock(v->nic->dev);
  lnic_progress(v->lv, NIC_SQ);
  lnic_progress(v->lv, NIC_RQ);
  if (State) *State = vi_state(v);
  if (ViAttribs) *ViAttribs = v->attrs;
  if (ViSendQEmpty) *ViSendQEmpty = lnic_wq_outstanding(v->lv, NIC_SQ) + lnic_wq_ready(v->lv, NIC_SQ) == 0;
  if (ViRecvQEmpty) *ViRecvQEmpty = lnic_wq_outstanding(v->lv, NIC_RQ) + lnic_wq_ready(v->lv, NIC_RQ) == 0;
  lnic_unlock(v->nic->dev);
  return VIP_SUCCESS;
}

VIP_RETURN VipxSetViOwner(VIP_VI_HANDLE ViHandle, VIP_ULONG Pid) {
  struct vvi *v = vh_get(ViHandle, VH_VI);
  if (!v || Pid == 0 || Pid > 0x7fffffffu) return VIP_INVALID_PARAMETER;
  switch (lnic_vi_set_owner(v->lv, (uint32_t)Pid)) {
  case 0: return VIP_SUCCESS;
  case -EPIPE: return VIP_INVALID_STATE;
  default: return VIP_INVALID_PARAMETER;
  }
}

/* Attributes may change while the VI is idle: the reliability level, the transfer size and
 * RDMA Write; the protection tag while no descriptor is outstanding. */
VIP_RETURN VipSetViAttributes(VIP_VI_HANDLE ViHandle, VIP_VI_ATTRIBUTES *a) {
  struct vvi *v = vh_get(ViHandle, VH_VI);
  if (!v || !a) return VIP_INVALID_PARAMETER;
  struct vptag *p = vh_get(a->Ptag, VH_PTAG);
  if (!p || p->nic != v->nic) return VIP_INVALID_PTAG;
  int rel = vipl_rel_to_hostif(a->ReliabilityLevel);
  if (rel < 0) return VIP_INVALID_RELIABILITY_LEVEL;
  if (a->MaxTransferSize > HOSTIF_MAX_XFER) return VIP_INVALID_MTU;
  if (a->EnableRdmaRead) return VIP_INVALID_RDMAREAD;
  struct lnic_dev *d = v->nic->dev;
  lnic_lock(d);
  VIP_RETURN r = VIP_SUCCESS;
  if (lnic_vi_state(v->lv) != HOSTIF_VI_IDLE || lnic_wq_outstanding(v->lv, NIC_SQ) ||
      lnic_wq_outstanding(v->lv, NIC_RQ)) {
    r = VIP_INVALID_STATE;
  } else {
    volatile struct hostif_vi *e = lnic_hostif_vi(d, v->lv->idx);
    e->ptag = p->tag;
    e->reliability = (uint32_t)rel;
    v->lv->ptag = p->tag;
    v->lv->reliability = (uint32_t)rel;
    v->ptag->users--;
    p->users++;
    v->ptag = p;
    v->attrs = *a;
    vi_set_flags(v);
    if (!v->attrs.MaxTransferSize) v->attrs.MaxTransferSize = HOSTIF_MAX_XFER;
  }
  lnic_unlock(d);
  return r;
}
