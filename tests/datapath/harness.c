/* harness.c: runs the generated C of the data-movement machines (SDMA, SEND, RECV, RDMA) and of
 * the PANIC VM dispatcher (VM) against simulated hardware: a host posting sends and taking
 * received messages, one host DMA engine, a send DMA engine and a receive DMA engine fed by a
 * peer NIC, and PANIC activations whose handlers may DMA (only while the VM holds the engine
 * and it is idle). Real bytes move through SRAM
 * buffers. A seeded random scheduler interleaves firmware steps with engine completions, so
 * many event orders are tried; the invariants the model proves are checked here as run-time
 * assertions on the C, with the hardware's own account of what is in each buffer.
 *
 * Hosted, it is the test program. With DATAPATH_HARNESS_FREESTANDING it has no main and no libc
 * headers: the including file (tests/iss/progs/datapath.c, built for LANai) provides printf,
 * vsnprintf, memset and memcpy, and calls run_seeds. */
#include <stdarg.h>
#include <stdint.h>
#ifndef DATAPATH_HARNESS_FREESTANDING
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#endif

#include "datapath.h"
#include "datapath_hal.h"

/* One firmware step; tests/tigon/harness2.c steps a processor of two instead. */
#ifndef HARNESS_STEP
#define HARNESS_STEP(s) datapath_step(s)
#endif

enum {
  NBUF = datapath_CONST_NBUF,
  MSGLEN = datapath_CONST_MSGLEN,
  NMSG = 64,             /* messages each way per run */
  MAX_ITER = 4000000,    /* a run that has not finished by then is stuck */
};

typedef struct {
  bool busy;
  bool to_host, last;
  int buf, off, len;
  datapath_event_t done;
} Request;

typedef struct {
  uint64_t rng; /* 64 bits on every target, so the runs are the same on LANai */
  int failures;
  const char *first_failure;
  /* host */
  int posted, tx_fetched, tx_announced, tx_completed, rx_delivered;
  int tx_len[NMSG], rx_len[NMSG];       /* message lengths, 1..MSGLEN */
  unsigned char host_rx[NBUF][MSGLEN];  /* where RDMA writes each receive buffer's message */
  /* SRAM */
  unsigned char sram_s[NBUF][MSGLEN], sram_r[NBUF][MSGLEN];
  /* the hardware's account of each buffer */
  int s_seq[NBUF], s_written[NBUF], s_onwire[NBUF];
  int r_seq[NBUF], r_arrived[NBUF], r_tohost[NBUF];
  /* engines */
  Request hdma, sdma_req, rxc;
  bool send_busy;
  Request send;
  bool armed;
  int rbuf, rcount, peer_seq;
  bool eom;
  /* the wire, as the peer reassembles it */
  int wire_seq, wire_off;
  long fine_frags, coarse_msgs;
  /* the PANIC VM: activations queued, run, and run with the engine */
  int vm_queued, vm_run, vm_dma_runs;
} Sim;

static Sim sim;

static unsigned rnd(unsigned n) {
  sim.rng = sim.rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(sim.rng >> 33) % n;
}

static void fail(const char *fmt, ...) {
  if (sim.failures++ == 0) {
    static char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sim.first_failure = msg;
  }
}

static unsigned char tx_byte(int seq, int off) { return (unsigned char)(seq * 31 + off * 7 + 1); }
static unsigned char rx_byte(int seq, int off) { return (unsigned char)(seq * 17 + off * 3 + 5); }

/* ---- the HAL the generated firmware calls ---- */

void datapath_hal_hdma_start(datapath_t *sys, bool to_host, uint8_t buf, uint16_t off,
                             uint16_t len, datapath_event_t done) {
  if (sim.hdma.busy)
    fail("host DMA started while busy");
  int holder = sys->owner[datapath_RES_hostdma];
  if (holder == 0)
    fail("host DMA started by a machine that does not hold the engine");
  sim.hdma = (Request){true, to_host, false, buf, off, len, done};
}

