/* sv_int.h: SOVIA internals shared by the library's files: configuration, the per-process
 * state (NIC, protection tag, completion queue, one lock), sockets, connections with their
 * protocol state (the states, credits and delayed ACKs of esm/sovia/conn.esm and window.esm),
 * listeners, and the functions each file provides. */
#ifndef SV_INT_H
#define SV_INT_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "libnic.h"   /* lnic_thread_start */
#include "sovia.h"
#include "vipl.h"

#define SV_CHUNK    32768u      /* message chunk: the largest DATA payload (paper: 32 KB) */
#define SV_TAIL_CHUNKS 4u       /* chunks a registered send copies at its end (sv_data.c) */
#define SV_MAXFD    4096
#define SV_NCTL     64u         /* control descriptors (ACK, FIN, FINACK, WAKEUP) per conn */
#define SV_WMAX     1024
#define SV_RING_MAX (4u << 20)  /* receive ring's default bound, as Linux's autotuned TCP
                                 * receive buffer (tcp_rmem's 6 MB at most) */
#define SV_NIC_RING 32u         /* receive descriptors the NIC holds per VI (host/vipl/README.md:
                                 * more wait in libnic's overflow list, and a message arriving
                                 * before they are moved in is dropped) */

/* Packet kinds in the low bits of the 32-bit immediate data; the ACK count sits above. */
enum { SV_WAKEUP = 1, SV_DATA = 2, SV_ACK = 3, SV_FIN = 4, SV_FINACK = 5 };
#define SV_KINDS 8u
#define SV_IMM(kind, acks) ((uint32_t)(kind) + SV_KINDS * (uint32_t)(acks))

/* Tunables (environment defaults; per socket through setsockopt). */
struct sv_cfg {
  unsigned w, t;              /* window (DATA in flight) and delayed-ACK threshold */
  unsigned copy_threshold;    /* bytes; sends up to this are copied */
  bool combine;               /* small-message combining */
  unsigned combine_us;        /* its timer */
  unsigned connect_ms;        /* connect timeout */
  unsigned rcvbuf;            /* bytes the receive ring may hold (0: w x 32 KB, >= 64 KB) */
};
extern struct sv_cfg sv_defaults;
void sv_config_load(void);
/* The credit window and threshold a (w, t) needs: w = 1 still runs with 2 credits (the close
 * needs W >= T + 1), the DATA window staying 1 (README, "w = 1"). */
unsigned sv_credit_w(unsigned w);
unsigned sv_credit_t(unsigned w, unsigned t);
/* What a connection asking for (w, t) uses: the DATA window wd, credits cw and threshold ct,
 * with the cw + cw/ct receive descriptors within the NIC's ring (SV_NIC_RING). */
void sv_window(unsigned w, unsigned t, unsigned *wd, unsigned *cw, unsigned *ct);

/* Connection states of Fig. 11 / conn.esm (CloserWait is not needed: see README). */
enum sv_state {
  SV_CONNECTING, SV_NORMAL, SV_CLOSE_WAIT, SV_LAST_ACK, SV_FIN_WAIT1, SV_FIN_WAIT2,
  SV_CLOSING, SV_TIME_WAIT, SV_TEARDOWN, SV_CLOSED
};

/* The payload of WAKEUP: each side's w and t, so both use W = min(w), T = min(max(t), W). */
struct sv_hello { uint32_t magic, w, t; };
#define SV_MAGIC 0x534f5631u

