/* Notification (VipSendNotify, VipRecvNotify, VipCQNotify) over a private nicd: a receive
 * handler that re-arms itself, reposts and sends credits from the provider thread across 600
 * messages (every byte checked), with the credits' completions taken by a send handler; the
 * same through a CQ handler; a second Notify, and Done or Wait while armed (a wait already
 * blocked too), return VIP_ERROR_RESOURCE; handlers calling VIPL (re-arm, post, destroy their
 * own VI, VipCloseNic refused from the thread); VipDestroyVi, VipDestroyCQ and VipCloseNic with
 * notifications armed (nothing called afterwards, no hang) and while a handler runs (they
 * return after it); a forked child has neither the parent's thread nor its notifications;
 * a peer's VipDisconnect, a peer SIGKILLed and nicd SIGKILLed complete the armed
 * notifications with error statuses within bounded time. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
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

#define NMSG 600
#define CAP 4096
#define WINDOW 16            /* receives the server keeps posted */
#define CREDIT_EVERY 8
#define NCREDIT (NMSG / CREDIT_EVERY + 2)

enum scenario { S_RECV_NOTIFY, S_CQ_NOTIFY, S_PEER_DISCONNECT, S_PEER_KILLED };

static uint32_t msg_len(unsigned i) { return (i * 7919u) % CAP + 1; }
static uint8_t pat(unsigned i, uint32_t j) { return (uint8_t)(i * 131u + j * 7u + (j >> 8)); }


static void fill(VIP_DESCRIPTOR *d, uint32_t ctl, void *addr, VIP_MEM_HANDLE mh, uint32_t len) {
  memset(d, 0, sizeof *d);
  d->CS.Control = ctl;
  d->CS.SegCount = 1;
  d->CS.Length = len;
  d->DS[0].Local.Data.Address = addr;
  d->DS[0].Local.Handle = mh;
  d->DS[0].Local.Length = len;
}

struct ep {
  VIP_NIC_HANDLE nic;
  VIP_PROTECTION_HANDLE ptag;
  VIP_VI_HANDLE vi;
  VIP_CQ_HANDLE cq;
  uint8_t *mem;             /* WINDOW receive buffers of CAP, or the client's messages */
  size_t memlen;
  VIP_MEM_HANDLE mh;
  VIP_DESCRIPTOR *d;        /* WINDOW receives, then NCREDIT credit sends */
};

static int ep_open(struct ep *e, const char *dev, bool cq, size_t memlen) {
  memset(e, 0, sizeof *e);
  VIP_VI_ATTRIBUTES a = {.ReliabilityLevel = VIP_SERVICE_RELIABLE_DELIVERY, .MaxTransferSize = CAP};
  if (VipOpenNic(dev, &e->nic) != VIP_SUCCESS) return 1;
  if (VipCreatePtag(e->nic, &e->ptag) != VIP_SUCCESS) return 2;
  a.Ptag = e->ptag;
  if (cq && VipCreateCQ(e->nic, 64, &e->cq) != VIP_SUCCESS) return 3;
  if (VipCreateVi(e->nic, &a, NULL, e->cq, &e->vi) != VIP_SUCCESS) return 4;
  e->memlen = memlen;
  e->mem = malloc(memlen);
  e->d = aligned_alloc(64, (WINDOW + NCREDIT) * sizeof *e->d);
  if (!e->mem || !e->d) return 5;
  memset(e->d, 0, (WINDOW + NCREDIT) * sizeof *e->d);
  VIP_MEM_ATTRIBUTES ma = {.Ptag = e->ptag};
  if (VipRegisterMem(e->nic, e->mem, memlen, &ma, &e->mh) != VIP_SUCCESS) return 6;
  return 0;
}

static int ep_close(struct ep *e) {
  VipDisconnect(e->vi);
  VIP_DESCRIPTOR *x;
  while (VipSendDone(e->vi, &x) == VIP_SUCCESS || VipRecvDone(e->vi, &x) == VIP_SUCCESS) {}
  int bad = VipDestroyVi(e->vi) != VIP_SUCCESS;
  if (e->cq) bad |= VipDestroyCQ(e->cq) != VIP_SUCCESS;
  bad |= VipDeregisterMem(e->nic, e->mem, e->mh) != VIP_SUCCESS;
  bad |= VipDestroyPtag(e->nic, e->ptag) != VIP_SUCCESS;
  bad |= VipCloseNic(e->nic) != VIP_SUCCESS;
  free(e->mem), free(e->d);
  return bad ? 90 : 0;
}

/* ---- the server (nic0): everything it takes, it takes in handlers ---- */
struct srv {
  struct ep e;
  pthread_t main;
  atomic_int got, sent_done, errors, in_handler, overlap, flushed;
  atomic_int wrong_thread;
  unsigned ncredit;
};

