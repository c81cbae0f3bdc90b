/* nicd for the end-to-end tests (see nicd_run.h). */
#define _GNU_SOURCE
#include "nicd_run.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libnic.h"

static char run_dir[128];

pid_t nicd_start(int n, bool fast) {
  const char *bin = getenv("NICD");
  if (!bin) bin = "build/bin/nicd";
  for (int i = 0; i < n; i++) {
    char wn[64];
    snprintf(wn, sizeof wn, "/verinic-nic%d", i);
    struct hwin w;
    if (hwin_open(&w, wn) != 0) continue;
    bool alive = hwin_nic_alive(&w);
    hwin_close(&w);
    if (alive) {
      fprintf(stderr, "nicd_start: %s exists (another nicd is running)\n", wn);
      return -1;
    }
    shm_unlink(wn);   /* left behind by a nicd that was killed */
  }
  snprintf(run_dir, sizeof run_dir, "/tmp/vipl-e2e-%d", (int)getpid());
  setenv("VERINIC_RUN", run_dir, 1);
  unsetenv("VERINIC_HOSTS");
  char nstr[8];
  snprintf(nstr, sizeof nstr, "%d", n);
  pid_t pid = fork();
  if (pid == 0) {
    if (fast) execl(bin, "nicd", "-n", nstr, "--fast", "--run", run_dir, (char *)NULL);
    else execl(bin, "nicd", "-n", nstr, "--run", run_dir, (char *)NULL);
    perror(bin);
    _exit(127);
  }
  for (int tries = 0; tries < 500; tries++) {
    struct timespec ts = {0, 10000000};
    nanosleep(&ts, NULL);
    int st;
    if (waitpid(pid, &st, WNOHANG) == pid) {
      fprintf(stderr, "nicd_start: nicd exited (status %d)\n", st);
      return -1;
    }
    char sock[200];
    snprintf(sock, sizeof sock, "%s/nicd.sock", run_dir);
    struct stat sb;
    if (stat(sock, &sb) != 0) continue;
    int up = 0;
    for (int i = 0; i < n; i++) {
      char dev[16];
      snprintf(dev, sizeof dev, "nic%d", i);
      struct lnic_dev *d;
      if (lnic_open(dev, &d) == 0) {
        up++;
        lnic_close(d);
      }
    }
    if (up == n) return pid;
  }
  fprintf(stderr, "nicd_start: nicd did not come up\n");
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  return -1;
}

void nicd_stop(pid_t pid, bool kill9) {
  if (pid <= 0) return;
  kill(pid, kill9 ? SIGKILL : SIGTERM);
  waitpid(pid, NULL, 0);
  if (kill9) {
    for (int i = 0; i < 8; i++) {
      char wn[64];
      snprintf(wn, sizeof wn, "/verinic-nic%d", i);
      shm_unlink(wn);
    }
  }
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", run_dir);
  if (system(cmd) != 0) fprintf(stderr, "nicd_stop: could not remove %s\n", run_dir);
}
