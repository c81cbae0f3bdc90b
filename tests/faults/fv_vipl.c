/* fv_vipl.c: the VIPL peers of the fault suite: a Reliable Delivery connection between NIC 1
 * (role 1, sends numbered messages of seeded lengths, at most 16 ahead of the receiver's
 * credits) and NIC 0 (role 0, checks every message's number and bytes, returns credits,
 * ends with a FIN). Every wait is VIP_INFINITE: only the connection's break may end it.
 * The first error a peer sees (a call's return or a descriptor's status) is noted with its
 * time and the peer cleans up and exits. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "faults.h"
#include "vipl.h"

#define MSG     4096
#define NRECV   16      /* receives the receiver keeps posted (= the sender's credits) */
#define CREDIT  8       /* messages per credit message */
#define NCRED   4       /* credit receives the sender keeps posted */
#define NSEND   8       /* sends in flight */
#define FIN     0xffffffffu

struct peer {
  int role;
  struct fshared *s;
  VIP_NIC_HANDLE nic;
  VIP_PROTECTION_HANDLE ptag;
  VIP_VI_HANDLE vi;
  uint8_t *mem;              /* NRECV + NSEND buffers, then descriptors */
  VIP_MEM_HANDLE mh;
  VIP_DESCRIPTOR *d;         /* NRECV receive, NSEND send descriptors */
  bool failed;
};

static uint8_t *buf(struct peer *p, unsigned i) { return p->mem + (size_t)i * MSG; }
static VIP_DESCRIPTOR *desc(struct peer *p, unsigned i) { return &p->d[i]; }

static void fail(struct peer *p) {
  if (!p->failed) fs_error(p->s, p->role);
  p->failed = true;
}

static uint32_t msg_len(unsigned seed, uint64_t seq) {
  uint64_t x = (seq + 1) * 0x9E3779B97F4A7C15ull ^ seed;
  x ^= x >> 29;
  return 1 + (uint32_t)(x % (MSG - 8));
}

static void addr(VIP_NET_ADDRESS *a, unsigned node, unsigned disc) {
  a->HostAddressLen = 2;
  a->DiscriminatorLen = 2;
  a->HostAddress[0] = 0, a->HostAddress[1] = (uint8_t)node;
  a->HostAddress[2] = (uint8_t)(disc >> 8), a->HostAddress[3] = (uint8_t)disc;
}

static int open_peer(struct peer *p) {
  if (VipOpenNic(fnicd_dev(p->role), &p->nic) != VIP_SUCCESS) return -1;
  if (VipCreatePtag(p->nic, &p->ptag) != VIP_SUCCESS) return -1;
  VIP_VI_ATTRIBUTES a = {.ReliabilityLevel = VIP_SERVICE_RELIABLE_DELIVERY,
                         .MaxTransferSize = MSG, .Ptag = p->ptag};
  if (VipCreateVi(p->nic, &a, NULL, NULL, &p->vi) != VIP_SUCCESS) return -1;
  size_t len = (size_t)(NRECV + NSEND) * MSG + (NRECV + NSEND) * sizeof(VIP_DESCRIPTOR);
  p->mem = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);
  if (!p->mem) return -1;
  memset(p->mem, 0, len);
  p->d = (VIP_DESCRIPTOR *)(p->mem + (size_t)(NRECV + NSEND) * MSG);
  VIP_MEM_ATTRIBUTES ma = {.Ptag = p->ptag};
  return VipRegisterMem(p->nic, p->mem, len, &ma, &p->mh) == VIP_SUCCESS ? 0 : -1;
}

static void close_peer(struct peer *p) {
  if (p->vi) {
    VipDisconnect(p->vi);
    VIP_DESCRIPTOR *x;
    while (VipSendDone(p->vi, &x) == VIP_SUCCESS || VipRecvDone(p->vi, &x) == VIP_SUCCESS) {}
    VipDestroyVi(p->vi);
  }
  if (p->mem) VipDeregisterMem(p->nic, p->mem, p->mh);
  if (p->ptag) VipDestroyPtag(p->nic, p->ptag);
  if (p->nic) VipCloseNic(p->nic);
  free(p->mem);
}

