/* test_reliab.c: Reliable Delivery's retransmission in the real firmware (fw_reliab.c and the
 * esmc-generated machines of esm/reliab) on two emulated NICs joined by the in-memory fabric,
 * whose fault hook loses, duplicates, damages (payload bytes changed under a good link CRC, so
 * the firmware's own checksums must catch it) and reorders (a frame held back and injected
 * later) frames in both directions, seeded. Sends and RDMA Writes of 0 B to 3 messages on
 * reliable VIs both ways: each transfer delivered exactly once, in order, bytes compared; no
 * send completes before its data is at the receiver (checked after every poll). Then the
 * retry limit: with the link down the waiting sends complete TRANSPORT within the retry
 * budget (virtual time), and with only the ACKs lost the sender breaks, its RST breaks the
 * receiver, and nothing is delivered after. Forged frames (numbers outside 2^30 or the window)
 * are dropped and harm nothing. A NACK that comes after the ACK of an earlier send, while a
 * message of it resent is still in the pipeline, fails only the refused send. A receiver whose
 * host disconnects right after a delivery, its ACK still on the way: the sender's send
 * completes DONE from what nicd hands its VI (hostif.h, rel_seq), not DISCONNECTED. Prints
 * "N passed, N failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../hw/link.h"
#include "../../hw/memfab.h"
#include "board_emu.h"
#include "fw.h"
#include "fw_dispatch.h"
#include "fw_init.h"
#include "rawhost.h"

#define PTAG 0x6262u
#define MEMLEN (16u << 20)
#define NHELD 64

#include "../check.h"

struct held {
  uint64_t due;
  uint16_t src, dst;
  size_t len;
  uint8_t bytes[HW_LINK_MAX_PAYLOAD / 8];
};

struct faults {
  uint64_t rng;
  unsigned loss, dup, corrupt, reorder;   /* per 10000 frames */
  unsigned late;                          /* per 10000: held about one first timeout */
  bool cut[2];                            /* everything from node i is lost */
  uint64_t delay_ns[2];                   /* everything from node i arrives this much later */
  bool mid[2];                            /* node i is in a fragment train */
  long lost, dups, damaged, held;
};

struct rig {
  struct fabric *fab;
  struct nic *nic[2];
  struct fw_board bd[2];
  struct fw fw[2];
  struct hwin *w[2];
  struct hostmem mem[2];
  uint64_t base[2];
  size_t used[2];
  uint64_t now;
  struct faults f;
  struct held held[NHELD];
  unsigned nheld;
};
static struct rig R;

static unsigned rnd(unsigned n) {
  R.f.rng = R.f.rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(R.f.rng >> 33) % n;
}

/* The fault hook: one decision per link frame. A frame of a fragment train (not the first's
 * own EOM) may be lost or damaged; only a whole message (one frame with EOM, not inside a
 * train) is held back or copied, since the receive engine appends every frame of a source to
 * the message it is assembling. */
static enum memfab_fault hook(void *ctx, uint16_t src, uint16_t dst, uint64_t index,
                              uint8_t *frame, size_t *len) {
  (void)ctx;
  (void)index;
  struct hw_link_hdr lh;
  const uint8_t *pl;
  if (hw_link_parse(frame, *len, &lh, &pl) != HW_LINK_OK || src > 1) return MEMFAB_PASS;
  if (R.f.delay_ns[src] && R.nheld < NHELD && *len <= sizeof R.held[0].bytes) {
    struct held *h = &R.held[R.nheld++];
    *h = (struct held){.due = R.now + R.f.delay_ns[src], .src = src, .dst = dst, .len = *len};
    memcpy(h->bytes, frame, *len);
    return MEMFAB_DROP;
  }
  bool whole = !R.f.mid[src] && (lh.flags & HW_LINK_EOM);
  R.f.mid[src] = !(lh.flags & HW_LINK_EOM);
  if (R.f.cut[src]) return MEMFAB_DROP;
  if (rnd(10000) < R.f.loss) {
    R.f.lost++;
    return MEMFAB_DROP;
  }
  if (rnd(10000) < R.f.corrupt && lh.len > 0) {
    /* a byte of the firmware's message changed, and the link CRC made good again */
    static uint8_t copy[HW_LINK_MAX_FRAME];
    memcpy(copy, pl, lh.len);
    copy[rnd(lh.len)] ^= (uint8_t)(1u + rnd(255));
    size_t n = hw_link_encode(frame, *len, &lh, copy);
    if (n == *len) R.f.damaged++;
  }
  bool dup = rnd(10000) < R.f.dup, hold = rnd(10000) < R.f.reorder, late = rnd(10000) < R.f.late;
  if (whole && (dup || hold || late) && R.nheld < NHELD && *len <= sizeof R.held[0].bytes) {
    struct held *h = &R.held[R.nheld++];
    h->due = R.now + 2000 + rnd(200000); /* up to 200 us later: behind later frames */
    if (late) h->due = R.now + 1900000 + rnd(200000); /* around the first timeout (2 ms) */
    hold |= late;
    h->src = src;
    h->dst = dst;
    h->len = *len;
    memcpy(h->bytes, frame, *len);
    if (hold) {
      R.f.held++;
      return MEMFAB_DROP;
    }
    R.f.dups++;
  }
  return MEMFAB_PASS;
}

