/* test_panic_hostile.c: SPINE's promise for the PANIC VM: a program can never harm the
 * firmware, and traffic keeps flowing while programs misbehave. Against a private nicd:
 *   - modules with a wild jump, a stack overflow, an out-of-bounds data access, a bad magic,
 *     or cut short are rejected at load with the verifier's reason and byte offset;
 *   - while a VIPL transfer (reliable, 24 x 256 KiB, byte-exact) runs between the same two NICs,
 *     an infinite loop is triggered on both NICs again and again: every activation is stopped
 *     by the budget, after FW_VM_MAX_ABORTS in a row the program is stopped (then unloaded
 *     and loaded again), and a handler indexing out of bounds is aborted without harm;
 *   - afterwards the transfer is checked and the counters show what was stopped. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check.h"
#include "../common/nicd_run.h"
#include "libnic.h"
#include "panic.h"
#include "../vipl/vaddr.h"
#include "vipl.h"
#include "vm_format.h"

#define DISC 0x7a11
#define NMSG 24
#define MSG (256u * 1024u)

static uint8_t pat(unsigned i, uint32_t j) { return (uint8_t)(i * 29u + j * 13u + (j >> 9)); }

struct ep { VIP_NIC_HANDLE nic; VIP_PROTECTION_HANDLE ptag; VIP_VI_HANDLE vi; };

static int ep_open(struct ep *e, const char *dev) {
  VIP_VI_ATTRIBUTES a = {.ReliabilityLevel = VIP_SERVICE_RELIABLE_DELIVERY,
                         .MaxTransferSize = 1u << 20};
  if (VipOpenNic(dev, &e->nic) != VIP_SUCCESS) return 1;
  if (VipCreatePtag(e->nic, &e->ptag) != VIP_SUCCESS) return 2;
  a.Ptag = e->ptag;
  return VipCreateVi(e->nic, &a, NULL, NULL, &e->vi) != VIP_SUCCESS ? 3 : 0;
}

/* Receives NMSG messages on NIC 1 and checks every byte. */
/* The server keeps its VI until the client has its last completion (linger): a VI torn down
 * while the acknowledgement of the last message is still on its way flushes that send at the
 * sender, as a VIA disconnect flushes what is outstanding. */
static int server(int ready, int linger) {
  struct ep e;
  if (ep_open(&e, nicd_dev(1))) return 10;
  uint8_t *buf = calloc(NMSG, MSG);
  VIP_DESCRIPTOR *d = aligned_alloc(64, NMSG * sizeof *d);
  if (!buf || !d) return 11;
  memset(d, 0, NMSG * sizeof *d);
  VIP_MEM_HANDLE mh, dmh;
  VIP_MEM_ATTRIBUTES ma = {.Ptag = e.ptag};
  if (VipRegisterMem(e.nic, buf, (size_t)NMSG * MSG, &ma, &mh) != VIP_SUCCESS) return 12;
  if (VipRegisterMem(e.nic, d, NMSG * sizeof *d, &ma, &dmh) != VIP_SUCCESS) return 13;
  for (unsigned i = 0; i < NMSG; i++) {
    d[i].CS.SegCount = 1;
    d[i].DS[0].Local.Data.Address = buf + (size_t)i * MSG;
    d[i].DS[0].Local.Handle = mh;
    d[i].DS[0].Local.Length = MSG;
    if (VipPostRecv(e.vi, &d[i], dmh) != VIP_SUCCESS) return 14;
  }
  uint8_t raw[64], rraw[64];
  VIP_NET_ADDRESS *la = (VIP_NET_ADDRESS *)raw, *ra = (VIP_NET_ADDRESS *)rraw;
  vaddr_set(la, 1, DISC);
  VIP_CONN_HANDLE conn;
  VIP_VI_ATTRIBUTES rattr;
  if (write(ready, "s", 1) != 1) return 15;
  if (VipConnectWait(e.nic, la, 20000, ra, &rattr, &conn) != VIP_SUCCESS) return 16;
  if (VipConnectAccept(conn, e.vi) != VIP_SUCCESS) return 17;
  for (unsigned i = 0; i < NMSG; i++) {
    VIP_DESCRIPTOR *got;
    if (VipRecvWait(e.vi, 30000, &got) != VIP_SUCCESS || got != &d[i]) return 20;
    if (got->CS.Status != (VIP_STATUS_DONE | VIP_STATUS_OP_RECEIVE) || got->CS.Length != MSG)
      return 21;
    for (uint32_t j = 0; j < MSG; j++)
      if (buf[(size_t)i * MSG + j] != pat(i, j)) return 22;
  }
  char c;
  if (read(linger, &c, 1) < 0) return 23;
  return 0;
}

