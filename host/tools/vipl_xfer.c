/* vipl_xfer: moves a stream of messages over one VIPL Reliable Delivery connection, for the
 * cluster demo (scripts/cluster.sh): the receiver takes BYTES in 32 KiB messages, checks
 * every byte against the sender's pattern, and says how fast it went. The receiver grants
 * credit a batch at a time (the NIC drops a message that finds no receive posted).
 *   vipl_xfer serve DEV DISC              receive on NIC DEV (e.g. /verinic-nic0), discriminator DISC
 *   vipl_xfer send DEV HOST DISC BYTES    send to HOST (a name of the hosts file, VipNSGetHostByName)
 * Exit status 0 when every byte arrived as sent. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vipl.h"

#define MSG   32768u
#define BATCH 16u

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint8_t pat(uint64_t off) { return (uint8_t)(off * 7u + (off >> 11)); }

/* A VIP_NET_ADDRESS of node and a 2-byte discriminator, as the tests and SOVIA use them: the
 * struct's address array is declared with one byte, the bytes follow it in `more`. */
struct addr { VIP_NET_ADDRESS a; uint8_t more[16]; };
static uint8_t *host_bytes(struct addr *x) {
  return (uint8_t *)x + offsetof(VIP_NET_ADDRESS, HostAddress);
}
static unsigned node_of(struct addr *x) { return (unsigned)host_bytes(x)[0] << 8 | host_bytes(x)[1]; }
static void set_addr(struct addr *x, unsigned node, unsigned disc) {
  memset(x, 0, sizeof *x);
  x->a.HostAddressLen = 2;
  x->a.DiscriminatorLen = 2;
  uint8_t *h = host_bytes(x);
  h[0] = (uint8_t)(node >> 8);
  h[1] = (uint8_t)node;
  h[2] = (uint8_t)(disc >> 8);
  h[3] = (uint8_t)disc;
}

struct ep {
  VIP_NIC_HANDLE nic;
  VIP_PROTECTION_HANDLE ptag;
  VIP_VI_HANDLE vi;
  uint8_t *buf;
  VIP_DESCRIPTOR *d;           /* BATCH + 1: the last is for credit */
  VIP_MEM_HANDLE bh, dh;
  unsigned node;
};

static int die(const char *what, VIP_RETURN r) {
  fprintf(stderr, "vipl_xfer: %s: VIP error %d\n", what, (int)r);
  return 1;
}

static int ep_open(struct ep *e, const char *dev) {
  VIP_RETURN r = VipOpenNic(dev, &e->nic);
  if (r != VIP_SUCCESS) return die(dev, r);
  VIP_NIC_ATTRIBUTES na;
  if ((r = VipQueryNic(e->nic, &na)) != VIP_SUCCESS) return die("VipQueryNic", r);
  e->node = (unsigned)na.LocalNicAddress[0] << 8 | na.LocalNicAddress[1];
  if ((r = VipCreatePtag(e->nic, &e->ptag)) != VIP_SUCCESS) return die("VipCreatePtag", r);
  VIP_VI_ATTRIBUTES va = {.ReliabilityLevel = VIP_SERVICE_RELIABLE_DELIVERY, .Ptag = e->ptag,
                          .MaxTransferSize = MSG};
  if ((r = VipCreateVi(e->nic, &va, NULL, NULL, &e->vi)) != VIP_SUCCESS) return die("VipCreateVi", r);
  e->buf = aligned_alloc(4096, (size_t)BATCH * MSG);
  e->d = aligned_alloc(4096, 4096 * 2);
  if (!e->buf || !e->d) return die("out of memory", 0);
  memset(e->d, 0, 4096 * 2);
  VIP_MEM_ATTRIBUTES ma = {.Ptag = e->ptag};
  if ((r = VipRegisterMem(e->nic, e->buf, (size_t)BATCH * MSG, &ma, &e->bh)) != VIP_SUCCESS ||
      (r = VipRegisterMem(e->nic, e->d, 4096 * 2, &ma, &e->dh)) != VIP_SUCCESS)
    return die("VipRegisterMem", r);
  return 0;
}

static VIP_RETURN post_recv(struct ep *e, unsigned i, uint32_t len) {
  VIP_DESCRIPTOR *d = &e->d[i];
  memset(d, 0, sizeof *d);
  d->CS.SegCount = len ? 1 : 0;
  d->DS[0].Local.Data.Address = e->buf + (size_t)(i % BATCH) * MSG;
  d->DS[0].Local.Handle = e->bh;
  d->DS[0].Local.Length = len;
  return VipPostRecv(e->vi, d, e->dh);
}

static VIP_RETURN send_wait(struct ep *e, VIP_DESCRIPTOR *d) {
  VIP_DESCRIPTOR *got = NULL;
  VIP_RETURN r = VipPostSend(e->vi, d, e->dh);
  if (r == VIP_SUCCESS) r = VipSendWait(e->vi, 10000, &got);
  if (r == VIP_SUCCESS && (got->CS.Status & VIP_STATUS_ERROR_MASK)) r = VIP_DESCRIPTOR_ERROR;
  return r;
}

/* A credit message: the receiver has posted BATCH receives. */
static VIP_RETURN credit(struct ep *e) {
  VIP_DESCRIPTOR *c = &e->d[BATCH];
  memset(c, 0, sizeof *c);
  c->CS.Control = VIP_CONTROL_OP_SENDRECV | VIP_CONTROL_IMMEDIATE;
  return send_wait(e, c);
}

