/* VIPL unit tests against an in-process NIC window (fakenic.c stands in for the firmware
 * and for nicd's pairing of VIs): every misuse gets its named error, descriptors translate
 * and complete with the right CS fields (status bits, length, immediate data), local and NIC
 * errors, RDMA Write, completion queues, blocking waits, the name service, and a NIC that
 * dies under a waiting program. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fakenic.h"
#include "vipl.h"
#include "vipl_ext.h"
#include "vipl_internal.h"
#include "vtest.h"

VT_GLOBALS;

static struct fakenic F;
static VIP_NIC_HANDLE nic;
static VIP_PROTECTION_HANDLE ptag, ptag2;

static VIP_VI_ATTRIBUTES attrs(VIP_PROTECTION_HANDLE p, VIP_RELIABILITY_LEVEL rel, int rdmaw) {
  VIP_VI_ATTRIBUTES a = {.ReliabilityLevel = rel, .MaxTransferSize = 65536, .Ptag = p,
                         .EnableRdmaWrite = rdmaw};
  return a;
}

static unsigned vi_idx(VIP_VI_HANDLE h) { return ((struct vvi *)vh_get(h, VH_VI))->lv->idx; }

static void t_misuse(void) {
  VIP_NIC_HANDLE n;
  CHECK_EQ(VipOpenNic(NULL, &n), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipOpenNic("nic0", NULL), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipOpenNic("nic4711", &n), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipxOpenNicErrno(), ENODEV);
  CHECK_EQ(VipOpenNic("garbage", &n), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipCloseNic(NULL), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipCloseNic((VIP_NIC_HANDLE)0xdeadbeef), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipCloseNic((VIP_NIC_HANDLE)&n), VIP_INVALID_PARAMETER);
  VIP_NIC_ATTRIBUTES na;
  CHECK_EQ(VipQueryNic(nic, NULL), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipQueryNic(nic, &na), VIP_SUCCESS);
  CHECK_EQ(na.NicAddressLen, 2);
  CHECK_EQ(na.LocalNicAddress[1], 3);
  CHECK_EQ(na.MaxTransferSize, HOSTIF_MAX_XFER);
  VIP_VI_HANDLE vi;
  VIP_VI_ATTRIBUTES a = attrs(ptag, VIP_SERVICE_RELIABLE_DELIVERY, 0);
  CHECK_EQ(VipCreateVi(NULL, &a, NULL, NULL, &vi), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipCreateVi(nic, NULL, NULL, NULL, &vi), VIP_INVALID_PARAMETER);
  a.Ptag = (VIP_PROTECTION_HANDLE)0x12345;
  CHECK_EQ(VipCreateVi(nic, &a, NULL, NULL, &vi), VIP_INVALID_PTAG);
  a = attrs(ptag, VIP_SERVICE_RELIABLE_RECEPTION, 0);
  CHECK_EQ(VipCreateVi(nic, &a, NULL, NULL, &vi), VIP_INVALID_RELIABILITY_LEVEL);
  a = attrs(ptag, VIP_SERVICE_UNRELIABLE, 0);
  a.MaxTransferSize = HOSTIF_MAX_XFER + 1;
  CHECK_EQ(VipCreateVi(nic, &a, NULL, NULL, &vi), VIP_INVALID_MTU);
  a = attrs(ptag, VIP_SERVICE_UNRELIABLE, 0);
  a.EnableRdmaRead = 1;
  CHECK_EQ(VipCreateVi(nic, &a, NULL, NULL, &vi), VIP_INVALID_RDMAREAD);
  a = attrs(ptag, VIP_SERVICE_UNRELIABLE, 0);
  CHECK_EQ(VipCreateVi(nic, &a, (VIP_CQ_HANDLE)0x777, NULL, &vi), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipCreateVi(nic, &a, NULL, NULL, &vi), VIP_SUCCESS);
  /* posting */
  static VIP_DESCRIPTOR dd[2] __attribute__((aligned(64)));
  VIP_DESCRIPTOR *mis = (VIP_DESCRIPTOR *)((char *)&dd[0] + 8);
  CHECK_EQ(VipPostSend(vi, NULL, 0), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipPostSend(vi, mis, 0), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipPostRecv(NULL, &dd[0], 0), VIP_INVALID_PARAMETER);
  VIP_DESCRIPTOR *got;
  CHECK_EQ(VipSendDone(vi, &got), VIP_NOT_DONE);
  CHECK_EQ(VipRecvDone(vi, NULL), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipRecvWait(vi, 20, &got), VIP_TIMEOUT);
  CHECK_EQ(VipSendWait((VIP_VI_HANDLE)1, 20, &got), VIP_INVALID_PARAMETER);
  /* memory */
  VIP_MEM_HANDLE mh;
  VIP_MEM_ATTRIBUTES ma = {.Ptag = ptag};
  char *buf = malloc(256);
  CHECK_EQ(VipRegisterMem(nic, buf, 0, &ma, &mh), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipRegisterMem(nic, NULL, 10, &ma, &mh), VIP_INVALID_PARAMETER);
  ma.Ptag = NULL;
  CHECK_EQ(VipRegisterMem(nic, buf, 10, &ma, &mh), VIP_INVALID_PTAG);
  ma.Ptag = ptag;
  ma.EnableRdmaRead = 1;
  CHECK_EQ(VipRegisterMem(nic, buf, 10, &ma, &mh), VIP_INVALID_RDMAREAD);
  ma.EnableRdmaRead = 0;
  char local[32];
  CHECK_EQ(VipRegisterMem(nic, local, sizeof local, &ma, &mh), VIP_PROTECTION_ERROR);
  CHECK_EQ(VipRegisterMem(nic, buf, 256, &ma, &mh), VIP_SUCCESS);
  CHECK_EQ(VipDeregisterMem(nic, buf + 1000, mh), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipDeregisterMem(nic, buf, mh ^ 0x100), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipDestroyPtag(nic, ptag), VIP_INVALID_STATE);   /* in use */
  CHECK_EQ(VipCloseNic(nic), VIP_INVALID_STATE);            /* VIs left */
  CHECK_EQ(VipDeregisterMem(nic, buf, mh), VIP_SUCCESS);
  CHECK_EQ(VipDeregisterMem(nic, buf, mh), VIP_INVALID_PARAMETER);
  free(buf);
  /* optional calls */
  CHECK_EQ(VipConnectPeerRequest(vi, NULL, NULL, 0), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipConnectPeerRequest(NULL, NULL, NULL, 0), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipConnectPeerDone(vi, NULL), VIP_INVALID_STATE);   /* no request made */
  CHECK_EQ(VipConnectPeerWait(vi, NULL), VIP_INVALID_STATE);
  CHECK_EQ(VipQuerySystemManagementInfo(nic, VIP_SMI_AUTODISCOVERY, NULL), VIP_ERROR_NOT_SUPPORTED);
  /* connection calls on an idle VI without nicd, and on a bad state */
  CHECK_EQ(VipDisconnect(vi), VIP_INVALID_STATE);
  CHECK_EQ(VipConnectAccept(NULL, vi), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipConnectReject((VIP_CONN_HANDLE)0x10001), VIP_INVALID_PARAMETER);
  VIP_VI_STATE st;
  VIP_BOOLEAN se, re;
  CHECK_EQ(VipQueryVi(vi, &st, &a, &se, &re), VIP_SUCCESS);
  CHECK(st == VIP_STATE_IDLE && se && re && a.Ptag == ptag);
  CHECK_EQ(VipDestroyVi(vi), VIP_SUCCESS);
  CHECK_EQ(VipDestroyVi(vi), VIP_INVALID_PARAMETER);   /* stale handle */
  CHECK_EQ(VipQueryVi(vi, &st, NULL, NULL, NULL), VIP_INVALID_PARAMETER);
  VIP_CQ_HANDLE cq;
  CHECK_EQ(VipCreateCQ(nic, 0, &cq), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipCreateCQ(nic, 64, &cq), VIP_SUCCESS);
  VIP_BOOLEAN rq;
  CHECK_EQ(VipCQDone(cq, &vi, &rq), VIP_NOT_DONE);
  CHECK_EQ(VipCQWait(cq, 10, &vi, &rq), VIP_TIMEOUT);
  CHECK_EQ(VipDestroyCQ(cq), VIP_SUCCESS);
  CHECK_EQ(VipDestroyCQ(cq), VIP_INVALID_PARAMETER);
}

