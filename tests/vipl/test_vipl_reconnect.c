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
#include "vep.h"
#include "vipl.h"
#include "vtest.h"

VT_GLOBALS;

#define N1 20
#define N2 5
#define SZ 256

static struct vep S, C;
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
  VIP_DESCRIPTOR *d = vep_desc(&C, slot, SZ), *got;
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
  CHECK(vep_open(&S, 0, SZ) == 0 && vep_mem(&S, N1 + N2 + 1) == 0 &&
        vep_open(&C, 1, SZ) == 0 && vep_mem(&C, N1 + N2 + 1) == 0);
  for (int i = 0; i < N1; i++) CHECK_EQ(VipPostRecv(S.vi, vep_desc(&S, i, SZ), S.mh), VIP_SUCCESS);
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
  for (int i = N1; i < N1 + N2; i++) CHECK_EQ(VipPostRecv(S.vi, vep_desc(&S, i, SZ), S.mh), VIP_SUCCESS);
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
  vep_close(&C);
  vep_close(&S);
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
