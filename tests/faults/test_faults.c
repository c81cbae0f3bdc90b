/* test_faults.c: the fault suite (issue 16). Two peer processes stream data through one
 * library (VIPL, SOVIA or PANIC) between NIC 1 and NIC 0 of a private nicd, and at a seeded
 * moment (during connection set-up, mid-stream, during close) one of them or nicd itself is
 * killed with SIGKILL. Asserted for every run:
 *   - nothing hangs: every survivor exits within 10 s of the kill;
 *   - every survivor that could not finish returned an error within 1 s of the kill (the
 *     detection times are printed: min, median, max per library);
 *   - no data delivered twice, out of order or corrupted (the receiver checks every byte);
 *   - nothing the sender saw completed is lost when the receiver survives (received >= sent
 *     and completed);
 *   - after nicd is killed, a restarted nicd takes over and serves a new connection that
 *     moves the whole stream.
 * Usage: test_faults [--seeds N] [--seed0 S] [--only vipl|sovia|panic]. `make test` runs a
 * few seeds; `make faults-long` sweeps many. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../check.h"
#include "faults.h"

#define DETECT_NS 1000000000ull   /* every survivor's error within 1 s of the fault */
#define HANG_NS   10000000000ull  /* a survivor still running 10 s after the fault hangs */

enum victim { V_RECEIVER, V_SENDER, V_NICD, V_N };
enum moment { M_CONNECT, M_STREAM, M_CLOSE, M_N };

static const char *vname[] = {"receiver", "sender", "nicd"};
static const char *mname[] = {"connect", "mid-stream", "close"};

struct lib {
  const char *name;
  fpeer_fn peer;
  uint64_t total;            /* messages (VIPL, PANIC) or bytes (SOVIA) of a stream */
  bool sender_alone;         /* the sender needs no receiver process (PANIC's program) */
  double det[M_N][512];      /* detection times by moment, ms */
  unsigned ndet[M_N];
};

static pid_t nicd;

static uint32_t rnd(uint32_t *st) {
  *st ^= *st << 13, *st ^= *st >> 17, *st ^= *st << 5;
  return *st;
}

static void sleep_us(unsigned us) {
  struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000};
  nanosleep(&ts, NULL);
}

static pid_t spawn(fpeer_fn fn, int role, struct fshared *s) {
  pid_t p = fork();
  if (p == 0) {
    alarm(60);   /* a last resort: the parent judges hangs long before */
    fn(role, s);
    exit(0);
  }
  return p;
}

/* Waits until the moment m of the stream has come (for m = M_STREAM: `at` messages or bytes
 * received), a peer has ended, or 20 s; true if the moment came. */
static bool await(struct fshared *s, enum victim v, enum moment m, uint64_t at) {
  uint64_t t0 = fnow_ns();
  while (fnow_ns() - t0 < 20000000000ull) {
    int r0 = atomic_load(&s->result[0]), r1 = atomic_load(&s->result[1]);
    if (r0 != FR_RUNNING || r1 != FR_RUNNING) return false;
    bool ok;
    if (m == M_CONNECT) ok = atomic_load(&s->phase[0]) >= PH_CONNECT && atomic_load(&s->phase[1]) >= PH_CONNECT;
    else if (m == M_STREAM) ok = atomic_load(&s->recvd) >= at;
    else ok = atomic_load(&s->phase[v == V_NICD ? 0 : v]) >= PH_CLOSE;
    if (ok) return true;
    sleep_us(200);
  }
  return false;
}

/* Waits for p until deadline (absolute); false (and kills it) if it is still running. *status
 * gets its wait status. */
static bool reap_by(pid_t p, uint64_t deadline, int *status) {
  for (;;) {
    if (waitpid(p, status, WNOHANG) == p) return true;
    if (fnow_ns() > deadline) {
      kill(p, SIGKILL);
      waitpid(p, status, 0);
      return false;
    }
    sleep_us(1000);
  }
}