void datapath_hal_send_start(datapath_t *sys, uint8_t buf, uint16_t off, uint16_t len,
                             bool last) {
  (void)sys;
  if (sim.send_busy)
    fail("send DMA started while busy");
  sim.send_busy = true;
  sim.send = (Request){true, false, last, buf, off, len, datapath_EV_send_done};
}

void datapath_hal_recv_arm(datapath_t *sys, uint8_t buf) {
  (void)sys;
  if (sim.armed)
    fail("receive DMA armed twice");
  if (sim.r_tohost[buf] < sim.r_arrived[buf])
    fail("receive buffer %d rearmed before its data reached the host", buf);
  sim.armed = true;
  sim.rbuf = buf;
  sim.rcount = 0;
  sim.eom = false;
  sim.r_arrived[buf] = sim.r_tohost[buf] = 0;
  sim.r_seq[buf] = sim.peer_seq;
}

void datapath_hal_tx_complete(datapath_t *sys, uint8_t buf) {
  (void)sys;
  if (sim.s_onwire[buf] != sim.s_written[buf] || sim.s_written[buf] != sim.tx_len[sim.s_seq[buf]])
    fail("send completion for buffer %d before its message left", buf);
  if (sim.s_seq[buf] != sim.tx_completed)
    fail("send completions out of order");
  sim.tx_completed++;
}

int32_t datapath_hal_tx_len(datapath_t *sys) {
  (void)sys;
  if (sim.tx_announced >= sim.posted) {
    fail("SDMA asked for the length of a message the host never posted");
    return 1;
  }
  return sim.tx_len[sim.tx_announced++];
}

void datapath_hal_rx_complete(datapath_t *sys, uint8_t buf, uint16_t len) {
  (void)sys;
  if (sim.rxc.busy)
    fail("completion written while another is in flight");
  sim.rxc = (Request){true, false, false, buf, 0, len, datapath_EV_rx_completed};
}

int32_t datapath_hal_rx_bytes(datapath_t *sys) {
  (void)sys;
  return sim.rcount;
}

bool datapath_hal_rx_eom(datapath_t *sys) {
  (void)sys;
  return sim.eom;
}

bool datapath_hal_vm_work(datapath_t *sys) {
  (void)sys;
  return sim.vm_run < sim.vm_queued;
}

bool datapath_hal_vm_may_dma(datapath_t *sys) {
  (void)sys;
  return rnd(2);
}

/* The handler runs to completion here; a DMA it does is synchronous, on the one engine. */
void datapath_hal_vm_exec(datapath_t *sys, bool dma, datapath_event_t done) {
  if (sim.vm_run >= sim.vm_queued) fail("VM ran with nothing queued");
  sim.vm_run++;
  if (dma) {
    if (sys->owner[datapath_RES_hostdma] != datapath_MACH_VM)
      fail("VM handler DMAs without holding the host DMA engine");
    if (sim.hdma.busy) fail("VM handler DMAs while the engine is busy");
    sim.vm_dma_runs++;
  }
  if (!datapath_raise(sys, done)) fail("vm_ran raised past its capacity");
}

bool datapath_hal_fine_mode(datapath_t *sys) {
  (void)sys;
  return rnd(2);
}

void datapath_hal_fault(datapath_t *sys, int code, const char *where) {
  (void)sys;
  fail("firmware fault %d at %s", code, where);
}

/* ---- the engines ---- */

static void raise_ev(datapath_t *sys, datapath_event_t ev) {
  if (!datapath_raise(sys, ev))
    fail("event %s raised past its capacity", datapath_event_name(ev));
}

