/* test_fw.c: the firmware on two emulated NICs in one process, joined by the in-memory
 * fabric and driven deterministically (nic_advance_all): VIA sends of 0 B to 1 MiB with
 * multi-segment descriptors and data checks, many in flight both ways, immediate data, RDMA
 * Write (with and without immediate data), protection and format errors that touch no memory,
 * no receive descriptor, a disconnected VI, a VI re-created while a message for its old
 * connection is being received, malformed packets injected into the fabric, the
 * dispatcher's handling of unknown doorbells and its counters, and the state invariant the
 * proofs assume (fw_bounds) after every poll. Each run is done in fine- and coarse-grained
 * mode. Prints "N passed, N failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../hw/link.h"
#include "../../hw/memfab.h"
#include "board_emu.h"
#include "datapath_hal.h"
#include "fw.h"
#include "fw_dispatch.h"
#include "fw_init.h"
#include "rawhost.h"

#define PTAG 0x5151u
#define MEMLEN (12u << 20)

#include "../check.h"

struct rig {
  struct fabric *fab;
  struct nic *nic[2];
  struct fw_board bd[2];
  struct fw fw[2];
  struct hwin *w[2];
  struct hostmem mem[2];
  uint64_t base[2];   /* host address of mem[i] (registered with PTAG on NIC i) */
  size_t used[2];
  uint64_t now;
};
static struct rig R;

static void rig_up(bool fine, enum nic_timing timing) {
  memset(&R, 0, sizeof R);
  struct memfab_config mc = {.nodes = 2, .latency_ns = MEMFAB_DEFAULT_LATENCY_NS};
  R.fab = memfab_create(&mc);
  for (int i = 0; i < 2; i++) {
    struct nic_config c;
    nic_config_default(&c);
    c.node = (uint16_t)i;
    c.timing = timing;
    int err = 0;
    R.nic[i] = nic_create(&c, &err);
    if (!R.nic[i]) { printf("nic_create: %d\n", err); exit(1); }
    nic_attach(R.nic[i], R.fab);
    R.bd[i].nic = R.nic[i];
    struct fw_config fc = {.fine_mode = fine};
    if (fw_init(&R.fw[i], &R.bd[i], &fc) != 0) { printf("fw_init failed\n"); exit(1); }
    R.w[i] = nic_window(R.nic[i]);
    if (hostmem_create(&R.mem[i], MEMLEN) != 0) { printf("hostmem\n"); exit(1); }
    /* The first MiB is registered with another tag, the last MiB not at all. */
    uint64_t a;
    int rg = hwin_region_add(R.w[i], &R.mem[i], 1u << 20, MEMLEN - (2u << 20), PTAG,
                             HW_ACC_NIC_READ | HW_ACC_NIC_WRITE, &a);
    if (rg < 0) { printf("region\n"); exit(1); }
    R.w[i]->regions[rg].access |= HOSTIF_REGION_RDMA_WRITE;   /* open to RDMA Writes (hostif.h) */
    R.base[i] = a;
    hwin_region_add(R.w[i], &R.mem[i], 0, 1u << 20, PTAG + 1, HW_ACC_NIC_READ | HW_ACC_NIC_WRITE, &a);
    for (unsigned v = 1; v <= 4; v++) rh_vi_create(R.w[i], v, PTAG, HOSTIF_UNRELIABLE);
  }
  for (unsigned v = 1; v <= 4; v++) rh_vi_pair(R.w[0], v, 0, R.w[1], v, 1);
}

static void rig_down(void) {
  for (int i = 0; i < 2; i++) {
    nic_destroy(R.nic[i]);
    hostmem_destroy(&R.mem[i]);
  }
  fabric_close(R.fab);
}

/* Host memory inside the registered region of NIC i. */
static uint64_t halloc(int i, size_t len) {
  uint64_t a = R.base[i] + R.used[i];
  R.used[i] += (len + 63) & ~(size_t)63;
  if (R.used[i] > MEMLEN - (2u << 20)) { printf("test out of host memory\n"); exit(1); }
  return a;
}
static uint8_t *hptr(uint64_t a) { return (uint8_t *)(uintptr_t)a; }
static void hfree_all(void) { R.used[0] = R.used[1] = 0; }

/* fw_bounds (fw.h), the firmware-state invariant the proofs assume of every handler, checked
 * on the real firmware after every poll of every test. */
static long bounds_broken;
static bool bounds_ok(const struct fw *fw) {
  if (fw->rx_cur < -1 || fw->rx_cur >= (int)FW_NRBUF) return false;
  for (unsigned c = 0; c <= FW_CH_RDMA; c++)
    if (fw->hreq[c].buf >= FW_NSBUF || fw->hreq[c].buf >= FW_NRBUF ||
        (unsigned)fw->hreq[c].done >= datapath_NEVENTS)
      return false;
  for (unsigned b = 0; b < FW_NSBUF; b++)
    if (fw->sbuf_txe[b] >= FW_TXQ) return false;
  return true;
}

/* Runs both NICs and their firmware until pred holds or nothing can happen. */
static bool run(bool (*pred)(void *), void *ctx) {
  for (long it = 0; it < 50000000; it++) {
    nic_advance_all(R.nic, 2, R.now);
    bool did = fw_dispatch_poll(&R.fw[0]);
    did |= fw_dispatch_poll(&R.fw[1]);
    if (!bounds_ok(&R.fw[0]) || !bounds_ok(&R.fw[1])) bounds_broken++;
    if (pred && pred(ctx)) return true;
    uint64_t t = nic_next_due(R.nic[0]), t1 = nic_next_due(R.nic[1]);
    if (t1 < t) t = t1;
    if (t == NIC_NEVER) {
      if (!did) return pred == NULL;
      continue;
    }
    if (t > R.now) R.now = t;
  }
  return false;
}

struct want { int nic; unsigned vi; bool sq; uint32_t n; };
static bool done_ge(void *p) {
  struct want *w = p;
  return rh_done(R.w[w->nic], w->vi, w->sq) >= w->n;
}
static bool wait_done(int nic, unsigned vi, bool sq, uint32_t n) {
  struct want w = {nic, vi, sq, n};
  return run(done_ge, &w);
}

static void fill(uint8_t *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 8));
}

/* Splits len into up to nseg segments of the buffer at a. */
static struct hostif_desc desc_split(uint16_t op, uint64_t a, uint32_t len, unsigned nseg) {
  uint64_t addr[HOSTIF_MAXSEG];
  uint32_t l[HOSTIF_MAXSEG];
  if (len < nseg) nseg = len ? len : 1;
  uint32_t each = len / nseg, at = 0;
  for (unsigned i = 0; i < nseg; i++) {
    addr[i] = a + at;
    l[i] = i + 1 == nseg ? len - at : each;
    at += l[i];
  }
  return rh_desc(op, PTAG, nseg, addr, l);
}

static int counters_drop(int i, const char *which) {
  volatile struct hostif_counters *c = rh_counters(R.w[i]);
  if (!strcmp(which, "no_vi")) return (int)c->rx_drop_no_vi;
  if (!strcmp(which, "no_desc")) return (int)c->rx_drop_no_desc;
  if (!strcmp(which, "malformed")) return (int)c->rx_drop_malformed;
  if (!strcmp(which, "checksum")) return (int)c->rx_drop_checksum;
  if (!strcmp(which, "protection")) return (int)c->protection_errors;
  return -1;
}

/* ---- cases ---- */