static struct fshared *shared_new(uint64_t total, unsigned seed) {
  struct fshared *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (s == MAP_FAILED) abort();
  memset(s, 0, sizeof *s);
  static unsigned runs;
  s->total = total;
  s->seed = seed;
  s->port = 7000 + (runs++ % 2000);
  return s;
}

/* A clean run, no fault: both finish and everything arrives. */
static bool clean_run(struct lib *L, unsigned seed, const char *when) {
  struct fshared *s = shared_new(L->total / 4 + 1, seed);
  pid_t p0 = spawn(L->peer, 0, s), p1 = spawn(L->peer, 1, s);
  uint64_t dl = fnow_ns() + 30000000000ull;
  int st0 = 0, st1 = 0;
  bool ok0 = reap_by(p0, dl, &st0), ok1 = reap_by(p1, dl, &st1);
  bool ok = ok0 && ok1 && st0 == 0 && st1 == 0 && s->result[0] == FR_FINISHED && s->result[1] == FR_FINISHED &&
            s->recvd == s->total && !s->bad;
  CHECK(ok, "%s %s: clean run: results %d/%d, %llu of %llu arrived%s%s %s", L->name, when,
        s->result[0], s->result[1], (unsigned long long)s->recvd, (unsigned long long)s->total,
        s->bad ? ", bad data" : "", s->why[0], s->why[1]);
  munmap(s, sizeof *s);
  return ok;
}

static void one(struct lib *L, enum victim v, enum moment m, unsigned seed) {
  uint32_t st = seed * 2654435761u + (uint32_t)v * 97 + (uint32_t)m * 13 + 1;
  struct fshared *s = shared_new(L->total, seed);
  uint64_t at = 1 + rnd(&st) % (L->total - 1);
  pid_t pid[2] = {spawn(L->peer, 0, s), spawn(L->peer, 1, s)};
  bool reached = await(s, v, m, at);
  sleep_us(rnd(&st) % 1000);   /* a little later, seeded */
  uint64_t kill_ns = fnow_ns();
  if (v == V_NICD) fnicd_kill(nicd);
  else kill(pid[v], SIGKILL);
  char tag[96];
  snprintf(tag, sizeof tag, "%s seed %u: %s killed at %s", L->name, seed, vname[v], mname[m]);
  /* The killed peer stays a zombie until the survivors are judged: nicd must count a zombie
   * as gone (its parent may be slow to reap it). */
  for (int r = 0; r < 2; r++) {
    if (v != V_NICD && r == (int)v) continue;
    int wst = 0;
    bool exited = reap_by(pid[r], kill_ns + HANG_NS, &wst);
    if (v != V_NICD) waitpid(pid[v], NULL, 0);
    CHECK(exited, "%s: %s still running 10 s later (hung)", tag, r ? "sender" : "receiver");
    CHECK(!exited || wst == 0, "%s: %s exited with status %#x (a crash or sanitizer report)", tag,
          r ? "sender" : "receiver", wst);
    int res = atomic_load(&s->result[r]);
    CHECK(res != FR_BROKEN, "%s: %s: %s", tag, r ? "sender" : "receiver", s->why[r]);
    /* finishing is right only when the whole stream arrived (checked) before the fault cut
     * it: the survivor had nothing left that needed its peer */
    bool done_before = atomic_load(&s->recvd) == s->total || !reached ||
                       (r == 1 && v == V_RECEIVER && L->sender_alone);
    CHECK(res == FR_ERROR || (res == FR_FINISHED && done_before),
          "%s: %s ended %d without an error", tag, r ? "sender" : "receiver", res);
    if (res == FR_ERROR) {
      uint64_t e = atomic_load(&s->err_ns[r]);
      uint64_t d = e > kill_ns ? e - kill_ns : 0;
      CHECK(d <= DETECT_NS, "%s: %s saw the error %.0f ms after the fault", tag,
            r ? "sender" : "receiver", (double)d / 1e6);
      if (L->ndet[m] < sizeof L->det[m] / sizeof L->det[m][0]) L->det[m][L->ndet[m]++] = (double)d / 1e6;
    }
  }
  CHECK(!s->bad, "%s: duplicated, reordered or corrupted data", tag);
  if (v != V_RECEIVER)
    CHECK(s->recvd >= s->sent_done, "%s: %llu completed at the sender, %llu received (lost)", tag,
          (unsigned long long)s->sent_done, (unsigned long long)s->recvd);
  CHECK(s->recvd <= s->total, "%s: more received than sent", tag);
  munmap(s, sizeof *s);
  if (v == V_NICD) {
    nicd = fnicd_start();
    CHECK(nicd > 0, "%s: nicd could not be restarted", tag);
    if (nicd > 0) clean_run(L, seed, "after the restart");
  }
}

