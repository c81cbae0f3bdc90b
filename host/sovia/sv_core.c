/* sv_core.c: SOVIA's per-process state: the NIC (opened on first use: $SOVIA_NIC, default
 * nic0), its protection tag, the one completion queue every VI reports to, the lock every
 * call holds, the socket table indexed by descriptor, VIPL return codes as errno, and whether
 * the NIC is gone (the errno of a broken connection). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sv_int.h"
#include "vipl_ext.h"

struct sv_global G = {.mu = PTHREAD_MUTEX_INITIALIZER, .evfd = -1};

/* Set before the lock is taken and cleared after it is given back, so that a signal anywhere
 * in between finds it (a signal fence: only this thread's handlers read it). */
static _Thread_local volatile sig_atomic_t in_lock;

void sv_lock(void) {
  in_lock = 1;
  atomic_signal_fence(memory_order_seq_cst);
  pthread_mutex_lock(&G.mu);
}

void sv_unlock(void) {
  pthread_mutex_unlock(&G.mu);
  atomic_signal_fence(memory_order_seq_cst);
  in_lock = 0;
}

bool sv_lock_mine(void) { return in_lock != 0; }

uint64_t sv_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int sv_err_from_vip(VIP_RETURN r) {
  switch (r) {
  case VIP_SUCCESS: return 0;
  case VIP_NOT_DONE: return EAGAIN;
  case VIP_TIMEOUT: return ETIMEDOUT;
  case VIP_REJECT: return ECONNREFUSED;
  case VIP_NO_MATCH: case VIP_NOT_REACHABLE: return EHOSTUNREACH;
  case VIP_INVALID_PARAMETER: return EINVAL;
  case VIP_PROTECTION_ERROR: return EFAULT;
  case VIP_INVALID_STATE: return EISCONN;
  default: return ENOBUFS;
  }
}

/* VIPL reports a NIC that went away (nicd died, the LANai faulted) once, as the
 * specification's catastrophic error; from then on broken connections say ENETDOWN. */
static void nic_error(VIP_PVOID ctx, VIP_ERROR_DESCRIPTOR *e) {
  (void)ctx;
  if (e && e->ErrorCode == VIP_ERROR_CATASTROPHIC) atomic_store(&G.nic_gone, true);
}

bool sv_nic_gone(void) {
  if (!atomic_load(&G.nic_gone) && G.ready) {   /* ask: VIPL looks at the NIC when polled */
    VIP_VI_HANDLE vh;
    VIP_BOOLEAN rq;
    VipCQDone(G.cq, &vh, &rq);   /* SOVIA takes its completions per VI, not by the CQ */
  }
  return atomic_load(&G.nic_gone);
}

int sv_broken_errno(void) { return atomic_load(&G.nic_gone) ? ENETDOWN : ECONNRESET; }

int sv_init(void) {
  if (G.ready) return 0;
  if (G.init_err) return -G.init_err;
  sv_config_load();
  const char *dev = getenv("SOVIA_NIC");
  if (!dev || !*dev) dev = "nic0";
  VIP_RETURN r = VipOpenNic(dev, &G.nic);
  /* EACCES: nicd's --mode/--group leave this user out; else no nicd or no such NIC (try again
   * later). */
  if (r != VIP_SUCCESS) return VipxOpenNicErrno() == EACCES ? -EACCES : -ENETDOWN;
  VIP_NIC_ATTRIBUTES at;
  if (VipQueryNic(G.nic, &at) != VIP_SUCCESS || VipCreatePtag(G.nic, &G.ptag) != VIP_SUCCESS ||
      VipCreateCQ(G.nic, 65536, &G.cq) != VIP_SUCCESS || VipNSInit(G.nic, NULL) != VIP_SUCCESS) {
    VipCloseNic(G.nic);
    return -ENETDOWN;
  }
  VipErrorCallback(G.nic, NULL, nic_error);
  G.node = ((unsigned)at.LocalNicAddress[0] << 8) | at.LocalNicAddress[1];
  G.next_port = 49152u + ((unsigned)getpid() * 37u) % 16000u;
  G.ready = true;
  return 0;
}

struct sv_sock *sv_sock_get(int fd) {
  if (fd < 0 || fd >= SV_MAXFD) return NULL;
  return G.socks[fd];
}
