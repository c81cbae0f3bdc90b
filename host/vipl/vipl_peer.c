/* VIPL: the peer-to-peer connection model (VipConnectPeerRequest, VipConnectPeerDone,
 * VipConnectPeerWait), built on nicd's client/server requests (nicd/CONNECT.md: WAIT,
 * CONNECT, ACCEPT, REJECT), so it works between the nicds of a --udp cluster as they do and
 * nicd has no request of its own for it.
 *
 * The rule. Each side names its own address (LocalAddr: this NIC's node and a discriminator)
 * and the peer's (RemoteAddr). Both sides order the two addresses the same way: by node, then
 * by the discriminator's bytes in hex (an empty one first, a prefix before the longer one).
 * The side with the lower address is the acceptor: it WAITs on its own discriminator, accepts
 * the first request that comes from the remote node with the remote discriminator as the
 * requester's own (CONNECT's <mydisc>), and rejects any other (then waits again). The other
 * side is the requester: it CONNECTs to the acceptor's discriminator (nicd queues the request
 * until a WAIT takes it) and, when rejected, sends it again 10 ms later, until the timeout.
 * A plain VipConnectRequest from the RemoteAddr's node naming RemoteAddr's discriminator as
 * its own is accepted as the peer. Holes, which the program must avoid: LocalAddr equal to
 * RemoteAddr is refused (VIP_INVALID_PARAMETER); a VipConnectWait on the acceptor's address
 * meanwhile may be offered the requester's CONNECT (nicd offers a request to one waiter) and
 * connect it to another VI.
 *
 * The request runs on a thread of the library started by VipConnectPeerRequest (which then
 * returns), one per pending request; it blocks in the cm call without any library lock, and
 * takes the device lock only between calls. VipConnectPeerDone polls its result,
 * VipConnectPeerWait blocks for it; either collects it (once). VipDestroyVi cancels a pending
 * request: it shuts the cm connection down (the blocking call ends, nicd forgets the request)
 * and waits for the thread to finish. After fork() the child has no thread and none of the
 * parent's requests (they carry the pid that made them). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "vipl_internal.h"

#define RETRY_NS 10000000ll      /* a rejected CONNECT is sent again 10 ms later */
#define NOW_NS 10000000000ll     /* ACCEPT and REJECT: nicd answers at once */

struct vpeer {
  pthread_t thread;
  pid_t pid;                     /* the process that made the request */
  struct vvi *v;
  struct lnic_dev *dev;
  bool acceptor;
  unsigned node, rnode;
  char disc[80], rdisc[80];      /* ours and the peer's discriminator, hex ("-": empty) */
  int64_t deadline;              /* lnic_now_ns() time; -1: VIP_INFINITE */
  /* Under the device lock: */
  int fd;                        /* the cm connection while WAIT or CONNECT blocks, else -1 */
  bool cancel, done;
  unsigned waiters;              /* callers blocked for done */
  VIP_RETURN result;
  unsigned rel;                  /* the peer VI's reliability (hostif) */
  pthread_cond_t cond;           /* done, cancel, a waiter left */
};

/* Lock held: the VI's request, if it is this process's; one a fork left behind is dropped
 * (its thread runs in the parent only; its memory is this process's copy). */
static struct vpeer *live(struct vvi *v) {
  if (v->peer && v->peer->pid != getpid()) {
    free(v->peer);
    v->peer = NULL;
  }
  return v->peer;
}

bool vipl_peer_pending(struct vvi *v) {
  struct vpeer *p = live(v);
  return p && !p->done;
}

static int64_t remaining(const struct vpeer *p) {
  if (p->deadline < 0) return -1;
  int64_t left = p->deadline - (int64_t)lnic_now_ns();
  return left > 0 ? left : 0;
}

static void close_cm(int fd) {
  shutdown(fd, SHUT_RDWR);   /* nicd sees the end even if a forked child holds a copy */
  close(fd);
}

/* Lock held on entry and exit, not during the call: sends line on fd and waits for nicd's
 * answer within the request's time. A cancel shuts fd down meanwhile (the call ends). */
static int blocking_call(struct vpeer *p, int fd, const char *line, char *reply, size_t cap) {
  if (p->cancel) return -ECANCELED;
  p->fd = fd;
  lnic_unlock(p->dev);
  int rc = vipl_cm_call_raw(fd, line, reply, cap, remaining(p));
  lnic_lock(p->dev);
  p->fd = -1;
  return rc && p->cancel ? -ECANCELED : rc;
}

