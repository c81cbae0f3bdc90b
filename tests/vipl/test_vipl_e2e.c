/* End to end over nicd: two host processes, on nic0 and nic1, connect through nicd's
 * connection manager and exchange messages of 1 B to 1 MiB (every byte checked, checksums
 * compared), thousands in flight (most in the L1 lists), every completion observed; RDMA
 * Write with immediate data; a protection error that touches no memory; and nicd killed under a
 * waiting program, which gets an error instead of hanging. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/child.h"
#include "../common/nicd_run.h"
#include "vipl.h"
#include "vaddr.h"
#include "vtest.h"

VT_GLOBALS;

#define DISC 0x5eed
#define NBIG 14
#define NSMALL 3000
#define SMALL_CAP 8192
#define RDMA_LEN (256 * 1024)
#define CREDIT 8
#define NCREDIT ((NBIG + NSMALL) / CREDIT + 1)
#define NRDMA 1900          /* RDMA Writes posted at once: thousands in flight */
#define RDMA_SLOT 128
#define HOSTIF_RING_VISIBLE 32   /* the server's receive ring */
static const uint32_t big_sizes[NBIG] = {1, 2, 3, 15, 255, 1000, 4095, 4096, 4097, 8192,
                                         65535, 65536, 300000, 1u << 20};

static uint32_t msg_len(unsigned i) {
  return i < NBIG ? big_sizes[i] : ((i * 7919u) % SMALL_CAP) + 1;
}
static uint8_t pat(unsigned i, uint32_t j) { return (uint8_t)(i * 131u + j * 7u + (j >> 8)); }

struct ep {
  VIP_NIC_HANDLE nic;
  VIP_PROTECTION_HANDLE ptag;
  VIP_VI_HANDLE vi;
};

static int ep_open(struct ep *e, const char *dev) {
  VIP_VI_ATTRIBUTES a = {.ReliabilityLevel = VIP_SERVICE_RELIABLE_DELIVERY,
                         .MaxTransferSize = 1u << 20, .EnableRdmaWrite = VIP_TRUE};
  if (VipOpenNic(dev, &e->nic) != VIP_SUCCESS) return 1;
  if (VipCreatePtag(e->nic, &e->ptag) != VIP_SUCCESS) return 2;
  a.Ptag = e->ptag;
  if (VipCreateVi(e->nic, &a, NULL, NULL, &e->vi) != VIP_SUCCESS) return 3;
  return 0;
}

/* Tears an endpoint down the way a well-behaved program does: disconnect, collect what is
 * left, destroy, deregister, close. Then exit() unlinks nothing stale. */
static int ep_close(struct ep *e, void *const *addr, const VIP_MEM_HANDLE *mh, int n) {
  VipDisconnect(e->vi);   /* may already be disconnected by the peer */
  VIP_DESCRIPTOR *x;
  while (VipSendDone(e->vi, &x) == VIP_SUCCESS || VipRecvDone(e->vi, &x) == VIP_SUCCESS) {}
  int bad = VipDestroyVi(e->vi) != VIP_SUCCESS;
  for (int i = 0; i < n; i++) bad |= VipDeregisterMem(e->nic, addr[i], mh[i]) != VIP_SUCCESS;
  bad |= VipDestroyPtag(e->nic, e->ptag) != VIP_SUCCESS;
  bad |= VipCloseNic(e->nic) != VIP_SUCCESS;
  return bad ? 90 : 0;
}

struct rdma_info { uint64_t addr; VIP_MEM_HANDLE mh; };

