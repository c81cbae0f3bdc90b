/* VIPL memory registration. A VIP_MEM_HANDLE is (protection tag << 8 | registration id): the
 * tag travels in every descriptor segment (hostif_seg.ptag) and, for RDMA Write, a peer's
 * handle tells the NIC which tag and which registration (key id + 1) the remote memory must
 * be; EnableRdmaWrite opens the registration's regions to remote RDMA Writes. */
#include <errno.h>
#include <string.h>

#include "vipl_ext.h"
#include "vipl_internal.h"

static int mr_lookup(struct vnic *n, VIP_PVOID addr, VIP_MEM_HANDLE h) {
  unsigned id = h & 0xffu;
  const struct lnic_mr *m = &n->dev->mr[id];
  if (!m->used || !n->mr[id].ptag || m->ptag != (h >> 8)) return -1;
  if ((uintptr_t)addr < m->addr || (uintptr_t)addr - m->addr >= m->len) return -1;
  return (int)id;
}

VIP_RETURN VipRegisterMem(VIP_NIC_HANDLE NicHandle, VIP_PVOID VirtualAddress, VIP_ULONG Length,
                          VIP_MEM_ATTRIBUTES *MemAttribs, VIP_MEM_HANDLE *MemoryHandle) {
  struct vnic *n = vh_get(NicHandle, VH_NIC);
  if (!n || !VirtualAddress || !Length || !MemAttribs || !MemoryHandle)
    return VIP_INVALID_PARAMETER;
  struct vptag *p = vh_get(MemAttribs->Ptag, VH_PTAG);
  if (!p || p->nic != n) return VIP_INVALID_PTAG;
  if (MemAttribs->EnableRdmaRead) return VIP_INVALID_RDMAREAD;
  int id = lnic_mem_register(n->dev, VirtualAddress, Length, p->tag);
  if (id < 0) return vipl_err(id);
  lnic_mem_set_rdma(n->dev, id, MemAttribs->EnableRdmaWrite != 0);
  lnic_lock(n->dev);
  n->mr[id].ptag = p;
  n->mr[id].rdma_write = MemAttribs->EnableRdmaWrite != 0;
  p->users++;
  lnic_unlock(n->dev);
  *MemoryHandle = (p->tag << 8) | (uint32_t)id;
  return VIP_SUCCESS;
}

/* Ends this process's registration: drop is lnic_mem_deregister, or lnic_mem_forget. */
static VIP_RETURN release(VIP_NIC_HANDLE NicHandle, VIP_PVOID VirtualAddress,
                          VIP_MEM_HANDLE MemoryHandle, int (*drop)(struct lnic_dev *, int)) {
  struct vnic *n = vh_get(NicHandle, VH_NIC);
  if (!n) return VIP_INVALID_PARAMETER;
  lnic_lock(n->dev);
  int id = mr_lookup(n, VirtualAddress, MemoryHandle);
  struct vptag *p = id >= 0 ? n->mr[id].ptag : NULL;
  if (id >= 0) {
    n->mr[id].ptag = NULL;
    p->users--;
  }
  lnic_unlock(n->dev);
  if (id < 0) return VIP_INVALID_PARAMETER;
  return vipl_err(drop(n->dev, id));
}

VIP_RETURN VipDeregisterMem(VIP_NIC_HANDLE NicHandle, VIP_PVOID VirtualAddress,
                            VIP_MEM_HANDLE MemoryHandle) {
  return release(NicHandle, VirtualAddress, MemoryHandle, lnic_mem_deregister);
}

VIP_RETURN VipxForgetMem(VIP_NIC_HANDLE NicHandle, VIP_PVOID VirtualAddress,
                         VIP_MEM_HANDLE MemoryHandle) {
  return release(NicHandle, VirtualAddress, MemoryHandle, lnic_mem_forget);
}

VIP_RETURN VipQueryMem(VIP_NIC_HANDLE NicHandle, VIP_PVOID Address, VIP_MEM_HANDLE MemHandle,
                       VIP_MEM_ATTRIBUTES *MemAttribs) {
  struct vnic *n = vh_get(NicHandle, VH_NIC);
  if (!n || !MemAttribs) return VIP_INVALID_PARAMETER;
  lnic_lock(n->dev);
  int id = mr_lookup(n, Address, MemHandle);
  if (id >= 0) {
    MemAttribs->Ptag = n->mr[id].ptag->handle;
    MemAttribs->EnableRdmaWrite = n->mr[id].rdma_write;
    MemAttribs->EnableRdmaRead = VIP_FALSE;
  }
  lnic_unlock(n->dev);
  return id >= 0 ? VIP_SUCCESS : VIP_INVALID_PARAMETER;
}

/* The RDMA Write permission may change; the tag is part of the handle, so it may not. */
VIP_RETURN VipSetMemAttributes(VIP_NIC_HANDLE NicHandle, VIP_PVOID Address,
                               VIP_MEM_HANDLE MemHandle, VIP_MEM_ATTRIBUTES *MemAttribs) {
  struct vnic *n = vh_get(NicHandle, VH_NIC);
  if (!n || !MemAttribs) return VIP_INVALID_PARAMETER;
  if (MemAttribs->EnableRdmaRead) return VIP_INVALID_RDMAREAD;
  VIP_RETURN r = VIP_SUCCESS;
  lnic_lock(n->dev);
  int id = mr_lookup(n, Address, MemHandle);
  if (id < 0) r = VIP_INVALID_PARAMETER;
  else if (vh_get(MemAttribs->Ptag, VH_PTAG) != n->mr[id].ptag) r = VIP_ERROR_NOT_SUPPORTED;
  else n->mr[id].rdma_write = MemAttribs->EnableRdmaWrite != 0;
  lnic_unlock(n->dev);
  if (r == VIP_SUCCESS) lnic_mem_set_rdma(n->dev, id, MemAttribs->EnableRdmaWrite != 0);
  return r;
}