/* Lock held on entry and exit: a request nicd answers at once. */
static int quick_call(struct vpeer *p, int fd, const char *line, char *reply, size_t cap) {
  lnic_unlock(p->dev);
  int rc = vipl_cm_call_raw(fd, line, reply, cap, NOW_NS);
  lnic_lock(p->dev);
  return rc;
}

static VIP_RETURN call_error(int rc) {
  return rc == -ETIMEDOUT ? VIP_TIMEOUT : VIP_ERROR_RESOURCE;   /* cancelled, nicd gone */
}

static VIP_RETURN run_acceptor(struct vpeer *p) {
  struct lnic_vi *lv = p->v->lv;
  int fd = vipl_cm_open();
  if (fd < 0) return VIP_ERROR_RESOURCE;
  char line[256], reply[256];
  VIP_RETURN r;
  for (;;) {
    snprintf(line, sizeof line, "WAIT %u %s\n", p->node, p->disc);
    int rc = blocking_call(p, fd, line, reply, sizeof reply);
    if (rc) {
      r = call_error(rc);
      break;
    }
    unsigned id, rnode, rvi, rel;
    char rdisc[80];
    if (sscanf(reply, "OK REQUEST %u %u %u %79s %u", &id, &rnode, &rvi, rdisc, &rel) != 5) {
      r = vipl_cm_error(reply);
      break;
    }
    if (p->cancel) {   /* closing the connection hands the request back to nicd */
      r = VIP_ERROR_RESOURCE;
      break;
    }
    bool peer = rnode == p->rnode && strcasecmp(rdisc, p->rdisc) == 0;
    if (!peer || rel != lv->reliability) {   /* a third party, or the peer of another level */
      snprintf(line, sizeof line, "REJECT %u\n", id);
      if (quick_call(p, fd, line, reply, sizeof reply) != 0) {
        r = VIP_ERROR_RESOURCE;
        break;
      }
      if (!peer) continue;
      r = VIP_INVALID_RELIABILITY_LEVEL;
      break;
    }
    lnic_vi_resync(lv);   /* a flushed earlier connection left the NIC's indices behind */
    snprintf(line, sizeof line, "ACCEPT %u %u %u\n", id, p->node, lv->idx);
    if (quick_call(p, fd, line, reply, sizeof reply) != 0) {
      r = VIP_ERROR_RESOURCE;
      break;
    }
    if (strncmp(reply, "OK CONNECTED", 12) == 0) {
      p->rel = rel;
      r = VIP_SUCCESS;
      break;
    }
    /* The requester withdrew (NOMATCH; STATE between nicds) or its VI is no longer idle:
     * wait for the next, unless our own VI is the one not idle. */
    if (lnic_vi_state(lv) != HOSTIF_VI_IDLE) {
      r = VIP_INVALID_STATE;
      break;
    }
    if (strncmp(reply, "ERR NOMATCH", 11) != 0 && strncmp(reply, "ERR STATE", 9) != 0) {
      r = vipl_cm_error(reply);
      break;
    }
  }
  close_cm(fd);
  return r;
}

/* Lock held: sleeps RETRY_NS (not past the deadline) unless cancelled meanwhile. */
static void pause_retry(struct vpeer *p) {
  int64_t until = (int64_t)lnic_now_ns() + RETRY_NS;
  if (p->deadline >= 0 && until > p->deadline) until = p->deadline;
  struct timespec ts = {.tv_sec = until / 1000000000, .tv_nsec = until % 1000000000};
  while (!p->cancel && (int64_t)lnic_now_ns() < until)
    pthread_cond_timedwait(&p->cond, &p->dev->lock, &ts);
}

