/* VIPL: opening and querying a NIC, protection tags, the error callback, and the helpers the
 * other VIPL files share (error codes, reliability levels, timeouts). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vipl_ext.h"
#include "vipl_internal.h"

VIP_RETURN vipl_err(int e) {
  switch (e) {
  case 0: return VIP_SUCCESS;
  case -EAGAIN: return VIP_NOT_DONE;
  case -ETIMEDOUT: return VIP_TIMEOUT;
  case -EINVAL: case -ENODEV: case -ENOENT: return VIP_INVALID_PARAMETER;
  case -EACCES: return VIP_PROTECTION_ERROR;
  case -EBUSY: return VIP_INVALID_STATE;
  default: return VIP_ERROR_RESOURCE;   /* -ENOSPC, -ENOMEM, -EPIPE (NIC gone), ... */
  }
}

int vipl_rel_to_hostif(VIP_RELIABILITY_LEVEL r) {
  if (r == VIP_SERVICE_UNRELIABLE) return HOSTIF_UNRELIABLE;
  if (r == VIP_SERVICE_RELIABLE_DELIVERY) return HOSTIF_RELIABLE_DELIVERY;
  return -1;
}

VIP_RELIABILITY_LEVEL vipl_rel_from_hostif(unsigned r) {
  return r == HOSTIF_RELIABLE_DELIVERY ? VIP_SERVICE_RELIABLE_DELIVERY : VIP_SERVICE_UNRELIABLE;
}

int64_t vipl_timeout_ns(VIP_ULONG ms) {
  if (ms >= VIP_INFINITE) return -1;
  return (int64_t)ms * 1000000;
}

static _Thread_local int open_errno;

int VipxOpenNicErrno(void) { return open_errno; }

VIP_RETURN VipOpenNic(const VIP_CHAR *DeviceName, VIP_NIC_HANDLE *NicHandle) {
  open_errno = EINVAL;
  if (!DeviceName || !NicHandle) return VIP_INVALID_PARAMETER;
  open_errno = ENOMEM;
  *NicHandle = NULL;
  struct vnic *n = calloc(1, sizeof *n);
  if (!n) return VIP_ERROR_RESOURCE;
  /* "/dev/nic0"-style names (as cLAN programs spell devices) mean "nic0". */
  const char *name = DeviceName;
  if (strncmp(name, "/dev/", 5) == 0) name += 5;
  int rc = lnic_open(name, &n->dev);
  open_errno = -rc;
  if (rc) {
    free(n);
    return rc == -EINVAL || rc == -ENODEV ? VIP_INVALID_PARAMETER : VIP_ERROR_RESOURCE;
  }
  n->addr[0] = (uint8_t)(n->dev->node >> 8);
  n->addr[1] = (uint8_t)n->dev->node;
  n->handle = vh_new(VH_NIC, n);
  if (!n->handle) {
    lnic_close(n->dev);
    free(n);
    open_errno = ENOMEM;
    return VIP_ERROR_RESOURCE;
  }
  *NicHandle = n->handle;
  return VIP_SUCCESS;
}

VIP_RETURN VipCloseNic(VIP_NIC_HANDLE NicHandle) {
  struct vnic *n = vh_get(NicHandle, VH_NIC);
  if (!n) return VIP_INVALID_PARAMETER;
  if (n->nvis || n->ncqs) return VIP_INVALID_STATE;   /* destroy VIs and CQs first */
  VIP_RETURN r = vipl_notify_stop(n);   /* the provider thread, if any, ends and is joined */
  if (r != VIP_SUCCESS) return r;
  vh_free(NicHandle);
  lnic_close(n->dev);   /* deregisters what is left, drops the window */
  free(n);
  return VIP_SUCCESS;
}

