/* fw_reliab.c: Reliable Delivery's retransmission. One instance of the machines esmc generates
 * from esm/reliab (Sender: window, cumulative ACKs, timer, backoff, retry limit; Receiver:
 * in-order acceptance, duplicate re-ACK) per VI, fw->rel[vi]: the Sender of this VI's sends and
 * the Receiver of what its peer sends. This file is their runtime (esm/reliab/README.md,
 * "Phase 2"): it raises their events, runs an instance to completion after each, and after
 * every run reads what the machines leave for it, the way the harness does:
 *   - the timer (Sender.tarm/tgen/rto): a new generation sets a deadline; timer FW_TIMER_RT is
 *     set to the earliest, and its expiry raises `timeout` on the instances whose deadline
 *     passed. The deadline is rto plus the round trip measured on the connection (srtt +
 *     4 rttvar, as TCP's RFC 6298; one message timed at a time, none across a timeout, and
 *     the backed-off length kept until the next measurement, as Karn's rule): on a NIC whose
 *     processor is slower than the window drains, an ACK can take longer than RTO0, and a
 *     fixed deadline resent every window on a lossless fabric. The model's timeouts may come
 *     at any time, so the length is the runtime's to choose; with nothing measured it is rto,
 *     and so is the retry budget of a dead link;
 *   - the window's base: when it moved, the sends it covers complete (fw_sq_acked);
 *   - a transmission the Sender asked for (tx_want): the send queue's pump (fw_sq.c) queues it
 *     when the pipeline has room, re-splitting an earlier descriptor for a message sent again,
 *     and raises tx_taken.
 * It also implements the machines' HAL (reliab_hal.h). Freestanding. */
#include "fw_reliab.h"

#include "fw_ack.h"
#include "fw_rq.h"
#include "fw_sq.h"
#include "fw_txlocal.h"
#include "reliab_hal.h"

#define RT_NEVER UINT64_MAX
#define RUN_MAX 64u   /* steps of one run: an event and what it enables take a handful */

static unsigned vi_of(reliab_t *sys) {
  struct fw *fw = sys->user;
  return (unsigned)(sys - fw->rel);
}

void fw_reliab_init(struct fw *fw) {
  fw->rel_cur = -1;
  for (unsigned vi = 0; vi < HOSTIF_NVI; vi++) {
    reliab_init(&fw->rel[vi]);
    fw->rel[vi].user = fw;
    fw->vi[vi].brk_st = HOSTIF_ST_DISCONNECTED;
  }
}

void fw_reliab_reset(struct fw *fw, unsigned vi, const struct fw_vi_view *w) {
  struct fw_vi *v = &fw->vi[vi];
  if (fw->rel_cur == (int)vi) return; /* never under a running instance */
  reliab_init(&fw->rel[vi]);
  v->rel_on = w->state == HOSTIF_VI_CONNECTED && w->reliability == HOSTIF_RELIABLE_DELIVERY;
  v->rel_dead = false;
  v->tx_want = false;
  v->rt_armed = false;
  /* a broken connection's later sends fail as it failed; a new one starts afresh */
  if (w->state == HOSTIF_VI_CONNECTED || v->brk_st == 0) v->brk_st = HOSTIF_ST_DISCONNECTED;
  v->peer_node = w->remote_node;
  v->peer_vi = w->remote_vi;
  v->peer_conn = w->conn;
  v->base_seen = 0;
  v->rtt_timing = false;
  v->srtt = v->rttvar = v->rt_hold = 0;
}

uint32_t fw_reliab_expect(const struct fw *fw, unsigned vi) {
  return (uint32_t)fw->rel[vi].m.Receiver.expect;
}

/* Timer FW_TIMER_RT runs while any VI has a deadline, due no later than the earliest (a
 * deadline moved later leaves it early: fw_reliab_tick then finds nothing due and rescans). */
static void rt_set(struct fw *fw, uint64_t due) {
  uint64_t now = fwb_clock_ns(fw->board);
  fw->rt_hw = true;
  fw->rt_hw_due = due;
  (void)fwb_timer_set(fw->board, FW_TIMER_RT, due > now ? due - now : 1u);
}
/* A VI's deadline was set: the timer comes forward to it, without a look at every VI (this
 * runs for every message a reliable connection sends). */
