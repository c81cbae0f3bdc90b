/* test_panic_e2e.c: the PANIC VM in the running firmware, end to end, through libpanic against
 * a private nicd with two NICs (real processes and shared memory):
 *   - PANIC Fig. 2: ping.pdl on NIC 0 (loaded and run locally), echo.pdl on NIC 1 (loaded and
 *     run remotely from NIC 0), 100 round trips; the 200 timestamps read back through DISPLAY
 *     are paired (each reply after its request) and monotone;
 *   - PANIC Fig. 4: delivertest.pdl DELIVERs into an attached host segment: the bytes checked;
 *   - GET, and the lock/flag handshake of section 3.3 (sync.pdl); a program may not set a lock;
 *   - control errors: id in use, no such program, run twice, no trigger block, remote list and
 *     unload, a remote command to a node that does not exist times out (never hangs);
 *   - the counters nicstat prints. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "../common/nicd_run.h"
#include "libnic.h"
#include "panic.h"
#include "vm_format.h"

static char tmp[128];

/* Compiles a PDL file with pdlc into tmp; the module's path. */
static const char *compile(const char *src, const char *name) {
  static char out[8][200];
  static int k;
  char *o = out[k++ & 7];
  snprintf(o, 200, "%s/%s.pvm", tmp, name);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "%s -o %s %s", getenv("PDLC") ? getenv("PDLC") : "build/bin/pdlc", o, src);
  CHECK(system(cmd) == 0, "pdlc %s", src);
  return o;
}

static void t_fig2(struct panic_dev *p0) {
  struct panic_res r;
  uint16_t n0 = panic_node(p0), n1 = (uint16_t)(n0 + 1);
  CHECK(panic_load_file(p0, n1, 415, compile("tests/panic/echo.pdl", "echo"), &r) == 0,
        "remote load echo: status %u", r.status);
  CHECK(panic_run(p0, n1, 415, &r) == 0 && r.result == 0, "remote run echo: %u", r.status);
  CHECK(panic_route(p0, 0x00000060dd7fff8cull, n1, false, &r) == 0, "route Fig. 2's address");
  CHECK(panic_load_file(p0, n0, 1, compile("tests/pdl/examples/ping.pdl", "ping"), &r) == 0,
        "load ping: %u", r.status);
  CHECK(panic_run(p0, n0, 1, &r) == 0, "run ping: %u", r.status);
  struct hostif_panic_display d[256];
  int got = 0;
  for (int tries = 0; tries < 500 && got < 200; tries++) {
    int n = panic_display_read(p0, d + got, (unsigned)(256 - got));
    got += n > 0 ? n : 0;
    if (got < 200) usleep(10000);
  }
  CHECK(got == 200, "DISPLAY gave %d values, want 200", got);
  int paired = 1, monotone = 1;
  for (int i = 0; i + 1 < got; i += 2) {
    uint32_t sent = (uint32_t)d[i].value, rec = (uint32_t)d[i + 1].value;
    if (d[i].prog != 1 || d[i + 1].prog != 1) paired = 0;
    if (rec - sent == 0 || rec - sent > 0x80000000u) paired = 0;   /* clock mod 2^32 */
    if (i + 2 < got && (uint32_t)d[i + 2].value - rec > 0x80000000u) monotone = 0;
  }
  CHECK(paired, "every reply after its request");
  CHECK(monotone, "timestamps monotone");
  struct hostif_panic_prog l[8];
  unsigned n = 0;
  CHECK(panic_list(p0, n1, l, 8, &n, &r) == 0 && n == 1 && l[0].id == 415 &&
            l[0].activations == 101 && strcmp(l[0].name, "echo") == 0,
        "remote list: %u programs, activations %u", n, n ? l[0].activations : 0);
  CHECK(panic_list(p0, n0, l, 8, &n, &r) == 0 && n == 1 && l[0].state == 3, "ping stopped");
  CHECK(panic_send(p0, n0, 1, 10, NULL, 0, &r) == -EALREADY, "a stopped program takes no message");
  CHECK(panic_unload(p0, n1, 415, &r) == 0 && panic_unload(p0, n0, 1, &r) == 0, "unload both");
  CHECK(panic_unload(p0, n1, 415, &r) == -ENOENT, "remote unload of a gone program: ENOENT");
}

