/* A VI connected again after a break (issue 16, defect 1's flush): the receiver had 20
 * receives posted (the ring not full, so the NIC's stale index points at a flushed slot),
 * took 3 messages, and its peer disconnected:
 * the other 17 complete flushed. Both VIs then disconnect, post afresh and connect to each
 * other again: the new messages must land in the new receives, whole and in order (the NIC's
 * ring indices were pointed past the slots the flush gave back), never in flushed ones. One
 * process, both NICs; the accepting side runs in a thread. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "../common/nicd_run.h"
#include "vaddr.h"
#include "vipl.h"
#include "vtest.h"

VT_GLOBALS;

#define N1 20
#define N2 5
#define SZ 256

struct ep {
  VIP_NIC_HANDLE nic;
  VIP_PROTECTION_HANDLE ptag;
  VIP_VI_HANDLE vi;
  uint8_t *mem;                 /* N1 + N2 + 1 buffers */
  VIP_MEM_HANDLE mh;
  VIP_DESCRIPTOR *d;
};

static int ep_open(struct ep *e, int nic) {
  if (VipOpenNic(nicd_dev(nic), &e->nic) != VIP_SUCCESS || VipCreatePtag(e->nic, &e->ptag) != VIP_SUCCESS)
    return -1;
  VIP_VI_ATTRIBUTES a = {.ReliabilityLevel = VIP_SERVICE_RELIABLE_DELIVERY, .Ptag = e->ptag, .MaxTransferSize = SZ};
  if (VipCreateVi(e->nic, &a, NULL, NULL, &e->vi) != VIP_SUCCESS) return -1;
  size_t len = (N1 + N2 + 1) * (SZ + sizeof(VIP_DESCRIPTOR));
  e->mem = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);
  memset(e->mem, 0, len);
  e->d = (VIP_DESCRIPTOR *)(e->mem + (N1 + N2 + 1) * SZ);
  VIP_MEM_ATTRIBUTES ma = {.Ptag = e->ptag};
  return VipRegisterMem(e->nic, e->mem, len, &ma, &e->mh) == VIP_SUCCESS ? 0 : -1;
}

static VIP_DESCRIPTOR *desc(struct ep *e, int i, uint32_t len) {
  VIP_DESCRIPTOR *d = &e->d[i];
  memset(d, 0, sizeof *d);
  d->CS.SegCount = 1;
  d->CS.Length = len;
  d->DS[0].Local.Data.Address = e->mem + i * SZ;
  d->DS[0].Local.Handle = e->mh;
  d->DS[0].Local.Length = len;
  return d;
}

static struct ep S, C;
static VIP_RETURN accepted;

static void *acceptor(void *arg) {
  unsigned disc = (unsigned)(uintptr_t)arg;
  uint8_t la[64], ra[64];
  vaddr_set((VIP_NET_ADDRESS *)la, 0, disc);
  VIP_CONN_HANDLE c;
  VIP_VI_ATTRIBUTES rat;
  accepted = VipConnectWait(S.nic, (VIP_NET_ADDRESS *)la, 20000, (VIP_NET_ADDRESS *)ra, &rat, &c);
  if (accepted == VIP_SUCCESS) accepted = VipConnectAccept(c, S.vi);
  return NULL;
}

static bool connect_pair(unsigned disc) {
  pthread_t t;
  pthread_create(&t, NULL, acceptor, (void *)(uintptr_t)disc);
  uint8_t la[64], ra[64];
  vaddr_set((VIP_NET_ADDRESS *)la, 1, disc + 1);
  vaddr_set((VIP_NET_ADDRESS *)ra, 0, disc);
  VIP_VI_ATTRIBUTES rat;
  VIP_RETURN r = VipConnectRequest(C.vi, (VIP_NET_ADDRESS *)la, (VIP_NET_ADDRESS *)ra, 20000, &rat);
  pthread_join(t, NULL);
  return r == VIP_SUCCESS && accepted == VIP_SUCCESS;
}

