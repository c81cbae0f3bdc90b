/* Wire header encoder, parser and checksum check. */
#include "wire.h"

#include "be.h"
#include "cksum.h"

/* Byte offsets; the table in WIRE-FORMAT.md is the same. */
enum {
  O_VERSION = 0, O_TYPE = 1, O_CSUM = 2, O_FLAGS = 4, O_SRC_NODE = 6, O_DST_NODE = 8,
  O_SRC_VI = 10, O_DST_VI = 12, O_RSVD0 = 14, O_SEQ = 16, O_ACK = 20, O_LEN = 24, O_IMM = 28,
  O_MSG_OFF = 32, O_MSG_LEN = 36, O_HANDLE = 40, O_RSVD1 = 44, O_RDMA_ADDR = 48
};
_Static_assert(O_RDMA_ADDR + 8 == HW_WIRE_HDR_LEN, "wire header layout");

static enum hw_wire_err check(const struct hw_wire_hdr *h) {
  if (h->type < HW_WIRE_DATA || h->type > HW_WIRE_TYPE_MAX) return HW_WIRE_ETYPE;
  if (h->flags & ~HW_WIRE_F_ALL) return HW_WIRE_EFLAGS;
  if (h->len > HW_WIRE_MAX_PAYLOAD) return HW_WIRE_ELEN;
  if (h->msg_off > h->msg_len || h->len > h->msg_len - h->msg_off) return HW_WIRE_ERANGE;
  return HW_WIRE_OK;
}

size_t hw_wire_encode(uint8_t *out, size_t cap, const struct hw_wire_hdr *h, uint16_t payload_sum) {
  if (cap < HW_WIRE_HDR_LEN || check(h) != HW_WIRE_OK) return 0;
  out[O_VERSION] = HW_WIRE_VERSION;
  out[O_TYPE] = h->type;
  hw_st16(out + O_CSUM, 0);
  hw_st16(out + O_FLAGS, h->flags);
  hw_st16(out + O_SRC_NODE, h->src_node);
  hw_st16(out + O_DST_NODE, h->dst_node);
  hw_st16(out + O_SRC_VI, h->src_vi);
  hw_st16(out + O_DST_VI, h->dst_vi);
  hw_st16(out + O_RSVD0, 0);
  hw_st32(out + O_SEQ, h->seq);
  hw_st32(out + O_ACK, h->ack);
  hw_st32(out + O_LEN, h->len);
  hw_st32(out + O_IMM, h->imm);
  hw_st32(out + O_MSG_OFF, h->msg_off);
  hw_st32(out + O_MSG_LEN, h->msg_len);
  hw_st32(out + O_HANDLE, h->rdma_handle);
  hw_st32(out + O_RSVD1, 0);
  hw_st64(out + O_RDMA_ADDR, h->rdma_addr);
  /* The header length is even, so the payload's sum adds on directly. */
  uint16_t sum = hw_csum_add(hw_csum_sum_of(out, HW_WIRE_HDR_LEN), payload_sum);
  hw_st16(out + O_CSUM, (uint16_t)~sum);
  return HW_WIRE_HDR_LEN;
}

enum hw_wire_err hw_wire_parse(const uint8_t *buf, size_t n, struct hw_wire_hdr *h) {
  if (n < HW_WIRE_HDR_LEN) return HW_WIRE_ESHORT;
  if (buf[O_VERSION] != HW_WIRE_VERSION) return HW_WIRE_EVERSION;
  if (hw_ld16(buf + O_RSVD0) || hw_ld32(buf + O_RSVD1)) return HW_WIRE_ERESERVED;
  h->type = buf[O_TYPE];
  h->csum = hw_ld16(buf + O_CSUM);
  h->flags = hw_ld16(buf + O_FLAGS);
  h->src_node = hw_ld16(buf + O_SRC_NODE);
  h->dst_node = hw_ld16(buf + O_DST_NODE);
  h->src_vi = hw_ld16(buf + O_SRC_VI);
  h->dst_vi = hw_ld16(buf + O_DST_VI);
  h->seq = hw_ld32(buf + O_SEQ);
  h->ack = hw_ld32(buf + O_ACK);
  h->len = hw_ld32(buf + O_LEN);
  h->imm = hw_ld32(buf + O_IMM);
  h->msg_off = hw_ld32(buf + O_MSG_OFF);
  h->msg_len = hw_ld32(buf + O_MSG_LEN);
  h->rdma_handle = hw_ld32(buf + O_HANDLE);
  h->rdma_addr = hw_ld64(buf + O_RDMA_ADDR);
  enum hw_wire_err e = check(h);
  if (e != HW_WIRE_OK) return e;
  if (h->len > n - HW_WIRE_HDR_LEN) return HW_WIRE_ELEN;
  return HW_WIRE_OK;
}

enum hw_wire_err hw_wire_verify(const uint8_t *hdr, uint16_t payload_sum) {
  uint16_t sum = hw_csum_add(hw_csum_sum_of(hdr, HW_WIRE_HDR_LEN), payload_sum);
  /* With the complemented checksum included, a correct packet sums to 0xffff (-0). */
  return sum == 0xffff ? HW_WIRE_OK : HW_WIRE_ECSUM;
}

const char *hw_wire_err_name(enum hw_wire_err e) {
  switch (e) {
  case HW_WIRE_OK: return "ok";
  case HW_WIRE_ESHORT: return "short";
  case HW_WIRE_EVERSION: return "version";
  case HW_WIRE_ETYPE: return "type";
  case HW_WIRE_EFLAGS: return "flags";
  case HW_WIRE_ERESERVED: return "reserved";
  case HW_WIRE_ELEN: return "length";
  case HW_WIRE_ERANGE: return "range";
  case HW_WIRE_ECSUM: return "checksum";
  }
  return "?";
}

const char *hw_wire_type_name(unsigned type) {
  static const char *const names[] = {"?",         "DATA",        "RDMA_WRITE",
                                      "ACK",       "NACK",        "CONN_REQ",
                                      "CONN_ACCEPT", "CONN_REJECT", "DISCONNECT", "PANIC"};
  return type <= HW_WIRE_TYPE_MAX ? names[type] : "?";
}