/* ---- the server, on nic0: receives everything and checks it ---- */
static int server(int to_client, int from_client) {
  struct ep e;
  int rc = ep_open(&e, nicd_dev(0));
  if (rc) return 10 + rc;
  unsigned nrecv = NBIG + NSMALL + 1;
  size_t big_bytes = (size_t)NBIG << 20, small_bytes = (size_t)NSMALL * SMALL_CAP;
  uint8_t *data = malloc(big_bytes + small_bytes);             /* ordinary memory */
  uint8_t *rdma = malloc(RDMA_LEN);
  VIP_DESCRIPTOR *d = aligned_alloc(64, nrecv * sizeof *d);
  if (!data || !rdma || !d) return 20;
  memset(rdma, 0xee, RDMA_LEN);
  VIP_MEM_HANDLE mh, rmh, dmh;
  VIP_MEM_ATTRIBUTES ma = {.Ptag = e.ptag};
  if (VipRegisterMem(e.nic, data, big_bytes + small_bytes, &ma, &mh) != VIP_SUCCESS) return 21;
  if (VipRegisterMem(e.nic, d, nrecv * sizeof *d, &ma, &dmh) != VIP_SUCCESS) return 22;
  ma.EnableRdmaWrite = VIP_TRUE;
  if (VipRegisterMem(e.nic, rdma, RDMA_LEN, &ma, &rmh) != VIP_SUCCESS) return 23;
  memset(d, 0, nrecv * sizeof *d);
  for (unsigned i = 0; i < nrecv; i++) {
    d[i].CS.SegCount = 1;
    d[i].DS[0].Local.Data.Address = i < NBIG ? data + ((size_t)i << 20)
                                             : data + big_bytes + (size_t)(i - NBIG) * SMALL_CAP;
    d[i].DS[0].Local.Handle = mh;
    d[i].DS[0].Local.Length = i < NBIG ? 1u << 20 : SMALL_CAP;
    if (i == nrecv - 1) d[i].CS.SegCount = 0;   /* the RDMA notification carries no data */
    if (VipPostRecv(e.vi, &d[i], dmh) != VIP_SUCCESS) return 24;
  }
  uint8_t raw[64], rraw[64];
  VIP_NET_ADDRESS *la = (VIP_NET_ADDRESS *)raw, *ra = (VIP_NET_ADDRESS *)rraw;
  vaddr_set(la, 0, DISC);
  VIP_CONN_HANDLE conn;
  VIP_VI_ATTRIBUTES rattr;
  if (VipConnectWait(e.nic, la, 20000, ra, &rattr, &conn) != VIP_SUCCESS) return 25;
  if (ra->HostAddressLen != 2 || ra->HostAddress[1] != 1) return 26;
  if (VipConnectAccept(conn, e.vi) != VIP_SUCCESS) return 27;
  struct rdma_info ri = {(uint64_t)(uintptr_t)rdma, rmh};
  if (write(to_client, &ri, sizeof ri) != sizeof ri) return 28;
  /* Collect first, check afterwards. Every CREDIT receives taken, tell the client how many:
   * the NIC sees only the receive ring (32 slots), and the firmware drops a message that
   * finds it empty, so the client keeps within what the server has made visible. */
  VIP_DESCRIPTOR *cd = aligned_alloc(64, NCREDIT * sizeof *cd);
  if (!cd) return 29;
  memset(cd, 0, NCREDIT * sizeof *cd);
  unsigned ncd = 0;
  for (unsigned i = 0; i < nrecv - 1; i++) {
    VIP_DESCRIPTOR *got = NULL;
    VIP_RETURN r = VipRecvWait(e.vi, 30000, &got);
    if (r != VIP_SUCCESS || got != &d[i]) {
      fprintf(stderr, "server: receive %u: rc %d, descriptor %ld\n", i, r,
              got ? (long)(got - d) : -1L);
      return 30;
    }
    if ((i + 1) % CREDIT == 0 && ncd < NCREDIT) {
      VIP_DESCRIPTOR *c = &cd[ncd++];
      c->CS.Control = VIP_CONTROL_OP_SENDRECV | VIP_CONTROL_IMMEDIATE;
      c->CS.ImmediateData = i + 1;
      if (VipPostSend(e.vi, c, dmh) != VIP_SUCCESS) return 34;
    }
    VIP_DESCRIPTOR *x;
    while (VipSendDone(e.vi, &x) == VIP_SUCCESS)
      if (x->CS.Status != VIP_STATUS_DONE) return 35;
  }
  uint32_t sum = 0;
  for (unsigned i = 0; i < nrecv - 1; i++) {
    VIP_DESCRIPTOR *got = &d[i];
    uint32_t want = VIP_STATUS_DONE | VIP_STATUS_OP_RECEIVE | VIP_STATUS_IMMEDIATE;
    if (got->CS.Status != want || got->CS.ImmediateData != i || got->CS.Length != msg_len(i)) {
      fprintf(stderr, "server: message %u: status %#x imm %u len %u (want %u)\n", i,
              got->CS.Status, got->CS.ImmediateData, got->CS.Length, msg_len(i));
      return 32;
    }
    const uint8_t *p = got->DS[0].Local.Data.Address;
    for (uint32_t j = 0; j < got->CS.Length; j++) {
      if (p[j] != pat(i, j)) {
        fprintf(stderr, "server: message %u byte %u differs\n", i, j);
        return 33;
      }
      sum = sum * 31u + p[j];
    }
  }
  /* RDMA Write: the data is in place when the notification arrives. */
  VIP_DESCRIPTOR *got;
  if (VipRecvWait(e.vi, 30000, &got) != VIP_SUCCESS || got != &d[nrecv - 1]) return 40;
  if (!(got->CS.Status & VIP_STATUS_IMMEDIATE) || got->CS.ImmediateData != 0xabcdef01u ||
      (got->CS.Status & VIP_STATUS_ERROR_MASK))
    return 41;
  for (uint32_t j = 0; j < RDMA_LEN - 4096; j++)
    if (rdma[j] != pat(77, j)) return 42;
  for (uint32_t j = RDMA_LEN - 4096; j < RDMA_LEN; j++)
    if (rdma[j] != 0xee) return 43;   /* beyond the write: untouched */
  uint32_t csum;
  if (read(from_client, &csum, sizeof csum) != sizeof csum) return 44;
  if (csum != sum) return 45;
  if (write(to_client, "k", 1) != 1) return 46;
  char c;
  if (read(from_client, &c, 1) != 1) return 47;   /* the client is done */
  void *a[3] = {data, d, rdma};
  VIP_MEM_HANDLE h[3] = {mh, dmh, rmh};
  rc = ep_close(&e, a, h, 3);
  free(data), free(rdma), free(d), free(cd);
  return rc;
}

