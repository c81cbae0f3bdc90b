/* The peer-to-peer connection model (VipConnectPeerRequest/Done/Wait) over a private nicd:
 * two processes request each other in either order (with delays, on two NICs and on one),
 * then exchange 24 messages each way with every byte checked; VipConnectPeerDone returns
 * VIP_NOT_DONE then VIP_SUCCESS; a peer that never comes is VIP_TIMEOUT within the time, for
 * the acceptor and the requester; a third party's VipConnectRequest to the acceptor's address
 * is rejected and the peers still connect; a plain VipConnectRequest from the peer's address
 * is taken as the peer; peers of different reliability levels fail; VipDestroyVi with a
 * request pending (VIP_INFINITE, both roles) ends it without a hang and VipCloseNic refuses
 * while the VI is there; a requester rejected again and again by a plain listener on the
 * peer's address asks every ~10 ms and VipDestroyVi ends it too; with a receive posted
 * VipDestroyVi refuses and the request goes on; a forked child has none of the parent's
 * requests, and the parent's goes on; bad parameters and states are refused with their codes. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/child.h"
#include "../common/nicd_run.h"
#include "vipl.h"
#include "vaddr.h"
#include "vtest.h"

VT_GLOBALS;

#define NMSG 24              /* each way; within the 32-slot receive ring, posted beforehand */
#define CAP 4096
#define DA 0x0a01            /* the sides' discriminators */
#define DB 0x0b02

static uint32_t msg_len(unsigned side, unsigned i) { return (i * 7919u + side * 331u) % CAP + 1; }
static uint8_t pat(unsigned side, unsigned i, uint32_t j) {
  return (uint8_t)(side * 97u + i * 131u + j * 7u + (j >> 8));
}


struct ep {
  VIP_NIC_HANDLE nic;
  VIP_PROTECTION_HANDLE ptag;
  VIP_VI_HANDLE vi;
  uint8_t *mem;             /* NMSG receive buffers, then NMSG messages to send */
  VIP_MEM_HANDLE mh;
  VIP_DESCRIPTOR *d;        /* NMSG receives, then NMSG sends */
};

static int ep_open(struct ep *e, int nic, VIP_RELIABILITY_LEVEL rel) {
  memset(e, 0, sizeof *e);
  VIP_VI_ATTRIBUTES a = {.ReliabilityLevel = rel, .MaxTransferSize = CAP};
  if (VipOpenNic(nicd_dev(nic), &e->nic) != VIP_SUCCESS) return 1;
  if (VipCreatePtag(e->nic, &e->ptag) != VIP_SUCCESS) return 2;
  a.Ptag = e->ptag;
  if (VipCreateVi(e->nic, &a, NULL, NULL, &e->vi) != VIP_SUCCESS) return 3;
  e->mem = malloc(2 * NMSG * CAP);
  e->d = aligned_alloc(64, 2 * NMSG * sizeof *e->d);
  if (!e->mem || !e->d) return 4;
  memset(e->d, 0, 2 * NMSG * sizeof *e->d);
  VIP_MEM_ATTRIBUTES ma = {.Ptag = e->ptag};
  if (VipRegisterMem(e->nic, e->mem, 2 * NMSG * CAP, &ma, &e->mh) != VIP_SUCCESS) return 5;
  return 0;
}

static int ep_close(struct ep *e) {
  VipDisconnect(e->vi);   /* may already be disconnected by the peer */
  VIP_DESCRIPTOR *x;
  while (VipSendDone(e->vi, &x) == VIP_SUCCESS || VipRecvDone(e->vi, &x) == VIP_SUCCESS) {}
  int bad = VipDestroyVi(e->vi) != VIP_SUCCESS;
  bad |= VipDeregisterMem(e->nic, e->mem, e->mh) != VIP_SUCCESS;
  bad |= VipDestroyPtag(e->nic, e->ptag) != VIP_SUCCESS;
  bad |= VipCloseNic(e->nic) != VIP_SUCCESS;
  free(e->mem), free(e->d);
  return bad ? 90 : 0;
}