static void rig_up(bool fine) {
  memset(&R, 0, sizeof R);
  struct memfab_config mc = {.nodes = 2, .latency_ns = MEMFAB_DEFAULT_LATENCY_NS};
  R.fab = memfab_create(&mc);
  memfab_set_fault(R.fab, hook, NULL);
  for (int i = 0; i < 2; i++) {
    struct nic_config c;
    nic_config_default(&c);
    c.node = (uint16_t)i;
    int err = 0;
    R.nic[i] = nic_create(&c, &err);
    if (!R.nic[i]) { printf("nic_create: %d\n", err); exit(1); }
    nic_attach(R.nic[i], R.fab);
    R.bd[i].nic = R.nic[i];
    struct fw_config fc = {.fine_mode = fine};
    if (fw_init(&R.fw[i], &R.bd[i], &fc) != 0) { printf("fw_init failed\n"); exit(1); }
    R.w[i] = nic_window(R.nic[i]);
    if (hostmem_create(&R.mem[i], MEMLEN) != 0) { printf("hostmem\n"); exit(1); }
    uint64_t a;
    int rg = hwin_region_add(R.w[i], &R.mem[i], 0, MEMLEN, PTAG,
                             HW_ACC_NIC_READ | HW_ACC_NIC_WRITE, &a);
    if (rg < 0) { printf("region\n"); exit(1); }
    R.w[i]->regions[rg].access |= HOSTIF_REGION_RDMA_WRITE;
    R.base[i] = a;
    for (unsigned v = 1; v <= 4; v++) {
      rh_vi_create(R.w[i], v, PTAG, HOSTIF_RELIABLE_DELIVERY);
      rh_vi(R.w[i], v)->flags |= HOSTIF_VI_F_RDMA_WRITE;
    }
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

static uint64_t halloc(int i, size_t len) {
  uint64_t a = R.base[i] + R.used[i];
  R.used[i] += (len + 63) & ~(size_t)63;
  if (R.used[i] > MEMLEN) { printf("test out of host memory\n"); exit(1); }
  return a;
}
static uint8_t *hptr(uint64_t a) { return (uint8_t *)(uintptr_t)a; }

/* Runs both NICs until pred holds, nothing can happen, or the virtual clock passes limit. The
 * held frames go into the fabric when they are due. */
static bool run_until(bool (*pred)(void *), void *ctx, uint64_t limit) {
  for (long it = 0; it < 20000000; it++) {
    for (unsigned k = 0; k < R.nheld;) {
      if (R.held[k].due > R.now) { k++; continue; }
      struct held *h = &R.held[k];
      memfab_inject(R.fab, h->src, h->dst, h->bytes, h->len, R.now);
      R.held[k] = R.held[--R.nheld];
    }
    nic_advance_all(R.nic, 2, R.now);
    bool did = fw_dispatch_poll(&R.fw[0]);
    did |= fw_dispatch_poll(&R.fw[1]);
    if (pred && pred(ctx)) return true;
    if (R.now > limit) return false;
    uint64_t t = nic_next_due(R.nic[0]), t1 = nic_next_due(R.nic[1]);
    if (t1 < t) t = t1;
    for (unsigned k = 0; k < R.nheld; k++)
      if (R.held[k].due < t) t = R.held[k].due;
    if (t == NIC_NEVER) {
      if (!did) return pred == NULL;
      continue;
    }
    if (t > R.now) R.now = t;
  }
  return false;
}

static void fill(uint8_t *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 8));
}

/* One round: HOSTIF_RING transfers each way on VI 1 (sends) and VI 2 (RDMA Writes). */
struct xfer {
  uint64_t src, dst;
  uint32_t len;
  bool seen;      /* its send completion was checked */
};
struct round {
  struct xfer x[2][2][HOSTIF_RING];   /* [from node][0 send, 1 RDMA][i] */
  uint32_t s0[2][2], r0[2];
  long early;     /* sends completed before their data was there */
  long bad;       /* completions with a wrong status */
};
static struct round RD;

