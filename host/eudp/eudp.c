/* eudp.c: datagram endpoints over a datagram VI (eudp.h). Send and receive buffers are slots
 * of one registered region: EUDP_NSEND send slots used in turn (a slot is reused once the NIC
 * completed the send in it; completions come in order), and EUDP_NRECV receive slots of
 * EUDP_MAX bytes, each posted again as soon as its datagram is copied out. */
#define _GNU_SOURCE
#include "eudp.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#define SLOT 65536u   /* EUDP_MAX rounded up */

struct eudp {
  struct lnic_dev *dev;
  struct lnic_vi *vi;
  uint32_t ptag;
  uint32_t ip;             /* its IPv4 address, the source of its datagrams' IPv4 headers */
  uint16_t port;
  uint8_t *mem;          /* EUDP_NSEND send slots, then EUDP_NRECV receive slots */
  int mr;
  uint32_t tx_next, tx_done;   /* free-running: sends posted, completions taken */
  struct eudp_stats st;
};

static uint8_t *tx_slot(struct eudp *e, uint32_t i) { return e->mem + (size_t)(i % EUDP_NSEND) * SLOT; }
static uint8_t *rx_slot(struct eudp *e, uintptr_t i) {
  return e->mem + (size_t)(EUDP_NSEND + i) * SLOT;
}

static int post_recv(struct eudp *e, uintptr_t i) {
  struct hostif_desc d = {.op = HOSTIF_OP_RECV, .nseg = 1, .length = SLOT};
  d.seg[0].addr = (uint64_t)(uintptr_t)rx_slot(e, i);
  d.seg[0].len = SLOT;
  d.seg[0].ptag = e->ptag;
  return lnic_post(e->vi, NIC_RQ, &d, (void *)i, 0);
}