static void fill(VIP_DESCRIPTOR *d, uint32_t ctl, void *addr, VIP_MEM_HANDLE mh, uint32_t len) {
  memset(d, 0, sizeof *d);
  d->CS.Control = ctl;
  d->CS.SegCount = 1;
  d->CS.Length = ctl == VIP_CONTROL_OP_SENDRECV ? len : 0;
  d->DS[0].Local.Data.Address = addr;
  d->DS[0].Local.Handle = mh;
  d->DS[0].Local.Length = len;
}

static int post_recvs(struct ep *e) {
  for (unsigned i = 0; i < NMSG; i++) {
    fill(&e->d[i], 0, e->mem + (size_t)i * CAP, e->mh, CAP);
    if (VipPostRecv(e->vi, &e->d[i], e->mh) != VIP_SUCCESS) return 1;
  }
  return 0;
}

/* Connected: sends NMSG messages of side's pattern, takes NMSG of the peer's (every byte
 * checked), sees every send DONE, then waits for the peer to be as far before it returns. */
static int exchange(struct ep *e, unsigned side, int to, int from) {
  for (unsigned i = 0; i < NMSG; i++) {
    uint8_t *p = e->mem + (size_t)(NMSG + i) * CAP;
    for (uint32_t j = 0; j < msg_len(side, i); j++) p[j] = pat(side, i, j);
    fill(&e->d[NMSG + i], VIP_CONTROL_OP_SENDRECV, p, e->mh, msg_len(side, i));
    if (VipPostSend(e->vi, &e->d[NMSG + i], e->mh) != VIP_SUCCESS) return 40;
  }
  for (unsigned i = 0; i < NMSG; i++) {
    VIP_DESCRIPTOR *got;
    if (VipRecvWait(e->vi, 10000, &got) != VIP_SUCCESS || got != &e->d[i]) return 41;
    if (got->CS.Status != (VIP_STATUS_DONE | VIP_STATUS_OP_RECEIVE) ||
        got->CS.Length != msg_len(1 - side, i))
      return 42;
    const uint8_t *p = e->mem + (size_t)i * CAP;
    for (uint32_t j = 0; j < got->CS.Length; j++)
      if (p[j] != pat(1 - side, i, j)) return 43;
  }
  for (unsigned i = 0; i < NMSG; i++) {
    VIP_DESCRIPTOR *got;
    if (VipSendWait(e->vi, 10000, &got) != VIP_SUCCESS || got != &e->d[NMSG + i] ||
        got->CS.Status != (VIP_STATUS_DONE | VIP_STATUS_OP_SEND))
      return 44;
  }
  char c;
  if (write(to, "x", 1) != 1 || read(from, &c, 1) != 1) return 45;
  return 0;
}

/* ---- two peers: side 0 ("a") and side 1 ("b") ---- */
enum scenario {
  S_A_FIRST,          /* a requests and polls PeerDone, b 200 ms later and waits */
  S_B_FIRST,          /* b first, a 200 ms later; both PeerWait */
  S_SAME_NIC,         /* both on nic0: the discriminators decide */
  S_THIRD_PARTY,      /* a waits; a third party's VipConnectRequest is rejected; then b */
  S_PLAIN_PEER,       /* b uses VipConnectRequest from its own address: taken as the peer */
  S_REL_MISMATCH,     /* a Reliable Delivery, b Unreliable: both fail */
};

struct side_cfg { int nic; unsigned disc, rnic, rdisc; };
static struct side_cfg cfg(int sc, unsigned side) {
  int nb = sc == S_SAME_NIC ? 0 : 1;
  return side == 0 ? (struct side_cfg){0, DA, (unsigned)nb, DB}
                   : (struct side_cfg){nb, DB, 0, DA};
}

