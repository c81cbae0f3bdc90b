/* fw_wire.h: the wire codec (firmware/nic/WIRE.md, the one description of the wire): the
 * 56-byte message header in network byte order with its own checksum, the payload trailer,
 * and the PANIC packets' view of the header. Freestanding; the firmware, nicd's tests and the
 * fuzz target (fuzz_wire) all use this code. */
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
  FW_WIRE_IP = 10,          /* an IPv4 packet for SPINE's router (fw_spine.c) */
  FW_WIRE_TYPE_MAX = 10,     /* types 5..8 (connection set-up) are nicd's, never on this wire */
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
  uint32_t conn;   /* the connection's stamp (hostif_vi.conn); 0 outside a connection */
  uint64_t rdma_addr;
};

/* After the payload: its Internet checksum (complemented, big-endian), then 2 zero bytes. */
#define FW_WIRE_TRAILER_LEN 4u

/* A datagram (WIRE.md, "Datagrams") carries its IPv4 header (RFC 791) and UDP header (RFC 768)
 * once, after the trailer of its last message: the datagram tail. With fine-grained pipelining
 * a message's first bytes leave before its payload is summed, so the UDP checksum can only go
 * out behind the last payload byte. */
#define FW_WIRE_UDP_LEN 28u

struct fw_wire_udp {
  uint32_t src_ip, dst_ip;   /* IPv4 addresses */
  uint16_t id;               /* IPv4 identification: the datagram's number at its sender */
  uint16_t sport, dport;
  uint16_t len;              /* UDP payload bytes (the UDP length field is len + 8) */
  uint16_t csum;             /* the UDP checksum field as on the wire */
};

/* PANIC packets (type FW_WIRE_PANIC) carry the PANIC VM's messages in the same header:
 * dst_vi says the kind, src_vi is 0, and the other fields mean what the kind says. This view
 * names them; fw_wire_panic_hdr and fw_wire_panic_view are the only code that knows which
 * header field carries which (the table in WIRE.md, "PANIC packets"). */
enum fw_wire_panic_kind { FW_WIRE_PANIC_MSG = 0, FW_WIRE_PANIC_REQ = 1, FW_WIRE_PANIC_REPLY = 2 };

struct fw_wire_panic {
  uint16_t peer;   /* the other node: destination when sent, source when received */
  uint16_t kind;   /* FW_WIRE_PANIC_* */
  uint32_t len;    /* payload bytes */
  union {
    struct { uint32_t prog, trig, from; } msg;                 /* to a program's trigger */
    struct { uint32_t prog, op, req, trig, off, total; } req;  /* a peer host's control request */
    struct { uint32_t result, status, req, detail; } reply;    /* the answer to request `req` */
  };
};

/* ACSL (proofs/modules.conf, module fw-wire): no access outside the 56 header bytes for any
 * input; a decoded header keeps msg_off + len within msg_len; the checksum arithmetic. */
/*@ logic integer fw_wire_csum_fold(integer s) = s > 0xffff ? s - 0xffff : s; */

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

/* Bytes after the trailer: FW_WIRE_UDP_LEN for the last message of a datagram (DATA to VI
 * 0), else 0. */
/*@ requires \valid_read(h);
    assigns \nothing;
    ensures \result == 0 || \result == FW_WIRE_UDP_LEN; */
uint32_t fw_wire_tail_len(const struct fw_wire_hdr *h);
/* Writes the datagram tail of u, with the IPv4 header checksum and the UDP checksum over the
 * pseudo-header, the UDP header and a payload whose ones'-complement sum is payload_sum (0
 * sent as 0xffff); u->csum is ignored. */
/*@ requires \valid(out + (0 .. FW_WIRE_UDP_LEN - 1)) && \valid_read(u);
    requires \separated(out + (0 .. FW_WIRE_UDP_LEN - 1), u);
    requires u->len <= 65507;
    assigns out[0 .. FW_WIRE_UDP_LEN - 1]; */
void fw_wire_udp_put(uint8_t *out, const struct fw_wire_udp *u, uint16_t payload_sum);
/* Parses and checks a datagram tail: IPv4 version 5-word header, protocol UDP, not an IP
 * fragment, header checksum, the IPv4 and UDP lengths agreeing. false if anything is wrong. */
/*@ requires \valid_read(in + (0 .. FW_WIRE_UDP_LEN - 1)) && \valid(u);
    requires \separated(in + (0 .. FW_WIRE_UDP_LEN - 1), u);
    assigns *u;
    ensures \result ==> u->len <= 65507; */
bool fw_wire_udp_get(const uint8_t *in, struct fw_wire_udp *u);
/* Whether u's UDP checksum checks against a payload whose sum is payload_sum. */
/*@ requires \valid_read(u);
    assigns \nothing; */
bool fw_wire_udp_ok(const struct fw_wire_udp *u, uint16_t payload_sum);

/* The trailer's checksum word for a payload whose sum is payload_sum; when the payload is not
 * good (it could not be fetched), a word that can never check (the sum folds to 1, not 0xffff). */
/*@ assigns \nothing; */
uint16_t fw_wire_trailer_word(uint16_t payload_sum, bool good);
/* Writes the trailer: that word big-endian, then 2 zero bytes. */
/*@ requires \valid(t + (0 .. FW_WIRE_TRAILER_LEN - 1));
    assigns t[0 .. FW_WIRE_TRAILER_LEN - 1]; */
void fw_wire_trailer_put(uint8_t *t, uint16_t payload_sum, bool good);
/* Whether the trailer at t checks against the payload's sum. */
/*@ requires \valid_read(t + (0 .. FW_WIRE_TRAILER_LEN - 1));
    assigns \nothing; */
bool fw_wire_trailer_ok(const uint8_t *t, uint16_t payload_sum);

/* The header of PANIC packet p (the caller fills src_node). */
/*@ requires \valid_read(p) && \valid(h) && \separated(p, h);
    assigns *h;
    ensures h->type == FW_WIRE_PANIC && h->dst_node == p->peer && h->dst_vi == p->kind;
    ensures h->len == p->len && h->src_vi == 0; */
void fw_wire_panic_hdr(const struct fw_wire_panic *p, struct fw_wire_hdr *h);
/* The PANIC view of a received header (peer = its source). */
/*@ requires \valid_read(h) && \valid(p) && \separated(p, h);
    assigns *p;
    ensures p->peer == h->src_node && p->kind == h->dst_vi && p->len == h->len; */
void fw_wire_panic_view(const struct fw_wire_hdr *h, struct fw_wire_panic *p);

/* Ones'-complement sum (not complemented, folded) of a byte string, big-endian words. */
/*@ requires \valid_read(p + (0 .. len - 1));
    assigns \nothing; */
uint16_t fw_wire_csum(const uint8_t *p, uint32_t len);
/* a + b with the end-around carry. */
/*@ assigns \nothing;
    ensures \result == fw_wire_csum_fold(a + b); */
uint16_t fw_wire_csum_add(uint16_t a, uint16_t b);
/* total + piece with the end-around carry, piece being the sum of bytes that start at byte
 * `offset` of the summed string (byte-swapped when odd: the host DMA engine sums a piece from
 * its own first byte). */
/*@ assigns \nothing; */
uint16_t fw_wire_csum_at(uint16_t total, uint16_t piece, uint32_t offset);

#endif
