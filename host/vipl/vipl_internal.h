/* VIPL internals: handle validation (handles are table indices with a generation, so a stale
 * or garbage handle is an error, never a wild pointer), the objects behind the handles, and
 * helpers shared by the VIPL files. */
#ifndef VIPL_INTERNAL_H
#define VIPL_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>

#include "libnic.h"
#include "vipl.h"

enum vh_type { VH_NIC = 1, VH_VI, VH_CQ, VH_PTAG, VH_CONN };

/* Registers obj under a new handle (NULL when the table is full). */
void *vh_new(enum vh_type t, void *obj);
/* The object behind a live handle of type t, or NULL. */
void *vh_get(const void *handle, enum vh_type t);
void vh_free(const void *handle);

struct vcq;
struct vpeer;

/* One armed notification (vipl_notify.c): a work queue's (vi_fn) or a CQ's (cq_fn). Armed
 * while pid is the process that armed it (0: not armed; another pid: inherited by fork, void). */
struct vnotify {
  void (*vi_fn)(VIP_PVOID, VIP_NIC_HANDLE, VIP_VI_HANDLE, VIP_DESCRIPTOR *);
  void (*cq_fn)(VIP_PVOID, VIP_NIC_HANDLE, VIP_VI_HANDLE, VIP_BOOLEAN);
  void *ctx;
  pid_t pid;
};

/* A NIC's provider thread (vipl_notify.c), started at the first Notify; runs while pid is
 * this process. Guarded by the device lock. */
struct vnotify_thread {
  pthread_t thread;
  pid_t pid;                          /* the process it runs in; 0: never started */
  pthread_cond_t wake;                /* something was armed, or stop */
  pthread_cond_t idle;                /* a handler call ended */
  bool stop;
  const void *busy;                   /* the VI or CQ whose handler runs now (NULL: none) */
  struct vcq *cqs;                    /* CQs with an armed notification */
  unsigned rr;                        /* where the next scan starts */
  uint32_t sleep_bits;                /* the signal bits it sleeps on (0: awake) */
};

struct vnic {
  void *handle;
  struct lnic_dev *dev;
  uint8_t addr[2];                    /* node id, big-endian: the host address */
  unsigned nvis, ncqs, nptags;
  void (*err_handler)(VIP_PVOID, VIP_ERROR_DESCRIPTOR *);
  void *err_ctx;
  bool err_reported;
  bool ns_ready;
  char hosts_path[256];
  struct { struct vptag *ptag; bool rdma_write; } mr[NIC_MAX_MR];  /* by libnic registration */
  struct vnotify_thread nt;
};

struct vptag {
  void *handle;
  struct vnic *nic;
  uint32_t tag;
  unsigned users;                     /* VIs and registrations using it */
};

struct vvi {
  void *handle;
  struct vnic *nic;
  struct lnic_vi *lv;
  struct vptag *ptag;
  VIP_VI_ATTRIBUTES attrs;
  struct vcq *cq[2];                  /* [NIC_SQ], [NIC_RQ] */
  uint32_t completed[2], cq_reported[2];
  bool pending_connect;
  bool conn_lost;                     /* its break was reported (VIP_ERROR_CONN_LOST) */
  uint64_t broken_ns;                 /* when it was first seen broken (lnic_now_ns) */
  struct vnotify notify[2];           /* [NIC_SQ], [NIC_RQ] */
  bool notify_hold;                   /* VipDestroyVi under way: nothing is delivered */
  struct vpeer *peer;                 /* VipConnectPeerRequest's, until collected (vipl_peer.c) */
};

#define VCQ_MAX_MEMBERS (2 * HOSTIF_NVI)
struct vcq {
  void *handle;
  struct vnic *nic;
  unsigned entries;
  unsigned nmem;
  struct { struct vvi *vi; int q; } mem[VCQ_MAX_MEMBERS];
  unsigned rr;
  _Atomic uint32_t joined;            /* bumped as a queue joins (a futex word: vipl_cq_join) */
  uint32_t sleep_bits;                /* the signal bits its waits sleep on */
  unsigned sleepers;                  /* its waits asleep on them (0: sleep_bits 0) */
  struct vnotify notify;
  struct vcq *notify_next;            /* in nic->nt.cqs while armed */
};

struct vconn {
  void *handle;
  struct vnic *nic;
  int fd;
  unsigned id, rnode, rvi, rel;
};

/* libnic errno -> VIP_RETURN */
VIP_RETURN vipl_err(int neg_errno);
/* Reliability: VIA bit <-> hostif enum; -1 for an unsupported level. */
int vipl_rel_to_hostif(VIP_RELIABILITY_LEVEL r);
VIP_RELIABILITY_LEVEL vipl_rel_from_hostif(unsigned r);
/* The NIC died: flush every VI of nic, tell the error callback once. Device lock held. */
void vipl_nic_dead(struct vnic *nic);
/* vipl_break.c: true if the VI is in ERROR, after completing all it had outstanding with
 * VIP_STATUS_DESC_FLUSHED_ERROR. Device lock held. */