static int third_party(int to, int from) {
  (void)from;
  vt_sleep_ms(300);   /* side 0 has made its request */
  struct ep e;
  int rc = ep_open(&e, 1, VIP_SERVICE_RELIABLE_DELIVERY);
  if (rc) return rc;
  uint8_t raw[64], rraw[64];
  VIP_NET_ADDRESS *la = (VIP_NET_ADDRESS *)raw, *ra = (VIP_NET_ADDRESS *)rraw;
  vaddr_set(la, 1, 0x7777);
  vaddr_set(ra, 0, DA);
  uint64_t t0 = vt_now_ms();
  VIP_VI_ATTRIBUTES at;
  VIP_RETURN r = VipConnectRequest(e.vi, la, ra, 5000, &at);
  if (r != VIP_REJECT) {
    fprintf(stderr, "third party: VipConnectRequest %d\n", r);
    return 50;
  }
  if (vt_now_ms() - t0 > 2000) return 51;
  if (write(to, "r", 1) != 1) return 52;
  return ep_close(&e);
}

static int peer_side(int sc, unsigned side, int to, int from) {
  struct side_cfg c = cfg(sc, side);
  struct ep e;
  VIP_RELIABILITY_LEVEL rel = sc == S_REL_MISMATCH && side == 1 ? VIP_SERVICE_UNRELIABLE
                                                                : VIP_SERVICE_RELIABLE_DELIVERY;
  int tp[2] = {-1, -1};
  pid_t t = -1;
  if (sc == S_THIRD_PARTY && side == 1) {   /* forked before this process opens its NIC */
    if (pipe(tp) != 0) return 7;
    t = run_child(third_party, tp[1], -1);
  }
  int rc = ep_open(&e, c.nic, rel);
  if (rc) return rc;
  if (post_recvs(&e)) return 6;
  uint8_t raw[64], rraw[64];
  VIP_NET_ADDRESS *la = (VIP_NET_ADDRESS *)raw, *ra = (VIP_NET_ADDRESS *)rraw;
  vaddr_set(la, (unsigned)c.nic, c.disc);
  vaddr_set(ra, c.rnic, c.rdisc);
  bool first = (sc == S_B_FIRST) == (side == 1);
  if (!first) vt_sleep_ms(200);
  if (t > 0) {   /* the third party was rejected (after side 0's request) */
    char x;
    if (read(tp[0], &x, 1) != 1) return 8;
    if (wait_child(t, "third party") != 0) return 9;
    close(tp[0]), close(tp[1]);
  }
  VIP_VI_ATTRIBUTES at;
  memset(&at, 0xa5, sizeof at);
  VIP_RETURN r;
  if (sc == S_PLAIN_PEER && side == 1) {
    r = VipConnectRequest(e.vi, la, ra, 5000, &at);
  } else {
    uint64_t t0 = vt_now_ms();
    r = VipConnectPeerRequest(e.vi, la, ra, sc == S_REL_MISMATCH ? 1000 : 10000);
    if (r != VIP_SUCCESS) return 10;
    if (vt_now_ms() - t0 > 100) return 11;   /* returns at once */
    VIP_VI_STATE st;
    if (VipQueryVi(e.vi, &st, NULL, NULL, NULL) != VIP_SUCCESS) return 12;
    if (st != VIP_STATE_CONNECT_PENDING && st != VIP_STATE_CONNECTED) return 13;
    if (VipConnectPeerRequest(e.vi, la, ra, 1000) != VIP_INVALID_STATE) return 14;
    if (VipConnectRequest(e.vi, la, ra, 1000, &at) != VIP_INVALID_STATE) return 15;
    if (sc == S_A_FIRST && side == 0) {   /* the peer comes 200 ms later: poll */
      unsigned not_done = 0;
      while ((r = VipConnectPeerDone(e.vi, &at)) == VIP_NOT_DONE) {
        not_done++;
        vt_sleep_ms(1);
      }
      if (not_done < 50) return 16;
    } else {
      r = VipConnectPeerWait(e.vi, &at);
    }
    if (VipConnectPeerDone(e.vi, NULL) != VIP_INVALID_STATE) return 18;   /* collected */
  }
  if (sc == S_REL_MISMATCH) {
    /* the acceptor (a) sees the level; the requester is rejected until its time is out */
    if (r != (side == 0 ? VIP_INVALID_RELIABILITY_LEVEL : VIP_TIMEOUT)) {
      fprintf(stderr, "side %u: %d\n", side, r);
      return 19;
    }
    return 0;   /* exit: libnic releases the VI and its receives */
  }
  if (r != VIP_SUCCESS) {
    fprintf(stderr, "side %u: connect %d\n", side, r);
    return 20;
  }
  if (at.ReliabilityLevel != VIP_SERVICE_RELIABLE_DELIVERY || at.MaxTransferSize == 0) return 21;
  VIP_VI_STATE st;
  if (VipQueryVi(e.vi, &st, NULL, NULL, NULL) != VIP_SUCCESS || st != VIP_STATE_CONNECTED)
    return 22;
  rc = exchange(&e, side, to, from);
  if (rc) return rc;
  return ep_close(&e);
}

