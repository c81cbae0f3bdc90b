/* libFuzzer target: arbitrary bytes through the link frame parser (hw/link.c) and, inside a
 * frame or on their own, the wire codec nicd's firmware runs (fw_wire_decode, the payload
 * trailer check, a datagram's IPv4/UDP tail, the PANIC view). What decodes must re-encode to
 * the same header bytes, and a tail to the same fields. The parser that copies as it checks
 * (the receive engine's) must give the same verdict and copy the payload's first bytes. */
#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "fw_wire.h"
#include "link.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t out[HW_LINK_MAX_FRAME], copy[HW_LINK_MAX_PAYLOAD];

/* A datagram tail that decodes re-encodes to the same fields, and what put writes checks
 * against the payload sum it was given. */
static void check_tail(const uint8_t *t, uint16_t payload_sum) {
  struct fw_wire_udp u, v;
  if (!fw_wire_udp_get(t, &u)) return;
  assert(u.len <= 65507);
  uint8_t again[FW_WIRE_UDP_LEN];
  fw_wire_udp_put(again, &u, payload_sum);
  assert(fw_wire_udp_get(again, &v));
  assert(v.src_ip == u.src_ip && v.dst_ip == u.dst_ip && v.id == u.id && v.sport == u.sport &&
         v.dport == u.dport && v.len == u.len);
  assert(fw_wire_udp_ok(&v, payload_sum));
  assert(!fw_wire_udp_ok(&v, payload_sum ^ 1u));   /* off by one: never checks */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct hw_link_hdr lh;
  const uint8_t *payload = NULL;
  enum hw_link_err e = hw_link_parse(data, size, &lh, &payload);
  size_t cap = size % 3 == 0 ? sizeof copy : size / 2;  /* a receive buffer of either size */
  struct hw_link_hdr ch;
  const uint8_t *cp = NULL;
  assert(hw_link_parse_copy(data, size, &ch, &cp, copy, cap) == e);   /* the same verdict */
  if (e == HW_LINK_OK) {
    assert(payload >= data && payload + lh.len + HW_LINK_CRC_LEN == data + size);
    assert(cp == payload && ch.len == lh.len);
    assert(memcmp(copy, payload, lh.len < cap ? lh.len : cap) == 0);
    size_t n = hw_link_encode(out, sizeof out, &lh, payload);
    assert(n == size && memcmp(out, data, size) == 0);
    data = payload; /* the message rides inside the frame */
    size = lh.len;
  }
  struct fw_wire_hdr h;
  if (size < FW_WIRE_HDR_LEN || !fw_wire_decode(data, &h)) return 0;
  assert(h.type >= 1 && h.type <= FW_WIRE_TYPE_MAX && !(h.flags & ~FW_WIRE_F_ALL));
  assert(h.msg_off <= h.msg_len && h.len <= h.msg_len - h.msg_off);
  uint8_t again[FW_WIRE_HDR_LEN];
  fw_wire_encode(again, &h);
  uint8_t a[FW_WIRE_HDR_LEN];
  memcpy(a, data, sizeof a);
  a[2] = a[3] = again[2] = again[3] = 0;   /* 0x0000 and 0xffff are both -0 */
  assert(memcmp(a, again, sizeof a) == 0);
  if (h.len <= size - FW_WIRE_HDR_LEN && FW_WIRE_TRAILER_LEN <= size - FW_WIRE_HDR_LEN - h.len) {
    const uint8_t *p = data + FW_WIRE_HDR_LEN;
    uint16_t sum = fw_wire_csum(p, h.len);
    if (fw_wire_trailer_ok(p + h.len, sum)) {   /* a good trailer is one put would write */
      uint8_t t[FW_WIRE_TRAILER_LEN];
      fw_wire_trailer_put(t, sum, true);
      assert(fw_wire_trailer_ok(t, sum));
      fw_wire_trailer_put(t, sum, false);
      assert(!fw_wire_trailer_ok(t, sum));
    }
  }
  size_t tail = FW_WIRE_HDR_LEN + (size_t)h.len + FW_WIRE_TRAILER_LEN;
  if (fw_wire_tail_len(&h) && h.len <= size && tail + FW_WIRE_UDP_LEN <= size)
    check_tail(data + tail, fw_wire_csum(data + FW_WIRE_HDR_LEN, h.len));
  if (h.type == FW_WIRE_PANIC) {   /* the view keeps what the header says */
    struct fw_wire_panic k;
    struct fw_wire_hdr back;
    fw_wire_panic_view(&h, &k);
    fw_wire_panic_hdr(&k, &back);
    assert(back.dst_vi == h.dst_vi && back.len == h.len && k.peer == h.src_node);
    if (h.dst_vi <= FW_WIRE_PANIC_REPLY) assert(back.rdma_handle == h.rdma_handle && back.imm == h.imm);
  }
  return 0;
}
