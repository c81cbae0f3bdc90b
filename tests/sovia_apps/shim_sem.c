/* shim_sem.c: the shim's socket semantics, checked by a plain BSD-sockets program (not linked
 * with SOVIA) run under the LD_PRELOAD shim (shim_sem.sh): `shim_sem server PORT` on NIC 0,
 * `shim_sem client ADDR PORT` on NIC 1. The server listens on [::] (dual stack) and checks:
 * getsockname of the wildcard listener; epoll with SOVIA and kernel (pipe) members: nothing
 * reported before a connection waits, the listener readable exactly while one waits, level-
 * and edge-triggered input, EPOLLONESHOT until EPOLL_CTL_MOD, EPOLLRDHUP at the peer's
 * shutdown; the v4-mapped peer name; recvmsg scattering into iovecs (no ancillary data);
 * sendmsg gathering, and refusing SCM_RIGHTS with EOPNOTSUPP; sendto with an address on the
 * connected socket; sendfile from a file; TCP_INFO and TCP_MAXSEG; fork (the child serves an
 * accepted connection, the parent closes its copy at once; a connection waiting in the
 * backlog at the fork is accepted by the child); a postmaster's signals (PostgreSQL 15:
 * held but around select() over the listener, the SIGCHLD handler reaps and forks): the
 * handler runs on the main thread alone and never inside the shim; exit() with a thread
 * blocked in recv. The client drives its side on one-byte commands and checks what it receives. Each
 * check prints "ok"/"FAIL"; the last line is "N passed, N failed". */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shim_check.h"



static int wait_ev(int ep, struct epoll_event *ev, int ms) { return epoll_wait(ep, ev, 8, ms); }

static char reply(int c) {
  char r = 0;
  return read_full(c, &r, 1) ? 0 : r;
}

#define FILE_BYTES 300000

static void *blocked_reader(void *arg) {
  char b;
  ssize_t r = read(*(int *)arg, &b, 1);   /* never returns: the process exits meanwhile */
  (void)r;
  return NULL;
}

static pid_t main_tid;
static volatile sig_atomic_t off_main, reaped, to_fork;

/* PostgreSQL 15's reaper in small: reap, start the next child. A fork here takes the shim's
 * locks: inside the shim (its lock held), it would wait for itself. */
static void on_chld(int sig) {
  (void)sig;
  int e = errno;
  if (gettid() != main_tid) off_main++;
  while (waitpid(-1, NULL, WNOHANG) > 0) reaped++;
  if (to_fork > 0) {
    to_fork--;
    if (fork() == 0) _exit(0);
  }
  errno = e;
}