/* After every poll: a send completed only with its data delivered. */
static bool round_done(void *p) {
  (void)p;
  bool all = true;
  for (int a = 0; a < 2; a++)
    for (int k = 0; k < 2; k++) {
      uint32_t done = rh_done(R.w[a], 1 + (unsigned)k, true) - RD.s0[a][k];
      for (uint32_t i = 0; i < done && i < HOSTIF_RING; i++) {
        struct xfer *x = &RD.x[a][k][i];
        if (x->seen) continue;
        x->seen = true;
        struct hostif_desc sc = rh_slot(R.w[a], 1 + (unsigned)k, true, RD.s0[a][k] + i);
        if (sc.status != HOSTIF_ST_DONE) RD.bad++;
        if (k == 0 && rh_done(R.w[1 - a], 1, false) - RD.r0[1 - a] <= i) RD.early++;
        if (memcmp(hptr(x->src), hptr(x->dst), x->len) != 0) RD.early++;
      }
      if (done < HOSTIF_RING) all = false;
    }
  for (int b = 0; b < 2; b++)
    if (rh_done(R.w[b], 1, false) - RD.r0[b] < HOSTIF_RING) all = false;
  return all;
}

static long lossy_rounds(unsigned rounds, unsigned seed, long *transfers, long *msgs) {
  long wrong = 0;
  for (unsigned rd = 0; rd < rounds; rd++) {
    memset(&RD, 0, sizeof RD);
    R.used[0] = R.used[1] = 0;
    for (int a = 0; a < 2; a++) {
      RD.r0[a] = rh_done(R.w[a], 1, false);
      for (int k = 0; k < 2; k++) RD.s0[a][k] = rh_done(R.w[a], 1 + (unsigned)k, true);
    }
    for (int a = 0; a < 2; a++)
      for (int k = 0; k < 2; k++)
        for (unsigned i = 0; i < HOSTIF_RING; i++) {
          struct xfer *x = &RD.x[a][k][i];
          x->len = rnd(4) == 0 ? rnd(64) : rnd(3 * FW_MAX_PAYLOAD + 1);
          uint32_t per = R.fw[a].cfg.fine_mode ? FW_FINE_PAYLOAD : FW_MAX_PAYLOAD;
          *msgs += x->len ? (x->len + per - 1) / per : 1;
          x->src = halloc(a, x->len + 1);
          x->dst = halloc(1 - a, x->len + 1);
          fill(hptr(x->src), x->len, seed + rd * 977 + i * 13 + (unsigned)(a * 5 + k));
          memset(hptr(x->dst), 0, x->len + 1);
          if (k == 0) {
            uint64_t ad = x->dst;
            struct hostif_desc r = rh_desc(HOSTIF_OP_RECV, PTAG, 1, &ad, &x->len);
            rh_post(R.w[1 - a], 1, false, &r);
          }
        }
    for (unsigned i = 0; i < HOSTIF_RING; i++)
      for (int a = 0; a < 2; a++)
        for (int k = 0; k < 2; k++) {
          struct xfer *x = &RD.x[a][k][i];
          uint64_t as = x->src;
          struct hostif_desc d =
              rh_desc(k ? HOSTIF_OP_RDMA_WRITE : HOSTIF_OP_SEND, PTAG, 1, &as, &x->len);
          if (k) {
            d.rdma_addr = x->dst;
            d.rdma_ptag = PTAG;
          }
          rh_post(R.w[a], 1 + (unsigned)k, true, &d);
        }
    bool ok = run_until(round_done, NULL, R.now + 60ull * 1000000000ull);
    if (!ok) {
      printf("round %u did not finish\n", rd);
      wrong++;
    }
    wrong += RD.early + RD.bad;
    if (RD.early || RD.bad) printf("round %u: %ld early, %ld bad\n", rd, RD.early, RD.bad);
    for (int b = 0; b < 2; b++)
      for (unsigned i = 0; i < HOSTIF_RING; i++) {
        struct xfer *x = &RD.x[1 - b][0][i];
        struct hostif_desc rc = rh_slot(R.w[b], 1, false, RD.r0[b] + i);
        if (rc.status != HOSTIF_ST_DONE || rc.done_len != x->len) wrong++;
        if (hptr(x->dst)[x->len] != 0) wrong++; /* nothing written past it */
      }
    *transfers += 4 * HOSTIF_RING;
  }
  return wrong;
}

static uint64_t ctr(int i, size_t off) {
  return *(volatile uint64_t *)((volatile uint8_t *)rh_counters(R.w[i]) + off);
}
#define CTR(i, f) ctr(i, offsetof(struct hostif_counters, f))