static void t_fig4(struct panic_dev *p0) {
  struct panic_res r;
  uint16_t n0 = panic_node(p0);
  struct panic_seg *s;
  CHECK(panic_seg_create(p0, 2, 4096, 0, &s) == 0, "segment 2");
  memset(panic_seg_base(s), 0xee, 4096);
  CHECK(panic_load_file(p0, n0, 4, compile("tests/pdl/examples/delivertest.pdl", "deliver"), &r) == 0,
        "load delivertest");
  CHECK(panic_run(p0, n0, 4, &r) == 0, "run delivertest");
  CHECK(panic_send(p0, n0, 4, 10, NULL, 0, &r) == 0 && r.result == 0, "trigger 10: %u/%u",
        r.status, r.result);
  const int32_t *w = panic_seg_base(s);
  int ok = w[0] == 2 && w[1] == 3 && w[2] == 4;
  for (int i = 3; i < 16; i++) ok &= w[i] == 0;
  const uint8_t *b = panic_seg_base(s);
  for (int i = 64; i < 4096; i++) ok &= b[i] == 0xee;
  CHECK(ok, "Fig. 4: msg[0..15] (2, 3, 4, 0...) in host memory, nothing beyond 64 bytes");
  CHECK(panic_send(p0, n0, 4, 11, NULL, 0, &r) == -EINVAL && r.result == 7, "no block for trigger 11");
  panic_seg_destroy(s);
  CHECK(panic_send(p0, n0, 4, 10, NULL, 0, &r) == -ECANCELED && r.result == 5,
        "DELIVER into a detached segment: fault-service (%u)", r.result);
  CHECK(panic_unload(p0, n0, 4, &r) == 0, "unload");
}

static void t_sync(struct panic_dev *p0) {
  struct panic_res r;
  uint16_t n0 = panic_node(p0);
  struct panic_seg *s;
  CHECK(panic_seg_create(p0, 3, 4096, HOSTIF_PANIC_SEG_SYNC, &s) == 0, "segment 3 with locks");
  uint32_t *w = panic_seg_base(s);
  for (int i = 0; i < 16; i++) w[16 + i] = 1000u + (uint32_t)i;   /* offset 64 */
  CHECK(panic_load_file(p0, n0, 5, compile("tests/panic/sync.pdl", "sync"), &r) == 0, "load sync");
  CHECK(panic_run(p0, n0, 5, &r) == 0, "run sync");
  CHECK(panic_send(p0, n0, 5, 1, NULL, 0, &r) == 0, "GET + DELIVER");
  int ok = 1;
  for (int i = 0; i < 16; i++) ok &= w[32 + i] == 1000u + (uint32_t)i;
  CHECK(ok, "GET then DELIVER copied offset 64 to 128");
  /* Without the lock the program does nothing. */
  CHECK(panic_send(p0, n0, 5, 2, NULL, 0, &r) == 0, "trigger 2 without the lock");
  uint32_t v = 0;
  CHECK(panic_flag_wait(s, 0, 20000000, &v) == -ETIMEDOUT, "no flag without the lock");
  CHECK(panic_lock_set(s, 0) == 0 && panic_lock_held(s, 0), "host sets lock 0");
  CHECK(panic_send(p0, n0, 5, 2, NULL, 0, &r) == 0, "trigger 2 with the lock");
  CHECK(panic_flag_wait(s, 0, 2000000000, &v) == 0 && v == 1, "NIC set flag 0");
  CHECK(!panic_lock_held(s, 0), "NIC cleared lock 0");
  CHECK(w[48] == 1001u && w[49] == 1001u, "the answer is in place before the flag");
  CHECK(panic_flag_clear(s, 0) == 0 && w[8] == 0, "host clears flag 0");
  CHECK(panic_send(p0, n0, 5, 3, NULL, 0, &r) == -ECANCELED && r.result == 5 && w[1] == 0,
        "a program may not set a lock (fault-service)");
  panic_seg_destroy(s);
  CHECK(panic_unload(p0, n0, 5, &r) == 0, "unload sync");
}