/* Two VIs on the fake NIC, connected to each other, memory registered. */
struct pair { VIP_VI_HANDLE a, b; char *mem; VIP_MEM_HANDLE mh; VIP_DESCRIPTOR *d; };

static void pair_open(struct pair *p, VIP_CQ_HANDLE scq, VIP_CQ_HANDLE rcq, int rdmaw) {
  VIP_VI_ATTRIBUTES a = attrs(ptag, VIP_SERVICE_RELIABLE_DELIVERY, rdmaw);
  CHECK_EQ(VipCreateVi(nic, &a, scq, rcq, &p->a), VIP_SUCCESS);
  CHECK_EQ(VipCreateVi(nic, &a, scq, rcq, &p->b), VIP_SUCCESS);
  fake_connect(&F, vi_idx(p->a), vi_idx(p->b));
  p->mem = aligned_alloc(64, 1 << 16);
  memset(p->mem, 0, 1 << 16);
  p->d = (VIP_DESCRIPTOR *)p->mem;   /* descriptors at the start, data from 8 KiB */
  VIP_MEM_ATTRIBUTES ma = {.Ptag = ptag, .EnableRdmaWrite = rdmaw};
  CHECK_EQ(VipRegisterMem(nic, p->mem, 1 << 16, &ma, &p->mh), VIP_SUCCESS);
}

static void pair_close(struct pair *p) {
  VIP_DESCRIPTOR *x;
  while (VipSendDone(p->a, &x) == VIP_SUCCESS || VipRecvDone(p->b, &x) == VIP_SUCCESS ||
         VipSendDone(p->b, &x) == VIP_SUCCESS || VipRecvDone(p->a, &x) == VIP_SUCCESS) {}
  /* fake "nicd" disconnect: back to idle */
  volatile struct hostif_vi *ea = (volatile void *)(F.w.sram + HOSTIF_VI_ADDR(vi_idx(p->a)));
  volatile struct hostif_vi *eb = (volatile void *)(F.w.sram + HOSTIF_VI_ADDR(vi_idx(p->b)));
  ea->state = eb->state = HOSTIF_VI_IDLE;
  CHECK_EQ(VipDestroyVi(p->a), VIP_SUCCESS);
  CHECK_EQ(VipDestroyVi(p->b), VIP_SUCCESS);
  CHECK_EQ(VipDeregisterMem(nic, p->mem, p->mh), VIP_SUCCESS);
  free(p->mem);
}

