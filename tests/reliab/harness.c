/* harness.c: runs the generated C of the Reliable Delivery machines (esm/reliab: Sender and
 * Receiver) over a simulated network that loses, duplicates, reorders and damages frames in
 * both directions, with a seeded random scheduler and an emulated clock driving the
 * retransmission timer the way the firmware's runtime will (esm/reliab/README.md, "The
 * timer"). Each run sends NMSG messages and checks that the receiving host gets every one
 * exactly once, in order and intact, that no send completes before its message was delivered,
 * and that the connection never breaks. Then the retry limit: with the network cut, the sender
 * must break after exactly the retry budget, and with only the ACKs cut the RST must reach the
 * receiver, which breaks too. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reliab.h"
#include "reliab_hal.h"

enum { NMSG = 2000, QCAP = 64, MAX_ITER = 20000000 };

typedef struct {
  int kind, seq;
  unsigned payload; /* stands for the bytes: a function of the message, damaged if not intact */
  bool intact;
} Frame;

typedef struct {
  Frame q[QCAP];
  int n;
} Chan;

typedef struct {
  uint64_t rng;
  double loss, dup, reorder, corrupt;
  bool cut_data, cut_ack; /* the network drops everything that way */
  int failures;
  char first[256];
  /* sender host */
  int taken;                  /* messages the sender took (new transmissions) */
  int acked;                  /* messages completed to the sending host */
  bool tx_error;
  /* the network */
  Chan data, ack;
  Frame rx_hand, ack_hand;    /* the frames the machines are reading */
  bool tx_taken_due, ack_taken_due;
  /* receiver host */
  bool moving;
  Frame moving_frame;
  int delivered;
  bool rx_broken_told;
  /* the timer, as the runtime runs it */
  uint64_t now, deadline;
  bool armed;
  uint32_t seen_gen;
  long faults_injected;
} Sim;

static Sim sim;

static unsigned rnd(unsigned n) {
  sim.rng = sim.rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(sim.rng >> 33) % n;
}
static bool chance(double p) { return p > 0 && rnd(1000000) < (unsigned)(p * 1000000); }

static void fail(const char *fmt, ...) {
  if (sim.failures++ == 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sim.first, sizeof sim.first, fmt, ap);
    va_end(ap);
  }
}

static unsigned payload_of(int seq) { return (unsigned)seq * 2654435761u + 17u; }

static void put(Chan *c, Frame f, bool cut) {
  if (cut || chance(sim.loss) || c->n == QCAP) {
    sim.faults_injected++;
    return;
  }
  if (chance(sim.corrupt)) {
    f.intact = false;
    f.payload ^= 0x40u;
    sim.faults_injected++;
  }
  c->q[c->n++] = f;
  if (chance(sim.dup) && c->n < QCAP) {
    c->q[c->n++] = f;
    sim.faults_injected++;
  }
}

/* The next frame off a channel: usually the oldest, with probability `reorder` any of them. */
static Frame take(Chan *c) {
  int i = chance(sim.reorder) ? (int)rnd((unsigned)c->n) : 0;
  Frame f = c->q[i];
  memmove(&c->q[i], &c->q[i + 1], (size_t)(c->n - i - 1) * sizeof f);
  c->n--;
  return f;
}

/* ---- the HAL the generated machines call ---- */

void reliab_hal_transmit(reliab_t *sys, uint8_t kind, int32_t seq) {
  (void)sys;
  if (sim.tx_taken_due) fail("transmit while the link still has the last frame");
  if (kind == reliab_CONST_DATA) {
    if (seq == sim.taken) sim.taken++;
    else if (seq > sim.taken) fail("transmit of message %d, only %d taken", seq, sim.taken);
    if (seq < sim.acked) fail("transmit of message %d, already acknowledged", seq);
  }
  put(&sim.data, (Frame){kind, seq, payload_of(seq), true}, sim.cut_data);
  sim.tx_taken_due = true;
}

void reliab_hal_tx_error(reliab_t *sys) {
  (void)sys;
  if (sim.tx_error) fail("TRANSPORT_ERROR reported twice");
  sim.tx_error = true;
}

void reliab_hal_ack_send(reliab_t *sys, int32_t seq) {
  (void)sys;
  if (sim.ack_taken_due) fail("ACK while the link still has the last one");
  if (seq >= sim.delivered && !(seq == reliab_CONST_NSEQ - 1 && sim.delivered == 0))
    fail("ACK of message %d, only %d delivered", seq, sim.delivered);
  put(&sim.ack, (Frame){0, seq, 0, true}, sim.cut_ack);
  sim.ack_taken_due = true;
}

