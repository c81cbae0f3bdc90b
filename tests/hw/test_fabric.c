/* The in-memory fabric: arrival times, per-link FIFO order, source filter, counters, fault
 * injection (drop, corrupt, truncate), malformed input, routing and link-down drops. */
#include <string.h>

#include "../../hw/link.h"
#include "../../hw/memfab.h"
#include "hwtest.h"

static struct fabric *mk(unsigned nodes, unsigned depth) {
  struct memfab_config c = {.nodes = nodes, .latency_ns = 100, .queue_depth = depth};
  struct fabric *f = memfab_create(&c);
  assert_non_null(f);
  return f;
}

/* Sends a frame whose payload is len bytes of value tag. */
static int snd(struct fabric *f, uint16_t src, uint16_t dst, uint8_t tag, uint32_t len,
               uint64_t now) {
  uint8_t payload[256], frame[256 + HW_LINK_OVERHEAD];
  memset(payload, tag, sizeof payload);
  struct hw_link_hdr h = {.dst = dst, .src = src, .flags = HW_LINK_EOM, .len = len, .frame = tag};
  size_t n = hw_link_encode(frame, sizeof frame, &h, payload);
  assert_true(n > 0);
  return fabric_send(f, src, dst, frame, n, now);
}

static void arrival_and_fifo(void **state) {
  (void)state;
  struct fabric *f = mk(3, 0);
  struct fabric_rx rx;
  assert_int_equal(snd(f, 0, 2, 1, 10, 1000), 0);
  assert_int_equal(snd(f, 0, 2, 2, 20, 1000), 0);
  assert_int_equal(snd(f, 1, 2, 3, 30, 1050), 0);
  assert_int_equal(snd(f, 0, 2, 4, 40, 1200), 0);
  assert_true(fabric_next_due(f, 2, FAB_ANY) == 1100);
  assert_true(fabric_next_due(f, 1, FAB_ANY) == FAB_NEVER);
  assert_int_equal(fabric_poll(f, 2, FAB_ANY, 1099, &rx), 0); /* not arrived yet */
  uint8_t want[] = {1, 2, 3, 4};
  uint64_t at[] = {1100, 1100, 1150, 1300};
  for (int i = 0; i < 4; i++) {
    assert_int_equal(fabric_poll(f, 2, FAB_ANY, 5000, &rx), 1);
    assert_int_equal(rx.frame, want[i]);
    assert_int_equal(rx.payload[0], want[i]);
    assert_int_equal(rx.len, want[i] * 10);
    assert_true(rx.arrival_ns == at[i]);
    assert_int_equal(rx.src, want[i] == 3 ? 1 : 0);
    assert_int_equal(rx.flags, HW_LINK_EOM);
  }
  assert_int_equal(fabric_poll(f, 2, FAB_ANY, 5000, &rx), 0);
  struct fabric_counters c;
  fabric_counters(f, FAB_ALL, &c);
  assert_int_equal(c.tx_packets, 4);
  assert_int_equal(c.rx_packets, 4);
  assert_int_equal(c.tx_bytes, 100 + 4 * HW_LINK_OVERHEAD);
  assert_int_equal(c.rx_bytes, c.tx_bytes);
  fabric_counters(f, 0, &c);
  assert_int_equal(c.tx_packets, 3);
  assert_int_equal(c.rx_packets, 0);
  fabric_close(f);
}

static void many_in_order(void **state) {
  (void)state;
  struct fabric *f = mk(2, 0);
  struct fabric_rx rx;
  for (unsigned i = 0; i < 1000; i++) assert_int_equal(snd(f, 0, 1, (uint8_t)i, 1, i / 10), 0);
  for (unsigned i = 0; i < 1000; i++) {
    assert_int_equal(fabric_poll(f, 1, 0, 1u << 30, &rx), 1);
    assert_int_equal(rx.frame, (uint8_t)i);
  }
  fabric_close(f);
}

static void source_filter(void **state) {
  (void)state;
  struct fabric *f = mk(3, 0);
  struct fabric_rx rx;
  snd(f, 0, 2, 1, 1, 0);
  snd(f, 1, 2, 2, 1, 0);
  snd(f, 0, 2, 3, 1, 5);
  assert_int_equal(fabric_poll(f, 2, 1, 1000, &rx), 1);
  assert_int_equal(rx.frame, 2);
  assert_true(fabric_next_due(f, 2, 1) == FAB_NEVER);
  assert_int_equal(fabric_poll(f, 2, 1, 1000, &rx), 0);
  assert_int_equal(fabric_poll(f, 2, 0, 1000, &rx), 1);
  assert_int_equal(rx.frame, 1);
  assert_int_equal(fabric_poll(f, 2, FAB_ANY, 1000, &rx), 1);
  assert_int_equal(rx.frame, 3);
  fabric_close(f);
}

struct faults {
  uint64_t drop, corrupt, truncate;
  unsigned seen;
};

