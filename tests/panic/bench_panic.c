/* `make bench-panic`: PANIC's Fig. 3 on this firmware, beside VIPL, in one run over a private
 * nicd (--fast: transfers take no emulated time, so this measures the firmware, the VM and the
 * emulation). For payloads 4 B..1 KiB:
 *   mcp2mcp   the Fig. 2 ping between PANIC programs on NIC 0 and NIC 1, round trip timed on
 *             the NICs' clocks (CLOCK, read back through DISPLAY), 100 round trips;
 *   send->trig  from the ping's CLOCK before SEND to the echo trigger's first CLOCK on NIC 1
 *             (both NICs' clocks are the daemon's): packet out, across, demultiplexed, started;
 *   VIPL      a host-to-host round trip between two processes over VIPL (reliable), 200 trips.
 * Medians and p99 in microseconds, printed as a table. Not part of `make test`.
 * With VERINIC_TIMING=PROFILE (and VERINIC_FIRMWARE=lanai) the nicd runs in timing mode and
 * every figure is virtual time on that hardware profile (`make bench-paper`). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../bench/stats.h"
#include "../common/nicd_run.h"
#include "libnic.h"
#include "panic.h"
#include "../vipl/vaddr.h"
#include "vipl.h"

#define DISC 0x6b6b
#define TRIPS 100
#define VTRIPS 200
static const uint32_t sizes[] = {4, 64, 256, 1024};
#define NS (sizeof sizes / sizeof sizes[0])

static int compile(const char *src, const char *out) {
  char path[128], cmd[300];
  snprintf(path, sizeof path, "%s.pdl", out);
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs(src, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "build/bin/pdlc -o %s.pvm %s", out, path);
  return system(cmd);
}

/* ---- VIPL ping-pong ---- */
struct ep { VIP_NIC_HANDLE nic; VIP_PROTECTION_HANDLE ptag; VIP_VI_HANDLE vi; uint8_t *buf;
            VIP_DESCRIPTOR *d; VIP_MEM_HANDLE mh, dmh; };

static int ep_open(struct ep *e, const char *dev) {
  VIP_VI_ATTRIBUTES a = {.ReliabilityLevel = VIP_SERVICE_RELIABLE_DELIVERY, .MaxTransferSize = 65536};
  if (VipOpenNic(dev, &e->nic) != VIP_SUCCESS || VipCreatePtag(e->nic, &e->ptag) != VIP_SUCCESS)
    return 1;
  a.Ptag = e->ptag;
  if (VipCreateVi(e->nic, &a, NULL, NULL, &e->vi) != VIP_SUCCESS) return 2;
  e->buf = calloc(2, 4096);
  e->d = aligned_alloc(64, 2 * sizeof *e->d);
  memset(e->d, 0, 2 * sizeof *e->d);
  VIP_MEM_ATTRIBUTES ma = {.Ptag = e->ptag};
  if (VipRegisterMem(e->nic, e->buf, 8192, &ma, &e->mh) != VIP_SUCCESS) return 3;
  if (VipRegisterMem(e->nic, e->d, 2 * sizeof *e->d, &ma, &e->dmh) != VIP_SUCCESS) return 4;
  return 0;
}

static int post_recv(struct ep *e) {
  VIP_DESCRIPTOR *r = &e->d[0];
  memset(r, 0, sizeof *r);
  r->CS.SegCount = 1;
  r->DS[0].Local.Data.Address = e->buf;
  r->DS[0].Local.Handle = e->mh;
  r->DS[0].Local.Length = 4096;
  return VipPostRecv(e->vi, r, e->dmh) == VIP_SUCCESS ? 0 : 1;
}

static int send_wait(struct ep *e, uint32_t len) {
  VIP_DESCRIPTOR *s = &e->d[1], *got;
  memset(s, 0, sizeof *s);
  s->CS.Control = VIP_CONTROL_OP_SENDRECV;
  s->CS.SegCount = 1;
  s->CS.Length = len;
  s->DS[0].Local.Data.Address = e->buf + 4096;
  s->DS[0].Local.Handle = e->mh;
  s->DS[0].Local.Length = len;
  if (VipPostSend(e->vi, s, e->dmh) != VIP_SUCCESS) return 1;
  return VipSendWait(e->vi, 10000, &got) == VIP_SUCCESS ? 0 : 1;
}

