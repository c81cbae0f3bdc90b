/* vitab.c: the VI table entries nicd writes (connection set-up and tear-down), with the
 * ordering hostif.h asks for: the remote fields first, then state with a release store. The
 * firmware reads an entry afresh for every message, so it sees a connection change at once. */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "nicd.h"

struct hostif_vi *vitab_vi(struct nicd *d, unsigned node, unsigned vi) {
  int i = nicd_local(d, node);
  if (i < 0 || vi == 0 || vi >= HOSTIF_NVI) return NULL;
  return nic_sram_ptr(d->nic[i], HOSTIF_VI_ADDR(vi), sizeof(struct hostif_vi));
}

static uint32_t ld(const uint32_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static void st(uint32_t *p, uint32_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

static _Atomic uint32_t next_stamp;

void vitab_stamp_seed(bool deterministic) {
  uint32_t r = 1;
  if (!deterministic && getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
    r = (uint32_t)time(NULL) ^ (uint32_t)getpid();
  atomic_store(&next_stamp, r ? r : 1u);
}

uint32_t vitab_new_stamp(void) {
  uint32_t s = atomic_fetch_add(&next_stamp, 1u);
  return s ? s : atomic_fetch_add(&next_stamp, 1u);
}

/* A new connection starts with no delivered message on either side (hostif.h, rel_seq). */
static void rel_seq_clear(struct hostif_vi *v) {
  st(&v->sq.rel_seq, 0);
  st(&v->rq.rel_seq, 0);
}

int vitab_pair(struct nicd *d, unsigned na, unsigned va, unsigned nb, unsigned vb) {
  struct hostif_vi *a = vitab_vi(d, na, va), *b = vitab_vi(d, nb, vb);
  if (!a || !b || a == b) return -1;
  if (ld(&a->state) != HOSTIF_VI_IDLE || ld(&b->state) != HOSTIF_VI_IDLE) return -1;
  if (a->reliability != b->reliability) return -1;
  a->remote_node = (uint16_t)nb;
  a->remote_vi = (uint16_t)vb;
  b->remote_node = (uint16_t)na;
  b->remote_vi = (uint16_t)va;
  a->conn = b->conn = vitab_new_stamp();
  rel_seq_clear(a);
  rel_seq_clear(b);
  st(&a->state, HOSTIF_VI_CONNECTED);
  st(&b->state, HOSTIF_VI_CONNECTED);
  return 0;
}

int vitab_pair_half(struct nicd *d, unsigned node, unsigned vi, unsigned rnode, unsigned rvi,
                    unsigned rel, uint32_t stamp) {
  struct hostif_vi *a = vitab_vi(d, node, vi);
  if (!a || ld(&a->state) != HOSTIF_VI_IDLE || a->reliability != rel) return -1;
  a->remote_node = (uint16_t)rnode;
  a->remote_vi = (uint16_t)rvi;
  a->conn = stamp;
  rel_seq_clear(a);
  st(&a->state, HOSTIF_VI_CONNECTED);
  return 0;
}

void vitab_unpair(struct nicd *d, unsigned node, unsigned vi, unsigned rnode, unsigned rvi) {
  struct hostif_vi *a = vitab_vi(d, node, vi);
  if (a && ld(&a->state) == HOSTIF_VI_CONNECTED && a->remote_node == rnode && a->remote_vi == rvi)
    st(&a->state, HOSTIF_VI_IDLE);
}

/* What this side's NIC delivered of the connection (hostif.h, rel_seq), 0 if nothing counts:
 * the peer's sends that reached this host complete DONE even if their ACK is still on the way. */
static uint32_t delivered(struct hostif_vi *v) {
  uint32_t got = ld(&v->rq.rel_seq);
  return ld(&v->state) == HOSTIF_VI_CONNECTED && v->reliability == HOSTIF_RELIABLE_DELIVERY &&
                 (got & HOSTIF_REL_SEQ_VALID) ? got : 0;
}

void vitab_peer_gone(struct nicd *d, unsigned node, unsigned vi, unsigned fnode, unsigned fvi,
                     uint32_t got) {
  struct hostif_vi *p = vitab_vi(d, node, vi);
  if (!p || ld(&p->state) != HOSTIF_VI_CONNECTED || p->remote_node != fnode || p->remote_vi != fvi)
    return;
  if (got & HOSTIF_REL_SEQ_VALID) st(&p->sq.rel_seq, got);
  st(&p->state, HOSTIF_VI_ERROR);
  nic_signal_host(d->nic[nicd_local(d, node)], HOSTIF_SIG_VI(vi));   /* waiters look now */
}

/* The peer of a connected VI learns that it is gone: ERROR (and its host signalled) here, or
 * through its nicd's control connection when it is another nicd's node. A VI in ERROR still
 * names its peer: when the network broke it (the retry limit), the reset the firmware sent is
 * best effort, so its peer is told again here; a peer that has moved on (not connected, or
 * connected to another VI) is left alone. */
static void break_peer(struct nicd *d, unsigned node, unsigned vi, struct hostif_vi *v) {
  if (nicd_local(d, v->remote_node) >= 0)
    vitab_peer_gone(d, v->remote_node, v->remote_vi, node, vi, delivered(v));
  else if (d->udp)
    peer_vi_broken(node, vi, v->remote_node, v->remote_vi, delivered(v));
}

void vitab_disconnect(struct nicd *d, unsigned node, unsigned vi) {
  struct hostif_vi *v = vitab_vi(d, node, vi);
  if (!v) return;
  if (HOSTIF_VI_NAMES_PEER(ld(&v->state))) break_peer(d, node, vi, v);
  if (ld(&v->state) != HOSTIF_VI_FREE) st(&v->state, HOSTIF_VI_IDLE);
}

bool vitab_owner_gone(pid_t pid) {
  if (kill(pid, 0) != 0) return errno == ESRCH;
  char path[48], buf[256];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return false;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  const char *paren = strrchr(buf, ')');   /* "pid (comm) S ...": comm may hold spaces */
  return paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

void vitab_reap(struct nicd *d) {
  for (unsigned k = 0; k < d->n; k++)
    for (unsigned i = 1; i < HOSTIF_NVI; i++) {
      unsigned n = d->node[k];
      struct hostif_vi *v = vitab_vi(d, n, i);
      uint32_t s = ld(&v->state);
      pid_t pid = (pid_t)v->owner_pid;
      if (s == HOSTIF_VI_FREE || pid <= 0) continue;
      if (!vitab_owner_gone(pid)) continue;
      if (HOSTIF_VI_NAMES_PEER(s)) break_peer(d, n, i, v);
      st(&v->state, HOSTIF_VI_FREE);
    }
}