static bool post_recv(struct peer *p, unsigned i) {
  VIP_DESCRIPTOR *d = desc(p, i);
  memset(d, 0, sizeof *d);
  d->CS.SegCount = 1;
  d->DS[0].Local.Data.Address = buf(p, i);
  d->DS[0].Local.Handle = p->mh;
  d->DS[0].Local.Length = MSG;
  if (VipPostRecv(p->vi, d, p->mh) == VIP_SUCCESS) return true;
  fail(p);
  return false;
}

/* The next receive, whole and without error; its index, or -1. */
static int take_recv(struct peer *p) {
  VIP_DESCRIPTOR *d = NULL;
  if (VipRecvWait(p->vi, VIP_INFINITE, &d) != VIP_SUCCESS || !d ||
      d->CS.Status != (VIP_STATUS_DONE | VIP_STATUS_OP_RECEIVE)) {
    fail(p);
    return -1;
  }
  return (int)(d - p->d);
}

static bool post_send(struct peer *p, unsigned slot, uint32_t len) {
  VIP_DESCRIPTOR *d = desc(p, NRECV + slot);
  memset(d, 0, sizeof *d);
  d->CS.SegCount = 1;
  d->CS.Length = len;
  d->DS[0].Local.Data.Address = buf(p, NRECV + slot);
  d->DS[0].Local.Handle = p->mh;
  d->DS[0].Local.Length = len;
  if (VipPostSend(p->vi, d, p->mh) == VIP_SUCCESS) return true;
  fail(p);
  return false;
}

static bool take_send(struct peer *p) {
  VIP_DESCRIPTOR *d = NULL;
  if (VipSendWait(p->vi, VIP_INFINITE, &d) != VIP_SUCCESS || !d ||
      d->CS.Status != (VIP_STATUS_DONE | VIP_STATUS_OP_SEND)) {
    fail(p);
    return false;
  }
  return true;
}

static bool connect_peer(struct peer *p) {
  uint8_t la[64], ra[64];
  VIP_VI_ATTRIBUTES rattr;
  unsigned disc = 0x4000 + (p->s->seed & 0xfff);
  fs_phase(p->s, p->role, PH_CONNECT);
  if (p->role == 0) {
    addr((VIP_NET_ADDRESS *)la, 0, disc);
    VIP_CONN_HANDLE c;
    VIP_RETURN r;
    /* A listener keeps listening until its client has tried (test orchestration); after
     * that, a timeout is its error. */
    do r = VipConnectWait(p->nic, (VIP_NET_ADDRESS *)la, 500, (VIP_NET_ADDRESS *)ra, &rattr, &c);
    while (r == VIP_TIMEOUT && atomic_load(&p->s->phase[1]) < PH_CONNECT);
    if (r != VIP_SUCCESS || VipConnectAccept(c, p->vi) != VIP_SUCCESS) return fail(p), false;
  } else {
    while (atomic_load(&p->s->phase[0]) < PH_CONNECT) {
      struct timespec ts = {0, 1000000};
      nanosleep(&ts, NULL);
    }
    addr((VIP_NET_ADDRESS *)la, 1, disc + 1);
    addr((VIP_NET_ADDRESS *)ra, 0, disc);
    if (VipConnectRequest(p->vi, (VIP_NET_ADDRESS *)la, (VIP_NET_ADDRESS *)ra, 500, &rattr) !=
        VIP_SUCCESS)
      return fail(p), false;
  }
  return true;
}

static bool check_msg(struct peer *p, int i, uint64_t want) {
  const uint8_t *b = buf(p, (unsigned)i);
  uint32_t seq, len;
  memcpy(&seq, b, 4), memcpy(&len, b + 4, 4);
  if (seq != want || len != msg_len(p->s->seed, want) || desc(p, (unsigned)i)->CS.Length != len + 8) {
    atomic_store(&p->s->bad, 1);
    fs_broken(p->s, p->role, "message %u (len %u) where %llu was due", seq, len,
              (unsigned long long)want);
    return false;
  }
  for (uint32_t k = 0; k < len; k++)
    if (b[8 + k] != fs_pat(want, k)) {
      atomic_store(&p->s->bad, 1);
      fs_broken(p->s, p->role, "message %llu corrupted at byte %u", (unsigned long long)want, k);
      return false;
    }
  return true;
}

