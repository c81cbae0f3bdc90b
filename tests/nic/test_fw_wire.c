/* The wire codec (firmware/nic/fw_wire.c, WIRE.md): header round trips and every rejection,
 * the header's own checksum, the payload trailer against the host DMA engine's sum
 * (hw/cksum.c, what the receiving NIC computes), and the PANIC view of the header. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "../../hw/cksum.h"
#include "fw_wire.h"

static struct fw_wire_hdr sample(uint32_t len) {
  return (struct fw_wire_hdr){
      .type = FW_WIRE_RDMA_WRITE, .flags = FW_WIRE_F_IMM | FW_WIRE_F_LAST, .src_node = 1,
      .dst_node = 2, .src_vi = 300, .dst_vi = 400, .seq = 0xdeadbeef, .ack = 17, .len = len,
      .imm = 0xcafef00d, .msg_off = 4096, .msg_len = 4096 + len,
      .rdma_addr = 0x7fff12345678ull, .rdma_handle = 0x55aa, .conn = 0x9e3779b9};
}

static void header_round_trip(void **state) {
  (void)state;
  uint8_t pkt[FW_WIRE_HDR_LEN];
  struct fw_wire_hdr h = sample(301), g;
  fw_wire_encode(pkt, &h);
  assert_true(fw_wire_decode(pkt, &g));
  assert_true(g.type == h.type && g.flags == h.flags && g.src_node == h.src_node &&
              g.dst_node == h.dst_node && g.src_vi == h.src_vi && g.dst_vi == h.dst_vi &&
              g.seq == h.seq && g.ack == h.ack && g.len == h.len && g.imm == h.imm &&
              g.msg_off == h.msg_off && g.msg_len == h.msg_len &&
              g.rdma_handle == h.rdma_handle && g.conn == h.conn && g.rdma_addr == h.rdma_addr);
  assert_int_equal(hw_csum_sum_of(pkt, sizeof pkt), 0xffff);  /* the header checks alone */
  for (unsigned i = 0; i < FW_WIRE_HDR_LEN; i++) {   /* any flipped bit is caught */
    pkt[i] ^= 0x10;
    assert_false(fw_wire_decode(pkt, &g));
    pkt[i] ^= 0x10;
  }
}

static void header_rejects(void **state) {
  (void)state;
  struct fw_wire_hdr h = sample(16), g;
  uint8_t pkt[FW_WIRE_HDR_LEN];
  const struct { unsigned off; uint8_t val; } bad[] = {
      {0, 2},                      /* version */
      {1, 0}, {1, FW_WIRE_TYPE_MAX + 1},   /* no such type (5..8 decode; fw_rq.c drops them) */
      {5, 0x10},                   /* unknown flag */
      {15, 1},                     /* reserved */
      {35, 1},                     /* msg_off 4097 + len 16 > msg_len 4112 */
      {32, 0xff},                  /* msg_off > msg_len */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    fw_wire_encode(pkt, &h);
    assert_true(fw_wire_decode(pkt, &g));
    pkt[bad[i].off] = bad[i].val;
    /* Re-sum so that only the field is wrong, not the checksum. */
    pkt[2] = pkt[3] = 0;
    uint16_t c = (uint16_t)~fw_wire_csum(pkt, FW_WIRE_HDR_LEN);
    pkt[2] = (uint8_t)(c >> 8);
    pkt[3] = (uint8_t)c;
    assert_false(fw_wire_decode(pkt, &g));
  }
  h.msg_off = 0xffffffffu;     /* offset arithmetic must not wrap */
  h.msg_len = 0xffffffffu;
  h.len = 1;
  fw_wire_encode(pkt, &h);
  assert_false(fw_wire_decode(pkt, &g));
}

static void trailer_against_the_engine(void **state) {
  (void)state;
  for (uint32_t len = 0; len < 70; len += 7) {   /* odd and even lengths */
    uint8_t payload[80], t[FW_WIRE_TRAILER_LEN];
    for (uint32_t i = 0; i < len; i++) payload[i] = (uint8_t)(i * 37 + len);
    uint16_t engine = hw_csum_sum_of(payload, len);
    assert_int_equal(fw_wire_csum(payload, len), engine);
    fw_wire_trailer_put(t, engine, true);
    assert_true(fw_wire_trailer_ok(t, engine));
    assert_int_equal(t[2] | t[3], 0);
    if (len) {   /* a damaged payload fails */
      payload[len / 2] ^= 4;
      assert_false(fw_wire_trailer_ok(t, hw_csum_sum_of(payload, len)));
    }
    fw_wire_trailer_put(t, engine, false);   /* a payload that could not be fetched */
    assert_false(fw_wire_trailer_ok(t, engine));
    fw_wire_trailer_put(t, engine, true);
    t[3] = 1;
    assert_false(fw_wire_trailer_ok(t, engine));
  }
  assert_int_equal(fw_wire_csum_add(0xffff, 1), 1);
  assert_int_equal(fw_wire_csum_add(0x8000, 0x8000), 1);
}