static int side_a(int sc, int to, int from) { return peer_side(sc, 0, to, from); }
static int side_b(int sc, int to, int from) { return peer_side(sc, 1, to, from); }

static void run_scenario(enum scenario sc) {
  int rc[2];
  uint64_t t0 = vt_now_ms();
  run_pair(side_a, side_b, (int)sc, rc);
  CHECK_EQ(rc[0], 0);
  CHECK_EQ(rc[1], 0);
  CHECK(vt_now_ms() - t0 < 8000);
}

static void t_a_first_polls_done(void) { run_scenario(S_A_FIRST); }
static void t_b_first_both_wait(void) { run_scenario(S_B_FIRST); }
static void t_same_nic(void) { run_scenario(S_SAME_NIC); }
static void t_third_party_rejected(void) { run_scenario(S_THIRD_PARTY); }
static void t_plain_request_from_peer_address(void) { run_scenario(S_PLAIN_PEER); }
static void t_reliability_mismatch(void) { run_scenario(S_REL_MISMATCH); }

/* ---- one process (nic0), no peer ---- */
static VIP_NIC_HANDLE g_nic;
static VIP_PROTECTION_HANDLE g_ptag;

static VIP_VI_HANDLE new_vi(void) {
  VIP_VI_ATTRIBUTES a = {.ReliabilityLevel = VIP_SERVICE_RELIABLE_DELIVERY, .Ptag = g_ptag};
  VIP_VI_HANDLE vi = NULL;
  CHECK_EQ(VipCreateVi(g_nic, &a, NULL, NULL, &vi), VIP_SUCCESS);
  return vi;
}

/* Nobody comes: VIP_TIMEOUT after the time, for the acceptor (local address lower: its WAIT
 * times out) and the requester (its queued CONNECT does), by Wait and by Done. */
static void t_timeout(void) {
  VIP_VI_HANDLE vi = new_vi();
  uint8_t raw[64], rraw[64];
  VIP_NET_ADDRESS *la = (VIP_NET_ADDRESS *)raw, *ra = (VIP_NET_ADDRESS *)rraw;
  for (int k = 0; k < 3; k++) {
    vaddr_set(la, 0, 0x2000);
    vaddr_set(ra, k == 0 ? 1 : 0, k == 1 ? 0x1000 : 0x3000);   /* acceptor, requester, acceptor */
    uint64_t t0 = vt_now_ms();
    CHECK_EQ(VipConnectPeerRequest(vi, la, ra, 300), VIP_SUCCESS);
    VIP_RETURN r;
    if (k < 2) {
      r = VipConnectPeerWait(vi, NULL);
    } else {
      while ((r = VipConnectPeerDone(vi, NULL)) == VIP_NOT_DONE) vt_sleep_ms(1);
    }
    uint64_t ms = vt_now_ms() - t0;
    CHECK_EQ(r, VIP_TIMEOUT);
    CHECK(ms >= 295 && ms < 1000);
    VIP_VI_STATE st;
    CHECK_EQ(VipQueryVi(vi, &st, NULL, NULL, NULL), VIP_SUCCESS);
    CHECK_EQ(st, VIP_STATE_IDLE);
  }
  CHECK_EQ(VipDestroyVi(vi), VIP_SUCCESS);
}