static void complete_hdma(datapath_t *sys) {
  Request *r = &sim.hdma;
  int b = r->buf;
  if (!r->to_host) {
    if (r->off == 0) {
      if (sim.s_onwire[b] < sim.s_written[b])
        fail("send buffer %d refilled before its message left", b);
      if (sim.tx_fetched >= sim.posted)
        fail("SDMA fetched a message the host never posted");
      sim.s_seq[b] = sim.tx_fetched++;
      sim.s_written[b] = sim.s_onwire[b] = 0;
    }
    if (r->off != sim.s_written[b])
      fail("host DMA into send buffer %d at %d, expected %d", b, r->off, sim.s_written[b]);
    for (int i = 0; i < r->len; i++)
      sim.sram_s[b][r->off + i] = tx_byte(sim.s_seq[b], r->off + i);
    sim.s_written[b] = r->off + r->len;
  } else {
    if (r->off + r->len > sim.r_arrived[b])
      fail("RDMA moved bytes %d..%d of buffer %d before they arrived (%d)", r->off,
           r->off + r->len, b, sim.r_arrived[b]);
    if (r->off != sim.r_tohost[b])
      fail("RDMA out of order in buffer %d", b);
    memcpy(&sim.host_rx[b][r->off], &sim.sram_r[b][r->off], (size_t)r->len);
    sim.r_tohost[b] = r->off + r->len;
  }
  r->busy = false;
  raise_ev(sys, r->done);
}

static void complete_send(datapath_t *sys) {
  Request *r = &sim.send;
  int b = r->buf;
  if (r->off + r->len > sim.s_written[b])
    fail("fragment %d..%d of send buffer %d left before it arrived (%d)", r->off,
         r->off + r->len, b, sim.s_written[b]);
  if (sim.s_seq[b] != sim.wire_seq || r->off != sim.wire_off)
    fail("wire order: got message %d offset %d, expected %d offset %d", sim.s_seq[b], r->off,
         sim.wire_seq, sim.wire_off);
  for (int i = 0; i < r->len; i++)
    if (sim.sram_s[b][r->off + i] != tx_byte(sim.wire_seq, r->off + i)) {
      fail("wrong byte on the wire: message %d offset %d", sim.wire_seq, r->off + i);
      break;
    }
  sim.s_onwire[b] = r->off + r->len;
  sim.wire_off += r->len;
  if (r->off == 0 && r->last)
    sim.coarse_msgs++;
  else
    sim.fine_frags++;
  if (r->last) {
    if (sim.wire_off != sim.tx_len[sim.wire_seq])
      fail("end of message (SMLT) after %d bytes", sim.wire_off);
    sim.wire_seq++;
    sim.wire_off = 0;
  }
  sim.send_busy = false;
  raise_ev(sys, datapath_EV_send_done);
}

/* The peer's next fragment lands in the armed buffer; the progress bit coalesces as in an ISR. */
static void receive_fragment(datapath_t *sys) {
  int total = sim.rx_len[sim.peer_seq];
  int n = 1 + (int)rnd((unsigned)(total - sim.rcount));
  if (rnd(4) == 0)
    n = total - sim.rcount;
  int b = sim.rbuf;
  for (int i = 0; i < n; i++)
    sim.sram_r[b][sim.rcount + i] = rx_byte(sim.peer_seq, sim.rcount + i);
  sim.rcount += n;
  sim.r_arrived[b] = sim.rcount;
  if (sim.rcount == total) {
    sim.eom = true;
    sim.armed = false;
    sim.peer_seq++;
  }
  if (!sys->pending[datapath_EV_recv_frag])
    raise_ev(sys, datapath_EV_recv_frag);
}

static void complete_rx(datapath_t *sys) {
  Request *r = &sim.rxc;
  int b = r->buf;
  if (sim.r_seq[b] != sim.rx_delivered)
    fail("host got message %d, expected %d", sim.r_seq[b], sim.rx_delivered);
  int want = sim.rx_len[sim.rx_delivered];
  if (r->len != want || sim.r_tohost[b] != want)
    fail("host got %d bytes of a %d-byte message", r->len, want);
  for (int i = 0; i < want; i++)
    if (sim.host_rx[b][i] != rx_byte(sim.rx_delivered, i)) {
      fail("wrong byte in host memory: message %d offset %d", sim.rx_delivered, i);
      break;
    }
  sim.rx_delivered++;
  r->busy = false;
  raise_ev(sys, datapath_EV_rx_completed);
}

