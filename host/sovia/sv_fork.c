/* sv_fork.c: SOVIA across fork() (README, "fork and exec"). A connection that exists at a
 * fork is in both processes, its VI and buffers shared, its protocol state and VIPL's
 * bookkeeping copied: exactly one process may use it. The first to use it after the fork (a
 * send, recv, shutdown, or a readiness query from poll/epoll) claims it in a word of the
 * registered, so shared, memory, and becomes its VI's owner (nicd reaps the VI at the owner's
 * end); the other's calls fail with EBADF. Until claimed nobody progresses it. Closing a copy that another live process holds or owns only forgets it; the
 * last holder (or the owner) runs the close protocol. A listener's backlog is shared the same
 * way: the first process to accept a waiting connection claims it, the others drop their copy. Such a connection is no longer in the
 * process's completion queue (every fork gives each process a new one: the old one would make
 * both processes take each other's completions), so it is progressed per VI. Listening
 * sockets are shared: each process that accepts or polls one runs its own connection thread
 * and nicd hands each request to one of them. After a fork, user memory is never registered
 * again (its pages would be shared with the other process): sends are copied. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sv_int.h"
#include "vipl_ext.h"

void sv_sys_close(int fd) {
  if (G.fd_hook) G.fd_hook(fd);
  syscall(SYS_close, fd);
}

void sovia_set_fd_hook(void (*closed)(int fd)) {
  sv_lock();
  G.fd_hook = closed;
  sv_unlock();
}

bool sv_pid_alive(int pid) { return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM); }

static void holder_add(_Atomic int *holder, int n, int pid) {
  for (int i = 0; i < n; i++)
    if (atomic_load(&holder[i]) == pid) return;
  for (int i = 0; i < n; i++) {
    int h = atomic_load(&holder[i]);
    if ((h == 0 || !sv_pid_alive(h)) && atomic_compare_exchange_strong(&holder[i], &h, pid))
      return;
  }
}

static void holder_del(_Atomic int *holder, int n, int pid) {
  for (int i = 0; i < n; i++) {
    int h = pid;
    atomic_compare_exchange_strong(&holder[i], &h, 0);
  }
}

static bool others_hold(struct sv_shared *sh, int pid) {
  if (atomic_load(&sh->unborn) > 0) return true;   /* the parent may close before the child runs */
  for (int i = 0; i < SV_HOLDERS; i++) {
    int h = atomic_load(&sh->holder[i]);
    if (h && h != pid && sv_pid_alive(h)) return true;
  }
  return false;
}

/* Whether pid still maps the page named mapname (after an exec it does not); a map this
 * process may not read (another user's), or a page without a name, counts as mapped. */
static bool maps_page(int pid, const char *mapname) {
  char path[64], line[512];
  if (!*mapname) return true;
  snprintf(path, sizeof path, "/proc/%d/maps", pid);
  FILE *f = fopen(path, "re");
  if (!f) return true;
  bool found = false;
  while (!found && fgets(line, sizeof line, f)) found = strstr(line, mapname) != NULL;
  fclose(f);
  return found;
}

void sv_lhold(struct sv_lshared *sh) { holder_add(sh->holder, SV_LHOLDERS, getpid()); }
void sv_lunhold(struct sv_lshared *sh) { holder_del(sh->holder, SV_LHOLDERS, getpid()); }

bool sv_lshared_live(struct sv_lshared *sh) {
  int me = getpid();
  for (int i = 0; i < SV_LHOLDERS; i++) {
    int h = atomic_load(&sh->holder[i]);
    if (h && h != me && sv_pid_alive(h)) return true;
  }
  return false;
}

int sv_lheir(struct sv_lshared *sh, const char *mapname) {
  int me = getpid();
  sv_lunhold(sh);
  for (int waited = 0;; waited++) {
    for (int i = 0; i < SV_LHOLDERS; i++) {
      int h = atomic_load(&sh->holder[i]);
      if (h && h != me && sv_pid_alive(h) && maps_page(h, mapname)) return h;
    }
    if (atomic_load(&sh->unborn) <= 0 || waited >= 100) return 0;
    usleep(1000);
  }
}

bool sv_usable(struct sv_conn *c) { return !c->legacy || atomic_load(&c->sh->owner) == getpid(); }

bool sv_takeable(struct sv_conn *c) {
  if (!c->legacy) return true;
  int owner = atomic_load(&c->sh->owner);
  return owner == 0 || owner == getpid();
}

/* The process that takes a connection over owns its VI from then on: nicd reaps a VI whose
 * owner has ended and breaks its connection, so the peer learns of this process's death (not
 * of its creator's, which may have handed it on long ago). A VI already gone (its creator died
 * before the claim and nicd reaped it) is a connection reset by the peer. */