static void t_lossy(bool fine, unsigned loss, unsigned dup, unsigned corrupt, unsigned reorder,
                    unsigned late, unsigned rounds, uint64_t seed) {
  rig_up(fine);
  R.f.late = late;
  R.f.rng = seed;
  R.f.loss = loss;
  R.f.dup = dup;
  R.f.corrupt = corrupt;
  R.f.reorder = reorder;
  long transfers = 0, msgs = 0;
  uint64_t t0 = R.now;
  long wrong = lossy_rounds(rounds, (unsigned)seed, &transfers, &msgs);
  CHECK(wrong == 0, "%s loss %u dup %u corrupt %u reorder %u late %u /10000: %ld of %ld transfers wrong",
        fine ? "fine" : "coarse", loss, dup, corrupt, reorder, late, wrong, transfers);
  uint64_t rtx = CTR(0, retransmits) + CTR(1, retransmits);
  uint64_t dups = CTR(0, rx_drop_dup) + CTR(1, rx_drop_dup);
  uint64_t ooo = CTR(0, rx_drop_ooo) + CTR(1, rx_drop_ooo);
  uint64_t rto = CTR(0, rto_expired) + CTR(1, rto_expired);
  uint64_t brk = CTR(0, transport_breaks) + CTR(1, transport_breaks);
  uint64_t cks = CTR(0, rx_drop_checksum) + CTR(1, rx_drop_checksum) +
                 CTR(0, rx_drop_malformed) + CTR(1, rx_drop_malformed);
  printf("%s loss %u dup %u corrupt %u reorder %u late %u /10000: %ld transfers (%ld messages), "
         "faults lost %ld dup %ld damaged %ld held %ld; retransmits %llu, timeouts %llu, "
         "dup drops %llu, ooo drops %llu, damaged drops %llu, %.1f ms virtual\n",
         fine ? "fine" : "coarse", loss, dup, corrupt, reorder, late, transfers, msgs, R.f.lost, R.f.dups,
         R.f.damaged, R.f.held, (unsigned long long)rtx, (unsigned long long)rto,
         (unsigned long long)dups, (unsigned long long)ooo, (unsigned long long)cks,
         (double)(R.now - t0) / 1e6);
  CHECK(brk == 0, "a lossy network broke %llu connections", (unsigned long long)brk);
  CHECK(R.fw[0].faults == 0 && R.fw[1].faults == 0, "firmware faults %u %u (last %u)",
        R.fw[0].faults, R.fw[1].faults, R.fw[0].faults ? R.fw[0].fault_last : R.fw[1].fault_last);
  if (loss) CHECK(rtx > 0 && rto > 0, "losses and no retransmission");
  if (dup || reorder) CHECK(dups + ooo > 0, "duplicates and reordering, none dropped");
  if (corrupt) CHECK(cks > 0, "damaged frames, none dropped by a checksum");
  rig_down();
}

struct want { int nic; unsigned vi; bool sq; uint32_t n; };
static bool done_ge(void *p) {
  struct want *w = p;
  return rh_done(R.w[w->nic], w->vi, w->sq) >= w->n;
}

/* The retry budget of the machines: RTO0 doubling to RTO_MAX, RMAX retransmissions. */
static uint64_t budget_ns(void) {
  uint64_t b = 0, rto = reliab_CONST_RTO0;
  for (int i = 0; i <= reliab_CONST_RMAX; i++) {
    b += rto;
    rto = rto * 2 > reliab_CONST_RTO_MAX ? reliab_CONST_RTO_MAX : rto * 2;
  }
  return b * 1000u;
}

/* The link to node 1 down: NIC 0's waiting sends complete TRANSPORT within the budget. */
static void t_link_down(bool fine) {
  rig_up(fine);
  uint64_t src = halloc(0, 20000), dst = halloc(1, 20000);
  fill(hptr(src), 20000, 3);
  uint32_t len = 20000;
  for (int i = 0; i < 3; i++) {
    struct hostif_desc r = rh_desc(HOSTIF_OP_RECV, PTAG, 1, &dst, &len);
    rh_post(R.w[1], 3, false, &r);
  }
  struct hostif_desc d = rh_desc(HOSTIF_OP_SEND, PTAG, 1, &src, &len);
  rh_post(R.w[0], 3, true, &d);
  struct want w = {0, 3, true, 1};
  bool ok = run_until(done_ge, &w, R.now + 1000000000ull);
  CHECK(ok && rh_slot(R.w[0], 3, true, 0).status == HOSTIF_ST_DONE, "a send before the cut");
  memfab_set_link(R.fab, 1, false);
  uint64_t t0 = R.now;
  rh_post(R.w[0], 3, true, &d);
  rh_post(R.w[0], 3, true, &d);
  w.n = 3;
  ok = run_until(done_ge, &w, R.now + 5000000000ull);
  uint64_t took = R.now - t0;
  struct hostif_desc s1 = rh_slot(R.w[0], 3, true, 1), s2 = rh_slot(R.w[0], 3, true, 2);
  printf("%s: link down: sends completed %s/%s after %.1f ms (budget %.1f ms)\n",
         fine ? "fine" : "coarse", s1.status == HOSTIF_ST_TRANSPORT ? "TRANSPORT" : "?",
         s2.status == HOSTIF_ST_TRANSPORT ? "TRANSPORT" : "?", (double)took / 1e6,
         (double)budget_ns() / 1e6);
  CHECK(ok && s1.status == HOSTIF_ST_TRANSPORT && s2.status == HOSTIF_ST_TRANSPORT,
        "link down: statuses %u %u", s1.status, s2.status);
  CHECK(took >= budget_ns() && took <= budget_ns() + 250000000ull,
        "link down: TRANSPORT after %llu ns, budget %llu ns", (unsigned long long)took,
        (unsigned long long)budget_ns());
  CHECK(rh_vi(R.w[0], 3)->state == HOSTIF_VI_ERROR && CTR(0, transport_breaks) == 1,
        "the sender's VI did not go to ERROR");
  CHECK(R.fw[0].faults == 0 && R.fw[1].faults == 0, "firmware faults");
  rig_down();
}