void reliab_hal_deliver(reliab_t *sys, int32_t seq) {
  (void)sys;
  if (sim.moving) fail("a payload moves while another does");
  if (seq != sim.rx_hand.seq) fail("deliver(%d) of frame %d", seq, sim.rx_hand.seq);
  sim.moving = true;
  sim.moving_frame = sim.rx_hand;
}

void reliab_hal_host_rx(reliab_t *sys, uint8_t what) {
  (void)sys;
  if (what == reliab_CONST_RX_BROKEN) {
    sim.rx_broken_told = true;
    return;
  }
  if (what != reliab_CONST_RX_DONE) return;
  if (sim.rx_broken_told) fail("a message completed after the break");
  const Frame *f = &sim.moving_frame;
  if (!f->intact || f->payload != payload_of(f->seq)) fail("message %d damaged", f->seq);
  if (f->seq != sim.delivered) fail("message %d delivered, %d expected", f->seq, sim.delivered);
  sim.delivered++;
}

bool reliab_hal_has_new(reliab_t *sys) {
  (void)sys;
  return sim.taken < NMSG;
}
int32_t reliab_hal_ack_seq(reliab_t *sys) { (void)sys; return sim.ack_hand.seq; }
bool reliab_hal_ack_intact(reliab_t *sys) { (void)sys; return sim.ack_hand.intact; }
int32_t reliab_hal_rx_seq(reliab_t *sys) { (void)sys; return sim.rx_hand.seq; }
int32_t reliab_hal_rx_kind(reliab_t *sys) { (void)sys; return sim.rx_hand.kind; }
bool reliab_hal_rx_intact(reliab_t *sys) { (void)sys; return sim.rx_hand.intact; }

void reliab_hal_fault(reliab_t *sys, int code, const char *where) {
  (void)sys;
  fail("firmware fault %d at %s", code, where);
}

/* ---- the runtime around the machines: events, the timer, the clock ---- */

static void raise_ev(reliab_t *sys, reliab_event_t ev) {
  if (!reliab_raise(sys, ev)) fail("%s raised past its capacity", reliab_event_name(ev));
}

/* After every step: a (re)started timer gets a new deadline; a stopped one none. */
static void timer_sync(reliab_t *sys) {
  const reliab_Sender_t *s = &sys->m.Sender;
  if (!s->tarm) sim.armed = false;
  else if (!sim.armed || s->tgen != sim.seen_gen) {
    sim.armed = true;
    sim.seen_gen = s->tgen;
    sim.deadline = sim.now + (uint64_t)s->rto;
  }
}

/* One scheduling choice; false when nothing can happen until the clock moves. */
static bool tick(reliab_t *sys) {
  for (int tries = 0; tries < 8; tries++) {
    switch (rnd(6)) {
    case 0:
      if (reliab_step(sys)) { timer_sync(sys); return true; }
      break;
    case 1:
      if (sim.tx_taken_due) { sim.tx_taken_due = false; raise_ev(sys, reliab_EV_tx_taken); return true; }
      break;
    case 2:
      if (sim.ack_taken_due) { sim.ack_taken_due = false; raise_ev(sys, reliab_EV_ack_taken); return true; }
      break;
    case 3:
      if (sim.data.n && !sys->pending[reliab_EV_rx_data]) {
        sim.rx_hand = take(&sim.data);
        raise_ev(sys, reliab_EV_rx_data);
        return true;
      }
      break;
    case 4:
      if (sim.ack.n && !sys->pending[reliab_EV_rx_ack]) {
        sim.ack_hand = take(&sim.ack);
        raise_ev(sys, reliab_EV_rx_ack);
        return true;
      }
      break;
    case 5:
      if (sim.moving && !sys->pending[reliab_EV_dlv_done]) {
        sim.moving = false;
        raise_ev(sys, reliab_EV_dlv_done);
        return true;
      }
      break;
    }
  }
  /* Nothing chosen: make sure nothing at all is left before moving the clock. */
  if (reliab_step(sys)) { timer_sync(sys); return true; }
  if (sim.tx_taken_due || sim.ack_taken_due || sim.data.n || sim.ack.n || sim.moving) return true;
  return false;
}

/* Runs until the sender has nothing left or broke; the clock jumps to the timer's deadline
 * whenever nothing else can happen (the network's delay is taken as zero). */
static void run(reliab_t *sys) {
  for (long it = 0; it < MAX_ITER && !sim.failures; it++) {
    if (sim.acked != sys->m.Sender.base && sys->m.Sender.base >= sim.acked) sim.acked = sys->m.Sender.base;
    if (sim.acked > sim.delivered) fail("%d sends completed, %d delivered", sim.acked, sim.delivered);
    if (tick(sys)) continue;
    if (sys->m.Sender.state == reliab_Sender_S_Broken && !sys->m.Sender.txbusy) return;
    if (!sim.armed) return; /* idle: all acknowledged */
    sim.now = sim.deadline;
    sim.armed = false;
    raise_ev(sys, reliab_EV_timeout);
  }
  if (!sim.failures) fail("no end after %d iterations", MAX_ITER);
}

