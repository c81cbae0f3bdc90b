/* sv_listen.c: listening sockets. listen() records (node, port) in a registry file
 * ($VERINIC_RUN/sovia-<node>-<port>, holding the pid) so that connect() to a port nobody
 * listens on fails at once with ECONNREFUSED (on this machine: a node on another machine of a
 * cluster is asked through the nicds, and a port nobody listens on there times out, ETIMEDOUT
 * after SOVIA_CONNECT_MS), and starts the connection thread (paper section
 * 4.3): it waits for VI connection requests (VipConnectWait), sets each connection up (VI,
 * registered buffers, receive descriptors posted before accepting) and accepts it, so that,
 * as with TCP, connect() completes before the application calls accept(); accept() takes
 * connections from the backlog. While the backlog is full the thread takes no request, so a
 * client's connect() waits, as a kernel's full accept queue makes it wait (the SYN dropped and
 * sent again): it completes once accept() makes room, or times out (SOVIA_CONNECT_MS). close()
 * stops the thread by connecting to it (it rejects) and joins it; when the process that
 * listened closes it, the requests still waiting are refused (ECONNREFUSED at the client);
 * another process's copy (after fork) closing while the listener lives gives a request its
 * thread took meanwhile back to nicd for the others (VipxConnectPass). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sv_int.h"
#include "vipl_ext.h"

#define SV_BACKLOG_MAX 64

struct netaddr { VIP_NET_ADDRESS a; uint8_t more[64]; };

static void reg_path(unsigned node, unsigned port, char *out, size_t cap) {
  char f[64];
  snprintf(f, sizeof f, "sovia-%u-%u", node, port);
  sv_run_path(f, out, cap);
}

/* The pid a registry entry names: 0 if there is none, -1 if it is another user's we may
 * not read. */
static int reg_pid(const char *path) {
  char buf[32] = {0};
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno == EACCES ? -1 : 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  return n > 0 ? atoi(buf) : 0;
}

int sv_listener_alive(unsigned node, unsigned port) {
  char p[256];
  reg_path(node, port, p, sizeof p);
  int pid = reg_pid(p);
  return pid < 0 || sv_pid_alive(pid);
}

/* Writes pid into a new entry fd and closes it; other users' connect() reads it, whatever
 * this process's umask. */
static bool put_pid(int fd, int pid) {
  char b[32];
  fchmod(fd, 0644);
  int n = snprintf(b, sizeof b, "%d\n", pid);
  bool ok = write(fd, b, (size_t)n) == n;
  close(fd);
  return ok;
}

/* The entry names pid from now on: written aside, then renamed over it. */
static int reg_hand(const struct sv_listener *l, int pid) {
  char tmp[300];
  snprintf(tmp, sizeof tmp, "%s.%d", l->regpath, (int)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0 && put_pid(fd, pid) && rename(tmp, l->regpath) == 0) return 0;
  unlink(tmp);
  return -1;
}

static int reg_claim(struct sv_listener *l) {
  reg_path(l->node, l->port, l->regpath, sizeof l->regpath);
  for (int tries = 0; tries < 2; tries++) {
    int fd = open(l->regpath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) return put_pid(fd, (int)getpid()) ? 0 : -EIO;
    if (errno != EEXIST) return -errno;
    if (sv_listener_alive(l->node, l->port)) return -EADDRINUSE;
    unlink(l->regpath);   /* left by a dead process */
  }
  return -EADDRINUSE;
}

/* Until the backlog has room (connections another process accepted from a backlog a fork
 * shared are dropped from it): true, and the thread takes the next request. A stop ends the
 * wait: true if a stopper request is on its way (the thread takes it, as always), false if
 * the stop found the thread waiting here and sent none (the thread ends). */
static bool wait_room(struct sv_listener *l) {
  bool go;
  sv_lock();
  for (;;) {
    if (l->stop) {
      go = l->stopper_sent;
      break;
    }
    sv_backlog_ready(l);
    if (l->qn < l->backlog) {
      go = true;
      break;
    }
    l->room_wait = true;
    sv_unlock();
    usleep(1000);
    sv_lock();
  }
  l->room_wait = false;
  sv_unlock();
  return go;
}

/* The listener, closed by its last holder while its backlog was full: the requests still
 * waiting are refused. */
static void refuse_waiting(struct netaddr *local) {
  struct netaddr remote;
  VIP_CONN_HANDLE ch;
  VIP_VI_ATTRIBUTES ra;
  while (VipConnectWait(G.nic, &local->a, 20, &remote.a, &ra, &ch) == VIP_SUCCESS)
    VipConnectReject(ch);
}