/* Only NIC 1's frames (the ACKs) are lost: NIC 0 breaks, its RST breaks NIC 1's VI too (the
 * receives still posted complete FLUSHED), and nothing is delivered after. */
static void t_acks_lost(bool fine) {
  rig_up(fine);
  uint32_t len = 5000;
  uint64_t src = halloc(0, len), dst[4];
  fill(hptr(src), len, 5);
  for (int i = 0; i < 4; i++) {
    dst[i] = halloc(1, len);
    struct hostif_desc r = rh_desc(HOSTIF_OP_RECV, PTAG, 1, &dst[i], &len);
    rh_post(R.w[1], 3, false, &r);
  }
  R.f.cut[1] = true;
  struct hostif_desc d = rh_desc(HOSTIF_OP_SEND, PTAG, 1, &src, &len);
  rh_post(R.w[0], 3, true, &d);
  struct want w = {0, 3, true, 1};
  bool ok = run_until(done_ge, &w, R.now + 5000000000ull);
  ok = ok && run_until(NULL, NULL, R.now + 5000000000ull);
  struct hostif_desc sc = rh_slot(R.w[0], 3, true, 0), rc0 = rh_slot(R.w[1], 3, false, 0);
  CHECK(ok && sc.status == HOSTIF_ST_TRANSPORT, "ACKs lost: the send completed %u", sc.status);
  CHECK(rc0.status == HOSTIF_ST_DONE && memcmp(hptr(src), hptr(dst[0]), len) == 0,
        "ACKs lost: the message itself was delivered once (%u)", rc0.status);
  CHECK(rh_vi(R.w[1], 3)->state == HOSTIF_VI_ERROR && CTR(1, transport_breaks) == 1,
        "the RST did not break the receiver (state %u)", rh_vi(R.w[1], 3)->state);
  uint32_t rd = rh_done(R.w[1], 3, false);
  bool flushed = rd == 4;
  for (uint32_t i = 1; i < rd; i++) flushed &= rh_slot(R.w[1], 3, false, i).status == HOSTIF_ST_FLUSHED;
  CHECK(flushed, "the receiver's other receives: %u done, not all FLUSHED", rd);
  /* After the break: a new send fails at once, and nothing more arrives. */
  R.f.cut[1] = false;
  uint64_t rx = CTR(1, rx_msgs);
  rh_post(R.w[0], 3, true, &d);
  w.n = 2;
  ok = run_until(done_ge, &w, R.now + 5000000000ull) && run_until(NULL, NULL, R.now + 5000000000ull);
  CHECK(ok && rh_slot(R.w[0], 3, true, 1).status == HOSTIF_ST_TRANSPORT && CTR(1, rx_msgs) == rx,
        "after the break: send status %u, %llu delivered", rh_slot(R.w[0], 3, true, 1).status,
        (unsigned long long)(CTR(1, rx_msgs) - rx));
  CHECK(R.fw[0].faults == 0 && R.fw[1].faults == 0, "firmware faults");
  rig_down();
}

/* Every ACK takes 3 ms, longer than the first timeout (RTO0, 2 ms), on a lossless fabric:
 * after the first window the deadline has learnt the round trip, and nothing is resent. */
/* The receiver's host disconnects right after a message was delivered, its ACK still on the
 * way (every frame of node 1 arrives 1 ms late). nicd's DISCONNECT (nicd/vitab.c), done here
 * by hand: the peer's VI gets the receiving NIC's rq.rel_seq in its sq.rel_seq, then ERROR,
 * and the receiver's entry goes IDLE; the sender's library rings its doorbell (vipl_break.c).
 * The sender's send completes DONE (the message was delivered), a later one DISCONNECTED. */
