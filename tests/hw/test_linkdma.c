/* Send and receive DMA engines over the in-memory fabric: timing, SML/SMLT reassembly,
 * truncation, back-pressure, worm locking, errors, link down, corrupted frames, cut-through. */
#include <string.h>

#include "../../hw/link.h"
#include "../../hw/memfab.h"
#include "hwtest.h"

struct fix {
  struct fabric *fab;
  struct nic *n[3];
};

static int setup_mode(void **state, enum nic_timing timing) {
  static struct fix f;
  /* The fabric's latency is its own setting: zero for the as-fast-as-possible mode. */
  struct memfab_config mc = {
      .nodes = 3, .latency_ns = timing == NIC_TIMING_FAST ? 0 : MEMFAB_DEFAULT_LATENCY_NS};
  f.fab = memfab_create(&mc);
  assert_non_null(f.fab);
  for (uint16_t i = 0; i < 3; i++) {
    f.n[i] = t_nic(i, timing);
    assert_int_equal(nic_attach(f.n[i], f.fab), NIC_OK);
  }
  *state = &f;
  return 0;
}
static int setup(void **state) { return setup_mode(state, NIC_TIMING_MODEL); }
static int setup_fast(void **state) { return setup_mode(state, NIC_TIMING_FAST); }

static int teardown(void **state) {
  struct fix *f = *state;
  for (int i = 0; i < 3; i++) nic_destroy(f->n[i]);
  fabric_close(f->fab);
  return 0;
}

static void run_all(struct fix *f, uint64_t until) { nic_advance_all(f->n, 3, until); }

static void one_message(void **state) {
  struct fix *f = *state;
  struct nic *a = f->n[0], *b = f->n[1];
  uint8_t *src = nic_sram_ptr(a, 0x1000, 1000);
  t_fill(src, 1000, 11);
  assert_int_equal(nic_recv_arm(b, 0x8000, 4096), NIC_OK);
  assert_int_equal(nic_recv_arm(b, 0x8000, 4096), NIC_EBUSY);
  assert_int_equal(nic_send_start(a, 1, 0x1000, 1000, NIC_SEND_SMLT), NIC_OK);
  assert_true(nic_send_busy(a));
  assert_int_equal(nic_send_start(a, 1, 0x1000, 1000, NIC_SEND_SMLT), NIC_EBUSY);
  /* 100 ns set-up + 1000 B at 250 MB/s = 4100 ns on the wire, + 300 ns to arrive. */
  assert_true(nic_next_due(a) == 4100);
  run_all(f, 4099);
  assert_int_equal(nic_isr(a) & NIC_ISR_SEND, 0);
  run_all(f, 4100);
  assert_true(nic_isr(a) & NIC_ISR_SEND);
  assert_false(nic_send_busy(a));
  assert_true(nic_next_due(b) == 4400);
  run_all(f, 4399);
  assert_int_equal(nic_isr(b) & NIC_ISR_RECV, 0);
  run_all(f, 4400);
  assert_int_equal(nic_isr(b) & (NIC_ISR_RECV | NIC_ISR_HEAD | NIC_ISR_BUFF),
                   NIC_ISR_RECV | NIC_ISR_HEAD);
  struct nic_recv_status st;
  nic_recv_status(b, &st);
  assert_int_equal(st.state, NIC_RECV_DONE);
  assert_int_equal(st.len, 1000);
  assert_int_equal(st.msg_len, 1000);
  assert_int_equal(st.frags, 1);
  assert_int_equal(st.src, 0);
  assert_int_equal(st.flags, NIC_RECV_EOM);
  assert_memory_equal(nic_sram_ptr(b, 0x8000, 1000), src, 1000);
  assert_int_equal(nic_counter(a, HW_CTR_SEND_FRAMES), 1);
  assert_int_equal(nic_counter(b, HW_CTR_RECV_MSGS), 1);
  assert_int_equal(nic_counter(b, HW_CTR_RECV_BYTES), 1000);
}

