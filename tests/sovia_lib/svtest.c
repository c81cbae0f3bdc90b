/* svtest.c: helpers of the SOVIA library tests (svtest.h): a private nicd with two NICs
 * and a hosts file, processes on either NIC, connections, pattern streams with checks. */
#define _GNU_SOURCE
#include "svtest.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sovia.h"

static char rundir[96], prefix[64];
static pid_t nicd;

double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void use_nic(int n) {
  char dev[96];
  snprintf(dev, sizeof dev, "%s%d", prefix, n);
  setenv("SOVIA_NIC", dev, 1);
}

struct sockaddr_in addr_of(const char *ip, unsigned port) {
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  inet_pton(AF_INET, ip, &a.sin_addr);
  return a;
}

int listen_on(unsigned port) {
  int s = sovia_socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = addr_of("10.77.0.1", port);
  if (s < 0 || sovia_bind(s, (struct sockaddr *)&a, sizeof a) || sovia_listen(s, 16)) return -1;
  return s;
}

int connect_to(unsigned port) {
  int s = sovia_socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = addr_of("10.77.0.1", port);
  for (int i = 0; i < 200; i++) {   /* the server may not listen yet */
    if (sovia_connect(s, (struct sockaddr *)&a, sizeof a) == 0) return s;
    if (errno != ECONNREFUSED) break;
    usleep(10000);
  }
  return -1;
}

/* The stream: byte i of stream seed s. */
uint8_t pat(uint64_t i, unsigned seed) {
  uint64_t x = (i >> 3) * 0x9E3779B97F4A7C15ull + seed;
  x ^= x >> 29;
  return (uint8_t)(x >> (8 * (i & 7)));
}

int write_all(int s, const uint8_t *b, size_t n) {
  size_t off = 0;
  while (off < n) {
    ssize_t w = sovia_send(s, b + off, n - off, 0);
    if (w <= 0) return -1;
    off += (size_t)w;
  }
  return 0;
}

/* Sends n bytes of stream seed in writes of `piece` (varied if 0). */
int send_stream(int s, uint64_t n, unsigned seed, size_t piece) {
  size_t cap = 1 << 20;
  uint8_t *b = malloc(cap);
  uint64_t off = 0;
  unsigned r = seed;
  while (off < n) {
    size_t k = piece ? piece : 1 + (r = r * 1103515245 + 12345) % (cap - 1);
    if (k > n - off) k = (size_t)(n - off);
    for (size_t i = 0; i < k; i++) b[i] = pat(off + i, seed);
    if (write_all(s, b, k)) {
      free(b);
      return -1;
    }
    off += k;
  }
  free(b);
  return 0;
}

/* Receives exactly n bytes with random partial reads; 0 if they match stream seed, and the
 * connection then reports end-of-file when eof_expected. */
int recv_stream(int s, uint64_t n, unsigned seed, bool eof_expected) {
  size_t cap = 1 << 20;
  uint8_t *b = malloc(cap);
  uint64_t off = 0;
  unsigned r = seed * 7 + 1;
  int rc = 0;
  while (off < n && !rc) {
    r = r * 1103515245 + 12345;
    size_t k = 1 + r % ((r >> 8) % 4 ? 4096 : cap - 1);
    ssize_t got = sovia_recv(s, b, k, 0);
    if (got <= 0) {
      rc = -1;
      break;
    }
    for (ssize_t i = 0; i < got; i++)
      if (b[i] != pat(off + (uint64_t)i, seed) && !rc) {
        rc = -2;
        fprintf(stderr, "  mismatch at byte %llu of %llu (read of %zd)\n",
                (unsigned long long)(off + (uint64_t)i), (unsigned long long)n, got);
        if (i + 16 <= got)
          for (uint64_t src = 0; src < n; src++) {
            int m = 0;
            while (m < 16 && b[i + m] == pat(src + (uint64_t)m, seed)) m++;
            if (m == 16) fprintf(stderr, "  ... those bytes are stream offset %llu\n", (unsigned long long)src);
          }
        bool allz = true;
        for (ssize_t q = i; q < got && q < i + 64; q++) allz = allz && !b[q];
        if (allz) fprintf(stderr, "  ... zeros\n");
      }
    off += (uint64_t)got;
  }
  if (!rc && eof_expected && sovia_recv(s, b, 1, 0) != 0) rc = -3;
  free(b);
  return rc;
}

/* Runs server() and client() as two processes (NIC 0 and NIC 1); true if both exit 0 in
 * time. */
bool run_pair(int (*server)(void *), int (*client)(void *), void *arg, int secs) {
  pid_t ps = fork();
  if (ps == 0) {
    alarm((unsigned)secs);
    use_nic(0);
    exit(server(arg));   /* exit, not _exit: the close finishes at exit */
  }
  pid_t pc = fork();
  if (pc == 0) {
    alarm((unsigned)secs);
    use_nic(1);
    exit(client(arg));
  }
  int st1, st2;
  waitpid(ps, &st1, 0);
  waitpid(pc, &st2, 0);
  bool ok = WIFEXITED(st1) && WEXITSTATUS(st1) == 0 && WIFEXITED(st2) && WEXITSTATUS(st2) == 0;
  if (!ok)
    printf("  server %s %d, client %s %d\n", WIFEXITED(st1) ? "exit" : "signal",
           WIFEXITED(st1) ? WEXITSTATUS(st1) : WTERMSIG(st1), WIFEXITED(st2) ? "exit" : "signal",
           WIFEXITED(st2) ? WEXITSTATUS(st2) : WTERMSIG(st2));
  return ok;
}

static pid_t start_nicd(void) {
  pid_t p = fork();
  if (p == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    /* VERINIC_FIRMWARE=lanai: the LANai image on nicd's simulator (as tests/common/nicd_run.c) */
    const char *fw = getenv("VERINIC_FIRMWARE"), *img = getenv("VERINIC_LANAI_IMAGE");
    bool lanai = fw && strcmp(fw, "lanai") == 0;
    execl("build/bin/nicd", "nicd", "-n", "2", "--fast", "--run", rundir, "--prefix", prefix,
          lanai ? "--lanai" : (char *)0, img && *img ? img : "build/lanai/firmware.img", (char *)0);
    _exit(127);
  }
  return p;
}

int svt_setup(const char *tag) {
  snprintf(rundir, sizeof rundir, "/tmp/sovia-%s-%d", tag, (int)getpid());
  snprintf(prefix, sizeof prefix, "/sv%s%d-nic", tag, (int)getpid());
  mkdir(rundir, 0700);
  char path[160];
  snprintf(path, sizeof path, "%s/hosts", rundir);
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f, "nic0 0\nnic1 1\n10.77.0.1 0\n10.77.0.2 1\n");
  fclose(f);
  setenv("VERINIC_RUN", rundir, 1);
  nicd = start_nicd();
  snprintf(path, sizeof path, "%s/nicd.sock", rundir);
  for (int i = 0; i < 500 && access(path, F_OK); i++) usleep(10000);
  usleep(100000);
  return access(path, F_OK) == 0 ? 0 : -1;
}

void svt_teardown(void) {
  kill(nicd, SIGTERM);
  waitpid(nicd, NULL, 0);
  char cmd[200];
  snprintf(cmd, sizeof cmd, "rm -rf %s", rundir);
  if (system(cmd)) {}
}
