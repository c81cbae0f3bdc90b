/* test_sovia_sem.c: SOVIA socket semantics with real processes over a private nicd:
 * - w = 1 (the paper's SOVIA_BASE): at most one DATA unacknowledged (SOVIA_SO_INFLIGHT_MAX),
 *   the stream intact; w = 32 does run ahead;
 * - a receiver that does not read stops a non-blocking sender (EAGAIN) after the window (its
 *   DATA wait in their descriptors, and FIONREAD counts them), not after everything it sent;
 *   the stream then arrives intact; a peer killed after sending: what arrived and was not
 *   read yet is counted by FIONREAD and read whole, then ECONNRESET;
 * - non-blocking connect: EINPROGRESS, not writable and EAGAIN while connecting, POLLOUT and
 *   SO_ERROR 0 once connected, connect() again: 0 then EISCONN; a connection beyond a full
 *   backlog waits (still in progress after 1 s, as a kernel's full accept queue makes it
 *   wait), and when the listener closes it reports POLLERR and SO_ERROR ECONNREFUSED;
 * - a send buffer overwritten the moment send() returns still delivers the bytes it held
 *   (registered sends, their copied last 128 KB, a stack buffer; w = 32, w = 1, threshold 0);
 * - recv() into a buffer the engine fills directly: MSG_WAITALL across many DATA and past
 *   DATA held while the ring was full (the order kept), and a blocking MSG_PEEK that consumes
 *   nothing;
 * - SO_RCVTIMEO and SO_SNDTIMEO (read back as set): accept and recv end with EAGAIN after
 *   about the timeout and then take what comes; a send to a peer that does not read returns
 *   what it queued (or EAGAIN) after its timeout instead of blocking, and the peer reads
 *   exactly that; a byte sent right after connect, before the peer's WAKEUP, leaves while
 *   its sender sleeps;
 * - combining: a small send nothing follows goes out when its timer (1 ms) expires, whether
 *   the close thread is asleep for long or already due to look (it is not woken then); one on
 *   an idle connection leaves at once (as with Nagle's algorithm), whatever the timer.
 * Prints "N passed, N failed". */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hostif.h"
#include "sovia.h"
#include "svtest.h"

#include "../check.h"

struct sem { unsigned port; uint64_t n; unsigned lo, hi; };

/* ---- the window ---- */
static int srv_recv(void *p) {
  struct sem *x = p;
  int l = listen_on(x->port), s = sovia_accept(l, NULL, NULL);
  if (s < 0) return 10;
  if (recv_stream(s, x->n, 3, true)) return 11;
  sovia_close(s);
  sovia_close(l);
  return 0;
}

static int cli_window(void *p) {
  struct sem *x = p;
  int s = connect_to(x->port);
  if (s < 0) return 30;
  if (send_stream(s, x->n, 3, 4096)) return 31;
  int w = 0, mx = 0;
  socklen_t len = sizeof w;
  if (sovia_getsockopt(s, SOL_SOVIA, SOVIA_SO_W, &w, &len)) return 32;
  len = sizeof mx;
  if (sovia_getsockopt(s, SOL_SOVIA, SOVIA_SO_INFLIGHT_MAX, &mx, &len)) return 33;
  printf("  w=%s: effective window %d, at most %d packets unacknowledged\n", getenv("SOVIA_W"),
         w, mx);
  sovia_close(s);
  return (unsigned)mx >= x->lo && (unsigned)mx <= x->hi ? 0 : 34;
}

/* ---- the combining timer ---- */
/* Each message carries the sender's clock; gaps of 0.3-30 ms between them find the close
 * thread due within the period (no wake-up) or asleep for long (woken). */
static const unsigned comb_gap_us[] = {0, 300, 1500, 2500, 20000, 30000, 1200, 500};
#define NCOMB (sizeof comb_gap_us / sizeof comb_gap_us[0])

static int recv_exact(int s, void *b, size_t n) {
  for (size_t got = 0; got < n;) {
    ssize_t r = sovia_recv(s, (uint8_t *)b + got, n - got, 0);
    if (r <= 0) return -1;
    got += (size_t)r;
  }
  return 0;
}

