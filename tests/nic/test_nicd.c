/* test_nicd.c: nicd as a real process. Starts build/bin/nicd with two NICs (private window
 * names and run directory), maps its windows, connects VIs through the connection manager
 * socket (WAIT/CONNECT/ACCEPT, REJECT, PASS, RESOLVE, DISCONNECT), moves messages with raw hostif
 * writes and doorbells while waiting on host signals, then stops nicd with SIGTERM and with
 * SIGKILL: a waiting host must see -EPIPE, not hang. Prints "N passed, N failed". */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "futex.h"
#include "rawhost.h"

#define PTAG 0x77u

#include "../check.h"
#include "wait.h"

static char rundir[64], sockpath[96], prefix[64];

static pid_t start_nicd(void) {
  pid_t p = fork();
  if (p == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    execl("build/bin/nicd", "nicd", "-n", "2", "--run", rundir, "--prefix", prefix, (char *)0);
    _exit(127);
  }
  return p;
}

static int cm_open(void) {
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  snprintf(a.sun_path, sizeof a.sun_path, "%s", sockpath);
  for (int i = 0; i < 500; i++) {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) return fd;
    close(fd);
    usleep(10000);
  }
  return -1;
}

static void cm_send(int fd, const char *line) {
  if (write(fd, line, strlen(line)) < 0) perror("write");
}