static void t_sizes(void) {
  static const uint32_t sizes[] = {0, 1, 2, 3, 55, 56, 57, 1023, 1024, 1025, 4035, 4036, 4037,
                                   8072, 8073, 12345, 65536, 100001, 1u << 20};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    uint32_t n = sizes[k];
    hfree_all();
    uint64_t src = halloc(0, n + 1), dst = halloc(1, n + 64);
    fill(hptr(src), n, (unsigned)k);
    memset(hptr(dst), 0xee, n + 64);
    uint32_t r0 = rh_done(R.w[1], 1, false), s0 = rh_done(R.w[0], 1, true);
    uint32_t cap = n + 64 > HOSTIF_MAX_XFER ? HOSTIF_MAX_XFER : n + 64;
    struct hostif_desc rd = desc_split(HOSTIF_OP_RECV, dst, cap, 1 + k % 4);
    rh_post(R.w[1], 1, false, &rd);
    struct hostif_desc sd = desc_split(HOSTIF_OP_SEND, src, n, 1 + (k + 1) % 4);
    uint32_t si = rh_post(R.w[0], 1, true, &sd);
    bool ok = wait_done(1, 1, false, r0 + 1) && wait_done(0, 1, true, s0 + 1);
    struct hostif_desc rc = rh_slot(R.w[1], 1, false, r0), sc = rh_slot(R.w[0], 1, true, si);
    CHECK(ok && rc.status == HOSTIF_ST_DONE && rc.done_len == n && sc.status == HOSTIF_ST_DONE &&
              sc.done_len == n,
          "size %u: ok %d recv status %u len %u, send status %u len %u", n, ok, rc.status,
          rc.done_len, sc.status, sc.done_len);
    CHECK(memcmp(hptr(src), hptr(dst), n) == 0 && hptr(dst)[n] == 0xee,
          "size %u: data differs or overrun", n);
  }
}

/* 32 sends each way at once on two VIs, random sizes, several rounds. */
static void t_many(void) {
  unsigned long rng = 12345;
  int bad = 0, total = 0;
  for (int round = 0; round < 6; round++) {
    hfree_all();
    uint64_t src[2][2][HOSTIF_RING], dst[2][2][HOSTIF_RING];
    uint32_t len[2][2][HOSTIF_RING];
    uint32_t r0[2][2], s0[2][2];
    for (int a = 0; a < 2; a++)
      for (unsigned v = 0; v < 2; v++) {
        r0[a][v] = rh_done(R.w[1 - a], 2 + v, false);
        s0[a][v] = rh_done(R.w[a], 2 + v, true);
        for (unsigned i = 0; i < HOSTIF_RING; i++) {
          rng = rng * 6364136223846793005UL + 1442695040888963407UL;
          uint32_t n = (uint32_t)(rng >> 33) % (rng & 8 ? 9000 : 200);
          len[a][v][i] = n;
          src[a][v][i] = halloc(a, n + 1);
          dst[a][v][i] = halloc(1 - a, n + 1);
          fill(hptr(src[a][v][i]), n, i * 7 + v + a * 3 + (unsigned)round);
          memset(hptr(dst[a][v][i]), 0, n + 1);
          struct hostif_desc rd = desc_split(HOSTIF_OP_RECV, dst[a][v][i], n, 1 + i % 3);
          rh_post(R.w[1 - a], 2 + v, false, &rd);
        }
      }
    for (unsigned i = 0; i < HOSTIF_RING; i++)
      for (int a = 0; a < 2; a++)
        for (unsigned v = 0; v < 2; v++) {
          struct hostif_desc sd = desc_split(HOSTIF_OP_SEND, src[a][v][i], len[a][v][i], 1 + i % 4);
          rh_post(R.w[a], 2 + v, true, &sd);
        }
    for (int a = 0; a < 2; a++)
      for (unsigned v = 0; v < 2; v++) {
        bool ok = wait_done(1 - a, 2 + v, false, r0[a][v] + HOSTIF_RING) &&
                  wait_done(a, 2 + v, true, s0[a][v] + HOSTIF_RING);
        if (!ok) bad++;
        for (unsigned i = 0; i < HOSTIF_RING; i++) {
          struct hostif_desc rc = rh_slot(R.w[1 - a], 2 + v, false, r0[a][v] + i);
          struct hostif_desc sc = rh_slot(R.w[a], 2 + v, true, s0[a][v] + i);
          total++;
          if (rc.status != HOSTIF_ST_DONE || rc.done_len != len[a][v][i] ||
              sc.status != HOSTIF_ST_DONE ||
              memcmp(hptr(src[a][v][i]), hptr(dst[a][v][i]), len[a][v][i]) != 0)
            bad++;
        }
      }
  }
  CHECK(bad == 0, "many in flight: %d of %d transfers wrong", bad, total);
}

static void t_immediate(void) {
  hfree_all();
  uint64_t src = halloc(0, 100), dst = halloc(1, 100);
  fill(hptr(src), 100, 9);
  uint32_t r0 = rh_done(R.w[1], 1, false);
  struct hostif_desc rd = desc_split(HOSTIF_OP_RECV, dst, 100, 1);
  rh_post(R.w[1], 1, false, &rd);
  struct hostif_desc sd = desc_split(HOSTIF_OP_SEND, src, 100, 2);
  sd.flags = HOSTIF_F_IMMEDIATE;
  sd.imm = 0xdeadbeefu;
  rh_post(R.w[0], 1, true, &sd);
  bool ok = wait_done(1, 1, false, r0 + 1);
  struct hostif_desc rc = rh_slot(R.w[1], 1, false, r0);
  CHECK(ok && rc.status == HOSTIF_ST_DONE && rc.done_imm == 0xdeadbeefu &&
            (rc.done_flags & HOSTIF_F_IMMEDIATE) && rc.done_len == 100,
        "immediate: status %u imm %x flags %x", rc.status, rc.done_imm, rc.done_flags);
}

static void t_rdma(void) {
  hfree_all();
  uint32_t n = 200000;
  uint64_t src = halloc(0, n), dst = halloc(1, n + 16);
  fill(hptr(src), n, 4);
  memset(hptr(dst), 0, n + 16);
  uint32_t r0 = rh_done(R.w[1], 1, false), s0 = rh_done(R.w[0], 1, true);
  struct hostif_desc sd = desc_split(HOSTIF_OP_RDMA_WRITE, src, n, 3);
  sd.rdma_addr = dst + 8;
  sd.rdma_ptag = PTAG;
  rh_post(R.w[0], 1, true, &sd);
  bool ok = wait_done(0, 1, true, s0 + 1) && run(NULL, NULL);
  struct hostif_desc sc = rh_slot(R.w[0], 1, true, s0);
  CHECK(ok && sc.status == HOSTIF_ST_DONE && memcmp(hptr(src), hptr(dst + 8), n) == 0 &&
            hptr(dst)[0] == 0 && hptr(dst)[n + 8] == 0,
        "RDMA write: status %u, data %s", sc.status,
        memcmp(hptr(src), hptr(dst + 8), n) ? "differs" : "ok");
  CHECK(rh_done(R.w[1], 1, false) == r0, "RDMA write consumed a receive descriptor");
  /* With immediate data: one receive descriptor is consumed, carrying imm. */
  uint64_t rbuf = halloc(1, 16);
  struct hostif_desc rd = desc_split(HOSTIF_OP_RECV, rbuf, 16, 1);
  rh_post(R.w[1], 1, false, &rd);
  sd.flags = HOSTIF_F_IMMEDIATE;
  sd.imm = 77;
  sd.rdma_addr = dst;
  rh_post(R.w[0], 1, true, &sd);
  ok = wait_done(1, 1, false, r0 + 1);
  struct hostif_desc rc = rh_slot(R.w[1], 1, false, r0);
  CHECK(ok && rc.status == HOSTIF_ST_DONE && rc.done_imm == 77 &&
            (rc.done_flags & HOSTIF_F_IMMEDIATE) && memcmp(hptr(src), hptr(dst), n) == 0,
        "RDMA write with immediate: status %u imm %u", rc.status, rc.done_imm);
  /* To memory the peer never registered (or with another tag): dropped, nothing written. */
  int prot = counters_drop(1, "protection");
  uint8_t *outside = R.mem[1].base + MEMLEN - 4096;
  memset(outside, 0x5a, 64);
  sd.flags = 0;
  sd.rdma_addr = (uint64_t)(uintptr_t)outside;
  desc_split(HOSTIF_OP_RDMA_WRITE, src, 64, 1);
  struct hostif_desc s2 = desc_split(HOSTIF_OP_RDMA_WRITE, src, 64, 1);
  s2.rdma_addr = (uint64_t)(uintptr_t)outside;
  s2.rdma_ptag = PTAG;
  rh_post(R.w[0], 1, true, &s2);
  s2.rdma_addr = (uint64_t)(uintptr_t)R.mem[1].base; /* registered with PTAG + 1 */
  rh_post(R.w[0], 1, true, &s2);
  run(NULL, NULL);
  bool untouched = true;
  for (int i = 0; i < 64; i++) untouched &= outside[i] == 0x5a;
  CHECK(untouched && counters_drop(1, "protection") == prot + 2,
        "RDMA write outside registered memory: untouched %d, protection drops %d", untouched,
        counters_drop(1, "protection") - prot);
}