/* A second nicd on the same names while the first runs must refuse, naming the live pid;
 * the first keeps serving. */
static void second_nicd_refused(void) {
  char cmd[512], out[512] = "";
  snprintf(cmd, sizeof cmd, "%s -n 2 --run %s --prefix %.*s 2>&1", getenv("NICD") ? getenv("NICD") : "build/bin/nicd",
           fnicd_run(), (int)(strlen(fnicd_dev(0)) - 1), fnicd_dev(0));
  FILE *p = popen(cmd, "r");
  size_t n = p ? fread(out, 1, sizeof out - 1, p) : 0;
  out[n] = 0;
  int st = p ? pclose(p) : -1;
  char pid[32];
  snprintf(pid, sizeof pid, "pid %d", (int)nicd);
  CHECK(st != 0 && strstr(out, pid), "a second nicd on live names: exit %d, said: %s", st, out);
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Detection times after the fault, by moment: during set-up a survivor learns only by its
 * own timeout (500 ms here); afterwards by the break. */
static void report(struct lib *L) {
  for (int m = 0; m < M_N; m++) {
    unsigned n = L->ndet[m];
    if (!n) continue;
    double *d = L->det[m];
    qsort(d, n, sizeof d[0], cmp);
    printf("%-6s %-10s detection after the fault: %3u errors, min %6.1f ms, median %6.1f ms, max %6.1f ms\n",
           L->name, mname[m], n, d[0], d[n / 2], d[n - 1]);
  }
}

int main(int argc, char **argv) {
  unsigned seeds = 3, seed0 = 1;
  const char *only = NULL;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--seeds")) seeds = (unsigned)atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--seed0")) seed0 = (unsigned)atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--only")) only = argv[i + 1];
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  signal(SIGPIPE, SIG_IGN);
  static struct lib libs[] = {
      {.name = "vipl", .peer = fv_vipl_peer, .total = 400},
      {.name = "sovia", .peer = fv_sovia_peer, .total = 4u << 20},
      {.name = "panic", .peer = fv_panic_peer, .total = 300, .sender_alone = true},
  };
  nicd = fnicd_start();
  if (nicd <= 0 || fv_panic_prepare(fnicd_run()) != 0) {
    printf("0 passed, 1 failed\n");
    return 1;
  }
  second_nicd_refused();
  for (size_t l = 0; l < sizeof libs / sizeof libs[0]; l++) {
    struct lib *L = &libs[l];
    if (only && strcmp(only, L->name)) continue;
    clean_run(L, seed0, "before faults");
    for (unsigned sd = seed0; sd < seed0 + seeds; sd++)
      for (int v = 0; v < V_N; v++)
        for (int m = 0; m < M_N; m++) {
          int f0 = failed;
          one(L, (enum victim)v, (enum moment)m, sd);
          printf("%s %s seed %u: %s killed at %s\n", failed == f0 ? "ok  " : "FAIL", L->name, sd,
                 vname[v], mname[m]);
          if (nicd <= 0) goto out;
        }
    report(L);
  }
out:
  fnicd_stop(nicd);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