static void seg(VIP_DESCRIPTOR *d, unsigned i, void *addr, VIP_MEM_HANDLE h, uint32_t len) {
  d->DS[i].Local.Data.Address = addr;
  d->DS[i].Local.Handle = h;
  d->DS[i].Local.Length = len;
}

static void t_send_recv_imm(void) {
  struct pair p;
  pair_open(&p, NULL, NULL, 0);
  VIP_DESCRIPTOR *r = &p.d[0], *s = &p.d[1];
  char *rbuf = p.mem + 8192, *sbuf = p.mem + 16384;
  memset(r, 0, sizeof *r);
  r->CS.SegCount = 2;
  seg(r, 0, rbuf, p.mh, 5);
  seg(r, 1, rbuf + 100, p.mh, 100);
  CHECK_EQ(VipPostRecv(p.b, r, p.mh), VIP_SUCCESS);
  strcpy(sbuf, "hello, world");
  memset(s, 0, sizeof *s);
  s->CS.Control = VIP_CONTROL_OP_SENDRECV | VIP_CONTROL_IMMEDIATE;
  s->CS.ImmediateData = 0xfeedface;
  s->CS.SegCount = 1;
  s->CS.Length = 13;
  seg(s, 0, sbuf, p.mh, 13);
  CHECK_EQ(VipPostSend(p.a, s, p.mh), VIP_SUCCESS);
  CHECK_EQ(s->CS.Status, 0);
  fake_step(&F, 0);
  VIP_DESCRIPTOR *got = NULL;
  CHECK_EQ(VipRecvWait(p.b, 1000, &got), VIP_SUCCESS);
  CHECK(got == r);
  CHECK_EQ(r->CS.Status, VIP_STATUS_DONE | VIP_STATUS_OP_RECEIVE | VIP_STATUS_IMMEDIATE);
  CHECK_EQ(r->CS.Length, 13);
  CHECK_EQ(r->CS.ImmediateData, 0xfeedface);
  CHECK(memcmp(rbuf, "hello", 5) == 0 && memcmp(rbuf + 100, ", world", 8) == 0);
  CHECK_EQ(VipSendDone(p.a, &got), VIP_SUCCESS);
  CHECK(got == s);
  CHECK_EQ(s->CS.Status, VIP_STATUS_DONE | VIP_STATUS_OP_SEND);
  CHECK_EQ(VipSendDone(p.a, &got), VIP_NOT_DONE);
  pair_close(&p);
}

static void t_errors(void) {
  struct pair p;
  pair_open(&p, NULL, NULL, 0);
  VIP_DESCRIPTOR *d = p.d;
  char *buf = p.mem + 8192;
  /* a segment with a handle of another protection tag: the NIC refuses it */
  VIP_MEM_HANDLE other;
  char *m2 = malloc(4096);
  VIP_MEM_ATTRIBUTES ma = {.Ptag = ptag2};
  CHECK_EQ(VipRegisterMem(nic, m2, 4096, &ma, &other), VIP_SUCCESS);
  memset(d, 0, 6 * sizeof *d);
  d[0].CS.SegCount = 1, d[0].CS.Length = 10;
  seg(&d[0], 0, m2, other, 10);
  /* outside the registered memory */
  d[1].CS.SegCount = 1, d[1].CS.Length = 10;
  seg(&d[1], 0, p.mem + (1 << 16) - 4, p.mh, 10);
  /* too many segments; a length that disagrees; RDMA write on a VI without it; RDMA read */
  d[2].CS.SegCount = 7;
  d[3].CS.SegCount = 1, d[3].CS.Length = 99;
  seg(&d[3], 0, buf, p.mh, 10);
  d[4].CS.Control = VIP_CONTROL_OP_RDMAWRITE, d[4].CS.SegCount = 2, d[4].CS.Length = 4;
  seg(&d[4], 1, buf, p.mh, 4);
  d[5].CS.Control = VIP_CONTROL_OP_RDMAREAD;
  for (int i = 0; i < 6; i++) CHECK_EQ(VipPostSend(p.a, &d[i], p.mh), VIP_SUCCESS);
  fake_step(&F, 0);
  const uint32_t want[6] = {VIP_STATUS_PROTECTION_ERROR, VIP_STATUS_PROTECTION_ERROR,
                            VIP_STATUS_FORMAT_ERROR, VIP_STATUS_FORMAT_ERROR,
                            VIP_STATUS_PROTECTION_ERROR, VIP_STATUS_FORMAT_ERROR};
  for (int i = 0; i < 6; i++) {
    VIP_DESCRIPTOR *got;
    CHECK_EQ(VipSendWait(p.a, 1000, &got), VIP_SUCCESS);
    CHECK(got == &d[i]);
    CHECK(got->CS.Status & VIP_STATUS_DONE);
    CHECK_EQ(got->CS.Status & VIP_STATUS_ERROR_MASK & ~VIP_STATUS_RDMA_PROT_ERROR, want[i]);
  }
  /* a receive buffer too small */
  VIP_DESCRIPTOR *r = &d[6], *s = &d[7];
  memset(r, 0, 2 * sizeof *r);
  r->CS.SegCount = 1;
  seg(r, 0, buf, p.mh, 4);
  s->CS.SegCount = 1, s->CS.Length = 100;
  seg(s, 0, buf + 512, p.mh, 100);
  CHECK_EQ(VipPostRecv(p.b, r, p.mh), VIP_SUCCESS);
  CHECK_EQ(VipPostSend(p.a, s, p.mh), VIP_SUCCESS);
  fake_step(&F, 0);
  VIP_DESCRIPTOR *got;
  CHECK_EQ(VipRecvWait(p.b, 1000, &got), VIP_SUCCESS);
  CHECK(got == r && (r->CS.Status & VIP_STATUS_LENGTH_ERROR));
  CHECK_EQ(VipDeregisterMem(nic, m2, other), VIP_SUCCESS);
  free(m2);
  pair_close(&p);
}