static void t_protection(void) {
  hfree_all();
  uint64_t src = halloc(0, 256), dst = halloc(1, 256);
  fill(hptr(src), 256, 2);
  memset(hptr(dst), 0x33, 256);
  uint32_t r0 = rh_done(R.w[1], 1, false), s0 = rh_done(R.w[0], 1, true);
  /* Send descriptors: outside registered memory, wrong tag on a good region, a segment
   * straddling the end of the region, a region registered with another tag. */
  uint64_t outside = (uint64_t)(uintptr_t)(R.mem[0].base + MEMLEN - 4096);
  uint64_t edge = R.base[0] + MEMLEN - (2u << 20) - 10;
  struct hostif_desc d[4];
  d[0] = desc_split(HOSTIF_OP_SEND, outside, 100, 1);
  d[1] = desc_split(HOSTIF_OP_SEND, src, 100, 2);
  d[1].seg[1].ptag = PTAG + 7;
  d[2] = desc_split(HOSTIF_OP_SEND, edge, 100, 1);
  d[3] = desc_split(HOSTIF_OP_SEND, (uint64_t)(uintptr_t)R.mem[0].base, 100, 1);
  for (int i = 0; i < 4; i++) rh_post(R.w[0], 1, true, &d[i]);
  bool ok = wait_done(0, 1, true, s0 + 4) && run(NULL, NULL);
  int bad = 0;
  for (int i = 0; i < 4; i++)
    if (rh_slot(R.w[0], 1, true, s0 + i).status != HOSTIF_ST_PROTECTION) bad++;
  CHECK(ok && bad == 0, "bad send descriptors: %d without a protection error", bad);
  CHECK(rh_done(R.w[1], 1, false) == r0 && R.fw[0].tx_head == R.fw[0].tx_done,
        "a rejected send reached the wire");
  /* A receive descriptor outside registered memory: completes with a protection error when a
   * message arrives, and the memory is untouched. */
  uint8_t *rx_out = R.mem[1].base + MEMLEN - 8192;
  memset(rx_out, 0x77, 256);
  struct hostif_desc rd = desc_split(HOSTIF_OP_RECV, (uint64_t)(uintptr_t)rx_out, 256, 1);
  rh_post(R.w[1], 1, false, &rd);
  struct hostif_desc sd = desc_split(HOSTIF_OP_SEND, src, 100, 1);
  rh_post(R.w[0], 1, true, &sd);
  ok = wait_done(1, 1, false, r0 + 1);
  bool untouched = true;
  for (int i = 0; i < 256; i++) untouched &= rx_out[i] == 0x77;
  CHECK(ok && rh_slot(R.w[1], 1, false, r0).status == HOSTIF_ST_PROTECTION && untouched,
        "bad receive descriptor: status %u untouched %d", rh_slot(R.w[1], 1, false, r0).status,
        untouched);
  /* Receive buffer too small: LENGTH, nothing written. */
  struct hostif_desc small = desc_split(HOSTIF_OP_RECV, dst, 50, 1);
  rh_post(R.w[1], 1, false, &small);
  rh_post(R.w[0], 1, true, &sd);
  ok = wait_done(1, 1, false, r0 + 2);
  CHECK(ok && rh_slot(R.w[1], 1, false, r0 + 1).status == HOSTIF_ST_LENGTH && hptr(dst)[0] == 0x33,
        "short receive buffer: status %u", rh_slot(R.w[1], 1, false, r0 + 1).status);
}

static void t_format(void) {
  hfree_all();
  uint64_t src = halloc(0, 256);
  uint32_t s0 = rh_done(R.w[0], 1, true);
  struct hostif_desc d[4];
  d[0] = desc_split(HOSTIF_OP_RECV, src, 10, 1);     /* a receive on the send queue */
  d[1] = desc_split(HOSTIF_OP_SEND, src, 10, 1);
  d[1].nseg = HOSTIF_MAXSEG + 1;
  d[2] = desc_split(HOSTIF_OP_SEND, src, 10, 1);
  d[2].length = 11;                                   /* disagrees with the segments */
  d[3] = desc_split(HOSTIF_OP_SEND, src, 10, 1);
  d[3].op = 99;
  for (int i = 0; i < 4; i++) rh_post(R.w[0], 1, true, &d[i]);
  bool ok = wait_done(0, 1, true, s0 + 4);
  int bad = 0;
  for (int i = 0; i < 4; i++)
    if (rh_slot(R.w[0], 1, true, s0 + i).status != HOSTIF_ST_FORMAT) bad++;
  CHECK(ok && bad == 0, "malformed descriptors: %d without a format error", bad);
}

static void t_no_desc_and_disconnected(void) {
  hfree_all();
  uint64_t src = halloc(0, 64);
  int before = counters_drop(1, "no_desc");
  uint32_t s0 = rh_done(R.w[0], 4, true);
  struct hostif_desc sd = desc_split(HOSTIF_OP_SEND, src, 64, 1);
  rh_post(R.w[0], 4, true, &sd);
  bool ok = wait_done(0, 4, true, s0 + 1) && run(NULL, NULL);
  CHECK(ok && counters_drop(1, "no_desc") == before + 1 &&
            rh_slot(R.w[0], 4, true, s0).status == HOSTIF_ST_DONE,
        "unreliable send without a receive descriptor: drops %d",
        counters_drop(1, "no_desc") - before);
  /* A VI that is not connected. */
  rh_vi_create(R.w[0], 6, PTAG, HOSTIF_UNRELIABLE);
  rh_post(R.w[0], 6, true, &sd);
  ok = wait_done(0, 6, true, 1);
  CHECK(ok && rh_slot(R.w[0], 6, true, 0).status == HOSTIF_ST_DISCONNECTED,
        "send on an unconnected VI: status %u", rh_slot(R.w[0], 6, true, 0).status);
}

/* The host destroys a VI and creates another in its entry (libnic: a new generation, empty
 * rings), as a process closing one connection and opening the next does. */
static void recreate(int i, unsigned vi, uint32_t rel) {
  uint32_t gen = rh_vi(R.w[i], vi)->generation;
  rh_vi_create(R.w[i], vi, PTAG, rel);
  rh_vi(R.w[i], vi)->generation = gen + 1;
}

static bool rx_active(void *p) { return R.fw[1].vi[*(unsigned *)p].rx_active; }

/* A message being received when its VI is destroyed and the entry reused for a new
 * connection (here between the same two VI numbers) belongs to the old connection: it must
 * complete nothing in the new VI's rings and draw no acknowledgement; the new connection
 * then works. Before, it completed a descriptor at the old ring position in the new ring
 * (host and firmware then disagreed for good: spurious FLUSHED/DISCONNECTED completions, and
 * a flush that walked 2^32 slots, stopping every NIC of the nicd). */
