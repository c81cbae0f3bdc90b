/* sv_conn.c: the resources of one SOVIA connection. One shared segment of libnic's
 * (lnic_alloc) holds the descriptors and buffers and is registered once: W + W/T receive
 * descriptors (W, T: the credit window of sv_window, w raised to 2 for w = 1, at most the
 * NIC's ring) with a 32 KB buffer each (all posted before the VI connects, as conn.esm's
 * Posting state), w + 2 data send slots with a 32 KB bounce buffer each (copying and
 * combining), and control descriptors for ACK/FIN/FINACK/WAKEUP. The VI is Reliable Delivery and reports both queues to the
 * process's completion queue. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "sv_int.h"
#include "vipl_ext.h"

#define DSZ sizeof(VIP_DESCRIPTOR)
#define DESTROY_TRIES 100   /* 1 ms apart: the NIC flushing a disconnected VI's descriptors */

static void post_recv(struct sv_conn *c, unsigned i) {
  VIP_DESCRIPTOR *d = &c->rd[i];
  memset(d, 0, sizeof *d);
  d->CS.SegCount = 1;
  d->CS.Length = SV_CHUNK;
  d->DS[0].Local.Data.Address = c->rbufs + (size_t)i * SV_CHUNK;
  d->DS[0].Local.Handle = c->mh;
  d->DS[0].Local.Length = SV_CHUNK;
  VipPostRecv(c->vi, d, c->mh);
}

/* The NIC's VIs (HOSTIF_NVI - 1) serve all its processes. A closing connection gives its VI
 * back within milliseconds (FIN and FINACK, then the VI), so a program that closes its
 * connections and at once opens as many new ones (redis-benchmark between two of its tests)
 * finds none for a moment: wait up to SV_VI_WAIT_MS for one, then fail (EMFILE). */
#define SV_VI_WAIT_MS 2000
static VIP_RETURN create_vi(VIP_VI_ATTRIBUTES *va, VIP_VI_HANDLE *vi) {
  VIP_RETURN r = VipCreateVi(G.nic, va, G.cq, G.cq, vi);
  for (int ms = 0; r == VIP_ERROR_RESOURCE && ms < SV_VI_WAIT_MS; ms++) {
    if (ms % 10 == 0) {   /* not for a NIC that went away */
      sv_lock();
      bool gone = sv_nic_gone();
      sv_unlock();
      if (gone) break;
    }
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
    r = VipCreateVi(G.nic, va, G.cq, G.cq, vi);
  }
  return r;
}

/* Registered memory of freed connections, kept for the next connection of the same size and
 * protection tag. Only memory whose VI is destroyed comes here: the NIC has given back every
 * descriptor in it. Under G.mu. */
#define SV_MEMPOOL 8
struct sv_mem {
  uint8_t *mem;
  size_t len;
  VIP_MEM_HANDLE mh;
  VIP_PROTECTION_HANDLE ptag;
};
static struct sv_mem pool[SV_MEMPOOL];
static unsigned npool;

static bool pool_take(size_t len, struct sv_mem *m) {
  bool got = false;
  sv_lock();
  for (unsigned i = 0; i < npool && !got; i++)
    if (pool[i].len == len && pool[i].ptag == G.ptag) {
      *m = pool[i];
      pool[i] = pool[--npool];
      got = true;
    }
  sv_unlock();
  return got;
}

static void mem_release(const struct sv_mem *m) {
  VipDeregisterMem(G.nic, m->mem, m->mh);
  lnic_free(m->mem);
}

/* Memory registered under another tag (a connection a fork child inherited) is not kept. */
static void pool_put(const struct sv_mem *m) {
  if (npool < SV_MEMPOOL && m->ptag == G.ptag) {
    pool[npool++] = *m;
    return;
  }
  mem_release(m);
}

/* Registered memory of len bytes for a new connection whose first `zero` bytes and last
 * `zero_tail` bytes are zero: the pool's, or a new segment registered now. A new segment is
 * libnic's own shared memory: it is zero, nothing moves at registration, and its pages are
 * touched only as the connection uses them (an anonymous mapping zeroed and moved into a
 * segment at registration cost a short-lived connection about 1,000 page faults and a 2 MB
 * copy: ab against nginx made 460 connections a second, now 2,150). The data buffers between
 * need no zeroing: the NIC or this process writes each before it is read. */