static void t_disconnect_after_delivery(bool fine) {
  rig_up(fine);
  R.f.delay_ns[1] = 1000000;
  uint32_t len = 3;
  uint64_t src = halloc(0, 64), dst = halloc(1, 64);
  memcpy(hptr(src), "bye", 3);
  struct hostif_desc r = rh_desc(HOSTIF_OP_RECV, PTAG, 1, &dst, &len);
  rh_post(R.w[1], 3, false, &r);
  struct hostif_desc d = rh_desc(HOSTIF_OP_SEND, PTAG, 1, &src, &len);
  rh_post(R.w[0], 3, true, &d);
  struct want w = {1, 3, false, 1};
  bool ok = run_until(done_ge, &w, R.now + 1000000000ull);
  struct hostif_vi *rx = rh_vi(R.w[1], 3), *tx = rh_vi(R.w[0], 3);
  uint32_t got = __atomic_load_n(&rx->rq.rel_seq, __ATOMIC_ACQUIRE);
  CHECK(ok && rh_slot(R.w[1], 3, false, 0).status == HOSTIF_ST_DONE && rh_done(R.w[0], 3, true) == 0 &&
            (got & HOSTIF_REL_SEQ_VALID),
        "disconnect: the message delivered (rel_seq %#x), its ACK on the way", got);
  __atomic_store_n(&tx->sq.rel_seq, got, __ATOMIC_RELEASE);
  __atomic_store_n(&tx->state, HOSTIF_VI_ERROR, __ATOMIC_RELEASE);
  __atomic_store_n(&rx->state, HOSTIF_VI_IDLE, __ATOMIC_RELEASE);
  hwin_doorbell(R.w[0], HOSTIF_DOORBELL_VI(3), 0);
  w = (struct want){0, 3, true, 1};
  ok = run_until(done_ge, &w, R.now + 100000000ull);
  struct hostif_desc sc = rh_slot(R.w[0], 3, true, 0);
  CHECK(ok && sc.status == HOSTIF_ST_DONE,
        "disconnect after delivery: the delivered message's send completed %u, not DONE", sc.status);
  CHECK(__atomic_load_n(&tx->sq.rel_seq, __ATOMIC_ACQUIRE) == 0,
        "disconnect after delivery: the NIC took the peer's delivered message");
  rh_post(R.w[0], 3, true, &d);
  w = (struct want){0, 3, true, 2};
  ok = run_until(done_ge, &w, R.now + 100000000ull);
  CHECK(ok && rh_slot(R.w[0], 3, true, 1).status == HOSTIF_ST_DISCONNECTED,
        "disconnect after delivery: a later send completed %u, not DISCONNECTED",
        rh_slot(R.w[0], 3, true, 1).status);
  CHECK(R.fw[0].faults == 0 && R.fw[1].faults == 0, "disconnect: firmware faults %u %u",
        R.fw[0].faults, R.fw[1].faults);
  rig_down();
}

static void t_slow_acks(bool fine) {
  rig_up(fine);
  R.f.delay_ns[1] = 3000000;
  const uint32_t len = 1000;
  const unsigned batch = 16, batches = 4;
  uint64_t src = halloc(0, len);
  fill(hptr(src), len, 11);
  uint64_t rto_first = 0;
  bool ok = true, data = true;
  for (unsigned b = 0; b < batches && ok; b++) {
    uint64_t dst[16];
    uint32_t l = len;
    for (unsigned i = 0; i < batch; i++) {
      dst[i] = halloc(1, len);
      struct hostif_desc r = rh_desc(HOSTIF_OP_RECV, PTAG, 1, &dst[i], &l);
      rh_post(R.w[1], 3, false, &r);
    }
    for (unsigned i = 0; i < batch; i++) {
      struct hostif_desc d = rh_desc(HOSTIF_OP_SEND, PTAG, 1, &src, &l);
      rh_post(R.w[0], 3, true, &d);
    }
    struct want w = {0, 3, true, (b + 1) * batch};
    ok = run_until(done_ge, &w, R.now + 5000000000ull);
    for (unsigned i = 0; i < batch; i++) {
      data &= rh_slot(R.w[0], 3, true, b * batch + i).status == HOSTIF_ST_DONE;
      data &= memcmp(hptr(src), hptr(dst[i]), len) == 0;
    }
    if (b == 0) rto_first = CTR(0, rto_expired);
  }
  uint64_t rto = CTR(0, rto_expired), rtx = CTR(0, retransmits);
  printf("%s: ACKs 3 ms late: %u sends, timeouts %llu in the first window, %llu after; "
         "retransmits %llu; round trip %.2f ms (+/- %.2f)\n", fine ? "fine" : "coarse",
         batch * batches, (unsigned long long)rto_first, (unsigned long long)(rto - rto_first),
         (unsigned long long)rtx, R.fw[0].vi[3].srtt / 1e6, R.fw[0].vi[3].rttvar / 1e6);
  CHECK(ok && data, "ACKs 3 ms late: the sends were harmed");
  CHECK(rto == rto_first, "ACKs 3 ms late: %llu timeouts after the first window",
        (unsigned long long)(rto - rto_first));
  CHECK(R.fw[0].vi[3].srtt >= 3000000 && R.fw[0].vi[3].srtt < 4000000,
        "ACKs 3 ms late: the measured round trip is %u ns", R.fw[0].vi[3].srtt);
  CHECK(CTR(0, transport_breaks) == 0 && R.fw[0].faults == 0 && R.fw[1].faults == 0,
        "ACKs 3 ms late: breaks or firmware faults");
  rig_down();
}

