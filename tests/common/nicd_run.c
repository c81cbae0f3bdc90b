/* nicd_run.c: the tests' private nicd, one per process (nicd_run.h). */
#define _GNU_SOURCE
#include "nicd_run.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libnic.h"

#define NICD_RUN_MAX 16   /* nicd's NICD_MAX_NICS */

static char run_dir[128], prefix[64];
static char names[NICD_RUN_MAX][80];
static int nnics;

/* The run directory and window names of this process (kept by its forked children). */
static void name_once(void) {
  if (prefix[0]) return;
  snprintf(prefix, sizeof prefix, "/vt%d-nic", (int)getpid());
  snprintf(run_dir, sizeof run_dir, "/tmp/nicd-test-%d", (int)getpid());
  for (int i = 0; i < NICD_RUN_MAX; i++) snprintf(names[i], sizeof names[i], "%s%d", prefix, i);
}

const char *nicd_dev(int i) {
  name_once();
  return i >= 0 && i < NICD_RUN_MAX ? names[i] : "/nicd-run-no-such-nic";
}

/* Windows of ours left by a nicd that was killed are removed; a live one means our names
 * are taken. */
static int windows_free(int n) {
  for (int i = 0; i < n; i++) {
    struct hwin w;
    if (hwin_open(&w, names[i]) != 0) continue;
    bool alive = hwin_nic_alive(&w);
    hwin_close(&w);
    if (alive) {
      fprintf(stderr, "nicd_start: %s exists (another nicd is running)\n", names[i]);
      return -1;
    }
    shm_unlink(names[i]);
  }
  return 0;
}

static bool all_up(int n) {
  char sock[200];
  snprintf(sock, sizeof sock, "%s/nicd.sock", run_dir);
  struct stat sb;
  if (stat(sock, &sb) != 0) return false;
  for (int i = 0; i < n; i++) {
    struct lnic_dev *d;
    if (lnic_open(names[i], &d) != 0) return false;
    lnic_close(d);
  }
  return true;
}

/* $VERINIC_FIRMWARE: "native" (or unset) for nicd's built-in firmware, "lanai" for the LANai
 * image ($VERINIC_LANAI_IMAGE, default build/lanai/firmware.img) on the simulator. NULL for
 * anything else. */
static const char *firmware_image(bool *lanai) {
  const char *fw = getenv("VERINIC_FIRMWARE");
  *lanai = fw && strcmp(fw, "lanai") == 0;
  if (fw && *fw && !*lanai && strcmp(fw, "native") != 0) return NULL;
  const char *img = getenv("VERINIC_LANAI_IMAGE");
  return img && *img ? img : "build/lanai/firmware.img";
}

pid_t nicd_start(int n, bool fast) {
  const char *bin = getenv("NICD");
  if (!bin) bin = "build/bin/nicd";
  bool lanai;
  const char *image = firmware_image(&lanai);
  if (!image) {
    fprintf(stderr, "nicd_start: VERINIC_FIRMWARE=%s: not native or lanai\n",
            getenv("VERINIC_FIRMWARE"));
    return -1;
  }
  if (n < 1 || n > NICD_RUN_MAX) {
    fprintf(stderr, "nicd_start: %d NICs (1..%d)\n", n, NICD_RUN_MAX);
    return -1;
  }
  name_once();
  if (windows_free(n) != 0) return -1;
  nnics = n;
  setenv("VERINIC_RUN", run_dir, 1);
  unsetenv("VERINIC_HOSTS");
  unsetenv("VERINIC_SOCKET");
  char nstr[8];
  snprintf(nstr, sizeof nstr, "%d", n);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    /* A test that ends early (a failed check, a timeout's kill) must not leave its nicd
     * holding the test's output pipe open: a test run would wait on it for ever. */
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent) _exit(127);
    const char *argv[16] = {"nicd", "-n", nstr, "--run", run_dir, "--prefix", prefix};
    int k = 7;
    const char *prof = getenv("VERINIC_TIMING"), *trace = getenv("VERINIC_TIMING_TRACE");
    if (prof && *prof) {
      fast = false, lanai = true;
      argv[k++] = "--timing", argv[k++] = prof;
      if (trace && *trace) argv[k++] = "--trace", argv[k++] = trace;
      const char *coarse = getenv("VERINIC_TIMING_COARSE");
      if (coarse && *coarse) argv[k++] = "--coarse";
    }
    if (fast) argv[k++] = "--fast";
    if (lanai) argv[k++] = "--lanai", argv[k++] = image;
    const char *cpus = getenv("VERINIC_CPUS");
    if (cpus && *cpus) argv[k++] = "--cpus", argv[k++] = cpus;
    argv[k] = NULL;
    execv(bin, (char *const *)argv);
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
    if (all_up(n)) return pid;
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
  if (kill9)
    for (int i = 0; i < nnics; i++) shm_unlink(names[i]);
  char cmd[200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", run_dir);
  if (system(cmd) != 0) fprintf(stderr, "nicd_stop: could not remove %s\n", run_dir);
}
