/* test_sovia_lib.c: SOVIA with real processes. Starts nicd (two NICs, private run directory,
 * window names and hosts file mapping 10.77.0.1 -> node 0, 10.77.0.2 -> node 1), then runs
 * servers on NIC 0 and clients on NIC 1 as separate processes: byte streams of 1 B to 32 MB
 * (and 100 MB) checked byte by byte with random partial reads (among them back-to-back 32 KB
 * sends, whose order and content the pipelined send path must keep), the paper's configurations
 * (BASE, FLOWCNTL, COPY, REG, combining), several connections at once through sovia_poll,
 * close from either side or both, a refused connection, a peer killed mid-transfer (an
 * error within seconds, never a hang), and the same for a connection a fork's child took over
 * from its parent (the child killed; the parent killed first, which must not break it). Every child runs under alarm(). Prints
 * "N passed, N failed". */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sovia.h"
#include "svtest.h"

#include "../check.h"

static unsigned port_base;

/* ---- streams ---- */
struct xfer { unsigned port; uint64_t n; unsigned seed; size_t piece; int close_mode; };

static int srv_stream(void *p) {
  struct xfer *x = p;
  int l = listen_on(x->port);
  if (l < 0) return 10;
  int s = sovia_accept(l, NULL, NULL);
  if (s < 0) return 11;
  int rc = recv_stream(s, x->n, x->seed, true);
  if (rc) return 20 - rc;
  uint32_t ok = 0x600d;
  if (write_all(s, (uint8_t *)&ok, sizeof ok)) return 13;
  sovia_close(s);
  sovia_close(l);
  return 0;
}

static int cli_stream(void *p) {
  struct xfer *x = p;
  int s = connect_to(x->port);
  if (s < 0) return 30;
  if (send_stream(s, x->n, x->seed, x->piece)) return 31;
  if (sovia_shutdown(s, SHUT_WR)) return 32;
  uint32_t ok = 0;
  if (sovia_recv(s, &ok, sizeof ok, MSG_WAITALL) != sizeof ok || ok != 0x600d) return 33;
  ssize_t eof = sovia_recv(s, &ok, 1, 0);
  if (eof != 0) {
    fprintf(stderr, "  end-of-file read gave %zd (%s)\n", eof, strerror(errno));
    return 34;
  }
  sovia_close(s);
  return 0;
}

static const char *only;   /* run only the streams whose name contains this */

static void t_stream(uint64_t n, size_t piece, const char *what) {
  static unsigned k;
  if (only && !strstr(what, only)) {
    k++;
    return;
  }
  struct xfer x = {port_base + k++, n, 1000 + k, piece, 0};
  double t0 = now_s();
  bool ok = run_pair(srv_stream, cli_stream, &x, 90);
  double dt = now_s() - t0;
  CHECK(ok, "stream %s of %llu bytes", what, (unsigned long long)n);
  if (ok && n >= (1u << 20))
    printf("  %s: %llu bytes in %.2f s (%.0f MB/s)\n", what, (unsigned long long)n, dt,
           (double)n / dt / 1e6);
}

/* ---- several connections at once ---- */
#define NCONN 6
static int srv_multi(void *p) {
  struct xfer *x = p;
  int l = listen_on(x->port);
  if (l < 0) return 10;
  int s[NCONN];
  uint64_t got[NCONN] = {0};
  bool done[NCONN] = {0};
  for (int i = 0; i < NCONN; i++)
    if ((s[i] = sovia_accept(l, NULL, NULL)) < 0) return 11;
  uint8_t *b = malloc(65536);
  int left = NCONN, bad = 0;
  while (left) {
    struct pollfd pf[NCONN];
    for (int i = 0; i < NCONN; i++) pf[i] = (struct pollfd){.fd = done[i] ? -1 : s[i], .events = POLLIN};
    if (sovia_poll(pf, NCONN, 10000) <= 0) return 12;
    for (int i = 0; i < NCONN; i++) {
      if (done[i] || !(pf[i].revents & POLLIN)) continue;
      ssize_t r = sovia_recv(s[i], b, 65536, 0);
      if (r < 0) return 13;
      if (r == 0) {
        done[i] = true;
        left--;
        if (got[i] != x->n) bad++;
        uint32_t ok = 0x600d;
        write_all(s[i], (uint8_t *)&ok, 4);
        sovia_close(s[i]);
        continue;
      }
      /* each client's first byte names its seed; the rest follows the stream */
      for (ssize_t j = 0; j < r; j++)
        if (b[j] != pat(got[i] + (uint64_t)j, 77)) bad++;
      got[i] += (uint64_t)r;
    }
  }
  free(b);
  sovia_close(l);
  return bad ? 14 : 0;
}