static int srv_comb(void *p) {
  struct sem *x = p;
  int l = listen_on(x->port), s = sovia_accept(l, NULL, NULL);
  if (s < 0) return 10;
  double worst = 0;
  for (unsigned i = 0; i < NCOMB; i++) {
    double sent;
    if (recv_exact(s, &sent, sizeof sent)) return 11;
    double late = now_s() - sent;
    if (late > worst) worst = late;
  }
  printf("  combining: the longest a lone small send took to arrive: %.1f ms\n", worst * 1e3);
  uint8_t b = 1;
  if (write_all(s, &b, 1)) return 12;
  sovia_close(s);
  sovia_close(l);
  return worst < 0.05 ? 0 : 13;
}

static int cli_comb(void *p) {
  struct sem *x = p;
  int s = connect_to(x->port);
  if (s < 0) return 30;
  for (unsigned i = 0; i < NCOMB; i++) {
    usleep(comb_gap_us[i]);
    double t = now_s();
    if (sovia_send(s, &t, sizeof t, 0) != (ssize_t)sizeof t) return 31;   /* combined */
  }
  uint8_t b;
  if (sovia_recv(s, &b, 1, 0) != 1) return 32;
  sovia_close(s);
  return 0;
}

/* A small send on an idle connection leaves at once, as with Nagle's algorithm, not when the
 * combining timer (here 10 s) expires: the client polls for the reply, which does not flush. */
static int srv_idle_send(void *p) {
  struct sem *x = p;
  int l = listen_on(x->port), s = sovia_accept(l, NULL, NULL);
  if (s < 0) return 10;
  uint64_t v;
  if (recv_exact(s, &v, sizeof v) || v != 0x5eed) return 11;
  uint8_t b = 1;
  if (write_all(s, &b, 1)) return 12;
  if (sovia_recv(s, &b, 1, 0) != 0) return 13;   /* the client's close */
  sovia_close(s);
  sovia_close(l);
  return 0;
}

static int cli_idle_send(void *p) {
  struct sem *x = p;
  int s = connect_to(x->port);
  if (s < 0) return 30;
  unsigned us = 10000000;
  if (sovia_setsockopt(s, SOL_SOVIA, SOVIA_SO_COMBINE_US, &us, sizeof us)) return 31;
  uint64_t v = 0x5eed;
  if (sovia_send(s, &v, sizeof v, 0) != (ssize_t)sizeof v) return 32;
  struct pollfd pf = {.fd = s, .events = POLLIN};
  if (sovia_poll(&pf, 1, 5000) != 1) return 33;   /* held in its slot: no reply in 5 s */
  uint8_t b;
  if (sovia_recv(s, &b, 1, 0) != 1) return 34;
  sovia_close(s);
  return 0;
}

/* ---- the receive ring's bound ---- */
static int srv_late_reader(void *p) {
  struct sem *x = p;
  int l = listen_on(x->port), s = sovia_accept(l, NULL, NULL);
  if (s < 0) return 10;
  sleep(2);                   /* the client fills what SOVIA lets it */
  int pending = sovia_nread(s);   /* the held DATA (16 KB writes: DATA of 16 KB or more) */
  if (pending < 16384) {
    fprintf(stderr, "  FIONREAD with the window held: %d\n", pending);
    return 12;
  }
  if (recv_stream(s, x->n, 4, true)) return 11;
  sovia_close(s);
  sovia_close(l);
  return 0;
}

static int cli_until_blocked(void *p) {
  struct sem *x = p;
  int s = connect_to(x->port);
  if (s < 0) return 30;
  sovia_fcntl(s, F_SETFL, O_NONBLOCK);
  uint8_t *b = malloc(16384);
  uint64_t off = 0;
  double idle_since = now_s();
  while (off < x->n && now_s() - idle_since < 0.5) {   /* until half a second without room */
    size_t k = x->n - off < 16384 ? (size_t)(x->n - off) : 16384;
    for (size_t i = 0; i < k; i++) b[i] = pat(off + i, 4);
    ssize_t w = sovia_send(s, b, k, 0);
    if (w > 0) {
      off += (uint64_t)w;
      idle_since = now_s();
    } else if (w < 0 && errno == EAGAIN) {
      struct pollfd pf = {.fd = s, .events = POLLOUT};
      sovia_poll(&pf, 1, 20);
    } else {
      return 31;
    }
  }
  printf("  a receiver that does not read: the sender stopped after %llu bytes\n",
         (unsigned long long)off);
  int rc = off <= x->hi ? 0 : 32;
  sovia_fcntl(s, F_SETFL, 0);
  while (off < x->n) {        /* the rest, blocking, as the receiver reads */
    size_t k = x->n - off < 16384 ? (size_t)(x->n - off) : 16384;
    for (size_t i = 0; i < k; i++) b[i] = pat(off + i, 4);
    if (write_all(s, b, k)) return 33;
    off += k;
  }
  free(b);
  sovia_close(s);
  return rc;
}