static void own_vi(struct sv_conn *c, int me) {
  VIP_RETURN r = VipxSetViOwner(c->vi, (VIP_ULONG)me);
  if (r != VIP_SUCCESS && getenv("SOVIA_DEBUG"))
    fprintf(stderr, "sovia %d: VipxSetViOwner: %d\n", me, (int)r);
  if (r == VIP_INVALID_STATE) sv_fail(c, ECONNRESET);
}

static bool try_claim(struct sv_conn *c) {
  if (!c->legacy) return true;
  int me = getpid(), cur = 0;
  if (atomic_compare_exchange_strong(&c->sh->owner, &cur, me)) {
    if (getenv("SOVIA_DEBUG")) fprintf(stderr, "sovia %d: claims a connection shared by fork()\n", me);
    own_vi(c, me);
    return true;
  }
  return cur == me;
}

bool sv_claim_quiet(struct sv_conn *c) { return try_claim(c); }

/* The connection of SOVIA descriptor fd, or NULL (errno EBADF or ENOTCONN). G.mu held. */
static struct sv_conn *conn_of(int fd) {
  struct sv_sock *s = sv_sock_get(fd);
  if (!s) errno = EBADF;
  else if (s->kind != SV_CONN || !s->c) errno = ENOTCONN;
  return s && s->kind == SV_CONN ? s->c : NULL;
}

int sovia_set_door(int fd, const char *name) {
  sv_lock();
  struct sv_conn *c = conn_of(fd);
  if (c) {
    snprintf(c->sh->door, sizeof c->sh->door, "%s", name);
    atomic_store(&c->sh->relay_wanted, 0);   /* answered */
  }
  sv_unlock();
  return c ? 0 : -1;
}

int sovia_get_door(int fd, char *name, size_t cap) {
  sv_lock();
  struct sv_conn *c = conn_of(fd);
  if (c && cap) snprintf(name, cap, "%.*s", (int)sizeof c->sh->door, c->sh->door);
  sv_unlock();
  return c ? 0 : -1;
}

int sovia_relay_request(int fd, int on) {
  sv_lock();
  struct sv_conn *c = conn_of(fd);
  if (c) {
    atomic_store(&c->sh->relay_wanted, on ? (int)getpid() : 0);
    /* a holder of a copy, as the relay counts them (a fork child whose parent claimed the
     * connection before the child's fork handler ran was not listed) */
    if (on) holder_add(c->sh->holder, SV_HOLDERS, getpid());
  }
  sv_unlock();
  return c ? 0 : -1;
}

void sovia_relay_capable(int on) {
  sv_lock();
  G.relay_capable = on;
  sv_unlock();
}

bool sv_relay_due(struct sv_conn *c) {
  if (!G.relay_capable || !c->legacy || c->sh->door[0]) return false;
  int who = atomic_load(&c->sh->relay_wanted);
  return who && who != (int)getpid() && atomic_load(&c->sh->owner) == (int)getpid() &&
         sv_pid_alive(who);
}

int sovia_give(int fd, int pid) {
  sv_lock();
  struct sv_conn *c = conn_of(fd);
  if (c) {
    atomic_store(&c->sh->owner, pid);
    own_vi(c, pid);
  }
  sv_unlock();
  return c ? 0 : -1;
}

int sovia_held_elsewhere(int fd) {
  sv_lock();
  struct sv_conn *c = conn_of(fd);
  bool r = c && c->legacy && others_hold(c->sh, getpid());
  sv_unlock();
  return r;
}

bool sv_claim(struct sv_conn *c) {
  if (try_claim(c)) return true;
  int me = getpid(), cur = atomic_load(&c->sh->owner);
  static bool told;
  /* With the shim, a relay's stream takes its place (the shim says so if none comes). */
  if (!told && !c->sh->door[0] && !G.relay_capable) {
    told = true;
    fprintf(stderr, "sovia: process %d: a socket shared by fork() is used by process %d: EBADF\n",
            me, cur);
  }
  return false;
}

int sv_release(struct sv_conn *c) {
  if (!c->legacy) return 0;
  int me = getpid(), owner = atomic_load(&c->sh->owner);
  holder_del(c->sh->holder, SV_HOLDERS, me);
  if (owner == me) return 0;
  if (owner == 0 && !others_hold(c->sh, me)) {
    int z = 0;
    if (atomic_compare_exchange_strong(&c->sh->owner, &z, me)) {
      own_vi(c, me);   /* the close protocol runs here */
      return 0;
    }
  }
  return 1;
}

/* The mapping stays (another process uses these pages, and libnic's map of registered
 * segments still names them); this process only stops touching it. */
void sv_conn_forget(struct sv_conn *c) {
  for (struct sv_conn **pp = &G.conns; *pp; pp = &(*pp)->next)
    if (*pp == c) {
      *pp = c->next;
      break;
    }
  VipxForgetMem(G.nic, c->mem, c->mh);   /* the registration record: the other's to end */
  madvise(c->mem, c->memlen, MADV_DONTNEED);
  sv_conn_struct_free(c);
}