/* One reply line (blocking, 5 s at most). */
static const char *cm_read(int fd) {
  static char buf[300];
  size_t n = 0;
  struct timeval tv = {5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  while (n < sizeof buf - 1) {
    ssize_t r = read(fd, buf + n, 1);
    if (r <= 0) break;
    if (buf[n] == '\n') break;
    n++;
  }
  buf[n] = 0;
  return buf;
}

/* Sends "VERB ID" on s (REJECT, PASS); its reply. */
static const char *cm_answer(int s, const char *verb, int id) {
  char line[64];
  snprintf(line, sizeof line, "%s %d\n", verb, id);
  cm_send(s, line);
  return cm_read(s);
}

static bool wait_done(struct hwin *w, unsigned vi, bool sq, uint32_t n, int *err) {
  uint64_t until = futex_now_ns() + 10000000000ull;
  while (rh_done(w, vi, sq) < n) {
    uint32_t got;
    int rc = wait_signal(w->regs, HOSTIF_SIG_VI(vi), 100000000, WAIT_HOST_SPIN_NS, NULL, NULL, &got);
    if (rc == -EPIPE) { *err = rc; return false; }
    if (futex_now_ns() > until) { *err = -ETIMEDOUT; return false; }
  }
  return true;
}

static void fill(uint8_t *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(seed + i * 13 + (i >> 9));
}

static struct hostif_desc one(uint16_t op, uint64_t a, uint32_t len) {
  return rh_desc(op, PTAG, 1, &a, &len);
}

int main(void) {
  snprintf(rundir, sizeof rundir, "/tmp/verinic-test-%d", (int)getpid());
  snprintf(sockpath, sizeof sockpath, "%s/nicd.sock", rundir);
  snprintf(prefix, sizeof prefix, "/vnt%d-nic", (int)getpid());
  pid_t nicd = start_nicd();
  int s1 = cm_open();
  CHECK(s1 >= 0, "cannot reach nicd's socket %s", sockpath);
  if (s1 < 0) { kill(nicd, SIGKILL); printf("%d passed, %d failed\n", passed, failed); return 1; }
  struct hwin w[2];
  char name[80];
  for (int i = 0; i < 2; i++) {
    snprintf(name, sizeof name, "%s%d", prefix, i);
    CHECK(hwin_open(&w[i], name) == 0, "hwin_open %s", name);
    for (int k = 0; k < 500 && !rh_ready(&w[i]); k++) usleep(1000);
    CHECK(rh_ready(&w[i]), "firmware of NIC %d not ready", i);
  }
  cm_send(s1, "PING\n");
  CHECK(!strcmp(cm_read(s1), "OK nicd 2"), "PING");
  cm_send(s1, "RESOLVE nic1\n");
  CHECK(!strcmp(cm_read(s1), "OK 1"), "RESOLVE nic1");
  cm_send(s1, "RESOLVE nosuch\n");
  CHECK(!strncmp(cm_read(s1), "ERR NOMATCH", 11), "RESOLVE nosuch");

  /* Connection set-up: NIC 0 VI 3 waits on discriminator c0ffee, NIC 1 VI 2 connects. */
  rh_vi_create(&w[0], 3, PTAG, HOSTIF_UNRELIABLE);
  rh_vi_create(&w[1], 2, PTAG, HOSTIF_UNRELIABLE);
  rh_vi_create(&w[1], 4, PTAG, HOSTIF_UNRELIABLE);
  rh_vi(&w[0], 3)->owner_pid = rh_vi(&w[1], 2)->owner_pid = (uint32_t)getpid();
  int s2 = cm_open();
  cm_send(s2, "CONNECT 1 4 0 c0ffee -\n");       /* first a request that gets rejected */
  cm_send(s1, "WAIT 0 c0ffee\n");
  int id;
  const char *r = cm_read(s1);
  CHECK(sscanf(r, "OK REQUEST %d 1 4 - 0", &id) == 1, "WAIT: %s", r);
  CHECK(!strcmp(cm_answer(s1, "REJECT", id), "OK"), "REJECT");
  CHECK(!strncmp(cm_read(s2), "ERR REJECTED", 12), "rejected requester");

  /* PASS: a request given back goes to the next WAIT; its requester hears only the end */
  cm_send(s2, "CONNECT 1 4 0 c0ffee -\n");
  cm_send(s1, "WAIT 0 c0ffee\n");
  r = cm_read(s1);
  CHECK(sscanf(r, "OK REQUEST %d 1 4 - 0", &id) == 1, "WAIT before PASS: %s", r);
  CHECK(!strcmp(cm_answer(s1, "PASS", id), "OK"), "PASS");
  CHECK(!strncmp(cm_answer(s1, "PASS", id), "ERR NOMATCH", 11), "PASS again: the request is no longer this client's");
  int s3 = cm_open(), id2 = -1;
  cm_send(s3, "WAIT 0 c0ffee\n");
  r = cm_read(s3);
  CHECK(sscanf(r, "OK REQUEST %d 1 4 - 0", &id2) == 1 && id2 == id, "the passed request goes to the next WAIT: %s", r);
  CHECK(!strcmp(cm_answer(s3, "REJECT", id2), "OK"), "REJECT after PASS");
  CHECK(!strncmp(cm_read(s2), "ERR REJECTED", 12), "the requester hears once, at the REJECT");
  close(s3);
  cm_send(s1, "WAIT 0 c0ffee\n");
  cm_send(s2, "CONNECT 1 2 0 c0ffee ab\n");
  r = cm_read(s1);
  CHECK(sscanf(r, "OK REQUEST %d 1 2 ab 0", &id) == 1, "WAIT: %s", r);
  char line[100];
  snprintf(line, sizeof line, "ACCEPT %d 0 3\n", id);
  cm_send(s1, line);
  CHECK(!strcmp(cm_read(s1), "OK CONNECTED 1 2"), "ACCEPT reply");
  CHECK(!strcmp(cm_read(s2), "OK CONNECTED 0 3"), "CONNECT reply");
  CHECK(rh_vi(&w[0], 3)->state == HOSTIF_VI_CONNECTED && rh_vi(&w[1], 2)->state == HOSTIF_VI_CONNECTED &&
            rh_vi(&w[0], 3)->remote_node == 1 && rh_vi(&w[0], 3)->remote_vi == 2,
        "VI table after ACCEPT");

  /* Data: one 300 KB message and 200 small ones, NIC 0 -> NIC 1, over nicd. */
  struct hostmem m;
  CHECK(hostmem_create(&m, 4u << 20) == 0, "hostmem");
  uint64_t a0, a1;
  hwin_region_add(&w[0], &m, 0, 2u << 20, PTAG, HW_ACC_NIC_READ | HW_ACC_NIC_WRITE, &a0);
  hwin_region_add(&w[1], &m, 2u << 20, 2u << 20, PTAG, HW_ACC_NIC_READ | HW_ACC_NIC_WRITE, &a1);
  uint32_t big = 300000;
  fill((uint8_t *)(uintptr_t)a0, big, 3);
  memset((void *)(uintptr_t)a1, 0, big);
  struct hostif_desc d = one(HOSTIF_OP_RECV, a1, big);
  rh_post(&w[1], 2, false, &d);
  d = one(HOSTIF_OP_SEND, a0, big);
  rh_post(&w[0], 3, true, &d);
  int err = 0;
  bool ok = wait_done(&w[1], 2, false, 1, &err) && wait_done(&w[0], 3, true, 1, &err);
  if (!ok) {
    struct hostif_vi *v0 = rh_vi(&w[0], 3), *v1 = rh_vi(&w[1], 2);
    volatile struct hostif_counters *c0 = rh_counters(&w[0]), *c1 = rh_counters(&w[1]);
    printf("sq %u/%u/%u rq %u/%u/%u tx %llu rx %llu drops novi %llu nodesc %llu mal %llu sum %llu prot %llu fmt %llu, clock %llu ev0 %llu\n",
           v0->sq.prod, v0->sq.cons, v0->sq.done, v1->rq.prod, v1->rq.cons, v1->rq.done,
           (unsigned long long)c0->tx_msgs, (unsigned long long)c1->rx_msgs,
           (unsigned long long)c1->rx_drop_no_vi, (unsigned long long)c1->rx_drop_no_desc,
           (unsigned long long)c1->rx_drop_malformed, (unsigned long long)c1->rx_drop_checksum,
           (unsigned long long)c1->protection_errors, (unsigned long long)c0->format_errors,
           (unsigned long long)w[0].regs->clock_ns, (unsigned long long)c0->events[7]);
  }
  CHECK(ok && rh_slot(&w[1], 2, false, 0).status == HOSTIF_ST_DONE &&
            rh_slot(&w[1], 2, false, 0).done_len == big &&
            memcmp((void *)(uintptr_t)a0, (void *)(uintptr_t)a1, big) == 0,
        "300 KB through nicd: ok %d err %d status %u", ok, err, rh_slot(&w[1], 2, false, 0).status);
  int bad = 0;
  for (uint32_t k = 0; k < 200; k++) {
    uint32_t n = 1 + k * 37 % 5000;
    uint64_t src = a0 + (k % 16) * 8192, dst = a1 + (k % 16) * 8192;
    fill((uint8_t *)(uintptr_t)src, n, k);
    d = one(HOSTIF_OP_RECV, dst, 8192);
    rh_post(&w[1], 2, false, &d);
    d = one(HOSTIF_OP_SEND, src, n);
    rh_post(&w[0], 3, true, &d);
    if (k % 16 == 15 || k == 199) {
      if (!wait_done(&w[1], 2, false, k + 2, &err) || !wait_done(&w[0], 3, true, k + 2, &err)) { bad++; break; }
      for (uint32_t j = k - k % 16; j <= k; j++) {
        uint32_t nj = 1 + j * 37 % 5000;
        struct hostif_desc c = rh_slot(&w[1], 2, false, j + 1);
        if (c.status != HOSTIF_ST_DONE || c.done_len != nj ||
            memcmp((void *)(uintptr_t)(a0 + (j % 16) * 8192), (void *)(uintptr_t)(a1 + (j % 16) * 8192), nj))
          bad++;
      }
    }
  }
  CHECK(bad == 0, "200 messages through nicd: %d wrong (err %d)", bad, err);

  /* DISCONNECT: the peer goes to ERROR and its sends complete DISCONNECTED. */
  cm_send(s1, "DISCONNECT 0 3\n");
  CHECK(!strcmp(cm_read(s1), "OK"), "DISCONNECT");
  CHECK(rh_vi(&w[1], 2)->state == HOSTIF_VI_ERROR && rh_vi(&w[0], 3)->state == HOSTIF_VI_IDLE,
        "states after DISCONNECT: %u %u", rh_vi(&w[1], 2)->state, rh_vi(&w[0], 3)->state);
  uint32_t s0 = rh_done(&w[1], 2, true);
  d = one(HOSTIF_OP_SEND, a1, 10);
  rh_post(&w[1], 2, true, &d);
  ok = wait_done(&w[1], 2, true, s0 + 1, &err);
  CHECK(ok && rh_slot(&w[1], 2, true, s0).status == HOSTIF_ST_DISCONNECTED,
        "send after the peer disconnected: status %u", rh_slot(&w[1], 2, true, s0).status);
  cm_send(s1, "STATS 1\n");
  CHECK(!strncmp(cm_read(s1), "OK tx_msgs=", 11), "STATS");

  /* SIGTERM while a host waits: -EPIPE, nicd exits 0 and cleans up. */
  uint64_t t = futex_now_ns();
  kill(nicd, SIGTERM);
  uint32_t got;
  int rc = wait_signal(w[0].regs, 1u << 31, 5000000000ll, WAIT_HOST_SPIN_NS, NULL, NULL, &got);
  CHECK(rc == -EPIPE && futex_now_ns() - t < 3000000000ull, "wait after SIGTERM: %d", rc);
  int status;
  waitpid(nicd, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "nicd exit status %d", status);
  CHECK(access(sockpath, F_OK) != 0, "socket left behind");
  hwin_close(&w[0]);
  hwin_close(&w[1]);
  close(s1);
  close(s2);

  /* SIGKILL: nobody marks the window stopped; the host notices the process is gone. */
  nicd = start_nicd();
  s1 = cm_open();
  snprintf(name, sizeof name, "%s0", prefix);
  for (int k = 0; k < 500 && hwin_open(&w[0], name) != 0; k++) usleep(10000);
  for (int k = 0; k < 500 && !rh_ready(&w[0]); k++) usleep(1000);
  kill(nicd, SIGKILL);
  waitpid(nicd, &status, 0);
  t = futex_now_ns();
  rc = wait_signal(w[0].regs, 1u << 31, 5000000000ll, WAIT_HOST_SPIN_NS, NULL, NULL, &got);
  CHECK(rc == -EPIPE && futex_now_ns() - t < 3000000000ull, "wait after SIGKILL: %d", rc);
  hwin_close(&w[0]);
  close(s1);
  for (int i = 0; i < 2; i++) {
    snprintf(name, sizeof name, "%s%d", prefix, i);
    shm_unlink(name);
  }
  hostmem_destroy(&m);
  char path[300];
  snprintf(path, sizeof path, "%s/hosts", rundir);
  unlink(path);
  snprintf(path, sizeof path, "%s/nicd.pid", rundir);
  unlink(path);
  unlink(sockpath);
  rmdir(rundir);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
