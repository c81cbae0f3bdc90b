/* harness.c: runs the generated C of the example system esm/examples/dmapair.esm against a
 * simulated host, DMA engine and loopback link, under seeded random interleavings, and checks at
 * run time what the model proves: the DMA engine is never used by both machines, it is only
 * started by its holder and never while busy, and every posted message is sent and received. */
#include <stdio.h>
#include <stdlib.h>

#include "dmapair.h"
#include "dmapair_hal.h"

enum { NMSG = 500, MAX_ITER = 1000000 };

typedef struct {
  unsigned long rng;
  int failures;
  bool dma_busy, link_busy;
  dmapair_event_t dma_done, link_done;
  int posted, carried, last_seq;
} Hw;

static Hw hw;

static unsigned rnd(unsigned n) {
  hw.rng = hw.rng * 6364136223846793005UL + 1442695040888963407UL;
  return (unsigned)(hw.rng >> 33) % n;
}

static void fail(const char *what) {
  if (hw.failures++ == 0)
    printf("  check failed: %s\n", what);
}

void dmapair_hal_dma_start(dmapair_t *sys, bool to_host, dmapair_event_t done) {
  (void)to_host;
  if (hw.dma_busy)
    fail("DMA engine started while busy");
  if (sys->owner[dmapair_RES_hostdma] == 0)
    fail("DMA engine started by a machine that does not hold it");
  hw.dma_busy = true;
  hw.dma_done = done;
}

void dmapair_hal_transmit(dmapair_t *sys, int32_t seq, dmapair_event_t done) {
  (void)sys;
  if (hw.link_busy)
    fail("link busy");
  if (seq != hw.last_seq + 1)
    fail("messages left out of order");
  hw.last_seq = seq;
  hw.link_busy = true;
  hw.link_done = done;
}

void dmapair_hal_fault(dmapair_t *sys, int code, const char *where) {
  (void)sys;
  printf("  fault %d at %s\n", code, where);
  fail("firmware fault");
}

static void raise_ev(dmapair_t *sys, dmapair_event_t ev) {
  if (!dmapair_raise(sys, ev))
    fail("event raised past its capacity");
}

static int run(unsigned long seed) {
  static dmapair_t sys;
  hw = (Hw){.rng = seed, .last_seq = -1};
  dmapair_init(&sys);
  long i;
  for (i = 0; i < MAX_ITER && (sys.m.Rx.delivered < NMSG || sys.m.Tx.sent < NMSG) && !hw.failures;
       i++) {
    if (sys.owner[dmapair_RES_hostdma] != 0 && sys.m.Tx.state == dmapair_Tx_S_Fetching &&
        sys.m.Rx.state == dmapair_Rx_S_Delivering)
      fail("both machines in their DMA states");
    switch (rnd(4)) {
    case 0:
      dmapair_step(&sys);
      break;
    case 1:
      if (hw.dma_busy) {
        hw.dma_busy = false;
        raise_ev(&sys, hw.dma_done);
      }
      break;
    case 2:
      if (hw.link_busy && sys.pending[dmapair_EV_rx_arrived] < 2) {
        hw.link_busy = false;
        hw.carried++;
        raise_ev(&sys, hw.link_done);
        raise_ev(&sys, dmapair_EV_rx_arrived);
      }
      break;
    case 3:
      if (hw.posted < NMSG && sys.pending[dmapair_EV_doorbell] < 2) {
        hw.posted++;
        raise_ev(&sys, dmapair_EV_doorbell);
      }
      break;
    }
  }
  if (!hw.failures && sys.m.Rx.delivered != NMSG)
    fail("not every message was delivered");
  if (!hw.failures && (sys.m.Tx.sent != NMSG || hw.carried != NMSG))
    fail("not every message was sent");
  printf("seed %lu: %s after %ld steps (%d sent, %d delivered)\n", seed,
         hw.failures ? "FAIL" : "ok", i, (int)sys.m.Tx.sent, (int)sys.m.Rx.delivered);
  return hw.failures == 0;
}

int main(void) {
  int pass = 0, fail_count = 0;
  for (unsigned long s = 1; s <= 20; s++)
    run(s * 104729) ? pass++ : fail_count++;
  printf("%d passed, %d failed\n", pass, fail_count);
  return fail_count != 0;
}