static void on_send(VIP_PVOID ctx, VIP_NIC_HANDLE nic, VIP_VI_HANDLE vi, VIP_DESCRIPTOR *d);

static void check_entry(struct srv *s, VIP_NIC_HANDLE nic, VIP_VI_HANDLE vi) {
  if (atomic_fetch_add(&s->in_handler, 1)) atomic_fetch_add(&s->overlap, 1);
  if (pthread_equal(pthread_self(), s->main)) atomic_fetch_add(&s->wrong_thread, 1);
  if (nic != s->e.nic || vi != s->e.vi) atomic_fetch_add(&s->errors, 1);
}

/* One received message: check every byte, repost, credit the client every CREDIT_EVERY. */
static void take_message(struct srv *s, VIP_DESCRIPTOR *d) {
  unsigned i = (unsigned)atomic_load(&s->got);
  uint32_t want = VIP_STATUS_DONE | VIP_STATUS_OP_RECEIVE | VIP_STATUS_IMMEDIATE;
  bool ok = d->CS.Status == want && d->CS.ImmediateData == i && d->CS.Length == msg_len(i);
  uint8_t *p = d->DS[0].Local.Data.Address;
  for (uint32_t j = 0; ok && j < d->CS.Length; j++) ok = p[j] == pat(i, j);
  if (!ok) {
    fprintf(stderr, "server: message %u: status %#x imm %u len %u\n", i, d->CS.Status,
            d->CS.ImmediateData, d->CS.Length);
    atomic_fetch_add(&s->errors, 1);
    return;
  }
  atomic_fetch_add(&s->got, 1);
  fill(d, 0, p, s->e.mh, CAP);
  d->CS.Length = 0;
  if (VipPostRecv(s->e.vi, d, s->e.mh) != VIP_SUCCESS) atomic_fetch_add(&s->errors, 1);
  if ((i + 1) % CREDIT_EVERY == 0 && s->ncredit < NCREDIT) {
    VIP_DESCRIPTOR *c = &s->e.d[WINDOW + s->ncredit++];
    memset(c, 0, sizeof *c);
    c->CS.Control = VIP_CONTROL_OP_SENDRECV | VIP_CONTROL_IMMEDIATE;
    c->CS.ImmediateData = i + 1;
    if (VipPostSend(s->e.vi, c, s->e.mh) != VIP_SUCCESS) atomic_fetch_add(&s->errors, 1);
  }
}

static void on_recv(VIP_PVOID ctx, VIP_NIC_HANDLE nic, VIP_VI_HANDLE vi, VIP_DESCRIPTOR *d) {
  struct srv *s = ctx;
  check_entry(s, nic, vi);
  if (d->CS.Status & VIP_STATUS_DESC_FLUSHED_ERROR) atomic_fetch_add(&s->flushed, 1);
  else take_message(s, d);
  if (VipRecvNotify(vi, ctx, on_recv) != VIP_SUCCESS) atomic_fetch_add(&s->errors, 1);
  atomic_fetch_sub(&s->in_handler, 1);
}

static void on_send(VIP_PVOID ctx, VIP_NIC_HANDLE nic, VIP_VI_HANDLE vi, VIP_DESCRIPTOR *d) {
  struct srv *s = ctx;
  check_entry(s, nic, vi);
  unsigned k = (unsigned)atomic_load(&s->sent_done);
  if (d != &s->e.d[WINDOW + k] || d->CS.Status != (VIP_STATUS_DONE | VIP_STATUS_OP_SEND))
    atomic_fetch_add(&s->errors, 1);
  atomic_fetch_add(&s->sent_done, 1);
  if (VipSendNotify(vi, ctx, on_send) != VIP_SUCCESS) atomic_fetch_add(&s->errors, 1);
  atomic_fetch_sub(&s->in_handler, 1);
}

static void on_cq(VIP_PVOID ctx, VIP_NIC_HANDLE nic, VIP_VI_HANDLE vi, VIP_BOOLEAN rq) {
  struct srv *s = ctx;
  check_entry(s, nic, vi);
  VIP_DESCRIPTOR *d = NULL;
  if (!rq || VipRecvDone(vi, &d) != VIP_SUCCESS) atomic_fetch_add(&s->errors, 1);
  else take_message(s, d);
  if (VipCQNotify(s->e.cq, ctx, on_cq) != VIP_SUCCESS) atomic_fetch_add(&s->errors, 1);
  atomic_fetch_sub(&s->in_handler, 1);
}