static void t_bad_parameters(void) {
  VIP_VI_HANDLE vi = new_vi();
  uint8_t raw[64], rraw[64];
  VIP_NET_ADDRESS *la = (VIP_NET_ADDRESS *)raw, *ra = (VIP_NET_ADDRESS *)rraw;
  vaddr_set(la, 0, 0x10);
  vaddr_set(ra, 1, 0x10);
  CHECK_EQ(VipConnectPeerRequest(NULL, la, ra, 100), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipConnectPeerRequest(vi, NULL, ra, 100), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipConnectPeerRequest(vi, la, NULL, 100), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipConnectPeerRequest(vi, ra, la, 100), VIP_INVALID_PARAMETER);   /* not our node */
  CHECK_EQ(VipConnectPeerRequest(vi, la, la, 100), VIP_INVALID_PARAMETER);   /* ourselves */
  ra->HostAddressLen = 3;
  CHECK_EQ(VipConnectPeerRequest(vi, la, ra, 100), VIP_INVALID_PARAMETER);
  vaddr_set(ra, 1, 0x10);
  ra->DiscriminatorLen = 33;
  CHECK_EQ(VipConnectPeerRequest(vi, la, ra, 100), VIP_INVALID_PARAMETER);
  vaddr_set(ra, 1, 0x10);
  CHECK_EQ(VipConnectPeerDone(NULL, NULL), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipConnectPeerWait(NULL, NULL), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipConnectPeerDone(vi, NULL), VIP_INVALID_STATE);   /* none made */
  CHECK_EQ(VipConnectPeerWait(vi, NULL), VIP_INVALID_STATE);
  CHECK_EQ(VipDestroyVi(vi), VIP_SUCCESS);
  CHECK_EQ(VipConnectPeerDone(vi, NULL), VIP_INVALID_PARAMETER);   /* stale handle */
}

/* VipDestroyVi with a request pending without a time limit, as acceptor (blocked in WAIT)
 * and as requester (its CONNECT queued): returns within a bound and the handle is gone;
 * VipCloseNic refuses while the VI is there. (ASan checks that nothing is left behind.) */
static void t_destroy_pending(void) {
  uint8_t raw[64], rraw[64];
  VIP_NET_ADDRESS *la = (VIP_NET_ADDRESS *)raw, *ra = (VIP_NET_ADDRESS *)rraw;
  for (int k = 0; k < 2; k++) {
    VIP_NIC_HANDLE nic;
    VIP_PROTECTION_HANDLE ptag;
    CHECK_EQ(VipOpenNic(nicd_dev(1), &nic), VIP_SUCCESS);
    CHECK_EQ(VipCreatePtag(nic, &ptag), VIP_SUCCESS);
    VIP_VI_ATTRIBUTES a = {.ReliabilityLevel = VIP_SERVICE_RELIABLE_DELIVERY, .Ptag = ptag};
    VIP_VI_HANDLE vi;
    CHECK_EQ(VipCreateVi(nic, &a, NULL, NULL, &vi), VIP_SUCCESS);
    vaddr_set(la, 1, 0x4000);
    vaddr_set(ra, k == 0 ? 2 : 0, 0x4000);   /* k 0: acceptor (node 2 is none); 1: requester */
    CHECK_EQ(VipConnectPeerRequest(vi, la, ra, VIP_INFINITE), VIP_SUCCESS);
    vt_sleep_ms(100);
    CHECK_EQ(VipConnectPeerDone(vi, NULL), VIP_NOT_DONE);
    CHECK_EQ(VipCloseNic(nic), VIP_INVALID_STATE);   /* the VI is there */
    CHECK_EQ(VipConnectPeerDone(vi, NULL), VIP_NOT_DONE);
    uint64_t t0 = vt_now_ms();
    CHECK_EQ(VipDestroyVi(vi), VIP_SUCCESS);
    CHECK(vt_now_ms() - t0 < 1000);
    CHECK_EQ(VipConnectPeerDone(vi, NULL), VIP_INVALID_PARAMETER);
    CHECK_EQ(VipDestroyPtag(nic, ptag), VIP_SUCCESS);
    CHECK_EQ(VipCloseNic(nic), VIP_SUCCESS);
  }
}