/* The page a fork shares between the copies of a listener (sv_lshared), a memfd whose name is
 * unique on the machine (pid and a count; the dot ends it for the maps search); an unnamed
 * shared mapping where memfd_create is refused (its holders cannot be told from exec'd ones). */
static struct sv_lshared *lshared_new(char *name, size_t cap) {
  static unsigned count;
  size_t len = sizeof(struct sv_lshared);
  snprintf(name, cap, "sovia-lsn-%d-%u.", (int)getpid(), count++);
  int fd = memfd_create(name, MFD_CLOEXEC);
  void *p = MAP_FAILED;
  if (fd >= 0) {
    if (ftruncate(fd, (off_t)len) == 0) p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
  } else {
    name[0] = '\0';
    p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  }
  return p == MAP_FAILED ? NULL : p;
}

static void listener_free(struct sv_listener *l) {
  if (l->sh) munmap(l->sh, sizeof *l->sh);
  free(l->q);
  free(l);
}

/* A request taken for a shared listener, accepted now (G.mu held: nicd answers at once). */
static bool accept_pending(struct sv_conn *c) {
  VIP_CONN_HANDLE ch = c->pending;
  c->pending = NULL;
  if (VipConnectAccept(ch, c->vi) != VIP_SUCCESS) {   /* the client gave up meanwhile */
    sv_conn_free(c);
    return false;
  }
  sv_conn_link(c);
  sv_conn_established(c);
  return true;
}

/* A request taken, not accepted: back to nicd for the other copies, or refused if the
 * listener lives nowhere else. */
static void give_back(struct sv_listener *l, struct sv_conn *c) {
  if (sv_listener_alive(l->node, l->port)) VipxConnectPass(c->pending);
  else VipConnectReject(c->pending);
  c->pending = NULL;
  sv_conn_free(c);
}

/* How often a waiting connection thread looks whether the process its registry entry names
 * still lives: a fork's copy lists itself once that one was killed (nginx's master, SIGKILL),
 * as a kernel listener lives while any process holds it. */
#define RELIST_MS 1000

static void relist(struct sv_listener *l) {
  if (!sv_listener_alive(l->node, l->port) && reg_hand(l, (int)getpid()) == 0 && getenv("SOVIA_DEBUG"))
    fprintf(stderr, "sovia %d: lists port %u again\n", (int)getpid(), l->port);
}