static void t_recreated(void) {
  hfree_all();
  unsigned vi = 7;
  for (int i = 0; i < 2; i++) recreate(i, vi, HOSTIF_RELIABLE_DELIVERY);
  rh_vi_pair(R.w[0], vi, 0, R.w[1], vi, 1);
  uint64_t src = halloc(0, 4000), dst = halloc(1, 4 * 4000);
  fill(hptr(src), 4000, 7);
  struct hostif_desc sd = desc_split(HOSTIF_OP_SEND, src, 4000, 1);
  for (unsigned k = 0; k < 4; k++) {
    struct hostif_desc rd = desc_split(HOSTIF_OP_RECV, dst + k * 4000, 4000, 1);
    rh_post(R.w[1], vi, false, &rd);
  }
  for (unsigned k = 0; k < 3; k++) rh_post(R.w[0], vi, true, &sd);
  bool ok = wait_done(1, vi, false, 3) && wait_done(0, vi, true, 3);
  CHECK(ok, "three messages on the first connection");
  rh_post(R.w[0], vi, true, &sd);
  ok = run(rx_active, &vi);
  CHECK(ok, "the fourth message is being received");
  for (int i = 0; i < 2; i++) recreate(i, vi, HOSTIF_RELIABLE_DELIVERY);
  rh_vi_pair(R.w[0], vi, 0, R.w[1], vi, 1);
  uint64_t nd = halloc(1, 4000);
  memset(hptr(nd), 0, 4000);
  struct hostif_desc rd = desc_split(HOSTIF_OP_RECV, nd, 4000, 1);
  rh_post(R.w[1], vi, false, &rd);
  run(NULL, NULL);
  struct hostif_ring *rq = &rh_vi(R.w[1], vi)->rq;
  CHECK(rq->done == 0 && rq->cons == 0 && rh_slot(R.w[1], vi, false, 0).status == HOSTIF_ST_PENDING,
        "the old connection's message left the new VI's receive ring alone (cons %u, done %u)",
        rq->cons, rq->done);
  fill(hptr(src), 4000, 8);
  rh_post(R.w[0], vi, true, &sd);
  ok = wait_done(1, vi, false, 1) && wait_done(0, vi, true, 1);
  uint8_t want[4000];
  fill(want, sizeof want, 8);
  CHECK(ok && rh_slot(R.w[1], vi, false, 0).status == HOSTIF_ST_DONE &&
            rh_slot(R.w[0], vi, true, 0).status == HOSTIF_ST_DONE &&
            memcmp(hptr(nd), want, sizeof want) == 0,
        "the new connection's first message arrives whole (receive %u, send %u)",
        rh_slot(R.w[1], vi, false, 0).status, rh_slot(R.w[0], vi, true, 0).status);
}

/* Frames from node 0 to node 1 are lost (ctx NULL: none). */
static enum memfab_fault lose_to_1(void *ctx, uint16_t src, uint16_t dst, uint64_t index,
                                   uint8_t *frame, size_t *len) {
  (void)ctx, (void)index, (void)frame, (void)len;
  return src == 0 && dst == 1 ? MEMFAB_DROP : MEMFAB_PASS;
}

/* An ACK of message 0 from NIC 1's VI vi to NIC 0's, under stamp. */
static void inject_ack(unsigned vi, uint32_t stamp) {
  uint8_t msg[FW_WIRE_HDR_LEN + FW_TRAILER] = {0}, frame[128];
  struct fw_wire_hdr h = {.type = FW_WIRE_ACK, .src_node = 1, .dst_node = 0,
                          .src_vi = (uint16_t)vi, .dst_vi = (uint16_t)vi, .conn = stamp};
  fw_wire_encode(msg, &h);
  msg[FW_WIRE_HDR_LEN] = msg[FW_WIRE_HDR_LEN + 1] = 0xff;   /* header-only: trailer 0xffff */
  struct hw_link_hdr lh = {.dst = 0, .src = 1, .flags = HW_LINK_EOM, .len = sizeof msg};
  size_t fl = hw_link_encode(frame, sizeof frame, &lh, msg);
  memfab_inject(R.fab, 1, 0, frame, fl, R.now);
}

static bool no_vi_above(void *p) { return counters_drop(0, "no_vi") > *(int *)p; }

/* Connections between the same two VI entries follow each other, each under its own stamp: a
 * late ACK of the earlier one (the stamp it carries) must not acknowledge the new one's first
 * message, which its receiver has not got (it completed DONE, and the message was never
 * delivered: a request lost for good under ab against nginx). */
static void t_stale_stamp(void) {
  hfree_all();
  unsigned vi = 8;
  for (int i = 0; i < 2; i++) recreate(i, vi, HOSTIF_RELIABLE_DELIVERY);
  rh_vi_pair_stamp(R.w[0], vi, 0, R.w[1], vi, 1, 0x1001);
  uint64_t src = halloc(0, 100), dst = halloc(1, 100);
  struct hostif_desc sd = desc_split(HOSTIF_OP_SEND, src, 100, 1);
  struct hostif_desc rd = desc_split(HOSTIF_OP_RECV, dst, 100, 1);
  rh_post(R.w[1], vi, false, &rd);
  rh_post(R.w[0], vi, true, &sd);
  CHECK(wait_done(1, vi, false, 1) && wait_done(0, vi, true, 1), "the first connection's message");
  for (int i = 0; i < 2; i++) recreate(i, vi, HOSTIF_RELIABLE_DELIVERY);
  rh_vi_pair_stamp(R.w[0], vi, 0, R.w[1], vi, 1, 0x1002);
  memfab_set_fault(R.fab, lose_to_1, NULL);
  int stale0 = counters_drop(0, "no_vi");
  rh_post(R.w[0], vi, true, &sd);
  inject_ack(vi, 0x1001);
  run(no_vi_above, &stale0);   /* not beyond: the retransmissions would give up */
  CHECK(rh_slot(R.w[0], vi, true, 0).status == HOSTIF_ST_PENDING &&
            counters_drop(0, "no_vi") == stale0 + 1,
        "an ACK of the earlier connection acknowledges nothing (send %u, no_vi +%d)",
        rh_slot(R.w[0], vi, true, 0).status, counters_drop(0, "no_vi") - stale0);
  inject_ack(vi, 0x1002);
  bool ok = wait_done(0, vi, true, 1);
  CHECK(ok && rh_slot(R.w[0], vi, true, 0).status == HOSTIF_ST_DONE,
        "the same ACK under the connection's stamp does (send %u)", rh_slot(R.w[0], vi, true, 0).status);
  memfab_set_fault(R.fab, NULL, NULL);
}

/* The receiving host's signals (hw_regs' counter, one per raise). */
static uint64_t host_signals(int i) {
  return atomic_load(&R.w[i]->regs->ctr[HW_CTR_HOST_SIGNALS]);
}

/* A stream is acknowledged per burst, not per message (fw_ack.c, ack_may_wait): while RDMA
 * moves a message whole in SRAM the ACK owed waits, at most FW_ACK_HOLD messages, and the last
 * one names the last message, so every send completes; a lone message is acknowledged at once.
 * The receiving host is signalled likewise (fw_rq.c, fw_rq_signal_pump: FW_SIG_HOLD). */
static void t_ack_coalesce(void) {
  hfree_all();
  unsigned vi = 9, n = 24;
  uint32_t len = FW_MAX_PAYLOAD;
  for (int i = 0; i < 2; i++) recreate(i, vi, HOSTIF_RELIABLE_DELIVERY);
  rh_vi_pair_stamp(R.w[0], vi, 0, R.w[1], vi, 1, 0x2001);
  uint64_t src = halloc(0, len), dst = halloc(1, (size_t)n * len);
  fill(hptr(src), len, 3);
  for (unsigned k = 0; k < n; k++) {
    struct hostif_desc rd = desc_split(HOSTIF_OP_RECV, dst + (uint64_t)k * len, len, 1);
    rh_post(R.w[1], vi, false, &rd);
  }
  volatile struct hostif_counters *c = rh_counters(R.w[1]);
  uint64_t acks0 = c->tx_acks, sig0 = host_signals(1);
  struct hostif_desc sd = desc_split(HOSTIF_OP_SEND, src, len, 1);
  for (unsigned k = 0; k < n; k++) rh_post(R.w[0], vi, true, &sd);
  bool ok = wait_done(1, vi, false, n) && wait_done(0, vi, true, n);
  run(NULL, NULL);
  uint64_t acks = c->tx_acks - acks0, sigs = host_signals(1) - sig0;
  printf("fast mode: %u messages streamed, %llu ACKs, %llu receive signals\n", n,
         (unsigned long long)acks, (unsigned long long)sigs);
  CHECK(ok && rh_slot(R.w[0], vi, true, n - 1).status == HOSTIF_ST_DONE &&
            acks >= n / FW_ACK_HOLD && acks < n / 2,
        "%u messages streamed: every send DONE, %llu ACKs (between %u and %u)", n,
        (unsigned long long)acks, n / FW_ACK_HOLD, n / 2 - 1);
  CHECK(sigs >= n / FW_SIG_HOLD && sigs < n / 2,
        "the receiving host signalled per burst: %llu signals (between %u and %u)",
        (unsigned long long)sigs, n / FW_SIG_HOLD, n / 2 - 1);
  sig0 = host_signals(1);
  struct hostif_desc rd = desc_split(HOSTIF_OP_RECV, dst, 100, 1);
  rh_post(R.w[1], vi, false, &rd);
  sd = desc_split(HOSTIF_OP_SEND, src, 100, 1);
  rh_post(R.w[0], vi, true, &sd);
  ok = wait_done(1, vi, false, n + 1);
  CHECK(ok && host_signals(1) - sig0 == 1, "a lone message: its receiver signalled once, at "
        "once (%llu)", (unsigned long long)(host_signals(1) - sig0));
  ok = wait_done(0, vi, true, n + 1);
  CHECK(ok && c->tx_acks - acks0 == acks + 1, "a lone message: one ACK at once (%llu)",
        (unsigned long long)(c->tx_acks - acks0 - acks));
}