/* A header-only message from node src to node 1 - src on VI 1, as a peer would send it. */
static void inject_hdr(uint16_t src, uint8_t type, uint32_t seq, uint32_t ack) {
  static uint8_t msg[FW_WIRE_HDR_LEN + FW_TRAILER], frame[HW_LINK_MAX_FRAME];
  struct fw_wire_hdr h = {.type = type, .flags = FW_WIRE_F_FIRST | FW_WIRE_F_LAST,
                          .src_node = src, .dst_node = (uint16_t)(1 - src), .src_vi = 1,
                          .dst_vi = 1, .seq = seq, .ack = ack};
  fw_wire_encode(msg, &h);
  msg[FW_WIRE_HDR_LEN] = msg[FW_WIRE_HDR_LEN + 1] = 0xff; /* the empty payload's trailer */
  msg[FW_WIRE_HDR_LEN + 2] = msg[FW_WIRE_HDR_LEN + 3] = 0;
  struct hw_link_hdr lh = {.dst = (uint16_t)(1 - src), .src = src, .flags = HW_LINK_EOM,
                           .len = sizeof msg};
  size_t fl = hw_link_encode(frame, sizeof frame, &lh, msg);
  memfab_inject(R.fab, src, (uint16_t)(1 - src), frame, fl, R.now);
}

/* Forged frames on a live connection: a DATA message numbered outside 2^30, ACKs naming a
 * number outside 2^30 or far outside the window. They are dropped (the first two counted as
 * malformed), and the transfers go on unharmed. */
static void t_forged(bool fine) {
  rig_up(fine);
  uint32_t len = 9000;
  uint64_t src = halloc(0, len), dst[3];
  fill(hptr(src), len, 9);
  for (int i = 0; i < 3; i++) {
    dst[i] = halloc(1, len);
    struct hostif_desc r = rh_desc(HOSTIF_OP_RECV, PTAG, 1, &dst[i], &len);
    rh_post(R.w[1], 1, false, &r);
  }
  uint64_t mal0 = CTR(0, rx_drop_malformed), mal1 = CTR(1, rx_drop_malformed);
  struct hostif_desc d = rh_desc(HOSTIF_OP_SEND, PTAG, 1, &src, &len);
  rh_post(R.w[0], 1, true, &d);
  struct want w = {0, 1, true, 1};
  run_until(NULL, NULL, R.now + 1000); /* the first messages are on their way */
  inject_hdr(0, FW_WIRE_DATA, FW_NSEQ + 1u, 0);
  inject_hdr(1, FW_WIRE_ACK, 0, 0x7fffffffu);
  inject_hdr(1, FW_WIRE_ACK, 0, 5000);
  inject_hdr(1, FW_WIRE_ACK, 0, FW_NSEQ - 7u);
  rh_post(R.w[0], 1, true, &d);
  rh_post(R.w[0], 1, true, &d);
  w.n = 3;
  bool ok = run_until(done_ge, &w, R.now + 5000000000ull);
  bool data = true;
  for (int i = 0; i < 3; i++) {
    data &= rh_slot(R.w[0], 1, true, (uint32_t)i).status == HOSTIF_ST_DONE;
    data &= rh_slot(R.w[1], 1, false, (uint32_t)i).status == HOSTIF_ST_DONE;
    data &= memcmp(hptr(src), hptr(dst[i]), len) == 0;
  }
  CHECK(ok && data, "forged frames: the transfers were harmed");
  CHECK(CTR(1, rx_drop_malformed) == mal1 + 1 && CTR(0, rx_drop_malformed) == mal0 + 1,
        "forged frames: malformed drops %llu, %llu",
        (unsigned long long)(CTR(0, rx_drop_malformed) - mal0),
        (unsigned long long)(CTR(1, rx_drop_malformed) - mal1));
  CHECK(CTR(0, transport_breaks) + CTR(1, transport_breaks) == 0 &&
            rh_vi(R.w[0], 1)->state == HOSTIF_VI_CONNECTED,
        "forged frames broke the connection");
  CHECK(R.fw[0].faults == 0 && R.fw[1].faults == 0, "forged frames: firmware faults %u %u",
        R.fw[0].faults, R.fw[1].faults);
  rig_down();
}

/* A NACK after an ACK, the acknowledged send not yet retired: NIC 0 sends A (one message) then
 * B on VI 3; NIC 1 has one receive, delivers and acknowledges A, refuses B (REMOTE). Its frames
 * are held until NIC 0's first timeout has queued A's message again, so the ACK for A and then
 * the NACK for B come while A's message is in the send pipeline. (A has one message: after the
 * timeout the Sender takes an ACK only up to the messages it has sent again.) A was
 * acknowledged whole: it completes DONE; B completes with the peer's reason. */