/* How many children the handler reaped within 20 s; *off: handlers run on other threads. */
static int postmaster(int l, int children, int *off) {
  main_tid = gettid();
  struct sigaction sa = {.sa_handler = on_chld, .sa_flags = SA_RESTART}, dfl;
  sigfillset(&sa.sa_mask);
  sigaction(SIGCHLD, &sa, &dfl);
  sigset_t chld, old;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  pthread_sigmask(SIG_BLOCK, &chld, &old);
  to_fork = children - 1;
  if (fork() == 0) _exit(0);
  struct timeval t0, t1;
  gettimeofday(&t0, NULL);
  do {
    usleep(1000);              /* busy with SIGCHLD held: a child's end waits for the select */
    fd_set rd;
    FD_ZERO(&rd);
    FD_SET(l, &rd);
    struct timeval tv = {0, 20000};
    pthread_sigmask(SIG_UNBLOCK, &chld, NULL);
    select(l + 1, &rd, NULL, NULL, &tv);
    pthread_sigmask(SIG_BLOCK, &chld, NULL);
    gettimeofday(&t1, NULL);
  } while (reaped < children && t1.tv_sec - t0.tv_sec < 20);
  sigaction(SIGCHLD, &dfl, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  *off = off_main;
  return reaped;
}

static int server(unsigned port) {
  int l = socket(AF_INET6, SOCK_STREAM, 0), off = 0;
  setsockopt(l, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
  struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port), .sin6_addr = in6addr_any};
  CHECK(bind(l, (struct sockaddr *)&a, sizeof a) == 0 && listen(l, 8) == 0, "bind [::]:%u and listen", port);
  struct sockaddr_in6 n;
  socklen_t nl = sizeof n;
  CHECK(getsockname(l, (struct sockaddr *)&n, &nl) == 0 && n.sin6_family == AF_INET6 &&
        IN6_IS_ADDR_UNSPECIFIED(&n.sin6_addr) && ntohs(n.sin6_port) == port,
        "getsockname of the wildcard listener: [::]:%u", port);
  int ep = epoll_create1(EPOLL_CLOEXEC), pp[2];
  if (pipe(pp)) return 2;
  struct epoll_event e = {.events = EPOLLIN, .data.u32 = 1}, ev[8];
  epoll_ctl(ep, EPOLL_CTL_ADD, l, &e);
  e.data.u32 = 2;
  epoll_ctl(ep, EPOLL_CTL_ADD, pp[0], &e);
  CHECK(wait_ev(ep, ev, 200) == 0, "epoll: nothing before a connection waits (no placeholder event)");
  if (write(pp[1], "p", 1) != 1) return 2;
  int k = wait_ev(ep, ev, 1000);
  CHECK(k == 1 && ev[0].data.u32 == 2, "epoll: a kernel pipe in the same set reports alone (%d)", k);
  char pb;
  if (read(pp[0], &pb, 1) != 1) return 2;
  k = wait_ev(ep, ev, 10000);
  CHECK(k == 1 && ev[0].data.u32 == 1 && (ev[0].events & EPOLLIN), "epoll: the listener is readable when a connection waits");
  struct sockaddr_in6 peer;
  socklen_t pl = sizeof peer;
  int c = accept4(l, (struct sockaddr *)&peer, &pl, SOCK_NONBLOCK);
  char ps[64] = "";
  inet_ntop(AF_INET6, &peer.sin6_addr, ps, sizeof ps);
  CHECK(c >= 0 && peer.sin6_family == AF_INET6 && !strcmp(ps, "::ffff:10.0.0.2"), "accept: the v4-mapped peer %s", ps);
  CHECK(wait_ev(ep, ev, 200) == 0, "epoll: the listener is not readable once the backlog is empty");

  /* edge-triggered input */
  e = (struct epoll_event){.events = EPOLLIN | EPOLLET | EPOLLRDHUP, .data.u32 = 3};
  epoll_ctl(ep, EPOLL_CTL_ADD, c, &e);
  char m = 'm';
  if (write(c, &m, 1) != 1) return 2;
  k = wait_ev(ep, ev, 5000);
  CHECK(k == 1 && ev[0].data.u32 == 3 && (ev[0].events & EPOLLIN), "epoll ET: readable when data arrives");
  CHECK(wait_ev(ep, ev, 200) == 0, "epoll ET: not again while nothing new arrives");
  char p1[2], p2[8], ctl[64];
  struct iovec iv[2] = {{p1, 2}, {p2, 8}};
  struct msghdr mh = {.msg_iov = iv, .msg_iovlen = 2, .msg_control = ctl, .msg_controllen = sizeof ctl};
  ssize_t r = recvmsg(c, &mh, 0);
  CHECK(r == 5 && !memcmp(p1, "he", 2) && !memcmp(p2, "llo", 3) && mh.msg_controllen == 0,
        "recvmsg: 5 bytes scattered into 2 iovecs, no ancillary data (%zd)", r);
  m = 'w';
  if (write(c, &m, 1) != 1) return 2;
  k = wait_ev(ep, ev, 5000);
  CHECK(k == 1 && (ev[0].events & EPOLLIN), "epoll ET: readable again for new data");
  char wb[5];
  usleep(100000);
  CHECK(read(c, wb, 5) == 5 && !memcmp(wb, "world", 5), "read the new data");

  /* level-triggered, then EPOLLONESHOT */
  e.events = EPOLLIN;
  epoll_ctl(ep, EPOLL_CTL_MOD, c, &e);
  m = 'x';
  if (write(c, &m, 1) != 1) return 2;
  k = wait_ev(ep, ev, 5000);
  int k2 = wait_ev(ep, ev, 100);
  CHECK(k == 1 && k2 == 1, "epoll LT: reported at every wait while unread");
  e.events = EPOLLIN | EPOLLONESHOT;
  epoll_ctl(ep, EPOLL_CTL_MOD, c, &e);
  k = wait_ev(ep, ev, 1000);
  k2 = wait_ev(ep, ev, 200);
  CHECK(k == 1 && k2 == 0, "epoll ONESHOT: once, then disabled");
  epoll_ctl(ep, EPOLL_CTL_MOD, c, &e);
  CHECK(wait_ev(ep, ev, 1000) == 1, "epoll ONESHOT: EPOLL_CTL_MOD arms it again");
  char xb;
  if (read(c, &xb, 1) != 1) return 2;
  e.events = EPOLLIN | EPOLLRDHUP;
  epoll_ctl(ep, EPOLL_CTL_MOD, c, &e);

  /* sending (blocking from here) */
  int fl = fcntl(c, F_GETFL);
  CHECK(fl >= 0 && (fl & O_NONBLOCK), "accept4(SOCK_NONBLOCK): O_NONBLOCK set");
  int xr = ioctl(c, FIOCLEX), xf = fcntl(c, F_GETFD);
  CHECK(xr == 0 && xf >= 0 && (xf & FD_CLOEXEC), "ioctl(FIOCLEX) sets close-on-exec (libuv's way)");
  fcntl(c, F_SETFL, fl & ~O_NONBLOCK);
  int fds[1] = {pp[0]};
  char cm[CMSG_SPACE(sizeof fds)];
  struct iovec sv = {"z", 1};
  struct msghdr sm = {.msg_iov = &sv, .msg_iovlen = 1, .msg_control = cm, .msg_controllen = sizeof cm};
  struct cmsghdr *ch = CMSG_FIRSTHDR(&sm);
  ch->cmsg_level = SOL_SOCKET, ch->cmsg_type = SCM_RIGHTS, ch->cmsg_len = CMSG_LEN(sizeof fds);
  memcpy(CMSG_DATA(ch), fds, sizeof fds);
  r = sendmsg(c, &sm, 0);
  CHECK(r == -1 && errno == EOPNOTSUPP, "sendmsg with SCM_RIGHTS: EOPNOTSUPP, nothing sent");
  struct iovec gv[4] = {{"r", 1}, {"se", 2}, {"nt", 2}, {"o", 1}};   /* command, then data */
  struct msghdr gm = {.msg_iov = gv, .msg_iovlen = 4};
  CHECK(sendmsg(c, &gm, 0) == 6, "sendmsg: 4 iovecs gathered");
  CHECK(reply(c) == 'K', "the peer read them in order");
  struct sockaddr_in bogus = {.sin_family = AF_INET, .sin_port = htons(9), .sin_addr.s_addr = htonl(0x01020304)};
  CHECK(sendto(c, "rsento", 6, 0, (struct sockaddr *)&bogus, sizeof bogus) == 6,
        "sendto with an address on a connected socket: the address is ignored");
  CHECK(reply(c) == 'K', "the peer got those bytes");
  char path[] = "/tmp/shim_sem_XXXXXX";
  int f = mkstemp(path);
  unlink(path);
  for (int i = 0; i < FILE_BYTES; i++) {
    char b = (char)(i * 7 + i / 256);
    if (write(f, &b, 1) != 1) return 2;
  }
  uint32_t len = FILE_BYTES;
  m = 'f';
  if (write(c, &m, 1) != 1 || write(c, &len, 4) != 4) return 2;
  off_t fo = 0;
  size_t sent = 0;
  while (sent < FILE_BYTES) {
    ssize_t w = sendfile(c, f, &fo, FILE_BYTES - sent);
    if (w <= 0) break;
    sent += (size_t)w;
  }
  char rep = 0;
  CHECK(sent == FILE_BYTES && fo == FILE_BYTES && read_full(c, &rep, 1) == 0 && rep == 'K',
        "sendfile: %u bytes from a file, offset advanced, peer checked them", FILE_BYTES);
  struct tcp_info ti;
  socklen_t tl = sizeof ti;
  int mss = 0;
  socklen_t ml = sizeof mss;
  CHECK(getsockopt(c, IPPROTO_TCP, TCP_INFO, &ti, &tl) == 0 && ti.tcpi_state == 1 && ti.tcpi_snd_mss > 0 &&
        getsockopt(c, IPPROTO_TCP, TCP_MAXSEG, &mss, &ml) == 0 && mss > 0,
        "TCP_INFO (ESTABLISHED, mss %u) and TCP_MAXSEG (%d)", ti.tcpi_snd_mss, mss);
  m = 'h';
  if (write(c, &m, 1) != 1) return 2;
  k = wait_ev(ep, ev, 5000);
  CHECK(k == 1 && (ev[0].events & EPOLLRDHUP) && (ev[0].events & EPOLLIN), "epoll: EPOLLRDHUP at the peer's shutdown(SHUT_WR)");
  CHECK(read(c, &xb, 1) == 0, "read: end of file");
  close(c);

  /* fork: the child serves the next connection; the parent closes its copy at once */
  int c2 = accept(l, NULL, NULL);
  pid_t pid = fork();
  if (pid == 0) {
    char b[4];
    if (read_full(c2, b, 4) == 0) {
      for (int i = 0; i < 4; i++) b[i] = (char)(b[i] - 32);
      if (write(c2, b, 4) != 4) _exit(3);
    }
    close(c2);
    exit(0);                   /* exit, not _exit: the shim's exit path runs in the child */
  }
  close(c2);
  int st = -1;
  waitpid(pid, &st, 0);
  CHECK(c2 >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "fork: the child served the accepted connection and exited 0");

  /* fork with a connection waiting in the backlog (nginx: the master listens, a client
   * connects, then the master forks the workers and never accepts): the child accepts it */
  struct pollfd lp = {.fd = l, .events = POLLIN};
  int waiting = poll(&lp, 1, 10000) == 1 && (lp.revents & POLLIN);
  pid = fork();
  if (pid == 0) {
    struct pollfd cp = {.fd = l, .events = POLLIN};
    if (poll(&cp, 1, 5000) != 1) _exit(4);
    int c4 = accept(l, NULL, NULL);
    char b[4];
    if (c4 < 0 || read_full(c4, b, 4)) _exit(5);
    for (int i = 0; i < 4; i++) b[i] = (char)(b[i] - 32);
    if (write(c4, b, 4) != 4) _exit(6);
    close(c4);
    exit(0);
  }
  waitpid(pid, &st, 0);
  CHECK(waiting && WIFEXITED(st) && WEXITSTATUS(st) == 0,
        "fork with a connection in the backlog: the child accepted and served it (child exit %d)",
        WIFEXITED(st) ? WEXITSTATUS(st) : -1);

  /* exit() while another thread is blocked in recv on a SOVIA socket (below) */
  int c3 = accept(l, NULL, NULL);

  /* no connection comes meanwhile: a process that served one from the shared listener may
   * still be ending (its copy of the listener refuses while closing) */
  int offm, kids = postmaster(l, 60, &offm);
  CHECK(kids == 60 && offm == 0, "postmaster's signals: %d of 60 children reaped, forked from the SIGCHLD "
        "handler around select(), %d handled off the main thread", kids, offm);

  /* libuv (node) closes with syscall(SYS_close): the number then comes back as a pipe, whose
   * bytes must go through the kernel, not to the closed listener */
  long sc = syscall(SYS_close, l);
  int pq[2] = {-1, -1};
  char pb2 = 0;
  bool reused = pipe(pq) == 0 && (pq[0] == l || pq[1] == l);
  CHECK(sc == 0 && reused && write(pq[1], "z", 1) == 1 && read(pq[0], &pb2, 1) == 1 && pb2 == 'z',
        "syscall(SYS_close) of the listener: its number, now a pipe's (%d), is the kernel's", l);

  /* node's inspector thread has a 32 KiB stack: the shim's thread-local storage leaves room */
  pthread_attr_t sa32;
  pthread_attr_init(&sa32);
  pthread_attr_setstacksize(&sa32, 32768);
  pthread_t t32;
  int trc = pthread_create(&t32, &sa32, blocked_reader, &pq[0]);
  if (trc == 0 && write(pq[1], "y", 1) == 1) pthread_join(t32, NULL);
  CHECK(trc == 0, "a thread with a 32 KiB stack starts under the shim (%s)", strerror(trc));

  pthread_t t;
  pthread_create(&t, NULL, blocked_reader, &c3);
  usleep(200000);
  CHECK(c3 >= 0, "exit() with a thread blocked in recv (shim_sem.sh checks it exits)");
  exit(done());
}