/* The datagram tail of a 301-byte payload (bytes i*7+3) from 10.0.0.1:5000 to 10.0.0.2:7000,
 * IPv4 identification 9: the bytes an independent RFC 791/768/1071 computation gives
 * (tests/fuzz/corpus/fuzz_wire/3b0fcf41..., made by a Python script); summed in two pieces
 * split at an odd offset, as two messages' DMA sums would be. */
static void udp_tail_against_rfc(void **state) {
  (void)state;
  static const uint8_t want[FW_WIRE_UDP_LEN] = {
      0x45, 0x00, 0x01, 0x49, 0x00, 0x09, 0x40, 0x00, 0x40, 0x11, 0x25, 0x99, 0x0a, 0x00,
      0x00, 0x01, 0x0a, 0x00, 0x00, 0x02, 0x13, 0x88, 0x1b, 0x58, 0x01, 0x35, 0x56, 0x59};
  uint8_t payload[301], t[FW_WIRE_UDP_LEN];
  for (unsigned i = 0; i < sizeof payload; i++) payload[i] = (uint8_t)(i * 7 + 3);
  uint16_t sum = fw_wire_csum_at(fw_wire_csum(payload, 101), fw_wire_csum(payload + 101, 200), 101);
  struct fw_wire_udp u = {.src_ip = 0x0a000001, .dst_ip = 0x0a000002, .id = 9, .sport = 5000,
                          .dport = 7000, .len = sizeof payload};
  fw_wire_udp_put(t, &u, sum);
  assert_memory_equal(t, want, sizeof want);
  struct fw_wire_udp g;
  assert_true(fw_wire_udp_get(t, &g));
  assert_true(g.len == 301 && g.sport == 5000 && g.dport == 7000 && g.id == 9 && g.csum == 0x5659);
  assert_true(fw_wire_udp_ok(&g, sum));
  payload[200] ^= 0x10;
  assert_false(fw_wire_udp_ok(&g, fw_wire_csum(payload, sizeof payload)));
  t[8] = 63;   /* TTL changed: the IPv4 header checksum fails */
  assert_false(fw_wire_udp_get(t, &g));
  t[8] = 64;
  t[6] = 0x20;   /* an IPv4 fragment (MF) is not E-UDP's */
  assert_false(fw_wire_udp_get(t, &g));
  struct fw_wire_hdr h = {.type = FW_WIRE_DATA, .dst_vi = 0, .flags = FW_WIRE_F_LAST};
  assert_int_equal(fw_wire_tail_len(&h), FW_WIRE_UDP_LEN);
  h.flags = FW_WIRE_F_FIRST;
  assert_int_equal(fw_wire_tail_len(&h), 0);
  h.flags = FW_WIRE_F_LAST, h.dst_vi = 3;
  assert_int_equal(fw_wire_tail_len(&h), 0);
}

static void panic_view_round_trip(void **state) {
  (void)state;
  const struct fw_wire_panic ks[] = {
      {.peer = 3, .kind = FW_WIRE_PANIC_MSG, .len = 12, .msg = {7, 2, 9}},
      {.peer = 4, .kind = FW_WIRE_PANIC_REQ, .len = 100,
       .req = {.prog = 5, .op = 6, .req = 0xabcdef01u, .trig = 0x12345678u, .off = 4036,
               .total = 4136}},
      {.peer = 5, .kind = FW_WIRE_PANIC_REPLY, .len = 0,
       .reply = {.result = 1, .status = 2, .req = 0xfedcba98u, .detail = 3}},
  };
  for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
    struct fw_wire_hdr h, g;
    fw_wire_panic_hdr(&ks[i], &h);
    assert_int_equal(h.type, FW_WIRE_PANIC);
    assert_int_equal(h.src_vi, 0);
    h.src_node = ks[i].peer;   /* as received from that peer */
    h.msg_len = h.len;         /* as fw_txlocal_queue sends it: one message */
    uint8_t pkt[FW_WIRE_HDR_LEN];
    fw_wire_encode(pkt, &h);
    assert_true(fw_wire_decode(pkt, &g));
    struct fw_wire_panic back;
    fw_wire_panic_view(&g, &back);
    assert_int_equal(back.peer, ks[i].peer);
    assert_int_equal(back.kind, ks[i].kind);
    assert_int_equal(back.len, ks[i].len);
    switch (back.kind) {
    case FW_WIRE_PANIC_MSG: assert_memory_equal(&back.msg, &ks[i].msg, sizeof back.msg); break;
    case FW_WIRE_PANIC_REQ: assert_memory_equal(&back.req, &ks[i].req, sizeof back.req); break;
    default: assert_memory_equal(&back.reply, &ks[i].reply, sizeof back.reply); break;
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(header_round_trip),
      cmocka_unit_test(header_rejects),
      cmocka_unit_test(trailer_against_the_engine),
      cmocka_unit_test(udp_tail_against_rfc),
      cmocka_unit_test(panic_view_round_trip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
