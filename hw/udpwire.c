/* The UDP transport's datagram header and the receiver's checks of a whole datagram. */
#include "udpwire.h"

#include "be.h"
#include "crc32.h"

void udpwire_put(uint8_t *out, const struct udpwire_hdr *h) {
  hw_st16(out, UDPWIRE_MAGIC);
  out[2] = UDPWIRE_VERSION;
  out[3] = 0;
  hw_st16(out + 4, h->src);
  hw_st16(out + 6, h->dst);
  hw_st32(out + 8, h->len);
  hw_st32(out + 12, h->epoch);
  hw_st32(out + 16, hw_crc32(0, out, 16));
}

enum udpwire_verdict udpwire_check(const uint8_t *buf, size_t n, const struct udpwire_nodes *nodes,
                                   struct udpwire_rx *rx) {
  if (n < UDPWIRE_HDR_LEN + HW_LINK_OVERHEAD) return UDPWIRE_V_SHORT;
  if (hw_ld16(buf) != UDPWIRE_MAGIC || buf[2] != UDPWIRE_VERSION || buf[3] != 0)
    return UDPWIRE_V_VERSION;
  if (hw_ld32(buf + 16) != hw_crc32(0, buf, 16)) return UDPWIRE_V_HDR_CRC;
  struct udpwire_hdr h = {.src = hw_ld16(buf + 4), .dst = hw_ld16(buf + 6),
                          .len = hw_ld32(buf + 8), .epoch = hw_ld32(buf + 12)};
  if (h.len != n - UDPWIRE_HDR_LEN) return UDPWIRE_V_LENGTH;
  if (h.src >= nodes->nodes || h.dst >= nodes->nodes || !nodes->local(nodes->ctx, h.dst))
    return UDPWIRE_V_NODE;
  struct hw_link_hdr l;
  const uint8_t *payload;
  switch (hw_link_parse(buf + UDPWIRE_HDR_LEN, h.len, &l, &payload)) {
  case HW_LINK_OK: break;
  case HW_LINK_ELEN: return UDPWIRE_V_FRAME_LEN;
  case HW_LINK_ECRC: return UDPWIRE_V_CRC;
  default: return UDPWIRE_V_FRAME;
  }
  if (l.src != h.src || l.dst != h.dst) return UDPWIRE_V_NODE;
  rx->hdr = h;
  rx->link = l;
  rx->frame = buf + UDPWIRE_HDR_LEN;
  rx->payload = payload;
  return UDPWIRE_V_OK;
}

const char *udpwire_verdict_name(enum udpwire_verdict v) {
  switch (v) {
  case UDPWIRE_V_OK: return "ok";
  case UDPWIRE_V_SHORT: return "short";
  case UDPWIRE_V_VERSION: return "version";
  case UDPWIRE_V_HDR_CRC: return "header-crc";
  case UDPWIRE_V_LENGTH: return "length";
  case UDPWIRE_V_NODE: return "wrong-node";
  case UDPWIRE_V_FRAME: return "frame";
  case UDPWIRE_V_FRAME_LEN: return "frame-length";
  case UDPWIRE_V_CRC: return "crc";
  case UDPWIRE_V_NVERDICTS: break;
  }
  return "?";
}
