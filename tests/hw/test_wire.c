/* Link frames (hw/link.c): round trips, every rejection, CRC checks. The message header
 * inside them is the firmware's codec, tested in tests/nic/test_fw_wire.c. */
#include <string.h>

#include "../../hw/link.h"
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

/* Parsing with a copy: the payload's first min(len, cap) bytes land at dst, nothing after
 * them; a damaged payload is still caught (wherever the damage, inside or past the copied
 * part) and the frame refused. */
static void link_parse_copy(void **state) {
  (void)state;
  static uint8_t dst[HW_LINK_MAX_PAYLOAD + 8];
  struct hw_link_hdr h;
  const uint8_t *p;
  uint32_t lens[] = {0, 1, 63, 64, 300, 4096, 33732, HW_LINK_MAX_PAYLOAD};
  size_t caps[] = {0, 1, 17, 256, 4096, HW_LINK_MAX_PAYLOAD};
  for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
    for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
      size_t n = make_frame(lens[i], 0), m = lens[i] < caps[k] ? lens[i] : caps[k];
      memset(dst, 0x5a, sizeof dst);
      assert_int_equal(hw_link_parse_copy(frame, n, &h, &p, dst, caps[k]), HW_LINK_OK);
      assert_int_equal(h.len, lens[i]);
      assert_memory_equal(dst, frame + HW_LINK_HDR_LEN, m);
      assert_int_equal(dst[m], 0x5a);
      if (!lens[i]) continue;
      for (size_t at = 0; at < lens[i]; at += lens[i] / 3 + 1) {
        frame[HW_LINK_HDR_LEN + at] ^= 0x10;
        assert_int_equal(hw_link_parse_copy(frame, n, &h, &p, dst, caps[k]), HW_LINK_ECRC);
        frame[HW_LINK_HDR_LEN + at] ^= 0x10;
      }
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(link_round_trip), cmocka_unit_test(link_encode_limits),
      cmocka_unit_test(link_rejects),
      cmocka_unit_test(link_parse_copy),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