struct sv_conn {
  VIP_VI_HANDLE vi;
  uint8_t *mem;               /* descriptors and buffers, one registration */
  size_t memlen;
  VIP_MEM_HANDLE mh;
  VIP_PROTECTION_HANDLE mtag;   /* the tag mem is registered with (a fork child's differs) */
  unsigned w, t, nr, ns;      /* local w, t; receive descriptors (w + w/t); data slots */
  VIP_DESCRIPTOR *rd, *sd, *cd;   /* receive, data-send, control-send descriptors */
  uint8_t *rbufs, *sbufs, *cbufs;
  /* protocol (conn.esm) */
  enum sv_state st;
  bool hello;                 /* the peer's WAKEUP is in: W, T known */
  unsigned W, T;              /* effective credit window and threshold */
  unsigned Wd;                /* effective DATA window (min of both w; 1 for BASE) */
  unsigned credit, dack;
  unsigned unacked;           /* WAKEUP and DATA sent and not yet acknowledged */
  bool wakeup_acked;          /* the first acknowledgement came: unacked counts DATA only */
  unsigned inflight_max;      /* the most DATA ever unacknowledged (SOVIA_SO_INFLIGHT_MAX) */
  bool finack_owed, fin_wanted, app_closed, peer_fin, rd_shut;
  /* ends with a reset (the VI disconnected: ECONNRESET at the peer), not a FIN, once what
   * was queued is acknowledged: closed with data unread, DATA arriving after the close, or
   * SO_LINGER {1, 0}, where TCP resets (it also drops what was queued; this sends it first) */
  bool reset_wanted;
  int err;                    /* errno once the connection broke (0 while fine) */
  /* send side */
  unsigned *sfree, nsfree;    /* free data slots */
  unsigned *sq, sq_head, sq_len;  /* slots waiting for a credit, FIFO */
  uint32_t *slen;             /* bytes in each data slot */
  bool *suser;                /* slot points into registered user memory */
  int comb;                   /* slot being filled by combining, -1 none */
  uint64_t comb_deadline;
  unsigned user_out;          /* user-memory sends not yet complete */
  unsigned cfree_n;           /* control descriptors free */
  bool *cbusy;
  unsigned posted_sends;      /* send descriptors in the SQ */
  /* receive side: DATA (and a FIN behind it) stays in its descriptor, unacknowledged, until
   * the application reads (held, FIFO); the ring (at most rb_max bytes) takes what a read
   * leaves of a DATA, and peeked DATA */
  uint8_t *rb;
  size_t rb_cap, rb_head, rb_len, rb_max;
  uint8_t *ubuf;              /* a recv() lent this buffer (waiting, or taking held DATA): */
  size_t ulen, ugot;          /* DATA goes into it first (ugot of ulen bytes) */
  VIP_DESCRIPTOR **held;
  unsigned held_head, nheld;
  uint64_t rx_bytes, tx_bytes;
  uint64_t last_check;        /* last VI state check (dead peer detection) */
  struct sockaddr_in local, peer;
  struct sv_conn *next;       /* all live connections */
  bool orphan;                /* its socket is closed: the close thread finishes it */
  bool torn;                  /* sv_conn_reap: its VI went, its memory may be used again */
  unsigned evseq;             /* bumped at every change of readiness (edge-triggered epoll) */
  /* fork (README, "fork and exec"): a connection that existed at a fork is progressed per VI,
   * never through a completion queue, and only by the process that claimed it (sh->owner) */
  bool legacy;
  bool handed;                /* between prepare and the child's handler: counted in sh->unborn */
  /* A request a listener shared with other processes took, not yet accepted: it is at
   * accept() (else a closing copy could not give it to the others: sv_listen.c) */
  VIP_CONN_HANDLE pending;
  struct sv_shared *sh;       /* in the registered (so shared) memory */
};

/* Per connection, in memory the processes of a fork share: who may use it. */
#define SV_HOLDERS 8
struct sv_shared {
  _Atomic int owner;          /* pid; 0: undecided since the last fork */
  _Atomic int holder[SV_HOLDERS];   /* processes holding a copy (0: free) */
  _Atomic int unborn;         /* children forked whose handler has not yet added them */
  char door[48];              /* a relay's abstract unix name handing out the connection
                               * (sovia_set_door), "" if none */
  _Atomic int relay_wanted;   /* a process that would use it too asks its owner to relay it
                               * (sovia_relay_request): the pid, 0 if none */
};

/* Per listener, in a page the processes of a fork share (a memfd named mapname, so that a
 * holder that has since exec'd is told from one that still listens: sv_fork.c, sv_lheir). */
#define SV_LHOLDERS 1000
struct sv_lshared {
  _Atomic int unborn;         /* children forked whose handler has not yet added them */
  _Atomic int holder[SV_LHOLDERS];
};

