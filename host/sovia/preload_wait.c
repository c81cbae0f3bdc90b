/* preload_wait.c: the shim's waits: poll/ppoll and select over SOVIA and kernel descriptors
 * (sovia_poll), and epoll. An epoll set is the kernel's epoll descriptor for its kernel
 * members; its SOVIA members are kept here (they never enter the kernel set, so the kernel
 * socket standing for them can never report an event of its own) with SOVIA's readiness
 * notifier (an eventfd, sv_notify.c) added to the kernel set so that a sleeping epoll_wait
 * wakes when a SOVIA socket may have become ready. Level- and edge-triggered (an edge: the
 * socket's readiness sequence moved, or a bit came up, since it was last reported),
 * EPOLLONESHOT, EPOLLRDHUP; EPOLLEXCLUSIVE and EPOLLWAKEUP are accepted without effect.
 * Signals reach the application where a kernel wait would take them, in the sleep: while the
 * shim works (SOVIA's lock, malloc) they are held, so that a handler that forks or allocates
 * never runs inside it (PostgreSQL 15's postmaster reaps and forks in its SIGCHLD handler and
 * unblocks signals only around select()). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#include "libnic.h"
#include "preload.h"
#include "sovia.h"

PL_REAL(int, poll, struct pollfd *, nfds_t, int)
PL_REAL(int, ppoll, struct pollfd *, nfds_t, const struct timespec *, const sigset_t *)
PL_REAL(int, select, int, fd_set *, fd_set *, fd_set *, struct timeval *)
PL_REAL(int, pselect, int, fd_set *, fd_set *, fd_set *, const struct timespec *, const sigset_t *)
PL_REAL(int, epoll_ctl, int, int, int, struct epoll_event *)
PL_REAL(int, epoll_wait, int, struct epoll_event *, int, int)
PL_REAL(int, epoll_pwait, int, struct epoll_event *, int, int, const sigset_t *)

static bool any_sovia(const struct pollfd *fds, nfds_t n) {
  for (nfds_t i = 0; i < n; i++)
    if (pl_sov(fds[i].fd)) return true;
  return false;
}

/* Holds the asynchronous signals when the application handles any (or asked for a mask of
 * its own); *caller gets its mask. Whether it held them. */
static bool hold(bool asked, sigset_t *caller) {
  if (!asked && !pl_signals_handled()) return false;
  sigset_t held;
  lnic_async_signals(&held);
  return pthread_sigmask(SIG_BLOCK, &held, caller) == 0;
}

static void release(bool held, const sigset_t *caller) {
  int e = errno;
  if (held) pthread_sigmask(SIG_SETMASK, caller, NULL);
  errno = e;
}

/* poll with SOVIA members; sleepmask: for the sleep, when the caller holds signals. */
static int poll_sovia(struct pollfd *fds, nfds_t n, int timeout_ms, const sigset_t *sleepmask) {
  struct pollfd *t = malloc(n * sizeof *t);
  if (!t) return errno = ENOMEM, -1;
  for (nfds_t i = 0; i < n; i++) {
    t[i] = fds[i];
    struct pfd *p = pl_sov(fds[i].fd);
    if (p) t[i].fd = p->sfd;
  }
  int r = sovia_ppoll(t, n, timeout_ms, sleepmask);
  for (nfds_t i = 0; i < n; i++) fds[i].revents = r >= 0 ? t[i].revents : 0;
  free(t);
  /* A connection a relay took over (POLLNVAL): once its stream is here, ask the kernel. */
  bool adopted = false;
  for (nfds_t i = 0; r > 0 && i < n; i++)
    if ((fds[i].revents & POLLNVAL) && pl_sov(fds[i].fd) && pl_relay_adopt(fds[i].fd)) adopted = true;
  if (!adopted) return r;
  if (any_sovia(fds, n)) return poll_sovia(fds, n, timeout_ms, sleepmask);
  struct timespec ts = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000};
  return PL_CALL(ppoll)(fds, n, timeout_ms < 0 ? NULL : &ts, sleepmask);
}

/* The public calls hold signals from their first step (poll_sovia's malloc too); the sleep
 * takes them under ppoll's or pselect's mask, else the caller's. */
static const sigset_t *sleep_mask(bool held, const sigset_t *mask, const sigset_t *caller) {
  return !held ? NULL : mask ? mask : caller;
}

