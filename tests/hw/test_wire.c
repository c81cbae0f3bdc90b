/* Link frame and wire header: round trips, every rejection, checksum checks. */
#include <string.h>

#include "../../hw/cksum.h"
#include "../../hw/link.h"
#include "../../hw/wire.h"
#include "hwtest.h"

static uint8_t frame[HW_LINK_MAX_FRAME + 16];

static size_t make_frame(uint32_t len, uint8_t flags) {
  static uint8_t payload[HW_LINK_MAX_PAYLOAD];
  t_fill(payload, len, len);
  struct hw_link_hdr h = {.dst = 3, .src = 9, .flags = flags, .len = len, .frame = 77};
  return hw_link_encode(frame, sizeof frame, &h, payload);
}

static void link_round_trip(void **state) {
  (void)state;
  uint32_t lens[] = {0, 1, 2, 1000, HW_LINK_MAX_PAYLOAD};
  for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
    size_t n = make_frame(lens[i], HW_LINK_EOM);
    assert_int_equal(n, lens[i] + HW_LINK_OVERHEAD);
    struct hw_link_hdr h;
    const uint8_t *p;
    assert_int_equal(hw_link_parse(frame, n, &h, &p), HW_LINK_OK);
    assert_int_equal(h.dst, 3);
    assert_int_equal(h.src, 9);
    assert_int_equal(h.flags, HW_LINK_EOM);
    assert_int_equal(h.len, lens[i]);
    assert_int_equal(h.frame, 77);
    assert_ptr_equal(p, frame + HW_LINK_HDR_LEN);
  }
}

static void link_encode_limits(void **state) {
  (void)state;
  struct hw_link_hdr h = {.len = HW_LINK_MAX_PAYLOAD + 1};
  assert_int_equal(hw_link_encode(frame, sizeof frame, &h, frame), 0);
  h.len = 10;
  assert_int_equal(hw_link_encode(frame, 10 + HW_LINK_OVERHEAD - 1, &h, frame), 0);
  h.flags = 0x80;
  assert_int_equal(hw_link_encode(frame, sizeof frame, &h, frame), 0);
}

static void link_rejects(void **state) {
  (void)state;
  struct hw_link_hdr h;
  const uint8_t *p;
  size_t n = make_frame(100, 0);
  assert_int_equal(hw_link_parse(frame, HW_LINK_OVERHEAD - 1, &h, &p), HW_LINK_ESHORT);
  assert_int_equal(hw_link_parse(frame, n - 1, &h, &p), HW_LINK_ELEN); /* truncated */
  for (size_t cut = HW_LINK_OVERHEAD; cut < n; cut += 7)
    assert_int_not_equal(hw_link_parse(frame, cut, &h, &p), HW_LINK_OK);
  /* Every single-bit error anywhere is caught. */
  for (size_t i = 0; i < n; i++)
    for (int b = 0; b < 8; b++) {
      frame[i] ^= (uint8_t)(1u << b);
      assert_int_not_equal(hw_link_parse(frame, n, &h, &p), HW_LINK_OK);
      frame[i] ^= (uint8_t)(1u << b);
    }
  frame[HW_LINK_HDR_LEN + 5] ^= 1;
  assert_int_equal(hw_link_parse(frame, n, &h, &p), HW_LINK_ECRC);
  frame[HW_LINK_HDR_LEN + 5] ^= 1;
  frame[0] ^= 1;
  assert_int_equal(hw_link_parse(frame, n, &h, &p), HW_LINK_EMAGIC);
  frame[0] ^= 1;
  frame[2] = 2;
  assert_int_equal(hw_link_parse(frame, n, &h, &p), HW_LINK_EMAGIC);
  frame[2] = HW_LINK_VERSION;
  frame[3] = 0x40;
  assert_int_equal(hw_link_parse(frame, n, &h, &p), HW_LINK_EFLAGS);
  frame[3] = 0;
  frame[8] = 0xff; /* length field huge */
  assert_int_equal(hw_link_parse(frame, n, &h, &p), HW_LINK_ELEN);
  frame[8] = 0;
  assert_int_equal(hw_link_parse(frame, n, &h, &p), HW_LINK_OK);
  assert_string_equal(hw_link_err_name(HW_LINK_ECRC), "crc");
}

static struct hw_wire_hdr sample(uint32_t len) {
  struct hw_wire_hdr h = {
      .type = HW_WIRE_RDMA_WRITE, .flags = HW_WIRE_F_IMM | HW_WIRE_F_LAST,
      .src_node = 1, .dst_node = 2, .src_vi = 300, .dst_vi = 400, .seq = 0xdeadbeef,
      .ack = 17, .len = len, .imm = 0xcafef00d, .msg_off = 4096, .msg_len = 4096 + len,
      .rdma_addr = 0x7fff12345678ull, .rdma_handle = 0x55aa,
  };
  return h;
}