/* A link frame from node 0 to node 1 carrying bytes (EOM or not). */
static void inject(const uint8_t *bytes, size_t n, bool eom) {
  static uint8_t frame[HW_LINK_MAX_FRAME];
  struct hw_link_hdr lh = {.dst = 1, .src = 0, .flags = eom ? HW_LINK_EOM : 0, .len = (uint32_t)n};
  size_t fl = hw_link_encode(frame, sizeof frame, &lh, bytes);
  memfab_inject(R.fab, 0, 1, frame, fl, R.now);
}

/* A firmware message: header + payload + trailer (optionally corrupted). */
static size_t make_msg(uint8_t *out, unsigned dst_vi, const uint8_t *payload, uint32_t n,
                       bool bad_sum) {
  struct fw_wire_hdr h = {.type = FW_WIRE_DATA, .flags = FW_WIRE_F_FIRST | FW_WIRE_F_LAST,
                          .src_node = 0, .dst_node = 1, .src_vi = (uint16_t)dst_vi,
                          .dst_vi = (uint16_t)dst_vi, .len = n, .msg_len = n};
  fw_wire_encode(out, &h);
  memcpy(out + FW_WIRE_HDR_LEN, payload, n);
  uint16_t t = (uint16_t)~fw_wire_csum(payload, n);
  if (bad_sum) t ^= 0x0100;
  uint8_t *tr = out + FW_WIRE_HDR_LEN + n;
  tr[0] = (uint8_t)(t >> 8);
  tr[1] = (uint8_t)t;
  tr[2] = tr[3] = 0;
  return FW_WIRE_HDR_LEN + n + FW_TRAILER;
}

static void t_malformed(void) {
  hfree_all();
  uint64_t dst = halloc(1, 4096);
  memset(hptr(dst), 0x11, 4096);
  uint32_t r0 = rh_done(R.w[1], 3, false);
  struct hostif_desc rd = desc_split(HOSTIF_OP_RECV, dst, 4096, 1);
  rh_post(R.w[1], 3, false, &rd);
  int mal = counters_drop(1, "malformed"), sum = counters_drop(1, "checksum");
  int novi = counters_drop(1, "no_vi");
  struct fabric_counters fc0;
  fabric_counters(R.fab, 1, &fc0);
  static uint8_t msg[8192], payload[2000];
  fill(payload, sizeof payload, 5);
  /* Not a frame at all (the fabric drops it), a frame too short for a header, a header with
   * a bad version, a corrupted payload checksum, a message to a VI not connected to the
   * sender, a header whose length disagrees, and a message that never ends. */
  uint8_t junk[40];
  memset(junk, 0xa5, sizeof junk);
  memfab_inject(R.fab, 0, 1, junk, sizeof junk, R.now);
  inject(junk, 10, true);
  size_t n = make_msg(msg, 3, payload, 100, false);
  msg[0] = 2;
  inject(msg, n, true);
  n = make_msg(msg, 3, payload, 1500, true);
  inject(msg, n, true);
  n = make_msg(msg, 9, payload, 100, false);
  inject(msg, n, true);
  n = make_msg(msg, 3, payload, 100, false);
  inject(msg, n - 3, true);
  n = make_msg(msg, 3, payload, 2000, false);
  inject(msg, 1000, false);
  run(NULL, NULL);
  struct fabric_counters fc1;
  fabric_counters(R.fab, 1, &fc1);
  uint64_t fab_drops = 0;
  for (int i = 0; i < FAB_DROP_N; i++) fab_drops += fc1.drops[i] - fc0.drops[i];
  CHECK(fab_drops == 1, "fabric drops %llu", (unsigned long long)fab_drops);
  CHECK(counters_drop(1, "malformed") == mal + 4, "malformed drops %d",
        counters_drop(1, "malformed") - mal);
  CHECK(counters_drop(1, "checksum") == sum + 1, "checksum drops %d",
        counters_drop(1, "checksum") - sum);
  CHECK(counters_drop(1, "no_vi") == novi + 1, "no-VI drops %d", counters_drop(1, "no_vi") - novi);
  CHECK(rh_done(R.w[1], 3, false) == r0, "a malformed message completed a receive descriptor");
  /* A well-formed injected message still goes through, into the same posted descriptor. */
  n = make_msg(msg, 3, payload, 700, false);
  inject(msg, n, true);
  bool ok = wait_done(1, 3, false, r0 + 1);
  struct hostif_desc rc = rh_slot(R.w[1], 3, false, r0);
  CHECK(ok && rc.status == HOSTIF_ST_DONE && rc.done_len == 700 &&
            memcmp(hptr(dst), payload, 700) == 0,
        "good message after the bad ones: status %u len %u", rc.status, rc.done_len);
}

/* ---- datagram VIs (E-UDP, WIRE.md "Datagrams") ---- */

#define DG_A 5000   /* NIC 0, VI 5 */
#define DG_B 5001   /* NIC 0, VI 6 */
#define DG_R 7000   /* NIC 1, VI 5 */

static void dg_bind(int nic, unsigned vi, uint16_t port) {
  rh_vi_create(R.w[nic], vi, PTAG, HOSTIF_UNRELIABLE);
  rh_vi(R.w[nic], vi)->port = port;
  rh_vi(R.w[nic], vi)->flags = HOSTIF_VI_F_DGRAM;
}

static uint32_t dg_send(int nic, unsigned vi, uint16_t node, uint16_t port, uint64_t src,
                        uint32_t n) {
  struct hostif_desc d = desc_split(HOSTIF_OP_SEND, src, n, 1 + n % 3);
  d.rdma_addr = HOSTIF_DGRAM_DEST(node, port) | (uint64_t)(0x0a000001u + node) << 32;
  d.rdma_ptag = 0x0a000001u + (uint32_t)nic;
  return rh_post(R.w[nic], vi, true, &d);
}

static uint32_t dg_recv(int nic, unsigned vi, uint64_t dst, uint32_t cap) {
  struct hostif_desc d = desc_split(HOSTIF_OP_RECV, dst, cap, 1 + cap % 2);
  return rh_post(R.w[nic], vi, false, &d);
}

/* RFC 1071, written out here apart from the firmware's arithmetic: the complemented
 * ones'-complement sum of 16-bit big-endian words of the concatenated parts. */
static uint16_t rfc1071(const uint8_t *const *part, const size_t *len, int nparts) {
  uint64_t sum = 0;
  int odd = 0;
  for (int k = 0; k < nparts; k++)
    for (size_t i = 0; i < len[k]; i++, odd ^= 1) sum += odd ? part[k][i] : (uint64_t)part[k][i] << 8;
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return (uint16_t)~sum;
}