static bool mem_get(size_t len, size_t zero, size_t zero_tail, struct sv_mem *m) {
  if (pool_take(len, m)) {
    memset(m->mem, 0, zero);
    memset(m->mem + len - zero_tail, 0, zero_tail);
    return true;
  }
  if (!(m->mem = lnic_alloc(len))) return false;
  m->len = len;
  m->ptag = G.ptag;
  VIP_MEM_ATTRIBUTES ma = {.Ptag = m->ptag};
  if (VipRegisterMem(G.nic, m->mem, len, &ma, &m->mh) == VIP_SUCCESS) return true;
  lnic_free(m->mem);
  return false;
}

/* At exit: nicd removes a dead process's regions only once no process maps their memory (a
 * fork child may), and the NIC has HW_REGIONS, so the pool gives its registrations back. G.mu
 * held. */
void sv_conn_pool_drain(void) {
  for (unsigned i = 0; i < npool; i++) mem_release(&pool[i]);
  npool = 0;
}

/* A fork child: the pooled memory is the parent's (its registrations, its tag). Dropped as
 * sv_conn_forget drops a connection's. G.mu held. */
void sv_conn_pool_forked(void) {
  for (unsigned i = 0; i < npool; i++) {
    VipxForgetMem(G.nic, pool[i].mem, pool[i].mh);
    madvise(pool[i].mem, pool[i].len, MADV_DONTNEED);
  }
  npool = 0;
}

void sv_conn_struct_free(struct sv_conn *c) {
  free(c->sfree), free(c->sq), free(c->slen), free(c->suser), free(c->cbusy), free(c->rb);
  free(c->held);
  free(c);
}

struct sv_conn *sv_conn_new(const struct sv_cfg *cfg, int *err) {
  struct sv_conn *c = calloc(1, sizeof *c);
  if (!c) {
    *err = ENOMEM;
    return NULL;
  }
  unsigned wd, cw, ct;
  sv_window(cfg->w, cfg->t, &wd, &cw, &ct);
  c->w = wd;                /* what WAKEUP announces */
  c->t = ct;
  c->nr = cw + cw / ct;
  c->ns = cw + 2;
  size_t ndesc = c->nr + c->ns + SV_NCTL;
  size_t bufs = (size_t)(c->nr + c->ns) * SV_CHUNK;
  size_t len = ndesc * DSZ + bufs + SV_NCTL * 64 + sizeof(struct sv_shared);
  len = (len + 4095) & ~(size_t)4095;
  c->sfree = calloc(c->ns, sizeof *c->sfree);
  c->sq = calloc(c->ns, sizeof *c->sq);
  c->slen = calloc(c->ns, sizeof *c->slen);
  c->suser = calloc(c->ns, sizeof *c->suser);
  c->cbusy = calloc(SV_NCTL, sizeof *c->cbusy);
  c->rb_cap = 65536;
  c->rb = malloc(c->rb_cap);
  c->rb_max = cfg->rcvbuf ? cfg->rcvbuf : SV_RING_MAX;
  if (c->rb_max < c->rb_cap) c->rb_max = c->rb_cap;
  c->held = calloc(c->nr, sizeof *c->held);
  struct sv_mem m;
  if (!c->sfree || !c->sq || !c->slen || !c->suser || !c->cbusy || !c->rb || !c->held ||
      !mem_get(len, ndesc * DSZ, len - ndesc * DSZ - bufs, &m))
    goto fail_mem;
  c->mem = m.mem;
  c->memlen = len;
  c->mh = m.mh;
  c->mtag = m.ptag;
  c->rd = (VIP_DESCRIPTOR *)c->mem;
  c->sd = c->rd + c->nr;
  c->cd = c->sd + c->ns;
  c->rbufs = c->mem + ndesc * DSZ;
  c->sbufs = c->rbufs + (size_t)c->nr * SV_CHUNK;
  c->cbufs = c->sbufs + (size_t)c->ns * SV_CHUNK;
  c->sh = (struct sv_shared *)(void *)(c->cbufs + SV_NCTL * 64);
  atomic_store(&c->sh->owner, (int)getpid());
  VIP_VI_ATTRIBUTES va = {.ReliabilityLevel = VIP_SERVICE_RELIABLE_DELIVERY,
                          .MaxTransferSize = SV_CHUNK, .Ptag = G.ptag};
  VIP_RETURN r = create_vi(&va, &c->vi);
  if (r != VIP_SUCCESS) {
    mem_release(&m);
    c->mem = NULL;
    *err = r == VIP_ERROR_RESOURCE ? EMFILE : ENOBUFS;
    goto fail;
  }
  for (unsigned i = 0; i < c->nr; i++) post_recv(c, i);
  for (unsigned i = 0; i < c->ns; i++) c->sfree[c->nsfree++] = c->ns - 1 - i;
  c->cfree_n = SV_NCTL;
  c->comb = -1;
  c->st = SV_CONNECTING;
  c->credit = 1;            /* the WAKEUP: the peer posted at least w + w/t >= 2 */
  return c;
fail_mem:
  *err = ENOBUFS;
fail:
  sv_conn_struct_free(c);
  return NULL;
}