/* ---- the client, on nic1 ---- */
static int client(int to_server, int from_server) {
  struct ep e;
  int rc = ep_open(&e, nicd_dev(1));
  if (rc) return 10 + rc;
  unsigned n = NBIG + NSMALL;
  size_t off[NBIG + NSMALL], total = 0;
  for (unsigned i = 0; i < n; i++) off[i] = total, total += msg_len(i);
  uint8_t *data = malloc(total + RDMA_LEN);
  VIP_DESCRIPTOR *d = aligned_alloc(64, (n + 8) * sizeof *d);
  if (!data || !d) return 20;
  uint32_t sum = 0;
  for (unsigned i = 0; i < n; i++)
    for (uint32_t j = 0; j < msg_len(i); j++) {
      data[off[i] + j] = pat(i, j);
      sum = sum * 31u + pat(i, j);
    }
  uint8_t *rsrc = data + total;
  for (uint32_t j = 0; j < RDMA_LEN; j++) rsrc[j] = pat(77, j);
  VIP_MEM_HANDLE mh;
  VIP_MEM_ATTRIBUTES ma = {.Ptag = e.ptag};
  if (VipRegisterMem(e.nic, data, total + RDMA_LEN, &ma, &mh) != VIP_SUCCESS) return 21;
  uint8_t raw[64], rraw[64];
  VIP_NET_ADDRESS *la = (VIP_NET_ADDRESS *)raw, *ra = (VIP_NET_ADDRESS *)rraw;
  vaddr_set(la, 1, DISC);
  vaddr_set(ra, 0, DISC);
  VIP_VI_ATTRIBUTES rattr;
  VIP_RETURN r = VipConnectRequest(e.vi, la, ra, 20000, &rattr);
  if (r != VIP_SUCCESS) {
    fprintf(stderr, "client: VipConnectRequest: %d\n", r);
    return 22;
  }
  struct rdma_info ri;
  if (read(from_server, &ri, sizeof ri) != sizeof ri) return 23;
  memset(d, 0, (n + 8) * sizeof *d);
  /* Receives for the server's credits. */
  VIP_DESCRIPTOR *cr = aligned_alloc(64, NCREDIT * sizeof *cr);
  if (!cr) return 24;
  memset(cr, 0, NCREDIT * sizeof *cr);
  for (unsigned i = 0; i < NCREDIT; i++)
    if (VipPostRecv(e.vi, &cr[i], mh) != VIP_SUCCESS) return 24;
  unsigned credit = 0, ncr = 0, sent_done = 0;
  for (unsigned i = 0; i < n; i++) {
    while (i >= credit + HOSTIF_RING_VISIBLE) {   /* wait for the server to catch up */
      VIP_DESCRIPTOR *got;
      if (VipRecvWait(e.vi, 30000, &got) != VIP_SUCCESS || got != &cr[ncr++]) return 26;
      credit = got->CS.ImmediateData;
    }
    d[i].CS.Control = VIP_CONTROL_OP_SENDRECV | VIP_CONTROL_IMMEDIATE;
    d[i].CS.ImmediateData = i;
    d[i].CS.SegCount = 1;
    d[i].CS.Length = msg_len(i);
    d[i].DS[0].Local.Data.Address = data + off[i];
    d[i].DS[0].Local.Handle = mh;
    d[i].DS[0].Local.Length = msg_len(i);
    if (VipPostSend(e.vi, &d[i], mh) != VIP_SUCCESS) return 24;
    VIP_DESCRIPTOR *got;
    while (VipSendDone(e.vi, &got) == VIP_SUCCESS) {
      if (got != &d[sent_done] || got->CS.Status != VIP_STATUS_DONE) {
        fprintf(stderr, "client: send %u: status %#x\n", sent_done, got->CS.Status);
        return 25;
      }
      sent_done++;
    }
  }
  for (unsigned i = sent_done; i < n; i++) {
    VIP_DESCRIPTOR *got;
    r = VipSendWait(e.vi, 30000, &got);
    if (r != VIP_SUCCESS || got != &d[i] || got->CS.Status != VIP_STATUS_DONE) {
      fprintf(stderr, "client: send %u: rc %d status %#x\n", i, r, got ? got->CS.Status : 0);
      return 25;
    }
  }
  /* RDMA Writes need no receive descriptors: post them all at once, thousands in flight
   * (the ring takes 32, the rest waits in L1), each to its own slot of the server's region. */
  VIP_DESCRIPTOR *rw = aligned_alloc(64, NRDMA * sizeof *rw);
  if (!rw) return 27;
  memset(rw, 0, NRDMA * sizeof *rw);
  for (unsigned i = 0; i < NRDMA; i++) {
    rw[i].CS.Control = VIP_CONTROL_OP_RDMAWRITE;
    rw[i].CS.SegCount = 2;
    rw[i].CS.Length = RDMA_SLOT;
    rw[i].DS[0].Remote.Data.AddressBits = ri.addr + (uint64_t)i * RDMA_SLOT;
    rw[i].DS[0].Remote.Handle = ri.mh;
    rw[i].DS[1].Local.Data.Address = rsrc + (size_t)i * RDMA_SLOT;
    rw[i].DS[1].Local.Handle = mh;
    rw[i].DS[1].Local.Length = RDMA_SLOT;
    if (VipPostSend(e.vi, &rw[i], mh) != VIP_SUCCESS) return 28;
  }
  for (unsigned i = 0; i < NRDMA; i++) {
    VIP_DESCRIPTOR *got;
    r = VipSendWait(e.vi, 30000, &got);
    if (r != VIP_SUCCESS || got != &rw[i] ||
        got->CS.Status != (VIP_STATUS_DONE | VIP_STATUS_OP_RDMA_WRITE)) {
      fprintf(stderr, "client: RDMA %u: rc %d status %#x\n", i, r, got ? got->CS.Status : 0);
      return 29;
    }
  }
  /* A send whose segment carries another tag's handle: protection error, nothing sent. */
  VIP_DESCRIPTOR *x = &d[n];
  x->CS.SegCount = 1;
  x->CS.Length = 16;
  x->DS[0].Local.Data.Address = data;
  x->DS[0].Local.Handle = (mh & 0xffu) | (0x00fffe00u);
  x->DS[0].Local.Length = 16;
  VIP_DESCRIPTOR *got;
  if (VipPostSend(e.vi, x, mh) != VIP_SUCCESS || VipSendWait(e.vi, 10000, &got) != VIP_SUCCESS)
    return 30;
  if (got != x || !(x->CS.Status & VIP_STATUS_PROTECTION_ERROR)) return 31;
  /* RDMA Writes: the real one and a zero-length one with immediate data. (Refused ones break
   * a Reliable Delivery connection: test_vipl_reliable.c.) */
  for (int k = 2; k < 4; k++) {
    VIP_DESCRIPTOR *w = &d[n + 1 + k];
    uint32_t len = k == 3 ? 0 : RDMA_LEN - 4096;
    w->CS.Control = VIP_CONTROL_OP_RDMAWRITE | (k == 3 ? VIP_CONTROL_IMMEDIATE : 0);
    w->CS.ImmediateData = 0xabcdef01u;
    w->CS.SegCount = k == 3 ? 1 : 2;
    w->CS.Length = len;
    w->DS[0].Remote.Data.AddressBits = ri.addr + (k == 1 ? RDMA_LEN - 100 : 0);
    w->DS[0].Remote.Handle = k == 0 ? (ri.mh ^ 0x00100000u) : ri.mh;
    w->DS[1].Local.Data.Address = k == 2 ? rsrc : data;   /* the bad ones carry junk */
    w->DS[1].Local.Handle = mh;
    w->DS[1].Local.Length = len;
    if (VipPostSend(e.vi, w, mh) != VIP_SUCCESS) return 32;
    if (VipSendWait(e.vi, 10000, &got) != VIP_SUCCESS || got != w) return 33;
    if (w->CS.Status & VIP_STATUS_ERROR_MASK) {
      fprintf(stderr, "client: RDMA write %d: status %#x\n", k, w->CS.Status);
      return 34 + k;
    }
  }
  if (write(to_server, &sum, sizeof sum) != sizeof sum) return 40;
  char c;
  if (read(from_server, &c, 1) != 1) return 41;
  if (write(to_server, "d", 1) != 1) return 42;
  void *a[1] = {data};
  VIP_MEM_HANDLE h[1] = {mh};
  rc = ep_close(&e, a, h, 1);
  free(data), free(d), free(cr), free(rw);
  return rc;
}