static void be16(uint8_t *p, unsigned v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void be32(uint8_t *p, uint32_t v) { be16(p, v >> 16); be16(p + 2, v & 0xffff); }

/* The IPv4 and UDP headers of a datagram (RFC 791, RFC 768), built by the test alone. */
static void make_tail(uint8_t *t, uint32_t src_ip, uint32_t dst_ip, uint16_t id, uint16_t sport,
                      uint16_t dport, const uint8_t *payload, uint32_t n) {
  memset(t, 0, FW_WIRE_UDP_LEN);
  t[0] = 0x45;
  be16(t + 2, n + 28);
  be16(t + 4, id);
  be16(t + 6, 0x4000);
  t[8] = 64;
  t[9] = 17;
  be32(t + 12, src_ip);
  be32(t + 16, dst_ip);
  const uint8_t *ip[] = {t};
  size_t iplen[] = {20};
  be16(t + 10, rfc1071(ip, iplen, 1));
  be16(t + 20, sport);
  be16(t + 22, dport);
  be16(t + 24, n + 8);
  uint8_t pseudo[12] = {0};
  memcpy(pseudo, t + 12, 8);
  pseudo[9] = 17;
  be16(pseudo + 10, n + 8);
  const uint8_t *parts[] = {pseudo, t + 20, payload};
  size_t lens[] = {12, 8, n};
  uint16_t c = rfc1071(parts, lens, 3);
  be16(t + 26, c ? c : 0xffff);
}

enum dg_fault { DG_OK, DG_BAD_TRAILER, DG_BAD_UDP, DG_BAD_IP };

/* A one-message datagram as a sending NIC 0 builds it (header, payload, trailer, tail), with
 * one fault. */
static size_t make_dgram(uint8_t *out, uint16_t dport, uint16_t sport, const uint8_t *payload,
                         uint32_t n, enum dg_fault fault) {
  struct fw_wire_hdr h = {.type = FW_WIRE_DATA, .flags = FW_WIRE_F_FIRST | FW_WIRE_F_LAST,
                          .src_node = 0, .dst_node = 1, .src_vi = 9, .dst_vi = 0, .len = n,
                          .msg_len = n, .imm = 77, .rdma_handle = (uint32_t)dport << 16 | sport};
  fw_wire_encode(out, &h);
  memcpy(out + FW_WIRE_HDR_LEN, payload, n);
  uint16_t t = (uint16_t)~fw_wire_csum(payload, n);
  if (fault == DG_BAD_TRAILER) t ^= 0x0100;
  uint8_t *tr = out + FW_WIRE_HDR_LEN + n;
  tr[0] = (uint8_t)(t >> 8);
  tr[1] = (uint8_t)t;
  tr[2] = tr[3] = 0;
  make_tail(tr + FW_TRAILER, 0x0a000001, 0x0a000002, 77, sport, dport, payload, n);
  if (fault == DG_BAD_UDP) tr[FW_TRAILER + 27] ^= 0x01;
  if (fault == DG_BAD_IP) tr[FW_TRAILER + 8] = 63;   /* TTL changed, header checksum not */
  return FW_WIRE_HDR_LEN + n + FW_TRAILER + FW_WIRE_UDP_LEN;
}

/* Datagrams of every size up to 65507 bytes, fragmented and reassembled, reach the VI bound
 * to their port with their sender named; one from another sender port too. */
static void t_dgram_sizes(void) {
  static const uint32_t sizes[] = {0, 1, 4008, 4009, 9000, 9001, 60000, HOSTIF_DGRAM_MAX};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    uint32_t n = sizes[k];
    unsigned svi = k % 2 ? 6 : 5;
    hfree_all();
    uint64_t src = halloc(0, n + 1), dst = halloc(1, 65536 + 64);
    fill(hptr(src), n, (unsigned)k + 40);
    memset(hptr(dst), 0xee, 65536 + 64);
    uint32_t r0 = rh_done(R.w[1], 5, false), s0 = rh_done(R.w[0], svi, true);
    dg_recv(1, 5, dst, 65536);
    uint32_t si = dg_send(0, svi, 1, DG_R, src, n);
    bool ok = wait_done(1, 5, false, r0 + 1) && wait_done(0, svi, true, s0 + 1);
    struct hostif_desc rc = rh_slot(R.w[1], 5, false, r0), sc = rh_slot(R.w[0], svi, true, si);
    CHECK(ok && rc.status == HOSTIF_ST_DONE && rc.done_len == n && sc.status == HOSTIF_ST_DONE &&
              rc.done_flags == HOSTIF_F_DGRAM &&
              rc.done_imm == HOSTIF_DGRAM_DEST(0, svi == 5 ? DG_A : DG_B),
          "datagram %u: ok %d recv status %u len %u flags %u from %#x, send status %u", n, ok,
          rc.status, rc.done_len, rc.done_flags, rc.done_imm, sc.status);
    CHECK(memcmp(hptr(src), hptr(dst), n) == 0 && hptr(dst)[n] == 0xee,
          "datagram %u: data differs or overrun", n);
  }
}

/* What a datagram VI refuses and what the receiving NIC drops and counts: a send with
 * immediate data, too long, or to port 0 (FORMAT); a datagram to a port nobody holds, one
 * finding no receive descriptor (the sender completes anyway), one longer than the buffer
 * (LENGTH), one whose payload fails its checksum (dropped whole, the descriptor stays for the
 * next). */
static void t_dgram_drops(void) {
  hfree_all();
  uint64_t src = halloc(0, 70000), dst = halloc(1, 65536);
  fill(hptr(src), 70000, 77);
  uint32_t s0 = rh_done(R.w[0], 5, true);
  struct hostif_desc d = desc_split(HOSTIF_OP_SEND, src, 100, 1);
  d.rdma_addr = HOSTIF_DGRAM_DEST(1, DG_R);
  d.flags = HOSTIF_F_IMMEDIATE;
  uint32_t i1 = rh_post(R.w[0], 5, true, &d);
  uint32_t i2 = dg_send(0, 5, 1, DG_R, src, HOSTIF_DGRAM_MAX + 1);
  uint32_t i3 = dg_send(0, 5, 1, 0, src, 10);
  bool ok = wait_done(0, 5, true, s0 + 3);
  CHECK(ok && rh_slot(R.w[0], 5, true, i1).status == HOSTIF_ST_FORMAT &&
            rh_slot(R.w[0], 5, true, i2).status == HOSTIF_ST_FORMAT &&
            rh_slot(R.w[0], 5, true, i3).status == HOSTIF_ST_FORMAT,
        "bad datagram sends: %u %u %u", rh_slot(R.w[0], 5, true, i1).status,
        rh_slot(R.w[0], 5, true, i2).status, rh_slot(R.w[0], 5, true, i3).status);

  int novi = counters_drop(1, "no_vi"), nodesc = counters_drop(1, "no_desc");
  s0 = rh_done(R.w[0], 5, true);
  dg_send(0, 5, 1, 7001, src, 500);          /* no VI holds port 7001 */
  dg_send(0, 5, 1, DG_R, src, 9000);         /* no receive posted on port 7000 */
  ok = wait_done(0, 5, true, s0 + 2);
  run(NULL, NULL);
  CHECK(ok && rh_slot(R.w[0], 5, true, s0).status == HOSTIF_ST_DONE &&
            rh_slot(R.w[0], 5, true, s0 + 1).status == HOSTIF_ST_DONE,
        "datagrams nobody takes still complete at the sender");
  CHECK(counters_drop(1, "no_vi") == novi + 1, "no-port drops %d", counters_drop(1, "no_vi") - novi);
  CHECK(counters_drop(1, "no_desc") >= nodesc + 1, "no-buffer drops %d",
        counters_drop(1, "no_desc") - nodesc);

  uint32_t r0 = rh_done(R.w[1], 5, false);
  dg_recv(1, 5, dst, 1000);
  dg_send(0, 5, 1, DG_R, src, 1001);
  ok = wait_done(1, 5, false, r0 + 1);
  CHECK(ok && rh_slot(R.w[1], 5, false, r0).status == HOSTIF_ST_LENGTH, "short buffer: %u",
        rh_slot(R.w[1], 5, false, r0).status);
  run(NULL, NULL);   /* its last bytes off the link before anything is injected */

  static uint8_t msg[8192], payload[3000];
  fill(payload, sizeof payload, 9);
  int sum = counters_drop(1, "checksum");
  r0 = rh_done(R.w[1], 5, false);
  memset(hptr(dst), 0, 65536);
  dg_recv(1, 5, dst, 65536);
  inject(msg, make_dgram(msg, DG_R, 4444, payload, sizeof payload, DG_BAD_TRAILER), true);
  run(NULL, NULL);
  CHECK(counters_drop(1, "checksum") == sum + 1 && rh_done(R.w[1], 5, false) == r0,
        "bad-checksum datagram: drops %d, completed %u", counters_drop(1, "checksum") - sum,
        rh_done(R.w[1], 5, false) - r0);
  inject(msg, make_dgram(msg, DG_R, 4444, payload, sizeof payload, DG_OK), true);
  ok = wait_done(1, 5, false, r0 + 1);
  struct hostif_desc rc = rh_slot(R.w[1], 5, false, r0);
  CHECK(ok && rc.status == HOSTIF_ST_DONE && rc.done_len == sizeof payload &&
            rc.done_imm == HOSTIF_DGRAM_DEST(0, 4444) && memcmp(hptr(dst), payload, sizeof payload) == 0,
        "good datagram after a bad one: status %u len %u from %#x", rc.status, rc.done_len,
        rc.done_imm);
}