struct sv_listener {
  unsigned node, port;
  unsigned backlog;           /* connections the thread accepts ahead of accept() */
  struct sv_conn **q;         /* accepted connections not yet taken: a ring of qcap, room
                               * beyond the backlog for the requests a pause takes */
  unsigned qh, qn, qcap;
  pthread_t thr;
  bool thr_started;           /* the connection thread runs from the first accept/poll */
  bool stop, thr_done;
  bool dead_told;             /* accept() reported the connection thread's end (the NIC went
                                 away): readiness said it once, as a socket error is said */
  bool closing;               /* stop for good (close), not a pause for fork: refuse requests */
  bool room_wait;             /* the connection thread waits for room in the backlog, not in
                               * VipConnectWait: a stop needs no stopper request */
  bool stopper_sent;          /* a stop sent one: the thread takes it from VipConnectWait */
  bool abandoned;             /* closed while its thread could not be woken: the thread frees */
  struct sv_lshared *sh;      /* the processes holding a copy (fork) */
  char mapname[48];
  unsigned evseq;
  char regpath[256];
  struct sv_cfg cfg;
};

enum sv_kind { SV_FREE = 0, SV_NEW, SV_LISTEN, SV_CONNECTING_SOCK, SV_CONN };

struct sv_connecting;

struct sv_sock {
  enum sv_kind kind;
  bool nonblock;
  bool bound;
  bool connect_told;          /* connect() has reported success (a second one: EISCONN) */
  bool linger0;               /* SO_LINGER {1, 0}: close resets */
  int so_error;               /* a non-blocking connect's failure, for SO_ERROR */
  uint64_t rcvtimeo_ns, sndtimeo_ns;   /* SO_RCVTIMEO (recv, accept), SO_SNDTIMEO; 0: none */
  unsigned flagopts;          /* SO_REUSEADDR, SO_KEEPALIVE, SO_REUSEPORT as set: read back */
  struct sockaddr_in local;
  struct sv_cfg cfg;
  struct sv_conn *c;
  struct sv_listener *l;
  struct sv_connecting *pc;   /* SV_CONNECTING_SOCK: the connect in progress */
};

struct sv_global {
  pthread_mutex_t mu;
  bool ready;
  int init_err;
  VIP_NIC_HANDLE nic;
  VIP_PROTECTION_HANDLE ptag;
  VIP_CQ_HANDLE cq;
  unsigned node;
  struct sv_conn *conns;
  struct sv_sock *socks[SV_MAXFD];
  pthread_t closer;
  bool closer_running;
  unsigned next_port;
  void (*fd_hook)(int fd);    /* told when SOVIA closes one of its descriptors (the shim) */
  int evfd;                   /* readiness notifier (sv_notify.c), -1 until asked for */
  unsigned armed;             /* callers sleeping on it */
  bool watcher_running;
  bool forked;                /* a fork happened: registration of user memory is off */
  unsigned (*sig_count)(int all);   /* handled signals so far (the shim), NULL: none */
  _Atomic bool nic_gone;      /* VIPL reported the NIC dead (nicd killed, LANai fault) */
  bool relay_capable;         /* the shim relays a connection another process asks for */
};
extern struct sv_global G;

/* sv_core.c */
/* Whether the calling thread holds G.mu, or is taking or giving it back: then a signal handler
 * interrupted one of its SOVIA calls, and exit() or fork() from that handler must not wait for
 * the lock (it would never come). */
bool sv_lock_mine(void);
int sv_init(void);                       /* opens the NIC once; 0 or -errno. G.mu held */
uint64_t sv_now_ns(void);
struct sv_sock *sv_sock_get(int fd);     /* NULL if fd is no SOVIA socket */
void sv_lock(void);
void sv_unlock(void);
int sv_err_from_vip(VIP_RETURN r);
bool sv_nic_gone(void);                  /* the NIC went away (asks VIPL). G.mu held */
int sv_broken_errno(void);               /* a connection broke without FIN: ENETDOWN if the
                                          * NIC went away, else ECONNRESET */

/* sv_addr.c */
int sv_addr_node(const struct sockaddr_in *a, unsigned *node);   /* 0 or -errno */
void sv_addr_of_node(unsigned node, unsigned port, struct sockaddr_in *out);
/* Whether node's NIC is on another machine: the hosts file gives it an address (the UDP
 * fabric's) other than this NIC's. Its listeners are in that machine's registry, not ours. */
