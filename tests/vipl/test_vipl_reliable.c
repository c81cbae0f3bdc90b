/* Reliable Delivery against Unreliable Delivery, end to end over nicd (two host processes on
 * nic0 and nic1): a reliable send completes only once the peer NIC has acknowledged it; a
 * transfer the peer cannot take (no receive descriptor; an RDMA Write to memory the peer did
 * not register for it) completes with the peer's reason at the sender, touches no memory,
 * breaks the connection on both sides, flushes the receiver's posted descriptors and fails
 * every later send, and is reported to the error callback once as VIP_ERROR_CONN_LOST on the
 * VI; on an unreliable VI the same loss is the receiver's counted drop and the connection stays
 * up. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/child.h"
#include "../common/nicd_run.h"
#include "vipl.h"
#include "vaddr.h"
#include "vtest.h"

VT_GLOBALS;

#define REGION 8192
enum scenario { S_ACKED, S_NO_DESC, S_RDMA_TAG, S_UNRELIABLE_NO_DESC };

struct ep {
  VIP_NIC_HANDLE nic;
  VIP_PROTECTION_HANDLE ptag;
  VIP_VI_HANDLE vi;
  uint8_t *mem;
  VIP_MEM_HANDLE mh;
  VIP_DESCRIPTOR *d;   /* 4 descriptors, in registered memory */
  VIP_MEM_HANDLE dmh;
};

static int ep_open(struct ep *e, const char *dev, bool reliable) {
  VIP_VI_ATTRIBUTES a = {.ReliabilityLevel = reliable ? VIP_SERVICE_RELIABLE_DELIVERY
                                                      : VIP_SERVICE_UNRELIABLE,
                         .MaxTransferSize = REGION, .EnableRdmaWrite = VIP_TRUE};
  if (VipOpenNic(dev, &e->nic) != VIP_SUCCESS) return 1;
  if (VipCreatePtag(e->nic, &e->ptag) != VIP_SUCCESS) return 2;
  a.Ptag = e->ptag;
  if (VipCreateVi(e->nic, &a, NULL, NULL, &e->vi) != VIP_SUCCESS) return 3;
  e->mem = malloc(REGION);
  e->d = aligned_alloc(64, 4 * sizeof *e->d);
  if (!e->mem || !e->d) return 4;
  memset(e->mem, 0xee, REGION);
  memset(e->d, 0, 4 * sizeof *e->d);
  VIP_MEM_ATTRIBUTES ma = {.Ptag = e->ptag, .EnableRdmaWrite = VIP_TRUE};
  if (VipRegisterMem(e->nic, e->mem, REGION, &ma, &e->mh) != VIP_SUCCESS) return 5;
  if (VipRegisterMem(e->nic, e->d, 4 * sizeof *e->d, &ma, &e->dmh) != VIP_SUCCESS) return 6;
  return 0;
}

static void ep_close(struct ep *e) {
  VipDisconnect(e->vi);
  VIP_DESCRIPTOR *x;
  while (VipSendDone(e->vi, &x) == VIP_SUCCESS || VipRecvDone(e->vi, &x) == VIP_SUCCESS) {}
  VipDestroyVi(e->vi);
  VipDeregisterMem(e->nic, e->mem, e->mh);
  VipDeregisterMem(e->nic, e->d, e->dmh);
  VipDestroyPtag(e->nic, e->ptag);
  VipCloseNic(e->nic);
  free(e->mem), free(e->d);
}

static VIP_VI_STATE vi_state(VIP_VI_HANDLE vi) {
  VIP_VI_STATE st = VIP_STATE_IDLE;
  VIP_VI_ATTRIBUTES a;
  VIP_BOOLEAN se, re;
  if (VipQueryVi(vi, &st, &a, &se, &re) != VIP_SUCCESS) return (VIP_VI_STATE)-1;
  return st;
}

static void fill(VIP_DESCRIPTOR *d, uint32_t ctl, void *addr, VIP_MEM_HANDLE mh, uint32_t len) {
  memset(d, 0, sizeof *d);
  d->CS.Control = ctl;
  d->CS.SegCount = 1;
  d->CS.Length = len;
  d->DS[0].Local.Data.Address = addr;
  d->DS[0].Local.Handle = mh;
  d->DS[0].Local.Length = len;
}

struct rinfo { uint64_t addr; VIP_MEM_HANDLE mh; };