/* Two senders into one port at once, 60000-byte datagrams: their messages interleave and
 * each datagram is reassembled in its own context; every one arrives whole, its completion
 * naming the buffer it filled by the receive descriptor's cookie. */
static void t_dgram_two_senders(void) {
  hfree_all();
  enum { N = 8, LEN = 60000 };
  uint64_t src[2], dst[N];
  for (int s = 0; s < 2; s++) {
    src[s] = halloc(0, LEN);
    fill(hptr(src[s]), LEN, 100u + (unsigned)s);
  }
  uint32_t r0 = rh_done(R.w[1], 5, false);
  for (int i = 0; i < N; i++) {
    dst[i] = halloc(1, 65536);
    memset(hptr(dst[i]), 0, 65536);
    struct hostif_desc d = desc_split(HOSTIF_OP_RECV, dst[i], 65536, 1 + i % 2);
    d.cookie = 1000u + (uint32_t)i;
    rh_post(R.w[1], 5, false, &d);
  }
  int mal = counters_drop(1, "malformed");
  uint32_t a0 = rh_done(R.w[0], 5, true), b0 = rh_done(R.w[0], 6, true);
  for (int i = 0; i < N / 2; i++) {
    dg_send(0, 5, 1, DG_R, src[0], LEN);
    dg_send(0, 6, 1, DG_R, src[1], LEN);
  }
  bool ok = wait_done(0, 5, true, a0 + N / 2) && wait_done(0, 6, true, b0 + N / 2);
  ok = ok && wait_done(1, 5, false, r0 + N);
  uint32_t got = rh_done(R.w[1], 5, false) - r0;
  int bad = 0, from[2] = {0, 0};
  bool seen[N] = {false};
  for (uint32_t i = 0; i < got && i < N; i++) {
    struct hostif_desc rc = rh_slot(R.w[1], 5, false, r0 + i);
    uint32_t b = rc.cookie - 1000u;
    int s = rc.done_imm == HOSTIF_DGRAM_DEST(0, DG_A) ? 0 : 1;
    if (b >= N || seen[b] || rc.status != HOSTIF_ST_DONE || rc.done_len != LEN ||
        memcmp(hptr(dst[b]), hptr(src[s]), LEN) != 0) {
      bad++;
      continue;
    }
    seen[b] = true;
    from[s]++;
  }
  CHECK(ok && got == N && bad == 0 && from[0] == N / 2 && from[1] == N / 2 &&
            counters_drop(1, "malformed") == mal,
        "two senders: %u of %d arrived, %d wrong, %d/%d by sender, %d dropped", got, N, bad,
        from[0], from[1], counters_drop(1, "malformed") - mal);
}

/* More datagrams begun than there are contexts: the stalest is evicted and counted, the others
 * arrive; a context whose datagram stops is evicted once stale, and its buffer serves the next. */
static void t_dgram_evict(void) {
  hfree_all();
  enum { LEN = 9000 };
  static uint8_t msg[8192], payload[LEN];
  fill(payload, LEN, 5);
  uint64_t dst[FW_DG_NCTX + 1];
  uint32_t r0 = rh_done(R.w[1], 5, false);
  for (unsigned i = 0; i <= FW_DG_NCTX; i++) {   /* a buffer for every datagram begun */
    dst[i] = halloc(1, 65536);
    struct hostif_desc d = desc_split(HOSTIF_OP_RECV, dst[i], 65536, 1);
    d.cookie = i;
    rh_post(R.w[1], 5, false, &d);
  }
  int mal = counters_drop(1, "malformed");
  /* first messages of FW_DG_NCTX + 1 datagrams from different ports, none finished */
  for (unsigned k = 0; k <= FW_DG_NCTX; k++) {
    struct fw_wire_hdr h = {.type = FW_WIRE_DATA, .flags = FW_WIRE_F_FIRST, .src_node = 0,
                            .dst_node = 1, .src_vi = 9, .dst_vi = 0, .len = 4008, .msg_len = LEN,
                            .imm = k, .rdma_handle = (uint32_t)DG_R << 16 | (4600 + k)};
    fw_wire_encode(msg, &h);
    memcpy(msg + FW_WIRE_HDR_LEN, payload, 4008);
    uint16_t t = (uint16_t)~fw_wire_csum(payload, 4008);
    uint8_t *tr = msg + FW_WIRE_HDR_LEN + 4008;
    tr[0] = (uint8_t)(t >> 8), tr[1] = (uint8_t)t, tr[2] = tr[3] = 0;
    inject(msg, FW_WIRE_HDR_LEN + 4008 + FW_TRAILER, true);
  }
  run(NULL, NULL);
  CHECK(counters_drop(1, "malformed") == mal + 1 && rh_done(R.w[1], 5, false) == r0,
        "%u datagrams begun into %u contexts: %d evicted", FW_DG_NCTX + 1, FW_DG_NCTX,
        counters_drop(1, "malformed") - mal);
  /* long after: the stale ones go, and a whole datagram takes a buffer they held and arrives */
  R.now += 2 * FW_RX_STALL_NS;
  uint64_t src = halloc(0, LEN);
  memcpy(hptr(src), payload, LEN);
  dg_send(0, 5, 1, DG_R, src, LEN);
  bool ok = wait_done(1, 5, false, r0 + 1);
  struct hostif_desc rc = rh_slot(R.w[1], 5, false, r0);
  CHECK(ok && rc.status == HOSTIF_ST_DONE && rc.cookie <= FW_DG_NCTX &&
            memcmp(hptr(dst[rc.cookie % (FW_DG_NCTX + 1)]), payload, LEN) == 0 &&
            counters_drop(1, "malformed") >= mal + 1 + (int)FW_DG_NCTX,
        "after the stale contexts: status %u, evicted %d", rc.status,
        counters_drop(1, "malformed") - mal);
}

/* The fabric's hook keeps the last datagram message with a tail that NIC 0 sends. */
static struct { uint8_t cur[FW_MSGLEN], last[FW_MSGLEN]; size_t n, last_n; } CAP;

static enum memfab_fault capture(void *ctx, uint16_t src, uint16_t dst, uint64_t index,
                                 uint8_t *frame, size_t *len) {
  (void)ctx, (void)dst, (void)index;
  struct hw_link_hdr lh;
  const uint8_t *p;
  if (src != 0 || hw_link_parse(frame, *len, &lh, &p) != HW_LINK_OK) return MEMFAB_PASS;
  if (CAP.n + lh.len <= sizeof CAP.cur) memcpy(CAP.cur + CAP.n, p, lh.len);
  CAP.n += lh.len;
  struct fw_wire_hdr h;
  if ((lh.flags & HW_LINK_EOM) && CAP.n <= sizeof CAP.cur && fw_wire_decode(CAP.cur, &h) &&
      fw_wire_tail_len(&h)) {
    memcpy(CAP.last, CAP.cur, CAP.n);
    CAP.last_n = CAP.n;
  }
  if (lh.flags & HW_LINK_EOM) CAP.n = 0;
  return MEMFAB_PASS;
}

/* The IPv4 and UDP headers a datagram carries: captured on the link, every field and both
 * checksums as an independent RFC 1071 computation over the sent bytes says. Then datagrams
 * injected with a wrong UDP checksum (the message's trailer right) or a damaged IPv4 header:
 * dropped and counted, and a right one delivered into the same buffer. */