static int serve(const char *dev, unsigned disc) {
  struct ep e;
  if (ep_open(&e, dev)) return 1;
  struct addr la, ra;
  set_addr(&la, e.node, disc);
  VIP_CONN_HANDLE c;
  VIP_VI_ATTRIBUTES rat;
  printf("vipl_xfer: node %u waits on discriminator %u\n", e.node, disc);
  fflush(stdout);
  VIP_RETURN r = VipConnectWait(e.nic, &la.a, VIP_INFINITE, &ra.a, &rat, &c);
  if (r != VIP_SUCCESS) return die("VipConnectWait", r);
  for (unsigned i = 0; i < BATCH; i++)
    if ((r = post_recv(&e, i, MSG)) != VIP_SUCCESS) return die("VipPostRecv", r);
  if ((r = VipConnectAccept(c, e.vi)) != VIP_SUCCESS) return die("VipConnectAccept", r);
  if ((r = credit(&e)) != VIP_SUCCESS) return die("credit", r);
  uint64_t off = 0;
  double t0 = now();
  for (unsigned i = 0;; i = (i + 1) % BATCH) {
    VIP_DESCRIPTOR *got = NULL;
    if ((r = VipRecvWait(e.vi, 10000, &got)) != VIP_SUCCESS) return die("VipRecvWait", r);
    if (got->CS.Status & VIP_STATUS_ERROR_MASK) return die("receive completed with an error", 0);
    uint32_t len = got->CS.Length;
    if (len == 0) break;                       /* the end */
    for (uint32_t j = 0; j < len; j++)
      if (e.buf[(size_t)i * MSG + j] != pat(off + j)) {
        fprintf(stderr, "vipl_xfer: byte %llu differs\n", (unsigned long long)(off + j));
        return 1;
      }
    off += len;
    if ((r = post_recv(&e, i, MSG)) != VIP_SUCCESS) return die("VipPostRecv", r);
    if (i == BATCH - 1 && (r = credit(&e)) != VIP_SUCCESS) return die("credit", r);
  }
  double s = now() - t0;
  printf("vipl_xfer: received %llu bytes from node %u, every byte as sent, %.1f MB/s\n",
         (unsigned long long)off, node_of(&ra),
         s > 0 ? (double)off / s / 1e6 : 0.0);
  /* The sender disconnects first: a receiver that went first could break the connection
   * before the acknowledgement of the last message reached the sender. */
  VIP_DESCRIPTOR *got = NULL;
  VipRecvWait(e.vi, 5000, &got);
  VipDisconnect(e.vi);
  return 0;
}

static int send_to(const char *dev, const char *host, unsigned disc, uint64_t bytes) {
  struct ep e;
  if (ep_open(&e, dev)) return 1;
  struct addr ha, la, ra;
  VIP_RETURN r = VipNSInit(e.nic, NULL);
  if (r == VIP_SUCCESS) r = VipNSGetHostByName(e.nic, (VIP_CHAR *)host, &ha.a, 0);
  if (r != VIP_SUCCESS) return die(host, r);
  set_addr(&ra, node_of(&ha), disc);
  set_addr(&la, e.node, disc + 1);
  VIP_VI_ATTRIBUTES rat;
  /* One receive for each credit message; it is reposted as each comes. */
  if ((r = post_recv(&e, BATCH, 0)) != VIP_SUCCESS) return die("VipPostRecv", r);
  if ((r = VipConnectRequest(e.vi, &la.a, &ra.a, 10000, &rat)) != VIP_SUCCESS)
    return die("VipConnectRequest", r);
  uint64_t off = 0;
  double t0 = now();
  VIP_DESCRIPTOR *d = &e.d[0];
  for (unsigned i = 0;; i = (i + 1) % BATCH) {
    if (i == 0) {   /* wait for credit */
      VIP_DESCRIPTOR *got = NULL;
      if ((r = VipRecvWait(e.vi, 10000, &got)) != VIP_SUCCESS) return die("credit", r);
      if ((r = post_recv(&e, BATCH, 0)) != VIP_SUCCESS) return die("VipPostRecv", r);
    }
    uint32_t len = bytes - off < MSG ? (uint32_t)(bytes - off) : MSG;
    for (uint32_t j = 0; j < len; j++) e.buf[j] = pat(off + j);
    memset(d, 0, sizeof *d);
    d->CS.Control = VIP_CONTROL_OP_SENDRECV;
    d->CS.SegCount = len ? 1 : 0;
    d->CS.Length = len;
    d->DS[0].Local.Data.Address = e.buf;
    d->DS[0].Local.Handle = e.bh;
    d->DS[0].Local.Length = len;
    if ((r = send_wait(&e, d)) != VIP_SUCCESS) return die("send", r);
    off += len;
    if (len == 0) break;
  }
  double s = now() - t0;
  printf("vipl_xfer: sent %llu bytes to %s (node %u), %.1f MB/s\n", (unsigned long long)bytes,
         host, node_of(&ra),
         s > 0 ? (double)bytes / s / 1e6 : 0.0);
  VipDisconnect(e.vi);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 4 && !strcmp(argv[1], "serve")) return serve(argv[2], (unsigned)atoi(argv[3]));
  if (argc == 6 && !strcmp(argv[1], "send"))
    return send_to(argv[2], argv[3], (unsigned)atoi(argv[4]), strtoull(argv[5], NULL, 10));
  fprintf(stderr, "usage: vipl_xfer serve DEV DISC | vipl_xfer send DEV HOST DISC BYTES\n");
  return 2;
}