static int server(int sc, int to_client, int from_client) {
  static struct srv s;
  s.main = pthread_self();
  int rc = ep_open(&s.e, nicd_dev(0), sc == S_CQ_NOTIFY, (size_t)WINDOW * CAP);
  if (rc) return 10 + rc;
  for (unsigned i = 0; i < WINDOW; i++) {
    fill(&s.e.d[i], 0, s.e.mem + (size_t)i * CAP, s.e.mh, CAP);
    s.e.d[i].CS.Length = 0;
    if (VipPostRecv(s.e.vi, &s.e.d[i], s.e.mh) != VIP_SUCCESS) return 20;
  }
  if (sc == S_CQ_NOTIFY) {
    if (VipCQNotify(s.e.cq, &s, on_cq) != VIP_SUCCESS) return 21;
  } else if (VipRecvNotify(s.e.vi, &s, on_recv) != VIP_SUCCESS) {
    return 21;
  }
  if (VipSendNotify(s.e.vi, &s, on_send) != VIP_SUCCESS) return 22;
  uint8_t raw[64], rraw[64];
  VIP_NET_ADDRESS *la = (VIP_NET_ADDRESS *)raw, *ra = (VIP_NET_ADDRESS *)rraw;
  vaddr_set(la, 0, 0x200 + sc);
  VIP_CONN_HANDLE conn;
  VIP_VI_ATTRIBUTES rattr;
  if (VipConnectWait(s.e.nic, la, 20000, ra, &rattr, &conn) != VIP_SUCCESS) return 23;
  if (VipConnectAccept(conn, s.e.vi) != VIP_SUCCESS) return 24;
  if (write(to_client, "a", 1) != 1) return 25;
  if (sc == S_RECV_NOTIFY || sc == S_CQ_NOTIFY) {
    uint64_t t0 = vt_now_ms();
    while ((atomic_load(&s.got) < NMSG || atomic_load(&s.sent_done) < NMSG / CREDIT_EVERY) &&
           !atomic_load(&s.errors) && vt_now_ms() - t0 < 60000)
      vt_sleep_ms(2);
    if (atomic_load(&s.got) != NMSG || atomic_load(&s.sent_done) != NMSG / CREDIT_EVERY) {
      fprintf(stderr, "server: %d messages, %d credits done, %d errors\n", atomic_load(&s.got),
              atomic_load(&s.sent_done), atomic_load(&s.errors));
      return 30;
    }
    char c;
    if (read(from_client, &c, 1) != 1) return 31;   /* the client has its credits */
  } else {
    /* The peer goes away (disconnects, or is SIGKILLed); every armed receive completes
     * flushed through the handler, which re-arms itself. */
    char c;
    if (read(from_client, &c, 1) != 1) return 40;
    uint64_t t0 = vt_now_ms();
    while (atomic_load(&s.flushed) < WINDOW && vt_now_ms() - t0 < 5000) vt_sleep_ms(1);
    uint64_t ms = vt_now_ms() - t0;
    if (atomic_load(&s.flushed) != WINDOW) {
      fprintf(stderr, "server: %d of %d receives flushed after %llu ms\n",
              atomic_load(&s.flushed), WINDOW, (unsigned long long)ms);
      return 41;
    }
    printf("  server: %d receives flushed to the handler %llu ms after the peer %s\n", WINDOW,
           (unsigned long long)ms, sc == S_PEER_KILLED ? "was killed" : "disconnected");
    if (ms > 2000) return 42;
    VIP_VI_STATE st;
    VIP_VI_ATTRIBUTES a;
    VIP_BOOLEAN se, re;
    if (VipQueryVi(s.e.vi, &st, &a, &se, &re) != VIP_SUCCESS || st != VIP_STATE_ERROR) return 43;
  }
  if (atomic_load(&s.errors) || atomic_load(&s.overlap) || atomic_load(&s.wrong_thread)) {
    fprintf(stderr, "server: %d errors, %d overlapping calls, %d on the program's thread\n",
            atomic_load(&s.errors), atomic_load(&s.overlap), atomic_load(&s.wrong_thread));
    return 50;
  }
  /* Still armed (the handlers re-armed): destroying drops them. */
  int got = atomic_load(&s.got), done = atomic_load(&s.sent_done);
  if (VipRecvDone(s.e.vi, &(VIP_DESCRIPTOR *){NULL}) != (sc == S_CQ_NOTIFY ? VIP_NOT_DONE : VIP_ERROR_RESOURCE))
    return 51;
  if ((sc == S_RECV_NOTIFY || sc == S_CQ_NOTIFY) && write(to_client, "k", 1) != 1) return 53;
  rc = ep_close(&s.e);
  if (atomic_load(&s.got) != got || atomic_load(&s.sent_done) != done) return 52;
  return rc;
}

