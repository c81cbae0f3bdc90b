/* shim_fd.c: a SOVIA connection under other descriptors, checked by a plain BSD-sockets
 * program run under the shim (shim_fd.sh): `shim_fd server PORT` on NIC 0, `shim_fd client
 * ADDR PORT` on NIC 1. Three connections:
 *   1. duplicates: dup, F_DUPFD_CLOEXEC and dup2 of an accepted socket, the original closed
 *      first; each duplicate reads, writes and names the peer; the peer sees the end only
 *      when the last one closes;
 *   2. a stdio stream: fdopen, fgets, fprintf, fileno, fclose;
 *   3. exec: a child puts the connection on its stdin and stdout and execs sh, which reads a
 *      line, answers, runs python3 to print the socket's names, then execs cat; the client
 *      streams 2 MB through cat and back, then shuts its side and must see the end;
 *   4. both sides write 3 MB before either reads (TCP's buffers take it: so must SOVIA's);
 *   5. a process closing itself in (chroot) while its parent keeps a copy, as vsftpd's login
 *      process does: the first child's chroot hands the connection to a relay; a second
 *      child of the parent, whose copy is the relay's now, gets it at the relay's door on
 *      its first write; the peer sees both children's lines, then the end once all let go;
 *   6. two processes using one connection at once, as rsync's generator and receiver: after a
 *      fork the child reads while the parent writes, a line every 2 ms; the one that comes
 *      second asks the other to hand the connection to a relay (at its next call), and both
 *      go on through it;
 *   7. a fork while another thread waits in recv (git clone's index-pack, its sideband thread
 *      reading): the child execs a helper that inherited the socket and never uses it; the
 *      waiting thread still gets the peer's line.
 * Each check prints "ok"/"FAIL"; the last line is "N passed, N failed". */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shim_check.h"


/* One line (up to '\n', which is dropped) read a byte at a time; its length or -1. */
static int read_line(int s, char *out, size_t cap) {
  size_t n = 0;
  for (;;) {
    char ch;
    ssize_t r = read(s, &ch, 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    if (ch == '\n') break;
    if (n + 1 < cap) out[n++] = ch;
  }
  out[n] = 0;
  return (int)n;
}

static bool say(int s, const char *text) { return write(s, text, strlen(text)) == (ssize_t)strlen(text); }

static bool at_eof(int s) {
  char ch;
  return read(s, &ch, 1) == 0;
}

static int serve_dups(int c) {
  CHECK(!(fcntl(c, F_GETFD) & FD_CLOEXEC), "accept() gives a descriptor without close-on-exec, as the kernel's");
  struct sockaddr_in want, got;
  socklen_t wl = sizeof want, gl = sizeof got;
  getpeername(c, (struct sockaddr *)&want, &wl);
  int d = dup(c), e = fcntl(c, F_DUPFD_CLOEXEC, 100), f = dup2(c, 50);
  CHECK(d >= 0 && e >= 100 && f == 50, "dup %d, F_DUPFD_CLOEXEC %d, dup2 %d of a SOVIA socket", d, e, f);
  CHECK((fcntl(e, F_GETFD) & FD_CLOEXEC) && !(fcntl(f, F_GETFD) & FD_CLOEXEC), "each duplicate has its own close-on-exec flag");
  close(c);                  /* the accepted descriptor first: the others go on */
  char line[64];
  CHECK(read_line(d, line, sizeof line) >= 0 && !strcmp(line, "ping1"), "a duplicate reads after the original closed: '%s'", line);
  CHECK(say(e, "pong1\n"), "another duplicate writes");
  CHECK(getpeername(f, (struct sockaddr *)&got, &gl) == 0 && got.sin_addr.s_addr == want.sin_addr.s_addr &&
        got.sin_port == want.sin_port, "a duplicate names the peer");
  close(d);
  close(e);
  CHECK(say(f, "pong2\n"), "the last duplicate still writes");
  CHECK(read_line(f, line, sizeof line) >= 0 && !strcmp(line, "quit"), "and reads");
  return close(f);
}

static void serve_stdio(int c) {
  FILE *f = fdopen(c, "r+");
  char line[64] = "";
  CHECK(f && fgets(line, sizeof line, f) && !strcmp(line, "hello stdio\n"), "fdopen'd stream: fgets '%.20s'", line);
  CHECK(f && fileno(f) == c, "fileno gives the socket's descriptor");
  CHECK(f && fprintf(f, "HELLO %d\n", 42) > 0 && fflush(f) == 0, "fprintf and fflush");
  CHECK(f && fclose(f) == 0, "fclose");
}

#define SCRIPT "read l; echo \"sh got $l\"; python3 -c 'import socket; s = socket.socket(fileno=0); " \
               "print(s.getpeername()[0], s.getsockname()[1]); s.detach()'; exec cat"

static void serve_exec(int c) {
  pid_t pid = fork();
  if (pid == 0) {
    dup2(c, 0);
    dup2(c, 1);
    close(c);
    execl("/bin/sh", "sh", "-c", SCRIPT, (char *)NULL);
    _exit(127);
  }
  close(c);
  int st = 0;
  CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
        "exec'd sh and cat ended (status %d)", st);
}