/* nic0: accepts, posts what the scenario wants, reports where its region is, and checks
 * what it sees once the client is done. */
static int server(int sc, int to_client, int from_client) {
  struct ep e;
  int rc = ep_open(&e, nicd_dev(0), sc != S_UNRELIABLE_NO_DESC);
  if (rc) return 10 + rc;
  bool post = sc == S_ACKED || sc == S_RDMA_TAG;
  if (post) {
    fill(&e.d[0], VIP_CONTROL_OP_SENDRECV, e.mem, e.mh, REGION);
    e.d[0].CS.Length = 0;
    if (VipPostRecv(e.vi, &e.d[0], e.dmh) != VIP_SUCCESS) return 20;
  }
  uint8_t raw[64], rraw[64];
  VIP_NET_ADDRESS *la = (VIP_NET_ADDRESS *)raw, *ra = (VIP_NET_ADDRESS *)rraw;
  vaddr_set(la, 0, 0x100 + sc);
  VIP_CONN_HANDLE conn;
  VIP_VI_ATTRIBUTES rattr;
  if (VipConnectWait(e.nic, la, 20000, ra, &rattr, &conn) != VIP_SUCCESS) return 21;
  if (VipConnectAccept(conn, e.vi) != VIP_SUCCESS) return 22;
  struct rinfo ri = {(uint64_t)(uintptr_t)e.mem, e.mh};
  if (write(to_client, &ri, sizeof ri) != sizeof ri) return 23;
  char c;
  if (read(from_client, &c, 1) != 1) return 24;
  VIP_DESCRIPTOR *got = NULL;
  switch (sc) {
  case S_ACKED:
    if (VipRecvWait(e.vi, 10000, &got) != VIP_SUCCESS || got != &e.d[0]) return 30;
    if (got->CS.Status != (VIP_STATUS_DONE | VIP_STATUS_OP_RECEIVE) || got->CS.Length != 6000)
      return 31;
    for (uint32_t j = 0; j < 6000; j++)
      if (e.mem[j] != (uint8_t)(j * 13u)) return 32;
    if (vi_state(e.vi) != VIP_STATE_CONNECTED) return 33;
    break;
  case S_NO_DESC:
    if (vi_state(e.vi) != VIP_STATE_ERROR) return 40;
    break;
  case S_RDMA_TAG:
    /* the broken connection flushed the posted receive */
    if (VipRecvWait(e.vi, 10000, &got) != VIP_SUCCESS || got != &e.d[0]) return 50;
    if (!(got->CS.Status & VIP_STATUS_DESC_FLUSHED_ERROR)) return 51;
    for (uint32_t j = 0; j < REGION; j++)
      if (e.mem[j] != 0xee) return 52;   /* the refused write touched nothing */
    if (vi_state(e.vi) != VIP_STATE_ERROR) return 53;
    break;
  case S_UNRELIABLE_NO_DESC:
    if (vi_state(e.vi) != VIP_STATE_CONNECTED) return 60;
    if (VipRecvDone(e.vi, &got) != VIP_NOT_DONE) return 61;
    break;
  }
  if (write(to_client, "k", 1) != 1) return 25;
  ep_close(&e);
  return 0;
}

/* The error callback: connections lost on the VI it watches. */
static VIP_VI_HANDLE g_watched;
static int g_lost, g_other;
static void on_error(VIP_PVOID ctx, VIP_ERROR_DESCRIPTOR *d) {
  (void)ctx;
  if (d->ErrorCode == VIP_ERROR_CONN_LOST && d->ResourceCode == VIP_RESOURCE_VI &&
      d->ViHandle == g_watched)
    g_lost++;
  else
    g_other++;
}