static void t_dgram_udp(void) {
  hfree_all();
  enum { N = 9001 };
  uint64_t src = halloc(0, N), dst = halloc(1, 65536);
  fill(hptr(src), N, 51);
  memset(&CAP, 0, sizeof CAP);
  memfab_set_fault(R.fab, capture, NULL);
  uint32_t r0 = rh_done(R.w[1], 5, false);
  dg_recv(1, 5, dst, 65536);
  dg_send(0, 5, 1, DG_R, src, N);
  bool ok = wait_done(1, 5, false, r0 + 1);
  memfab_set_fault(R.fab, NULL, NULL);
  CHECK(ok && rh_slot(R.w[1], 5, false, r0).status == HOSTIF_ST_DONE &&
            memcmp(hptr(src), hptr(dst), N) == 0,
        "datagram with its UDP/IP headers: %u", rh_slot(R.w[1], 5, false, r0).status);
  struct fw_wire_hdr h;
  bool got = CAP.last_n > FW_WIRE_HDR_LEN && fw_wire_decode(CAP.last, &h);
  CHECK(got && h.msg_len == N && h.msg_off % 8 == 0 &&
            CAP.last_n == FW_WIRE_HDR_LEN + h.len + FW_TRAILER + FW_WIRE_UDP_LEN,
        "last message of the datagram captured: %zu bytes", CAP.last_n);
  if (!got) return;
  const uint8_t *t = CAP.last + FW_WIRE_HDR_LEN + h.len + FW_TRAILER;
  uint8_t want[FW_WIRE_UDP_LEN];
  make_tail(want, 0x0a000001, 0x0a000002, (uint16_t)h.imm, DG_A, DG_R, hptr(src), N);
  const uint8_t *ip[] = {t};
  size_t iplen[] = {20};
  CHECK(memcmp(t, want, FW_WIRE_UDP_LEN) == 0 && rfc1071(ip, iplen, 1) == 0,
        "IPv4/UDP headers differ from RFC 791/768/1071: udp checksum %02x%02x, want %02x%02x",
        t[26], t[27], want[26], want[27]);

  static uint8_t msg[8192], payload[3001];
  fill(payload, sizeof payload, 13);
  int sum = counters_drop(1, "checksum"), mal = counters_drop(1, "malformed");
  memset(hptr(dst), 0, 65536);
  r0 = rh_done(R.w[1], 5, false);
  dg_recv(1, 5, dst, 65536);
  inject(msg, make_dgram(msg, DG_R, 4445, payload, sizeof payload, DG_BAD_UDP), true);
  inject(msg, make_dgram(msg, DG_R, 4445, payload, sizeof payload, DG_BAD_IP), true);
  run(NULL, NULL);
  CHECK(counters_drop(1, "checksum") == sum + 1 && counters_drop(1, "malformed") == mal + 1 &&
            rh_done(R.w[1], 5, false) == r0,
        "bad UDP checksum / IPv4 header: checksum drops %d, malformed %d, completed %u",
        counters_drop(1, "checksum") - sum, counters_drop(1, "malformed") - mal,
        rh_done(R.w[1], 5, false) - r0);
  inject(msg, make_dgram(msg, DG_R, 4445, payload, sizeof payload, DG_OK), true);
  ok = wait_done(1, 5, false, r0 + 1);
  struct hostif_desc rc = rh_slot(R.w[1], 5, false, r0);
  CHECK(ok && rc.status == HOSTIF_ST_DONE && rc.done_len == sizeof payload &&
            memcmp(hptr(dst), payload, sizeof payload) == 0,
        "right datagram after the bad ones: status %u len %u", rc.status, rc.done_len);
}

static void t_dgram(void) {
  dg_bind(0, 5, DG_A);
  dg_bind(0, 6, DG_B);
  dg_bind(1, 5, DG_R);
  t_dgram_sizes();
  t_dgram_drops();
  t_dgram_udp();
  t_dgram_two_senders();
  t_dgram_evict();
}

/* The dispatcher: a doorbell that names no VI and no mailbox is counted and loses nothing;
 * every event bit it read is cleared; the counters reach the host. */
static void t_dispatch(void) {
  volatile struct hostif_counters *c = rh_counters(R.w[0]);
  uint64_t bad = c->bad_doorbells, sig = c->isr[0];
  hwin_doorbell(R.w[0], 20, 1);
  hwin_doorbell(R.w[0], 31, 7);
  run(NULL, NULL);
  CHECK(c->bad_doorbells == bad + 2 && c->isr[0] > sig && c->fw_faults == 0,
        "unknown doorbells: counted %llu (want 2), host-signal events %llu, faults %llu",
        (unsigned long long)(c->bad_doorbells - bad), (unsigned long long)(c->isr[0] - sig),
        (unsigned long long)c->fw_faults);
  CHECK(nic_events(R.nic[0]) == 0 && nic_events(R.nic[1]) == 0,
        "event bits left set after the dispatcher ran: %#x %#x", nic_events(R.nic[0]),
        nic_events(R.nic[1]));
}

/* Faults are counted by id and published with the latest one; a machine's fault keeps its
 * code and its place in the ESM source. Run last: it leaves the NIC with faults. */
static void t_faults(void) {
  volatile struct hostif_counters *c = rh_counters(R.w[0]);
  datapath_hal_fault(&R.fw[0].dp, datapath_FAULT_RANGE, "sdma.esm:42");
  datapath_hal_fault(&R.fw[0].dp, datapath_FAULT_RANGE, "sdma.esm:43");
  hwin_doorbell(R.w[0], 20, 1);   /* something to do, so the counters are published */
  run(NULL, NULL);
  CHECK(c->fw_faults == 2 && c->faults[HOSTIF_FAULT_DP_RANGE] == 2 &&
            c->last_fault == HOSTIF_FAULT_DP_RANGE &&
            strcmp((const char *)c->last_fault_where, "sdma.esm:43") == 0,
        "machine faults: total %llu, DP_RANGE %llu, latest %u at %s",
        (unsigned long long)c->fw_faults, (unsigned long long)c->faults[HOSTIF_FAULT_DP_RANGE],
        c->last_fault, (const char *)c->last_fault_where);
  datapath_hal_fault(&R.fw[0].dp, 99, NULL);
  fw_fault(&R.fw[0], HOSTIF_FAULT_TX_ORDER);
  hwin_doorbell(R.w[0], 20, 1);
  run(NULL, NULL);
  CHECK(c->faults[HOSTIF_FAULT_DP_OTHER] == 1 && c->faults[HOSTIF_FAULT_TX_ORDER] == 1 &&
            c->last_fault == HOSTIF_FAULT_TX_ORDER && c->fw_faults == 4 && c->faults[0] == 0,
        "faults by id: DP_OTHER %llu, TX_ORDER %llu, latest %u, total %llu",
        (unsigned long long)c->faults[HOSTIF_FAULT_DP_OTHER],
        (unsigned long long)c->faults[HOSTIF_FAULT_TX_ORDER], c->last_fault,
        (unsigned long long)c->fw_faults);
}

int main(void) {
  for (int fine = 1; fine >= 0; fine--) {
    rig_up(fine, NIC_TIMING_MODEL);
    t_dispatch();
    t_sizes();
    t_many();
    t_immediate();
    t_rdma();
    t_protection();
    t_format();
    t_no_desc_and_disconnected();
    t_recreated();
    t_stale_stamp();
    t_malformed();
    t_dgram();
    CHECK(R.fw[0].faults == 0 && R.fw[1].faults == 0, "firmware faults %u %u",
          R.fw[0].faults, R.fw[1].faults);
    CHECK(rh_counters(R.w[1])->isr[1] > 0 && rh_counters(R.w[1])->isr[3] > 0,
          "NIC 1 published no send or receive events");
    CHECK(bounds_broken == 0, "fw_bounds broken after %ld polls", bounds_broken);
    printf("%s mode: events dispatched on NIC 1:", fine ? "fine" : "coarse");
    for (int e = 0; e < datapath_NEVENTS; e++)
      printf(" %s=%u", datapath_event_name(e), R.fw[1].dp.dispatched[e]);
    printf("\n");
    t_faults();
    rig_down();
  }
  /* Transfers that take no emulated time (nicd --fast): the receiver falls behind the link. */
  rig_up(false, NIC_TIMING_FAST);
  t_ack_coalesce();
  CHECK(R.fw[0].faults == 0 && R.fw[1].faults == 0 && bounds_broken == 0,
        "fast: firmware faults %u %u, fw_bounds broken %ld", R.fw[0].faults, R.fw[1].faults,
        bounds_broken);
  rig_down();
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