/* A plain VipConnectWait on the acceptor's address that rejects every request (to is where
 * it reports how many it rejected when `from` closes). */
static int g_down_w = -1;   /* the parent's end of `from`: the rejecter closes its copy */
static int rejecter(int to, int from) {
  close(g_down_w);
  VIP_NIC_HANDLE nic;
  if (VipOpenNic(nicd_dev(0), &nic) != VIP_SUCCESS) return 1;
  uint8_t raw[64], rraw[64];
  VIP_NET_ADDRESS *la = (VIP_NET_ADDRESS *)raw, *ra = (VIP_NET_ADDRESS *)rraw;
  vaddr_set(la, 0, 0x6000);
  unsigned n = 0;
  if (write(to, "s", 1) != 1) return 2;
  for (;;) {
    VIP_CONN_HANDLE c;
    VIP_VI_ATTRIBUTES at;
    VIP_RETURN r = VipConnectWait(nic, la, 1000, ra, &at, &c);
    if (r == VIP_SUCCESS) {
      /* refused when the requester's VipDestroyVi ended its request in between */
      if (VipConnectReject(c) == VIP_SUCCESS) n++;
    } else if (r != VIP_TIMEOUT) {
      return 4;
    }
    char x;
    if (read(from, &x, 1) == 0) break;   /* `from` is non-blocking */
  }
  if (write(to, &n, sizeof n) != sizeof n) return 5;
  return VipCloseNic(nic) == VIP_SUCCESS ? 0 : 6;
}

/* A VI with a receive posted: VipDestroyVi refuses (VIP_INVALID_STATE) and the request goes
 * on to its timeout. In a child: the receive stays on the idle VI until the process exits. */
static char *g_buf;
static VIP_DESCRIPTOR *g_d;
static int destroy_refused(int to, int from) {
  (void)to, (void)from;
  VIP_NIC_HANDLE nic;
  VIP_PROTECTION_HANDLE ptag;
  VIP_VI_HANDLE vi;
  if (VipOpenNic(nicd_dev(1), &nic) != VIP_SUCCESS || VipCreatePtag(nic, &ptag) != VIP_SUCCESS)
    return 1;
  VIP_VI_ATTRIBUTES a = {.ReliabilityLevel = VIP_SERVICE_RELIABLE_DELIVERY, .Ptag = ptag};
  if (VipCreateVi(nic, &a, NULL, NULL, &vi) != VIP_SUCCESS) return 2;
  g_buf = malloc(256);
  g_d = aligned_alloc(64, sizeof *g_d);
  VIP_MEM_HANDLE mh;
  VIP_MEM_ATTRIBUTES ma = {.Ptag = ptag};
  if (!g_buf || !g_d || VipRegisterMem(nic, g_buf, 256, &ma, &mh) != VIP_SUCCESS) return 3;
  fill(g_d, 0, g_buf, mh, 256);
  if (VipPostRecv(vi, g_d, mh) != VIP_SUCCESS) return 4;
  uint8_t raw[64], rraw[64];
  VIP_NET_ADDRESS *la = (VIP_NET_ADDRESS *)raw, *ra = (VIP_NET_ADDRESS *)rraw;
  vaddr_set(la, 1, 0x6001);
  vaddr_set(ra, 0, 0x6100);
  uint64_t t0 = vt_now_ms();
  if (VipConnectPeerRequest(vi, la, ra, 300) != VIP_SUCCESS) return 5;
  if (VipDestroyVi(vi) != VIP_INVALID_STATE) return 6;
  if (VipConnectPeerDone(vi, NULL) != VIP_NOT_DONE) return 7;
  if (VipConnectPeerWait(vi, NULL) != VIP_TIMEOUT) return 8;
  if (vt_now_ms() - t0 < 295) return 9;
  return 0;
}