/* ---- non-blocking connect ---- */
static int srv_hold(void *p) {   /* backlog 1, never accepts, closes after 4 s */
  struct sem *x = p;
  int l = sovia_socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = addr_of("10.77.0.1", x->port);
  if (l < 0 || sovia_bind(l, (struct sockaddr *)&a, sizeof a) || sovia_listen(l, 1)) return 10;
  sleep(4);
  sovia_close(l);
  return 0;
}

static int nb_connect(unsigned port, int *err) {
  int s = sovia_socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  struct sockaddr_in a = addr_of("10.77.0.1", port);
  *err = 0;
  for (int i = 0; i < 200; i++) {   /* until the server listens */
    if (sovia_connect(s, (struct sockaddr *)&a, sizeof a) == 0) return s;
    *err = errno;
    if (errno != ECONNREFUSED) break;
    usleep(10000);
  }
  return s;
}

static int cli_nonblock(void *p) {
  struct sem *x = p;
  int err;
  int s = nb_connect(x->port, &err);
  if (err != EINPROGRESS) return 30;
  struct pollfd pf = {.fd = s, .events = POLLOUT};
  if (sovia_poll(&pf, 1, 10000) != 1 || !(pf.revents & POLLOUT) || (pf.revents & POLLERR)) return 31;
  int so = -1;
  socklen_t len = sizeof so;
  if (sovia_getsockopt(s, SOL_SOCKET, SO_ERROR, &so, &len) || so != 0) return 32;
  struct sockaddr_in a = addr_of("10.77.0.1", x->port);
  if (sovia_connect(s, (struct sockaddr *)&a, sizeof a) != 0) return 33;
  if (sovia_connect(s, (struct sockaddr *)&a, sizeof a) != -1 || errno != EISCONN) return 34;
  /* the second: the listener's backlog (1) is full, so it waits; the listener's close
   * refuses it */
  int s2 = nb_connect(x->port, &err);
  if (err != EINPROGRESS) return 35;
  if (sovia_connect(s2, (struct sockaddr *)&a, sizeof a) != -1 || errno != EALREADY) return 36;
  pf = (struct pollfd){.fd = s2, .events = POLLOUT};
  if (sovia_poll(&pf, 1, 1000) != 0) return 40;
  if (sovia_poll(&pf, 1, 10000) != 1 || !(pf.revents & POLLERR)) return 37;
  so = 0;
  len = sizeof so;
  if (sovia_getsockopt(s2, SOL_SOCKET, SO_ERROR, &so, &len) || so != ECONNREFUSED) return 38;
  len = sizeof so;
  if (sovia_getsockopt(s2, SOL_SOCKET, SO_ERROR, &so, &len) || so != 0) return 39;   /* once */
  sovia_close(s2);
  sovia_close(s);
  return 0;
}

/* ---- the send buffer belongs to the application again when send() returns ---- */
static const size_t reuse_sizes[] = {32768, 32769, 40000, 65536, 3000, 100000, 200000,
                                     (1u << 20) + 5, 32768};
#define NREUSE (sizeof reuse_sizes / sizeof reuse_sizes[0])
#define REUSE_ROUNDS 6
#define STACK_MSG 40000

static uint64_t reuse_total(void) {
  uint64_t n = 0;
  for (size_t i = 0; i < NREUSE; i++) n += reuse_sizes[i] + STACK_MSG;
  return n * REUSE_ROUNDS;
}

static int srv_reuse(void *p) {
  struct sem *x = p;
  int l = listen_on(x->port), s = sovia_accept(l, NULL, NULL);
  if (s < 0) return 10;
  if (recv_stream(s, reuse_total(), 5, true)) return 11;
  sovia_close(s);
  sovia_close(l);
  return 0;
}

/* One blocking send of b[0..k) holding stream bytes off..off+k, then the buffer poisoned. */
static int send_poison(int s, uint8_t *b, size_t k, uint64_t off) {
  for (size_t i = 0; i < k; i++) b[i] = pat(off + i, 5);
  ssize_t w = sovia_send(s, b, k, 0);
  memset(b, 0xEE, k);
  return w == (ssize_t)k ? 0 : -1;
}

