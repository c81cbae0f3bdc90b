/* bench_sovia.c: `make bench-sovia`, the SOVIA paper's microbenchmarks (Fig. 2) in one run:
 * ping-pong latency and unidirectional bandwidth for native VIPL, SOVIA in the paper's
 * configurations (Table 4: REG, COPY, HYBRID; BASE, FLOWCNTL, DACKS, COMBINE) and kernel TCP
 * over loopback. Starts a private nicd (--fast: transfers take no emulated time, so this
 * measures the software: libraries, firmware, emulation), runs each series as a server
 * process on NIC 0 and a measuring client on NIC 1, and prints tables like the paper's
 * Tables 2/3 and a bandwidth table, with plots like Figs. 5 and 8 (bs_report.c).
 *   bench_sovia [--smoke] [--out DIR] [--rounds N] [--iters N] [--reps N] [--ms N]
 *               [--sizes N] [--lat | --bw] [--only LABEL[,LABEL...]]
 * --rounds: passes over all series (default 3; a shared machine's load changes by the second,
 * so every series is sampled in every pass and the passes merged, bs_merge); --iters: round
 * trips per size and pass; --reps, --ms: bandwidth repetitions per size and pass, and their
 * length; --sizes: only the first N sizes; --only: series whose label contains one of the
 * LABELs (e.g. --only Native,SOVIA_DACKS).
 * --smoke: tiny counts, checks that every series completes (prints "N passed, N failed").
 * With VERINIC_TIMING=PROFILE the private nicd runs in timing mode (nicd --timing PROFILE on the
 * LANai image, nicd/README.md): the VIA and SOVIA series are then virtual time. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bs.h"
#include "sovia.h"

enum transport { T_VIPL, T_TCP, T_SOVIA };

struct config {
  const char *label, *how;
  enum transport t;
  unsigned what;
  const char *env[4];       /* "NAME=value" for SOVIA */
};

#define HYB "SOVIA_COPY_THRESHOLD=2048"
static const struct config configs[] = {
    {"Native VIA", "VIPL, one VI, Reliable Delivery", T_VIPL, BS_LAT | BS_BW, {0}},
    {"SOVIA_REG", "copy threshold 0, w=1 t=1, no combining", T_SOVIA, BS_LAT,
     {"SOVIA_COPY_THRESHOLD=0", "SOVIA_W=1", "SOVIA_T=1", "SOVIA_COMBINE=0"}},
    {"SOVIA_COPY", "everything copied, w=1 t=1, no combining", T_SOVIA, BS_LAT,
     {"SOVIA_COPY_THRESHOLD=1000000000", "SOVIA_W=1", "SOVIA_T=1", "SOVIA_COMBINE=0"}},
    {"SOVIA_HYBRID", "copied <= 2 KB, w=1 t=1, no combining", T_SOVIA, BS_LAT,
     {HYB, "SOVIA_W=1", "SOVIA_T=1", "SOVIA_COMBINE=0"}},
    {"SOVIA_BASE", "hybrid, w=1 t=1, no combining", T_SOVIA, BS_BW,
     {HYB, "SOVIA_W=1", "SOVIA_T=1", "SOVIA_COMBINE=0"}},
    {"SOVIA_FLOWCNTL", "hybrid, w=32 t=1, no combining", T_SOVIA, BS_BW,
     {HYB, "SOVIA_W=32", "SOVIA_T=1", "SOVIA_COMBINE=0"}},
    {"SOVIA_DACKS", "hybrid, w=32 t=16, no combining", T_SOVIA, BS_LAT | BS_BW,
     {HYB, "SOVIA_W=32", "SOVIA_T=16", "SOVIA_COMBINE=0"}},
    {"SOVIA_COMBINE", "hybrid, w=32 t=16, combining (the defaults)", T_SOVIA, BS_LAT | BS_BW,
     {HYB, "SOVIA_W=32", "SOVIA_T=16", "SOVIA_COMBINE=1"}},
    {"TCP", "kernel TCP over loopback (latency: TCP_NODELAY; bandwidth: Nagle, pushed at the end)", T_TCP,
     BS_LAT | BS_BW, {0}},
};
#define NCONF (sizeof configs / sizeof configs[0])

