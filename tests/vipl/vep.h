/* vep.h: one end of a connection for the one-process VIPL tests over both NICs of a private
 * nicd (test_vipl_reconnect, test_vipl_fork_seg): a NIC, a tag, a VI, and registered memory
 * of nbuf buffers of sz bytes followed by nbuf descriptors. */
#ifndef VEP_H
#define VEP_H

#include <stdlib.h>
#include <string.h>

#include "../common/nicd_run.h"
#include "vipl.h"

struct vep {
  VIP_NIC_HANDLE nic;
  VIP_PROTECTION_HANDLE ptag;
  VIP_VI_HANDLE vi;
  uint32_t sz;                  /* bytes per buffer */
  uint8_t *mem;                 /* the buffers, then the descriptors */
  VIP_MEM_HANDLE mh;
  VIP_DESCRIPTOR *d;
};

static inline VIP_RETURN vep_vi(struct vep *e) {
  VIP_VI_ATTRIBUTES a = {.ReliabilityLevel = VIP_SERVICE_RELIABLE_DELIVERY, .Ptag = e->ptag,
                         .MaxTransferSize = e->sz};
  return VipCreateVi(e->nic, &a, NULL, NULL, &e->vi);
}

/* NIC nic (0 or 1), a tag and a VI for messages of at most sz bytes: 0, or -1. */
static inline int vep_open(struct vep *e, int nic, uint32_t sz) {
  e->sz = sz;
  if (VipOpenNic(nicd_dev(nic), &e->nic) != VIP_SUCCESS || VipCreatePtag(e->nic, &e->ptag) != VIP_SUCCESS)
    return -1;
  return vep_vi(e) == VIP_SUCCESS ? 0 : -1;
}

/* The registered memory: nbuf buffers and nbuf descriptors, zeroed: 0, or -1. */
static inline int vep_mem(struct vep *e, unsigned nbuf) {
  size_t len = nbuf * (e->sz + sizeof(VIP_DESCRIPTOR));
  len = (len + 4095) & ~(size_t)4095;
  e->mem = aligned_alloc(4096, len);
  if (!e->mem) return -1;
  memset(e->mem, 0, len);
  e->d = (VIP_DESCRIPTOR *)(e->mem + (size_t)nbuf * e->sz);
  VIP_MEM_ATTRIBUTES ma = {.Ptag = e->ptag};
  return VipRegisterMem(e->nic, e->mem, len, &ma, &e->mh) == VIP_SUCCESS ? 0 : -1;
}

/* Descriptor i over buffer i, len bytes. */
static inline VIP_DESCRIPTOR *vep_desc(struct vep *e, int i, uint32_t len) {
  VIP_DESCRIPTOR *d = &e->d[i];
  memset(d, 0, sizeof *d);
  d->CS.SegCount = 1;
  d->CS.Length = len;
  d->DS[0].Local.Data.Address = e->mem + (size_t)i * e->sz;
  d->DS[0].Local.Handle = e->mh;
  d->DS[0].Local.Length = len;
  return d;
}

/* Disconnects, takes what completes, and gives everything back. */
static inline void vep_close(struct vep *e) {
  VipDisconnect(e->vi);
  VIP_DESCRIPTOR *x;
  while (VipSendDone(e->vi, &x) == VIP_SUCCESS || VipRecvDone(e->vi, &x) == VIP_SUCCESS) {}
  VipDestroyVi(e->vi);
  VipDeregisterMem(e->nic, e->mem, e->mh);
  VipDestroyPtag(e->nic, e->ptag);
  VipCloseNic(e->nic);
  free(e->mem);
}

#endif