void sv_conn_repost(struct sv_conn *c, VIP_DESCRIPTOR *d) { post_recv(c, (unsigned)(d - c->rd)); }

void sv_conn_link(struct sv_conn *c) {
  c->next = G.conns;
  G.conns = c;
}

void sv_conn_established(struct sv_conn *c) {
  c->st = SV_NORMAL;
  struct sv_hello h = {SV_MAGIC, c->w, c->t};
  c->credit -= 1;
  c->unacked = 1;
  if (sv_post_ctl(c, SV_WAKEUP, 0, &h, sizeof h) != 0) sv_fail(c, ECONNRESET);
}

/* Connections whose VI and memory are to go. sv_conn_free only lists them: their teardown
 * asks nicd (the disconnect) and may wait for the NIC to give back the descriptors, a
 * millisecond at a time, and under G.mu that stalled every other call of the process (an
 * accept() waited 0.7 ms behind an earlier connection's teardown). sv_conn_reap does it
 * without the lock: in the close thread, and at exit. Under G.mu. */
static struct sv_conn *doomed;

void sv_conn_free(struct sv_conn *c) {
  for (struct sv_conn **pp = &G.conns; *pp; pp = &(*pp)->next)
    if (*pp == c) {
      *pp = c->next;
      break;
    }
  c->next = doomed;
  doomed = c;
  sv_closer_kick();
}

/* The VI goes only once the NIC has given back every descriptor (a disconnect flushes them,
 * shortly); its descriptors live in c->mem, which must outlive them: a completion written
 * into unmapped memory crashed a process whose nicd died just then (test_faults). Whether
 * it went (then the memory may be used again). Without G.mu: c is nobody else's. */
static bool teardown(struct sv_conn *c) {
  VIP_VI_STATE st;
  if (VipQueryVi(c->vi, &st, NULL, NULL, NULL) == VIP_SUCCESS) {
    if (st == VIP_STATE_CONNECTED || st == VIP_STATE_ERROR) VipDisconnect(c->vi);
    else if (st == VIP_STATE_IDLE) VipxFlushIdleVi(c->vi);   /* never connected: its receives
                                                                were posted before the request */
  }
  VIP_RETURN dr = VIP_INVALID_STATE;
  for (int tries = 0; tries < DESTROY_TRIES; tries++) {
    VIP_DESCRIPTOR *d;
    while (VipRecvDone(c->vi, &d) == VIP_SUCCESS) {}
    while (VipSendDone(c->vi, &d) == VIP_SUCCESS) {}
    if ((dr = VipDestroyVi(c->vi)) != VIP_INVALID_STATE) break;
    usleep(1000);
  }
  if (dr != VIP_SUCCESS && getenv("SOVIA_DEBUG"))   /* the memory stays, with the VI, for the NIC */
    fprintf(stderr, "sovia %d: a VI kept its descriptors (%d): its memory stays mapped\n", (int)getpid(), (int)dr);
  return dr == VIP_SUCCESS;
}

void sv_conn_reap(void) {
  while (doomed) {
    struct sv_conn *list = doomed;
    doomed = NULL;
    sv_unlock();
    for (struct sv_conn *c = list; c; c = c->next) c->torn = teardown(c);
    sv_lock();
    for (struct sv_conn *c = list, *nx; c; c = nx) {
      nx = c->next;
      if (c->torn) pool_put(&(struct sv_mem){c->mem, c->memlen, c->mh, c->mtag});
      sv_conn_struct_free(c);
    }
  }
}

/* A fork child: the listed connections are the parent's, which tears them down. */
void sv_conn_reap_forked(void) {
  for (struct sv_conn *c = doomed, *nx; c; c = nx) {
    nx = c->next;
    sv_conn_forget(c);
  }
  doomed = NULL;
}