static void setup(reliab_t *sys, uint64_t seed, double loss, double dup, double reorder,
                  double corrupt) {
  memset(&sim, 0, sizeof sim);
  sim.rng = seed * 0x9e3779b97f4a7c15ULL + 1;
  sim.loss = loss;
  sim.dup = dup;
  sim.reorder = reorder;
  sim.corrupt = corrupt;
  reliab_init(sys);
}

static int report(const char *what, uint64_t seed) {
  if (sim.failures) {
    printf("FAIL %s seed %llu: %s\n", what, (unsigned long long)seed, sim.first);
    return 1;
  }
  return 0;
}

/* N messages over a lossy network: all delivered once, in order, intact; no break. */
static int lossy(uint64_t seed, double loss, double dup, double reorder, double corrupt) {
  static reliab_t sys;
  setup(&sys, seed, loss, dup, reorder, corrupt);
  run(&sys);
  if (!sim.failures && (sim.delivered != NMSG || sim.acked != NMSG))
    fail("delivered %d, acknowledged %d of %d", sim.delivered, sim.acked, NMSG);
  if (!sim.failures && (sim.tx_error || sys.m.Sender.state != reliab_Sender_S_Open))
    fail("the connection broke");
  if (!sim.failures && sim.faults_injected && !sys.dispatched[reliab_EV_timeout])
    fail("%ld faults and not one timeout", sim.faults_injected);
  if (seed == 1)
    printf("loss %.3f dup %.3f reorder %.3f corrupt %.3f: %d messages, %ld faults, %u timeouts, "
           "%llu us\n", loss, dup, reorder, corrupt, NMSG, sim.faults_injected,
           (unsigned)sys.dispatched[reliab_EV_timeout], (unsigned long long)sim.now);
  return report("lossy", seed);
}

/* The whole budget: RTO0, doubling up to RTO_MAX, for the first send and RMAX retransmissions. */
static uint64_t budget(void) {
  uint64_t b = 0, rto = reliab_CONST_RTO0;
  for (int i = 0; i <= reliab_CONST_RMAX; i++) {
    b += rto;
    rto = rto * 2 > reliab_CONST_RTO_MAX ? reliab_CONST_RTO_MAX : rto * 2;
  }
  return b;
}

/* The network cut after a few messages: the sender breaks after exactly the retry budget. */
static int cut(uint64_t seed, bool acks_only) {
  static reliab_t sys;
  setup(&sys, seed, 0, 0, 0, 0);
  sim.cut_ack = true;
  sim.cut_data = !acks_only;
  run(&sys);
  if (!sim.failures && (!sim.tx_error || sys.m.Sender.state != reliab_Sender_S_Broken))
    fail("the sender did not break");
  if (!sim.failures && sim.now != budget())
    fail("broke at %llu us, the budget is %llu us", (unsigned long long)sim.now,
         (unsigned long long)budget());
  /* Whatever the network, the RST the broken sender sends is all that is left to deliver. */
  for (int i = 0; i < 1000 && !sim.failures && tick(&sys); i++) {
  }
  if (!sim.failures && acks_only &&
      (sys.m.Receiver.state != reliab_Receiver_S_Broken || !sim.rx_broken_told))
    fail("the RST did not break the receiver");
  if (!sim.failures && !acks_only && sys.m.Receiver.state != reliab_Receiver_S_Open)
    fail("the receiver broke without an RST");
  return report(acks_only ? "acks cut" : "network cut", seed);
}

int main(int argc, char **argv) {
  int seeds = argc > 1 ? atoi(argv[1]) : 12, bad = 0, runs = 0;
  for (int s = 1; s <= seeds; s++) {
    bad += lossy((uint64_t)s, 0.01, 0.005, 0.01, 0.001); runs++;
    bad += lossy((uint64_t)s, 0.10, 0.05, 0.20, 0.02); runs++;
    bad += lossy((uint64_t)s, 0.0, 0.3, 0.5, 0.0); runs++;
  }
  bad += cut(1, false); runs++;
  bad += cut(2, true); runs++;
  printf("retry budget: %llu us (RTO0 %d us, doubling to %d us, %d retransmissions)\n",
         (unsigned long long)budget(), reliab_CONST_RTO0, reliab_CONST_RTO_MAX, reliab_CONST_RMAX);
  printf("%d passed, %d failed\n", runs - bad, bad);
  return bad ? 1 : 0;
}