bool vipl_vi_broken(struct vvi *v);
/* Milliseconds (VIP_INFINITE: -1) to nanoseconds. */
int64_t vipl_timeout_ns(VIP_ULONG ms);
/* Progress every member queue of a CQ. Device lock held. */
void vipl_cq_progress(struct vcq *cq);
/* Device lock held: queue q of vi joins c, and whoever sleeps on c's earlier members (its
 * waits, the provider thread) looks again, so that the newcomer's completions wake them. */
void vipl_cq_join(struct vcq *c, struct vvi *vi, int q);
void vipl_cq_detach(struct vvi *vi);
/* The nicd connection manager: a fresh connection, one request and its reply. */
int vipl_cm_open(void);
/* Sends line, waits for the reply line (timeout_ns < 0: no limit). 0, -ETIMEDOUT, -EPIPE. */
int vipl_cm_call(int fd, const char *line, char *reply, size_t cap, int64_t timeout_ns);
int vipl_cm_call_now(int fd, const char *line, char *reply, size_t cap, int64_t timeout_ns);
/* The same without timing mode's bookkeeping: for the peer request thread (vipl_peer.c). */
int vipl_cm_call_raw(int fd, const char *line, char *reply, size_t cap, int64_t timeout_ns);
/* An `ERR ...` reply of nicd's connection manager as a VIP_RETURN. */
VIP_RETURN vipl_cm_error(const char *reply);
/* Address helpers: node and discriminator of a VIP_NET_ADDRESS. */
int vipl_addr_node(const VIP_NET_ADDRESS *a, unsigned *node);
void vipl_addr_disc_hex(const VIP_NET_ADDRESS *a, char *out, size_t cap);
int vipl_addr_fill(VIP_NET_ADDRESS *a, unsigned node, const char *disc_hex);
/* The host address only (the name service): DiscriminatorLen and its bytes are untouched. */
void vipl_addr_set_host(VIP_NET_ADDRESS *a, unsigned node);
/* vipl_post.c: one VipSendDone/VipRecvDone attempt, device lock held; *l1mask gets the L1
 * queues' signal bits. */
VIP_RETURN vipl_vi_try_done(struct vvi *v, int q, VIP_DESCRIPTOR **out, uint32_t *l1mask);
/* vipl_cq.c: one VipCQDone attempt, device lock held; *mask gets the signal bits to wait on
 * (the member queues' and the L1 queues'). */
VIP_RETURN vipl_cq_try(struct vcq *c, VIP_VI_HANDLE *vh, VIP_BOOLEAN *rq, uint32_t *mask);
/* vipl_notify.c. Device lock held: whether a notification is armed on the queue or CQ (then
 * its Done and Wait calls return VIP_ERROR_RESOURCE). */
bool vipl_notify_armed(struct vnotify *nt);
/* VipDestroyVi: hold stops deliveries to the VI and returns once a handler of it running on
 * the provider thread has returned (so the VI is never torn down under its own handler);
 * release undoes it when the destroy fails; gone drops its notifications once its handle is
 * freed. Without the lock. */
void vipl_notify_vi_hold(struct vvi *v);
void vipl_notify_vi_release(struct vvi *v);
void vipl_notify_vi_gone(struct vvi *v);
/* VipDestroyCQ, its handle freed: its notification is dropped and a handler of it running on
 * the provider thread has returned. Without the lock. */
void vipl_notify_cq_gone(struct vcq *c);
/* Device lock held: the provider thread, if this process runs one, looks again (a queue
 * joined a CQ: it may sleep without bits, or on the CQ's earlier members'). */
void vipl_notify_look(struct vnic *n);
/* VipCloseNic: stops and joins the provider thread. VIP_INVALID_STATE when called from a
 * handler (the thread cannot join itself). Without the lock. */
VIP_RETURN vipl_notify_stop(struct vnic *n);
/* vipl_peer.c. Device lock held: a peer connection request of this process is under way on
 * the VI (VIP_STATE_CONNECT_PENDING; the other connection calls return VIP_INVALID_STATE). */
bool vipl_peer_pending(struct vvi *v);
/* VipDestroyVi, without the lock: a pending peer request is cancelled (its cm connection shut
 * down, so the blocking call ends) and its thread has finished once this returns;
 * VIP_INVALID_STATE (and nothing cancelled) when the VI has descriptors outstanding, which
 * VipDestroyVi refuses anyway. gone: the destroy succeeded, the request is freed. */
VIP_RETURN vipl_peer_stop(struct vvi *v);
void vipl_peer_gone(struct vvi *v);
/* Where nicd's files are ($VERINIC_RUN, default /tmp/verinic-<uid>). */

#endif