bool sv_node_elsewhere(unsigned node);
void sv_disc(unsigned node, unsigned port, VIP_NET_ADDRESS *a);  /* a: room for 2 + 4 bytes */
void sv_run_path(const char *file, char *out, size_t cap);
/* The host address and discriminator bytes of a (larger than declared) VIP_NET_ADDRESS. */
uint8_t *sv_addr_bytes(VIP_NET_ADDRESS *a);

/* sv_conn.c: resources of one connection */
struct sv_conn *sv_conn_new(const struct sv_cfg *cfg, int *err);  /* VI, memory, posted RQ */
void sv_conn_free(struct sv_conn *c);    /* unlinks; the close thread tears it down */
void sv_conn_struct_free(struct sv_conn *c);   /* the structure alone (its memory is elsewhere) */
void sv_conn_reap(void);                /* disconnects and destroys the freed (G.mu held,
                                         * released meanwhile) */
void sv_conn_reap_forked(void);         /* a fork child forgets the parent's freed ones */
void sv_conn_pool_forked(void);         /* a fork child drops the parent's pooled memory */
void sv_conn_pool_drain(void);          /* at exit: the pooled memory deregistered */
void sv_conn_link(struct sv_conn *c);
void sv_conn_established(struct sv_conn *c);   /* sends WAKEUP, state NORMAL */
void sv_conn_repost(struct sv_conn *c, VIP_DESCRIPTOR *d);   /* receive descriptor back */

/* sv_proto.c: the protocol engine */
void sv_progress(struct sv_conn *only);  /* all connections (only == NULL) or one */
void sv_pump(struct sv_conn *c);         /* sends what credits allow, FIN/FINACK */
int sv_post_ctl(struct sv_conn *c, unsigned kind, unsigned acks, const void *p, unsigned len);
void sv_fail(struct sv_conn *c, int err);
/* Takes held packets, oldest first, while they may go: a FIN, DATA after close or SHUT_RD,
 * DATA into a waiting recv()'s lent buffer, and `force` more DATA (into the ring). */
void sv_rx_release(struct sv_conn *c, unsigned force);
size_t sv_rx_pending(const struct sv_conn *c);   /* bytes received, not read: ring and held */
/* Waits (lock held, released while sleeping) until pred(arg) or the deadline (0: none):
 * 0, -ETIMEDOUT. */
int sv_wait(bool (*pred)(void *), void *arg, uint64_t deadline_ns);
/* The same, but a signal (sovia_set_signal_probe) ends it: -EINTR. */
int sv_wait_intr(bool (*pred)(void *), void *arg, uint64_t deadline_ns);
/* sv_wait_intr for a condition only a received packet can bring about (data, a FIN, an
 * error): sleeps on the receive queues only, so our own send completions do not wake it.
 * For a caller that has just called sv_progress(NULL) (sv_recv): no second pass first. */
int sv_wait_rx(bool (*pred)(void *), void *arg, uint64_t deadline_ns);
/* sv_wait_intr looking every millisecond: for a condition another thread brings about
 * without a completion (the connection thread filling a listener's backlog). */
int sv_wait_poll(bool (*pred)(void *), void *arg, uint64_t deadline_ns);
/* The deadline of a blocking call under a SO_RCVTIMEO/SO_SNDTIMEO of ns (0: none, so 0). */
uint64_t sv_deadline(uint64_t ns);
/* Signals the application handled so far: every one (all), or those whose handler has no
 * SA_RESTART (what ends a blocking accept, recv or send; poll and its kin end at any). */
unsigned sv_signals(bool all);

/* sv_data.c: send and receive paths */
ssize_t sv_send(struct sv_sock *s, const uint8_t *buf, size_t n, bool nonblock);
ssize_t sv_recv(struct sv_sock *s, uint8_t *buf, size_t n, int flags, bool nonblock);
void sv_comb_flush(struct sv_conn *c);   /* queue the combining slot */
bool sv_data_in_flight(const struct sv_conn *c);   /* DATA queued or unacknowledged */
bool sv_rx_room(struct sv_conn *c, size_t n);   /* the ring can take n more bytes */
void sv_rx_data(struct sv_conn *c, const uint8_t *p, size_t n);   /* a waiting recv(), the ring */
bool sv_readable(struct sv_conn *c);
bool sv_writable(struct sv_conn *c);