/* Sends NMSG messages from NIC 0 once told to go. */
static int client(int go) {
  struct ep e;
  if (ep_open(&e, nicd_dev(0))) return 30;
  uint8_t *buf = malloc((size_t)NMSG * MSG);
  VIP_DESCRIPTOR *d = aligned_alloc(64, NMSG * sizeof *d);
  if (!buf || !d) return 31;
  memset(d, 0, NMSG * sizeof *d);
  for (unsigned i = 0; i < NMSG; i++)
    for (uint32_t j = 0; j < MSG; j++) buf[(size_t)i * MSG + j] = pat(i, j);
  VIP_MEM_HANDLE mh;
  VIP_MEM_ATTRIBUTES ma = {.Ptag = e.ptag};
  if (VipRegisterMem(e.nic, buf, (size_t)NMSG * MSG, &ma, &mh) != VIP_SUCCESS) return 32;
  VIP_MEM_HANDLE dmh;
  if (VipRegisterMem(e.nic, d, NMSG * sizeof *d, &ma, &dmh) != VIP_SUCCESS) return 33;
  uint8_t raw[64], rraw[64];
  VIP_NET_ADDRESS *la = (VIP_NET_ADDRESS *)raw, *ra = (VIP_NET_ADDRESS *)rraw;
  vaddr_set(la, 0, DISC);
  vaddr_set(ra, 1, DISC);
  VIP_VI_ATTRIBUTES rattr;
  if (VipConnectRequest(e.vi, la, ra, 20000, &rattr) != VIP_SUCCESS) return 34;
  char c;
  if (read(go, &c, 1) != 1) return 35;
  for (unsigned i = 0; i < NMSG; i++) {
    d[i].CS.Control = VIP_CONTROL_OP_SENDRECV;
    d[i].CS.SegCount = 1;
    d[i].CS.Length = MSG;
    d[i].DS[0].Local.Data.Address = buf + (size_t)i * MSG;
    d[i].DS[0].Local.Handle = mh;
    d[i].DS[0].Local.Length = MSG;
    if (VipPostSend(e.vi, &d[i], dmh) != VIP_SUCCESS) return 36;
  }
  for (unsigned i = 0; i < NMSG; i++) {
    VIP_DESCRIPTOR *got;
    if (VipSendWait(e.vi, 30000, &got) != VIP_SUCCESS || got->CS.Status != VIP_STATUS_DONE)
      return 37;
  }
  return 0;
}

/* ---- modules, by hand (FORMAT.md): a 40-byte header, the trigger table, the code ---- */
struct mod { uint8_t b[256]; size_t len; };

static void put32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* code with init at 0; triggers: ntrig (number, offset) pairs. */
static struct mod module(const uint8_t *code, uint32_t n, uint32_t data_words, uint16_t stack,
                         const uint32_t *trig, uint16_t ntrig) {
  struct mod m;
  memset(&m, 0, sizeof m);
  memcpy(m.b, "PVM1", 4);
  m.b[4] = 1;
  put32(m.b + 8, n);
  put32(m.b + 12, data_words);
  put32(m.b + 16, 0);
  m.b[20] = (uint8_t)ntrig;
  m.b[22] = (uint8_t)stack;
  memcpy(m.b + 24, "hostile", 7);
  for (uint16_t i = 0; i < ntrig; i++) {
    put32(m.b + 40 + 8 * i, trig[2 * i]);
    put32(m.b + 44 + 8 * i, trig[2 * i + 1]);
  }
  memcpy(m.b + 40 + 8 * ntrig, code, n);
  m.len = 40 + 8u * ntrig + n;
  return m;
}

static void t_rejected(struct panic_dev *p) {
  struct panic_res r;
  uint16_t me = panic_node(p);
  static const uint8_t wild[] = {0x40, 0xe8, 0x03, 0, 0, 0x51};          /* JMP +1000; AWAIT */
  static const uint8_t over[] = {0x02, 1, 0, 0, 0, 0x02, 2, 0, 0, 0, 0x51}; /* 2 PUSHes, depth 1 */
  static const uint8_t oob[] = {0x10, 5, 0, 0, 0, 0x03, 0x51};            /* LOAD word 5 of 1 */
  struct { const char *what; struct mod m; uint32_t err, off; } c[] = {
      {"wild jump", module(wild, sizeof wild, 0, 1, NULL, 0), VM_ERR_BAD_JUMP, 40},
      {"stack overflow", module(over, sizeof over, 0, 1, NULL, 0), VM_ERR_STACK_OVERFLOW, 45},
      {"out-of-bounds", module(oob, sizeof oob, 1, 1, NULL, 0), VM_ERR_DATA_BOUNDS, 40},
  };
  for (unsigned i = 0; i < sizeof c / sizeof c[0]; i++) {
    int rc = panic_load(p, me, 100 + i, c[i].m.b, c[i].m.len, &r);
    CHECK(rc == -EBADMSG && r.status == HOSTIF_PANIC_EREJECT && r.result == c[i].err &&
              r.detail == c[i].off,
          "%s: rc %d, %s at %u", c[i].what, rc, panic_vm_err_name(r.result), r.detail);
  }
  struct mod m = module(wild, sizeof wild, 0, 1, NULL, 0);
  m.b[0] = 'X';
  CHECK(panic_load(p, me, 110, m.b, m.len, &r) == -EBADMSG && r.result == VM_ERR_BAD_MAGIC,
        "bad magic");
  CHECK(panic_load(p, me, 111, m.b, 30, &r) == -EBADMSG && r.result == VM_ERR_TRUNCATED,
        "cut short");
  unsigned n = 9;
  struct hostif_panic_prog l[8];
  CHECK(panic_list(p, me, l, 8, &n, &r) == 0 && n == 0, "nothing was loaded");
}