static int cli_reuse(void *p) {
  struct sem *x = p;
  int s = connect_to(x->port);
  if (s < 0) return 30;
  uint8_t *b = malloc((1u << 20) + 5), st[STACK_MSG];   /* st: registration fails, copied */
  uint64_t off = 0;
  for (int r = 0; r < REUSE_ROUNDS; r++)
    for (size_t i = 0; i < NREUSE; i++) {
      if (send_poison(s, b, reuse_sizes[i], off)) return 31;
      off += reuse_sizes[i];
      if (send_poison(s, st, STACK_MSG, off)) return 32;
      off += STACK_MSG;
    }
  free(b);
  sovia_close(s);
  return 0;
}

/* ---- recv() into the application's buffer ---- */
#define WAITALL_MSG 100000u
#define WAITALL_N 64u

static int srv_waitall(void *p) {
  struct sem *x = p;
  int l = listen_on(x->port), s = sovia_accept(l, NULL, NULL);
  if (s < 0) return 10;
  static uint8_t b[WAITALL_MSG];
  uint8_t peek[8];
  /* the client sends only after our byte: this blocking peek waits on an empty ring */
  if (write_all(s, (const uint8_t *)"g", 1)) return 11;
  if (sovia_recv(s, peek, sizeof peek, MSG_PEEK) <= 0) return 12;
  /* with a 64 KB ring, DATA waits in descriptors meanwhile: a read that empties the ring
   * lets them in before it waits for more */
  usleep(300000);
  for (unsigned m = 0; m < WAITALL_N; m++) {
    ssize_t got = sovia_recv(s, b, WAITALL_MSG, MSG_WAITALL);
    if (got != (ssize_t)WAITALL_MSG) {
      fprintf(stderr, "  read %u: %zd bytes\n", m, got);
      return 13;
    }
    for (size_t i = 0; i < WAITALL_MSG; i++)
      if (b[i] != pat((uint64_t)m * WAITALL_MSG + i, 6)) {
        fprintf(stderr, "  read %u: mismatch at byte %zu\n", m, i);
        return 14;
      }
    if (m == 0 && memcmp(peek, b, sizeof peek)) return 15;   /* the peek consumed nothing */
  }
  if (sovia_recv(s, b, 1, 0) != 0) return 16;
  sovia_close(s);
  sovia_close(l);
  return 0;
}

static int cli_waitall(void *p) {
  struct sem *x = p;
  int s = connect_to(x->port);
  char go;
  if (s < 0 || sovia_recv(s, &go, 1, 0) != 1) return 30;
  usleep(100000);             /* the server is in its peek by now */
  if (send_stream(s, (uint64_t)WAITALL_MSG * WAITALL_N, 6, 32768)) return 31;
  sovia_close(s);
  return 0;
}

/* ---- a connection that breaks keeps what arrived ---- */
#define KEEP_BYTES (3 * 32768 + 1000)

static int srv_keep(void *p) {
  struct sem *x = p;
  int l = listen_on(x->port), s = sovia_accept(l, NULL, NULL);
  if (s < 0) return 10;
  sleep(1);                   /* the client sends, then is killed: its DATA wait unread */
  if (sovia_nread(s) != KEEP_BYTES) return 13;   /* FIONREAD counts them */
  if (recv_stream(s, KEEP_BYTES, 5, false)) return 11;
  char b;
  if (sovia_recv(s, &b, 1, 0) != -1 || errno != ECONNRESET) return 12;
  sovia_close(s);
  sovia_close(l);
  return 0;
}

static int cli_keep(void *p) {
  struct sem *x = p;
  pid_t k = fork();
  if (k == 0) {
    int s = connect_to(x->port);
    if (s < 0 || send_stream(s, KEEP_BYTES, 5, 0)) _exit(30);
    raise(SIGKILL);
  }
  int st;
  if (k < 0 || waitpid(k, &st, 0) != k) return 31;
  return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? 0 : 32;
}

/* ---- SO_RCVTIMEO / SO_SNDTIMEO ---- */
static uint64_t ms_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static int set_timeo(int s, int name, long ms) {
  struct timeval tv = {ms / 1000, (ms % 1000) * 1000}, back;
  socklen_t len = sizeof back;
  if (sovia_setsockopt(s, SOL_SOCKET, name, &tv, sizeof tv)) return -1;
  if (sovia_getsockopt(s, SOL_SOCKET, name, &back, &len)) return -1;
  return back.tv_sec == tv.tv_sec && back.tv_usec == tv.tv_usec ? 0 : -1;
}

