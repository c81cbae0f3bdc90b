/* pn_nicd.c: the PANIC tests' private nicd (pn_nicd.h). */
#define _GNU_SOURCE
#include "pn_nicd.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libnic.h"

static char run_dir[128], prefix[64];
static char names[16][80];

const char *pn_dev(int i) {
  snprintf(names[i & 15], sizeof names[0], "%s%d", prefix, i);
  return names[i & 15];
}

pid_t pn_nicd_start(int n, bool fast) {
  const char *bin = getenv("NICD");
  if (!bin) bin = "build/bin/nicd";
  snprintf(prefix, sizeof prefix, "/vpt%d-nic", (int)getpid());
  snprintf(run_dir, sizeof run_dir, "/tmp/panic-test-%d", (int)getpid());
  setenv("VERINIC_RUN", run_dir, 1);
  unsetenv("VERINIC_HOSTS");
  char nstr[8];
  snprintf(nstr, sizeof nstr, "%d", n);
  pid_t pid = fork();
  if (pid == 0) {
    execl(bin, "nicd", "-n", nstr, "--run", run_dir, "--prefix", prefix,
          fast ? "--fast" : (char *)NULL, (char *)NULL);
    perror(bin);
    _exit(127);
  }
  for (int tries = 0; tries < 500; tries++) {
    struct timespec ts = {0, 10000000};
    nanosleep(&ts, NULL);
    int st;
    if (waitpid(pid, &st, WNOHANG) == pid) {
      fprintf(stderr, "pn_nicd_start: nicd exited (status %d)\n", st);
      return -1;
    }
    int up = 0;
    for (int i = 0; i < n; i++) {
      struct lnic_dev *d;
      if (lnic_open(pn_dev(i), &d) == 0) {
        up++;
        lnic_close(d);
      }
    }
    if (up == n) return pid;
  }
  fprintf(stderr, "pn_nicd_start: nicd did not come up\n");
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  return -1;
}

void pn_nicd_stop(pid_t pid) {
  if (pid <= 0) return;
  kill(pid, SIGTERM);
  waitpid(pid, NULL, 0);
  char cmd[200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", run_dir);
  if (system(cmd) != 0) fprintf(stderr, "pn_nicd_stop: could not remove %s\n", run_dir);
}