static char rundir[128], prefix[64];
static const char *SERVER_IP = "10.77.0.1";

static void die(const char *what) {
  fprintf(stderr, "bench: %s: %s\n", what, strerror(errno));
  exit(1);
}

/* ---- the transports' connection set-up ---- */

static void set_nodelay(int fd, int on) {
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

static ssize_t k_send(int fd, const void *b, size_t n, int f) { return send(fd, b, n, f | MSG_NOSIGNAL); }
static ssize_t k_recv(int fd, void *b, size_t n, int f) { return recv(fd, b, n, f); }
static void k_burst(int fd, bool end) { set_nodelay(fd, end); }   /* setting it pushes */
static const struct bs_ops kernel_ops = {k_send, k_recv, NULL};
static const struct bs_ops kernel_bw_ops = {k_send, k_recv, k_burst};
static const struct bs_ops sovia_ops = {sovia_send, sovia_recv, NULL};

static int tcp_listen(unsigned *port) {
  int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t al = sizeof a;
  setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 1) ||
      getsockname(l, (struct sockaddr *)&a, &al))
    die("tcp listen");
  *port = ntohs(a.sin_port);
  return l;
}

static int server(const struct config *c, const struct bs_params *p, unsigned port, int lfd) {
  if (c->t == T_VIPL) {
    struct bs_result r = {0};
    char dev[80];
    snprintf(dev, sizeof dev, "%s0", prefix);
    return bs_vipl_side(0, dev, c->what, p, &r) ? 1 : 0;
  }
  int s;
  const struct bs_ops *o = c->t == T_TCP ? &kernel_ops : &sovia_ops;
  if (c->t == T_TCP) {
    s = accept(lfd, NULL, NULL);
    close(lfd);
    set_nodelay(s, 1);
  } else {
    int l = sovia_socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, SERVER_IP, &a.sin_addr);
    if (l < 0 || sovia_bind(l, (struct sockaddr *)&a, sizeof a) || sovia_listen(l, 4)) return 2;
    s = sovia_accept(l, NULL, NULL);
    sovia_close(l);
  }
  if (s < 0) return 3;
  int rc = bs_stream_server(o, s, c->what, p) ? 4 : 0;
  if (c->t == T_TCP) close(s);
  else sovia_close(s);
  return rc;
}

static int client(const struct config *c, const struct bs_params *p, unsigned port,
                  struct bs_result *r) {
  if (c->t == T_VIPL) {
    char dev[80];
    snprintf(dev, sizeof dev, "%s1", prefix);
    return bs_vipl_side(1, dev, c->what, p, r) ? 1 : 0;
  }
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  int s = -1, rc;
  if (c->t == T_TCP) {
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a)) return 2;
    set_nodelay(s, 1);    /* latency: no Nagle, as SOVIA's latency series combine nothing */
    rc = bs_stream_client(&kernel_ops, s, c->what & BS_LAT, p, r);
    /* bandwidth: TCP's default, Nagle (the paper's remark on small messages) */
    if (!rc) rc = bs_stream_client(&kernel_bw_ops, s, c->what & BS_BW, p, r);
    close(s);
    return rc ? 3 : 0;
  }
  inet_pton(AF_INET, SERVER_IP, &a.sin_addr);
  for (int i = 0; i < 500; i++) {   /* until the server listens */
    s = sovia_socket(AF_INET, SOCK_STREAM, 0);
    if (s >= 0 && sovia_connect(s, (struct sockaddr *)&a, sizeof a) == 0) break;
    if (s >= 0) sovia_close(s);
    s = -1;
    if (errno != ECONNREFUSED) break;
    usleep(10000);
  }
  if (s < 0) return 2;
  rc = bs_stream_client(&sovia_ops, s, c->what, p, r);
  socklen_t len = sizeof r->eff_w;
  sovia_getsockopt(s, SOL_SOVIA, SOVIA_SO_W, &r->eff_w, &len);
  len = sizeof r->eff_t;
  sovia_getsockopt(s, SOL_SOVIA, SOVIA_SO_T, &r->eff_t, &len);
  sovia_close(s);
  return rc ? 3 : 0;
}

/* ---- processes ---- */

