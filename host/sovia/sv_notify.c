/* sv_notify.c: the readiness notifier for callers that sleep in the kernel rather than on the
 * completion queue (the shim's epoll, poll over SOVIA and kernel descriptors together): an
 * eventfd that becomes readable when a SOVIA socket may have changed readiness. While a caller
 * is armed, the library rings it where another thread changes a socket (the connection
 * thread's backlog, a non-blocking connect's helper, the close thread) and a watcher thread,
 * sleeping on the completion queue, rings it at each completion. Unarmed, the watcher sleeps
 * on a condition variable and nothing is written. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "sv_int.h"

static pthread_cond_t armed_cv = PTHREAD_COND_INITIALIZER;

#define WATCH_SLICE_MS 50   /* the completion queue's members change: look again this often */

void sv_notify(void) {
  if (G.armed && G.evfd >= 0) {
    uint64_t one = 1;
    ssize_t w = write(G.evfd, &one, sizeof one);   /* EAGAIN only when already readable */
    (void)w;
  }
}

static void *watcher(void *arg) {
  (void)arg;
  sv_lock();
  for (;;) {
    while (!G.armed || !G.ready) pthread_cond_wait(&armed_cv, &G.mu);
    VIP_CQ_HANDLE cq = G.cq;
    sv_unlock();
    VIP_VI_HANDLE vh;
    VIP_BOOLEAN rq;
    VIP_RETURN r = VipCQWait(cq, WATCH_SLICE_MS, &vh, &rq);
    sv_lock();
    if (r == VIP_SUCCESS) sv_notify();
    else if (r != VIP_TIMEOUT) {   /* the NIC went away: sleepers must look (errors show) */
      sv_notify();
      sv_unlock();
      usleep(WATCH_SLICE_MS * 1000);
      sv_lock();
    }
  }
  return NULL;
}

/* The child of a fork: no watcher, and the condition variable may hold the parent's. */
void sv_notify_forked(void) {
  pthread_cond_init(&armed_cv, NULL);
  G.watcher_running = false;
  G.armed = 0;
}

int sovia_notify_fd(void) {
  sv_lock();
  if (G.evfd < 0) G.evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  int fd = G.evfd;
  sv_unlock();
  return fd;
}

void sovia_notify_arm(int on) {
  sv_lock();
  if (on) {
    G.armed++;
    if (!G.watcher_running && G.ready) {
      pthread_t t;
      G.watcher_running = lnic_thread_start(&t, true, watcher, NULL) == 0;
    }
    pthread_cond_signal(&armed_cv);
  } else if (G.armed) {
    G.armed--;
  }
  sv_unlock();
}