static void t_rdma_write(void) {
  struct pair p;
  pair_open(&p, NULL, NULL, 1);
  VIP_DESCRIPTOR *d = p.d;
  char *src = p.mem + 8192, *dst = p.mem + 32768;
  memset(d, 0, 3 * sizeof *d);
  for (int i = 0; i < 3000; i++) src[i] = (char)(i * 7);
  d[0].CS.Control = VIP_CONTROL_OP_RDMAWRITE;
  d[0].CS.SegCount = 3, d[0].CS.Length = 3000;
  d[0].DS[0].Remote.Data.Address = dst;
  d[0].DS[0].Remote.Handle = p.mh;
  seg(&d[0], 1, src, p.mh, 1000);
  /* a third segment beyond DS[1]: the program allocated room for it */
  VIP_DESCRIPTOR_SEGMENT *extra = (VIP_DESCRIPTOR_SEGMENT *)((char *)&d[0] + sizeof(VIP_DESCRIPTOR));
  extra->Local.Data.Address = src + 1000;
  extra->Local.Handle = p.mh;
  extra->Local.Length = 2000;
  VIP_DESCRIPTOR *w = &d[2];
  w->CS.Control = VIP_CONTROL_OP_RDMAWRITE | VIP_CONTROL_IMMEDIATE;
  w->CS.ImmediateData = 42;
  w->CS.SegCount = 1;
  w->DS[0].Remote.Data.Address = dst;
  w->DS[0].Remote.Handle = p.mh;
  VIP_DESCRIPTOR *r = &d[3];
  memset(r, 0, sizeof *r);
  CHECK_EQ(VipPostRecv(p.b, r, p.mh), VIP_SUCCESS);
  CHECK_EQ(VipPostSend(p.a, &d[0], p.mh), VIP_SUCCESS);
  CHECK_EQ(VipPostSend(p.a, w, p.mh), VIP_SUCCESS);
  fake_step(&F, 0);
  VIP_DESCRIPTOR *got;
  CHECK_EQ(VipSendWait(p.a, 1000, &got), VIP_SUCCESS);
  CHECK(got == &d[0]);
  CHECK_EQ(got->CS.Status, VIP_STATUS_DONE | VIP_STATUS_OP_RDMA_WRITE);
  CHECK(memcmp(src, dst, 3000) == 0);
  CHECK_EQ(VipSendWait(p.a, 1000, &got), VIP_SUCCESS);
  CHECK_EQ(VipRecvWait(p.b, 1000, &got), VIP_SUCCESS);
  CHECK(got == r && r->CS.ImmediateData == 42 && (r->CS.Status & VIP_STATUS_IMMEDIATE));
  pair_close(&p);
}

static void *stepper(void *arg) {
  (void)arg;
  struct timespec ts = {0, 30000000};
  nanosleep(&ts, NULL);
  for (int i = 0; i < 100; i++) {
    fake_step(&F, 0);
    ts.tv_nsec = 2000000;
    nanosleep(&ts, NULL);
  }
  return NULL;
}

