/* cm.c: the connection manager: a thread serving the line protocol of CONNECT.md on a unix
 * socket. Pending connection requests wait in a table until a WAIT on their (node,
 * discriminator) takes them; ACCEPT pairs the two VIs in the VI tables (vitab.c) and answers
 * both sides; a client that closes its connection withdraws what it was waiting for. Every
 * 100 ms it also reaps VIs whose owner process died (vitab_reap). Limits (CONNECT.md): at most
 * MAXCLI connections, MAXPERPID of one process; a connection without a blocking request that
 * sends no line for the idle time is closed (and the most idle one makes room for a new
 * client when the table is full); one request line per connection per round, so a client
 * that pipelines cannot starve the others; a client that does not read its replies is
 * closed, never waited for. In a cluster (--udp) a CONNECT for another nicd's node is
 * forwarded to it and answered when it answers (peer.c carries the lines; the cm_remote_*
 * functions here are its side of the table), so a request may have a requester or a waiter
 * that lives in another nicd. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "futex.h"
#include "nicd.h"
#include "../hw/udpfab.h"

#define MAXCLI    1024
#define MAXPERPID (2 * (int)HOSTIF_NVI)   /* a process may set up a connection per VI of two NICs */
#define MAXREQ    (2 * (int)HOSTIF_NVI)
#define LINE      256
#define PEER_FDS  80      /* peer.c's listener and control connections */

struct client {
  int fd;
  pid_t pid;               /* the peer process (SO_PEERCRED) */
  uint64_t last;           /* when it connected or last sent a request */
  char buf[LINE];
  size_t len;
  bool waiting;            /* a WAIT is outstanding */
  bool dead;               /* to be closed at the end of the round */
  unsigned wnode;
  char wdisc[68];
  uint64_t serial;         /* which client holds the slot, for answers that come later */
};

struct req {
  bool used, taken;
  int id;
  int from;                /* requesting client */
  int taker;               /* the waiting client it was offered to, while taken */
  unsigned node, vi, rnode;
  unsigned rel;            /* the requesting VI's reliability */
  char rdisc[68], mydisc[68];
  /* Across nicds: the control connection (peer.c) it went out on (from >= 0) or came in on
   * (from == -1, remote_in); rid is its id at the requester's nicd. */
  int conn;
  uint32_t gen;
  bool remote_in;
  unsigned rid;
  bool accepting;          /* remote_in: our VI is paired, waiting for the requester's DONE */
  int acceptor;
  uint64_t acceptor_serial;
  unsigned anode, avi;
};

static struct nicd *D;
static int lfd = -1;
static struct client cli[MAXCLI];
static struct req reqs[MAXREQ];
static int next_id = 1;
static uint64_t next_serial = 1;
static pthread_t thr;