static bool send_word(struct peer *p, unsigned slot, uint32_t w) {
  memcpy(buf(p, NRECV + slot), &w, 4);
  return post_send(p, slot, 4) && take_send(p);
}

/* After an error of its own (a post, a credit) the receiver still takes every receive the
 * NIC completed: what its sender saw DONE must be there (host/vipl/README.md, guarantee 2). */
static void receiver(struct peer *p) {
  for (unsigned i = 0; i < NRECV; i++)
    if (!post_recv(p, i)) return;
  if (!connect_peer(p)) return;
  fs_phase(p->s, 0, PH_STREAM);
  for (uint64_t seq = 0; seq < p->s->total; seq++) {
    int i = take_recv(p);
    if (i < 0 || !check_msg(p, i, seq)) return;
    atomic_fetch_add(&p->s->recvd, 1);
    if (p->failed) continue;
    if (!post_recv(p, (unsigned)i)) continue;
    if ((seq + 1) % CREDIT == 0) send_word(p, 0, CREDIT);
  }
  if (p->failed) return;
  fs_phase(p->s, 0, PH_CLOSE);
  /* The FIN's fate is unknown to its sender when the peer disconnects on receiving it
   * (guarantee 3): the stream is complete either way. */
  uint32_t fin = FIN;
  memcpy(buf(p, NRECV), &fin, 4);
  VIP_DESCRIPTOR *d;
  if (post_send(p, 0, 4)) VipSendWait(p->vi, VIP_INFINITE, &d);
}

static void sender(struct peer *p) {
  for (unsigned i = 0; i < NCRED; i++)
    if (!post_recv(p, i)) return;
  if (!connect_peer(p)) return;
  fs_phase(p->s, 1, PH_STREAM);
  uint64_t credits = NRECV, inflight = 0, fin = 0;
  for (uint64_t seq = 0; seq < p->s->total; seq++) {
    while (!credits) {
      int i = take_recv(p);
      if (i < 0) return;
      uint32_t w;
      memcpy(&w, buf(p, (unsigned)i), 4);
      if (w == FIN) fin = 1;
      else credits += w;
      if (!post_recv(p, (unsigned)i)) return;
    }
    if (inflight == NSEND) {
      if (!take_send(p)) return;
      atomic_fetch_add(&p->s->sent_done, 1);
      inflight--;
    }
    unsigned slot = (unsigned)(seq % NSEND);
    uint32_t len = msg_len(p->s->seed, seq), s32 = (uint32_t)seq;
    uint8_t *b = buf(p, NRECV + slot);
    memcpy(b, &s32, 4), memcpy(b + 4, &len, 4);
    for (uint32_t k = 0; k < len; k++) b[8 + k] = fs_pat(seq, k);
    if (!post_send(p, slot, len + 8)) return;
    credits--, inflight++;
  }
  for (; inflight; inflight--) {
    if (!take_send(p)) return;
    atomic_fetch_add(&p->s->sent_done, 1);
  }
  fs_phase(p->s, 1, PH_CLOSE);
  while (!fin) {   /* the FIN, after the credits still on their way */
    int i = take_recv(p);
    if (i < 0) return;
    uint32_t w;
    memcpy(&w, buf(p, (unsigned)i), 4);
    fin = w == FIN;
    if (!fin && !post_recv(p, (unsigned)i)) return;
  }
}

void fv_vipl_peer(int role, struct fshared *s) {
  struct peer p = {.role = role, .s = s};
  if (open_peer(&p) != 0) {
    fs_broken(s, role, "VIPL set-up failed");
  } else if (role == 0) {
    receiver(&p);
  } else {
    sender(&p);
  }
  close_peer(&p);
  int running = FR_RUNNING;
  atomic_compare_exchange_strong(&s->result[role], &running, FR_FINISHED);
  fs_phase(s, role, PH_DONE);
}
