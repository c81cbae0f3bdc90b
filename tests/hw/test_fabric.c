/* The in-memory fabric: arrival times, per-link FIFO order, source filter, counters, fault
 * injection (drop, corrupt, truncate), malformed input, routing and link-down drops, frames
 * the fabric encodes itself (send_link) into recycled packets of every size, and nodes
 * driven by threads of their own (nicd --threads). */
#include <stdlib.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
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

/* send_link queues the frame send would be given; packets recycled from small frames carry
 * large ones whole, and back. */
static void send_link_frames(void **state) {
  (void)state;
  struct fabric *f = mk(2, 0);
  struct fabric_rx rx;
  const uint32_t big = 16384;
  uint8_t *payload = malloc(big), *frame = malloc(big + HW_LINK_OVERHEAD);
  assert_non_null(payload), assert_non_null(frame);
  for (uint32_t k = 0; k < 64; k++) {
    uint32_t len = k % 3 == 0 ? big : k % 3 == 1 ? 1 : 700 + k;
    for (uint32_t i = 0; i < len; i++) payload[i] = (uint8_t)(i * 7 + k);
    struct hw_link_hdr h = {.dst = 1, .src = 0, .flags = k & 1 ? HW_LINK_EOM : 0, .len = len,
                            .frame = k};
    size_t n = hw_link_encode(frame, big + HW_LINK_OVERHEAD, &h, payload);
    assert_int_equal(fabric_send_link(f, &h, payload, k), 0);
    if (k % 4 == 3) assert_int_equal(fabric_send(f, 0, 1, frame, n, k), 0);
    for (int copies = k % 4 == 3 ? 2 : 1; copies > 0; copies--) {
      assert_int_equal(fabric_poll(f, 1, 0, 1u << 30, &rx), 1);
      assert_int_equal(rx.frame, k);
      assert_int_equal(rx.len, len);
      assert_int_equal(rx.flags, h.flags);
      assert_memory_equal(rx.payload, payload, len);
    }
  }
  struct hw_link_hdr bad = {.dst = 1, .src = 0, .flags = 0x80, .len = 4};
  assert_int_equal(fabric_send_link(f, &bad, payload, 0), -EINVAL);
  bad.flags = 0, bad.len = HW_LINK_MAX_PAYLOAD + 1;
  assert_int_equal(fabric_send_link(f, &bad, payload, 0), -EINVAL);
  bad.len = 4, bad.dst = 7;
  assert_int_equal(fabric_send_link(f, &bad, payload, 0), -EHOSTUNREACH);
  struct fabric_counters c;
  fabric_counters(f, 0, &c);
  assert_int_equal(c.drops[FAB_DROP_MALFORMED], 2);
  assert_int_equal(c.drops[FAB_DROP_NO_ROUTE], 1);
  assert_int_equal(c.tx_packets, 64 + 16);
  assert_int_equal(fabric_poll(f, 1, 0, 1u << 30, &rx), 0);
  free(payload), free(frame);
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

/* Three nodes, each on a thread of its own, each sending to both others and polling its own
 * frames: every frame arrives once, whole, in its link's order, and every arrival was told. */
#define THR_NODES 3
#define THR_FRAMES 20000u

struct thr_node {
  struct fabric *f;
  uint16_t id;
  uint32_t next_from[THR_NODES];   /* the frame number expected next from each source */
  unsigned bad;
  atomic_uint *told;               /* arrival hook calls per destination */
};

static void told(void *ctx, uint16_t dst) { atomic_fetch_add(&((atomic_uint *)ctx)[dst], 1); }

static void thr_take(struct thr_node *t) {
  struct fabric_rx rx;
  while (fabric_poll(t->f, t->id, FAB_ANY, UINT64_MAX - 1, &rx) == 1) {
    uint32_t want = t->next_from[rx.src]++;
    uint32_t len = 1 + want % 200;
    if (rx.frame != want || rx.len != len || rx.payload[0] != (uint8_t)want ||
        rx.payload[len - 1] != (uint8_t)want)
      t->bad++;
  }
}

static bool thr_all_in(const struct thr_node *t) {
  for (unsigned s = 0; s < THR_NODES; s++)
    if (s != t->id && t->next_from[s] != THR_FRAMES) return false;
  return true;
}

static void *thr_run(void *arg) {
  struct thr_node *t = arg;
  uint8_t payload[256], frame[256 + HW_LINK_OVERHEAD];
  for (uint32_t k = 0; k < THR_FRAMES; k++) {
    for (uint16_t d = 0; d < THR_NODES; d++) {
      if (d == t->id) continue;
      uint32_t len = 1 + k % 200;
      memset(payload, (uint8_t)k, len);
      struct hw_link_hdr h = {.dst = d, .src = t->id, .len = len, .frame = k};
      size_t n = hw_link_encode(frame, sizeof frame, &h, payload);
      while ((k & 1 ? fabric_send_link(t->f, &h, payload, k)
                    : fabric_send(t->f, t->id, d, frame, n, k)) == -ENOBUFS)
        thr_take(t);   /* full */
    }
    thr_take(t);
  }
  while (!thr_all_in(t)) thr_take(t);
  return NULL;
}

static void threads_per_node(void **state) {
  (void)state;
  struct fabric *f = mk(THR_NODES, 64);
  atomic_uint n_told[THR_NODES] = {0};
  memfab_set_arrival(f, told, n_told);
  struct thr_node t[THR_NODES] = {0};
  pthread_t th[THR_NODES];
  for (uint16_t i = 0; i < THR_NODES; i++) {
    t[i] = (struct thr_node){.f = f, .id = i, .told = n_told};
    assert_int_equal(pthread_create(&th[i], NULL, thr_run, &t[i]), 0);
  }
  for (unsigned i = 0; i < THR_NODES; i++) pthread_join(th[i], NULL);
  struct fabric_counters c;
  for (uint16_t i = 0; i < THR_NODES; i++) {
    assert_int_equal(t[i].bad, 0);
    assert_true(thr_all_in(&t[i]));
    assert_int_equal(atomic_load(&n_told[i]), (THR_NODES - 1) * THR_FRAMES);
    fabric_counters(f, i, &c);
    assert_int_equal(c.rx_packets, (THR_NODES - 1) * THR_FRAMES);
  }
  fabric_counters(f, FAB_ALL, &c);
  assert_int_equal(c.tx_packets, c.rx_packets);
  fabric_close(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(arrival_and_fifo), cmocka_unit_test(many_in_order),
      cmocka_unit_test(send_link_frames), cmocka_unit_test(source_filter),    cmocka_unit_test(fault_injection),
      cmocka_unit_test(malformed_input),  cmocka_unit_test(routes_and_links),
      cmocka_unit_test(threads_per_node),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