int poll(struct pollfd *fds, nfds_t n, int timeout_ms) {
  if (!any_sovia(fds, n)) return PL_CALL(poll)(fds, n, timeout_ms);
  sigset_t caller;
  bool held = hold(false, &caller);
  int r = poll_sovia(fds, n, timeout_ms, sleep_mask(held, NULL, &caller));
  release(held, &caller);
  return r;
}
int __poll_chk(struct pollfd *fds, nfds_t n, int timeout_ms, size_t fdslen);
int __poll_chk(struct pollfd *fds, nfds_t n, int timeout_ms, size_t fdslen) {
  (void)fdslen;
  return poll(fds, n, timeout_ms);
}

static int ms_of(const struct timespec *ts) {
  if (!ts) return -1;
  long long ms = (long long)ts->tv_sec * 1000 + (ts->tv_nsec + 999999) / 1000000;
  return ms > 0x7fffffff ? 0x7fffffff : (int)ms;
}

int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *mask) {
  if (!any_sovia(fds, n)) return PL_CALL(ppoll)(fds, n, ts, mask);
  sigset_t caller;
  bool held = hold(mask != NULL, &caller);
  int r = poll_sovia(fds, n, ms_of(ts), sleep_mask(held, mask, &caller));
  release(held, &caller);
  return r;
}

static bool any_sovia_set(int nfds, fd_set *rd, fd_set *wr, fd_set *ex) {
  bool any = false;
  for (int fd = 0; fd < nfds && fd < PMAXFD && !any; fd++)
    any = pl_sov(fd) && ((rd && FD_ISSET(fd, rd)) || (wr && FD_ISSET(fd, wr)) ||
                         (ex && FD_ISSET(fd, ex)));
  return any;
}

/* select over SOVIA sockets: turned into poll; sleepmask as poll_sovia's. */
static int select_sovia(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, int ms, const sigset_t *sleepmask) {
  struct pollfd *pf = calloc((size_t)nfds, sizeof *pf);
  if (!pf) return errno = ENOMEM, -1;
  nfds_t n = 0;
  for (int fd = 0; fd < nfds; fd++) {
    short ev = (short)((rd && FD_ISSET(fd, rd) ? POLLIN : 0) |
                       (wr && FD_ISSET(fd, wr) ? POLLOUT : 0) | (ex && FD_ISSET(fd, ex) ? POLLPRI : 0));
    if (ev) pf[n++] = (struct pollfd){.fd = fd, .events = ev};
  }
  int r = poll_sovia(pf, n, ms, sleepmask);
  if (r >= 0) {
    if (rd) FD_ZERO(rd);
    if (wr) FD_ZERO(wr);
    if (ex) FD_ZERO(ex);
    r = 0;
    for (nfds_t i = 0; i < n; i++) {
      short re = pf[i].revents;
      int hit = 0;
      if (rd && (pf[i].events & POLLIN) && (re & (POLLIN | POLLHUP | POLLERR))) FD_SET(pf[i].fd, rd), hit = 1;
      if (wr && (pf[i].events & POLLOUT) && (re & (POLLOUT | POLLERR))) FD_SET(pf[i].fd, wr), hit = 1;
      if (ex && (pf[i].events & POLLPRI) && (re & POLLPRI)) FD_SET(pf[i].fd, ex), hit = 1;
      r += hit;
    }
  }
  free(pf);
  return r;
}

int select(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *tv) {
  if (!any_sovia_set(nfds, rd, wr, ex)) return PL_CALL(select)(nfds, rd, wr, ex, tv);
  int ms = tv ? (int)(tv->tv_sec * 1000 + (tv->tv_usec + 999) / 1000) : -1;
  sigset_t caller;
  bool held = hold(false, &caller);
  int r = select_sovia(nfds, rd, wr, ex, ms, sleep_mask(held, NULL, &caller));
  release(held, &caller);
  if (r >= 0 && tv) tv->tv_sec = 0, tv->tv_usec = 0;
  return r;
}

int pselect(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, const struct timespec *ts,
            const sigset_t *mask) {
  if (!any_sovia_set(nfds, rd, wr, ex)) return PL_CALL(pselect)(nfds, rd, wr, ex, ts, mask);
  sigset_t caller;
  bool held = hold(mask != NULL, &caller);
  int r = select_sovia(nfds, rd, wr, ex, ms_of(ts), sleep_mask(held, mask, &caller));
  release(held, &caller);
  return r;
}

/* ---- epoll ---- */

#define DOOR 0x534f564941444f4full   /* data of the notifier in a kernel set */

struct member {
  int fd;                     /* the application's descriptor */
  uint32_t events;
  epoll_data_t data;
  unsigned seq;               /* readiness sequence when last looked at (edge-triggered) */
  uint32_t last;              /* events when last looked at */
  bool off;                   /* EPOLLONESHOT fired: until EPOLL_CTL_MOD */
};

