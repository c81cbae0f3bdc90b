/* Link frame encoder and parser. */
#include "link.h"

#include "be.h"
#include "crc32.h"

size_t hw_link_encode(uint8_t *out, size_t cap, const struct hw_link_hdr *h, const void *payload) {
  if (h->len > HW_LINK_MAX_PAYLOAD || (h->flags & ~HW_LINK_FLAGS)) return 0;
  size_t total = (size_t)h->len + HW_LINK_OVERHEAD;
  if (cap < total) return 0;
  hw_st16(out, HW_LINK_MAGIC);
  out[2] = HW_LINK_VERSION;
  out[3] = h->flags;
  hw_st16(out + 4, h->dst);
  hw_st16(out + 6, h->src);
  hw_st32(out + 8, h->len);
  hw_st32(out + 12, h->frame);
  uint32_t crc = hw_crc32(0, out, HW_LINK_HDR_LEN);
  if (h->len) crc = hw_crc32_copy(crc, out + HW_LINK_HDR_LEN, payload, h->len);
  hw_st32(out + HW_LINK_HDR_LEN + h->len, crc);
  return total;
}

/* The CRC of a frame's header and len payload bytes, the first m of them copied to dst. */
static uint32_t frame_crc(const uint8_t *buf, uint32_t len, void *dst, size_t m) {
  uint32_t crc = hw_crc32(0, buf, HW_LINK_HDR_LEN);
  if (m) crc = hw_crc32_copy(crc, dst, buf + HW_LINK_HDR_LEN, m);
  return hw_crc32(crc, buf + HW_LINK_HDR_LEN + m, len - m);
}

enum hw_link_err hw_link_parse(const uint8_t *buf, size_t n, struct hw_link_hdr *h,
                               const uint8_t **payload) {
  return hw_link_parse_copy(buf, n, h, payload, NULL, 0);
}

enum hw_link_err hw_link_parse_copy(const uint8_t *buf, size_t n, struct hw_link_hdr *h,
                                    const uint8_t **payload, void *dst, size_t cap) {
  if (n < HW_LINK_OVERHEAD) return HW_LINK_ESHORT;
  if (hw_ld16(buf) != HW_LINK_MAGIC || buf[2] != HW_LINK_VERSION) return HW_LINK_EMAGIC;
  if (buf[3] & ~HW_LINK_FLAGS) return HW_LINK_EFLAGS;
  uint32_t len = hw_ld32(buf + 8);
  if (len > HW_LINK_MAX_PAYLOAD || (size_t)len != n - HW_LINK_OVERHEAD) return HW_LINK_ELEN;
  size_t m = dst ? (len < cap ? len : cap) : 0;
  if (hw_ld32(buf + HW_LINK_HDR_LEN + len) != frame_crc(buf, len, dst, m)) return HW_LINK_ECRC;
  h->flags = buf[3];
  h->dst = hw_ld16(buf + 4);
  h->src = hw_ld16(buf + 6);
  h->len = len;
  h->frame = hw_ld32(buf + 12);
  *payload = buf + HW_LINK_HDR_LEN;
  return HW_LINK_OK;
}

const char *hw_link_err_name(enum hw_link_err e) {
  switch (e) {
  case HW_LINK_OK: return "ok";
  case HW_LINK_ESHORT: return "short";
  case HW_LINK_EMAGIC: return "magic";
  case HW_LINK_EFLAGS: return "flags";
  case HW_LINK_ELEN: return "length";
  case HW_LINK_ECRC: return "crc";
  }
  return "?";
}