/* The requester rejected again and again (a plain listener on the peer's address): it asks
 * every ~10 ms; VipDestroyVi during that ends it within a bound. Then destroy_refused. */
/* A Reliable Delivery VI on NIC 1 of this process, with its NIC and tag. */
static VIP_VI_HANDLE open_vi_on_1(VIP_NIC_HANDLE *nic, VIP_PROTECTION_HANDLE *ptag) {
  CHECK_EQ(VipOpenNic(nicd_dev(1), nic), VIP_SUCCESS);
  CHECK_EQ(VipCreatePtag(*nic, ptag), VIP_SUCCESS);
  VIP_VI_ATTRIBUTES a = {.ReliabilityLevel = VIP_SERVICE_RELIABLE_DELIVERY, .Ptag = *ptag};
  VIP_VI_HANDLE vi = NULL;
  CHECK_EQ(VipCreateVi(*nic, &a, NULL, NULL, &vi), VIP_SUCCESS);
  return vi;
}

static void t_destroy_while_rejected(void) {
  int up[2], down[2];
  CHECK(pipe(up) == 0 && pipe2(down, O_NONBLOCK) == 0);
  g_down_w = down[1];
  pid_t rj = run_child(rejecter, up[1], down[0]);
  close(up[1]);   /* a rejecter that ends early is an end of file here, not a hang */
  char x;
  CHECK_EQ(read(up[0], &x, 1), 1);
  VIP_NIC_HANDLE nic;
  VIP_PROTECTION_HANDLE ptag;
  VIP_VI_HANDLE vi = open_vi_on_1(&nic, &ptag);
  uint8_t raw[64], rraw[64];
  VIP_NET_ADDRESS *la = (VIP_NET_ADDRESS *)raw, *ra = (VIP_NET_ADDRESS *)rraw;
  vaddr_set(la, 1, 0x6001);
  vaddr_set(ra, 0, 0x6000);   /* lower: we request */
  CHECK_EQ(VipConnectPeerRequest(vi, la, ra, VIP_INFINITE), VIP_SUCCESS);
  vt_sleep_ms(300);
  CHECK_EQ(VipConnectPeerDone(vi, NULL), VIP_NOT_DONE);
  uint64_t t0 = vt_now_ms();
  CHECK_EQ(VipDestroyVi(vi), VIP_SUCCESS);
  CHECK(vt_now_ms() - t0 < 1000);
  close(down[1]);
  unsigned n = 0;
  CHECK_EQ(read(up[0], &n, sizeof n), (ssize_t)sizeof n);
  CHECK_EQ(wait_child(rj, "rejecter"), 0);
  printf("     rejected %u times in 300 ms\n", n);
  fflush(stdout);   /* before the next fork */
  CHECK(n >= 3);
  close(up[0]), close(down[0]);
  CHECK_EQ(VipDestroyPtag(nic, ptag), VIP_SUCCESS);
  CHECK_EQ(VipCloseNic(nic), VIP_SUCCESS);
  pid_t c = run_child(destroy_refused, -1, -1);
  CHECK_EQ(wait_child(c, "destroy refused"), 0);
}

/* The requester's address is higher (node 1 vs 0): the request waits queued at nicd. A child
 * forked meanwhile has no request (Done and Wait: VIP_INVALID_STATE) and leaves the parent's
 * alone; a peer that comes later connects with the parent. */