/* MaxSegmentsPerDesc is what a send and a receive accept (issue 16: 5 was reported, 5 refused). */
static void t_max_segments(void) {
  VIP_NIC_ATTRIBUTES na;
  CHECK_EQ(VipQueryNic(nic, &na), VIP_SUCCESS);
  unsigned n = na.MaxSegmentsPerDesc;
  CHECK(n >= 1 && n <= 16);
  struct pair p;
  pair_open(&p, NULL, NULL, 0);
  /* room for n segments after each descriptor: the variable-length descriptor */
  size_t dsz = (sizeof(VIP_DESCRIPTOR) + 16 * sizeof(VIP_DESCRIPTOR_SEGMENT) + 63) & ~(size_t)63;
  VIP_DESCRIPTOR *r = p.d, *s = (VIP_DESCRIPTOR *)((char *)p.d + dsz);
  char *rbuf = p.mem + 8192, *sbuf = p.mem + 16384;
  memset(r, 0, 2 * dsz);
  r->CS.SegCount = (uint16_t)n, s->CS.SegCount = (uint16_t)n;
  s->CS.Length = 10 * n;
  for (unsigned i = 0; i < n; i++) {
    VIP_DESCRIPTOR_SEGMENT *rs = (VIP_DESCRIPTOR_SEGMENT *)((char *)r + offsetof(VIP_DESCRIPTOR, DS)) + i;
    VIP_DESCRIPTOR_SEGMENT *ss = (VIP_DESCRIPTOR_SEGMENT *)((char *)s + offsetof(VIP_DESCRIPTOR, DS)) + i;
    rs->Local.Data.Address = rbuf + 100 * i, rs->Local.Handle = p.mh, rs->Local.Length = 10;
    ss->Local.Data.Address = sbuf + 100 * i, ss->Local.Handle = p.mh, ss->Local.Length = 10;
    memset(sbuf + 100 * i, 'a' + (int)i, 10);
  }
  CHECK_EQ(VipPostRecv(p.b, r, p.mh), VIP_SUCCESS);
  CHECK_EQ(VipPostSend(p.a, s, p.mh), VIP_SUCCESS);
  fake_step(&F, 0);
  VIP_DESCRIPTOR *got = NULL;
  CHECK_EQ(VipSendWait(p.a, 1000, &got), VIP_SUCCESS);
  CHECK(got == s);
  CHECK_EQ(s->CS.Status, VIP_STATUS_DONE | VIP_STATUS_OP_SEND);
  CHECK_EQ(VipRecvWait(p.b, 1000, &got), VIP_SUCCESS);
  CHECK(got == r);
  CHECK_EQ(r->CS.Status, VIP_STATUS_DONE | VIP_STATUS_OP_RECEIVE);
  for (unsigned i = 0; i < n; i++) CHECK(memcmp(rbuf + 100 * i, sbuf + 100 * i, 10) == 0);
  pair_close(&p);
}

/* What nicd does when the peer disconnects or dies: the VI's entry goes to ERROR, nothing
 * else (the NIC is not told). */
struct breaker { unsigned vi[2]; };
static void *break_later(void *arg) {
  struct breaker *b = arg;
  struct timespec ts = {0, 50000000};
  nanosleep(&ts, NULL);
  for (int i = 0; i < 2; i++) {
    volatile struct hostif_vi *e = (volatile void *)(F.w.sram + HOSTIF_VI_ADDR(b->vi[i]));
    __atomic_store_n(&e->state, HOSTIF_VI_ERROR, __ATOMIC_RELEASE);
  }
  return NULL;
}

/* A VI that leaves CONNECTED completes every posted descriptor (ring and L1) flushed, and a
 * program blocked without limit returns (issue 16, defect 1: it waited forever). */
static void t_break_flushes(void) {
  VIP_CQ_HANDLE cq;
  CHECK_EQ(VipCreateCQ(nic, 128, &cq), VIP_SUCCESS);
  struct pair p;
  pair_open(&p, NULL, cq, 0);
  enum { N = 40 };   /* more than the ring holds: some wait in L1 */
  VIP_DESCRIPTOR *r = p.d, *s = p.d + N;
  memset(p.d, 0, (N + 1) * sizeof *r);
  for (int i = 0; i < N; i++) {
    r[i].CS.SegCount = 1;
    seg(&r[i], 0, p.mem + 16384 + i * 64, p.mh, 64);
    CHECK_EQ(VipPostRecv(p.b, &r[i], p.mh), VIP_SUCCESS);
  }
  s->CS.SegCount = 1, s->CS.Length = 4;
  seg(s, 0, p.mem + 12288, p.mh, 4);
  CHECK_EQ(VipPostSend(p.a, s, p.mh), VIP_SUCCESS);   /* never served: the fake NIC is idle */
  struct breaker b = {{vi_idx(p.a), vi_idx(p.b)}};
  pthread_t t;
  pthread_create(&t, NULL, break_later, &b);
  uint64_t t0 = lnic_now_ns();
  VIP_VI_HANDLE who = NULL;
  VIP_BOOLEAN isrecv = VIP_FALSE;
  CHECK_EQ(VipCQWait(cq, VIP_INFINITE, &who, &isrecv), VIP_SUCCESS);
  CHECK(lnic_now_ns() - t0 < 1000000000ull);
  pthread_join(t, NULL);
  CHECK(who == p.b && isrecv);
  for (int i = 0; i < N; i++) {
    VIP_DESCRIPTOR *got = NULL;
    CHECK_EQ(i == 0 ? VipRecvDone(p.b, &got) : VipRecvWait(p.b, VIP_INFINITE, &got), VIP_SUCCESS);
    CHECK(got == &r[i]);
    if (got) CHECK_EQ(got->CS.Status, VIP_STATUS_DONE | VIP_STATUS_OP_RECEIVE | VIP_STATUS_DESC_FLUSHED_ERROR);
    if (got) CHECK_EQ(got->CS.Length, 0);   /* a flushed receive holds no message */
  }
  VIP_DESCRIPTOR *got = NULL;
  CHECK_EQ(VipSendWait(p.a, VIP_INFINITE, &got), VIP_SUCCESS);
  CHECK(got == s && (s->CS.Status & VIP_STATUS_DESC_FLUSHED_ERROR));
  /* a receive posted to a VI in ERROR completes at once, flushed */
  CHECK_EQ(VipPostRecv(p.b, &r[0], p.mh), VIP_SUCCESS);
  CHECK_EQ(VipRecvWait(p.b, VIP_INFINITE, &got), VIP_SUCCESS);
  CHECK(got == &r[0] && (r[0].CS.Status & VIP_STATUS_DESC_FLUSHED_ERROR));
  VIP_VI_STATE st;
  CHECK_EQ(VipQueryVi(p.b, &st, NULL, NULL, NULL), VIP_SUCCESS);
  CHECK_EQ(st, VIP_STATE_ERROR);
  pair_close(&p);
  CHECK_EQ(VipDestroyCQ(cq), VIP_SUCCESS);
}