/* A call that timed out: -1 with EAGAIN after 150 ms to 2 s (a 200 ms timeout). */
static bool timed_out(ssize_t r, uint64_t t0) {
  uint64_t el = ms_now() - t0;
  return r == -1 && errno == EAGAIN && el >= 150 && el < 2000;
}

#define TIMEO_SEND (8u << 20)

static int srv_timeo(void *p) {
  struct sem *x = p;
  int l = listen_on(x->port);
  if (l < 0 || set_timeo(l, SO_RCVTIMEO, 200)) return 10;
  uint64_t t0 = ms_now();
  if (!timed_out(sovia_accept(l, NULL, NULL), t0)) return 11;   /* the client comes at 600 ms */
  int s;
  while ((s = sovia_accept(l, NULL, NULL)) < 0)
    if (errno != EAGAIN || ms_now() - t0 > 5000) return 12;
  if (set_timeo(s, SO_RCVTIMEO, 200)) return 13;
  char b;
  t0 = ms_now();
  if (!timed_out(sovia_recv(s, &b, 1, 0), t0)) return 14;   /* its byte comes after 1 s */
  ssize_t r;
  while ((r = sovia_recv(s, &b, 1, 0)) != 1)   /* sent before our WAKEUP was in: it leaves */
    if (r != -1 || errno != EAGAIN || ms_now() - t0 > 3000) return 15;   /* though its sender sleeps */
  if (set_timeo(s, SO_SNDTIMEO, 200)) return 16;
  static uint8_t big[TIMEO_SEND];
  t0 = ms_now();
  r = sovia_send(s, big, sizeof big, 0);   /* the client reads nothing */
  uint64_t el = ms_now() - t0;
  printf("  SO_SNDTIMEO 200 ms: send of %u bytes returned %zd after %llu ms\n", TIMEO_SEND, r,
         (unsigned long long)el);
  if (!((r > 0 && (size_t)r < sizeof big) || (r == -1 && errno == EAGAIN)) || el >= 3000) return 17;
  sovia_close(s);
  sovia_close(l);
  return 0;
}

static int cli_timeo(void *p) {
  struct sem *x = p;
  usleep(600000);
  int s = connect_to(x->port);
  if (s < 0) return 30;
  sleep(1);
  if (sovia_send(s, "x", 1, 0) != 1) return 31;
  sleep(4);                   /* reads nothing while the server's send times out */
  static char b[1 << 16];
  size_t got = 0;
  ssize_t k;
  while ((k = sovia_recv(s, b, sizeof b, 0)) > 0) got += (size_t)k;   /* what the send queued */
  if (k != 0 || got == 0 || got >= TIMEO_SEND) return 32;
  sovia_close(s);
  return 0;
}

/* ---- issue 16: a listener's close() with the NIC's VI table full ---- */
#define VI_CONNS ((int)HOSTIF_NVI - 1)

static int srv_full(void *p) {
  struct sem *x = p;
  int l = listen_on(x->port), c[VI_CONNS];
  if (l < 0) return 10;
  for (int i = 0; i < VI_CONNS; i++)
    if ((c[i] = sovia_accept(l, NULL, NULL)) < 0) return 11;
  char go;
  if (sovia_recv(c[0], &go, 1, 0) != 1) return 12;   /* the client's next connect failed */
  double t0 = now_s();
  sovia_close(l);             /* every VI is taken: its connection thread cannot be woken */
  double t = now_s() - t0;
  if (t > 2.0) {
    fprintf(stderr, "  close of the listener took %.2f s\n", t);
    return 13;
  }
  for (int i = 0; i < VI_CONNS; i++) sovia_close(c[i]);
  return 0;
}