static void fragments_make_one_message(void **state) {
  struct fix *f = *state;
  struct nic *a = f->n[0], *b = f->n[1];
  t_fill(nic_sram_ptr(a, 0x1000, 3000), 3000, 12);
  nic_recv_arm(b, 0x10000, 8192);
  uint32_t lens[] = {1000, 1500, 500};
  uint32_t off = 0;
  for (int i = 0; i < 3; i++) {
    unsigned fl = i == 2 ? NIC_SEND_SMLT : NIC_SEND_SML;
    assert_int_equal(nic_send_start(a, 1, 0x1000 + off, lens[i], fl), NIC_OK);
    while (!(nic_isr(a) & NIC_ISR_SEND)) run_all(f, nic_next_due(a));
    nic_isr_clear(a, NIC_ISR_SEND);
    /* Mid-message, the route stays open to node 1 only. */
    if (i < 2) assert_int_equal(nic_send_start(a, 2, 0x1000, 1, NIC_SEND_SMLT), NIC_EINVAL);
    off += lens[i];
    if (i == 0) { /* the first fragment has landed: HEAD, progress, but no RECV yet */
      run_all(f, nic_clock(a) + 300);
      struct nic_recv_status st;
      nic_recv_status(b, &st);
      assert_true(nic_isr(b) & NIC_ISR_HEAD);
      assert_int_equal(nic_isr(b) & NIC_ISR_RECV, 0);
      assert_int_equal(st.state, NIC_RECV_ARMED);
      assert_int_equal(st.len, 1000);
      assert_int_equal(st.frags, 1);
    }
  }
  run_all(f, nic_clock(a) + 300);
  struct nic_recv_status st;
  nic_recv_status(b, &st);
  assert_true(nic_isr(b) & NIC_ISR_RECV);
  assert_int_equal(st.len, 3000);
  assert_int_equal(st.frags, 3);
  assert_int_equal(st.flags, NIC_RECV_EOM);
  assert_memory_equal(nic_sram_ptr(b, 0x10000, 3000), nic_sram_ptr(a, 0x1000, 3000), 3000);
  /* The route closed with SMLT: another destination is fine now. */
  assert_int_equal(nic_send_start(a, 2, 0x1000, 1, NIC_SEND_SMLT), NIC_OK);
}

static void truncation(void **state) {
  struct fix *f = *state;
  struct nic *a = f->n[0], *b = f->n[1];
  t_fill(nic_sram_ptr(a, 0x1000, 250), 250, 13);
  memset(nic_sram_ptr(b, 0x8000, 400), 0xcc, 400);
  nic_recv_arm(b, 0x8000, 100);
  nic_send_start(a, 1, 0x1000, 150, NIC_SEND_SML);
  run_all(f, 100000);
  nic_send_start(a, 1, 0x1000 + 150, 100, NIC_SEND_SMLT);
  run_all(f, 200000);
  struct nic_recv_status st;
  nic_recv_status(b, &st);
  assert_int_equal(st.state, NIC_RECV_DONE);
  assert_int_equal(st.len, 100);
  assert_int_equal(st.msg_len, 250);
  assert_int_equal(st.flags, NIC_RECV_EOM | NIC_RECV_TRUNC);
  assert_true(nic_isr(b) & NIC_ISR_BUFF);
  assert_true(nic_isr(b) & NIC_ISR_RECV);
  assert_memory_equal(nic_sram_ptr(b, 0x8000, 100), nic_sram_ptr(a, 0x1000, 100), 100);
  for (int i = 100; i < 400; i++) assert_int_equal(*(uint8_t *)nic_sram_ptr(b, 0x8000 + i, 1), 0xcc);
  assert_int_equal(nic_counter(b, HW_CTR_RECV_TRUNC), 1);
  /* A zero-capacity buffer keeps nothing but still reports the message. */
  nic_recv_arm(b, 0x8100, 0);
  nic_send_start(a, 1, 0x1000, 10, NIC_SEND_SMLT);
  run_all(f, 300000);
  nic_recv_status(b, &st);
  assert_int_equal(st.len, 0);
  assert_int_equal(st.msg_len, 10);
  assert_int_equal(st.flags, NIC_RECV_EOM | NIC_RECV_TRUNC);
  assert_int_equal(*(uint8_t *)nic_sram_ptr(b, 0x8100, 1), 0xcc);
}