static int client(const char *ip, unsigned port) {
  usleep(500000);              /* the server's first epoll_wait finds no connection */
  int c = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  inet_pton(AF_INET, ip, &a.sin_addr);
  CHECK(connect(c, (struct sockaddr *)&a, sizeof a) == 0, "client: connect");
  for (;;) {
    char m;
    if (read_full(c, &m, 1)) break;
    if (m == 'm') {
      struct iovec iv[3] = {{"hel", 3}, {"l", 1}, {"o", 1}};
      struct msghdr mh = {.msg_iov = iv, .msg_iovlen = 3};
      if (sendmsg(c, &mh, 0) != 5) return 2;
    } else if (m == 'w' || m == 'x') {
      if (write(c, m == 'w' ? "world" : "x", m == 'w' ? 5 : 1) < 1) return 2;
    } else if (m == 'r') {
      char b[5];
      char k = read_full(c, b, 5) == 0 && !memcmp(b, "sento", 5) ? 'K' : 'F';   /* both rounds */
      if (write(c, &k, 1) != 1) return 2;
    } else if (m == 'f') {
      uint32_t len;
      if (read_full(c, &len, 4)) return 2;
      char *b = malloc(len), k = 'K';
      if (!b || read_full(c, b, len)) return 2;
      for (uint32_t i = 0; i < len; i++)
        if (b[i] != (char)(i * 7 + i / 256)) k = 'F';
      free(b);
      if (write(c, &k, 1) != 1) return 2;
    } else if (m == 'h') {
      shutdown(c, SHUT_WR);
    }
  }
  close(c);
  int c2 = socket(AF_INET, SOCK_STREAM, 0);
  char b[5] = "";
  CHECK(connect(c2, (struct sockaddr *)&a, sizeof a) == 0 && write(c2, "ping", 4) == 4 &&
        read_full(c2, b, 4) == 0 && !memcmp(b, "PING", 4) && read(c2, b, 1) == 0,
        "client: the forked child answered, then end of file");
  close(c2);
  c2 = socket(AF_INET, SOCK_STREAM, 0);
  memset(b, 0, sizeof b);
  CHECK(connect(c2, (struct sockaddr *)&a, sizeof a) == 0 && write(c2, "pong", 4) == 4 &&
        read_full(c2, b, 4) == 0 && !memcmp(b, "PONG", 4) && read(c2, b, 1) == 0,
        "client: a connection made before the server forked was answered by its child");
  close(c2);
  int c3 = socket(AF_INET, SOCK_STREAM, 0);
  int cr = connect(c3, (struct sockaddr *)&a, sizeof a), ce = errno;
  ssize_t rr = cr == 0 ? read(c3, b, 1) : 0;
  CHECK(cr == 0 && rr <= 0, "client: the exiting server's connection ends (EOF or reset) (connect: %s, read %zd)",
        cr ? strerror(ce) : "ok", rr);
  return done();
}