static int cli_multi(void *p) {
  struct xfer *x = p;
  pid_t kids[NCONN];
  for (int i = 0; i < NCONN; i++) {
    if ((kids[i] = fork()) == 0) {
      int s = connect_to(x->port);
      if (s < 0) _exit(30);
      if (send_stream(s, x->n, 77, 0)) _exit(31);
      sovia_shutdown(s, SHUT_WR);
      uint32_t ok = 0;
      if (sovia_recv(s, &ok, 4, MSG_WAITALL) != 4 || ok != 0x600d) _exit(32);
      sovia_close(s);
      exit(0);
    }
  }
  int bad = 0;
  for (int i = 0; i < NCONN; i++) {
    int st;
    waitpid(kids[i], &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st)) bad++;
  }
  return bad ? 40 : 0;
}

/* ---- close from either side or both ---- */
static int srv_close(void *p) {
  struct xfer *x = p;
  int l = listen_on(x->port);
  int s = sovia_accept(l, NULL, NULL);
  if (s < 0) return 11;
  if (recv_stream(s, x->n, 5, false)) return 12;
  if (send_stream(s, x->n, 6, 0)) return 13;
  if (x->close_mode == 1) {              /* server closes first, then the client does */
    sovia_close(s);
  } else {                               /* the client closes first (mode 0), or both */
    if (x->close_mode == 0) {
      char c;
      if (sovia_recv(s, &c, 1, 0) != 0) return 14;
    }
    sovia_close(s);
  }
  sovia_close(l);
  return 0;
}

static int cli_close(void *p) {
  struct xfer *x = p;
  int s = connect_to(x->port);
  if (s < 0) return 30;
  if (send_stream(s, x->n, 5, 0)) return 31;
  if (recv_stream(s, x->n, 6, false)) return 32;
  if (x->close_mode == 1) {
    char c;
    if (sovia_recv(s, &c, 1, 0) != 0) return 33;
  }
  sovia_close(s);
  return 0;
}

/* ---- a peer killed mid-transfer ---- */
static int srv_sink(void *p) {
  struct xfer *x = p;
  int l = listen_on(x->port);
  int s = sovia_accept(l, NULL, NULL);
  if (s < 0) return 11;
  uint8_t b[4096];
  for (;;)
    if (sovia_recv(s, b, sizeof b, 0) <= 0) return 12;
}

static int cli_flood_until_error(void *p) {
  struct xfer *x = p;
  int s = connect_to(x->port);
  if (s < 0) return 30;
  uint8_t *b = calloc(1, 65536);
  for (;;) {
    ssize_t w = sovia_send(s, b, 65536, 0);
    if (w < 0) return errno == ECONNRESET || errno == EPIPE ? 0 : 31;
  }
}