static void back_pressure_and_order(void **state) {
  struct fix *f = *state;
  struct nic *a = f->n[0], *b = f->n[1];
  for (int i = 0; i < 3; i++) {
    *(uint8_t *)nic_sram_ptr(a, 0x1000 + i, 1) = (uint8_t)(0xa0 + i);
    nic_send_start(a, 1, 0x1000 + i, 1, NIC_SEND_SMLT);
    run_all(f, nic_clock(a) + 10000);
  }
  assert_true(nic_next_due(b) == NIC_NEVER); /* nothing armed: frames wait on the link */
  for (int i = 0; i < 3; i++) {
    nic_recv_arm(b, 0x9000, 16);
    run_all(f, nic_clock(b) + 1);
    struct nic_recv_status st;
    nic_recv_status(b, &st);
    assert_int_equal(st.state, NIC_RECV_DONE);
    assert_int_equal(st.len, 1);
    assert_int_equal(*(uint8_t *)nic_sram_ptr(b, 0x9000, 1), 0xa0 + i);
  }
  struct fabric_counters c;
  fabric_counters(f->fab, FAB_ALL, &c);
  assert_int_equal(c.rx_packets, 3);
  for (int d = 0; d < FAB_DROP_N; d++) assert_int_equal(c.drops[d], 0);
}

static void worms_do_not_interleave(void **state) {
  struct fix *f = *state;
  struct nic *a = f->n[0], *b = f->n[1], *c = f->n[2];
  memset(nic_sram_ptr(a, 0x1000, 400), 'A', 400);
  memset(nic_sram_ptr(c, 0x1000, 400), 'C', 400);
  nic_recv_arm(b, 0x8000, 1024);
  /* Both send 4 x 100 B fragments at the same times; C's first fragment arrives first. */
  for (int i = 0; i < 4; i++) {
    unsigned fl = i == 3 ? NIC_SEND_SMLT : NIC_SEND_SML;
    nic_send_start(c, 1, 0x1000 + 100 * i, 100, fl);
    run_all(f, nic_clock(c) + 1);
    nic_send_start(a, 1, 0x1000 + 100 * i, 100, fl);
    run_all(f, nic_clock(c) + 1000);
  }
  struct nic_recv_status st;
  nic_recv_status(b, &st);
  assert_int_equal(st.state, NIC_RECV_DONE);
  assert_int_equal(st.src, 2);
  assert_int_equal(st.len, 400);
  for (int i = 0; i < 400; i++) assert_int_equal(*(uint8_t *)nic_sram_ptr(b, 0x8000 + i, 1), 'C');
  nic_recv_arm(b, 0x8000, 1024);
  run_all(f, nic_clock(b) + 1);
  nic_recv_status(b, &st);
  assert_int_equal(st.src, 0);
  assert_int_equal(st.len, 400);
  assert_int_equal(st.frags, 4);
  for (int i = 0; i < 400; i++) assert_int_equal(*(uint8_t *)nic_sram_ptr(b, 0x8000 + i, 1), 'A');
}