static bool pid_dead(uint32_t pid) {
  return pid != 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* A datagram VI of this NIC, other than `self`, bound to port. The port of a VI whose owner
 * died is taken back first (the firmware would still deliver to it). */
static bool port_taken(struct lnic_dev *d, unsigned self, uint16_t port) {
  for (unsigned i = 1; i < HOSTIF_NVI; i++) {
    volatile struct hostif_vi *v = lnic_hostif_vi(d, i);
    if (i != self && (v->flags & HOSTIF_VI_F_DGRAM) && pid_dead(v->owner_pid)) v->flags = 0;
    if (i != self && v->state == HOSTIF_VI_IDLE && (v->flags & HOSTIF_VI_F_DGRAM) && v->port == port)
      return true;
  }
  return false;
}

int eudp_open(struct lnic_dev *d, uint16_t port, unsigned flags, struct eudp **out) {
  if (!d || !out || port == 0) return -EINVAL;
  *out = NULL;
  struct eudp *e = calloc(1, sizeof *e);
  if (!e) return -ENOMEM;
  e->dev = d;
  e->port = port;
  e->ptag = lnic_ptag_new();
  e->mr = -1;
  size_t len = (size_t)(EUDP_NSEND + EUDP_NRECV) * SLOT;
  int rc = -ENOMEM;
  if (!(e->mem = lnic_alloc(len))) goto fail;
  if ((rc = lnic_mem_register(d, e->mem, len, e->ptag)) < 0) goto fail;
  e->mr = rc;
  if ((rc = lnic_vi_create(d, e->ptag, HOSTIF_UNRELIABLE, &e->vi)) < 0) goto fail;
  lnic_lock(d);
  if (!(flags & EUDP_REUSE) && port_taken(d, e->vi->idx, port)) {
    lnic_unlock(d);
    rc = -EADDRINUSE;
    goto fail;
  }
  volatile struct hostif_vi *v = lnic_hostif_vi(d, e->vi->idx);
  v->port = port;
  __atomic_store_n(&v->flags, HOSTIF_VI_F_DGRAM, __ATOMIC_RELEASE); /* the port table entry */
  rc = 0;
  for (uintptr_t i = 0; i < EUDP_NRECV && !rc; i++) rc = post_recv(e, i);
  lnic_unlock(d);
  if (rc) goto fail;
  *out = e;
  return 0;
fail:
  eudp_close(e);
  return rc;
}

void eudp_close(struct eudp *e) {
  if (!e) return;
  if (e->vi) eudp_flush(e, 10ll * 1000 * 1000 * 1000);
  if (e->vi) {
    lnic_lock(e->dev);
    lnic_hostif_vi(e->dev, e->vi->idx)->flags = 0;
    lnic_unlock(e->dev);
    lnic_vi_destroy(e->vi, true);
  }
  if (e->mr >= 0) lnic_mem_deregister(e->dev, e->mr);
  if (e->mem) lnic_free(e->mem);
  free(e);
}

int eudp_connect(struct eudp *e, uint16_t node, uint16_t port) {
  if (!e) return -EINVAL;
  lnic_lock(e->dev);
  volatile struct hostif_vi *v = lnic_hostif_vi(e->dev, e->vi->idx);
  v->remote_vi = 0;   /* never half of one peer and half of another */
  __atomic_thread_fence(__ATOMIC_RELEASE);
  v->remote_node = port ? node : 0;
  __atomic_thread_fence(__ATOMIC_RELEASE);
  v->remote_vi = port;
  lnic_unlock(e->dev);
  return 0;
}

uint16_t eudp_port(const struct eudp *e) { return e->port; }
unsigned eudp_vi(const struct eudp *e) { return e->vi->idx; }

/* Takes the send completions there are; lock held. */
static void tx_reap(struct eudp *e) {
  struct lnic_cqe c;
  lnic_progress(e->vi, NIC_SQ);
  while (lnic_take(e->vi, NIC_SQ, &c) == 0) {
    e->tx_done++;
    if (c.status != HOSTIF_ST_DONE) e->st.tx_errors++;
  }
}

/* Deadlines count in the process's time (lnic_vt_now_ns): virtual under nicd --timing, where
 * each wait's slice ends in virtual time; a real-time deadline would let a timeout run on for
 * as many virtual slices as fit in it. */
int eudp_flush(struct eudp *e, int64_t timeout_ns) {
  uint64_t end = lnic_vt_now_ns() + (uint64_t)timeout_ns;
  lnic_lock(e->dev);
  tx_reap(e);
  while (e->tx_next != e->tx_done) {
    lnic_unlock(e->dev);
    if (lnic_vt_now_ns() >= end) return -ETIMEDOUT;
    if (lnic_wait(e->dev, HOSTIF_SIG_VI(e->vi->idx), 1000 * 1000) == -EPIPE) return -EPIPE;
    lnic_lock(e->dev);
    tx_reap(e);
  }
  lnic_unlock(e->dev);
  return 0;
}

int eudp_sendto(struct eudp *e, uint16_t node, uint16_t port, const void *buf, size_t len) {
  return eudp_sendto_ip(e, node, port, 0, buf, len);
}

void eudp_set_ip(struct eudp *e, uint32_t ip) { e->ip = ip; }

int eudp_sendto_ip(struct eudp *e, uint16_t node, uint16_t port, uint32_t ip, const void *buf,
                   size_t len) {
  if (!e || port == 0 || (len && !buf)) return -EINVAL;
  if (len > EUDP_MAX) return -EMSGSIZE;
  lnic_lock(e->dev);
  tx_reap(e);
  /* Every slot in the pipeline: wait for the NIC to send the oldest (it completes when it has
   * left, whatever the receiver does). */
  while (e->tx_next - e->tx_done == EUDP_NSEND) {
    lnic_unlock(e->dev);
    int rc = lnic_wait(e->dev, HOSTIF_SIG_VI(e->vi->idx), 10 * 1000 * 1000);
    if (rc == -EPIPE) return rc;
    lnic_lock(e->dev);
    tx_reap(e);
  }
  uint8_t *s = tx_slot(e, e->tx_next);
  if (len) memcpy(s, buf, len);
  struct hostif_desc d = {.op = HOSTIF_OP_SEND, .nseg = 1, .length = (uint32_t)len,
                          .rdma_addr = HOSTIF_DGRAM_DEST(node, port) | (uint64_t)ip << 32,
                          .rdma_ptag = e->ip};
  d.seg[0].addr = (uint64_t)(uintptr_t)s;
  d.seg[0].len = (uint32_t)len;
  d.seg[0].ptag = e->ptag;
  int rc = lnic_post(e->vi, NIC_SQ, &d, NULL, 0);
  if (!rc) {
    e->tx_next++;
    e->st.tx_dgrams++;
    e->st.tx_bytes += len;
  }
  lnic_unlock(e->dev);
  return rc;
}

/* Takes one datagram if one is there: 1 taken, 0 none; lock held. */
static int rx_take(struct eudp *e, void *buf, size_t cap, size_t *full, uint16_t *node,
                   uint16_t *port, size_t *got) {
  struct lnic_cqe c;
  for (;;) {
    lnic_progress(e->vi, NIC_RQ);
    if (lnic_take(e->vi, NIC_RQ, &c)) return 0;
    uintptr_t i = (uintptr_t)c.cookie;
    if (c.status == HOSTIF_ST_DONE && (c.flags & HOSTIF_F_DGRAM)) {
      size_t n = c.len < cap ? c.len : cap;
      if (n) memcpy(buf, rx_slot(e, i), n);
      if (full) *full = c.len;
      if (node) *node = HOSTIF_DGRAM_NODE(c.imm);
      if (port) *port = HOSTIF_DGRAM_PORT(c.imm);
      *got = n;
      e->st.rx_dgrams++;
      e->st.rx_bytes += c.len;
      if (n < c.len) e->st.rx_truncated++;
    }
    int rc = post_recv(e, i);
    if (rc) return rc;
    if (c.status == HOSTIF_ST_DONE && (c.flags & HOSTIF_F_DGRAM)) return 1;
    /* FLUSHED (torn down) or an error the NIC counted: the buffer goes back, nothing came */
  }
}

ssize_t eudp_recvfrom(struct eudp *e, void *buf, size_t cap, size_t *full, uint16_t *node,
                      uint16_t *port, int64_t timeout_ns) {
  if (!e || (cap && !buf)) return -EINVAL;
  uint64_t end = timeout_ns > 0 ? lnic_vt_now_ns() + (uint64_t)timeout_ns : 0;
  for (;;) {
    size_t got = 0;
    lnic_lock(e->dev);
    int rc = rx_take(e, buf, cap, full, node, port, &got);
    lnic_unlock(e->dev);
    if (rc < 0) return rc;
    if (rc == 1) return (ssize_t)got;
    if (timeout_ns == 0) return -EAGAIN;
    int64_t slice = 10 * 1000 * 1000;
    if (timeout_ns > 0) {
      uint64_t now = lnic_vt_now_ns();
      if (now >= end) return -EAGAIN;
      if ((int64_t)(end - now) < slice) slice = (int64_t)(end - now);
    }
    rc = lnic_wait(e->dev, HOSTIF_SIG_VI(e->vi->idx), slice);
    if (rc == -EPIPE) return rc;
  }
}

unsigned eudp_pending(struct eudp *e) {
  lnic_lock(e->dev);
  lnic_progress(e->vi, NIC_RQ);
  unsigned n = lnic_wq_ready(e->vi, NIC_RQ);
  lnic_unlock(e->dev);
  return n;
}

void eudp_stats(const struct eudp *e, struct eudp_stats *out) { *out = e->st; }
