/* Link frames: what the send DMA engine puts on the wire and the fabric carries. A 16-byte
 * header (destination, source, fragment flags, payload length), the payload read from SRAM,
 * and a CRC-32 trailer. Layout in WIRE-FORMAT.md. */
#ifndef HW_LINK_H
#define HW_LINK_H

#include <stddef.h>
#include <stdint.h>

#define HW_LINK_MAGIC       0x4d59u /* "MY" */
#define HW_LINK_VERSION     1
#define HW_LINK_HDR_LEN     16
#define HW_LINK_CRC_LEN     4
#define HW_LINK_OVERHEAD    (HW_LINK_HDR_LEN + HW_LINK_CRC_LEN)
#define HW_LINK_MAX_PAYLOAD 65536u
#define HW_LINK_MAX_FRAME   (HW_LINK_MAX_PAYLOAD + HW_LINK_OVERHEAD)

/* Fragment flags. A frame without EOM was sent with SML (end of buffer): the receiver
 * appends the next frame from the same source to the same message. EOM is SMLT. */
#define HW_LINK_EOM   0x01u
#define HW_LINK_FLAGS 0x01u

struct hw_link_hdr {
  uint16_t dst, src;
  uint8_t flags;
  uint32_t len;   /* payload bytes */
  uint32_t frame; /* sender's frame counter (diagnostics) */
};

enum hw_link_err {
  HW_LINK_OK = 0,
  HW_LINK_ESHORT,   /* fewer bytes than a header and trailer */
  HW_LINK_EMAGIC,   /* not a frame (magic or version) */
  HW_LINK_EFLAGS,   /* unknown flag bits */
  HW_LINK_ELEN,     /* length field disagrees with the bytes received, or too large */
  HW_LINK_ECRC,     /* trailer does not match */
};

/* Writes a frame into out (cap bytes). Returns its size, or 0 if out is too small or
 * h->len exceeds HW_LINK_MAX_PAYLOAD. */
size_t hw_link_encode(uint8_t *out, size_t cap, const struct hw_link_hdr *h, const void *payload);

/* Checks a received frame of n bytes completely; on success fills h and points *payload at
 * the payload inside buf. */
enum hw_link_err hw_link_parse(const uint8_t *buf, size_t n, struct hw_link_hdr *h,
                               const uint8_t **payload);
/* The same, and the payload's first min(len, cap) bytes are copied to dst (unless NULL) in the
 * pass that checks the CRC, as a receive engine moves a frame into SRAM while it checks it. A
 * frame that fails its CRC may have left bytes at dst. */
enum hw_link_err hw_link_parse_copy(const uint8_t *buf, size_t n, struct hw_link_hdr *h,
                                    const uint8_t **payload, void *dst, size_t cap);

const char *hw_link_err_name(enum hw_link_err e);

#endif