/* VipxCQWaitEx with VIPX_CQ_RECV_ONLY (vipl_ext.h) sleeps on the member receive queues only, but reports every
 * member's completion it finds: here a send and a receive, both on one CQ. */
static void t_cq_wait_recv(void) {
  VIP_CQ_HANDLE cq;
  CHECK_EQ(VipCreateCQ(nic, 16, &cq), VIP_SUCCESS);
  struct pair p;
  pair_open(&p, cq, cq, 0);
  VIP_VI_HANDLE who;
  VIP_BOOLEAN isrecv;
  CHECK_EQ(VipxCQWaitEx(cq, 10, VIPX_CQ_RECV_ONLY, &who, &isrecv), VIP_TIMEOUT);
  VIP_DESCRIPTOR *r = p.d, *s = p.d + 1;
  memset(p.d, 0, 2 * sizeof *r);
  r->CS.SegCount = 1;
  seg(r, 0, p.mem + 16384, p.mh, 64);
  CHECK_EQ(VipPostRecv(p.b, r, p.mh), VIP_SUCCESS);
  s->CS.SegCount = 1, s->CS.Length = 4;
  seg(s, 0, p.mem + 40000, p.mh, 4);
  CHECK_EQ(VipPostSend(p.a, s, p.mh), VIP_SUCCESS);
  pthread_t th;
  pthread_create(&th, NULL, stepper, NULL);
  bool got_send = false, got_recv = false;
  for (int i = 0; i < 2; i++) {
    CHECK_EQ(VipxCQWaitEx(cq, 5000, VIPX_CQ_RECV_ONLY, &who, &isrecv), VIP_SUCCESS);
    if (who == p.a && !isrecv) got_send = true;
    if (who == p.b && isrecv) got_recv = true;
  }
  CHECK(got_send && got_recv);
  CHECK_EQ(VipxCQWaitEx(cq, 10, VIPX_CQ_RECV_ONLY, &who, &isrecv), VIP_TIMEOUT);
  VIP_DESCRIPTOR *got;
  CHECK_EQ(VipRecvDone(p.b, &got), VIP_SUCCESS);
  CHECK(got == r);
  CHECK_EQ(VipSendDone(p.a, &got), VIP_SUCCESS);
  CHECK(got == s && got->CS.Status == VIP_STATUS_DONE);
  pthread_join(th, NULL);
  pair_close(&p);
  CHECK_EQ(VipDestroyCQ(cq), VIP_SUCCESS);
}

/* VIPX_CQ_ONCE: a signal ends the sleep (VIP_TIMEOUT long before the timeout), so that the
 * caller (SOVIA's blocking calls) can return EINTR; without the flag VipCQWait sleeps on. */
static void on_usr1(int sig) { (void)sig; }
struct kicker { pthread_t target; _Atomic bool done; };
/* A signal every 50 ms until the wait has ended: one sent before the waiter went to sleep (a
 * loaded machine can hold it back that long) would leave it sleeping to its timeout. */
static void *kick_later(void *arg) {
  struct kicker *k = arg;
  struct timespec ts = {0, 50000000};
  while (!atomic_load(&k->done)) {
    nanosleep(&ts, NULL);
    if (!atomic_load(&k->done)) pthread_kill(k->target, SIGUSR1);
  }
  return NULL;
}
static void t_cq_wait_once(void) {
  struct sigaction sa = {.sa_handler = on_usr1}, old;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR1, &sa, &old);   /* no SA_RESTART */
  VIP_CQ_HANDLE cq;
  CHECK_EQ(VipCreateCQ(nic, 16, &cq), VIP_SUCCESS);
  struct pair p;
  pair_open(&p, cq, cq, 0);
  VIP_VI_HANDLE who;
  VIP_BOOLEAN isrecv;
  struct kicker k = {pthread_self(), false};
  pthread_t th;
  pthread_create(&th, NULL, kick_later, &k);
  uint64_t t0 = lnic_now_ns();
  CHECK_EQ(VipxCQWaitEx(cq, 3000, VIPX_CQ_ONCE | VIPX_CQ_RECV_ONLY, &who, &isrecv), VIP_TIMEOUT);
  CHECK(lnic_now_ns() - t0 < 1000000000ull);
  atomic_store(&k.done, true);
  pthread_join(th, NULL);
  CHECK_EQ(VipxCQWaitEx(cq, 10, 4, &who, &isrecv), VIP_INVALID_PARAMETER);
  pair_close(&p);
  CHECK_EQ(VipDestroyCQ(cq), VIP_SUCCESS);
  sigaction(SIGUSR1, &old, NULL);
}