enum { NVM = 16 }; /* PANIC activations per run */

static bool all_done(void) {
  return sim.wire_seq == NMSG && sim.tx_completed == NMSG && sim.rx_delivered == NMSG &&
         sim.vm_run == NVM;
}

/* Mostly full buffers, with short messages and single bytes mixed in. */
static int pick_len(void) {
  switch (rnd(4)) {
  case 0: return 1 + (int)rnd(16);
  case 1: return 1 + (int)rnd(MSGLEN);
  default: return MSGLEN;
  }
}

/* One run with one seed; returns 1 if every check held. */
static int run(unsigned long seed) {
  static datapath_t sys;
  memset(&sim, 0, sizeof sim);
  sim.rng = seed;
  for (int i = 0; i < NMSG; i++) {
    sim.tx_len[i] = pick_len();
    sim.rx_len[i] = pick_len();
  }
  datapath_init(&sys);
  long iter;
  for (iter = 0; iter < MAX_ITER && !all_done() && sim.failures == 0; iter++) {
    if (sys.owner[datapath_RES_hostdma] == 0 && sim.hdma.busy)
      fail("host DMA in flight while no machine holds the engine");
    switch (rnd(8)) {
    case 0:
    case 1: HARNESS_STEP(&sys); break;
    case 2:
      if (sim.hdma.busy)
        complete_hdma(&sys);
      break;
    case 3:
      if (sim.send_busy)
        complete_send(&sys);
      break;
    case 4:
      if (sim.armed && sim.peer_seq < NMSG)
        receive_fragment(&sys);
      break;
    case 5:
      if (sim.rxc.busy)
        complete_rx(&sys);
      break;
    case 6:
      if (sim.posted < NMSG && sys.pending[datapath_EV_doorbell] < 2 + rnd(8)) {
        sim.posted++;
        raise_ev(&sys, datapath_EV_doorbell);
      }
      break;
    case 7:
      if (sim.vm_queued < NVM && rnd(16) == 0) {
        sim.vm_queued++;
        if (!sys.pending[datapath_EV_vm_wake]) raise_ev(&sys, datapath_EV_vm_wake);
      }
      break;
    }
  }
  if (sim.failures == 0 && !all_done())
    fail("stuck after %ld iterations: %d of %d sent, %d of %d delivered", iter, sim.wire_seq,
         NMSG, sim.rx_delivered, NMSG);
  for (int e = 0; e < datapath_NEVENTS; e++)
    if (sys.overflow[e])
      fail("event %s overflowed", datapath_event_name(e));
  if (sim.failures)
    printf("seed %lu: FAIL: %s\n", seed, sim.first_failure);
  else
    printf("seed %lu: ok, %d messages each way, %ld coarse messages, %ld fine fragments, "
           "%d VM activations (%d holding the engine), %ld scheduler steps\n", seed, NMSG,
           sim.coarse_msgs, sim.fine_frags, sim.vm_run, sim.vm_dma_runs, iter);
  return sim.failures == 0;
}

/* Seeds 1..seeds; prints one line per run and a summary, returns the number of failed runs. */
static int run_seeds(int seeds) {
  int pass = 0, fails = 0;
  for (int s = 1; s <= seeds; s++) {
    if (run((unsigned long)s * 7919))
      pass++;
    else
      fails++;
  }
  printf("%d passed, %d failed\n", pass, fails);
  return fails;
}

#ifndef DATAPATH_HARNESS_FREESTANDING
int main(int argc, char **argv) {
  return run_seeds(argc > 1 ? atoi(argv[1]) : 40) ? 1 : 0;
}
#endif