/* ---- the client (nic1): sends NMSG within the server's credits ---- */
static int client_run(int sc, int to_server, int from_server) {
  struct ep e;
  size_t total = (size_t)NMSG * CAP;
  int rc = ep_open(&e, nicd_dev(1), false, total);
  if (rc) return 10 + rc;
  for (unsigned i = 0; i < NMSG; i++)
    for (uint32_t j = 0; j < msg_len(i); j++) e.mem[(size_t)i * CAP + j] = pat(i, j);
  for (unsigned i = 0; i < NCREDIT; i++) {
    fill(&e.d[i], 0, e.mem, e.mh, 0);
    e.d[i].CS.SegCount = 0;
    if (VipPostRecv(e.vi, &e.d[i], e.mh) != VIP_SUCCESS) return 20;
  }
  uint8_t raw[64], rraw[64];
  VIP_NET_ADDRESS *la = (VIP_NET_ADDRESS *)raw, *ra = (VIP_NET_ADDRESS *)rraw;
  vaddr_set(la, 1, 0x200 + sc);
  vaddr_set(ra, 0, 0x200 + sc);
  VIP_VI_ATTRIBUTES rattr;
  if (VipConnectRequest(e.vi, la, ra, 20000, &rattr) != VIP_SUCCESS) return 21;
  char c;
  if (read(from_server, &c, 1) != 1) return 22;
  if (sc == S_PEER_DISCONNECT) {
    if (write(to_server, "d", 1) != 1) return 23;
    if (VipDisconnect(e.vi) != VIP_SUCCESS) return 24;
    return ep_close(&e);
  }
  if (sc == S_PEER_KILLED) {
    if (write(to_server, "k", 1) != 1) return 23;
    raise(SIGKILL);
  }
  VIP_DESCRIPTOR *sd = aligned_alloc(64, NMSG * sizeof *sd);
  if (!sd) return 19;
  unsigned credit = 0, ncr = 0, done = 0;
  for (unsigned i = 0; i < NMSG; i++) {
    while (i >= credit + WINDOW) {
      VIP_DESCRIPTOR *got;
      if (VipRecvWait(e.vi, 30000, &got) != VIP_SUCCESS || got != &e.d[ncr++]) return 30;
      credit = got->CS.ImmediateData;
    }
    fill(&sd[i], VIP_CONTROL_OP_SENDRECV | VIP_CONTROL_IMMEDIATE, e.mem + (size_t)i * CAP, e.mh,
         msg_len(i));
    sd[i].CS.ImmediateData = i;
    if (VipPostSend(e.vi, &sd[i], e.mh) != VIP_SUCCESS) return 31;
    VIP_DESCRIPTOR *got;
    while (VipSendDone(e.vi, &got) == VIP_SUCCESS)
      if (got != &sd[done++] || got->CS.Status != (VIP_STATUS_DONE | VIP_STATUS_OP_SEND)) return 32;
  }
  while (done < NMSG) {
    VIP_DESCRIPTOR *got;
    if (VipSendWait(e.vi, 30000, &got) != VIP_SUCCESS || got != &sd[done++] ||
        got->CS.Status != (VIP_STATUS_DONE | VIP_STATUS_OP_SEND))
      return 33;
  }
  while (ncr < NMSG / CREDIT_EVERY) {
    VIP_DESCRIPTOR *got;
    if (VipRecvWait(e.vi, 30000, &got) != VIP_SUCCESS || got != &e.d[ncr++]) return 34;
  }
  if (write(to_server, "c", 1) != 1) return 35;
  if (read(from_server, &c, 1) != 1) return 36;   /* the server has looked at its VI */
  free(sd);
  return ep_close(&e);
}

/* The killed peer is a grandchild, so the client process itself reports success. */
static int client(int sc, int to_server, int from_server) {
  if (sc != S_PEER_KILLED) return client_run(sc, to_server, from_server);
  pid_t p = fork();
  if (p == 0) _exit(client_run(sc, to_server, from_server));
  int st = 0;
  if (waitpid(p, &st, 0) != p || !WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL) return 60;
  return 0;
}

static void run_scenario(enum scenario sc) {
  int rc[2];
  run_pair(server, client, (int)sc, rc);
  CHECK_EQ(rc[0], 0);
  CHECK_EQ(rc[1], 0);
}

static void t_recv_notify_rearms_600_messages(void) { run_scenario(S_RECV_NOTIFY); }
static void t_cq_notify_600_messages(void) { run_scenario(S_CQ_NOTIFY); }
static void t_peer_disconnect_flushes_to_handler(void) { run_scenario(S_PEER_DISCONNECT); }
static void t_peer_killed_flushes_to_handler(void) { run_scenario(S_PEER_KILLED); }

/* ---- one process, no peer: malformed sends complete at once, without the NIC ---- */
static VIP_NIC_HANDLE g_nic;
static VIP_PROTECTION_HANDLE g_ptag;
static atomic_int g_calls, g_returned, g_errors;
static VIP_DESCRIPTOR *g_bad;   /* 128 malformed sends */
static pthread_t g_main;