static void t_cq_and_blocking(void) {
  VIP_CQ_HANDLE cq;
  CHECK_EQ(VipCreateCQ(nic, 128, &cq), VIP_SUCCESS);
  struct pair p;
  pair_open(&p, NULL, cq, 0);
  CHECK_EQ(VipDestroyCQ(cq), VIP_INVALID_STATE);   /* VIs use it */
  enum { N = 50 };   /* more than a ring: L1 drains while the waiter sleeps */
  VIP_DESCRIPTOR *r = p.d, *s = p.d + N;
  memset(p.d, 0, 2 * N * sizeof *r);
  for (int i = 0; i < N; i++) {
    r[i].CS.SegCount = 1;
    seg(&r[i], 0, p.mem + 16384 + i * 64, p.mh, 64);
    CHECK_EQ(VipPostRecv(p.b, &r[i], p.mh), VIP_SUCCESS);
    s[i].CS.SegCount = 1, s[i].CS.Length = 4;
    seg(&s[i], 0, p.mem + 40000 + i * 4, p.mh, 4);
    memcpy(p.mem + 40000 + i * 4, &i, 4);
    CHECK_EQ(VipPostSend(p.a, &s[i], p.mh), VIP_SUCCESS);
  }
  pthread_t th;
  pthread_create(&th, NULL, stepper, NULL);
  for (int i = 0; i < N; i++) {
    VIP_VI_HANDLE who;
    VIP_BOOLEAN isrecv;
    CHECK_EQ(VipCQWait(cq, 5000, &who, &isrecv), VIP_SUCCESS);
    CHECK(who == p.b && isrecv);
    VIP_DESCRIPTOR *got;
    CHECK_EQ(VipRecvDone(p.b, &got), VIP_SUCCESS);
    CHECK(got == &r[i]);
    int v;
    memcpy(&v, p.mem + 16384 + i * 64, 4);
    CHECK_EQ(v, i);
  }
  for (int i = 0; i < N; i++) {
    VIP_DESCRIPTOR *got;
    CHECK_EQ(VipSendWait(p.a, VIP_INFINITE, &got), VIP_SUCCESS);
    CHECK(got == &s[i] && got->CS.Status == VIP_STATUS_DONE);
  }
  pthread_join(th, NULL);
  VIP_VI_HANDLE who;
  VIP_BOOLEAN isrecv;
  CHECK_EQ(VipCQDone(cq, &who, &isrecv), VIP_NOT_DONE);
  pair_close(&p);
  CHECK_EQ(VipDestroyCQ(cq), VIP_SUCCESS);
}

static void t_name_service(void) {
  char path[64];
  snprintf(path, sizeof path, "/tmp/vipl-hosts-%d", (int)getpid());
  FILE *f = fopen(path, "w");
  fprintf(f, "# test hosts\nalpha 3\n\nbeta 7 # comment\nalpha 9\n");
  fclose(f);
  uint8_t raw[64];
  VIP_NET_ADDRESS *a = (VIP_NET_ADDRESS *)raw;
  CHECK_EQ(VipNSGetHostByName(nic, "alpha", a, 0), VIP_ERROR_NAMESERVICE);
  CHECK_EQ(VipNSInit(nic, path), VIP_SUCCESS);
  /* the name service fills the host address; the discriminator is the caller's (issue 16) */
  a->HostAddressLen = 2, a->DiscriminatorLen = 3;
  memcpy(a->HostAddress + 2, "\x0a\x0b\x0c", 3);
  CHECK_EQ(VipNSGetHostByName(nic, "alpha", a, 0), VIP_SUCCESS);
  CHECK(a->HostAddressLen == 2 && a->HostAddress[1] == 3 && a->DiscriminatorLen == 3);
  CHECK(memcmp(a->HostAddress + 2, "\x0a\x0b\x0c", 3) == 0);
  CHECK_EQ(VipNSGetHostByName(nic, "alpha", a, 1), VIP_SUCCESS);
  CHECK_EQ(a->HostAddress[1], 9);
  CHECK_EQ(VipNSGetHostByName(nic, "beta", a, 0), VIP_SUCCESS);
  CHECK_EQ(a->HostAddress[1], 7);
  CHECK_EQ(VipNSGetHostByName(nic, "gamma", a, 0), VIP_NO_MATCH);
  CHECK_EQ(VipNSGetHostByName(nic, NULL, a, 0), VIP_INVALID_PARAMETER);
  char name[32];
  VIP_ULONG len = sizeof name;
  CHECK_EQ(VipNSGetHostByAddr(nic, a, name, &len), VIP_SUCCESS);
  CHECK(strcmp(name, "beta") == 0 && len == 5);
  len = 2;
  CHECK_EQ(VipNSGetHostByAddr(nic, a, name, &len), VIP_ERROR_RESOURCE);
  CHECK_EQ(len, 5);
  CHECK_EQ(VipNSShutdown(nic), VIP_SUCCESS);
  CHECK_EQ(VipNSShutdown(nic), VIP_ERROR_NAMESERVICE);
  unlink(path);
}

/* A connection request that failed leaves its receives posted on an idle VI: VipDestroyVi
 * refuses it until VipxFlushIdleVi gives them back, flushed; a connected VI is refused. */