static void *conn_thread(void *arg) {
  struct sv_listener *l = arg;
  struct netaddr local, remote;
  sv_disc(l->node, l->port, &local.a);
  int fails = 0;
  for (;;) {
    if (!wait_room(l)) {
      sv_lock();   /* closed here: refused unless another process's copy lives on */
      bool refuse = l->closing && !sv_listener_alive(l->node, l->port);
      sv_unlock();
      if (refuse) refuse_waiting(&local);
      break;
    }
    VIP_CONN_HANDLE ch;
    VIP_VI_ATTRIBUTES ra;
    VIP_RETURN r = VipConnectWait(G.nic, &local.a, RELIST_MS, &remote.a, &ra, &ch);
    sv_lock();
    bool stop = l->stop, full = l->qn >= l->qcap, closing = l->closing;
    bool gone = r != VIP_SUCCESS && sv_nic_gone();
    if (r == VIP_TIMEOUT && !stop) relist(l);
    sv_unlock();
    if (r == VIP_TIMEOUT) continue;   /* a stop is seen by wait_room, its stopper taken */
    if (r != VIP_SUCCESS) {
      if (getenv("SOVIA_DEBUG")) fprintf(stderr, "sovia %d: VipConnectWait: %d\n", (int)getpid(), (int)r);
      if (stop || gone || ++fails > 50) break;   /* nicd is gone */
      usleep(20000);
      continue;
    }
    fails = 0;
    const uint8_t *rb = sv_addr_bytes(&remote.a);
    if (remote.a.DiscriminatorLen == 6 && rb[2] == 'S' && rb[3] == 'X') {   /* a stopper */
      VipConnectReject(ch);
      int pid = (int)(((uint32_t)rb[4] << 24) | ((uint32_t)rb[5] << 16) | ((uint32_t)rb[6] << 8) | rb[7]);
      if (stop && pid == (int)getpid()) break;
      continue;              /* another process's listener is stopping: it tries again */
    }
    if (closing && sv_listener_alive(l->node, l->port)) {
      if (getenv("SOVIA_DEBUG")) fprintf(stderr, "sovia %d: passes a request on (closing)\n", (int)getpid());
      VipxConnectPass(ch);   /* the listener lives on in other processes: one of them takes it */
      break;
    }
    if (closing || full) {    /* a pause (fork) still takes requests: they are this process's */
      if (getenv("SOVIA_DEBUG"))
        fprintf(stderr, "sovia %d: refuses a request (%s)\n", (int)getpid(), closing ? "closing" : "full");
      VipConnectReject(ch);
      if (closing) break;
      continue;
    }
    int err = 0;
    struct sv_conn *c = sv_conn_new(&l->cfg, &err);
    if (!c) {
      if (getenv("SOVIA_DEBUG"))
        fprintf(stderr, "sovia %d: refuses a request (no connection: %s)\n", (int)getpid(), strerror(err));
      VipConnectReject(ch);
      continue;
    }
    /* Shared with other processes: the request waits for this one's accept(), so that a copy
     * closed meanwhile (a worker recycled) gives it to them instead of dropping it. */
    bool defer = sv_lshared_live(l->sh);
    if (!defer) r = VipConnectAccept(ch, c->vi);
    sv_lock();
    if (!defer && r != VIP_SUCCESS) {
      sv_conn_free(c);
      sv_unlock();
      continue;
    }
    unsigned rnode = ((unsigned)rb[0] << 8) | rb[1];
    unsigned rport = 0;
    if (remote.a.DiscriminatorLen == 4) rport = ((unsigned)rb[4] << 8) | rb[5];
    sv_addr_of_node(rnode, rport, &c->peer);
    sv_addr_of_node(l->node, l->port, &c->local);
    if (defer) {
      c->pending = ch;
      if (l->closing) {      /* closed while this thread took it: nobody here will accept */
        give_back(l, c);
        sv_unlock();
        break;
      }
    } else {
      sv_conn_link(c);
      sv_conn_established(c);
    }
    l->q[(l->qh + l->qn) % l->qcap] = c;
    l->qn++;
    l->evseq++;
    sv_notify();
    sv_unlock();
  }
  sv_lock();
  l->thr_done = true;
  l->evseq++;
  sv_notify();               /* a dead listener is readable with an error: sleepers look */
  if (l->abandoned) listener_free(l);   /* closed while this thread could not be woken */
  sv_unlock();
  return NULL;
}

bool sv_listen_dead(struct sv_listener *l) { return l->thr_started && l->thr_done && !l->stop; }

void sv_listen_run(struct sv_listener *l) {
  if (l->thr_started || l->stop) return;
  relist(l);
  l->thr_done = l->dead_told = false;
  l->stopper_sent = false;
  l->thr_started = lnic_thread_start(&l->thr, false, conn_thread, l) == 0;
}

int sv_listen_start(struct sv_sock *s, int backlog) {
  struct sv_listener *l = calloc(1, sizeof *l);
  if (!l) return -ENOMEM;
  l->node = G.node;
  l->port = ntohs(s->local.sin_port);
  if (backlog < 1) backlog = 1;
  if (backlog > SV_BACKLOG_MAX) backlog = SV_BACKLOG_MAX;
  l->backlog = (unsigned)backlog;
  l->qcap = 2 * SV_BACKLOG_MAX;
  l->q = calloc(l->qcap, sizeof *l->q);
  l->cfg = s->cfg;
  l->sh = lshared_new(l->mapname, sizeof l->mapname);
  int rc = l->q && l->sh ? 0 : -ENOMEM;
  if (!rc && !l->port) {   /* an ephemeral port */
    for (int i = 0; i < 16000; i++) {
      l->port = G.next_port++;
      if (G.next_port > 65535) G.next_port = 49152;
      if ((rc = reg_claim(l)) != -EADDRINUSE) break;
    }
    s->local.sin_port = htons((uint16_t)l->port);
  } else if (!rc) {
    rc = reg_claim(l);
  }
  if (rc) {
    listener_free(l);
    return rc;
  }
  sv_lhold(l->sh);
  s->l = l;
  sv_listen_run(l);          /* as with TCP, connect() completes before accept() */
  return 0;
}

/* One request to our own connection thread from a stopper VI (discriminator 'S' 'X' pid):
 * false if no VI could be made (the NIC's table is full). */