/* A fork from a signal handler that interrupted a SOVIA call of this thread (sv_lock_mine):
 * nothing is prepared; the child goes on with the interrupted call, as the parent does. */
static bool unprepared;
/* This process, as the fork handlers saw it last: a vfork child runs none of them. */
static int self_pid;

int sovia_vfork_child(void) { return getpid() != self_pid; }

static void prepare(void) {
  if (sv_lock_mine()) {
    unprepared = true;
    return;
  }
  sv_lock();
  if (!G.ready) return;
  int me = getpid();
  /* Listeners: the threads stop; each process starts its own at its next accept or poll, so
   * that a process that never accepts again (nginx's master) takes no connection. */
  for (int fd = 0; fd < SV_MAXFD; fd++)
    if (G.socks[fd] && G.socks[fd]->kind == SV_LISTEN) {
      sv_listen_pause(G.socks[fd]->l);
      sv_backlog_settle(G.socks[fd]->l);
      atomic_fetch_add(&G.socks[fd]->l->sh->unborn, 1);
    }
  for (struct sv_conn *c = G.conns; c; c = c->next) {
    if (c->legacy && atomic_load(&c->sh->owner) != me) continue;   /* not ours to hand on */
    c->legacy = true;
    /* closing ones stay with this process; the rest, a listener's backlog too, are for the
     * first user (the backlog: the first process to accept, as from a kernel socket's queue) */
    bool keep = c->orphan;
    atomic_store(&c->sh->owner, keep ? me : 0);
    holder_add(c->sh->holder, SV_HOLDERS, me);
    c->handed = !keep;
    if (!keep) atomic_fetch_add(&c->sh->unborn, 1);
  }
  G.forked = true;
  sv_defaults.copy_threshold = 0x7fffffff;
  for (int fd = 0; fd < SV_MAXFD; fd++)
    if (G.socks[fd]) G.socks[fd]->cfg.copy_threshold = 0x7fffffff;
}

/* A new completion queue for the connections made from now on (see the top of the file). */
static void new_cq(void) {
  VIP_CQ_HANDLE cq;
  if (VipCreateCQ(G.nic, 65536, &cq) == VIP_SUCCESS) G.cq = cq;
}

static void parent(void) {
  if (unprepared) {
    unprepared = false;
    return;
  }
  for (struct sv_conn *c = G.conns; c; c = c->next) c->handed = false;
  if (G.ready) new_cq();
  sv_unlock();
}

/* The backlog stays: its connections go to whichever process accepts them first. */
static void child_listener(struct sv_listener *l) {
  l->thr_started = l->stop = l->thr_done = false;
  sv_lhold(l->sh);
  atomic_fetch_sub(&l->sh->unborn, 1);
}

static void child(void) {
  self_pid = getpid();
  if (unprepared) {
    unprepared = false;
    return;
  }
  int me = getpid();
  sv_closer_forked();
  sv_notify_forked();
  if (G.evfd >= 0) {         /* the parent's counter: this process gets its own */
    syscall(SYS_close, G.evfd);
    G.evfd = -1;
  }
  if (!G.ready) {
    sv_unlock();
    return;
  }
  new_cq();
  /* A protection tag of its own: the NIC finds a buffer by tag and address, and this process
   * maps new memory at the same addresses as its parent and siblings (nginx's workers). */
  VIP_PROTECTION_HANDLE pt;
  if (VipCreatePtag(G.nic, &pt) == VIP_SUCCESS) G.ptag = pt;
  sv_conn_pool_forked();
  for (int fd = 0; fd < SV_MAXFD; fd++) {
    struct sv_sock *s = G.socks[fd];
    if (!s) continue;
    if (s->kind == SV_LISTEN) child_listener(s->l);
    if (s->kind == SV_CONNECTING_SOCK) {   /* its helper thread stayed in the parent */
      s->kind = SV_NEW;
      s->pc = NULL;
      s->so_error = ECONNABORTED;
    }
  }
  for (struct sv_conn *c = G.conns, *nx; c; c = nx) {
    nx = c->next;
    if (c->handed) {
      c->handed = false;
      if (atomic_load(&c->sh->owner) == 0) holder_add(c->sh->holder, SV_HOLDERS, me);
      atomic_fetch_sub(&c->sh->unborn, 1);
    }
    if (c->orphan) sv_conn_forget(c);   /* the parent's close thread finishes it */
  }
  sv_conn_reap_forked();
  sv_unlock();
}

__attribute__((constructor)) static void sv_fork_register(void) {
  self_pid = getpid();
  pthread_atfork(prepare, parent, child);
}