static void t_messages_rdma_protection(void) {
  pid_t nicd = nicd_start(2, false);
  CHECK(nicd > 0);
  if (nicd <= 0) return;
  int s2c[2], c2s[2];
  CHECK(pipe(s2c) == 0 && pipe(c2s) == 0);
  pid_t s = run_child(server, s2c[1], c2s[0]);
  pid_t c = run_child(client, c2s[1], s2c[0]);
  CHECK_EQ(wait_child(s, "server"), 0);
  CHECK_EQ(wait_child(c, "client"), 0);
  close(s2c[0]), close(s2c[1]), close(c2s[0]), close(c2s[1]);
  nicd_stop(nicd, false);
}

/* nicd killed while a program waits for a receive without a time limit. */
static int waiter(int ready, int unused) {
  (void)unused;
  struct ep e;
  if (ep_open(&e, nicd_dev(1))) return 10;
  VIP_DESCRIPTOR *d = aligned_alloc(64, sizeof *d);
  char *buf = malloc(4096);
  VIP_MEM_HANDLE mh;
  VIP_MEM_ATTRIBUTES ma = {.Ptag = e.ptag};
  if (VipRegisterMem(e.nic, buf, 4096, &ma, &mh) != VIP_SUCCESS) return 11;
  memset(d, 0, sizeof *d);
  d->CS.SegCount = 1;
  d->DS[0].Local.Data.Address = buf;
  d->DS[0].Local.Handle = mh;
  d->DS[0].Local.Length = 4096;
  if (VipPostRecv(e.vi, d, mh) != VIP_SUCCESS) return 12;
  if (write(ready, "r", 1) != 1) return 13;
  VIP_DESCRIPTOR *got;
  VIP_RETURN r = VipRecvWait(e.vi, VIP_INFINITE, &got);
  if (r != VIP_SUCCESS || got != d || !(d->CS.Status & VIP_STATUS_ERROR_MASK)) return 14;
  if (VipRecvWait(e.vi, VIP_INFINITE, &got) != VIP_ERROR_RESOURCE) return 15;
  if (VipPostRecv(e.vi, d, mh) != VIP_ERROR_RESOURCE) return 16;
  VIP_VI_HANDLE vi2;
  VIP_VI_ATTRIBUTES a = {.ReliabilityLevel = VIP_SERVICE_UNRELIABLE, .Ptag = e.ptag};
  if (VipCreateVi(e.nic, &a, NULL, NULL, &vi2) != VIP_ERROR_RESOURCE) return 17;
  VipDestroyVi(e.vi);
  VipDeregisterMem(e.nic, buf, mh);
  VipDestroyPtag(e.nic, e.ptag);
  VipCloseNic(e.nic);
  free(buf), free(d);
  return 0;
}

static void t_nicd_killed(void) {
  pid_t nicd = nicd_start(2, false);
  CHECK(nicd > 0);
  if (nicd <= 0) return;
  int p[2];
  CHECK(pipe(p) == 0);
  pid_t w = run_child(waiter, p[1], -1);
  char c;
  CHECK_EQ(read(p[0], &c, 1), 1);
  struct timespec ts = {0, 50000000};
  nanosleep(&ts, NULL);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  nicd_stop(nicd, true);
  CHECK_EQ(wait_child(w, "waiter"), 0);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  CHECK(t1.tv_sec - t0.tv_sec < 3);
  close(p[0]), close(p[1]);
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  RUN(t_messages_rdma_protection);
  RUN(t_nicd_killed);
  return vt_summary();
}