static void local_open(VIP_VI_HANDLE *vi, VIP_CQ_HANDLE cq) {
  VIP_VI_ATTRIBUTES a = {.ReliabilityLevel = VIP_SERVICE_RELIABLE_DELIVERY, .Ptag = g_ptag};
  CHECK_EQ(VipCreateVi(g_nic, &a, cq, cq, vi), VIP_SUCCESS);
}

/* A send whose CS.Length is not its segments' sum: VIPL completes it VIP_STATUS_FORMAT_ERROR. */
static VIP_RETURN post_bad(VIP_VI_HANDLE vi, unsigned k) {
  VIP_DESCRIPTOR *d = &g_bad[k];
  memset(d, 0, sizeof *d);
  d->CS.Length = 5;
  return VipPostSend(vi, d, 0);
}

static void h_count(VIP_PVOID ctx, VIP_NIC_HANDLE nic, VIP_VI_HANDLE vi, VIP_DESCRIPTOR *d) {
  (void)ctx, (void)nic, (void)vi, (void)d;
  atomic_fetch_add(&g_calls, 1);
}
static void h_cq_count(VIP_PVOID ctx, VIP_NIC_HANDLE nic, VIP_VI_HANDLE vi, VIP_BOOLEAN rq) {
  (void)ctx, (void)nic, (void)vi, (void)rq;
  atomic_fetch_add(&g_calls, 1);
}

struct waiter { VIP_VI_HANDLE vi; VIP_CQ_HANDLE cq; VIP_RETURN r; };
static void *wait_recv(void *arg) {
  struct waiter *w = arg;
  VIP_DESCRIPTOR *d;
  w->r = VipRecvWait(w->vi, VIP_INFINITE, &d);
  return NULL;
}
static void *wait_cq(void *arg) {
  struct waiter *w = arg;
  VIP_VI_HANDLE vh;
  VIP_BOOLEAN rq;
  w->r = VipCQWait(w->cq, VIP_INFINITE, &vh, &rq);
  return NULL;
}

static void t_one_taker_per_queue(void) {
  VIP_VI_HANDLE vi;
  VIP_CQ_HANDLE cq;
  CHECK_EQ(VipCreateCQ(g_nic, 16, &cq), VIP_SUCCESS);
  VIP_VI_ATTRIBUTES a = {.ReliabilityLevel = VIP_SERVICE_RELIABLE_DELIVERY, .Ptag = g_ptag};
  CHECK_EQ(VipCreateVi(g_nic, &a, NULL, cq, &vi), VIP_SUCCESS);
  VIP_DESCRIPTOR *d;
  VIP_VI_HANDLE vh;
  VIP_BOOLEAN rq;
  CHECK_EQ(VipRecvNotify(vi, NULL, NULL), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipRecvNotify(NULL, NULL, h_count), VIP_INVALID_PARAMETER);
  CHECK_EQ(VipSendNotify(g_nic, NULL, h_count), VIP_INVALID_PARAMETER);   /* not a VI */
  CHECK_EQ(VipCQNotify(vi, NULL, h_cq_count), VIP_INVALID_PARAMETER);     /* not a CQ */
  /* A wait blocked when a Notify is armed gives the queue up within a slice. */
  struct waiter w = {vi, cq, VIP_SUCCESS}, wc = {vi, cq, VIP_SUCCESS};
  pthread_t t, tc;
  CHECK(pthread_create(&t, NULL, wait_recv, &w) == 0);
  CHECK(pthread_create(&tc, NULL, wait_cq, &wc) == 0);
  vt_sleep_ms(30);
  uint64_t t0 = vt_now_ms();
  CHECK_EQ(VipRecvNotify(vi, NULL, h_count), VIP_SUCCESS);
  CHECK_EQ(VipCQNotify(cq, NULL, h_cq_count), VIP_SUCCESS);
  pthread_join(t, NULL);
  pthread_join(tc, NULL);
  CHECK_EQ(w.r, VIP_ERROR_RESOURCE);
  CHECK_EQ(wc.r, VIP_ERROR_RESOURCE);
  CHECK(vt_now_ms() - t0 < 1000);
  /* Armed: a second Notify, Done and Wait are refused; the other queue is not concerned. */
  CHECK_EQ(VipRecvNotify(vi, NULL, h_count), VIP_ERROR_RESOURCE);
  CHECK_EQ(VipRecvDone(vi, &d), VIP_ERROR_RESOURCE);
  CHECK_EQ(VipRecvWait(vi, 10, &d), VIP_ERROR_RESOURCE);
  CHECK_EQ(VipSendDone(vi, &d), VIP_NOT_DONE);
  CHECK_EQ(VipCQNotify(cq, NULL, h_cq_count), VIP_ERROR_RESOURCE);
  CHECK_EQ(VipCQDone(cq, &vh, &rq), VIP_ERROR_RESOURCE);
  CHECK_EQ(VipCQWait(cq, 10, &vh, &rq), VIP_ERROR_RESOURCE);
  /* Destroyed while armed: dropped, never called. CQ first (VIs use it): refused. */
  CHECK_EQ(VipDestroyCQ(cq), VIP_INVALID_STATE);
  CHECK_EQ(VipDestroyVi(vi), VIP_SUCCESS);
  CHECK_EQ(VipDestroyCQ(cq), VIP_SUCCESS);
  vt_sleep_ms(20);
  CHECK_EQ(atomic_load(&g_calls), 0);
}