static int cli_full(void *p) {
  struct sem *x = p;
  int c[VI_CONNS];
  for (int i = 0; i < VI_CONNS; i++)
    if ((c[i] = connect_to(x->port)) < 0) return 30;
  int s = sovia_socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = addr_of("10.77.0.1", x->port);
  if (sovia_connect(s, (struct sockaddr *)&a, sizeof a) == 0) return 31;   /* no VI left */
  if (errno != EMFILE) fprintf(stderr, "  16th connect: %s\n", strerror(errno));
  sovia_close(s);
  if (write_all(c[0], (const uint8_t *)"g", 1)) return 32;
  char b;
  if (sovia_recv(c[0], &b, 1, 0) != 0) return 33;   /* the server closed */
  for (int i = 0; i < VI_CONNS; i++) sovia_close(c[i]);
  return 0;
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  unsigned port = 4000;
  CHECK(svt_setup("sem") == 0, "nicd did not start");

  setenv("SOVIA_W", "1", 1);
  setenv("SOVIA_T", "1", 1);
  struct sem w1 = {port++, 1u << 20, 1, 1};
  CHECK(run_pair(srv_recv, cli_window, &w1, 60), "w=1: one DATA in flight, 1 MB intact");
  setenv("SOVIA_W", "32", 1);
  setenv("SOVIA_T", "16", 1);
  struct sem w32 = {port++, 1u << 20, 2, 32};
  CHECK(run_pair(srv_recv, cli_window, &w32, 60), "w=32: more than one DATA in flight");
  unsetenv("SOVIA_T");

  /* w = 4: at most 4 held DATA + 6 send slots of 32 KB could be taken (DATA wait in their
   * descriptors until read; the 64 KB ring takes nothing from a receiver that does not read). */
  setenv("SOVIA_W", "4", 1);
  setenv("SOVIA_RCVBUF", "65536", 1);
  struct sem rb = {port++, 8u << 20, 0, (4 + 6) * 32768};
  CHECK(run_pair(srv_late_reader, cli_until_blocked, &rb, 60),
        "a receiver that does not read stops the sender after the window; stream intact");
  unsetenv("SOVIA_W");
  unsetenv("SOVIA_RCVBUF");

  struct sem nb = {port++, 0, 0, 0};
  CHECK(run_pair(srv_hold, cli_nonblock, &nb, 60),
        "non-blocking connect: EINPROGRESS, POLLOUT, SO_ERROR; refused: POLLERR, ECONNREFUSED");

  static const struct { const char *what, *env[3]; } reuse[] = {
      {"w=32 t=16 (defaults)", {NULL}},
      {"copy threshold 0", {"SOVIA_COPY_THRESHOLD=0", NULL}},
      {"w=1 t=1", {"SOVIA_W=1", "SOVIA_T=1", NULL}},
  };
  for (size_t i = 0; i < sizeof reuse / sizeof reuse[0]; i++) {
    for (size_t e = 0; reuse[i].env[e]; e++) putenv((char *)reuse[i].env[e]);
    struct sem ru = {port++, 0, 0, 0};
    CHECK(run_pair(srv_reuse, cli_reuse, &ru, 90),
          "%s: a send buffer overwritten as send() returns delivers what it held", reuse[i].what);
    unsetenv("SOVIA_COPY_THRESHOLD");
    unsetenv("SOVIA_W");
    unsetenv("SOVIA_T");
  }

  setenv("SOVIA_RCVBUF", "65536", 1);
  struct sem wa = {port++, 0, 0, 0};
  CHECK(run_pair(srv_waitall, cli_waitall, &wa, 60),
        "recv: MSG_WAITALL across many DATA and held DATA, a blocking MSG_PEEK consumes nothing");
  unsetenv("SOVIA_RCVBUF");

  struct sem comb = {port++, 0, 0, 0};
  CHECK(run_pair(srv_comb, cli_comb, &comb, 60),
        "combining: a lone small send arrives within its timer (close thread asleep or due)");

  struct sem idle = {port++, 0, 0, 0};
  CHECK(run_pair(srv_idle_send, cli_idle_send, &idle, 60),
        "combining: a small send on an idle connection leaves at once (timer 10 s, reply polled)");

  struct sem keep = {port++, 0, 0, 0};
  CHECK(run_pair(srv_keep, cli_keep, &keep, 60),
        "a peer killed after sending: its bytes, unread when the connection broke, are counted "
        "by FIONREAD and read whole, then ECONNRESET");

  struct sem timeo = {port++, 0, 0, 0};
  CHECK(run_pair(srv_timeo, cli_timeo, &timeo, 60),
        "SO_RCVTIMEO ends accept and recv with EAGAIN, SO_SNDTIMEO a send to a peer not reading");

  struct sem full = {port++, 0, 0, 0};
  CHECK(run_pair(srv_full, cli_full, &full, 60),
        "the NIC's VIs all taken: the 16th connect fails, the listener's close returns at once");

  svt_teardown();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