static void send_errors(void **state) {
  struct fix *f = *state;
  struct nic *a = f->n[0];
  uint32_t size = nic_sram_size(a);
  assert_int_equal(nic_send_start(a, 1, 0, 10, 0), NIC_EINVAL);
  assert_int_equal(nic_send_start(a, 1, 0, 10, NIC_SEND_SML | NIC_SEND_SMLT), NIC_EINVAL);
  assert_int_equal(nic_send_start(a, 1, 0, HW_LINK_MAX_PAYLOAD + 1, NIC_SEND_SMLT), NIC_EINVAL);
  assert_int_equal(nic_send_start(a, 1, size - 5, 10, NIC_SEND_SMLT), NIC_ERANGE);
  assert_int_equal(nic_recv_arm(f->n[1], size - 5, 10), NIC_ERANGE);
  assert_int_equal(nic_recv_abort(f->n[1]), NIC_EINVAL);
  assert_false(nic_send_busy(a));
  /* To a node that does not exist: the engine finishes, the fabric counts the drop. */
  assert_int_equal(nic_send_start(a, 9, 0, 10, NIC_SEND_SMLT), NIC_OK);
  run_all(f, 100000);
  assert_true(nic_isr(a) & NIC_ISR_SEND);
  assert_int_equal(nic_counter(a, HW_CTR_SEND_DROPS), 1);
  struct fabric_counters c;
  fabric_counters(f->fab, 0, &c);
  assert_int_equal(c.drops[FAB_DROP_NO_ROUTE], 1);
  /* A zero-length SMLT is a zero-length message. */
  nic_recv_arm(f->n[1], 0x100, 10);
  assert_int_equal(nic_send_start(a, 1, 0, 0, NIC_SEND_SMLT), NIC_OK);
  run_all(f, 200000);
  struct nic_recv_status st;
  nic_recv_status(f->n[1], &st);
  assert_int_equal(st.state, NIC_RECV_DONE);
  assert_int_equal(st.len, 0);
  assert_int_equal(st.flags, NIC_RECV_EOM);
}

static void link_down(void **state) {
  struct fix *f = *state;
  struct nic *a = f->n[0], *b = f->n[1];
  nic_recv_arm(b, 0x100, 100);
  memfab_set_link(f->fab, 1, false);
  nic_send_start(a, 1, 0, 10, NIC_SEND_SMLT);
  run_all(f, 100000);
  assert_true(nic_isr(b) & NIC_ISR_LINK_DOWN);
  assert_int_equal(nic_isr(a) & NIC_ISR_LINK_DOWN, 0);
  assert_true(nic_isr(a) & NIC_ISR_SEND);
  struct nic_recv_status st;
  nic_recv_status(b, &st);
  assert_int_equal(st.state, NIC_RECV_ARMED);
  memfab_set_link(f->fab, 1, true);
  nic_isr_clear(a, NIC_ISR_SEND);
  nic_send_start(a, 1, 0, 10, NIC_SEND_SMLT);
  run_all(f, 200000);
  nic_recv_status(b, &st);
  assert_int_equal(st.state, NIC_RECV_DONE);
}

static enum memfab_fault corrupt_first(void *ctx, uint16_t s, uint16_t d, uint64_t index,
                                       uint8_t *frame, size_t *len) {
  (void)ctx, (void)s, (void)d, (void)len;
  if (index == 0) frame[HW_LINK_HDR_LEN + 3] ^= 0xff;
  return MEMFAB_PASS;
}

static void corrupted_frame_dropped(void **state) {
  struct fix *f = *state;
  struct nic *a = f->n[0], *b = f->n[1];
  memfab_set_fault(f->fab, corrupt_first, NULL);
  nic_recv_arm(b, 0x100, 100);
  *(uint8_t *)nic_sram_ptr(a, 0, 1) = 1;
  nic_send_start(a, 1, 0, 10, NIC_SEND_SMLT);
  run_all(f, 100000);
  struct nic_recv_status st;
  nic_recv_status(b, &st);
  assert_int_equal(st.state, NIC_RECV_ARMED); /* the bad frame never reached the engine */
  *(uint8_t *)nic_sram_ptr(a, 0, 1) = 2;
  nic_send_start(a, 1, 0, 10, NIC_SEND_SMLT);
  run_all(f, 200000);
  nic_recv_status(b, &st);
  assert_int_equal(st.state, NIC_RECV_DONE);
  assert_int_equal(*(uint8_t *)nic_sram_ptr(b, 0x100, 1), 2);
  struct fabric_counters c;
  fabric_counters(f->fab, 1, &c);
  assert_int_equal(c.drops[FAB_DROP_CRC], 1);
  assert_int_equal(c.rx_packets, 1);
}

