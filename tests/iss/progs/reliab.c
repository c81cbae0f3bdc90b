/* reliab.c: Reliable Delivery's generated machines (gen/reliab: Sender and Receiver, the code
 * the firmware runs) over a small seeded lossy network, as a freestanding program: built
 * natively and for LANai, the outputs must be identical (iss-diff.sh). Each seed sends NMSG
 * messages through a network that loses, duplicates and reorders frames both ways, with a
 * virtual clock driving the retransmission timer the way fw_reliab.c does, and prints what was
 * delivered and a hash of every action the machines took; then a receiver alone must
 * acknowledge each message, and with the network cut the sender must break after the retry
 * budget. It exists because clang's peephole pass once turned
 * reliab_step's round-robin into a predicated flag-setting instruction the ISS executes
 * differently (firmware/nic/module.mk), which silenced the Receiver's ACKs on the LANai. */
#include <stdbool.h>

#include "io.h"
#include "reliab.h"
#include "reliab_hal.h"

enum { NMSG = 300, QCAP = 16, SEEDS = 6 };

struct frame {
  int32_t seq;
  uint8_t kind;
};
struct chan {
  struct frame q[QCAP];
  int n;
};

static struct {
  uint32_t rng, hash;
  unsigned loss, dup, reorder; /* per 256 */
  bool cut;
  int taken, delivered, acked;
  uint32_t acks_sent;
  int32_t last_ack;
  bool tx_due, ack_due, moving, tx_error, rx_broken;
  struct chan data, ack;
  struct frame rx_hand, ack_hand;
  uint32_t now, deadline;
  bool armed;
  uint16_t gen;
  int bad;
} S;

static unsigned rnd(unsigned n) {
  S.rng = S.rng * 1103515245u + 12345u;
  return (S.rng >> 16) % n;
}

static void note(uint32_t what, int32_t v) { S.hash = fnv(fnv(S.hash, what), (uint32_t)v); }

static void put(struct chan *c, struct frame f) {
  if (S.cut || rnd(256) < S.loss || c->n == QCAP) return;
  c->q[c->n++] = f;
  if (rnd(256) < S.dup && c->n < QCAP) c->q[c->n++] = f;
}

static struct frame take(struct chan *c) {
  int i = rnd(256) < S.reorder ? (int)rnd((unsigned)c->n) : 0;
  struct frame f = c->q[i];
  for (int k = i; k + 1 < c->n; k++) c->q[k] = c->q[k + 1];
  c->n--;
  return f;
}

void reliab_hal_transmit(reliab_t *sys, uint8_t kind, int32_t seq) {
  (void)sys;
  note(1, seq);
  if (kind == reliab_CONST_DATA && seq == S.taken) S.taken++;
  put(&S.data, (struct frame){seq, kind});
  S.tx_due = true;
}
void reliab_hal_tx_error(reliab_t *sys) {
  (void)sys;
  note(2, 0);
  S.tx_error = true;
}
void reliab_hal_ack_send(reliab_t *sys, int32_t seq) {
  (void)sys;
  note(3, seq);
  S.acks_sent++;
  S.last_ack = seq;
  put(&S.ack, (struct frame){seq, 0});
  S.ack_due = true;
}
void reliab_hal_deliver(reliab_t *sys, int32_t seq) {
  (void)sys;
  note(4, seq);
  if (seq != S.delivered) S.bad++;
  S.moving = true;
}
void reliab_hal_host_rx(reliab_t *sys, uint8_t what) {
  (void)sys;
  note(5, what);
  if (what == reliab_CONST_RX_DONE) S.delivered++;
  if (what == reliab_CONST_RX_BROKEN) S.rx_broken = true;
}
bool reliab_hal_has_new(reliab_t *sys) { (void)sys; return S.taken < NMSG; }
int32_t reliab_hal_ack_seq(reliab_t *sys) { (void)sys; return S.ack_hand.seq; }
bool reliab_hal_ack_intact(reliab_t *sys) { (void)sys; return true; }
int32_t reliab_hal_rx_seq(reliab_t *sys) { (void)sys; return S.rx_hand.seq; }
int32_t reliab_hal_rx_kind(reliab_t *sys) { (void)sys; return S.rx_hand.kind; }
bool reliab_hal_rx_intact(reliab_t *sys) { (void)sys; return true; }
void reliab_hal_fault(reliab_t *sys, int code, const char *where) {
  (void)sys;
  (void)where;
  note(9, code);
  S.bad++;
}

