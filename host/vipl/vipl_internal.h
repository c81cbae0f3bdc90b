/* VIPL internals: handle validation (handles are table indices with a generation, so a stale
 * or garbage handle is an error, never a wild pointer), the objects behind the handles, and
 * helpers shared by the VIPL files. */
#ifndef VIPL_INTERNAL_H
#define VIPL_INTERNAL_H

#include <stdbool.h>

#include "libnic.h"
#include "vipl.h"

enum vh_type { VH_NIC = 1, VH_VI, VH_CQ, VH_PTAG, VH_CONN };

/* Registers obj under a new handle (NULL when the table is full). */
void *vh_new(enum vh_type t, void *obj);
/* The object behind a live handle of type t, or NULL. */
void *vh_get(const void *handle, enum vh_type t);
void vh_free(const void *handle);

struct vcq;

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
};

#define VCQ_MAX_MEMBERS (2 * HOSTIF_NVI)
struct vcq {
  void *handle;
  struct vnic *nic;
  unsigned entries;
  unsigned nmem;
  struct { struct vvi *vi; int q; } mem[VCQ_MAX_MEMBERS];
  unsigned rr;
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
void vipl_cq_detach(struct vvi *vi);
/* The nicd connection manager: a fresh connection, one request and its reply. */
int vipl_cm_open(void);
/* Sends line, waits for the reply line (timeout_ns < 0: no limit). 0, -ETIMEDOUT, -EPIPE. */
int vipl_cm_call(int fd, const char *line, char *reply, size_t cap, int64_t timeout_ns);
int vipl_cm_call_now(int fd, const char *line, char *reply, size_t cap, int64_t timeout_ns);
/* Address helpers: node and discriminator of a VIP_NET_ADDRESS. */
int vipl_addr_node(const VIP_NET_ADDRESS *a, unsigned *node);
void vipl_addr_disc_hex(const VIP_NET_ADDRESS *a, char *out, size_t cap);
int vipl_addr_fill(VIP_NET_ADDRESS *a, unsigned node, const char *disc_hex);
/* The host address only (the name service): DiscriminatorLen and its bytes are untouched. */
void vipl_addr_set_host(VIP_NET_ADDRESS *a, unsigned node);
/* Where nicd's files are ($VERINIC_RUN, default /tmp/verinic-<uid>). */

#endif