static void t_flush_idle(void) {
  VIP_VI_ATTRIBUTES a = attrs(ptag, VIP_SERVICE_RELIABLE_DELIVERY, 0);
  VIP_VI_HANDLE vi;
  CHECK_EQ(VipCreateVi(nic, &a, NULL, NULL, &vi), VIP_SUCCESS);
  char *mem = aligned_alloc(64, 8192);
  VIP_MEM_ATTRIBUTES ma = {.Ptag = ptag};
  VIP_MEM_HANDLE mh;
  CHECK_EQ(VipRegisterMem(nic, mem, 8192, &ma, &mh), VIP_SUCCESS);
  VIP_DESCRIPTOR *d = (VIP_DESCRIPTOR *)mem;
  for (int i = 0; i < 2; i++) {
    memset(&d[i], 0, sizeof d[i]);
    d[i].CS.SegCount = 1;
    d[i].DS[0].Local.Data.Address = mem + 4096;
    d[i].DS[0].Local.Handle = mh;
    d[i].DS[0].Local.Length = 1024;
    CHECK_EQ(VipPostRecv(vi, &d[i], mh), VIP_SUCCESS);
  }
  CHECK_EQ(VipDestroyVi(vi), VIP_INVALID_STATE);   /* receives outstanding */
  CHECK_EQ(VipxFlushIdleVi(NULL), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipxFlushIdleVi(vi), VIP_SUCCESS);
  VIP_DESCRIPTOR *got;
  for (int i = 0; i < 2; i++) {
    CHECK_EQ(VipRecvDone(vi, &got), VIP_SUCCESS);
    CHECK(got == &d[i] && (got->CS.Status & VIP_STATUS_DESC_FLUSHED_ERROR));
  }
  CHECK_EQ(VipRecvDone(vi, &got), VIP_NOT_DONE);
  CHECK_EQ(VipDestroyVi(vi), VIP_SUCCESS);
  struct pair p;
  pair_open(&p, NULL, NULL, 0);
  CHECK_EQ(VipxFlushIdleVi(p.a), VIP_INVALID_STATE);   /* connected */
  pair_close(&p);
  CHECK_EQ(VipDeregisterMem(nic, mem, mh), VIP_SUCCESS);
  free(mem);
}

static void t_connect_without_nicd(void) {
  setenv("VERINIC_RUN", "/nonexistent-verinic", 1);
  uint8_t raw[64];
  VIP_NET_ADDRESS *a = (VIP_NET_ADDRESS *)raw;
  a->HostAddressLen = 2, a->DiscriminatorLen = 0;
  a->HostAddress[0] = 0, a->HostAddress[1] = 3;
  VIP_CONN_HANDLE c;
  VIP_VI_ATTRIBUTES ra;
  CHECK_EQ(VipConnectWait(nic, a, 10, a, &ra, &c), VIP_ERROR_RESOURCE);
  a->HostAddress[1] = 4;   /* not this NIC's address */
  CHECK_EQ(VipConnectWait(nic, a, 10, a, &ra, &c), VIP_INVALID_PARAMETER);
  unsetenv("VERINIC_RUN");
}

static void errcb(VIP_PVOID ctx, VIP_ERROR_DESCRIPTOR *e) {
  if (e->ErrorCode == VIP_ERROR_CATASTROPHIC) (*(int *)ctx)++;
}

/* Last: the NIC stops while a receive is outstanding. */
static void t_nic_dies(void) {
  static int called;
  CHECK_EQ(VipErrorCallback(nic, &called, errcb), VIP_SUCCESS);
  struct pair p;
  pair_open(&p, NULL, NULL, 0);
  memset(p.d, 0, sizeof *p.d);
  p.d->CS.SegCount = 1;
  seg(p.d, 0, p.mem + 8192, p.mh, 64);
  CHECK_EQ(VipPostRecv(p.b, p.d, p.mh), VIP_SUCCESS);
  fake_destroy(&F);
  VIP_DESCRIPTOR *got;
  CHECK_EQ(VipRecvWait(p.b, VIP_INFINITE, &got), VIP_SUCCESS);   /* flushed, not hung */
  CHECK(got == p.d && (got->CS.Status & VIP_STATUS_DESC_FLUSHED_ERROR));
  CHECK_EQ(VipRecvWait(p.b, VIP_INFINITE, &got), VIP_ERROR_RESOURCE);
  CHECK_EQ(VipPostSend(p.a, p.d, p.mh), VIP_ERROR_RESOURCE);
  CHECK_EQ(called, 1);
  CHECK_EQ(VipDestroyVi(p.a), VIP_SUCCESS);
  CHECK_EQ(VipDestroyVi(p.b), VIP_SUCCESS);
  CHECK_EQ(VipDeregisterMem(nic, p.mem, p.mh), VIP_SUCCESS);
  free(p.mem);
}

int main(void) {
  if (fake_create(&F, 3, true) != 0) return 2;
  if (VipOpenNic(F.name, &nic) != VIP_SUCCESS || VipCreatePtag(nic, &ptag) != VIP_SUCCESS ||
      VipCreatePtag(nic, &ptag2) != VIP_SUCCESS)
    return 3;
  RUN(t_misuse);
  RUN(t_send_recv_imm);
  RUN(t_errors);
  RUN(t_rdma_write);
  RUN(t_max_segments);
  RUN(t_cq_and_blocking);
  RUN(t_cq_wait_recv);
  RUN(t_cq_wait_once);
  RUN(t_break_flushes);
  RUN(t_name_service);
  RUN(t_flush_idle);
  RUN(t_connect_without_nicd);
  RUN(t_nic_dies);
  VipDestroyPtag(nic, ptag);
  VipDestroyPtag(nic, ptag2);
  if (VipCloseNic(nic) != VIP_SUCCESS) vt_failed++;
  return vt_summary();
}