static enum memfab_fault hook(void *ctx, uint16_t src, uint16_t dst, uint64_t index,
                              uint8_t *frame, size_t *len) {
  struct faults *fl = ctx;
  (void)src;
  (void)dst;
  fl->seen++;
  if (index == fl->drop) return MEMFAB_DROP;
  if (index == fl->corrupt) frame[HW_LINK_HDR_LEN] ^= 0x10;
  if (index == fl->truncate) *len -= 3;
  return MEMFAB_PASS;
}

static void fault_injection(void **state) {
  (void)state;
  struct fabric *f = mk(2, 0);
  struct faults fl = {.drop = 1, .corrupt = 2, .truncate = 3};
  memfab_set_fault(f, hook, &fl);
  for (uint8_t i = 0; i < 6; i++) assert_int_equal(snd(f, 0, 1, i, 50, 0), 0);
  struct fabric_rx rx;
  uint8_t got[6];
  int n = 0;
  while (fabric_poll(f, 1, FAB_ANY, 1000, &rx) == 1) got[n++] = (uint8_t)rx.frame;
  assert_int_equal(fl.seen, 6);
  assert_int_equal(n, 3);
  assert_int_equal(got[0], 0);
  assert_int_equal(got[1], 4);
  assert_int_equal(got[2], 5);
  struct fabric_counters c;
  fabric_counters(f, 0, &c);
  assert_int_equal(c.tx_packets, 6);
  assert_int_equal(c.drops[FAB_DROP_INJECTED], 1);
  fabric_counters(f, 1, &c);
  assert_int_equal(c.rx_packets, 3);
  assert_int_equal(c.drops[FAB_DROP_CRC], 1);
  assert_int_equal(c.drops[FAB_DROP_LENGTH], 1);
  assert_string_equal(fabric_drop_name(FAB_DROP_CRC), "crc");
  fabric_close(f);
}

static void malformed_input(void **state) {
  (void)state;
  struct fabric *f = mk(2, 0);
  uint8_t junk[64];
  t_fill(junk, sizeof junk, 9);
  memfab_inject(f, 0, 1, junk, sizeof junk, 0);
  memfab_inject(f, 0, 1, junk, 3, 0);
  memfab_inject(f, 0, 1, junk, 0, 0);
  /* A well-formed frame claiming another source than the link it came on. */
  uint8_t frame[HW_LINK_OVERHEAD];
  struct hw_link_hdr h = {.dst = 1, .src = 1, .flags = HW_LINK_EOM};
  size_t n = hw_link_encode(frame, sizeof frame, &h, NULL);
  memfab_inject(f, 0, 1, frame, n, 0);
  snd(f, 0, 1, 42, 5, 0);
  struct fabric_rx rx;
  assert_int_equal(fabric_poll(f, 1, FAB_ANY, 1000, &rx), 1);
  assert_int_equal(rx.frame, 42);
  struct fabric_counters c;
  fabric_counters(f, 1, &c);
  assert_int_equal(c.drops[FAB_DROP_MALFORMED], 4);
  assert_int_equal(c.rx_packets, 1);
  fabric_close(f);
}

static void routes_and_links(void **state) {
  (void)state;
  struct fabric *f = mk(3, 2);
  struct fabric_counters c;
  assert_true(snd(f, 0, 7, 1, 1, 0) < 0);
  assert_int_equal(snd(f, 0, 1, 1, 1, 0), 0);
  assert_int_equal(snd(f, 0, 1, 2, 1, 0), 0);
  assert_true(snd(f, 0, 1, 3, 1, 0) < 0); /* depth 2 */
  assert_int_equal(snd(f, 2, 1, 4, 1, 0), 0);
  assert_true(fabric_link_up(f, 1));
  assert_int_equal(memfab_set_link(f, 1, false), 0);
  assert_false(fabric_link_up(f, 1));
  assert_true(snd(f, 0, 1, 5, 1, 0) < 0);
  assert_true(snd(f, 1, 0, 6, 1, 0) < 0);
  struct fabric_rx rx;
  assert_int_equal(fabric_poll(f, 1, FAB_ANY, 1000, &rx), 0);
  assert_true(fabric_next_due(f, 1, FAB_ANY) == FAB_NEVER);
  memfab_set_link(f, 1, true);
  assert_int_equal(fabric_poll(f, 1, FAB_ANY, 1000, &rx), 0); /* queued ones were lost */
  fabric_counters(f, 0, &c);
  assert_int_equal(c.drops[FAB_DROP_NO_ROUTE], 1);
  assert_int_equal(c.drops[FAB_DROP_QUEUE_FULL], 1);
  assert_int_equal(c.drops[FAB_DROP_LINK_DOWN], 1);
  fabric_counters(f, 1, &c);
  assert_int_equal(c.drops[FAB_DROP_LINK_DOWN], 3 + 1); /* 3 queued + 1 sent by node 1 */
  assert_null(memfab_create(&(struct memfab_config){.nodes = 0}));
  assert_true(memfab_set_link(f, 9, false) < 0);
  fabric_close(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(arrival_and_fifo), cmocka_unit_test(many_in_order),
      cmocka_unit_test(source_filter),    cmocka_unit_test(fault_injection),
      cmocka_unit_test(malformed_input),  cmocka_unit_test(routes_and_links),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
