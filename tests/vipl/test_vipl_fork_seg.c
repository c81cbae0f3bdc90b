/* A fork child's exit and its parent's registered memory: a region's segment is mapped by the
 * NIC (nicd) by its name the first time a DMA touches it, so a name unlinked before that leaves
 * a valid region the NIC cannot reach. The server here does what a SOVIA listener shared by
 * fork() may do with a request it gives back: registers memory, makes a VI with its
 * receives posted, takes the connection request, passes it back to nicd, flushes and destroys
 * the idle VI (the NIC never touched the memory); then forks a child that exits at once
 * (exit(): libnic's atexit handler runs in the child); then makes a new VI on the same memory,
 * takes the request again, accepts it, and the two sides exchange messages. Before the fix, the
 * child's exit unlinked the parent's segment name: the client's first send completed with
 * VIP_STATUS_REMOTE_DESC_ERROR (the server NIC's host DMA failed: NACK "protection") and the
 * server's send with VIP_STATUS_PROTECTION_ERROR. One process, both NICs; the accepting side
 * runs in a thread. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/nicd_run.h"
#include "vaddr.h"
#include "vep.h"
#include "vipl.h"
#include "vipl_ext.h"
#include "vtest.h"

VT_GLOBALS;

#define NR 8
#define SZ 256
#define DISC 0x700

static struct vep S, C;
static VIP_RETURN requested;

static void *requester(void *arg) {
  (void)arg;
  uint8_t la[64], ra[64];
  vaddr_set((VIP_NET_ADDRESS *)la, 1, DISC + 1);
  vaddr_set((VIP_NET_ADDRESS *)ra, 0, DISC);
  VIP_VI_ATTRIBUTES rat;
  requested = VipConnectRequest(C.vi, (VIP_NET_ADDRESS *)la, (VIP_NET_ADDRESS *)ra, 20000, &rat);
  return NULL;
}

static VIP_RETURN wait_request(VIP_CONN_HANDLE *ch) {
  uint8_t la[64], ra[64];
  vaddr_set((VIP_NET_ADDRESS *)la, 0, DISC);
  VIP_VI_ATTRIBUTES rat;
  return VipConnectWait(S.nic, (VIP_NET_ADDRESS *)la, 20000, (VIP_NET_ADDRESS *)ra, &rat, ch);
}

static void t_fork_child_exit(void) {
  CHECK(vep_open(&S, 0, SZ) == 0 && vep_mem(&S, NR + 1) == 0 && vep_open(&C, 1, SZ) == 0);
  pthread_t t;
  pthread_create(&t, NULL, requester, NULL);
  /* The request is taken with receives posted, and given back: the VI never connected. */
  VIP_CONN_HANDLE ch;
  CHECK_EQ(wait_request(&ch), VIP_SUCCESS);
  for (int i = 0; i < NR; i++) CHECK_EQ(VipPostRecv(S.vi, vep_desc(&S, i, SZ), S.mh), VIP_SUCCESS);
  CHECK_EQ(VipxConnectPass(ch), VIP_SUCCESS);
  CHECK_EQ(VipxFlushIdleVi(S.vi), VIP_SUCCESS);
  VIP_DESCRIPTOR *got;
  for (int i = 0; i < NR; i++) CHECK_EQ(VipRecvDone(S.vi, &got), VIP_SUCCESS);
  CHECK_EQ(VipDestroyVi(S.vi), VIP_SUCCESS);
  /* A child that exits (a forking server's worker, done with its connection). */
  pid_t pid = fork();
  if (pid == 0) exit(0);
  int status = -1;
  CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status));
  CHECK(vep_mem(&C, NR + 1) == 0);   /* the client's memory is not the child's to lose */
  for (int i = 0; i < NR; i++) CHECK_EQ(VipPostRecv(C.vi, vep_desc(&C, i, SZ), C.mh), VIP_SUCCESS);
  /* A new VI on the same memory takes the request again and accepts it. */
  CHECK_EQ(vep_vi(&S), VIP_SUCCESS);
  for (int i = 0; i < NR; i++) CHECK_EQ(VipPostRecv(S.vi, vep_desc(&S, i, SZ), S.mh), VIP_SUCCESS);
  CHECK_EQ(wait_request(&ch), VIP_SUCCESS);
  CHECK_EQ(VipConnectAccept(ch, S.vi), VIP_SUCCESS);
  pthread_join(t, NULL);
  CHECK_EQ(requested, VIP_SUCCESS);
  /* client -> server, then server -> client */
  for (int k = 0; k < 2; k++) {
    struct vep *from = k ? &S : &C, *to = k ? &C : &S;
    memset(from->mem + NR * SZ, 'a' + k, SZ);
    VIP_DESCRIPTOR *d = vep_desc(from, NR, SZ);
    CHECK_EQ(VipPostSend(from->vi, d, from->mh), VIP_SUCCESS);
    got = NULL;
    CHECK_EQ(VipSendWait(from->vi, 5000, &got), VIP_SUCCESS);
    CHECK(got == d);
    if (got) {
      if (got->CS.Status != (VIP_STATUS_DONE | VIP_STATUS_OP_SEND))
        fprintf(stderr, "side %d: send status %#x\n", k, (unsigned)got->CS.Status);
      CHECK_EQ(got->CS.Status, VIP_STATUS_DONE | VIP_STATUS_OP_SEND);
    }
    got = NULL;
    VIP_RETURN r = VipRecvWait(to->vi, 5000, &got);
    CHECK_EQ(r, VIP_SUCCESS);
    if (r == VIP_SUCCESS && got) {
      if (got->CS.Status != (VIP_STATUS_DONE | VIP_STATUS_OP_RECEIVE))
        fprintf(stderr, "side %d: receive status %#x\n", k, (unsigned)got->CS.Status);
      CHECK_EQ(got->CS.Status, VIP_STATUS_DONE | VIP_STATUS_OP_RECEIVE);
      CHECK(got->CS.Length == SZ && to->mem[(got - to->d) * SZ] == 'a' + k);
    }
  }
  vep_close(&C);
  vep_close(&S);
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  pid_t nicd = nicd_start(2, false);
  CHECK(nicd > 0);
  if (nicd <= 0) return vt_summary();
  RUN(t_fork_child_exit);
  nicd_stop(nicd, false);
  return vt_summary();
}