static bool wake_once(struct sv_listener *l) {
  VIP_VI_ATTRIBUTES va = {.ReliabilityLevel = VIP_SERVICE_RELIABLE_DELIVERY, .Ptag = G.ptag};
  VIP_VI_HANDLE vi;
  if (VipCreateVi(G.nic, &va, NULL, NULL, &vi) != VIP_SUCCESS) return false;
  struct netaddr remote, me;
  sv_disc(l->node, l->port, &remote.a);
  sv_disc(G.node, 0, &me.a);
  uint8_t *p = sv_addr_bytes(&me.a);
  uint32_t pid = (uint32_t)getpid();
  me.a.DiscriminatorLen = 6;
  p[2] = 'S', p[3] = 'X';
  p[4] = (uint8_t)(pid >> 24), p[5] = (uint8_t)(pid >> 16), p[6] = (uint8_t)(pid >> 8), p[7] = (uint8_t)pid;
  VIP_VI_ATTRIBUTES ra;
  VipConnectRequest(vi, &me.a, &remote.a, 2000, &ra);
  VipDestroyVi(vi);
  return true;
}

/* Stops this process's connection thread (a stopper request wakes it out of VipConnectWait)
 * and joins it: true once it has ended, false if it could not be woken (no VI left on the
 * NIC: issue 16). G.mu held, released while waiting. */
static bool thread_stop(struct sv_listener *l) {
  if (!l->thr_started) return true;
  l->stop = true;
  for (int tries = 0; tries < 20 && !l->thr_done; tries++) {
    bool waking = !l->room_wait;   /* in its wait for room it sees stop itself */
    if (waking) l->stopper_sent = true;
    sv_unlock();
    bool made = !waking || wake_once(l);
    for (int i = 0; made && i < 200; i++) {   /* the rejected thread is on its way out */
      sv_lock();
      bool done = l->thr_done;
      sv_unlock();
      if (done) break;
      usleep(500);
    }
    sv_lock();
    if (!made) break;
  }
  if (!l->thr_done) return false;
  sv_unlock();
  pthread_join(l->thr, NULL);
  sv_lock();
  l->thr_started = false;
  return true;
}

/* Another process's connection (it accepted it from the backlog a fork shared): forgotten. */
static void drop_theirs(struct sv_conn *c) {
  sv_release(c);
  sv_conn_forget(c);
}

bool sv_backlog_ready(struct sv_listener *l) {
  unsigned k = 0;
  for (unsigned i = 0; i < l->qn; i++) {
    struct sv_conn *c = l->q[(l->qh + i) % l->qcap];
    if (sv_takeable(c)) l->q[(l->qh + k++) % l->qcap] = c;
    else drop_theirs(c);
  }
  l->qn = k;
  return k > 0;
}

struct sv_conn *sv_backlog_take(struct sv_listener *l) {
  while (l->qn) {
    struct sv_conn *c = l->q[l->qh];
    l->qh = (l->qh + 1) % l->qcap;
    l->qn--;
    if (c->pending) {
      if (accept_pending(c)) return c;
      continue;
    }
    if (sv_claim_quiet(c)) return c;
    drop_theirs(c);
  }
  return NULL;
}

void sv_backlog_settle(struct sv_listener *l) {
  unsigned k = 0;
  for (unsigned i = 0; i < l->qn; i++) {
    struct sv_conn *c = l->q[(l->qh + i) % l->qcap];
    if (!c->pending || accept_pending(c)) l->q[(l->qh + k++) % l->qcap] = c;
  }
  l->qn = k;
}

void sv_listen_pause(struct sv_listener *l) {
  thread_stop(l);
  l->stop = false;            /* not woken: it goes on serving this process */
}

/* Closes this process's copy of a listener: the backlog is closed, the connection thread
 * stopped; one that cannot be woken is left to free the listener when a request reaches it,
 * and close() returns at once. The process the registry entry names hands it to another live
 * copy (a daemon's child after its parent's exit), or removes it if there is none. */
void sv_listen_stop(struct sv_listener *l) {
  l->stop = l->closing = true;
  if (reg_pid(l->regpath) == (int)getpid()) {
    int heir = sv_lheir(l->sh, l->mapname);
    if (!heir || reg_hand(l, heir) != 0) unlink(l->regpath);
  } else {
    sv_lunhold(l->sh);
  }
  while (l->qn) {
    struct sv_conn *c = l->q[l->qh];
    l->qh = (l->qh + 1) % l->qcap;
    l->qn--;
    if (c->pending) give_back(l, c);
    else if (sv_release(c)) sv_conn_forget(c);   /* shared by a fork: the others may accept it */
    else sv_conn_close(c);
  }
  if (!thread_stop(l)) {
    l->abandoned = true;
    pthread_detach(l->thr);
    return;
  }
  listener_free(l);
}