/* nic1: connects and sends what the scenario says; checks its completions. */
static int client(int sc, int to_server, int from_server) {
  struct ep e;
  int rc = ep_open(&e, nicd_dev(1), sc != S_UNRELIABLE_NO_DESC);
  if (rc) return 10 + rc;
  g_watched = e.vi;
  if (VipErrorCallback(e.nic, NULL, on_error) != VIP_SUCCESS) return 19;
  for (uint32_t j = 0; j < REGION; j++) e.mem[j] = (uint8_t)(j * 13u);
  uint8_t raw[64], rraw[64];
  VIP_NET_ADDRESS *la = (VIP_NET_ADDRESS *)raw, *ra = (VIP_NET_ADDRESS *)rraw;
  vaddr_set(la, 1, 0x100 + sc);
  vaddr_set(ra, 0, 0x100 + sc);
  VIP_VI_ATTRIBUTES rattr;
  if (VipConnectRequest(e.vi, la, ra, 20000, &rattr) != VIP_SUCCESS) return 20;
  struct rinfo ri;
  if (read(from_server, &ri, sizeof ri) != sizeof ri) return 21;
  VIP_DESCRIPTOR *got = NULL;
  uint32_t st;
  if (sc == S_RDMA_TAG) {
    fill(&e.d[0], VIP_CONTROL_OP_RDMAWRITE, e.mem, e.mh, 3000);
    e.d[0].CS.SegCount = 2;
    e.d[0].DS[1] = e.d[0].DS[0];
    e.d[0].DS[0].Remote.Data.AddressBits = ri.addr;
    e.d[0].DS[0].Remote.Handle = ri.mh ^ 0x00100000u;   /* not the peer's tag */
  } else {
    fill(&e.d[0], VIP_CONTROL_OP_SENDRECV, e.mem, e.mh, 6000);   /* two wire messages */
  }
  if (VipPostSend(e.vi, &e.d[0], e.dmh) != VIP_SUCCESS) return 22;
  if (VipSendWait(e.vi, 10000, &got) != VIP_SUCCESS || got != &e.d[0]) return 23;
  st = got->CS.Status;
  switch (sc) {
  case S_ACKED:
  case S_UNRELIABLE_NO_DESC:
    if (st != (VIP_STATUS_DONE | VIP_STATUS_OP_SEND)) return 30;
    if (vi_state(e.vi) != VIP_STATE_CONNECTED) return 31;
    break;
  case S_NO_DESC:
    if (st != (VIP_STATUS_DONE | VIP_STATUS_REMOTE_DESC_ERROR)) {
      fprintf(stderr, "client: no descriptor: status %#x\n", st);
      return 40;
    }
    break;
  case S_RDMA_TAG:
    if (!(st & VIP_STATUS_RDMA_PROT_ERROR)) {
      fprintf(stderr, "client: refused RDMA Write: status %#x\n", st);
      return 50;
    }
    break;
  }
  if (sc == S_NO_DESC || sc == S_RDMA_TAG) {
    if (vi_state(e.vi) != VIP_STATE_ERROR) return 60;
    /* the connection is broken: a later send fails, nothing is sent */
    fill(&e.d[1], VIP_CONTROL_OP_SENDRECV, e.mem, e.mh, 10);
    if (VipPostSend(e.vi, &e.d[1], e.dmh) != VIP_SUCCESS) return 61;
    if (VipSendWait(e.vi, 10000, &got) != VIP_SUCCESS || got != &e.d[1]) return 62;
    if (!(got->CS.Status & VIP_STATUS_ERROR_MASK)) return 63;
    if (VipSendDone(e.vi, &got) != VIP_NOT_DONE) return 64;
    if (g_lost != 1 || g_other) {   /* reported once, however often the VI is looked at */
      fprintf(stderr, "client: %d connection-lost reports, %d others\n", g_lost, g_other);
      return 65;
    }
  } else if (g_lost || g_other) {
    return 66;
  }
  if (write(to_server, "d", 1) != 1) return 24;
  char c;
  if (read(from_server, &c, 1) != 1) return 25;
  ep_close(&e);
  return 0;
}

static pid_t g_nicd;

static void run_scenario(enum scenario sc) {
  int rc[2];
  run_pair(server, client, (int)sc, rc);
  CHECK_EQ(rc[0], 0);
  CHECK_EQ(rc[1], 0);
}

static void t_reliable_send_acknowledged(void) { run_scenario(S_ACKED); }
static void t_reliable_no_descriptor_breaks(void) { run_scenario(S_NO_DESC); }
static void t_reliable_rdma_refused_breaks(void) { run_scenario(S_RDMA_TAG); }
static void t_unreliable_no_descriptor_drops(void) { run_scenario(S_UNRELIABLE_NO_DESC); }

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  g_nicd = nicd_start(2, false);
  CHECK(g_nicd > 0);
  if (g_nicd <= 0) return vt_summary();
  RUN(t_reliable_send_acknowledged);
  RUN(t_reliable_no_descriptor_breaks);
  RUN(t_reliable_rdma_refused_breaks);
  RUN(t_unreliable_no_descriptor_drops);
  nicd_stop(g_nicd, false);
  return vt_summary();
}
