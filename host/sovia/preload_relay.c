/* preload_relay.c: relays, for SOVIA connections handed out of the process's reach. A
 * connection lives in the process's memory and needs the NIC, nicd's socket and threads of
 * its own; yet inetd-style servers hand theirs to the program they exec (sshd re-execs itself
 * for each connection, on its stdin and stdout; a CGI program), pass it to another process
 * over a unix socket (SCM_RIGHTS), or serve it from a process that has chrooted, changed user
 * and set its descriptor and process limits to zero (vsftpd). At those moments
 * (preload_handoff.c, and sendmsg's SCM_RIGHTS) a connected SOVIA socket goes to a relay: a
 * forked copy of the process, named sovia-relay, that takes the connection over as a fork
 * child would and copies between it and one end of a unix socket pair, whose other end takes
 * the socket's descriptor numbers. That end is bound to an abstract name carrying the
 * connection's addresses, so getsockname and getpeername on any descriptor of it, in any
 * process, give them (a chroot does not hide an abstract name), and TCP and IP options on it
 * are no-ops. A half-close crosses the relay both ways. A process still holding a SOVIA copy of the
 * connection gets a stream of its own at the relay's door (an abstract unix socket named in
 * the connection's shared memory) at its first use of it. The relay closes the connection
 * once every stream has closed and no process holds a copy, and ends when both directions
 * have ended. A listener is not relayed, nor is anything in a vfork child. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "preload.h"
#include "preload_udp.h"
#include "sovia.h"

PL_REAL(int, fcntl, int, int, ...)
PL_REAL(int, dup3, int, int, int)
PL_REAL(int, getsockname, int, struct sockaddr *, socklen_t *)

#define TAG "sovia-relay "

/* The addresses a relayed connection's abstract name carries: "sovia-relay PID.N LIP:LPORT
 * PIP:PPORT V6" (hex, network order; PID.N makes it unique). */
static bool tagged(int fd, struct sockaddr_in *local, struct sockaddr_in *peer, bool *v6) {
  struct sockaddr_un u;
  socklen_t ul = sizeof u;
  if (PL_CALL(getsockname)(fd, (struct sockaddr *)&u, &ul) != 0 || u.sun_family != AF_UNIX ||
      ul <= offsetof(struct sockaddr_un, sun_path) + sizeof TAG || u.sun_path[0] != 0 ||
      memcmp(u.sun_path + 1, TAG, sizeof TAG - 1) != 0)
    return false;
  char name[sizeof u.sun_path];
  size_t n = ul - offsetof(struct sockaddr_un, sun_path) - 1;
  memcpy(name, u.sun_path + 1, n);
  name[n] = 0;
  unsigned la, lp, pa, pp, six;
  if (sscanf(name + sizeof TAG - 1, "%*x.%*x %x:%x %x:%x %x", &la, &lp, &pa, &pp, &six) != 5)
    return false;
  *local = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = (in_port_t)lp,
                                .sin_addr.s_addr = la};
  *peer = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = (in_port_t)pp,
                               .sin_addr.s_addr = pa};
  *v6 = six != 0;
  return true;
}

int pl_relay_name(int fd, struct sockaddr *addr, socklen_t *len, bool peer) {
  struct sockaddr_in l, p;
  bool v6;
  if (!tagged(fd, &l, &p, &v6)) return 1;
  if (!addr || !len) {
    errno = EFAULT;
    return -1;
  }
  struct pfd as = {.v6 = v6};
  pl_name_out(&as, (const struct sockaddr *)(peer ? &p : &l), addr, len);
  return 0;
}

bool pl_relay_ip_level(int fd, int level) {
  struct sockaddr_in l, p;
  bool v6;
  return (level == IPPROTO_TCP || level == IPPROTO_IP || level == IPPROTO_IPV6) &&
         tagged(fd, &l, &p, &v6);
}

/* u as the abstract unix address name: its length. */
static socklen_t abstract(struct sockaddr_un *u, const char *name) {
  size_t k = strlen(name);
  memset(u, 0, sizeof *u);
  u->sun_family = AF_UNIX;
  memcpy(u->sun_path + 1, name, k < sizeof u->sun_path - 1 ? k : sizeof u->sun_path - 1);
  return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + k);
}

/* ---- the relay ---- */

struct dir {
  char buf[65536];
  size_t off, len;
  bool eof;                  /* its source ended */
};