/* sv_regcache.c */
int sv_reg_get(void *buf, size_t len, VIP_MEM_HANDLE *h);   /* 0 or -errno */
void sv_reg_put(void *buf);

/* sv_connect.c: connect (blocking, or non-blocking: EINPROGRESS and a helper thread) */
int sv_connect_start(struct sv_sock *s, const struct sockaddr_in *a, unsigned node);
void sv_connect_abandon(struct sv_sock *s);   /* the socket closes while connecting */

/* sv_close.c */
void sv_conn_close(struct sv_conn *c);   /* app close: FIN after queued data; close thread */
void sv_closer_kick(void);
/* A combining slot opened with this deadline (sv_now_ns) and timer period: the close thread
 * is told only if it would not wake by then anyway. */
void sv_closer_comb(uint64_t deadline, uint64_t period_ns);
void sv_closer_forked(void);             /* a fork's child: no close thread, a fresh condvar */

/* sv_notify.c: the readiness notifier and its completion-queue watcher */
void sv_notify(void);                    /* a socket may have changed: wake sleepers. G.mu held */
void sv_notify_forked(void);             /* a fork's child: no watcher, a fresh condvar */

/* sv_fork.c */
bool sv_pid_alive(int pid);              /* the process exists (another user's counts) */
bool sv_usable(struct sv_conn *c);       /* this process may progress it (no claim) */
bool sv_claim(struct sv_conn *c);        /* the application uses it here: claim; false: lost */
bool sv_claim_quiet(struct sv_conn *c);  /* the same, without telling the user it was lost */
/* Another process asked to use c too and this one, its owner, can hand it to a relay: its
 * calls on c then fail with EXDEV, which the shim answers by relaying and going on. G.mu. */
bool sv_relay_due(struct sv_conn *c);
bool sv_takeable(struct sv_conn *c);     /* no other process claimed it */
/* What closing this process's copy does: 0 close it, 1 just forget it (another process owns
 * it or still holds it). */
int sv_release(struct sv_conn *c);
void sv_conn_forget(struct sv_conn *c);  /* drop this process's copy, no NIC call */
/* close(2) of a SOVIA descriptor: the fd hook is told first, so that the shim, which also
 * sees syscall(SYS_close), takes it for a kernel descriptor and only passes it on. */
void sv_sys_close(int fd);
/* A listener's holders: this process holds a copy (listen, a fork's child) or lets it go;
 * sv_lheir lets it go and names another live holder that still maps the page (children whose
 * fork handler has not run yet are given 100 ms), or 0. */
void sv_lhold(struct sv_lshared *sh);
void sv_lunhold(struct sv_lshared *sh);
bool sv_lshared_live(struct sv_lshared *sh);   /* another live process holds a copy */
int sv_lheir(struct sv_lshared *sh, const char *mapname);

/* sv_listen.c */
void sv_listen_run(struct sv_listener *l);   /* starts the connection thread if not yet */
/* Its connection thread gave up (the NIC went away): accept fails, poll says POLLIN|POLLERR. */
bool sv_listen_dead(struct sv_listener *l);
void sv_listen_pause(struct sv_listener *l); /* stops it until the next accept/poll (fork) */
int sv_listen_start(struct sv_sock *s, int backlog);
void sv_listen_stop(struct sv_listener *l);
int sv_listener_alive(unsigned node, unsigned port);   /* 1 if someone listens there */
/* The backlog after a fork is shared (README, "fork and exec"): whether a connection is left
 * for this process (those another process accepted are dropped), and taking one (NULL: none). */
bool sv_backlog_ready(struct sv_listener *l);
struct sv_conn *sv_backlog_take(struct sv_listener *l);
/* At a fork: the requests taken but not accepted are accepted now, and so shared with the
 * child as any connection in the backlog. */
void sv_backlog_settle(struct sv_listener *l);

#endif
