/* RDMA Write protection end to end over nicd (issue 16, defect 5): an RDMA Write lands only
 * where the target allows it, and the sender can tell a remote refusal from its own fault.
 * On a Reliable Delivery connection, NIC 1 writes into memory of a process on NIC 0:
 *   - allowed (VI and memory with EnableRdmaWrite, the handle of that memory): written, DONE;
 *   - into memory registered with EnableRdmaWrite = FALSE, or through a VI created without
 *     it, or into another registration of the same tag than the handle names: refused with
 *     VIP_STATUS_RDMA_PROT_ERROR (no local PROTECTION bit), nothing written;
 *   - a local segment the sender may not read: VIP_STATUS_PROTECTION_ERROR alone. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/child.h"
#include "../common/nicd_run.h"
#include "vaddr.h"
#include "vipl.h"
#include "vtest.h"

VT_GLOBALS;

#define LEN 4096
enum scenario { S_ALLOWED, S_MEM_CLOSED, S_VI_CLOSED, S_OTHER_REGISTRATION, S_LOCAL_FAULT };

struct ep {
  VIP_NIC_HANDLE nic;
  VIP_PROTECTION_HANDLE ptag;
  VIP_VI_HANDLE vi;
  uint8_t *a, *b;            /* two registrations of the same tag */
  VIP_MEM_HANDLE ah, bh;
  VIP_DESCRIPTOR *d;
  VIP_MEM_HANDLE dh;
};

struct target { uint64_t a, b; VIP_MEM_HANDLE ah, bh; };

static int ep_open(struct ep *e, const char *dev, bool vi_rdma, bool a_rdma) {
  if (VipOpenNic(dev, &e->nic) != VIP_SUCCESS || VipCreatePtag(e->nic, &e->ptag) != VIP_SUCCESS)
    return 1;
  VIP_VI_ATTRIBUTES va = {.ReliabilityLevel = VIP_SERVICE_RELIABLE_DELIVERY, .Ptag = e->ptag,
                          .MaxTransferSize = LEN, .EnableRdmaWrite = vi_rdma};
  if (VipCreateVi(e->nic, &va, NULL, NULL, &e->vi) != VIP_SUCCESS) return 2;
  e->a = aligned_alloc(4096, LEN), e->b = aligned_alloc(4096, LEN);
  e->d = aligned_alloc(64, 4096);
  memset(e->a, 0xee, LEN), memset(e->b, 0xee, LEN), memset(e->d, 0, 4096);
  VIP_MEM_ATTRIBUTES ma = {.Ptag = e->ptag, .EnableRdmaWrite = a_rdma};
  if (VipRegisterMem(e->nic, e->a, LEN, &ma, &e->ah) != VIP_SUCCESS) return 3;
  ma.EnableRdmaWrite = VIP_TRUE;
  if (VipRegisterMem(e->nic, e->b, LEN, &ma, &e->bh) != VIP_SUCCESS) return 4;
  if (VipRegisterMem(e->nic, e->d, 4096, &ma, &e->dh) != VIP_SUCCESS) return 5;
  return 0;
}

static void ep_close(struct ep *e) {
  VipDisconnect(e->vi);
  VIP_DESCRIPTOR *x;
  while (VipSendDone(e->vi, &x) == VIP_SUCCESS || VipRecvDone(e->vi, &x) == VIP_SUCCESS) {}
  VipDestroyVi(e->vi);
  VipDeregisterMem(e->nic, e->a, e->ah);
  VipDeregisterMem(e->nic, e->b, e->bh);
  VipDeregisterMem(e->nic, e->d, e->dh);
  VipDestroyPtag(e->nic, e->ptag);
  VipCloseNic(e->nic);
  free(e->a), free(e->b), free(e->d);
}

static bool untouched(const uint8_t *m) {
  for (int i = 0; i < LEN; i++)
    if (m[i] != 0xee) return false;
  return true;
}