struct pl_epoll {
  pthread_mutex_t mu;
  struct member *m;
  int n, cap;
  int rr;                     /* where the next look starts (fairness) */
  bool door;
};

static pthread_mutex_t sets_mu = PTHREAD_MUTEX_INITIALIZER;

static struct pl_epoll *set_of(int epfd, bool make) {
  if (epfd < 0 || epfd >= PMAXFD) return NULL;
  pthread_mutex_lock(&sets_mu);
  struct pl_epoll *e = pl_tab[epfd].ep;
  if (!e && make && (e = calloc(1, sizeof *e))) {
    pthread_mutex_init(&e->mu, NULL);
    pl_tab[epfd].ep = e;
  }
  pthread_mutex_unlock(&sets_mu);
  return e;
}

void pl_epoll_free(int epfd) {
  pthread_mutex_lock(&sets_mu);
  struct pl_epoll *e = pl_tab[epfd].ep;
  pl_tab[epfd].ep = NULL;
  pthread_mutex_unlock(&sets_mu);
  if (!e) return;
  free(e->m);
  pthread_mutex_destroy(&e->mu);
  free(e);
}

static int find(struct pl_epoll *e, int fd) {
  for (int i = 0; i < e->n; i++)
    if (e->m[i].fd == fd) return i;
  return -1;
}

/* fd leaves every epoll set's SOVIA members; to_kernel: it joins each kernel set instead,
 * with its events and data (a connection a relay took over is a kernel socket now). */
static void leave_sets(int fd, bool to_kernel) {
  pthread_mutex_lock(&sets_mu);
  for (int i = 0; i < PMAXFD; i++) {
    struct pl_epoll *e = pl_tab[i].ep;
    if (!e) continue;
    pthread_mutex_lock(&e->mu);
    int k = find(e, fd);
    if (k >= 0) {
      struct epoll_event ev = {.events = e->m[k].events, .data = e->m[k].data};
      e->m[k] = e->m[--e->n];
      if (to_kernel) PL_CALL(epoll_ctl)(i, EPOLL_CTL_ADD, fd, &ev);
    }
    pthread_mutex_unlock(&e->mu);
  }
  pthread_mutex_unlock(&sets_mu);
}

void pl_epoll_forget(int fd) { leave_sets(fd, false); }
void pl_epoll_to_kernel(int fd) { leave_sets(fd, true); }

static int ctl_sovia(int epfd, int op, int fd, struct epoll_event *ev) {
  struct pl_epoll *e = set_of(epfd, true);
  if (!e) return errno = ENOMEM, -1;
  if (op != EPOLL_CTL_DEL && !ev) return errno = EFAULT, -1;
  if (!e->door) {              /* the notifier joins the kernel set once */
    int nfd = sovia_notify_fd();
    struct epoll_event d = {.events = EPOLLIN, .data.u64 = DOOR};
    if (nfd < 0 || (PL_CALL(epoll_ctl)(epfd, EPOLL_CTL_ADD, nfd, &d) && errno != EEXIST)) return -1;
    e->door = true;
  }
  pthread_mutex_lock(&e->mu);
  int k = find(e, fd), r = 0;
  if (op == EPOLL_CTL_ADD) {
    if (k >= 0) r = EEXIST;
    else if (e->n == e->cap) {
      int cap = e->cap ? 2 * e->cap : 16;
      struct member *m = realloc(e->m, (size_t)cap * sizeof *m);
      if (!m) r = ENOMEM;
      else e->m = m, e->cap = cap;
    }
    if (!r) e->m[e->n++] = (struct member){.fd = fd, .events = ev->events, .data = ev->data, .seq = ~0u};
  } else if (k < 0) {
    r = ENOENT;
  } else if (op == EPOLL_CTL_DEL) {
    e->m[k] = e->m[--e->n];
  } else if (op == EPOLL_CTL_MOD) {
    e->m[k] = (struct member){.fd = fd, .events = ev->events, .data = ev->data, .seq = ~0u};
  } else {
    r = EINVAL;
  }
  pthread_mutex_unlock(&e->mu);
  return r ? (errno = r, -1) : 0;
}

int epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev) {
  if (pl_sov(fd)) return ctl_sovia(epfd, op, fd, ev);
  return PL_CALL(epoll_ctl)(epfd, op, fd, ev);
}

