/* VipConnectWait is offered the oldest pending connection request, not the one in the lowest
 * slot of nicd's request table: request A is made and times out (its slot frees), B is made,
 * then C takes A's slot; the acceptor must get B, then C. Offered by slot, C came first, and
 * under ab's 50 connects at once a request in a high slot starved until its 10 s timeout.
 * One process, both NICs; the requesters are threads. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/nicd_run.h"
#include "vaddr.h"
#include "vipl.h"
#include "vtest.h"

VT_GLOBALS;

#define SERVER_DISC 0x0700

struct requester {
  VIP_VI_HANDLE vi;
  unsigned disc;            /* its own discriminator: how the acceptor tells them apart */
  VIP_ULONG timeout_ms;
  VIP_RETURN r;
  pthread_t t;
};

static VIP_NIC_HANDLE snic, cnic;
static VIP_PROTECTION_HANDLE sptag, cptag;

static void *request(void *arg) {
  struct requester *q = arg;
  uint8_t la[64], ra[64];
  vaddr_set((VIP_NET_ADDRESS *)la, 1, q->disc);
  vaddr_set((VIP_NET_ADDRESS *)ra, 0, SERVER_DISC);
  VIP_VI_ATTRIBUTES rat;
  q->r = VipConnectRequest(q->vi, (VIP_NET_ADDRESS *)la, (VIP_NET_ADDRESS *)ra, q->timeout_ms, &rat);
  return NULL;
}

static void nap_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
  nanosleep(&ts, NULL);
}

static VIP_VI_HANDLE new_vi(VIP_NIC_HANDLE nic, VIP_PROTECTION_HANDLE pt) {
  VIP_VI_ATTRIBUTES a = {.ReliabilityLevel = VIP_SERVICE_RELIABLE_DELIVERY, .Ptag = pt,
                         .MaxTransferSize = 1024};
  VIP_VI_HANDLE vi = NULL;
  if (VipCreateVi(nic, &a, NULL, NULL, &vi) != VIP_SUCCESS) return NULL;
  return vi;
}

/* The next request offered to the acceptor: its requester's discriminator (0: none came). */
static unsigned accept_next(VIP_VI_HANDLE vi) {
  uint8_t la[64], ra[64];
  vaddr_set((VIP_NET_ADDRESS *)la, 0, SERVER_DISC);
  VIP_CONN_HANDLE c;
  VIP_VI_ATTRIBUTES rat;
  if (VipConnectWait(snic, (VIP_NET_ADDRESS *)la, 5000, (VIP_NET_ADDRESS *)ra, &rat, &c) != VIP_SUCCESS)
    return 0;
  const VIP_NET_ADDRESS *a = (const VIP_NET_ADDRESS *)ra;
  unsigned disc = (unsigned)a->HostAddress[2] << 8 | a->HostAddress[3];
  if (VipConnectAccept(c, vi) != VIP_SUCCESS) return 0;
  return disc;
}

static void t_oldest_request_first(void) {
  CHECK(VipOpenNic(nicd_dev(0), &snic) == VIP_SUCCESS && VipOpenNic(nicd_dev(1), &cnic) == VIP_SUCCESS);
  CHECK(VipCreatePtag(snic, &sptag) == VIP_SUCCESS && VipCreatePtag(cnic, &cptag) == VIP_SUCCESS);
  struct requester a = {new_vi(cnic, cptag), 0x0a, 300, VIP_SUCCESS, 0};
  struct requester b = {new_vi(cnic, cptag), 0x0b, 10000, VIP_SUCCESS, 0};
  struct requester c = {new_vi(cnic, cptag), 0x0c, 10000, VIP_SUCCESS, 0};
  CHECK(a.vi && b.vi && c.vi);
  pthread_create(&a.t, NULL, request, &a);
  nap_ms(100);
  pthread_create(&b.t, NULL, request, &b);
  pthread_join(a.t, NULL);   /* nobody waits: A times out and its slot is free again */
  CHECK_EQ(a.r, VIP_TIMEOUT);
  nap_ms(100);
  pthread_create(&c.t, NULL, request, &c);
  nap_ms(200);               /* C's request is in nicd's table */
  VIP_VI_HANDLE s1 = new_vi(snic, sptag), s2 = new_vi(snic, sptag);
  CHECK(s1 && s2);
  unsigned first = accept_next(s1), second = accept_next(s2);
  pthread_join(b.t, NULL);
  pthread_join(c.t, NULL);
  CHECK_EQ(first, b.disc);    /* the older request, although in a higher slot */
  CHECK_EQ(second, c.disc);
  CHECK(b.r == VIP_SUCCESS && c.r == VIP_SUCCESS);
  VipDisconnect(b.vi), VipDisconnect(c.vi), VipDisconnect(s1), VipDisconnect(s2);
  VipDestroyVi(a.vi), VipDestroyVi(b.vi), VipDestroyVi(c.vi), VipDestroyVi(s1), VipDestroyVi(s2);
  VipDestroyPtag(snic, sptag), VipDestroyPtag(cnic, cptag);
  VipCloseNic(snic), VipCloseNic(cnic);
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  pid_t nicd = nicd_start(2, false);
  CHECK(nicd > 0);
  if (nicd <= 0) return vt_summary();
  RUN(t_oldest_request_first);
  nicd_stop(nicd, false);
  return vt_summary();
}