VIP_RETURN VipQueryNic(VIP_NIC_HANDLE NicHandle, VIP_NIC_ATTRIBUTES *a) {
  struct vnic *n = vh_get(NicHandle, VH_NIC);
  if (!n || !a) return VIP_INVALID_PARAMETER;
  memset(a, 0, sizeof *a);
  snprintf(a->Name, sizeof a->Name, "%s", n->dev->devname);
  a->HardwareVersion = HW_WIN_VERSION;
  a->ProviderVersion = HOSTIF_VERSION;
  a->NicAddressLen = sizeof n->addr;
  a->LocalNicAddress = n->addr;
  a->ThreadSafe = VIP_TRUE;
  a->MaxDiscriminatorLen = 32;
  a->MaxRegisterBytes = (VIP_ULONG)1 << 40;
  a->MaxRegisterRegions = HW_REGIONS;
  a->MaxRegisterBlockBytes = (VIP_ULONG)1 << 40;
  a->MaxVI = HOSTIF_NVI - 1;
  a->MaxDescriptorsPerQueue = NIC_WQ_MAX;
  a->MaxSegmentsPerDesc = HOSTIF_MAXSEG;   /* data segments; an RDMA Write may add its address */
  a->MaxCQ = 1024;
  a->MaxCQEntries = NIC_WQ_MAX;
  a->MaxTransferSize = HOSTIF_MAX_XFER;
  a->NativeMTU = HOSTIF_MAX_PAYLOAD;
  a->MaxPtags = 4096;
  a->ReliabilityLevelSupport = VIP_SERVICE_UNRELIABLE | VIP_SERVICE_RELIABLE_DELIVERY;
  a->RDMAReadSupport = 0;
  return VIP_SUCCESS;
}

VIP_RETURN VipCreatePtag(VIP_NIC_HANDLE NicHandle, VIP_PROTECTION_HANDLE *Ptag) {
  struct vnic *n = vh_get(NicHandle, VH_NIC);
  if (!n || !Ptag) return VIP_INVALID_PARAMETER;
  struct vptag *p = calloc(1, sizeof *p);
  if (!p) return VIP_ERROR_RESOURCE;
  p->nic = n;
  p->tag = lnic_ptag_new();
  p->handle = vh_new(VH_PTAG, p);
  if (!p->handle) {
    free(p);
    return VIP_ERROR_RESOURCE;
  }
  n->nptags++;
  *Ptag = p->handle;
  return VIP_SUCCESS;
}

VIP_RETURN VipDestroyPtag(VIP_NIC_HANDLE NicHandle, VIP_PROTECTION_HANDLE Ptag) {
  struct vnic *n = vh_get(NicHandle, VH_NIC);
  struct vptag *p = vh_get(Ptag, VH_PTAG);
  if (!n || !p || p->nic != n) return VIP_INVALID_PARAMETER;
  if (p->users) return VIP_INVALID_STATE;   /* VIs or memory still carry it */
  vh_free(Ptag);
  n->nptags--;
  free(p);
  return VIP_SUCCESS;
}

VIP_RETURN VipErrorCallback(VIP_NIC_HANDLE NicHandle, VIP_PVOID Context,
                            void (*Handler)(VIP_PVOID, VIP_ERROR_DESCRIPTOR *)) {
  struct vnic *n = vh_get(NicHandle, VH_NIC);
  if (!n) return VIP_INVALID_PARAMETER;
  lnic_lock(n->dev);
  n->err_handler = Handler;
  n->err_ctx = Context;
  lnic_unlock(n->dev);
  return VIP_SUCCESS;
}

void vipl_nic_dead(struct vnic *n) {
  for (unsigned i = 0; i < HOSTIF_NVI; i++) {
    struct lnic_vi *v = n->dev->vi[i];
    if (!v) continue;
    lnic_wq_flush(v, NIC_SQ, HOSTIF_ST_FLUSHED);
    lnic_wq_flush(v, NIC_RQ, HOSTIF_ST_FLUSHED);
  }
  if (n->err_handler && !n->err_reported) {
    n->err_reported = true;
    VIP_ERROR_DESCRIPTOR ed = {.NicHandle = n->handle, .ResourceCode = VIP_RESOURCE_NIC,
                               .ErrorCode = VIP_ERROR_CATASTROPHIC};
    n->err_handler(n->err_ctx, &ed);
  }
}