static void child_env(const struct config *c, int nic) {
  char dev[80];
  snprintf(dev, sizeof dev, "%s%d", prefix, nic);
  setenv("SOVIA_NIC", dev, 1);
  for (unsigned i = 0; i < 4 && c->env[i]; i++) putenv((char *)c->env[i]);
}

static bool run_series(const struct config *c, const struct bs_params *p, unsigned port,
                       struct bs_result *out) {
  int pr[2];
  if (pipe(pr)) die("pipe");
  unsigned tport = port;
  int lfd = c->t == T_TCP ? tcp_listen(&tport) : -1;
  unsigned limit = p->smoke ? 120 : 900;
  pid_t ps = fork();
  if (ps == 0) {
    alarm(limit);
    child_env(c, 0);
    exit(server(c, p, tport, lfd));   /* exit: SOVIA finishes its closes at exit */
  }
  if (lfd >= 0) close(lfd);
  pid_t pc = fork();
  if (pc == 0) {
    alarm(limit);
    child_env(c, 1);
    struct bs_result r = {0};
    int rc = client(c, p, tport, &r);
    if (write(pr[1], &r, sizeof r) != (ssize_t)sizeof r) rc = 9;
    exit(rc);
  }
  close(pr[1]);
  memset(out, 0, sizeof *out);
  ssize_t got = read(pr[0], out, sizeof *out);
  close(pr[0]);
  int s1, s2;
  waitpid(ps, &s1, 0);
  waitpid(pc, &s2, 0);
  bool ok = got == (ssize_t)sizeof *out && out->ok && WIFEXITED(s1) && !WEXITSTATUS(s1) &&
            WIFEXITED(s2) && !WEXITSTATUS(s2);
  if (!ok)
    fprintf(stderr, "bench: %s failed (server %s %d, client %s %d)\n", c->label,
            WIFEXITED(s1) ? "exit" : "signal", WIFEXITED(s1) ? WEXITSTATUS(s1) : WTERMSIG(s1),
            WIFEXITED(s2) ? "exit" : "signal", WIFEXITED(s2) ? WEXITSTATUS(s2) : WTERMSIG(s2));
  out->ok = ok;
  return ok;
}

static pid_t start_nicd(void) {
  const char *bin = getenv("NICD");
  if (!bin) bin = "build/bin/nicd";
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    const char *prof = getenv("VERINIC_TIMING"), *img = getenv("VERINIC_LANAI_IMAGE");
    if (prof && *prof)   /* timing mode: virtual time on the simulated LANai (nicd/README.md) */
      execl(bin, "nicd", "-n", "2", "--timing", prof, "--lanai",
            img && *img ? img : "build/lanai/firmware.img", "--run", rundir, "--prefix", prefix,
            (char *)0);
    else
      execl(bin, "nicd", "-n", "2", "--fast", "--run", rundir, "--prefix", prefix, (char *)0);
    perror(bin);
    _exit(127);
  }
  char sock[200];
  snprintf(sock, sizeof sock, "%s/nicd.sock", rundir);
  for (int i = 0; i < 500 && access(sock, F_OK); i++) usleep(10000);
  usleep(50000);
  if (access(sock, F_OK)) {
    fprintf(stderr, "bench: nicd (%s) did not start\n", bin);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
  }
  return pid;
}

/* Whether label contains one of the comma-separated parts of only. */
static bool selected(const char *label, const char *only) {
  for (const char *p = only; *p;) {
    size_t len = strcspn(p, ",");
    for (const char *l = label; len && strlen(l) >= len; l++)
      if (!strncmp(l, p, len)) return true;
    p += len + (p[len] == ',');
  }
  return false;
}