static void t_killed(bool kill_receiver) {
  struct xfer x = {port_base + 900 + kill_receiver, 0, 0, 0, 0};
  pid_t ps = fork();
  if (ps == 0) {
    alarm(60);
    use_nic(0);
    exit(kill_receiver ? srv_sink(&x) : 0);
  }
  if (!kill_receiver) {   /* the sender dies: a server reading must see an error */
    waitpid(ps, NULL, 0);
    ps = fork();
    if (ps == 0) {
      alarm(60);
      use_nic(0);
      int l = listen_on(x.port), s = sovia_accept(l, NULL, NULL);
      uint8_t b[4096];
      ssize_t r;
      while ((r = sovia_recv(s, b, sizeof b, 0)) > 0) {}
      _exit(r < 0 && errno == ECONNRESET ? 0 : 50);
    }
    pid_t pc = fork();
    if (pc == 0) {
      use_nic(1);
      int s = connect_to(x.port);
      uint8_t *b = calloc(1, 65536);
      for (;;) sovia_send(s, b, 65536, 0);
    }
    usleep(500000);
    kill(pc, SIGKILL);
    waitpid(pc, NULL, 0);
    double t0 = now_s();
    int st;
    waitpid(ps, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "receiver of a killed sender: status %d", st);
    CHECK(now_s() - t0 < 10, "receiver noticed in %.1f s", now_s() - t0);
    return;
  }
  pid_t pc = fork();
  if (pc == 0) {
    alarm(60);
    use_nic(1);
    exit(cli_flood_until_error(&x));
  }
  usleep(500000);
  kill(ps, SIGKILL);
  waitpid(ps, NULL, 0);
  double t0 = now_s();
  int st;
  waitpid(pc, &st, 0);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "sender to a killed receiver: status %d", st);
  CHECK(now_s() - t0 < 10, "sender noticed in %.1f s", now_s() - t0);
}

/* ---- a connection a fork's child took over, the child or its parent killed ---- */
static int fork_pipe[2];

/* Accepts one connection (its VI made by the connection thread), forks a child that sends
 * until it fails (its first send claims the connection), closes its own copy, tells the test
 * the child's pid and waits to be killed. */
static int srv_fork_sender(void *p) {
  struct xfer *x = p;
  int l = listen_on(x->port);
  int s = sovia_accept(l, NULL, NULL);
  if (s < 0) return 11;
  pid_t c = fork();
  if (c == 0) {
    alarm(60);
    uint8_t *b = calloc(1, 65536);
    for (;;)
      if (sovia_send(s, b, 65536, 0) < 0) _exit(12);
  }
  sovia_close(s);
  if (write(fork_pipe[1], &c, sizeof c) != sizeof c) return 13;
  for (;;) pause();
}

/* Reads until the connection fails: 0 for ECONNRESET after some data. */
static int cli_until_reset(void *p) {
  struct xfer *x = p;
  int s = connect_to(x->port);
  if (s < 0) return 30;
  uint8_t b[65536];
  uint64_t n = 0;
  ssize_t r;
  while ((r = sovia_recv(s, b, sizeof b, 0)) > 0) n += (uint64_t)r;
  return r < 0 && errno == ECONNRESET && n > 0 ? 0 : 31;
}

static void t_fork_killed(bool parent_first) {
  struct xfer x = {port_base + 910 + parent_first, 0, 0, 0, 0};
  if (pipe(fork_pipe)) return;
  pid_t ps = fork();
  if (ps == 0) {
    alarm(60);
    use_nic(0);
    exit(srv_fork_sender(&x));
  }
  pid_t pc = fork();
  if (pc == 0) {
    alarm(60);
    use_nic(1);
    exit(cli_until_reset(&x));
  }
  pid_t child = 0;
  if (read(fork_pipe[0], &child, sizeof child) != sizeof child) child = 0;
  close(fork_pipe[0]);
  close(fork_pipe[1]);
  CHECK(child > 0, "fork: the server handed its connection to a child");
  usleep(300000);
  int st;
  if (parent_first) {   /* the child that took the connection over keeps it alive */
    kill(ps, SIGKILL);
    waitpid(ps, NULL, 0);
    usleep(500000);     /* nicd looks at VI owners every 100 ms */
    CHECK(waitpid(pc, &st, WNOHANG) == 0, "fork: the parent killed, its child's stream goes on");
  }
  double t0 = now_s();
  if (child > 0) kill(child, SIGKILL);
  waitpid(pc, &st, 0);
  double dt = now_s() - t0;
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "fork: the child serving the connection killed%s: "
        "the peer's recv fails with ECONNRESET (status %d)", parent_first ? " after its parent" : "", st);
  CHECK(dt < 5, "fork: the peer noticed the child's death in %.2f s", dt);
  if (!parent_first) {
    CHECK(kill(ps, 0) == 0, "fork: the parent lives on");
    kill(ps, SIGKILL);
    waitpid(ps, NULL, 0);
  }
}