/* init: AWAIT; trigger 1: JMP to itself; trigger 2: LOADX of element 7 of a 2-word array. */
static const uint8_t loop_code[] = {0x51, 0x40, 0xfb, 0xff, 0xff, 0xff,
                                    0x02, 7, 0, 0, 0, 0x12, 0, 0, 0, 0, 2, 0, 0, 0, 0x03, 0x51};
static const uint32_t loop_trig[] = {1, 1, 2, 6};

static int load_loop(struct panic_dev *p, uint16_t node, uint32_t id) {
  struct panic_res r;
  struct mod m = module(loop_code, sizeof loop_code, 2, 2, loop_trig, 2);
  (void)panic_unload(p, node, id, &r);
  if (panic_load(p, node, id, m.b, m.len, &r) != 0) return -1;
  return panic_run(p, node, id, &r);
}

int main(void) {
  pid_t nicd = nicd_start(2, false);
  CHECK(nicd > 0, "nicd started");
  if (nicd <= 0) goto out;
  struct panic_dev *p;
  int rc = panic_open(nicd_dev(0), &p);
  CHECK(rc == 0, "panic_open %d", rc);
  if (rc) goto stop;
  t_rejected(p);
  uint16_t n0 = panic_node(p), n1 = (uint16_t)(n0 + 1);
  CHECK(load_loop(p, n0, 50) == 0 && load_loop(p, n1, 50) == 0, "loop loaded on both NICs");
  int sready[2], go[2], linger[2];
  if (pipe(sready) || pipe(go) || pipe(linger)) return 1;
  pid_t srv = fork();
  if (srv == 0) _exit(server(sready[1], linger[0]));
  char c;
  CHECK(read(sready[0], &c, 1) == 1, "server ready");
  pid_t cli = fork();
  if (cli == 0) _exit(client(go[0]));
  CHECK(write(go[1], "g", 1) == 1, "go");
  /* Misbehave until the transfer is over (and at least long enough to be stopped). */
  struct panic_res r;
  unsigned budget = 0, killed = 0, bounds = 0, rounds = 0, other = 0;
  int cst = -1, sst = -1;
  bool cdone = false;
  while ((!cdone || rounds < 2 * 16u) && rounds < 4000) {
    uint16_t at = rounds % 2 ? n1 : n0;
    rc = panic_send(p, at, 50, rounds % 5 == 4 ? 2 : 1, NULL, 0, &r);
    if (rc == -ECANCELED && r.result == 2) budget++;
    else if (rc == -ECANCELED && r.result == 3) bounds++;
    else if (rc == -EALREADY) {
      killed++;
      if (load_loop(p, at, 50) != 0) other++;
    } else other++;
    rounds++;
    if (!cdone && waitpid(cli, &cst, WNOHANG) == cli) cdone = true;
  }
  if (!cdone) waitpid(cli, &cst, 0);
  CHECK(write(linger[1], "x", 1) == 1, "server let go");
  waitpid(srv, &sst, 0);
  CHECK(WIFEXITED(cst) && WEXITSTATUS(cst) == 0, "client: status %d", cst);
  CHECK(WIFEXITED(sst) && WEXITSTATUS(sst) == 0, "server: every byte of 24 x 256 KiB (status %d)", sst);
  CHECK(budget >= 16u && bounds > 0 && killed > 0 && other == 0,
        "%u rounds: %u stopped by the budget, %u out of bounds, %u killed, %u other", rounds,
        budget, bounds, killed, other);
  struct lnic_dev *d;
  if (lnic_open(nicd_dev(0), &d) == 0) {
    volatile struct hostif_panic_counters *k = &lnic_hostif_counters(d)->panic;
    CHECK(k->abort_budget >= budget / 2 && k->abort_bounds > 0 && k->killed > 0,
          "nic0 counts: budget %lu, bounds %lu, killed %lu", (unsigned long)k->abort_budget,
          (unsigned long)k->abort_bounds, (unsigned long)k->killed);
    lnic_close(d);
  }
  printf("misbehaving handlers run during the transfer: %u\n", rounds);
  panic_close(p);
stop:
  nicd_stop(nicd, false);
out:
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
