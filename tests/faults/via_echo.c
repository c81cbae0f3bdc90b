/* via_echo.c: a small VIA client/server written only against the VIA 1.0 specification's
 * VIPL chapter, the way a program from outside this project would be (no project headers but
 * vipl.h, no test helpers): the server pre-posts receives, waits for a connection on its
 * discriminator and echoes every message back; the client looks the server up with the name
 * service, puts the discriminator into the address after the lookup, connects and checks
 * each echo. Reliable Delivery, completions through a completion queue on the server.
 *   via_echo server DEVICE DISCRIMINATOR
 *   via_echo client DEVICE SERVER-NAME DISCRIMINATOR COUNT
 * Exit 0 and "server: N messages" / "client: N echoes" when all went well; exit 1 with the
 * failing call otherwise (the client also when its server dies: the break ends its wait). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vipl.h"

#define BUFSZ 1024
#define NBUF  8

static const char *who = "via_echo";

static void die(const char *call, VIP_RETURN r) {
  fprintf(stderr, "%s: %s returned %d\n", who, call, (int)r);
  exit(1);
}

struct ep {
  VIP_NIC_HANDLE nic;
  VIP_NIC_ATTRIBUTES attr;
  VIP_PROTECTION_HANDLE ptag;
  VIP_VI_HANDLE vi;
  VIP_CQ_HANDLE cq;
  char *bufs;
  VIP_DESCRIPTOR *descs;
  VIP_MEM_HANDLE bmh, dmh;
};

static void ep_open(struct ep *e, const char *dev, int with_cq) {
  VIP_RETURN r;
  if ((r = VipOpenNic(dev, &e->nic)) != VIP_SUCCESS) die("VipOpenNic", r);
  if ((r = VipQueryNic(e->nic, &e->attr)) != VIP_SUCCESS) die("VipQueryNic", r);
  if ((r = VipCreatePtag(e->nic, &e->ptag)) != VIP_SUCCESS) die("VipCreatePtag", r);
  e->cq = NULL;
  if (with_cq && (r = VipCreateCQ(e->nic, 2 * NBUF, &e->cq)) != VIP_SUCCESS) die("VipCreateCQ", r);
  VIP_VI_ATTRIBUTES va;
  memset(&va, 0, sizeof va);
  va.ReliabilityLevel = VIP_SERVICE_RELIABLE_DELIVERY;
  va.Ptag = e->ptag;
  va.MaxTransferSize = BUFSZ;
  va.EnableRdmaWrite = VIP_FALSE;
  va.EnableRdmaRead = VIP_FALSE;
  if ((r = VipCreateVi(e->nic, &va, NULL, e->cq, &e->vi)) != VIP_SUCCESS) die("VipCreateVi", r);
  /* Buffers and descriptors in registered memory, descriptors 64-byte aligned. */
  e->bufs = malloc(2 * NBUF * BUFSZ);
  e->descs = aligned_alloc(VIP_DESCRIPTOR_ALIGNMENT, 2 * NBUF * sizeof(VIP_DESCRIPTOR));
  if (!e->bufs || !e->descs) die("malloc", VIP_ERROR_RESOURCE);
  VIP_MEM_ATTRIBUTES ma;
  memset(&ma, 0, sizeof ma);
  ma.Ptag = e->ptag;
  if ((r = VipRegisterMem(e->nic, e->bufs, 2 * NBUF * BUFSZ, &ma, &e->bmh)) != VIP_SUCCESS)
    die("VipRegisterMem", r);
  if ((r = VipRegisterMem(e->nic, e->descs, 2 * NBUF * sizeof(VIP_DESCRIPTOR), &ma, &e->dmh)) !=
      VIP_SUCCESS)
    die("VipRegisterMem", r);
}

static void ep_close(struct ep *e) {
  VIP_DESCRIPTOR *d;
  while (VipRecvDone(e->vi, &d) == VIP_SUCCESS || VipSendDone(e->vi, &d) == VIP_SUCCESS) {}
  VipDestroyVi(e->vi);
  if (e->cq) VipDestroyCQ(e->cq);
  VipDeregisterMem(e->nic, e->bufs, e->bmh);
  VipDeregisterMem(e->nic, e->descs, e->dmh);
  VipDestroyPtag(e->nic, e->ptag);
  VipCloseNic(e->nic);
  free(e->bufs);
  free(e->descs);
}

/* Descriptor i uses buffer i; receives are 0..NBUF-1, sends NBUF..2*NBUF-1. */
static VIP_DESCRIPTOR *prep(struct ep *e, int i, VIP_UINT32 len) {
  VIP_DESCRIPTOR *d = &e->descs[i];
  memset(d, 0, sizeof *d);
  d->CS.Control = VIP_CONTROL_OP_SENDRECV;
  d->CS.SegCount = 1;
  d->CS.Length = len;
  d->DS[0].Local.Data.Address = e->bufs + i * BUFSZ;
  d->DS[0].Local.Handle = e->bmh;
  d->DS[0].Local.Length = len;
  return d;
}

static void post_recv(struct ep *e, int i) {
  VIP_RETURN r = VipPostRecv(e->vi, prep(e, i, BUFSZ), e->dmh);
  if (r != VIP_SUCCESS) die("VipPostRecv", r);
}