static int cli_refused(void *p) {
  (void)p;
  int s = sovia_socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = addr_of("10.77.0.1", 9);
  if (sovia_connect(s, (struct sockaddr *)&a, sizeof a) == 0 || errno != ECONNREFUSED) return 1;
  struct sockaddr_in b = addr_of("192.0.2.1", 80);
  if (sovia_connect(s, (struct sockaddr *)&b, sizeof b) == 0 || errno != ENETUNREACH) return 2;
  sovia_close(s);
  return 0;
}
static int nothing(void *p) {
  (void)p;
  return 0;
}


int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);   /* children must not inherit buffered output */
  bool big = argc > 1 && !strcmp(argv[1], "--big");
  if (argc > 2 && !strcmp(argv[1], "--only")) only = argv[2];
  port_base = 2000;
  CHECK(svt_setup("test") == 0, "nicd did not start");

  t_stream(1, 0, "1 byte");
  t_stream(100, 0, "100 B");
  t_stream(2048, 2048, "2 KB in 2 KB sends (copied)");
  t_stream(2049, 2049, "2049 B (registered)");
  t_stream(65536 + 7, 0, "64 KB, varied sends");
  t_stream(1 << 20, 4, "1 MB in 4-byte sends (combined)");
  t_stream(1 << 20, 0, "1 MB, varied sends");
  t_stream(10u << 20, 1 << 20, "10 MB in 1 MB sends");
  t_stream(32u << 20, 32768, "32 MB in back-to-back 32 KB sends");
  t_stream(16u << 20, 40000, "16 MB in 40000-byte sends (registered head, copied tail)");
  setenv("SOVIA_COMBINE", "0", 1);
  t_stream(256 << 10, 16, "256 KB in 16-byte sends, combining off");
  unsetenv("SOVIA_COMBINE");
  setenv("SOVIA_W", "1", 1);
  setenv("SOVIA_T", "1", 1);
  t_stream(1 << 20, 0, "1 MB, BASE (w=1 t=1)");
  setenv("SOVIA_W", "32", 1);
  t_stream(1 << 20, 0, "1 MB, FLOWCNTL (w=32 t=1)");
  unsetenv("SOVIA_W");
  unsetenv("SOVIA_T");
  setenv("SOVIA_COPY_THRESHOLD", "1000000000", 1);
  t_stream(4 << 20, 0, "4 MB, COPY");
  setenv("SOVIA_COPY_THRESHOLD", "0", 1);
  t_stream(4 << 20, 0, "4 MB, REG");
  unsetenv("SOVIA_COPY_THRESHOLD");
  if (big) t_stream(100u << 20, 1 << 20, "100 MB in 1 MB sends");

  if (only) goto done;
  struct xfer m = {port_base + 500, 1 << 20, 0, 0, 0};
  CHECK(run_pair(srv_multi, cli_multi, &m, 90), "%d connections at once", NCONN);
  for (int mode = 0; mode < 3; mode++) {
    struct xfer c = {port_base + 600 + (unsigned)mode, 100000, 0, 0, mode};
    CHECK(run_pair(srv_close, cli_close, &c, 30), "close: %s",
          mode == 0 ? "client first" : mode == 1 ? "server first" : "both at once");
  }
  CHECK(run_pair(nothing, cli_refused, NULL, 30), "refused and unreachable connects");
  t_killed(true);
  t_killed(false);
  t_fork_killed(false);
  t_fork_killed(true);

done:
  svt_teardown();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