/* `shim_sem exitsig PORT USEC`: a non-blocking listener's accept and getsockname in a loop
 * (each takes the shim's lock) until SIGALRM, USEC microseconds in, whose handler calls
 * exit(): the shim's exit path must not wait for the lock the interrupted call holds. Exits
 * 0, or hangs. */
static void on_alarm(int sig) {
  (void)sig;
  exit(0);
}

static int exitsig(unsigned port, long usec) {
  int l = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  if (bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 4)) return 2;
  signal(SIGALRM, on_alarm);
  struct itimerval it = {{0, 0}, {usec / 1000000, usec % 1000000}};
  setitimer(ITIMER_REAL, &it, NULL);
  fcntl(l, F_SETFL, O_NONBLOCK);
  for (;;) {
    struct sockaddr_in n;
    socklen_t nl = sizeof n;
    accept(l, NULL, NULL);
    getsockname(l, (struct sockaddr *)&n, &nl);
  }
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "server")) return server((unsigned)atoi(argv[2]));
  if (argc == 4 && !strcmp(argv[1], "exitsig")) return exitsig((unsigned)atoi(argv[2]), atol(argv[3]));
  if (argc == 4 && !strcmp(argv[1], "client")) return client(argv[2], (unsigned)atoi(argv[3]));
  fprintf(stderr, "usage: shim_sem server PORT | shim_sem client ADDR PORT | shim_sem exitsig PORT USEC\n");
  return 2;
}