struct nack_at { int step; };
static bool nack_step(void *p) {
  struct nack_at *n = p;
  struct fw *f0 = &R.fw[0], *f1 = &R.fw[1];
  switch (n->step) {
  case 0: /* A delivered, its ACK sent (held) */
    return rh_done(R.w[1], 3, false) >= 1 && !f1->vi[3].ack_due && f1->tx_head == f1->tx_done;
  case 1: /* B refused, its NACK sent (held) */
    return rh_vi(R.w[1], 3)->state == HOSTIF_VI_ERROR && !f1->vi[3].ack_due &&
           f1->tx_head == f1->tx_done;
  case 2: /* the timeout: A's message queued again */
    return CTR(0, retransmits) > 0 && f0->vi[3].slot[0].inflight > 0;
  default: /* the NACK taken */
    return rh_vi(R.w[0], 3)->state == HOSTIF_VI_ERROR;
  }
}

static void t_nack_after_ack(bool fine) {
  rig_up(fine);
  uint32_t la = FW_MAX_PAYLOAD, lb = 100;
  uint64_t a = halloc(0, la), b = halloc(0, lb), dst = halloc(1, la);
  fill(hptr(a), la, 21);
  fill(hptr(b), lb, 22);
  struct hostif_desc r = rh_desc(HOSTIF_OP_RECV, PTAG, 1, &dst, &la);
  rh_post(R.w[1], 3, false, &r);
  R.f.delay_ns[1] = 10ull * 1000000000ull; /* NIC 1's frames held until released below */
  struct nack_at n = {0};
  struct hostif_desc d = rh_desc(HOSTIF_OP_SEND, PTAG, 1, &a, &la);
  rh_post(R.w[0], 3, true, &d);
  bool ok = run_until(nack_step, &n, R.now + 1000000ull);
  n.step = 1;
  d = rh_desc(HOSTIF_OP_SEND, PTAG, 1, &b, &lb);
  rh_post(R.w[0], 3, true, &d);
  ok = ok && run_until(nack_step, &n, R.now + 1000000ull);
  uint64_t rtx0 = CTR(0, retransmits), acks0 = CTR(0, rx_acks);
  n.step = 2;
  ok = ok && rtx0 == 0 && run_until(nack_step, &n, R.now + 10000000ull);
  unsigned held = R.nheld;
  R.f.delay_ns[1] = 0;
  for (unsigned k = 0; k < R.nheld; k++) R.held[k].due = R.now;
  n.step = 3;
  ok = ok && run_until(nack_step, &n, R.now + 10000000ull);
  /* the case itself: the ACK came, then the NACK, with A's resent message still queued */
  bool acked_unretired = ok && CTR(0, rx_acks) > acks0 && R.fw[0].vi[3].slot[0].inflight > 0 &&
                         rh_done(R.w[0], 3, true) == 0;
  struct want w = {0, 3, true, 2};
  ok = ok && run_until(done_ge, &w, R.now + 1000000000ull);
  struct hostif_desc sa = rh_slot(R.w[0], 3, true, 0), sb = rh_slot(R.w[0], 3, true, 1);
  printf("%s: NACK after an ACK, the acknowledged send in the pipeline: %u frames held; "
         "A completed %u, B %u\n", fine ? "fine" : "coarse", held, sa.status, sb.status);
  CHECK(ok && acked_unretired, "NACK after an ACK: the case was not reached (%d, %d)", ok,
        acked_unretired);
  CHECK(sa.status == HOSTIF_ST_DONE && sa.done_len == la,
        "NACK after an ACK: the acknowledged send completed %u (%u B)", sa.status, sa.done_len);
  CHECK(sb.status == HOSTIF_ST_REMOTE, "NACK after an ACK: the refused send completed %u",
        sb.status);
  CHECK(rh_slot(R.w[1], 3, false, 0).status == HOSTIF_ST_DONE && memcmp(hptr(a), hptr(dst), la) == 0,
        "NACK after an ACK: A was not delivered");
  CHECK(R.fw[0].faults == 0 && R.fw[1].faults == 0, "NACK after an ACK: firmware faults %u %u",
        R.fw[0].faults, R.fw[1].faults);
  rig_down();
}

int main(int argc, char **argv) {
  unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 8;
  for (int fine = 1; fine >= 0; fine--) {
    t_lossy(fine, 0, 0, 0, 0, 0, 2, 1);
    t_lossy(fine, 100, 50, 50, 100, 0, rounds, 7);     /* 1 % loss, 0.5 % dup and damage, 1 % held */
    t_lossy(fine, 500, 300, 200, 500, 0, rounds, 11);  /* 5 %, 3 %, 2 %, 5 % */
    /* 3 % of the frames (acknowledgements among them) arrive about when the first timeout
     * fires: a resend the Sender asked for may find its descriptor already acknowledged. */
    t_lossy(fine, 0, 0, 0, 0, 300, rounds, 13);
    t_slow_acks(fine);
    t_link_down(fine);
    t_acks_lost(fine);
    t_forged(fine);
    t_disconnect_after_delivery(fine);
    t_nack_after_ack(fine);
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