static void t_errors(struct panic_dev *p0) {
  struct panic_res r;
  uint16_t n0 = panic_node(p0);
  const char *echo = compile("tests/panic/echo.pdl", "echo2");
  CHECK(panic_load_file(p0, n0, 9, echo, &r) == 0, "load");
  CHECK(panic_load_file(p0, n0, 9, echo, &r) == -EEXIST, "same id twice: EEXIST");
  CHECK(panic_send(p0, n0, 9, 12, "x", 1, &r) == -EALREADY, "trigger before the initial block");
  CHECK(panic_run(p0, n0, 9, &r) == 0, "run");
  CHECK(panic_run(p0, n0, 9, &r) == -EALREADY, "run twice");
  CHECK(panic_run(p0, n0, 77, &r) == -ENOENT, "no such program");
  CHECK(panic_load(p0, n0, 10, "PVM2xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 44, &r) == -EBADMSG &&
            r.result == VM_ERR_BAD_MAGIC && r.detail == 0,
        "garbage rejected: %s at %u", panic_vm_err_name(r.result), r.detail);
  char big[HOSTIF_PANIC_MSG_MAX + 1] = {0};
  CHECK(panic_send(p0, n0, 9, 12, big, sizeof big, &r) == -EMSGSIZE, "message too long");
  CHECK(panic_unload(p0, n0, 9, &r) == 0, "unload");
  panic_set_timeout(p0, 3000000000ll);
  uint64_t t0 = lnic_now_ns();
  CHECK(panic_run(p0, 9, 1, &r) == -ETIMEDOUT && r.status == HOSTIF_PANIC_ETIMEDOUT,
        "a node nobody answers for: the firmware's timeout (%u)", r.status);
  CHECK(lnic_now_ns() - t0 < 2000000000ull, "in about HOSTIF_PANIC_REMOTE_MS");
}

int main(void) {
  snprintf(tmp, sizeof tmp, "/tmp/panic-e2e-%d", (int)getpid());
  char cmd[200];
  snprintf(cmd, sizeof cmd, "mkdir -p %s", tmp);
  if (system(cmd) != 0) return 1;
  pid_t nicd = nicd_start(2, false);
  CHECK(nicd > 0, "nicd started");
  if (nicd <= 0) {
    printf("%d passed, %d failed\n", passed, failed);
    return 1;
  }
  struct panic_dev *p0;
  int rc = panic_open(nicd_dev(0), &p0);
  CHECK(rc == 0, "panic_open: %d", rc);
  if (rc == 0) {
    t_fig2(p0);
    t_fig4(p0);
    t_sync(p0);
    t_errors(p0);
    struct lnic_dev *d;
    if (lnic_open(nicd_dev(0), &d) == 0) {
      volatile struct hostif_panic_counters *c = &lnic_hostif_counters(d)->panic;
      CHECK(c->activations >= 100 && c->dma_activations >= 4 && c->tx_pkts >= 100 &&
                c->rx_pkts >= 100 && c->ctl_remote >= 5 && c->ctl_timeouts == 1 &&
                c->abort_service >= 2 && c->dma_bytes >= 64 + 64 + 64 + 64 + 4 + 4,
            "counters: %lu activations, %lu with DMA, %lu/%lu packets, %lu remote, %lu timeouts",
            (unsigned long)c->activations, (unsigned long)c->dma_activations,
            (unsigned long)c->tx_pkts, (unsigned long)c->rx_pkts, (unsigned long)c->ctl_remote,
            (unsigned long)c->ctl_timeouts);
      lnic_close(d);
    }
    panic_close(p0);
  }
  nicd_stop(nicd, false);
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
  if (system(cmd) != 0) return 1;
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
