/* libFuzzer target: arbitrary bytes through the link frame parser and the wire header parser
 * (and, for what parses, re-encoding must reproduce the same bytes). */
#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "cksum.h"
#include "link.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t out[HW_LINK_MAX_FRAME];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct hw_link_hdr lh;
  const uint8_t *payload = NULL;
  if (hw_link_parse(data, size, &lh, &payload) == HW_LINK_OK) {
    assert(payload >= data && payload + lh.len + HW_LINK_CRC_LEN == data + size);
    size_t n = hw_link_encode(out, sizeof out, &lh, payload);
    assert(n == size && memcmp(out, data, size) == 0);
    data = payload; /* the wire header rides inside the frame */
    size = lh.len;
  }
  struct hw_wire_hdr wh;
  if (hw_wire_parse(data, size, &wh) == HW_WIRE_OK) {
    assert(wh.len <= size - HW_WIRE_HDR_LEN);
    assert(wh.msg_off <= wh.msg_len && wh.len <= wh.msg_len - wh.msg_off);
    uint16_t psum = hw_csum_sum_of(data + HW_WIRE_HDR_LEN, wh.len);
    enum hw_wire_err v = hw_wire_verify(data, psum);
    assert(hw_wire_encode(out, sizeof out, &wh, psum) == HW_WIRE_HDR_LEN);
    /* A re-encoded header verifies, and equals the input when the input verified. */
    assert(hw_wire_verify(out, psum) == HW_WIRE_OK);
    if (v == HW_WIRE_OK) {
      uint8_t a[HW_WIRE_HDR_LEN], b[HW_WIRE_HDR_LEN];
      memcpy(a, data, sizeof a);
      memcpy(b, out, sizeof b);
      /* 0x0000 and 0xffff are both -0 in ones' complement arithmetic. */
      a[2] = a[3] = b[2] = b[3] = 0;
      assert(memcmp(a, b, sizeof a) == 0);
    }
  }
  return 0;
}