#define BOTH_WAYS (3u << 20)

/* Writes BOTH_WAYS bytes, then reads as many: whether they were the pattern's. */
static bool write_then_read(int s) {
  unsigned char *b = malloc(BOTH_WAYS);
  for (size_t i = 0; i < BOTH_WAYS; i++) b[i] = (unsigned char)(i % 253);
  size_t off = 0;
  while (off < BOTH_WAYS) {
    ssize_t w = write(s, b + off, BOTH_WAYS - off);
    if (w <= 0) break;
    off += (size_t)w;
  }
  bool ok = off == BOTH_WAYS;
  memset(b, 0, BOTH_WAYS);
  for (off = 0; ok && off < BOTH_WAYS;) {
    ssize_t r = read(s, b + off, BOTH_WAYS - off);
    if (r <= 0) ok = false;
    else off += (size_t)r;
  }
  for (size_t i = 0; ok && i < BOTH_WAYS; i++) ok = b[i] == (unsigned char)(i % 253);
  free(b);
  return ok;
}

/* A child of the server writes line to c, having first closed itself in if chroot_first. */
static void child_says(int c, const char *line, bool chroot_first) {
  pid_t pid = fork();
  if (pid == 0) {
    if (chroot_first && chroot("/") != 0) { /* not root: the relay came before the refusal */ }
    _exit(say(c, line) ? 0 : 1);
  }
  int st = 0;
  CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
        "a child %s writes", chroot_first ? "that chroots first" : "of the parent, after the relay took the connection,");
}

#define LINES 100

/* Connection 6: the child reads the peer's lines while the parent writes its own. */
static void serve_shared(int c) {
  pid_t pid = fork();
  if (pid == 0) {
    char line[32];
    int k = 0;
    while (read_line(c, line, sizeof line) >= 0 && strcmp(line, "end")) k++;
    char out[32];
    snprintf(out, sizeof out, "child read %d\n", k);
    if (say(c, out)) _exit(0);
    fprintf(stderr, "child: after %d lines, its answer: %s\n", k, strerror(errno));
    _exit(1);
  }
  bool all = true;
  for (int i = 0; i < LINES && all; i++) {
    char out[16];
    snprintf(out, sizeof out, "p%d\n", i);
    all = say(c, out);
    usleep(2000);
  }
  CHECK(all, "the parent wrote its %d lines while its child read", LINES);
  int st = 0;
  CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
        "the child read and answered on the same connection (status %d)", st);
  close(c);
}

static void *thread_reader(void *arg) {
  int c = *(int *)arg;
  char line[32], out[48];
  bool ok = read_line(c, line, sizeof line) >= 0;
  snprintf(out, sizeof out, "thread got %s\n", ok ? line : "nothing");
  say(c, out);
  return NULL;
}

/* Connection 7: a thread waits in recv while the main thread forks and execs a helper. */
static void serve_fork_while_reading(int c) {
  pthread_t t;
  pthread_create(&t, NULL, thread_reader, &c);
  usleep(100000);            /* the thread sleeps in recv by now */
  pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/true", "true", (char *)NULL);
    _exit(127);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  pthread_join(t, NULL);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a helper forked and exec'd while a thread read");
  close(c);
}

static int server(int port) {
  int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  if (bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 8)) {
    perror("listen");
    return 2;
  }
  int c = accept(l, NULL, NULL);
  serve_dups(c);
  int c2 = accept4(l, NULL, NULL, SOCK_CLOEXEC);
  CHECK(fcntl(c2, F_GETFD) & FD_CLOEXEC, "accept4(SOCK_CLOEXEC) gives one with it");
  serve_stdio(c2);
  serve_exec(accept(l, NULL, NULL));
  int c4 = accept(l, NULL, NULL);
  CHECK(write_then_read(c4), "3 MB written before reading, then 3 MB read");
  close(c4);
  int c5 = accept(l, NULL, NULL);
  child_says(c5, "from the chroot\n", true);
  child_says(c5, "from the door\n", false);
  close(c5);
  serve_shared(accept(l, NULL, NULL));
  serve_fork_while_reading(accept(l, NULL, NULL));
  close(l);
  return done();
}