/* A handler re-arms and posts from the provider thread, 100 times. */
static VIP_VI_HANDLE g_vi;
static void h_chain(VIP_PVOID ctx, VIP_NIC_HANDLE nic, VIP_VI_HANDLE vi, VIP_DESCRIPTOR *d) {
  (void)ctx;
  int n = atomic_fetch_add(&g_calls, 1);
  if (pthread_equal(pthread_self(), g_main) || nic != g_nic || vi != g_vi || d != &g_bad[n] ||
      d->CS.Status != (VIP_STATUS_DONE | VIP_STATUS_OP_SEND | VIP_STATUS_FORMAT_ERROR))
    atomic_fetch_add(&g_errors, 1);
  if (n + 1 < 100) {
    if (VipSendNotify(vi, ctx, h_chain) != VIP_SUCCESS) atomic_fetch_add(&g_errors, 1);
    if (post_bad(vi, (unsigned)n + 1) != VIP_SUCCESS) atomic_fetch_add(&g_errors, 1);
  }
}

static void t_handler_calls_vipl(void) {
  atomic_store(&g_calls, 0);
  local_open(&g_vi, NULL);
  CHECK_EQ(VipSendNotify(g_vi, NULL, h_chain), VIP_SUCCESS);
  CHECK_EQ(post_bad(g_vi, 0), VIP_SUCCESS);
  uint64_t t0 = vt_now_ms();
  while (atomic_load(&g_calls) < 100 && vt_now_ms() - t0 < 5000) vt_sleep_ms(1);
  vt_sleep_ms(10);
  CHECK_EQ(atomic_load(&g_calls), 100);
  CHECK_EQ(atomic_load(&g_errors), 0);
  VIP_DESCRIPTOR *d;
  CHECK_EQ(VipSendDone(g_vi, &d), VIP_NOT_DONE);   /* every one went to the handler */
  CHECK_EQ(VipDestroyVi(g_vi), VIP_SUCCESS);
}

/* VipDestroyVi while the VI's handler runs returns after it; nothing is called afterwards. */
static void h_slow(VIP_PVOID ctx, VIP_NIC_HANDLE nic, VIP_VI_HANDLE vi, VIP_DESCRIPTOR *d) {
  (void)ctx, (void)nic, (void)d;
  atomic_fetch_add(&g_calls, 1);
  VipSendNotify(vi, ctx, h_slow);   /* armed again: VipDestroyVi drops it */
  vt_sleep_ms(200);
  atomic_fetch_add(&g_returned, 1);
}

static void t_destroy_waits_for_handler(void) {
  atomic_store(&g_calls, 0);
  atomic_store(&g_returned, 0);
  VIP_VI_HANDLE vi;
  local_open(&vi, NULL);
  CHECK_EQ(VipSendNotify(vi, NULL, h_slow), VIP_SUCCESS);
  CHECK_EQ(post_bad(vi, 0), VIP_SUCCESS);
  CHECK_EQ(post_bad(vi, 1), VIP_SUCCESS);   /* complete too, never delivered */
  uint64_t t0 = vt_now_ms();
  while (!atomic_load(&g_calls) && vt_now_ms() - t0 < 5000) vt_sleep_ms(1);
  CHECK_EQ(atomic_load(&g_calls), 1);
  CHECK_EQ(VipDestroyVi(vi), VIP_SUCCESS);
  CHECK_EQ(atomic_load(&g_returned), 1);   /* the handler had returned */
  vt_sleep_ms(50);
  CHECK_EQ(atomic_load(&g_calls), 1);
}

/* A handler destroys its own VI and tries to close the NIC (refused: the thread cannot join
 * itself); the program closes it afterwards. */
static VIP_NIC_HANDLE g_nic2;
static VIP_PROTECTION_HANDLE g_ptag2;
static atomic_int g_destroy_rc = -1, g_close_rc = -1;
static void h_destroy(VIP_PVOID ctx, VIP_NIC_HANDLE nic, VIP_VI_HANDLE vi, VIP_DESCRIPTOR *d) {
  (void)ctx, (void)d;
  atomic_store(&g_destroy_rc, VipDestroyVi(vi));
  VipDestroyPtag(nic, g_ptag2);
  atomic_store(&g_close_rc, VipCloseNic(nic));
  atomic_fetch_add(&g_calls, 1);
}