static int recv_wait(struct ep *e) {
  VIP_DESCRIPTOR *got;
  return VipRecvWait(e->vi, 10000, &got) == VIP_SUCCESS ? 0 : 1;
}

static int echo_server(void) {
  struct ep e;
  if (ep_open(&e, nicd_dev(1)) || post_recv(&e)) return 10;
  uint8_t raw[64], rraw[64];
  VIP_NET_ADDRESS *la = (VIP_NET_ADDRESS *)raw, *ra = (VIP_NET_ADDRESS *)rraw;
  vaddr_set(la, 1, DISC);
  VIP_CONN_HANDLE conn;
  VIP_VI_ATTRIBUTES rattr;
  if (VipConnectWait(e.nic, la, 20000, ra, &rattr, &conn) != VIP_SUCCESS) return 11;
  if (VipConnectAccept(conn, e.vi) != VIP_SUCCESS) return 12;
  for (unsigned s = 0; s < NS; s++)
    for (int i = 0; i < VTRIPS; i++) {
      if (recv_wait(&e)) return 13;
      uint32_t len = e.d[0].CS.Length;
      if (post_recv(&e) || send_wait(&e, len)) return 14;
    }
  sleep(1);
  return 0;
}

static int vipl_rtts(double med[NS], double p99[NS]) {
  pid_t srv = fork();
  if (srv == 0) _exit(echo_server());
  struct ep e;
  if (ep_open(&e, nicd_dev(0)) || post_recv(&e)) return 1;
  uint8_t raw[64], rraw[64];
  VIP_NET_ADDRESS *la = (VIP_NET_ADDRESS *)raw, *ra = (VIP_NET_ADDRESS *)rraw;
  vaddr_set(la, 0, DISC);
  vaddr_set(ra, 1, DISC);
  VIP_VI_ATTRIBUTES rattr;
  for (int tries = 0; VipConnectRequest(e.vi, la, ra, 20000, &rattr) != VIP_SUCCESS; tries++) {
    if (tries > 50) return 2;
    usleep(20000);
  }
  static double v[VTRIPS];
  for (unsigned s = 0; s < NS; s++) {
    for (int i = 0; i < VTRIPS; i++) {
      double t0 = stats_now_us();
      if (send_wait(&e, sizes[s]) || recv_wait(&e) || post_recv(&e)) return 3;
      v[i] = stats_now_us() - t0;
    }
    stats_med_p99(v, VTRIPS, &med[s], &p99[s]);
  }
  int st;
  lnic_vt_outside(true); /* in timing mode, waiting for the server must not hold virtual time */
  waitpid(srv, &st, 0);
  return 0;
}