static void abort_partial(void **state) {
  struct fix *f = *state;
  struct nic *a = f->n[0], *b = f->n[1], *c = f->n[2];
  nic_recv_arm(b, 0x100, 100);
  nic_send_start(a, 1, 0, 10, NIC_SEND_SML); /* and then node 0 goes quiet */
  run_all(f, 100000);
  nic_send_start(c, 1, 0, 20, NIC_SEND_SMLT);
  run_all(f, 200000);
  struct nic_recv_status st;
  nic_recv_status(b, &st);
  assert_int_equal(st.state, NIC_RECV_ARMED); /* locked on node 0's message */
  assert_int_equal(st.len, 10);
  assert_int_equal(nic_recv_abort(b), NIC_OK);
  nic_recv_status(b, &st);
  assert_int_equal(st.state, NIC_RECV_DONE);
  assert_int_equal(st.flags, 0);
  nic_recv_arm(b, 0x100, 100);
  run_all(f, 300000);
  nic_recv_status(b, &st);
  assert_int_equal(st.src, 2);
  assert_int_equal(st.len, 20);
  assert_int_equal(st.flags, NIC_RECV_EOM);
}

static void fast_round_trip(void **state) {
  struct fix *f = *state;
  struct nic *a = f->n[0], *b = f->n[1];
  t_fill(nic_sram_ptr(a, 0, 65536), 65536, 14);
  nic_recv_arm(b, 0, 65536);
  nic_send_start(a, 1, 0, 65536, NIC_SEND_SMLT);
  nic_advance_all(f->n, 3, 0);
  assert_true(nic_isr(b) & NIC_ISR_RECV);
  assert_true(nic_clock(b) == 0);
  assert_memory_equal(nic_sram_ptr(b, 0, 65536), nic_sram_ptr(a, 0, 65536), 65536);
}

/* Cut-through (memfab_set_deliver, as nicd sets it): the receiving engine takes a frame at its
 * send when it is armed and would take it next; otherwise the frame queues, and the order of
 * a link and the lock of a message in progress hold. */
static bool deliver(void *ctx, const struct hw_link_hdr *h, const void *payload) {
  struct fix *f = ctx;
  return h->dst < 3 && nic_recv_direct(f->n[h->dst], h, payload);
}