static VIP_RETURN run_requester(struct vpeer *p) {
  struct lnic_vi *lv = p->v->lv;
  char line[256], reply[256];
  for (;;) {
    if (lnic_vi_state(lv) != HOSTIF_VI_IDLE) return VIP_INVALID_STATE;
    lnic_vi_resync(lv);
    int fd = vipl_cm_open();
    if (fd < 0) return VIP_ERROR_RESOURCE;
    snprintf(line, sizeof line, "CONNECT %u %u %u %s %s\n", p->node, lv->idx, p->rnode, p->rdisc,
             p->disc);
    int rc = blocking_call(p, fd, line, reply, sizeof reply);
    close_cm(fd);   /* a request still queued is withdrawn */
    if (rc) return call_error(rc);
    unsigned pn, pvi;
    if (sscanf(reply, "OK CONNECTED %u %u", &pn, &pvi) == 2) {
      p->rel = lv->reliability;
      return VIP_SUCCESS;
    }
    if (strncmp(reply, "ERR REJECTED", 12) != 0) return vipl_cm_error(reply);
    /* Whoever waits on the peer's address is not the peer (yet): again, within the time. */
    pause_retry(p);
    if (p->cancel) return VIP_ERROR_RESOURCE;
    if (remaining(p) == 0) return VIP_TIMEOUT;
  }
}

static void *peer_main(void *arg) {
  struct vpeer *p = arg;
  lnic_lock(p->dev);
  VIP_RETURN r = p->acceptor ? run_acceptor(p) : run_requester(p);
  /* Given up (time, cancel) just as nicd paired the VIs: the connection is there. */
  if (r != VIP_SUCCESS && (r == VIP_TIMEOUT || p->cancel) &&
      lnic_vi_state(p->v->lv) == HOSTIF_VI_CONNECTED) {
    p->rel = p->v->lv->reliability;
    r = VIP_SUCCESS;
  }
  p->result = r;
  p->done = true;
  pthread_cond_broadcast(&p->cond);
  lnic_unlock(p->dev);
  return NULL;
}

static void fill_attrs(VIP_VI_ATTRIBUTES *a, VIP_RETURN r, unsigned rel) {
  if (!a || r != VIP_SUCCESS) return;
  memset(a, 0, sizeof *a);
  a->ReliabilityLevel = vipl_rel_from_hostif(rel);
  a->MaxTransferSize = HOSTIF_MAX_XFER;
}

/* Lock held, p done and v's: takes p off the VI, waits for other waiters to leave, drops the
 * lock, joins the thread (it has finished) and frees p. Its result. */
static VIP_RETURN collect(struct vvi *v, struct vpeer *p, VIP_VI_ATTRIBUTES *attrs) {
  struct lnic_dev *dev = p->dev;
  VIP_RETURN r = p->result;
  fill_attrs(attrs, r, p->rel);
  v->peer = NULL;
  while (p->waiters) pthread_cond_wait(&p->cond, &dev->lock);
  lnic_unlock(dev);
  pthread_join(p->thread, NULL);
  pthread_cond_destroy(&p->cond);
  free(p);
  return r;
}

VIP_RETURN VipConnectPeerRequest(VIP_VI_HANDLE ViHandle, VIP_NET_ADDRESS *LocalAddr,
                                 VIP_NET_ADDRESS *RemoteAddr, VIP_ULONG Timeout) {
  struct vvi *v = vh_get(ViHandle, VH_VI);
  unsigned node, rnode;
  if (!v || !LocalAddr || !RemoteAddr || vipl_addr_node(LocalAddr, &node) ||
      vipl_addr_node(RemoteAddr, &rnode) || node != v->nic->dev->node ||
      LocalAddr->DiscriminatorLen > 32 || RemoteAddr->DiscriminatorLen > 32)
    return VIP_INVALID_PARAMETER;
  struct vpeer *p = calloc(1, sizeof *p);
  if (!p) return VIP_ERROR_RESOURCE;
  vipl_addr_disc_hex(LocalAddr, p->disc, sizeof p->disc);
  vipl_addr_disc_hex(RemoteAddr, p->rdisc, sizeof p->rdisc);
  int cmp = node != rnode ? (node < rnode ? -1 : 1) : strcmp(p->disc, p->rdisc);
  if (cmp == 0) {   /* a VI is not its own peer */
    free(p);
    return VIP_INVALID_PARAMETER;
  }
  p->acceptor = cmp < 0;
  p->node = node;
  p->rnode = rnode;
  p->v = v;
  p->dev = v->nic->dev;
  p->fd = -1;
  p->pid = getpid();
  int64_t t = vipl_timeout_ns(Timeout);
  p->deadline = t < 0 ? -1 : (int64_t)lnic_now_ns() + t;
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);   /* lnic_now_ns's clock */
  pthread_cond_init(&p->cond, &ca);
  pthread_condattr_destroy(&ca);
  VIP_RETURN r = VIP_SUCCESS;
  lnic_lock(p->dev);
  if (lnic_alive(p->dev) != 0) r = VIP_ERROR_RESOURCE;
  else if (live(v) || v->pending_connect || lnic_vi_state(v->lv) != HOSTIF_VI_IDLE)
    r = VIP_INVALID_STATE;   /* one request per VI until its result is collected */
  else if (lnic_thread_start(&p->thread, false, peer_main, p) != 0) r = VIP_ERROR_RESOURCE;
  else v->peer = p;   /* the thread starts once the lock is dropped */
  lnic_unlock(p->dev);
  if (r != VIP_SUCCESS) {
    pthread_cond_destroy(&p->cond);
    free(p);
  }
  return r;
}