static void reply(int c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reply(int c, const char *fmt, ...) {
  char out[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(out, sizeof out - 1, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n > sizeof out - 2) n = (int)sizeof out - 2;
  out[n++] = '\n';
  if (cli[c].fd < 0) return;
  /* Replies are short and a client waits for each: one that lets them pile up unread is
   * closed at the next round rather than blocking the connection manager. */
  if (send(cli[c].fd, out, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) != n) {
    if (D->verbose) fprintf(stderr, "nicd: client %d does not take its replies: closed\n", c);
    cli[c].dead = true;
  }
}

/* An answer to a client that may have gone (its slot reused) since it asked. */
#define reply_to(c, ser, ...) \
  do { \
    if ((c) >= 0 && cli[c].fd >= 0 && cli[c].serial == (ser)) reply((c), __VA_ARGS__); \
  } while (0)

static bool disc_ok(const char *s) {
  if (!strcmp(s, "-")) return true;
  size_t n = strlen(s);
  if (n == 0 || n > 64) return false;
  for (size_t i = 0; i < n; i++)
    if (!strchr("0123456789abcdefABCDEF", s[i])) return false;
  return true;
}

static void offer(int c, struct req *r) {
  r->taken = true;
  r->taker = c;
  cli[c].waiting = false;
  reply(c, "OK REQUEST %d %u %u %s %u", r->id, r->node, r->vi, r->mydisc, r->rel);
}

/* Offers an untaken request to a client waiting for it, if there is one. */
static void reoffer(struct req *r) {
  for (int k = 0; k < MAXCLI; k++)
    if (cli[k].fd >= 0 && cli[k].waiting && cli[k].wnode == r->rnode &&
        !strcmp(cli[k].wdisc, r->rdisc)) {
      offer(k, r);
      return;
    }
}

static struct req *find_req(int id) {
  for (int i = 0; i < MAXREQ; i++)
    if (reqs[i].used && reqs[i].id == id) return &reqs[i];
  return NULL;
}

static void do_stats(int c, unsigned node) {
  const volatile struct hostif_counters *k =
      nic_sram_ptr(D->nic[nicd_local(D, node)], HOSTIF_COUNTERS_ADDR, sizeof(struct hostif_counters));
  reply(c,
        "OK tx_msgs=%llu tx_bytes=%llu rx_msgs=%llu rx_bytes=%llu drop_no_vi=%llu "
        "drop_no_desc=%llu drop_malformed=%llu drop_checksum=%llu truncated=%llu "
        "protection=%llu format=%llu retransmits=%llu rto_expired=%llu drop_dup=%llu "
        "drop_ooo=%llu transport_breaks=%llu",
        (unsigned long long)k->tx_msgs, (unsigned long long)k->tx_bytes,
        (unsigned long long)k->rx_msgs, (unsigned long long)k->rx_bytes,
        (unsigned long long)k->rx_drop_no_vi, (unsigned long long)k->rx_drop_no_desc,
        (unsigned long long)k->rx_drop_malformed, (unsigned long long)k->rx_drop_checksum,
        (unsigned long long)k->rx_truncated, (unsigned long long)k->protection_errors,
        (unsigned long long)k->format_errors, (unsigned long long)k->retransmits,
        (unsigned long long)k->rto_expired, (unsigned long long)k->rx_drop_dup,
        (unsigned long long)k->rx_drop_ooo, (unsigned long long)k->transport_breaks);
}

/* A NIC whose processor faulted (nicd --lanai) takes no part in connection set-up. */
static bool nic_up(unsigned node) {
  int i = nicd_local(D, node);
  return i >= 0 && atomic_load(&nic_window(D->nic[i])->regs->state) == HW_NIC_RUNNING;
}

/* A node of another nicd of the cluster. */
static bool remote_node(unsigned node) {
  return D->udp && nicd_local(D, node) < 0 && node < D->clu.nodes && D->clu.peer_of[node] >= 0;
}

/* WAITs on a NIC that faulted end with an error (hosts learn it from their next call). */
static void fail_waits(void) {
  for (int c = 0; c < MAXCLI; c++)
    if (cli[c].fd >= 0 && cli[c].waiting && !nic_up(cli[c].wnode)) {
      cli[c].waiting = false;
      reply(c, "ERR NONIC the NIC faulted");
    }
}

/* How many requests were made after r (ids count up, and wrap at INT_MAX). */
static unsigned age(const struct req *r) { return (unsigned)next_id - (unsigned)r->id; }

static bool has_request(int c) {
  for (int i = 0; i < MAXREQ; i++)
    if (reqs[i].used && reqs[i].from == c) return true;
  return false;
}

static void do_wait(int c, unsigned node, const char *disc) {
  if (nicd_local(D, node) < 0) { reply(c, "ERR NONIC no such NIC here"); return; }
  if (!nic_up(node)) { reply(c, "ERR NONIC the NIC faulted"); return; }
  if (!disc_ok(disc)) { reply(c, "ERR INVAL bad discriminator"); return; }
  if (cli[c].waiting || has_request(c)) { reply(c, "ERR BUSY a blocking request is outstanding"); return; }
  cli[c].waiting = true;
  cli[c].wnode = node;
  snprintf(cli[c].wdisc, sizeof cli[c].wdisc, "%s", disc);
  /* The oldest request first: by slot, a request in a high slot starved while the lower
   * slots refilled (ab with 50 connects at once: some waited until their 10 s timeout). */
  struct req *oldest = NULL;
  for (int i = 0; i < MAXREQ; i++)
    if (reqs[i].used && !reqs[i].taken && reqs[i].rnode == node && !strcmp(reqs[i].rdisc, disc) &&
        (!oldest || age(&reqs[i]) > age(oldest)))
      oldest = &reqs[i];
  if (oldest) offer(c, oldest);
}

static void do_connect(int c, unsigned node, unsigned vi, unsigned rnode, const char *rdisc,
                       const char *mydisc) {
  bool remote = remote_node(rnode);
  if (nicd_local(D, node) < 0) { reply(c, "ERR NONIC no such NIC here"); return; }
  if (!remote && nicd_local(D, rnode) < 0) { reply(c, "ERR NONIC no such node"); return; }
  if (!nic_up(node) || (!remote && !nic_up(rnode))) { reply(c, "ERR NONIC the NIC faulted"); return; }
  struct hostif_vi *v = vitab_vi(D, node, vi);
  if (!v || __atomic_load_n(&v->state, __ATOMIC_ACQUIRE) != HOSTIF_VI_IDLE) {
    reply(c, "ERR STATE the VI is not idle");
    return;
  }
  if (!disc_ok(rdisc) || !disc_ok(mydisc)) { reply(c, "ERR INVAL bad discriminator"); return; }
  if (cli[c].waiting || has_request(c)) { reply(c, "ERR BUSY a blocking request is outstanding"); return; }
  struct req *r = NULL;
  for (int i = 0; i < MAXREQ && !r; i++)
    if (!reqs[i].used) r = &reqs[i];
  if (!r) { reply(c, "ERR BUSY too many pending requests"); return; }
  *r = (struct req){.used = true, .id = next_id++, .from = c, .node = node, .vi = vi,
                    .rnode = rnode, .rel = v->reliability, .conn = -1};
  if (next_id == INT_MAX) next_id = 1;
  snprintf(r->rdisc, sizeof r->rdisc, "%s", rdisc);
  snprintf(r->mydisc, sizeof r->mydisc, "%s", mydisc);
  if (!remote) {
    reoffer(r);
    return;
  }
  char why[320];
  if (peer_send_connect(rnode, (unsigned)r->id, node, vi, rdisc, mydisc, r->rel, &r->conn,
                        &r->gen, why, sizeof why) != 0) {
    r->used = false;
    reply(c, "ERR UNREACH %s", why);
  }
}

/* ACCEPT of a request from another nicd: our VI is paired first (frames from the requester
 * may come as soon as it learns), the requester's nicd pairs its own and answers DONE. */
static void accept_remote(int c, struct req *r, unsigned node, unsigned vi) {
  if (r->accepting) { reply(c, "ERR NOMATCH the request is being accepted"); return; }
  uint32_t stamp = vitab_new_stamp();
  if (vitab_pair_half(D, node, vi, r->node, r->vi, r->rel, stamp) != 0) {
    reply(c, "ERR STATE VIs not idle or reliability differs");
    peer_send(r->conn, r->gen, "REJ %u", r->rid);
    r->used = false;
    return;
  }
  peer_bind_vi(node, vi, r->conn, r->gen);
  r->accepting = true;
  r->acceptor = c;
  r->acceptor_serial = cli[c].serial;
  r->anode = node;
  r->avi = vi;
  peer_send(r->conn, r->gen, "ACC %u %d %u %u %u", r->rid, r->id, node, vi, stamp);
}

static void do_accept(int c, unsigned id, unsigned node, unsigned vi) {
  struct req *r = find_req((int)id);
  if (!r || !r->taken) { reply(c, "ERR NOMATCH no such request"); return; }
  if (r->remote_in) {
    accept_remote(c, r, node, vi);
    return;
  }
  if (vitab_pair(D, node, vi, r->node, r->vi) != 0) {
    reply(c, "ERR STATE VIs not idle or reliability differs");
    reply(r->from, "ERR REJECTED the peer VI could not be connected");
  } else {
    if (D->udp) {   /* paired here: no control connection speaks for them any more */
      peer_bind_vi(node, vi, -1, 0);
      peer_bind_vi(r->node, r->vi, -1, 0);
    }
    reply(c, "OK CONNECTED %u %u", r->node, r->vi);
    reply(r->from, "OK CONNECTED %u %u", node, vi);
  }
  r->used = false;
}

static void do_reject(int c, unsigned id) {
  struct req *r = find_req((int)id);
  if (!r || r->accepting) { reply(c, "ERR NOMATCH no such request"); return; }
  if (r->remote_in) peer_send(r->conn, r->gen, "REJ %u", r->rid);
  else reply(r->from, "ERR REJECTED rejected by the peer");
  reply(c, "OK");
  r->used = false;
}

/* PASS: the client that took a request gives it back untouched; the next WAIT on its address
 * takes it (a process closing its copy of a listener that others still serve). */
static void do_pass(int c, unsigned id) {
  struct req *r = find_req((int)id);
  if (!r || !r->taken || r->taker != c || r->accepting) { reply(c, "ERR NOMATCH no such request"); return; }
  r->taken = false;
  reply(c, "OK");
  reoffer(r);
}

/* FABRIC: the transport's counters (CONNECT.md). Read while the firmware loop runs: each is
 * one aligned 64-bit word, at most a pass old. */
static void do_fabric(int c) {
  if (!D->udp) {
    struct fabric_counters k;
    fabric_counters(D->fab, FAB_ALL, &k);
    reply(c, "OK memory tx_frames=%llu rx_frames=%llu", (unsigned long long)k.tx_packets,
          (unsigned long long)k.rx_packets);
    return;
  }
  struct udpfab_stats st;
  udpfab_stats(D->fab, &st);
  char out[900];
  int n = snprintf(out, sizeof out,
                   "OK udp port=%u nodes=%u control=%u control_refused=%llu tx_datagrams=%llu "
                   "tx_batches=%llu tx_errors=%llu rx_datagrams=%llu rx_batches=%llu",
                   (unsigned)udpfab_port(D->fab), D->clu.nodes, peer_live(),
                   (unsigned long long)peer_refused(),
                   (unsigned long long)st.tx_datagrams, (unsigned long long)st.tx_batches,
                   (unsigned long long)st.tx_errors, (unsigned long long)st.rx_datagrams,
                   (unsigned long long)st.rx_batches);
  for (int v = 1; v < UDPWIRE_V_NVERDICTS && n > 0 && (size_t)n < sizeof out; v++) {
    char key[32];
    snprintf(key, sizeof key, "%s", udpwire_verdict_name(v));
    for (char *k = key; *k; k++)
      if (*k == '-') *k = '_';
    n += snprintf(out + n, sizeof out - (size_t)n, " bad_%s=%llu", key,
                  (unsigned long long)st.bad[v]);
  }
  if (n > 0 && (size_t)n < sizeof out)
    snprintf(out + n, sizeof out - (size_t)n,
             " bad_addr=%llu bad_late=%llu inj_loss=%llu inj_dup=%llu inj_reorder=%llu"
             " inj_corrupt=%llu",
             (unsigned long long)st.bad_addr, (unsigned long long)st.late,
             (unsigned long long)st.inj_loss,
             (unsigned long long)st.inj_dup, (unsigned long long)st.inj_reorder,
             (unsigned long long)st.inj_corrupt);
  reply(c, "%s", out);
}

/* PEER <node>: this nicd's traffic with one node of the cluster. */
static void do_peer(int c, unsigned node) {
  struct udpfab_peer_stats ps;
  if (!D->udp) { reply(c, "ERR INVAL not a cluster (nicd --udp)"); return; }
  if (udpfab_peer_stats(D->fab, node, &ps) != 0) { reply(c, "ERR NONIC no such node"); return; }
  const char *where = nicd_local(D, node) >= 0 ? "local" : D->clu.peer_of[node] >= 0 ? "remote" : "none";
  reply(c, "OK node=%u at=%s tx_frames=%llu tx_bytes=%llu rx_frames=%llu rx_bytes=%llu rx_bad=%llu",
        node, where, (unsigned long long)ps.tx_frames, (unsigned long long)ps.tx_bytes,
        (unsigned long long)ps.rx_frames, (unsigned long long)ps.rx_bytes,
        (unsigned long long)ps.rx_bad);
}

/* --- requests and answers from other nicds (peer.c) ------------------------------------------ */

void cm_remote_request(int conn, uint32_t gen, unsigned rid, unsigned node, unsigned vi,
                       unsigned rnode, const char *rdisc, const char *mydisc, unsigned rel) {
  const char *code = !nic_up(rnode)                      ? "NONIC"
                     : !disc_ok(rdisc) || !disc_ok(mydisc) ? "INVAL"
                                                           : NULL;
  struct req *r = NULL;
  for (int i = 0; i < MAXREQ && !r && !code; i++)
    if (!reqs[i].used) r = &reqs[i];
  if (!code && !r) code = "BUSY";
  if (code) {
    peer_send(conn, gen, "FAIL %u %s", rid, code);
    return;
  }
  *r = (struct req){.used = true, .id = next_id++, .from = -1, .node = node, .vi = vi,
                    .rnode = rnode, .rel = rel, .conn = conn, .gen = gen, .remote_in = true,
                    .rid = rid};
  if (next_id == INT_MAX) next_id = 1;
  snprintf(r->rdisc, sizeof r->rdisc, "%s", rdisc);
  snprintf(r->mydisc, sizeof r->mydisc, "%s", mydisc);
  reoffer(r);
}

static struct req *find_remote(int conn, uint32_t gen, unsigned id, bool in) {
  for (int i = 0; i < MAXREQ; i++) {
    struct req *r = &reqs[i];
    if (r->used && r->conn == conn && r->gen == gen && r->remote_in == in &&
        (in ? r->rid : (unsigned)r->id) == id)
      return r;
  }
  return NULL;
}

void cm_remote_withdraw(int conn, uint32_t gen, unsigned rid) {
  struct req *r = find_remote(conn, gen, rid, true);
  if (r && !r->accepting) r->used = false;
}

int cm_remote_accepted(int conn, uint32_t gen, unsigned id, unsigned rnode, unsigned rvi,
                       uint32_t stamp) {
  struct req *r = find_remote(conn, gen, id, false);
  if (!r) return -1;    /* withdrawn meanwhile: the acceptor's nicd unpairs its VI */
  r->used = false;
  if (vitab_pair_half(D, r->node, r->vi, rnode, rvi, r->rel, stamp) != 0) {
    reply(r->from, "ERR REJECTED the requesting VI is no longer idle");
    return -1;
  }
  peer_bind_vi(r->node, r->vi, conn, gen);
  reply(r->from, "OK CONNECTED %u %u", rnode, rvi);
  return 0;
}

void cm_remote_answer(int conn, uint32_t gen, unsigned id, const char *line) {
  struct req *r = find_remote(conn, gen, id, false);
  if (!r) return;
  r->used = false;
  reply(r->from, "%s", line);
}

void cm_remote_done(int conn, uint32_t gen, unsigned id, bool ok) {
  struct req *r = NULL;
  for (int i = 0; i < MAXREQ && !r; i++)
    if (reqs[i].used && reqs[i].remote_in && reqs[i].accepting && reqs[i].conn == conn &&
        reqs[i].gen == gen && reqs[i].id == (int)id)
      r = &reqs[i];
  if (!r) return;
  r->used = false;
  if (ok) {
    reply_to(r->acceptor, r->acceptor_serial, "OK CONNECTED %u %u", r->node, r->vi);
    return;
  }
  vitab_unpair(D, r->anode, r->avi, r->node, r->vi);
  peer_bind_vi(r->anode, r->avi, -1, 0);
  reply_to(r->acceptor, r->acceptor_serial,
           "ERR STATE the requester withdrew or its VI is no longer idle");
}

void cm_remote_lost(int conn, uint32_t gen, const char *why) {
  for (int i = 0; i < MAXREQ; i++) {
    struct req *r = &reqs[i];
    if (!r->used || r->conn != conn || r->gen != gen) continue;
    r->used = false;
    if (!r->remote_in) reply(r->from, "ERR UNREACH %s", why);
    else if (r->accepting) reply_to(r->acceptor, r->acceptor_serial, "ERR UNREACH %s", why);
  }
}

/* One request line (cmparse.c checks its shape and numbers). */
static void handle_line(int c, char *line) {
  struct cm_req q;
  switch (cm_parse(line, &q)) {
  case CM_PING: reply(c, "OK nicd %u", D->n); break;
  case CM_RESOLVE: {
    int node = hosts_resolve(D->hosts_path, q.s[0]);
    if (node < 0) reply(c, "ERR NOMATCH no such host");
    else reply(c, "OK %d", node);
    break;
  }
  case CM_STATS:
    if (nicd_local(D, q.n[0]) < 0) reply(c, "ERR NONIC no such NIC here");
    else do_stats(c, q.n[0]);
    break;
  case CM_FABRIC: do_fabric(c); break;
  case CM_PEER: do_peer(c, q.n[0]); break;
  case CM_WAIT: do_wait(c, q.n[0], q.s[0]); break;
  case CM_CONNECT: do_connect(c, q.n[0], q.n[1], q.n[2], q.s[0], q.s[1]); break;
  case CM_ACCEPT: do_accept(c, q.n[0], q.n[1], q.n[2]); break;
  case CM_REJECT: do_reject(c, q.n[0]); break;
  case CM_PASS: do_pass(c, q.n[0]); break;
  case CM_DISCONNECT:
    if (!vitab_vi(D, q.n[0], q.n[1])) { reply(c, "ERR INVAL no such VI"); break; }
    vitab_disconnect(D, q.n[0], q.n[1]);
    reply(c, "OK");
    break;
  default:
    reply(c, "ERR INVAL unknown or malformed request (numbers are decimal, fields one space apart)");
  }
}

/* A client went away: its own requests die; a request it was offered but had not yet accepted
 * or rejected (its VipConnectWait timed out at that moment) goes back to waiting, so the
 * requester is answered by someone else or by its own timeout, never left hanging. */
static void drop_client(int c) {
  close(cli[c].fd);
  cli[c].fd = -1;
  cli[c].waiting = false;
  cli[c].dead = false;
  cli[c].len = 0;
  for (int i = 0; i < MAXREQ; i++) {
    if (!reqs[i].used)
      continue;
    if (reqs[i].from == c) {
      if (reqs[i].conn >= 0) peer_send(reqs[i].conn, reqs[i].gen, "WDRAW %d", reqs[i].id);
      reqs[i].used = false;
    } else if (reqs[i].taken && reqs[i].taker == c && !reqs[i].accepting) {
      reqs[i].taken = false;
      reoffer(&reqs[i]);
    }
  }
}

/* Takes what the client sent; serves at most one complete line (the rest waits for the next
 * round: see `buffered`). */
static void client_input(int c, bool readable) {
  if (readable) {
    ssize_t n = recv(cli[c].fd, cli[c].buf + cli[c].len, sizeof cli[c].buf - 1 - cli[c].len, 0);
    if (n <= 0) {
      drop_client(c);
      return;
    }
    cli[c].len += (size_t)n;
  }
  char *nl = memchr(cli[c].buf, '\n', cli[c].len);
  if (nl) {
    *nl = 0;
    cli[c].last = futex_now_ns();
    handle_line(c, cli[c].buf);
    size_t used = (size_t)(nl + 1 - cli[c].buf);
    memmove(cli[c].buf, nl + 1, cli[c].len - used);
    cli[c].len -= used;
  } else if (cli[c].len == sizeof cli[c].buf - 1) {
    reply(c, "ERR INVAL line too long (at most %d bytes)", LINE - 1);
    cli[c].dead = true;
  }
}

static bool buffered(int c) { return memchr(cli[c].buf, '\n', cli[c].len) != NULL; }

/* Blocked in a WAIT or CONNECT, or offered a request: legitimately silent. */
static bool blocked(int c) {
  if (cli[c].waiting || has_request(c)) return true;
  for (int i = 0; i < MAXREQ; i++)
    if (reqs[i].used && reqs[i].taken && reqs[i].taker == c) return true;
  return false;
}

static void drop_idle(uint64_t now) {
  uint64_t idle = (uint64_t)D->cm_idle_ms * 1000000ull;
  for (int c = 0; c < MAXCLI; c++)
    if (cli[c].fd >= 0 && !blocked(c) && now - cli[c].last > idle) {
      if (D->verbose) fprintf(stderr, "nicd: client %d idle: closed\n", c);
      drop_client(c);
    }
}

/* A new connection: a free slot, else the slot of the longest idle client; refused (with
 * the reason) when every slot is blocked or its process holds MAXPERPID already. */
static void admit(int fd) {
  struct ucred cr = {0};
  socklen_t len = sizeof cr;
  getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len);
  int free_slot = -1, idlest = -1, mine = 0, my_idlest = -1;
  for (int c = 0; c < MAXCLI; c++) {
    if (cli[c].fd < 0) {
      if (free_slot < 0) free_slot = c;
      continue;
    }
    bool idle = !blocked(c);
    if (cr.pid > 0 && cli[c].pid == cr.pid) {
      mine++;
      if (idle && (my_idlest < 0 || cli[c].last < cli[my_idlest].last)) my_idlest = c;
    }
    if (idle && (idlest < 0 || cli[c].last < cli[idlest].last)) idlest = c;
  }
  const char *why = NULL;
  if (mine >= MAXPERPID) {   /* a process at its bound makes room among its own */
    if (my_idlest < 0) why = "ERR BUSY too many blocked connections from this process\n";
    else drop_client(my_idlest), free_slot = my_idlest;
  } else if (free_slot < 0 && idlest < 0) {
    why = "ERR BUSY too many clients waiting\n";
  }
  if (why) {
    if (send(fd, why, strlen(why), MSG_NOSIGNAL | MSG_DONTWAIT) < 0 && D->verbose)
      fprintf(stderr, "nicd: refusing a client: %s\n", strerror(errno));
    close(fd);
    return;
  }
  if (free_slot < 0) {
    drop_client(idlest);
    free_slot = idlest;
  }
  cli[free_slot] = (struct client){.fd = fd, .pid = cr.pid, .last = futex_now_ns(),
                                   .serial = next_serial++};
}

static void *cm_main(void *arg) {
  (void)arg;
  uint64_t last_reap = 0;
  static struct pollfd p[MAXCLI + 1 + PEER_FDS];
  static int map[MAXCLI + 1];
  while (!nicd_stop) {
    int np = 0, timeout = 100;
    p[np].fd = lfd;
    p[np].events = POLLIN;
    map[np++] = -1;
    for (int c = 0; c < MAXCLI; c++)
      if (cli[c].fd >= 0) {
        p[np].fd = cli[c].fd;
        p[np].events = POLLIN;
        p[np].revents = 0;
        map[np++] = c;
        if (buffered(c)) timeout = 0;   /* a line is waiting its turn */
      }
    int npeer = D->udp ? peer_pollfds(p + np, PEER_FDS, &timeout) : 0;
    int r = poll(p, (nfds_t)(np + npeer), timeout);
    if (r > 0 && npeer) peer_serve(p + np, npeer);
    for (int i = 1; i < np; i++) {
      int c = map[i];
      bool readable = r > 0 && (p[i].revents & (POLLIN | POLLHUP | POLLERR));
      if (cli[c].fd >= 0 && (readable || buffered(c))) client_input(c, readable);
    }
    for (int c = 0; c < MAXCLI; c++)
      if (cli[c].fd >= 0 && cli[c].dead) drop_client(c);
    if (r > 0 && (p[0].revents & POLLIN)) {
      int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
      if (fd >= 0) admit(fd);
    }
    uint64_t now = futex_now_ns();
    if (now - last_reap > 100000000ull) {
      vitab_reap(D);
      segs_reap();
      regions_reap(D, now);
      drop_idle(now);
      fail_waits();
      last_reap = now;
    }
  }
  return NULL;
}

/* Room for a descriptor per client and peer (the usual soft limit is 1024), as far as the hard
 * limit allows: beyond it, accept() fails and the client is refused. */
static void fd_room(void) {
  struct rlimit l;
  rlim_t want = MAXCLI + PEER_FDS + 64;
  if (getrlimit(RLIMIT_NOFILE, &l) != 0 || l.rlim_cur >= want) return;
  l.rlim_cur = l.rlim_max == RLIM_INFINITY || l.rlim_max > want ? want : l.rlim_max;
  setrlimit(RLIMIT_NOFILE, &l);
}

int cm_start(struct nicd *d) {
  D = d;
  fd_room();
  for (int c = 0; c < MAXCLI; c++) cli[c].fd = -1;
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  if (strlen(d->sock_path) >= sizeof a.sun_path) return -ENAMETOOLONG;
  strcpy(a.sun_path, d->sock_path);
  lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (lfd < 0) return -errno;
  unlink(d->sock_path);
  if (bind(lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(lfd, SOMAXCONN) != 0) {
    int e = -errno;
    close(lfd);
    return e;
  }
  /* The firmware loop (main thread) takes SIGTERM/SIGINT, not this one. */
  sigset_t s, old;
  sigemptyset(&s);
  sigaddset(&s, SIGTERM);
  sigaddset(&s, SIGINT);
  pthread_sigmask(SIG_BLOCK, &s, &old);
  int rc = pthread_create(&thr, NULL, cm_main, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return -rc;
}

void cm_stop(void) {
  pthread_join(thr, NULL);
  if (D->udp) peer_stop();
  for (int c = 0; c < MAXCLI; c++)
    if (cli[c].fd >= 0) close(cli[c].fd);
  close(lfd);
  unlink(D->sock_path);
}