int main(void) {
  pid_t nicd = nicd_start(2, true);
  if (nicd <= 0) return 1;
  char dir[64];
  snprintf(dir, sizeof dir, "/tmp/bench-panic-%d", (int)getpid());
  char cmd[128];
  snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
  if (system(cmd) != 0) return 1;
  struct panic_dev *p0, *p1;
  if (panic_open(nicd_dev(0), &p0) || panic_open(nicd_dev(1), &p1)) return 1;
  struct panic_res r;
  char path[128];
  snprintf(path, sizeof path, "%s/echo", dir);
  if (compile("PROGRAM echo: VAR msg[256], n, t; TRIGGERS 12;\nBEGIN AWAIT END;\n"
              "MESSAGE 12: BEGIN t = CLOCK; n = MSGLEN; RECEIVE msg[0] OFFSET 0 LEN n;\n"
              "SEND msg[0] LEN n AS 10 TO 1 AT 0; DISPLAY t; AWAIT END; END;\n", path))
    return 1;
  strcat(path, ".pvm");
  if (panic_load_file(p0, 1, 415, path, &r) || panic_run(p0, 1, 415, &r)) return 1;
  double mmed[NS], mp99[NS], omed[NS], op99[NS], vmed[NS], vp99[NS];
  for (unsigned s = 0; s < NS; s++) {
    char src[1200];
    snprintf(src, sizeof src,
             "PROGRAM PING: VAR timesent[100], timerec[100], i, msg[256]; TRIGGERS 10;\n"
             "BEGIN i = 0; timesent[i] = CLOCK; SEND msg[0] LEN %u AS 12 TO 415 AT 1; AWAIT END;\n"
             "MESSAGE 10: BEGIN timerec[i] = CLOCK; i = i + 1;\n"
             "IF i < 100 THEN BEGIN timesent[i] = CLOCK; SEND msg[0] LEN %u AS 12 TO 415 AT 1;"
             " AWAIT END;\n"
             "i = 0; WHILE i < 100 DO BEGIN DISPLAY timesent[i]; DISPLAY timerec[i]; i = i + 1; END;"
             " STOP; END; END;\n", sizes[s], sizes[s]);
    snprintf(path, sizeof path, "%s/ping%u", dir, sizes[s]);
    if (compile(src, path)) return 1;
    strcat(path, ".pvm");
    (void)panic_unload(p0, 0, 1, &r);
    if (panic_load_file(p0, 0, 1, path, &r) || panic_run(p0, 0, 1, &r)) return 1;
    struct hostif_panic_display d[2 * TRIPS], e[TRIPS];
    int got = 0, egot = 0;
    for (int tries = 0; tries < 1000 && (got < 2 * TRIPS || egot < TRIPS); tries++) {
      int n = panic_display_read(p0, d + got, (unsigned)(2 * TRIPS - got));
      got += n > 0 ? n : 0;
      n = panic_display_read(p1, e + egot, (unsigned)(TRIPS - egot));
      egot += n > 0 ? n : 0;
      if (got < 2 * TRIPS || egot < TRIPS) (void)panic_display_wait(got < 2 * TRIPS ? p0 : p1, 5000000);
    }
    if (got < 2 * TRIPS || egot < TRIPS) {
      fprintf(stderr, "bench_panic: only %d/%d values\n", got, egot);
      return 1;
    }
    double rt[TRIPS], ow[TRIPS];
    for (int i = 0; i < TRIPS; i++) {
      rt[i] = (double)((uint32_t)d[2 * i + 1].value - (uint32_t)d[2 * i].value) / 1000.0;
      ow[i] = (double)((uint32_t)e[i].value - (uint32_t)d[2 * i].value) / 1000.0;
    }
    stats_med_p99(rt, TRIPS, &mmed[s], &mp99[s]);
    stats_med_p99(ow, TRIPS, &omed[s], &op99[s]);
  }
  int vr = vipl_rtts(vmed, vp99);
  const char *prof = getenv("VERINIC_TIMING");
  if (prof)
    printf("PANIC Fig. 3 on Verinic in virtual time (nicd --timing %s, the LANai image),"
           " microseconds: median / p99\n", prof);
  else
    printf("PANIC Fig. 3 on Verinic (nicd --fast), microseconds: median / p99\n");
  printf("%8s | %19s | %19s | %19s | %s\n", "payload", "mcp2mcp round trip", "send -> trigger",
         "VIPL host round trip", "mcp2mcp / VIPL");
  for (unsigned s = 0; s < NS; s++) {
    char v[40] = "failed", ratio[16] = "-";
    if (vr == 0) {
      snprintf(v, sizeof v, "%8.2f / %8.2f", vmed[s], vp99[s]);
      snprintf(ratio, sizeof ratio, "%.2f", mmed[s] / vmed[s]);
    }
    printf("%6u B | %8.2f / %8.2f | %8.2f / %8.2f | %19s | %s\n", sizes[s], mmed[s], mp99[s],
           omed[s], op99[s], v, ratio);
  }
  printf("PANIC's Fig. 3 (LANai SBus cards) plots mcp2mcp below the host-to-host round trip at"
         " every size; its text gives no values.\n");
  panic_close(p0);
  panic_close(p1);
  nicd_stop(nicd, false);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) return 1;
  return vr;
}