static void rt_arm(struct fw *fw, uint64_t due) {
  if (!fw->rt_hw || due < fw->rt_hw_due) rt_set(fw, due);
}
/* The timer fired: it is set to the earliest deadline left. */
static void rt_rescan(struct fw *fw) {
  uint64_t due = RT_NEVER;
  for (unsigned vi = 1; vi < HOSTIF_NVI; vi++)
    if (fw->vi[vi].rel_on && fw->vi[vi].rt_armed && fw->vi[vi].rt_due < due)
      due = fw->vi[vi].rt_due;
  if (due != RT_NEVER) rt_set(fw, due);
}

#define RTT_MAX_NS ((uint32_t)reliab_CONST_RTO_MAX * 1000u)

/* RFC 6298's estimator in ns: srtt += (m - srtt) / 8, rttvar += (|m - srtt| - rttvar) / 4. */
static void rtt_sample(struct fw_vi *v, uint64_t took) {
  uint32_t m = took < RTT_MAX_NS ? (uint32_t)took : RTT_MAX_NS;
  if (!v->srtt) {
    v->srtt = m ? m : 1u;
    v->rttvar = m / 2u;
    return;
  }
  uint32_t err = m > v->srtt ? m - v->srtt : v->srtt - m;
  v->rttvar = v->rttvar - (v->rttvar >> 2) + (err >> 2);
  v->srtt = v->srtt - (v->srtt >> 3) + (m >> 3);
}

/* What the measured round trip adds to a deadline: srtt + 4 rttvar, at most RTO_MAX. */
static uint64_t rtt_margin(const struct fw_vi *v) {
  uint64_t m = (uint64_t)v->srtt + ((uint64_t)v->rttvar << 2);
  return m < RTT_MAX_NS ? m : RTT_MAX_NS;
}

/* The window moved from old_base to base: the timed message, if it is covered, is a sample. */
static void rtt_acked(struct fw *fw, struct fw_vi *v, uint32_t old_base, uint32_t base) {
  const uint32_t mask = FW_NSEQ - 1u;
  if (!v->rtt_timing || ((v->rtt_seq - old_base) & mask) >= ((base - old_base) & mask)) return;
  v->rtt_timing = false;
  v->rt_hold = 0;
  rtt_sample(v, fwb_clock_ns(fw->board) - v->rtt_t0);
}

/* The deadline's length: the Sender's rto (or the backed-off one kept), plus the round trip. */
static uint64_t rt_length(const struct fw_vi *v, const reliab_Sender_t *s) {
  uint64_t len = (uint64_t)s->rto * 1000u;
  if (v->rt_hold > len) len = v->rt_hold;
  return len + rtt_margin(v);
}

/* Runs the VI's instance until nothing is enabled, then reads what it left for the runtime. */
static void run(struct fw *fw, unsigned vi) {
  struct fw_vi *v = &fw->vi[vi];
  reliab_t *r = &fw->rel[vi];
  if (!v->rel_on || fw->rel_cur >= 0) return; /* inside a run: its loop takes the event */
  fw->rel_cur = (int)vi;
  (void)reliab_run(r, RUN_MAX);
  fw->rel_cur = -1;
  if (v->rel_dead) {
    if (v->tx_want) { /* what the Sender had asked for will not go: let it send its RST */
      v->tx_want = false;
      (void)reliab_raise(r, reliab_EV_tx_taken);
      fw->rel_cur = (int)vi;
      (void)reliab_run(r, RUN_MAX);
      fw->rel_cur = -1;
    }
    v->rel_on = false;
    v->tx_want = false;
    v->rt_armed = false;
    return;
  }
  const reliab_Sender_t *s = &r->m.Sender;
  if ((uint32_t)s->base != v->base_seen) rtt_acked(fw, v, v->base_seen, (uint32_t)s->base);
  if (!s->tarm) {
    v->rt_armed = false;
  } else if (!v->rt_armed || s->tgen != v->rt_gen) {
    v->rt_armed = true;
    v->rt_gen = s->tgen;
    v->rt_due = fwb_clock_ns(fw->board) + rt_length(v, s);
    rt_arm(fw, v->rt_due);
  }
  if ((uint32_t)s->base != v->base_seen) {
    v->base_seen = (uint32_t)s->base;
    fw_sq_acked(fw, vi, (v->base_seen - 1u) & (FW_NSEQ - 1u));
    fw_vim_set(&fw->sq_work, vi); /* the window moved: the send queue may go on */
  }
  if (v->tx_want) fw_vim_set(&fw->sq_work, vi);
}