static void t_handler_destroys_its_vi(void) {
  atomic_store(&g_calls, 0);
  CHECK_EQ(VipOpenNic(nicd_dev(0), &g_nic2), VIP_SUCCESS);
  CHECK_EQ(VipCreatePtag(g_nic2, &g_ptag2), VIP_SUCCESS);
  VIP_VI_ATTRIBUTES a = {.ReliabilityLevel = VIP_SERVICE_UNRELIABLE, .Ptag = g_ptag2};
  VIP_VI_HANDLE vi;
  CHECK_EQ(VipCreateVi(g_nic2, &a, NULL, NULL, &vi), VIP_SUCCESS);
  CHECK_EQ(VipSendNotify(vi, NULL, h_destroy), VIP_SUCCESS);
  VIP_DESCRIPTOR *d = &g_bad[0];
  memset(d, 0, sizeof *d);
  d->CS.Length = 5;
  CHECK_EQ(VipPostSend(vi, d, 0), VIP_SUCCESS);
  uint64_t t0 = vt_now_ms();
  while (!atomic_load(&g_calls) && vt_now_ms() - t0 < 5000) vt_sleep_ms(1);
  CHECK_EQ(atomic_load(&g_calls), 1);
  CHECK_EQ(atomic_load(&g_destroy_rc), VIP_SUCCESS);
  CHECK_EQ(atomic_load(&g_close_rc), VIP_INVALID_STATE);
  CHECK_EQ(VipCloseNic(g_nic2), VIP_SUCCESS);
}

/* VipCloseNic with the provider thread running and nothing armed (its VI and CQ destroyed
 * with notifications armed): the thread is joined, no hang. */
static void t_close_nic_armed(void) {
  atomic_store(&g_calls, 0);
  VIP_NIC_HANDLE nic;
  VIP_PROTECTION_HANDLE pt;
  VIP_CQ_HANDLE cq;
  VIP_VI_HANDLE vi;
  CHECK_EQ(VipOpenNic(nicd_dev(1), &nic), VIP_SUCCESS);
  CHECK_EQ(VipCreatePtag(nic, &pt), VIP_SUCCESS);
  CHECK_EQ(VipCreateCQ(nic, 8, &cq), VIP_SUCCESS);
  VIP_VI_ATTRIBUTES a = {.ReliabilityLevel = VIP_SERVICE_UNRELIABLE, .Ptag = pt};
  CHECK_EQ(VipCreateVi(nic, &a, cq, NULL, &vi), VIP_SUCCESS);
  CHECK_EQ(VipRecvNotify(vi, NULL, h_count), VIP_SUCCESS);
  CHECK_EQ(VipSendNotify(vi, NULL, h_count), VIP_SUCCESS);
  CHECK_EQ(VipCQNotify(cq, NULL, h_cq_count), VIP_SUCCESS);
  CHECK_EQ(VipCloseNic(nic), VIP_INVALID_STATE);   /* VIs and CQs first, as before */
  uint64_t t0 = vt_now_ms();
  CHECK_EQ(VipDestroyVi(vi), VIP_SUCCESS);
  CHECK_EQ(VipDestroyCQ(cq), VIP_SUCCESS);
  CHECK_EQ(VipDestroyPtag(nic, pt), VIP_SUCCESS);
  CHECK_EQ(VipCloseNic(nic), VIP_SUCCESS);
  CHECK(vt_now_ms() - t0 < 1000);
  CHECK_EQ(atomic_load(&g_calls), 0);
}

/* fork: the child has neither the parent's notifications nor its thread; its own Notify
 * starts one there. The parent's stay armed. */
static void t_fork(void) {
  atomic_store(&g_calls, 0);
  VIP_VI_HANDLE vi;
  local_open(&vi, NULL);
  CHECK_EQ(VipRecvNotify(vi, NULL, h_count), VIP_SUCCESS);   /* the thread runs */
  pid_t p = fork();
  if (p == 0) {
    int rc = 0;
    VIP_DESCRIPTOR *d;
    if (VipRecvDone(vi, &d) != VIP_NOT_DONE) rc |= 1;          /* not armed here */
    if (VipRecvNotify(vi, NULL, h_count) != VIP_SUCCESS) rc |= 2;
    if (VipSendNotify(vi, NULL, h_count) != VIP_SUCCESS) rc |= 4;
    if (post_bad(vi, 0) != VIP_SUCCESS) rc |= 8;
    uint64_t t0 = vt_now_ms();
    while (!atomic_load(&g_calls) && vt_now_ms() - t0 < 5000) vt_sleep_ms(1);
    if (atomic_load(&g_calls) != 1) rc |= 16;                  /* this process's thread */
    if (VipDestroyVi(vi) != VIP_SUCCESS) rc |= 32;
    _exit(rc);
  }
  int st = 0;
  CHECK(waitpid(p, &st, 0) == p);
  CHECK(WIFEXITED(st));
  CHECK_EQ(WEXITSTATUS(st), 0);
  VIP_DESCRIPTOR *d;
  CHECK_EQ(VipRecvDone(vi, &d), VIP_ERROR_RESOURCE);   /* still armed in the parent */
  CHECK_EQ(atomic_load(&g_calls), 0);
  CHECK_EQ(VipDestroyVi(vi), VIP_SUCCESS);
}