static void send_sync(struct ep *e, const char *data, VIP_UINT32 len) {
  VIP_DESCRIPTOR *d = prep(e, NBUF, len), *done;
  memcpy(e->bufs + NBUF * BUFSZ, data, len);
  VIP_RETURN r = VipPostSend(e->vi, d, e->dmh);
  if (r != VIP_SUCCESS) die("VipPostSend", r);
  if ((r = VipSendWait(e->vi, VIP_INFINITE, &done)) != VIP_SUCCESS) die("VipSendWait", r);
  if (done != d || (done->CS.Status & VIP_STATUS_ERROR_MASK)) die("send status", (VIP_RETURN)done->CS.Status);
}

/* Our address: the NIC's address with the discriminator after it. */
static VIP_NET_ADDRESS *local_addr(struct ep *e, const char *disc) {
  size_t dl = strlen(disc);
  VIP_NET_ADDRESS *a = malloc(sizeof *a + e->attr.NicAddressLen + dl);
  a->HostAddressLen = e->attr.NicAddressLen;
  a->DiscriminatorLen = (VIP_UINT16)dl;
  memcpy(a->HostAddress, e->attr.LocalNicAddress, e->attr.NicAddressLen);
  memcpy(a->HostAddress + a->HostAddressLen, disc, dl);
  return a;
}

static int server(const char *dev, const char *disc) {
  who = "server";
  struct ep e;
  ep_open(&e, dev, 1);
  for (int i = 0; i < NBUF; i++) post_recv(&e, i);
  VIP_NET_ADDRESS *la = local_addr(&e, disc), *ra = malloc(sizeof *ra + 64);
  VIP_VI_ATTRIBUTES rattr;
  VIP_CONN_HANDLE conn;
  VIP_RETURN r = VipConnectWait(e.nic, la, VIP_INFINITE, ra, &rattr, &conn);
  if (r != VIP_SUCCESS) die("VipConnectWait", r);
  if ((r = VipConnectAccept(conn, e.vi)) != VIP_SUCCESS) die("VipConnectAccept", r);
  unsigned n = 0;
  for (;;) {
    VIP_VI_HANDLE vi;
    VIP_BOOLEAN isrecv;
    if ((r = VipCQWait(e.cq, VIP_INFINITE, &vi, &isrecv)) != VIP_SUCCESS) die("VipCQWait", r);
    VIP_DESCRIPTOR *d;
    if (vi != e.vi || !isrecv) die("VipCQWait result", VIP_ERROR_RESOURCE);
    if ((r = VipRecvDone(e.vi, &d)) != VIP_SUCCESS) die("VipRecvDone", r);
    if (d->CS.Status & VIP_STATUS_ERROR_MASK) break;   /* the client went away: flushed */
    int i = (int)(d - e.descs);
    VIP_UINT32 len = d->CS.Length;
    if (len == 3 && memcmp(e.bufs + i * BUFSZ, "bye", 3) == 0) break;
    send_sync(&e, e.bufs + i * BUFSZ, len);
    post_recv(&e, i);
    n++;
  }
  VipDisconnect(e.vi);
  ep_close(&e);
  free(la), free(ra);
  printf("server: %u messages\n", n);
  return 0;
}

static int client(const char *dev, const char *name, const char *disc, unsigned count) {
  who = "client";
  struct ep e;
  ep_open(&e, dev, 0);
  VIP_RETURN r;
  if ((r = VipNSInit(e.nic, NULL)) != VIP_SUCCESS) die("VipNSInit", r);
  size_t dl = strlen(disc);
  VIP_NET_ADDRESS *ra = malloc(sizeof *ra + 64 + dl);
  /* The name service gives the host address; the discriminator is ours to add. */
  if ((r = VipNSGetHostByName(e.nic, (VIP_CHAR *)name, ra, 0)) != VIP_SUCCESS)
    die("VipNSGetHostByName", r);
  ra->DiscriminatorLen = (VIP_UINT16)dl;
  memcpy(ra->HostAddress + ra->HostAddressLen, disc, dl);
  VIP_NET_ADDRESS *la = local_addr(&e, "client");
  VIP_VI_ATTRIBUTES rattr;
  if ((r = VipConnectRequest(e.vi, la, ra, 10000, &rattr)) != VIP_SUCCESS)
    die("VipConnectRequest", r);
  char msg[BUFSZ];
  for (unsigned k = 0; k < count; k++) {
    post_recv(&e, 0);
    int len = snprintf(msg, sizeof msg, "message %u of %u", k, count);
    send_sync(&e, msg, (VIP_UINT32)len);
    VIP_DESCRIPTOR *d;
    if ((r = VipRecvWait(e.vi, VIP_INFINITE, &d)) != VIP_SUCCESS) die("VipRecvWait", r);
    if (d->CS.Status & VIP_STATUS_ERROR_MASK) die("receive status", (VIP_RETURN)d->CS.Status);
    if (d->CS.Length != (VIP_UINT32)len || memcmp(e.bufs, msg, (size_t)len) != 0)
      die("echo compare", VIP_ERROR_RESOURCE);
  }
  send_sync(&e, "bye", 3);
  VipDisconnect(e.vi);
  VipNSShutdown(e.nic);
  ep_close(&e);
  free(la), free(ra);
  printf("client: %u echoes\n", count);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 4 && !strcmp(argv[1], "server")) return server(argv[2], argv[3]);
  if (argc == 6 && !strcmp(argv[1], "client"))
    return client(argv[2], argv[3], argv[4], (unsigned)strtoul(argv[5], NULL, 10));
  fprintf(stderr, "usage: via_echo server DEVICE DISCRIMINATOR\n"
                  "       via_echo client DEVICE SERVER-NAME DISCRIMINATOR COUNT\n");
  return 2;
}