static void raise_run(struct fw *fw, unsigned vi, reliab_event_t ev) {
  if (!fw->vi[vi].rel_on) return;
  if (!reliab_raise(&fw->rel[vi], ev)) fw_fault(fw, HOSTIF_FAULT_RELIAB);
  run(fw, vi);
}

void fw_reliab_rx_data(struct fw *fw, unsigned vi, uint32_t seq, bool intact, unsigned buf) {
  fw->rel_in.seq = seq & (FW_NSEQ - 1u);
  fw->rel_in.kind = reliab_CONST_DATA;
  fw->rel_in.intact = intact;
  fw->rel_buf = buf;
  raise_run(fw, vi, reliab_EV_rx_data);
}

void fw_reliab_rx_rst(struct fw *fw, unsigned vi) {
  if (!fw->vi[vi].rel_on) {
    fw_reliab_transport_break(fw, vi);
    return;
  }
  fw->rel_in.seq = 0;
  fw->rel_in.kind = reliab_CONST_RST;
  fw->rel_in.intact = true;
  raise_run(fw, vi, reliab_EV_rx_data);
}

void fw_reliab_rx_ack(struct fw *fw, unsigned vi, uint32_t ack) {
  fw->rel_in.ack = ack & (FW_NSEQ - 1u);
  raise_run(fw, vi, reliab_EV_rx_ack);
}

void fw_reliab_tx_taken(struct fw *fw, unsigned vi) { raise_run(fw, vi, reliab_EV_tx_taken); }
void fw_reliab_offer(struct fw *fw, unsigned vi) { run(fw, vi); }

void fw_reliab_broken(struct fw *fw, unsigned vi) {
  struct fw_vi *v = &fw->vi[vi];
  if (!v->rel_on) return;
  v->rel_dead = true;
  v->rt_armed = false;
  if (fw->rel_cur == (int)vi) {
    (void)reliab_raise(&fw->rel[vi], reliab_EV_rx_break); /* the running loop takes it */
    return;
  }
  if (!reliab_raise(&fw->rel[vi], reliab_EV_rx_break)) fw_fault(fw, HOSTIF_FAULT_RELIAB);
  run(fw, vi);
}

void fw_reliab_transport_break(struct fw *fw, unsigned vi) {
  struct fw_vi *v = &fw->vi[vi];
  if (fw_sram_rd32(fw, FW_VI_FIELD(vi, state)) != HOSTIF_VI_CONNECTED) return;
  fw_count64v(&fw_ctr(fw)->transport_breaks);
  v->brk_st = HOSTIF_ST_TRANSPORT;
  fw_sq_unack_all(fw, vi, HOSTIF_ST_TRANSPORT);
  fw_vi_break(fw, vi);
}

void fw_reliab_tick(struct fw *fw) {
  fw->rt_hw = false;
  uint64_t now = fwb_clock_ns(fw->board);
  for (unsigned vi = 1; vi < HOSTIF_NVI; vi++) {
    struct fw_vi *v = &fw->vi[vi];
    if (!v->rel_on || !v->rt_armed || v->rt_due > now) continue;
    v->rt_armed = false;
    v->rtt_timing = false; /* Karn: its ACK may answer the message sent again */
    fw_count64v(&fw_ctr(fw)->rto_expired);
    raise_run(fw, vi, reliab_EV_timeout);
    v->rt_hold = (uint32_t)fw->rel[vi].m.Sender.rto * 1000u; /* the Sender doubled it */
  }
  rt_rescan(fw);
}

void fw_reliab_pump(struct fw *fw) {
  for (unsigned vi = fw_vim_next(&fw->rst_work, 1); vi < HOSTIF_NVI;
       vi = fw_vim_next(&fw->rst_work, vi + 1)) {
    struct fw_vi *v = &fw->vi[vi];
    if (!v->rst_want) continue;
    struct fw_wire_hdr h = {0};
    h.type = FW_WIRE_NACK;
    h.dst_node = v->rst_node;
    h.src_vi = (uint16_t)vi;
    h.dst_vi = v->rst_vi;
    h.conn = v->rst_conn;
    h.imm = HOSTIF_ST_TRANSPORT;
    if (!fw_txlocal_queue(fw, &h, 0)) return; /* the pipeline is full: later */
    v->rst_want = false;
    fw_vim_clear(&fw->rst_work, vi);
  }
}