/* nicd SIGKILLed under an armed receive: the handler gets it flushed; then nothing is left
 * and Notify says so. */
static atomic_uint g_status;
static void h_status(VIP_PVOID ctx, VIP_NIC_HANDLE nic, VIP_VI_HANDLE vi, VIP_DESCRIPTOR *d) {
  (void)ctx, (void)nic, (void)vi;
  atomic_store(&g_status, d->CS.Status);
  atomic_fetch_add(&g_calls, 1);
}

static void t_nicd_killed(void) {
  pid_t nicd = nicd_start(1, false);
  CHECK(nicd > 0);
  if (nicd <= 0) return;
  atomic_store(&g_calls, 0);
  VIP_NIC_HANDLE nic;
  VIP_PROTECTION_HANDLE pt;
  VIP_VI_HANDLE vi;
  CHECK_EQ(VipOpenNic(nicd_dev(0), &nic), VIP_SUCCESS);
  CHECK_EQ(VipCreatePtag(nic, &pt), VIP_SUCCESS);
  VIP_VI_ATTRIBUTES a = {.ReliabilityLevel = VIP_SERVICE_RELIABLE_DELIVERY, .Ptag = pt};
  CHECK_EQ(VipCreateVi(nic, &a, NULL, NULL, &vi), VIP_SUCCESS);
  char *buf = malloc(4096);
  VIP_MEM_HANDLE mh;
  VIP_MEM_ATTRIBUTES ma = {.Ptag = pt};
  CHECK_EQ(VipRegisterMem(nic, buf, 4096, &ma, &mh), VIP_SUCCESS);
  VIP_DESCRIPTOR *d = aligned_alloc(64, sizeof *d);
  fill(d, 0, buf, mh, 4096);
  d->CS.Length = 0;
  CHECK_EQ(VipPostRecv(vi, d, mh), VIP_SUCCESS);
  CHECK_EQ(VipRecvNotify(vi, NULL, h_status), VIP_SUCCESS);
  vt_sleep_ms(50);
  uint64_t t0 = vt_now_ms();
  nicd_stop(nicd, true);
  while (!atomic_load(&g_calls) && vt_now_ms() - t0 < 5000) vt_sleep_ms(1);
  uint64_t ms = vt_now_ms() - t0;
  CHECK_EQ(atomic_load(&g_calls), 1);
  CHECK(atomic_load(&g_status) & VIP_STATUS_DESC_FLUSHED_ERROR);
  CHECK(ms < 2000);
  printf("  handler got the flushed receive %llu ms after nicd was killed\n", (unsigned long long)ms);
  CHECK_EQ(VipRecvNotify(vi, NULL, h_status), VIP_ERROR_RESOURCE);   /* nothing will come */
  VipDestroyVi(vi);
  VipDeregisterMem(nic, buf, mh);
  VipDestroyPtag(nic, pt);
  CHECK_EQ(VipCloseNic(nic), VIP_SUCCESS);
  free(buf), free(d);
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  g_main = pthread_self();
  g_bad = aligned_alloc(64, 128 * sizeof *g_bad);
  pid_t nicd = nicd_start(2, false);
  CHECK(nicd > 0);
  if (nicd <= 0 || !g_bad) return vt_summary();
  RUN(t_recv_notify_rearms_600_messages);
  RUN(t_cq_notify_600_messages);
  RUN(t_peer_disconnect_flushes_to_handler);
  RUN(t_peer_killed_flushes_to_handler);
  CHECK_EQ(VipOpenNic(nicd_dev(0), &g_nic), VIP_SUCCESS);
  CHECK_EQ(VipCreatePtag(g_nic, &g_ptag), VIP_SUCCESS);
  RUN(t_one_taker_per_queue);
  RUN(t_handler_calls_vipl);
  RUN(t_destroy_waits_for_handler);
  RUN(t_handler_destroys_its_vi);
  RUN(t_close_nic_armed);
  RUN(t_fork);
  CHECK_EQ(VipDestroyPtag(g_nic, g_ptag), VIP_SUCCESS);
  CHECK_EQ(VipCloseNic(g_nic), VIP_SUCCESS);
  nicd_stop(nicd, false);
  RUN(t_nicd_killed);
  free(g_bad);
  return vt_summary();
}