static reliab_t sys;

/* The runtime after a step: a new timer generation sets a deadline (fw_reliab.c's run). */
static void sync_timer(void) {
  const reliab_Sender_t *s = &sys.m.Sender;
  if (!s->tarm) S.armed = false;
  else if (!S.armed || s->tgen != S.gen) {
    S.armed = true;
    S.gen = s->tgen;
    S.deadline = S.now + (uint32_t)s->rto;
  }
}

/* Runs until the sender has nothing outstanding or broke; returns the steps taken. */
static uint32_t run(void) {
  uint32_t steps = 0;
  for (uint32_t it = 0; it < 2000000u; it++) {
    if (reliab_step(&sys)) {
      steps++;
      sync_timer();
      continue;
    }
    if (S.tx_due) { S.tx_due = false; (void)reliab_raise(&sys, reliab_EV_tx_taken); continue; }
    if (S.ack_due) { S.ack_due = false; (void)reliab_raise(&sys, reliab_EV_ack_taken); continue; }
    if (S.moving) { S.moving = false; (void)reliab_raise(&sys, reliab_EV_dlv_done); continue; }
    bool d = S.data.n > 0, a = S.ack.n > 0;
    if (d && (!a || rnd(2))) {
      S.rx_hand = take(&S.data);
      (void)reliab_raise(&sys, reliab_EV_rx_data);
      continue;
    }
    if (a) {
      S.ack_hand = take(&S.ack);
      (void)reliab_raise(&sys, reliab_EV_rx_ack);
      continue;
    }
    if (!S.armed) break; /* all acknowledged, or broken */
    S.now = S.deadline;
    S.armed = false;
    (void)reliab_raise(&sys, reliab_EV_timeout);
  }
  return steps;
}

static void reset(uint32_t seed, unsigned loss, unsigned dup, unsigned reorder) {
  static const __typeof__(S) zero;
  S = zero;
  S.rng = seed;
  S.hash = 2166136261u;
  S.loss = loss;
  S.dup = dup;
  S.reorder = reorder;
  reliab_init(&sys);
}

int main(void) {
  int failed = 0;
  bool ok;
  for (uint32_t seed = 1; seed <= SEEDS; seed++) {
    reset(seed, 8 * seed, 4 * seed, 8 * seed);
    uint32_t steps = run();
    ok = S.delivered == NMSG && sys.m.Sender.base == NMSG && !S.tx_error && !S.bad;
    failed += !ok;
    io_puts(ok ? "lossy ok\n" : "lossy FAILED\n");
    io_line("  steps", steps);
    io_line("  delivered", (uint32_t)S.delivered);
    io_line("  timeouts", sys.dispatched[reliab_EV_timeout]);
    io_line("  trace", S.hash);
  }
  /* A receiver alone (its Sender never moves, as on a NIC that only receives): each message in
   * order is delivered and acknowledged. */
  reset(7, 0, 0, 0);
  S.taken = NMSG;
  uint32_t acks = 0;
  for (int32_t q = 0; q < 3; q++) {
    S.rx_hand = (struct frame){q, reliab_CONST_DATA};
    (void)reliab_raise(&sys, reliab_EV_rx_data);
    uint32_t before = S.acks_sent;
    (void)run();
    acks += S.acks_sent - before;
    if (S.acks_sent == before + 1 && S.last_ack == q) acks += 16;
  }
  ok = S.delivered == 3 && acks == 3 * 17 && !S.bad;
  failed += !ok;
  io_puts(ok ? "receiver alone ok\n" : "receiver alone FAILED\n");
  io_line("  acks", acks);
  io_line("  trace", S.hash);
  /* The network cut after some messages: the sender breaks after exactly the retry budget. */
  reset(99, 0, 0, 0);
  S.cut = true;
  (void)run();
  uint32_t budget = 0, rto = reliab_CONST_RTO0;
  for (int i = 0; i <= reliab_CONST_RMAX; i++) {
    budget += rto;
    rto = rto * 2 > reliab_CONST_RTO_MAX ? reliab_CONST_RTO_MAX : rto * 2;
  }
  ok = S.tx_error && sys.m.Sender.state == reliab_Sender_S_Broken && S.now == budget;
  failed += !ok;
  io_puts(ok ? "cut ok\n" : "cut FAILED\n");
  io_line("  broke at us", S.now);
  io_line("  trace", S.hash);
  return failed ? 1 : 0;
}