/* ---- the machines' HAL (reliab_hal.h) ---- */

void reliab_hal_transmit(reliab_t *sys, uint8_t kind, int32_t seq) {
  struct fw *fw = sys->user;
  unsigned vi = vi_of(sys);
  struct fw_vi *v = &fw->vi[vi];
  if (kind == reliab_CONST_RST) {
    /* Best effort, once: the instance is gone by the time it leaves. */
    v->rst_want = true;
    fw_vim_set(&fw->rst_work, vi);
    v->rst_node = v->peer_node;
    v->rst_vi = v->peer_vi;
    v->rst_conn = v->peer_conn;
    (void)reliab_raise(sys, reliab_EV_tx_taken);
    return;
  }
  v->tx_want = true;
  v->tx_want_seq = (uint32_t)seq;
  /* A first transmission (the Sender's top, not a go-back) starts a measurement if none runs. */
  if (!v->rtt_timing && seq == sys->m.Sender.top && sys->m.Sender.retries == 0) {
    v->rtt_timing = true;
    v->rtt_seq = (uint32_t)seq;
    v->rtt_t0 = fwb_clock_ns(fw->board);
  }
}

void reliab_hal_tx_error(reliab_t *sys) {
  struct fw *fw = sys->user;
  fw_reliab_transport_break(fw, vi_of(sys));
}

void reliab_hal_ack_send(reliab_t *sys, int32_t seq) {
  struct fw *fw = sys->user;
  unsigned vi = vi_of(sys);
  const struct fw_vi *v = &fw->vi[vi];
  fw_ack_owe(fw, vi, (uint32_t)seq, v->peer_node, v->peer_vi, v->peer_conn, 0);
  /* The ACK waits in the VI's entry, where a later one replaces it (fw_ack.c): for the
   * Receiver it has gone, as if the link took it and lost it before the next. */
  if (!reliab_raise(sys, reliab_EV_ack_taken)) fw_fault(fw, HOSTIF_FAULT_RELIAB);
}

void reliab_hal_deliver(reliab_t *sys, int32_t seq) {
  struct fw *fw = sys->user;
  /* before the host can see the completion, and so before it can disconnect (hostif.h) */
  fw_sram_wr32(fw, FW_RING_REL_SEQ(vi_of(sys), rq), HOSTIF_REL_SEQ_VALID | (uint32_t)seq);
  fw_rq_deliver(fw, fw->rel_buf);
  if (!reliab_raise(sys, reliab_EV_dlv_done)) fw_fault(fw, HOSTIF_FAULT_RELIAB);
}

void reliab_hal_host_rx(reliab_t *sys, uint8_t what) {
  /* DONE: fw_rq_deliver wrote the completion; FLUSHED: fw_vi_break flushed the receives. */
  if (what == reliab_CONST_RX_BROKEN) fw_reliab_transport_break(sys->user, vi_of(sys));
}

bool reliab_hal_has_new(reliab_t *sys) {
  struct fw *fw = sys->user;
  return fw->vi[vi_of(sys)].have;
}
int32_t reliab_hal_ack_seq(reliab_t *sys) { return (int32_t)((struct fw *)sys->user)->rel_in.ack; }
bool reliab_hal_ack_intact(reliab_t *sys) { (void)sys; return true; } /* fw_rq.c judged it */
int32_t reliab_hal_rx_seq(reliab_t *sys) { return (int32_t)((struct fw *)sys->user)->rel_in.seq; }
int32_t reliab_hal_rx_kind(reliab_t *sys) { return ((struct fw *)sys->user)->rel_in.kind; }
bool reliab_hal_rx_intact(reliab_t *sys) { return ((struct fw *)sys->user)->rel_in.intact; }

void reliab_hal_fault(reliab_t *sys, int code, const char *where) {
  (void)code;
  struct fw *fw = sys->user;
  fw_fault(fw, HOSTIF_FAULT_RELIAB);
  volatile char *w = fw_ctr(fw)->last_fault_where;
  unsigned i = 0;
  for (; where && where[i] && i + 1 < sizeof fw_ctr(fw)->last_fault_where; i++) w[i] = where[i];
  w[i] = 0;
}