static int dial(const char *addr, int port) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  inet_pton(AF_INET, addr, &a.sin_addr);
  if (connect(s, (struct sockaddr *)&a, sizeof a)) perror("connect");
  return s;
}

/* Writes n bytes and reads them back at once, as through cat. */
static bool echo_through(int s, size_t n) {
  unsigned char *out = malloc(n), *in = malloc(n);
  for (size_t i = 0; i < n; i++) out[i] = (unsigned char)(i * 7 + i / 251);
  size_t sent = 0, got = 0;
  fcntl(s, F_SETFL, O_NONBLOCK);
  while (got < n) {
    struct pollfd p = {.fd = s, .events = POLLIN | (sent < n ? POLLOUT : 0)};
    if (poll(&p, 1, 10000) <= 0) break;
    if ((p.revents & POLLOUT) && sent < n) {
      ssize_t w = write(s, out + sent, n - sent < 65536 ? n - sent : 65536);
      if (w > 0) sent += (size_t)w;
    }
    if (p.revents & (POLLIN | POLLHUP)) {
      ssize_t r = read(s, in + got, n - got);
      if (r == 0) break;
      if (r > 0) got += (size_t)r;
    }
  }
  fcntl(s, F_SETFL, 0);
  bool same = got == n && !memcmp(in, out, n);
  free(out);
  free(in);
  return same;
}

static int client(const char *addr, int port) {
  char line[128];
  int s = dial(addr, port);
  say(s, "ping1\n");
  CHECK(read_line(s, line, sizeof line) >= 0 && !strcmp(line, "pong1"), "client: pong1 from a duplicate");
  CHECK(read_line(s, line, sizeof line) >= 0 && !strcmp(line, "pong2"), "client: no end while a duplicate stays open");
  say(s, "quit\n");
  CHECK(at_eof(s), "client: the end once the last duplicate closed");
  close(s);

  s = dial(addr, port);
  say(s, "hello stdio\n");
  CHECK(read_line(s, line, sizeof line) >= 0 && !strcmp(line, "HELLO 42"), "client: the stream's line: '%s'", line);
  CHECK(at_eof(s), "client: the end at fclose");
  close(s);

  s = dial(addr, port);
  struct sockaddr_in me;
  socklen_t ml = sizeof me;
  getsockname(s, (struct sockaddr *)&me, &ml);
  say(s, "x1\n");
  CHECK(read_line(s, line, sizeof line) >= 0 && !strcmp(line, "sh got x1"), "client: exec'd sh answers: '%s'", line);
  char want[64];
  snprintf(want, sizeof want, "%s %d", inet_ntoa(me.sin_addr), port);
  CHECK(read_line(s, line, sizeof line) >= 0 && !strncmp(line, want, strlen(want)),
        "client: python in the exec'd program names the connection: '%s'", line);
  CHECK(echo_through(s, 2u << 20), "client: 2 MB through the exec'd cat and back");
  shutdown(s, SHUT_WR);
  CHECK(at_eof(s), "client: the end after cat saw ours");
  close(s);

  s = dial(addr, port);
  CHECK(write_then_read(s), "client: 3 MB written before reading, then 3 MB read");
  close(s);

  s = dial(addr, port);
  CHECK(read_line(s, line, sizeof line) >= 0 && !strcmp(line, "from the chroot"), "client: the chrooted child's line: '%s'", line);
  CHECK(read_line(s, line, sizeof line) >= 0 && !strcmp(line, "from the door"), "client: the next child's line: '%s'", line);
  CHECK(at_eof(s), "client: the end once every process let go");
  close(s);

  s = dial(addr, port);
  for (int i = 0; i < LINES; i++) say(s, "c\n");
  say(s, "end\n");
  int parent = 0, child = 0;
  while (read_line(s, line, sizeof line) >= 0) {
    if (line[0] == 'p' && atoi(line + 1) == parent) parent++;
    else if (!strcmp(line, "child read 100")) child++;
  }
  CHECK(parent == LINES && child == 1, "client: %d of the parent's %d lines in order, the child's count %s",
        parent, LINES, child ? "too" : "missing");
  close(s);

  s = dial(addr, port);
  usleep(300000);            /* after the server's fork */
  say(s, "after fork\n");
  CHECK(read_line(s, line, sizeof line) >= 0 && !strcmp(line, "thread got after fork"),
        "client: the thread that waited through the fork answers: '%s'", line);
  close(s);
  return done();
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc == 3 && !strcmp(argv[1], "server")) return server(atoi(argv[2]));
  if (argc == 4 && !strcmp(argv[1], "client")) return client(argv[2], atoi(argv[3]));
  fprintf(stderr, "usage: shim_fd server PORT | shim_fd client ADDR PORT\n");
  return 2;
}