/* The SOVIA members' events into out (at most max): how many. */
static int look_sovia(struct pl_epoll *e, struct epoll_event *out, int max) {
  pthread_mutex_lock(&e->mu);
  int n = e->n, got = 0;
  struct pollfd *pf = n ? calloc((size_t)n, sizeof *pf) : NULL;
  unsigned *seq = n ? calloc((size_t)n, sizeof *seq) : NULL;
  if (!n || !pf || !seq) {
    pthread_mutex_unlock(&e->mu);
    free(pf), free(seq);
    return 0;
  }
  for (int i = 0; i < n; i++) {
    struct pfd *p = pl_sov(e->m[i].fd);
    pf[i].fd = p ? p->sfd : -1;
  }
  sovia_readiness(pf, seq, (nfds_t)n);
  for (int j = 0; j < n && got < max; j++) {
    int i = (e->rr + j) % n;
    struct member *m = &e->m[i];
    if (m->off || (pf[i].revents & POLLNVAL)) continue;
    uint32_t r = (uint32_t)pf[i].revents & (m->events | EPOLLERR | EPOLLHUP);
    bool report = r != 0;
    if (report && (m->events & EPOLLET)) report = seq[i] != m->seq || (r & ~m->last);
    m->seq = seq[i];
    m->last = r;
    if (!report) continue;
    out[got].events = r;
    out[got].data = m->data;
    got++;
    if (m->events & EPOLLONESHOT) m->off = true;
  }
  e->rr = n ? (e->rr + 1) % n : 0;
  pthread_mutex_unlock(&e->mu);
  free(pf), free(seq);
  return got;
}

static void drain_door(void) {
  uint64_t v;
  ssize_t r = read(sovia_notify_fd(), &v, sizeof v);
  (void)r;
}

/* Kernel events already in out[0..n): the notifier's taken out. */
static int strip_door(struct epoll_event *out, int n) {
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (out[i].data.u64 == DOOR) drain_door();
    else out[k++] = out[i];
  }
  return k;
}

static int kernel_wait(int epfd, struct epoll_event *out, int max, int ms, const sigset_t *mask) {
  return mask ? PL_CALL(epoll_pwait)(epfd, out, max, ms, mask) : PL_CALL(epoll_wait)(epfd, out, max, ms);
}

#define SLICE_MS 50          /* SOVIA's timers and dead peers are looked at this often */

/* mask: for the sleep (the caller holds signals), or NULL. */
static int wait_held(int epfd, struct pl_epoll *e, struct epoll_event *out, int max, int timeout,
                     const sigset_t *mask) {
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    int n = look_sovia(e, out, max);
    if (n < max) {
      int k = kernel_wait(epfd, out + n, max - n, 0, NULL);
      if (k > 0) n += strip_door(out + n, k);
    }
    if (n || timeout == 0) return n;
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long long el = (t1.tv_sec - t0.tv_sec) * 1000LL + (t1.tv_nsec - t0.tv_nsec) / 1000000;
    if (timeout > 0 && el >= timeout) return 0;
    int ms = SLICE_MS;
    if (timeout > 0 && timeout - el < ms) ms = (int)(timeout - el);
    sovia_notify_arm(1);
    n = look_sovia(e, out, max);   /* armed: a change from now on rings the notifier */
    if (!n) {
      int k = kernel_wait(epfd, out, max, ms, mask);
      int err = errno;
      sovia_notify_arm(0);
      if (k < 0) return errno = err, -1;
      n = strip_door(out, k);
      if (n && n < max) n += look_sovia(e, out + n, max - n);
    } else {
      sovia_notify_arm(0);
    }
    if (n) return n;
  }
}

static int wait_mixed(int epfd, struct pl_epoll *e, struct epoll_event *out, int max, int timeout,
                      const sigset_t *mask) {
  sigset_t caller;
  bool held = hold(mask != NULL, &caller);
  int r = wait_held(epfd, e, out, max, timeout, sleep_mask(held, mask, &caller));
  release(held, &caller);
  return r;
}

static int any_wait(int epfd, struct epoll_event *out, int max, int timeout, const sigset_t *mask) {
  struct pl_epoll *e = set_of(epfd, false);
  if (!e || !e->n) {
    int r = kernel_wait(epfd, out, max, timeout, mask);
    if (r <= 0 || !e) return r;   /* a set whose SOVIA members left may still hold the notifier */
    int n = strip_door(out, r);
    return n ? n : any_wait(epfd, out, max, 0, mask);
  }
  if (!out || max <= 0) return errno = EINVAL, -1;
  return wait_mixed(epfd, e, out, max, timeout, mask);
}

int epoll_wait(int epfd, struct epoll_event *out, int max, int timeout) {
  return any_wait(epfd, out, max, timeout, NULL);
}
int epoll_pwait(int epfd, struct epoll_event *out, int max, int timeout, const sigset_t *mask) {
  return any_wait(epfd, out, max, timeout, mask);
}