static bool send_msg(int slot, uint32_t tag) {
  VIP_DESCRIPTOR *d = desc(&C, slot, SZ), *got;
  memset(C.mem + slot * SZ, (int)(tag & 0xff), SZ);
  memcpy(C.mem + slot * SZ, &tag, 4);
  return VipPostSend(C.vi, d, C.mh) == VIP_SUCCESS && VipSendWait(C.vi, 10000, &got) == VIP_SUCCESS &&
         got == d && got->CS.Status == (VIP_STATUS_DONE | VIP_STATUS_OP_SEND);
}

/* The next receive: the descriptor index, and whether it holds message tag. */
static int recv_msg(uint32_t tag, bool *ok) {
  VIP_DESCRIPTOR *got = NULL;
  *ok = false;
  if (VipRecvWait(S.vi, 10000, &got) != VIP_SUCCESS || !got) return -1;
  int i = (int)(got - S.d);
  uint32_t t;
  memcpy(&t, S.mem + i * SZ, 4);
  *ok = got->CS.Status == (VIP_STATUS_DONE | VIP_STATUS_OP_RECEIVE) && t == tag && got->CS.Length == SZ;
  return i;
}

static void t_reconnect_after_flush(void) {
  CHECK(ep_open(&S, 0) == 0 && ep_open(&C, 1) == 0);
  for (int i = 0; i < N1; i++) CHECK_EQ(VipPostRecv(S.vi, desc(&S, i, SZ), S.mh), VIP_SUCCESS);
  CHECK(connect_pair(0x500));
  bool ok;
  for (uint32_t k = 0; k < 3; k++) {
    CHECK(send_msg(N1 + N2, 100 + k));
    CHECK_EQ(recv_msg(100 + k, &ok), (int)k);
    CHECK(ok);
  }
  CHECK_EQ(VipDisconnect(C.vi), VIP_SUCCESS);
  for (int i = 3; i < N1; i++) {   /* the rest: flushed, in order */
    VIP_DESCRIPTOR *got = NULL;
    CHECK_EQ(VipRecvWait(S.vi, 2000, &got), VIP_SUCCESS);
    CHECK(got == &S.d[i] && (got->CS.Status & VIP_STATUS_DESC_FLUSHED_ERROR));
  }
  CHECK_EQ(VipDisconnect(S.vi), VIP_SUCCESS);
  for (int i = N1; i < N1 + N2; i++) CHECK_EQ(VipPostRecv(S.vi, desc(&S, i, SZ), S.mh), VIP_SUCCESS);
  CHECK(connect_pair(0x600));
  for (uint32_t k = 0; k < N2; k++) {
    CHECK(send_msg(N1 + N2, 200 + k));
    CHECK_EQ(recv_msg(200 + k, &ok), N1 + (int)k);
    CHECK(ok);
  }
  for (int i = 0; i < N1; i++) {   /* the flushed buffers were not written again */
    uint32_t t;
    memcpy(&t, S.mem + i * SZ, 4);
    CHECK(i < 3 ? t == 100u + (uint32_t)i : t == 0);
  }
  struct ep *eps[2] = {&C, &S};
  for (int k = 0; k < 2; k++) {
    VipDisconnect(eps[k]->vi);
    VIP_DESCRIPTOR *x;
    while (VipSendDone(eps[k]->vi, &x) == VIP_SUCCESS || VipRecvDone(eps[k]->vi, &x) == VIP_SUCCESS) {}
    VipDestroyVi(eps[k]->vi);
    VipDeregisterMem(eps[k]->nic, eps[k]->mem, eps[k]->mh);
    VipDestroyPtag(eps[k]->nic, eps[k]->ptag);
    VipCloseNic(eps[k]->nic);
    free(eps[k]->mem);
  }
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  pid_t nicd = nicd_start(2, false);
  CHECK(nicd > 0);
  if (nicd <= 0) return vt_summary();
  RUN(t_reconnect_after_flush);
  nicd_stop(nicd, false);
  return vt_summary();
}