VIP_RETURN VipConnectPeerDone(VIP_VI_HANDLE ViHandle, VIP_VI_ATTRIBUTES *RemoteViAttribs) {
  struct vvi *v = vh_get(ViHandle, VH_VI);
  if (!v) return VIP_INVALID_PARAMETER;
  struct lnic_dev *dev = v->nic->dev;
  lnic_lock(dev);
  struct vpeer *p = live(v);
  if (!p || !p->done) {
    lnic_unlock(dev);
    return p ? VIP_NOT_DONE : VIP_INVALID_STATE;   /* none: never made, or collected */
  }
  return collect(v, p, RemoteViAttribs);
}

VIP_RETURN VipConnectPeerWait(VIP_VI_HANDLE ViHandle, VIP_VI_ATTRIBUTES *RemoteViAttribs) {
  struct vvi *v = vh_get(ViHandle, VH_VI);
  if (!v) return VIP_INVALID_PARAMETER;
  struct lnic_dev *dev = v->nic->dev;
  lnic_lock(dev);
  struct vpeer *p = live(v);
  if (!p) {
    lnic_unlock(dev);
    return VIP_INVALID_STATE;
  }
  p->waiters++;
  if (!p->done) {   /* in timing mode the process bounds nothing while it waits for nicd */
    lnic_unlock(dev);
    lnic_vt_outside(true);
    lnic_lock(dev);
    while (!p->done) pthread_cond_wait(&p->cond, &dev->lock);
    lnic_unlock(dev);
    lnic_vt_outside(false);
    lnic_lock(dev);
  }
  p->waiters--;
  pthread_cond_broadcast(&p->cond);
  if (v->peer != p) {   /* another caller collects it: the same result */
    VIP_RETURN r = p->result;
    fill_attrs(RemoteViAttribs, r, p->rel);
    lnic_unlock(dev);
    return r;
  }
  return collect(v, p, RemoteViAttribs);
}

VIP_RETURN vipl_peer_stop(struct vvi *v) {
  struct lnic_dev *dev = v->nic->dev;
  lnic_lock(dev);
  struct vpeer *p = live(v);
  if (!p || p->done) {
    lnic_unlock(dev);
    return VIP_SUCCESS;
  }
  lnic_progress(v->lv, NIC_SQ);
  lnic_progress(v->lv, NIC_RQ);
  if (lnic_wq_outstanding(v->lv, NIC_SQ) || lnic_wq_outstanding(v->lv, NIC_RQ)) {
    lnic_unlock(dev);
    return VIP_INVALID_STATE;   /* VipDestroyVi would refuse: the request goes on */
  }
  p->cancel = true;
  if (p->fd >= 0) shutdown(p->fd, SHUT_RDWR);   /* the thread closes it */
  pthread_cond_broadcast(&p->cond);
  p->waiters++;
  while (!p->done) pthread_cond_wait(&p->cond, &dev->lock);
  p->waiters--;
  pthread_cond_broadcast(&p->cond);
  lnic_unlock(dev);
  return VIP_SUCCESS;
}

void vipl_peer_gone(struct vvi *v) {
  struct lnic_dev *dev = v->nic->dev;
  lnic_lock(dev);
  struct vpeer *p = live(v);
  if (!p) {
    lnic_unlock(dev);
    return;
  }
  collect(v, p, NULL);   /* done: vipl_peer_stop waited for it */
}