static int late_peer(int to, int from) {
  (void)to, (void)from;
  vt_sleep_ms(300);   /* the parent has made its request and forked */
  struct ep e;
  int rc = ep_open(&e, 0, VIP_SERVICE_RELIABLE_DELIVERY);
  if (rc) return rc;
  uint8_t raw[64], rraw[64];
  VIP_NET_ADDRESS *la = (VIP_NET_ADDRESS *)raw, *ra = (VIP_NET_ADDRESS *)rraw;
  vaddr_set(la, 0, 0x5000);
  vaddr_set(ra, 1, 0x5000);
  if (VipConnectPeerRequest(e.vi, la, ra, 5000) != VIP_SUCCESS) return 30;
  VIP_RETURN r = VipConnectPeerWait(e.vi, NULL);
  if (r != VIP_SUCCESS) {
    fprintf(stderr, "late peer: %d\n", r);
    return 31;
  }
  return ep_close(&e);
}

static void t_fork(void) {
  pid_t q = run_child(late_peer, -1, -1);   /* forked while this process has no thread */
  VIP_NIC_HANDLE nic;
  VIP_PROTECTION_HANDLE ptag;
  VIP_VI_HANDLE vi = open_vi_on_1(&nic, &ptag);
  uint8_t raw[64], rraw[64];
  VIP_NET_ADDRESS *la = (VIP_NET_ADDRESS *)raw, *ra = (VIP_NET_ADDRESS *)rraw;
  vaddr_set(la, 1, 0x5000);
  vaddr_set(ra, 0, 0x5000);
  CHECK_EQ(VipConnectPeerRequest(vi, la, ra, 10000), VIP_SUCCESS);
  vt_sleep_ms(50);
  pid_t p = fork();
  if (p == 0) {
    int rc = 0;
    if (VipConnectPeerDone(vi, NULL) != VIP_INVALID_STATE) rc |= 1;
    if (VipConnectPeerWait(vi, NULL) != VIP_INVALID_STATE) rc |= 2;
    _exit(rc);
  }
  int st = 0;
  CHECK(waitpid(p, &st, 0) == p);
  CHECK(WIFEXITED(st));
  CHECK_EQ(WEXITSTATUS(st), 0);
  CHECK_EQ(VipConnectPeerDone(vi, NULL), VIP_NOT_DONE);   /* the parent's goes on */
  VIP_VI_ATTRIBUTES at;
  CHECK_EQ(VipConnectPeerWait(vi, &at), VIP_SUCCESS);
  CHECK_EQ(at.ReliabilityLevel, VIP_SERVICE_RELIABLE_DELIVERY);
  CHECK_EQ(wait_child(q, "late peer"), 0);
  VipDisconnect(vi);
  CHECK_EQ(VipDestroyVi(vi), VIP_SUCCESS);
  CHECK_EQ(VipDestroyPtag(nic, ptag), VIP_SUCCESS);
  CHECK_EQ(VipCloseNic(nic), VIP_SUCCESS);
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  pid_t nicd = nicd_start(2, false);
  CHECK(nicd > 0);
  if (nicd <= 0) return vt_summary();
  RUN(t_a_first_polls_done);
  RUN(t_b_first_both_wait);
  RUN(t_same_nic);
  RUN(t_third_party_rejected);
  RUN(t_plain_request_from_peer_address);
  RUN(t_reliability_mismatch);
  CHECK_EQ(VipOpenNic(nicd_dev(0), &g_nic), VIP_SUCCESS);
  CHECK_EQ(VipCreatePtag(g_nic, &g_ptag), VIP_SUCCESS);
  RUN(t_timeout);
  RUN(t_bad_parameters);
  CHECK_EQ(VipDestroyPtag(g_nic, g_ptag), VIP_SUCCESS);
  CHECK_EQ(VipCloseNic(g_nic), VIP_SUCCESS);
  RUN(t_destroy_pending);
  RUN(t_fork);
  RUN(t_destroy_while_rejected);
  nicd_stop(nicd, false);
  return vt_summary();
}