int main(int argc, char **argv) {
  struct bs_params p = {false, 400, 3, 30.0, BS_NSIZES, 3};
  const char *outdir = "build/bench", *only = NULL;
  unsigned what = BS_LAT | BS_BW;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--smoke")) p.smoke = true, p.lat_iters = 3, p.bw_reps = 2, p.rounds = 1;
    else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) p.rounds = (unsigned)atoi(argv[++i]);
    else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) p.nsizes = (unsigned)atoi(argv[++i]);
    else if (!strcmp(argv[i], "--lat")) what = BS_LAT;
    else if (!strcmp(argv[i], "--bw")) what = BS_BW;
    else if (!strcmp(argv[i], "--out") && i + 1 < argc) outdir = argv[++i];
    else if (!strcmp(argv[i], "--iters") && i + 1 < argc) p.lat_iters = (unsigned)atoi(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) p.bw_reps = (unsigned)atoi(argv[++i]);
    else if (!strcmp(argv[i], "--ms") && i + 1 < argc) p.bw_ms = atof(argv[++i]);
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else {
      fprintf(stderr, "usage: %s [--smoke] [--out DIR] [--rounds N] [--iters N] [--reps N] "
                      "[--ms N] [--sizes N] [--lat | --bw] [--only LABEL[,LABEL...]]\n", argv[0]);
      return 2;
    }
  }
  if (p.lat_iters < 1) p.lat_iters = 1;
  if (p.bw_reps < 1) p.bw_reps = 1;
  if (p.rounds < 1) p.rounds = 1;
  if (p.rounds > 64) p.rounds = 64;
  if (p.nsizes < 1 || p.nsizes > BS_NSIZES) p.nsizes = BS_NSIZES;
  signal(SIGPIPE, SIG_IGN);
  setvbuf(stdout, NULL, _IONBF, 0);
  snprintf(rundir, sizeof rundir, "/tmp/bench-sovia-%d", (int)getpid());
  snprintf(prefix, sizeof prefix, "/bs%d-nic", (int)getpid());
  mkdir(rundir, 0700);
  char path[200];
  snprintf(path, sizeof path, "%s/hosts", rundir);
  FILE *f = fopen(path, "w");
  if (!f) die(path);
  fprintf(f, "nic0 0\nnic1 1\n10.77.0.1 0\n10.77.0.2 1\n");
  fclose(f);
  setenv("VERINIC_RUN", rundir, 1);
  unsetenv("VERINIC_HOSTS");
  static const char *const knobs[] = {"SOVIA_W", "SOVIA_T", "SOVIA_COMBINE",
                                      "SOVIA_COPY_THRESHOLD", "SOVIA_RCVBUF"};
  for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++) unsetenv(knobs[i]);
  pid_t nicd = start_nicd();
  if (nicd < 0) return 1;
  struct bs_series s[NCONF];
  static struct bs_result rr[NCONF][64];
  size_t ns = 0;
  int passed = 0, failed = 0;
  char load0[64] = "", load1[64] = "";
  FILE *la = fopen("/proc/loadavg", "r");
  if (la && !fgets(load0, sizeof load0, la)) load0[0] = 0;
  if (la) fclose(la);
  for (size_t i = 0; i < NCONF; i++) {
    if (only && !selected(configs[i].label, only)) continue;
    if (!(configs[i].what & what)) continue;
    s[ns].label = configs[i].label;
    s[ns].how = configs[i].how;
    s[ns].what = configs[i].what & what;
    ns++;
  }
  for (unsigned round = 0; round < p.rounds; round++)
    for (size_t j = 0; j < ns; j++) {
      size_t i = 0;
      while (strcmp(configs[i].label, s[j].label)) i++;
      struct config c = configs[i];
      c.what = s[j].what;
      fprintf(stderr, "bench: round %u/%u: %s ...\n", round + 1, p.rounds, c.label);
      bool ok = run_series(&c, &p, 3000 + (unsigned)(round * NCONF + i), &rr[j][round]);
      ok ? passed++ : failed++;
      if (p.smoke) printf("%s %s (%llu bytes checked)\n", ok ? "ok  " : "FAIL", c.label,
                          (unsigned long long)rr[j][round].bytes_checked);
    }
  for (size_t j = 0; j < ns; j++) bs_merge(&s[j].r, rr[j], p.rounds);
  la = fopen("/proc/loadavg", "r");
  if (la && !fgets(load1, sizeof load1, la)) load1[0] = 0;
  if (la) fclose(la);
  printf("Load average (1, 5, 15 min) at the start: %s              at the end:   %s", load0, load1);
  kill(nicd, SIGTERM);
  waitpid(nicd, NULL, 0);
  snprintf(path, sizeof path, "rm -rf %s", rundir);
  if (system(path)) {}
  bs_report(s, ns, &p, outdir);
  if (p.smoke) printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