static void relay_quiet(int keep_a, int keep_b, int keep_c) {
  struct sigaction dfl = {.sa_handler = SIG_DFL};
  for (int sig = 1; sig < NSIG; sig++) sigaction(sig, &dfl, NULL);
  signal(SIGPIPE, SIG_IGN);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  prctl(PR_SET_NAME, "sovia-relay");
  /* The other SOVIA and E-UDP sockets are the program's: closed as a fork child closes them. */
  for (int fd = 0; fd < PMAXFD; fd++)
    if (fd != keep_a && ((pl_sov(fd) && pl_tab[fd].sfd != keep_a) || pl_udp(fd))) close(fd);
  /* Every other descriptor too: a copy of a pipe's write end held here would keep its reader
   * from ever seeing the end (sshd counts its children's start-up so). */
  int fds[1024], n = 0;
  DIR *d = opendir("/proc/self/fd");
  for (struct dirent *e; d && (e = readdir(d)) && n < 1024;) {
    int fd = atoi(e->d_name);
    if (e->d_name[0] != '.' && fd != keep_a && fd != keep_b && fd != keep_c && fd != dirfd(d))
      fds[n++] = fd;
  }
  if (d) closedir(d);
  for (int i = 0; i < n; i++) {
    if (sovia_is_socket(fds[i])) continue;
    if (fds[i] < PMAXFD) pl_mark(fds[i], K_KERNEL);   /* so close() is the kernel's */
    close(fds[i]);
  }
  int null = open("/dev/null", O_RDWR);
  for (int fd = 0; fd < 3 && null >= 0; fd++)
    if (fd != keep_a && fd != keep_b && fd != keep_c && fd != null) dup2(null, fd);
  if (null > 2 && null != keep_a && null != keep_b && null != keep_c) close(null);
}

/* One descriptor over unix socket s, with one byte (SCM_RIGHTS). */
union fd_ctl {
  struct cmsghdr h;
  char b[CMSG_SPACE(sizeof(int))];
};

static void send_fd(int s, int fd) {
  char one = 1;
  struct iovec v = {.iov_base = &one, .iov_len = 1};
  union fd_ctl ctl = {0};
  struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1, .msg_control = ctl.b,
                     .msg_controllen = sizeof ctl.b};
  struct cmsghdr *h = CMSG_FIRSTHDR(&m);
  h->cmsg_level = SOL_SOCKET;
  h->cmsg_type = SCM_RIGHTS;
  h->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(h), &fd, sizeof(int));
  if (sendmsg(s, &m, MSG_NOSIGNAL) != 1) {}   /* the asker sees the end and gives up */
}

/* The descriptor that came over s, or -1. */
static int recv_fd(int s) {
  char one;
  struct iovec v = {.iov_base = &one, .iov_len = 1};
  union fd_ctl ctl;
  struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1, .msg_control = ctl.b,
                     .msg_controllen = sizeof ctl.b};
  int fd = -1;
  if (recvmsg(s, &m, MSG_CMSG_CLOEXEC) != 1) return -1;
  struct cmsghdr *h = CMSG_FIRSTHDR(&m);
  if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS)
    memcpy(&fd, CMSG_DATA(h), sizeof fd);
  return fd;
}

/* A process holding a stale SOVIA copy of the connection asks at the door: it gets a
 * duplicate of the application's end of the stream, so that every process shares one kernel
 * socket as they would have shared the TCP one (whoever reads takes the bytes). */
static void door_serve(int door, int app) {
  int c = accept4(door, NULL, NULL, SOCK_CLOEXEC);
  if (c < 0) return;
  if (app >= 0) send_fd(c, app);
  close(c);
}

/* Copies between SOVIA socket s and the stream u, whose application end is app, until the
 * connection has ended both ways, the application end is closed everywhere (POLLHUP), or the
 * connection fails. The relay keeps a copy of app while another process holds a SOVIA copy
 * of the connection (it may still come to the door), so that the stream outlives a holder
 * that lets go before the next one comes (vsftpd's login process, then its session). */