static int server(int sc, int to, int from) {
  struct ep e;
  int rc = ep_open(&e, nicd_dev(0), sc != S_VI_CLOSED, sc != S_MEM_CLOSED);
  if (rc) return 10 + rc;
  uint8_t la[64], ra[64];
  vaddr_set((VIP_NET_ADDRESS *)la, 0, 0x200 + sc);
  VIP_CONN_HANDLE c;
  VIP_VI_ATTRIBUTES rat;
  if (VipConnectWait(e.nic, (VIP_NET_ADDRESS *)la, 20000, (VIP_NET_ADDRESS *)ra, &rat, &c) != VIP_SUCCESS ||
      VipConnectAccept(c, e.vi) != VIP_SUCCESS)
    return 20;
  struct target t = {(uint64_t)(uintptr_t)e.a, (uint64_t)(uintptr_t)e.b, e.ah, e.bh};
  if (write(to, &t, sizeof t) != sizeof t) return 21;
  char k;
  if (read(from, &k, 1) != 1) return 22;
  int bad = 0;
  if (sc == S_ALLOWED) {
    for (int i = 0; i < 1000; i++) bad |= e.a[i] != (uint8_t)(i * 7);
    bad |= !untouched(e.b);
  } else {
    bad = !untouched(e.a) || !untouched(e.b);
  }
  if (bad) fprintf(stderr, "server: scenario %d: memory %s\n", sc, sc == S_ALLOWED ? "not written" : "written");
  if (write(to, "k", 1) != 1) return 23;
  ep_close(&e);
  return bad ? 30 : 0;
}

static int client(int sc, int to, int from) {
  struct ep e;
  int rc = ep_open(&e, nicd_dev(1), true, true);
  if (rc) return 10 + rc;
  for (int i = 0; i < 1000; i++) e.b[i] = (uint8_t)(i * 7);   /* the source */
  uint8_t la[64], ra[64];
  vaddr_set((VIP_NET_ADDRESS *)la, 1, 0x300 + sc);
  vaddr_set((VIP_NET_ADDRESS *)ra, 0, 0x200 + sc);
  VIP_VI_ATTRIBUTES rat;
  if (VipConnectRequest(e.vi, (VIP_NET_ADDRESS *)la, (VIP_NET_ADDRESS *)ra, 20000, &rat) != VIP_SUCCESS)
    return 20;
  struct target t;
  if (read(from, &t, sizeof t) != sizeof t) return 21;
  VIP_DESCRIPTOR *d = e.d, *got = NULL;
  d->CS.Control = VIP_CONTROL_OP_RDMAWRITE;
  d->CS.SegCount = 2;
  d->CS.Length = 1000;
  d->DS[0].Remote.Data.AddressBits = sc == S_OTHER_REGISTRATION ? t.b : t.a;
  d->DS[0].Remote.Handle = t.ah;   /* always registration A's handle */
  d->DS[1].Local.Data.Address = e.b;
  d->DS[1].Local.Handle = sc == S_LOCAL_FAULT ? e.ah ^ 0x00010000u : e.bh;   /* S_LOCAL: wrong tag */
  d->DS[1].Local.Length = 1000;
  if (VipPostSend(e.vi, d, e.dh) != VIP_SUCCESS) return 22;
  if (VipSendWait(e.vi, 10000, &got) != VIP_SUCCESS || got != d) return 23;
  uint32_t st = got->CS.Status & VIP_STATUS_ERROR_MASK, want;
  switch (sc) {
  case S_ALLOWED: want = 0; break;
  case S_LOCAL_FAULT: want = VIP_STATUS_PROTECTION_ERROR; break;
  default: want = VIP_STATUS_RDMA_PROT_ERROR; break;
  }
  if (st != want) fprintf(stderr, "client: scenario %d: status %#x, want %#x\n", sc, st, want);
  if (write(to, "d", 1) != 1) return 24;
  char k;
  if (read(from, &k, 1) != 1) return 25;
  ep_close(&e);
  return st == want ? 0 : 40;
}

static void run_scenario(enum scenario sc) {
  int rc[2];
  run_pair(server, client, (int)sc, rc);
  CHECK_EQ(rc[0], 0);
  CHECK_EQ(rc[1], 0);
}

static void t_rdma_allowed(void) { run_scenario(S_ALLOWED); }
static void t_rdma_memory_closed(void) { run_scenario(S_MEM_CLOSED); }
static void t_rdma_vi_closed(void) { run_scenario(S_VI_CLOSED); }
static void t_rdma_handle_covers_its_memory_only(void) { run_scenario(S_OTHER_REGISTRATION); }
static void t_rdma_local_fault_is_local(void) { run_scenario(S_LOCAL_FAULT); }

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  pid_t nicd = nicd_start(2, false);
  CHECK(nicd > 0);
  if (nicd <= 0) return vt_summary();
  RUN(t_rdma_allowed);
  RUN(t_rdma_memory_closed);
  RUN(t_rdma_vi_closed);
  RUN(t_rdma_handle_covers_its_memory_only);
  RUN(t_rdma_local_fault_is_local);
  nicd_stop(nicd, false);
  return vt_summary();
}