static void cut_through(void **state) {
  struct fix *f = *state;
  struct nic *a = f->n[0], *b = f->n[1], *c = f->n[2];
  struct nic_recv_status st;
  struct fabric_counters fc;
  memfab_set_deliver(f->fab, deliver, f);
  t_fill(nic_sram_ptr(a, 0, 40000), 40000, 15);
  /* Armed: taken at the send, nothing queued, counted as sent and received. */
  nic_recv_arm(b, 0x10000, 40000);
  nic_send_start(a, 1, 0, 33000, NIC_SEND_SMLT);
  nic_advance_all(&a, 1, 0);
  assert_true(fabric_next_due(f->fab, 1, FAB_ANY) == FAB_NEVER);
  assert_true(nic_isr(b) & NIC_ISR_RECV);
  nic_recv_status(b, &st);
  assert_int_equal(st.len, 33000);
  assert_int_equal(st.flags, NIC_RECV_EOM);
  assert_memory_equal(nic_sram_ptr(b, 0x10000, 33000), nic_sram_ptr(a, 0, 33000), 33000);
  fabric_counters(f->fab, FAB_ALL, &fc);
  assert_int_equal(fc.tx_packets, 1);
  assert_int_equal(fc.rx_packets, 1);
  /* Not armed: the frame waits in the fabric, and the next one from the same sender queues
   * behind it even once the engine is armed. */
  nic_isr_clear(a, NIC_ISR_SEND);
  nic_send_start(a, 1, 0, 100, NIC_SEND_SMLT);
  nic_advance_all(&a, 1, 0);
  assert_true(fabric_next_due(f->fab, 1, FAB_ANY) == 0);
  nic_recv_arm(b, 0x10000, 40000);
  nic_isr_clear(a, NIC_ISR_SEND);
  nic_send_start(a, 1, 100, 200, NIC_SEND_SMLT);
  nic_advance_all(&a, 1, 0);
  nic_recv_status(b, &st);
  assert_int_equal(st.frags, 0);               /* not taken past the queued one */
  nic_advance_all(f->n, 3, 0);
  nic_recv_status(b, &st);
  assert_int_equal(st.len, 100);               /* the queued one first */
  nic_recv_arm(b, 0x10000, 40000);
  nic_advance_all(f->n, 3, 0);
  nic_recv_status(b, &st);
  assert_int_equal(st.len, 200);
  assert_memory_equal(nic_sram_ptr(b, 0x10000, 200), nic_sram_ptr(a, 100, 200), 200);
  /* A message in progress from node 2 holds the engine: node 0's frame queues. */
  nic_recv_arm(b, 0x10000, 40000);
  nic_send_start(c, 1, 0, 10, NIC_SEND_SML);
  nic_advance_all(&c, 1, 0);
  nic_isr_clear(a, NIC_ISR_SEND);
  nic_send_start(a, 1, 0, 50, NIC_SEND_SMLT);
  nic_advance_all(&a, 1, 0);
  nic_recv_status(b, &st);
  assert_int_equal(st.src, 2);
  assert_int_equal(st.len, 10);
  assert_true(fabric_next_due(f->fab, 1, FAB_ANY) == 0);
  /* Truncation as on the queued path: the buffer's bytes stored, the message flagged. */
  nic_recv_abort(b);
  nic_recv_arm(b, 0x10000, 40000);
  nic_advance_all(f->n, 3, 0);                 /* node 0's queued frame: a message of its own */
  nic_recv_status(b, &st);
  assert_int_equal(st.src, 0);
  assert_int_equal(st.len, 50);
  nic_recv_arm(b, 0x10000, 64);
  nic_isr_clear(a, NIC_ISR_SEND);
  memset(nic_sram_ptr(b, 0x10000 + 64, 16), 0xcc, 16);
  nic_send_start(a, 1, 0, 1000, NIC_SEND_SMLT);
  nic_advance_all(&a, 1, 0);
  nic_recv_status(b, &st);
  assert_int_equal(st.len, 64);
  assert_int_equal(st.msg_len, 1000);
  assert_int_equal(st.flags, NIC_RECV_EOM | NIC_RECV_TRUNC);
  assert_int_equal(*(uint8_t *)nic_sram_ptr(b, 0x10000 + 64, 1), 0xcc);
  /* A fault hook sees every frame: nothing goes cut-through while one is set. */
  memfab_set_fault(f->fab, corrupt_first, NULL);
  nic_recv_arm(b, 0x10000, 40000);
  nic_isr_clear(a, NIC_ISR_SEND);
  nic_send_start(a, 1, 0, 10, NIC_SEND_SMLT);
  nic_advance_all(&a, 1, 0);
  assert_true(fabric_next_due(f->fab, 1, FAB_ANY) == 0);
  memfab_set_deliver(f->fab, NULL, NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(one_message, setup, teardown),
      cmocka_unit_test_setup_teardown(fragments_make_one_message, setup, teardown),
      cmocka_unit_test_setup_teardown(truncation, setup, teardown),
      cmocka_unit_test_setup_teardown(back_pressure_and_order, setup, teardown),
      cmocka_unit_test_setup_teardown(worms_do_not_interleave, setup, teardown),
      cmocka_unit_test_setup_teardown(send_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(link_down, setup, teardown),
      cmocka_unit_test_setup_teardown(corrupted_frame_dropped, setup, teardown),
      cmocka_unit_test_setup_teardown(abort_partial, setup, teardown),
      cmocka_unit_test_setup_teardown(fast_round_trip, setup_fast, teardown),
      cmocka_unit_test_setup_teardown(cut_through, setup_fast, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