static _Noreturn void relay_main(int s, int u, int app) {
  relay_quiet(s, u, app);
  sovia_relay_capable(0);      /* this process relays, it is never asked to again */
  static struct dir in, out;   /* in: SOVIA to the stream; out: the stream to SOVIA */
  sovia_fcntl(s, F_SETFL, O_NONBLOCK);
  fcntl(u, F_SETFL, O_NONBLOCK);
  struct pollfd q = {.fd = s, .events = POLLIN};
  sovia_poll(&q, 1, 0);        /* takes the connection over */
  int door = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  char name[32];
  snprintf(name, sizeof name, "sovia-door %x", (unsigned)getpid());
  struct sockaddr_un dn;
  socklen_t dl = abstract(&dn, name);
  if (door >= 0 && bind(door, (struct sockaddr *)&dn, dl) == 0 && listen(door, 4) == 0)
    sovia_set_door(s, name);
  char ready = 1;              /* the process that forked us waits for it (relay_one) */
  if (write(u, &ready, 1) != 1) {}
  bool shut = false;           /* our FIN is asked for */
  for (;;) {
    bool others = sovia_held_elsewhere(s) > 0;
    if (!others && app >= 0) {   /* nobody left to come to the door */
      close(app);
      app = -1;
    }
    if (in.eof && out.eof && !in.len && !out.len) break;
    if (out.eof && !out.len && !shut) {   /* every writer is done: our FIN */
      sovia_shutdown(s, SHUT_WR);
      shut = true;
    }
    struct pollfd p[3] = {{.fd = s}, {.fd = u}, {.fd = door, .events = POLLIN}};
    if (!in.eof && !in.len) p[0].events |= POLLIN;
    if (out.len) p[0].events |= POLLOUT;
    if (!out.eof && !out.len) p[1].events |= POLLIN;
    if (in.len) p[1].events |= POLLOUT;
    int r = sovia_poll(p, 3, app >= 0 ? 100 : -1);   /* keeping app: look at the holders again */
    if (r < 0 && errno != EINTR) break;
    if (r <= 0) continue;
    if (p[0].revents & POLLIN) {
      ssize_t got = sovia_recv(s, in.buf, sizeof in.buf, 0);
      if (got > 0) {
        in.off = 0;
        in.len = (size_t)got;
      } else if (got == 0) {
        in.eof = true;
        shutdown(u, SHUT_WR);
      } else if (errno != EAGAIN) {
        break;                                   /* reset: the stream closes below */
      }
    }
    if (out.len && (p[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t w = sovia_send(s, out.buf + out.off, out.len, MSG_NOSIGNAL);
      if (w > 0) out.off += (size_t)w, out.len -= (size_t)w;
      else if (w < 0 && errno != EAGAIN) break;
    }
    if ((p[0].revents & POLLERR) && !(p[0].revents & POLLIN)) break;
    if (p[2].revents & POLLIN) door_serve(door, app);
    if (in.len && (p[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t w = write(u, in.buf + in.off, in.len);
      if (w > 0) in.off += (size_t)w, in.len -= (size_t)w;
      else if (w < 0 && errno != EAGAIN) in.len = 0, in.eof = true;   /* nobody reads: dropped */
    }
    if (!out.len && !out.eof && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t got = read(u, out.buf, sizeof out.buf);
      if (got > 0) out.off = 0, out.len = (size_t)got;
      else if (got == 0 || errno != EAGAIN) out.eof = true;
    }
    /* closed on every side: what the connection still sends has nobody to read it */
    if (out.eof && !out.len && (p[1].revents & POLLHUP) && app < 0) break;
  }
  close(u);
  if (app >= 0) close(app);
  if (door >= 0) close(door);
  sovia_close(s);              /* a FIN after what was sent; exit() lingers for it */
  exit(0);
}

/* ---- handing connections to relays ---- */

static bool survives(int fd) {
  int fl = PL_CALL(fcntl)(fd, F_GETFD);
  return fl >= 0 && !(fl & FD_CLOEXEC);
}

/* The application's descriptors fds of SOVIA descriptor sfd take kernel descriptor k's place,
 * each keeping its close-on-exec flag; the SOVIA socket is forgotten here. */
static void take_place(int sfd, const int *fds, unsigned n, int k) {
  bool keep[16];
  for (unsigned i = 0; i < n; i++) {
    keep[i] = survives(fds[i]);
    pl_mark(fds[i], K_KERNEL);
  }
  sovia_close(sfd);
  for (unsigned i = 0; i < n; i++) {
    PL_CALL(dup3)(k, fds[i], keep[i] ? 0 : O_CLOEXEC);
    pl_epoll_to_kernel(fds[i]);
  }
}

/* How long a process that would use another live process's connection waits for that one to
 * relay it (it does at its next call on it, or within a sleep's slice). */
#define RELAY_WAIT_MS 3000

/* A connection a relay took over while this process held a copy, or, if ask (this process
 * uses it), one another live process uses (asked to relay it): the relay's door gives this
 * process the stream. Whether it did. */
static bool adopt(int sfd, const int *fds, unsigned n, bool ask) {
  char name[64] = "";
  if (sovia_get_door(sfd, name, sizeof name)) return false;
  if (!name[0] && !ask) return false;
  if (!name[0]) {
    sovia_relay_request(sfd, 1);
    for (int ms = 0; ms < RELAY_WAIT_MS && !name[0]; ms++) {
      usleep(1000);
      if (sovia_get_door(sfd, name, sizeof name)) return false;
    }
    if (!name[0]) {
      sovia_relay_request(sfd, 0);
      static bool told;
      if (!told) {
        told = true;
        fprintf(stderr, "sovia shim (pid %d): a connection another process uses was not handed "
                "to a relay within %d ms (it made no call on it): EBADF\n", (int)getpid(), RELAY_WAIT_MS);
      }
      return false;
    }
  }
  int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un u;
  socklen_t ul = abstract(&u, name);
  int got = c >= 0 && connect(c, (struct sockaddr *)&u, ul) == 0 ? recv_fd(c) : -1;
  if (c >= 0) close(c);
  if (got < 0) return false;
  take_place(sfd, fds, n, got);
  close(got);
  return true;
}

/* Relays the connection of SOVIA descriptor sfd, which the application's descriptors fds
 * name; each keeps its close-on-exec flag. */
static void relay_one(int sfd, const int *fds, unsigned n, bool v6) {
  static unsigned serial;
  struct sockaddr_in l, p;
  socklen_t ll = sizeof l, pl = sizeof p;
  if (sovia_getsockname(sfd, (struct sockaddr *)&l, &ll) ||
      sovia_getpeername(sfd, (struct sockaddr *)&p, &pl))
    return;   /* not connected: stays as it is (a listener is not relayed) */
  /* This process takes the connection (a fork may have left it unclaimed), so that the fork
   * below hands it on to the relay as to any child, and the close here only forgets it. A
   * connection another process took is a relay's: this process gets its stream, if any. */
  struct pollfd q = {.fd = sfd, .events = POLLIN};
  if (sovia_poll(&q, 1, 0) < 0) return;
  if (q.revents & POLLNVAL) {   /* an inherited copy: the stream if there is one already */
    adopt(sfd, fds, n, false);
    return;
  }
  int sp[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp)) return;
  char tag[96];
  snprintf(tag, sizeof tag, TAG "%x.%x %x:%x %x:%x %x", (unsigned)getpid(), serial++,
           (unsigned)l.sin_addr.s_addr, (unsigned)l.sin_port, (unsigned)p.sin_addr.s_addr,
           (unsigned)p.sin_port, v6 ? 1u : 0u);
  struct sockaddr_un u;
  socklen_t ul = abstract(&u, tag);
  if (bind(sp[1], (struct sockaddr *)&u, ul) != 0) {}   /* unnamed: the names are the unix socket's */
  pid_t pid = fork();
  if (pid < 0) {
    close(sp[0]);
    close(sp[1]);
    return;
  }
  if (pid == 0) relay_main(sfd, sp[0], sp[1]);
  close(sp[0]);
  sovia_give(sfd, pid);         /* the relay's now, even if this process ends at once */
  /* Once the relay has its door open, a process holding a copy finds it at its first use. */
  char ready;
  while (read(sp[1], &ready, 1) < 0 && errno == EINTR) {}
  take_place(sfd, fds, n, sp[1]);   /* here it is forgotten */
  close(sp[1]);
}

/* The application descriptors naming fd's SOVIA socket (fd among them); how many. */
static unsigned aliases(int fd, int *fds) {
  unsigned n = 0;
  for (int x = 0; x < PMAXFD && n < 16; x++)
    if (pl_sov(x) && pl_tab[x].sfd == pl_tab[fd].sfd) fds[n++] = x;
  return n;
}

/* Relays the connection under application descriptor fd, with every descriptor naming it. */
static void relay_fd(int fd) {
  struct pfd *p = pl_sov(fd);
  if (!p) return;
  int fds[16];
  unsigned n = aliases(fd, fds);
  relay_one(p->sfd, fds, n, p->v6);
}

bool pl_relay_now(int fd) {
  relay_fd(fd);
  return !pl_sov(fd);
}

bool pl_relay_adopt(int fd) {
  if (!pl_sov(fd)) return false;
  int fds[16];
  unsigned n = aliases(fd, fds);
  return adopt(pl_tab[fd].sfd, fds, n, true);
}

void pl_relay_all(bool exec) {
  if (sovia_vfork_child()) return;
  for (int fd = 0; fd < (exec ? 3 : PMAXFD); fd++)
    if (pl_sov(fd) && (!exec || survives(fd))) relay_fd(fd);
}

void pl_relay_rights(const struct msghdr *m) {
  for (struct cmsghdr *c = m ? CMSG_FIRSTHDR(m) : NULL; c; c = CMSG_NXTHDR((struct msghdr *)m, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t i = 0; i < n; i++) {
        int fd;
        memcpy(&fd, CMSG_DATA(c) + i * sizeof fd, sizeof fd);
        relay_fd(fd);
      }
    }
}