static void wire_round_trip(void **state) {
  (void)state;
  uint8_t pkt[HW_WIRE_HDR_LEN + 301];
  t_fill(pkt + HW_WIRE_HDR_LEN, 301, 5);
  struct hw_wire_hdr h = sample(301), g;
  uint16_t psum = hw_csum_sum_of(pkt + HW_WIRE_HDR_LEN, 301);
  assert_int_equal(hw_wire_encode(pkt, sizeof pkt, &h, psum), HW_WIRE_HDR_LEN);
  assert_int_equal(hw_wire_parse(pkt, sizeof pkt, &g), HW_WIRE_OK);
  assert_int_equal(g.type, h.type);
  assert_int_equal(g.flags, h.flags);
  assert_int_equal(g.src_node, 1);
  assert_int_equal(g.dst_node, 2);
  assert_int_equal(g.src_vi, 300);
  assert_int_equal(g.dst_vi, 400);
  assert_int_equal(g.seq, 0xdeadbeef);
  assert_int_equal(g.ack, 17);
  assert_int_equal(g.len, 301);
  assert_int_equal(g.imm, 0xcafef00d);
  assert_int_equal(g.msg_off, 4096);
  assert_int_equal(g.msg_len, 4397);
  assert_true(g.rdma_addr == 0x7fff12345678ull);
  assert_int_equal(g.rdma_handle, 0x55aa);
  assert_int_equal(hw_wire_verify(pkt, psum), HW_WIRE_OK);
  /* The checksum over the whole packet, as a receiver's DMA engine would compute it. */
  assert_int_equal(hw_csum_sum_of(pkt, sizeof pkt), 0xffff);
  pkt[HW_WIRE_HDR_LEN + 10] ^= 0x40;
  assert_int_equal(hw_wire_verify(pkt, hw_csum_sum_of(pkt + HW_WIRE_HDR_LEN, 301)),
                   HW_WIRE_ECSUM);
  pkt[20] ^= 1; /* header corruption */
  assert_int_equal(hw_wire_verify(pkt, psum), HW_WIRE_ECSUM);
  assert_string_equal(hw_wire_type_name(HW_WIRE_ACK), "ACK");
  assert_string_equal(hw_wire_type_name(99), "?");
}

static void wire_rejects(void **state) {
  (void)state;
  uint8_t pkt[HW_WIRE_HDR_LEN + 16] = {0};
  struct hw_wire_hdr h = sample(16), g;
  h.msg_off = 0;
  h.msg_len = 16;
  assert_int_equal(hw_wire_encode(pkt, sizeof pkt, &h, 0), HW_WIRE_HDR_LEN);
  assert_int_equal(hw_wire_parse(pkt, sizeof pkt, &g), HW_WIRE_OK);
  assert_int_equal(hw_wire_parse(pkt, HW_WIRE_HDR_LEN - 1, &g), HW_WIRE_ESHORT);
  assert_int_equal(hw_wire_parse(pkt, HW_WIRE_HDR_LEN + 15, &g), HW_WIRE_ELEN);
  uint8_t bad[sizeof pkt];
#define MUTATE(off, val, err)                                                                  \
  do {                                                                                         \
    memcpy(bad, pkt, sizeof pkt);                                                              \
    bad[off] = (val);                                                                          \
    assert_int_equal(hw_wire_parse(bad, sizeof bad, &g), (err));                               \
  } while (0)
  MUTATE(0, 2, HW_WIRE_EVERSION);
  MUTATE(1, 0, HW_WIRE_ETYPE);
  MUTATE(1, HW_WIRE_TYPE_MAX + 1, HW_WIRE_ETYPE);
  MUTATE(4, 0x80, HW_WIRE_EFLAGS);
  MUTATE(15, 1, HW_WIRE_ERESERVED);
  MUTATE(47, 1, HW_WIRE_ERESERVED);
  MUTATE(24, 0xff, HW_WIRE_ELEN);          /* len beyond the maximum */
  MUTATE(35, 1, HW_WIRE_ERANGE);           /* msg_off 1 + len 16 > msg_len 16 */
  MUTATE(32, 0xff, HW_WIRE_ERANGE);        /* msg_off > msg_len */
  /* The encoder refuses what the parser would refuse. */
  h.type = 0;
  assert_int_equal(hw_wire_encode(pkt, sizeof pkt, &h, 0), 0);
  h = sample(16);
  h.flags = 0x100;
  assert_int_equal(hw_wire_encode(pkt, sizeof pkt, &h, 0), 0);
  h = sample(16);
  h.msg_len = 10;
  h.msg_off = 0;
  assert_int_equal(hw_wire_encode(pkt, sizeof pkt, &h, 0), 0);
  h = sample(HW_WIRE_MAX_PAYLOAD + 1);
  assert_int_equal(hw_wire_encode(pkt, sizeof pkt, &h, 0), 0);
  h = sample(0);
  assert_int_equal(hw_wire_encode(pkt, HW_WIRE_HDR_LEN - 1, &h, 0), 0);
  h.msg_off = 0xffffffffu; /* offset arithmetic must not wrap */
  h.msg_len = 0xffffffffu;
  h.len = 1;
  assert_int_equal(hw_wire_encode(pkt, sizeof pkt, &h, 0), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(link_round_trip), cmocka_unit_test(link_encode_limits),
      cmocka_unit_test(link_rejects),    cmocka_unit_test(wire_round_trip),
      cmocka_unit_test(wire_rejects),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
