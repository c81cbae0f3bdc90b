/* The firmware's message header, carried at the start of a link frame's payload: type,
 * source and destination node and VI, sequence and acknowledgement numbers, payload length,
 * 32-bit immediate data, RDMA target, and an Internet checksum over header and payload.
 * 56 bytes, network byte order; layout in WIRE-FORMAT.md. */
#ifndef HW_WIRE_H
#define HW_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define HW_WIRE_VERSION     1
#define HW_WIRE_HDR_LEN     56
#define HW_WIRE_MAX_PAYLOAD (65536u - HW_WIRE_HDR_LEN)

enum hw_wire_type {
  HW_WIRE_DATA = 1,      /* send/receive data */
  HW_WIRE_RDMA_WRITE,    /* data written at rdma_addr in the region rdma_handle */
  HW_WIRE_ACK,           /* cumulative acknowledgement of seq < ack */
  HW_WIRE_NACK,          /* resend from ack (go-back-N) */
  HW_WIRE_CONN_REQ,      /* connection set-up */
  HW_WIRE_CONN_ACCEPT,
  HW_WIRE_CONN_REJECT,
  HW_WIRE_DISCONNECT,
  HW_WIRE_PANIC,         /* a PANIC VM message; dst_vi carries the trigger */
  HW_WIRE_TYPE_MAX = HW_WIRE_PANIC
};

/* Flag bits. */
#define HW_WIRE_F_IMM     0x0001u /* imm carries immediate data */
#define HW_WIRE_F_FIRST   0x0002u /* first packet of a message */
#define HW_WIRE_F_LAST    0x0004u /* last packet of a message */
#define HW_WIRE_F_ACK_REQ 0x0008u /* sender wants an ACK now */
#define HW_WIRE_F_ALL     0x000fu

struct hw_wire_hdr {
  uint8_t type;
  uint16_t flags;
  uint16_t src_node, dst_node;
  uint16_t src_vi, dst_vi;
  uint32_t seq, ack;
  uint32_t len;         /* payload bytes following the header in this packet */
  uint32_t imm;
  uint32_t msg_off;     /* offset of this payload within its message */
  uint32_t msg_len;     /* whole message length */
  uint64_t rdma_addr;   /* HW_WIRE_RDMA_WRITE: remote address of msg_off 0 */
  uint32_t rdma_handle; /* HW_WIRE_RDMA_WRITE: remote memory handle */
  uint16_t csum;        /* filled by encode, checked by verify */
};

enum hw_wire_err {
  HW_WIRE_OK = 0,
  HW_WIRE_ESHORT,    /* fewer bytes than a header */
  HW_WIRE_EVERSION,
  HW_WIRE_ETYPE,
  HW_WIRE_EFLAGS,
  HW_WIRE_ERESERVED, /* reserved field not zero */
  HW_WIRE_ELEN,      /* payload length larger than the bytes present or the maximum */
  HW_WIRE_ERANGE,    /* msg_off + len beyond msg_len */
  HW_WIRE_ECSUM,
};

/* Writes the header into out[0..HW_WIRE_HDR_LEN) with the checksum covering the header and a
 * payload whose ones'-complement sum is payload_sum (as the host DMA engine reports it).
 * Returns HW_WIRE_HDR_LEN, or 0 when cap is too small or the header is invalid. */
size_t hw_wire_encode(uint8_t *out, size_t cap, const struct hw_wire_hdr *h, uint16_t payload_sum);

/* Parses and validates the header at buf (n bytes available, payload included). Does not
 * check the checksum (the payload may not be in one piece); see hw_wire_verify. */
enum hw_wire_err hw_wire_parse(const uint8_t *buf, size_t n, struct hw_wire_hdr *h);

/* Checks the checksum of a header (first HW_WIRE_HDR_LEN bytes of hdr) and its payload. */
enum hw_wire_err hw_wire_verify(const uint8_t *hdr, uint16_t payload_sum);

const char *hw_wire_err_name(enum hw_wire_err e);
const char *hw_wire_type_name(unsigned type);

#endif
