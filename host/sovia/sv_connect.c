/* sv_connect.c: connect(). The socket is SV_CONNECTING_SOCK while the connection is set up
 * (resources, receive descriptors posted, VipConnectRequest), which runs without the lock:
 * in the caller for a blocking socket, in a detached helper thread for a non-blocking one,
 * which returns EINPROGRESS at once. The socket then becomes writable (poll) when connected,
 * or reports the failure once through SO_ERROR and is unconnected again, as with TCP. A
 * socket closed while connecting is abandoned: the helper frees what it set up. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sv_int.h"

struct sv_connecting {
  struct sv_sock *s;          /* NULL once the socket was closed */
  struct sockaddr_in peer;
  struct sv_cfg cfg;
  unsigned node, port, lport;
  int err;                    /* the outcome, for the blocking caller */
};

struct netaddr { VIP_NET_ADDRESS a; uint8_t more[64]; };

/* Sets up and connects; finishes under the lock, which it returns holding. The socket keeps
 * pc (so that a close in between still reaches it) until the caller lets go. Returns the
 * errno (0: connected). */
static int run(struct sv_connecting *pc) {
  int err = 0;
  struct sv_conn *c = sv_conn_new(&pc->cfg, &err);
  VIP_RETURN r = VIP_ERROR_RESOURCE;
  if (c) {
    struct netaddr la, ra;
    sv_disc(G.node, pc->lport, &la.a);
    sv_disc(pc->node, pc->port, &ra.a);
    VIP_VI_ATTRIBUTES rat;
    r = VipConnectRequest(c->vi, &la.a, &ra.a, pc->cfg.connect_ms, &rat);
    if (r != VIP_SUCCESS) err = r == VIP_TIMEOUT ? ETIMEDOUT : ECONNREFUSED;
    if (r != VIP_SUCCESS && getenv("SOVIA_DEBUG"))
      fprintf(stderr, "sovia %d: VipConnectRequest: %d\n", (int)getpid(), (int)r);
  }
  sv_lock();
  struct sv_sock *s = pc->s;
  if (err) {
    if (c) sv_conn_free(c);
    if (s) {
      s->kind = SV_NEW;
      s->so_error = err;
    }
  } else {
    sv_addr_of_node(G.node, pc->lport, &c->local);
    c->peer = pc->peer;
    sv_conn_link(c);
    sv_conn_established(c);
    if (s) {
      s->kind = SV_CONN;
      s->c = c;
      s->local = c->local;
    } else {
      sv_conn_close(c);     /* closed while connecting: close it like any connection */
    }
  }
  sv_notify();
  return err;
}

static void *helper(void *arg) {
  struct sv_connecting *pc = arg;
  run(pc);
  if (pc->s) pc->s->pc = NULL;
  sv_unlock();
  free(pc);
  return NULL;
}

int sv_connect_start(struct sv_sock *s, const struct sockaddr_in *a, unsigned node) {
  struct sv_connecting *pc = calloc(1, sizeof *pc);
  if (!pc) return -ENOMEM;
  pc->s = s;
  pc->peer = *a;
  pc->cfg = s->cfg;
  pc->node = node;
  pc->port = ntohs(a->sin_port);
  pc->lport = s->bound && ntohs(s->local.sin_port) ? ntohs(s->local.sin_port) : G.next_port++;
  if (G.next_port > 65535) G.next_port = 49152;
  s->kind = SV_CONNECTING_SOCK;
  s->pc = pc;
  s->so_error = 0;
  if (s->nonblock) {
    pthread_t t;
    int rc = lnic_thread_start(&t, true, helper, pc);
    if (rc != 0) {
      s->kind = SV_NEW;
      s->pc = NULL;
      free(pc);
      return -EAGAIN;
    }
    s->connect_told = false;
    return -EINPROGRESS;
  }
  sv_unlock();
  int err = run(pc);
  bool closed = pc->s == NULL;   /* another thread closed the socket meanwhile */
  free(pc);
  if (closed) return -EBADF;
  s->pc = NULL;
  if (err) {
    s->so_error = 0;        /* reported by connect() itself */
    return -err;
  }
  s->connect_told = true;
  return 0;
}

void sv_connect_abandon(struct sv_sock *s) {
  if (s->pc) s->pc->s = NULL;
  s->pc = NULL;
}
