/* fnicd.c: the fault suite's nicd (faults.h): restartable under fixed names, and the shared
 * record's helpers. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "faults.h"
#include "libnic.h"

static char run_dir[128], prefix[64], names[2][80];

static void names_once(void) {
  if (prefix[0]) return;
  snprintf(prefix, sizeof prefix, "/vf%d-nic", (int)getpid());
  snprintf(run_dir, sizeof run_dir, "/tmp/faults-%d", (int)getpid());
  for (int i = 0; i < 2; i++) snprintf(names[i], sizeof names[i], "%s%d", prefix, i);
}

const char *fnicd_dev(int i) { names_once(); return names[i & 1]; }
const char *fnicd_run(void) { names_once(); return run_dir; }

uint64_t fnow_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool serving(void) {
  char sock[200];
  snprintf(sock, sizeof sock, "%s/nicd.sock", run_dir);
  struct stat sb;
  if (stat(sock, &sb) != 0) return false;
  for (int i = 0; i < 2; i++) {
    struct lnic_dev *d;
    if (lnic_open(names[i], &d) != 0) return false;
    lnic_close(d);
  }
  return true;
}

pid_t fnicd_start(void) {
  names_once();
  mkdir(run_dir, 0700);
  char hosts[200];
  snprintf(hosts, sizeof hosts, "%s/hosts", run_dir);
  FILE *f = fopen(hosts, "w");
  if (f) {
    fprintf(f, "nic0 0\nnic1 1\n10.78.0.1 0\n10.78.0.2 1\n");
    fclose(f);
  }
  setenv("VERINIC_RUN", run_dir, 1);
  unsetenv("VERINIC_HOSTS");
  unsetenv("VERINIC_SOCKET");
  const char *bin = getenv("NICD") ? getenv("NICD") : "build/bin/nicd";
  pid_t pid = fork();
  if (pid == 0) {
    char log[200];
    snprintf(log, sizeof log, "%s/nicd.log", run_dir);
    if (!freopen(log, "a", stdout) || !freopen(log, "a", stderr)) _exit(126);
    execl(bin, "nicd", "-n", "2", "--run", run_dir, "--prefix", prefix, (char *)NULL);
    _exit(127);
  }
  /* A nicd restarted at once can see its socket still there from the dead one: wait for
   * the windows to answer too. */
  for (int tries = 0; tries < 1000; tries++) {
    struct timespec ts = {0, 10000000};
    nanosleep(&ts, NULL);
    int st;
    if (waitpid(pid, &st, WNOHANG) == pid) {
      fprintf(stderr, "fnicd: nicd exited (status %d); see %s/nicd.log\n", st, run_dir);
      return -1;
    }
    if (serving()) return pid;
  }
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  return -1;
}

void fnicd_kill(pid_t p) {
  if (p <= 0) return;
  kill(p, SIGKILL);
  waitpid(p, NULL, 0);
}

void fnicd_stop(pid_t p) {
  if (p > 0) {
    kill(p, SIGTERM);
    waitpid(p, NULL, 0);
  }
  char cmd[200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", run_dir);
  if (system(cmd) != 0) fprintf(stderr, "fnicd: could not remove %s\n", run_dir);
}

void fs_phase(struct fshared *s, int role, enum fphase p) { atomic_store(&s->phase[role], p); }

void fs_error(struct fshared *s, int role) {
  uint64_t zero = 0;
  atomic_compare_exchange_strong(&s->err_ns[role], &zero, fnow_ns());
  int running = FR_RUNNING;
  atomic_compare_exchange_strong(&s->result[role], &running, FR_ERROR);
}

void fs_broken(struct fshared *s, int role, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->why[role], sizeof s->why[role], fmt, ap);
  va_end(ap);
  atomic_store(&s->result[role], FR_BROKEN);
}

uint8_t fs_pat(uint64_t seq, uint32_t i) {
  uint64_t x = (seq * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)(i >> 3) * 0xBF58476D1CE4E5B9ull);
  x ^= x >> 31;
  return (uint8_t)(x >> (8 * (i & 7)));
}
