/* fw_wire.h: the firmware's message header, in the layout of hw/wire.h (WIRE-FORMAT.md,
 * section 2): 56 bytes, network byte order. The firmware's own codec, freestanding (hw/wire.c
 * is hosted); tests check that the two agree. How the firmware uses it (checksum trailer,
 * splitting, types) is in firmware/nic/WIRE.md. */
#ifndef FW_WIRE_H
#define FW_WIRE_H

#include <stdbool.h>
#include <stdint.h>

#define FW_WIRE_VERSION 1u
#define FW_WIRE_HDR_LEN 56u

enum fw_wire_type {
  FW_WIRE_DATA = 1,
  FW_WIRE_RDMA_WRITE = 2,
  FW_WIRE_ACK = 3,          /* Reliable Delivery: the peer took every message up to `ack` */
  FW_WIRE_NACK = 4,         /* Reliable Delivery: the peer refused message `ack` (`imm`: why) */
  FW_WIRE_PANIC = 9,        /* a PANIC VM message */
  FW_WIRE_TYPE_MAX = 9,     /* types 5..8 (connection set-up) are nicd's, never on this wire */
};

#define FW_WIRE_F_IMM   0x0001u
#define FW_WIRE_F_FIRST 0x0002u
#define FW_WIRE_F_LAST  0x0004u
#define FW_WIRE_F_ACKREQ 0x0008u
#define FW_WIRE_F_ALL   0x000fu

struct fw_wire_hdr {
  uint8_t type;
  uint16_t flags;
  uint16_t src_node, dst_node, src_vi, dst_vi;
  uint32_t seq, ack, len, imm, msg_off, msg_len, rdma_handle;
  uint64_t rdma_addr;
};

/* ACSL (proofs/modules.conf, module fw-wire): no access outside the 56 header bytes for any
 * input; a decoded header keeps msg_off + len within msg_len; the checksum arithmetic. */
/*@ logic integer fw_csum_fold(integer s) = s > 0xffff ? s - 0xffff : s; */

/* Writes the 56-byte header with a checksum over the header alone (see WIRE.md). */
/*@ requires \valid(out + (0 .. FW_WIRE_HDR_LEN - 1)) && \valid_read(h);
    requires \separated(out + (0 .. FW_WIRE_HDR_LEN - 1), h);
    assigns out[0 .. FW_WIRE_HDR_LEN - 1]; */
void fw_wire_encode(uint8_t *out, const struct fw_wire_hdr *h);
/* Parses and checks a header: version, type, flags, reserved fields, msg_off + len <= msg_len,
 * and the header checksum. false if anything is wrong. */
/*@ requires \valid_read(in + (0 .. FW_WIRE_HDR_LEN - 1)) && \valid(h);
    requires \separated(in + (0 .. FW_WIRE_HDR_LEN - 1), h);
    assigns *h;
    ensures \result ==> 1 <= h->type <= FW_WIRE_TYPE_MAX;
    ensures \result ==> h->msg_off <= h->msg_len && h->msg_off + h->len <= h->msg_len; */
bool fw_wire_decode(const uint8_t *in, struct fw_wire_hdr *h);

/* Ones'-complement sum (not complemented, folded) of a byte string, big-endian words. */
/*@ requires \valid_read(p + (0 .. len - 1));
    assigns \nothing; */
uint16_t fw_csum(const uint8_t *p, uint32_t len);
/* a + b with the end-around carry. */
/*@ assigns \nothing;
    ensures \result == fw_csum_fold(a + b); */
uint16_t fw_csum_add(uint16_t a, uint16_t b);

#endif
