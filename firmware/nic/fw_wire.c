/* fw_wire.c: the wire codec (WIRE.md): the message header, the payload trailer, the datagram
 * tail (IPv4 + UDP headers), the PANIC view of the header, and the Internet checksum
 * arithmetic. Freestanding. */
#include "fw_wire.h"

/*@ requires \valid(p + (0 .. 1));
    assigns p[0 .. 1]; */
static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
/*@ requires \valid(p + (0 .. 3));
    assigns p[0 .. 3]; */
static void put32(uint8_t *p, uint32_t v) {
  put16(p, (uint16_t)(v >> 16));
  put16(p + 2, (uint16_t)v);
}
/*@ requires \valid_read(p + (0 .. 1));
    assigns \nothing; */
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] * 256u + p[1]); }
/*@ requires \valid_read(p + (0 .. 3));
    assigns \nothing; */
static uint32_t get32(const uint8_t *p) { return get16(p) * 65536u + get16(p + 2); }

uint16_t fw_wire_csum_add(uint16_t a, uint16_t b) {
  uint32_t s = (uint32_t)a + b;
  //@ assert s == a + b && s <= 0x1fffe;
  return (uint16_t)(s > 0xffffu ? s - 0xffffu : s); /* the end-around carry */
}

uint16_t fw_wire_csum(const uint8_t *p, uint32_t len) {
  uint32_t s = 0;
  uint32_t i = 0;
  /*@ loop invariant 0 <= i <= len && i % 2 == 0 && s <= 0x7fffffff;
      loop assigns i, s;
      loop variant len - i; */
  for (; i + 1 < len; i += 2) {
    s += p[i] * 256u + p[i + 1];
    if (s >= 0x80000000u) s = s % 0x10000u + s / 0x10000u; /* fold before bit 31 overflows */
  }
  if (i < len) s += p[i] * 256u;
  /*@ loop invariant s <= 0x8000ff00;
      loop assigns s;
      loop variant s; */
  while (s > 0xffffu) s = s % 0x10000u + s / 0x10000u;
  return (uint16_t)s;
}

uint16_t fw_wire_csum_at(uint16_t total, uint16_t piece, uint32_t offset) {
  if (offset % 2u) piece = (uint16_t)(piece % 256u * 256u + piece / 256u); /* byte swap */
  return fw_wire_csum_add(total, piece);
}

void fw_wire_encode(uint8_t *o, const struct fw_wire_hdr *h) {
  /*@ loop invariant 0 <= i <= FW_WIRE_HDR_LEN;
      loop assigns i, o[0 .. FW_WIRE_HDR_LEN - 1];
      loop variant FW_WIRE_HDR_LEN - i; */
  for (unsigned i = 0; i < FW_WIRE_HDR_LEN; i++) o[i] = 0;
  o[0] = FW_WIRE_VERSION;
  o[1] = h->type;
  put16(o + 4, h->flags);
  put16(o + 6, h->src_node);
  put16(o + 8, h->dst_node);
  put16(o + 10, h->src_vi);
  put16(o + 12, h->dst_vi);
  put32(o + 16, h->seq);
  put32(o + 20, h->ack);
  put32(o + 24, h->len);
  put32(o + 28, h->imm);
  put32(o + 32, h->msg_off);
  put32(o + 36, h->msg_len);
  put32(o + 40, h->rdma_handle);
  put32(o + 44, h->conn);
  put32(o + 48, (uint32_t)(h->rdma_addr >> 32));
  put32(o + 52, (uint32_t)h->rdma_addr);
  put16(o + 2, (uint16_t)~fw_wire_csum(o, FW_WIRE_HDR_LEN));
}

bool fw_wire_decode(const uint8_t *in, struct fw_wire_hdr *h) {
  if (in[0] != FW_WIRE_VERSION) return false;
  if (in[1] < 1 || in[1] > FW_WIRE_TYPE_MAX) return false;
  if (get16(in + 4) & ~FW_WIRE_F_ALL) return false;
  if (get16(in + 14) != 0) return false;
  if (fw_wire_csum(in, FW_WIRE_HDR_LEN) != 0xffffu) return false;
  h->type = in[1];
  h->flags = get16(in + 4);
  h->src_node = get16(in + 6);
  h->dst_node = get16(in + 8);
  h->src_vi = get16(in + 10);
  h->dst_vi = get16(in + 12);
  h->seq = get32(in + 16);
  h->ack = get32(in + 20);
  h->len = get32(in + 24);
  h->imm = get32(in + 28);
  h->msg_off = get32(in + 32);
  h->msg_len = get32(in + 36);
  h->rdma_handle = get32(in + 40);
  h->conn = get32(in + 44);
  h->rdma_addr = (uint64_t)get32(in + 48) * 0x100000000u + get32(in + 52);
  if (h->msg_off > h->msg_len || h->len > h->msg_len - h->msg_off) return false;
  return true;
}

uint32_t fw_wire_tail_len(const struct fw_wire_hdr *h) {
  bool dgram = h->type == FW_WIRE_DATA && h->dst_vi == 0 && (h->flags & FW_WIRE_F_LAST);
  return dgram ? FW_WIRE_UDP_LEN : 0u;
}

#define IP_DF 0x4000u      /* don't fragment: E-UDP's fragments are wire messages, not IP's */
#define IP_PROTO_UDP 17u
#define IP_TTL 64u

/* The UDP checksum's sum before complementing: pseudo-header (addresses, protocol, UDP
 * length), UDP header with the checksum field `csum`, payload. */
/*@ requires \valid_read(u);
    assigns \nothing; */
static uint16_t udp_sum(const struct fw_wire_udp *u, uint16_t csum, uint16_t payload_sum) {
  uint16_t ulen = (uint16_t)(u->len + 8u);
  uint16_t s = fw_wire_csum_add((uint16_t)(u->src_ip >> 16), (uint16_t)u->src_ip);
  s = fw_wire_csum_add(s, (uint16_t)(u->dst_ip >> 16));
  s = fw_wire_csum_add(s, (uint16_t)u->dst_ip);
  s = fw_wire_csum_add(s, IP_PROTO_UDP);
  s = fw_wire_csum_add(s, ulen);
  s = fw_wire_csum_add(s, u->sport);
  s = fw_wire_csum_add(s, u->dport);
  s = fw_wire_csum_add(s, ulen);
  s = fw_wire_csum_add(s, csum);
  return fw_wire_csum_add(s, payload_sum);
}

void fw_wire_udp_put(uint8_t *o, const struct fw_wire_udp *u, uint16_t payload_sum) {
  uint16_t ulen = (uint16_t)(u->len + 8u);
  o[0] = 0x45;   /* IPv4, 5-word header */
  o[1] = 0;
  put16(o + 2, (uint16_t)(ulen + 20u));
  put16(o + 4, u->id);
  put16(o + 6, IP_DF);
  o[8] = IP_TTL;
  o[9] = IP_PROTO_UDP;
  put16(o + 10, 0);
  put32(o + 12, u->src_ip);
  put32(o + 16, u->dst_ip);
  put16(o + 10, (uint16_t)~fw_wire_csum(o, 20));
  put16(o + 20, u->sport);
  put16(o + 22, u->dport);
  put16(o + 24, ulen);
  uint16_t c = (uint16_t)~udp_sum(u, 0, payload_sum);
  put16(o + 26, c ? c : 0xffffu);   /* RFC 768: a computed 0 is sent as all ones */
}

bool fw_wire_udp_get(const uint8_t *in, struct fw_wire_udp *u) {
  uint16_t ulen = get16(in + 24);
  if (in[0] != 0x45 || in[9] != IP_PROTO_UDP || (get16(in + 6) & ~IP_DF) != 0) return false;
  if (fw_wire_csum(in, 20) != 0xffffu) return false;
  if (ulen < 8u || ulen > 65515u || get16(in + 2) != ulen + 20u) return false;
  u->src_ip = get32(in + 12);
  u->dst_ip = get32(in + 16);
  u->id = get16(in + 4);
  u->sport = get16(in + 20);
  u->dport = get16(in + 22);
  u->len = (uint16_t)(ulen - 8u);
  u->csum = get16(in + 26);
  return true;
}

bool fw_wire_udp_ok(const struct fw_wire_udp *u, uint16_t payload_sum) {
  return u->csum != 0 && udp_sum(u, u->csum, payload_sum) == 0xffffu;
}

uint16_t fw_wire_trailer_word(uint16_t payload_sum, bool good) {
  uint16_t w = (uint16_t)~payload_sum;
  return good ? w : (uint16_t)(w + 1u);
}

void fw_wire_trailer_put(uint8_t *t, uint16_t payload_sum, bool good) {
  put16(t, fw_wire_trailer_word(payload_sum, good));
  t[2] = 0;
  t[3] = 0;
}

bool fw_wire_trailer_ok(const uint8_t *t, uint16_t payload_sum) {
  return t[2] == 0 && t[3] == 0 && fw_wire_csum_add(payload_sum, get16(t)) == 0xffffu;
}

void fw_wire_panic_hdr(const struct fw_wire_panic *p, struct fw_wire_hdr *h) {
  h->type = FW_WIRE_PANIC;
  h->flags = 0;
  h->src_node = 0;
  h->dst_node = p->peer;
  h->src_vi = 0;
  h->dst_vi = p->kind;
  h->len = p->len;
  h->msg_off = 0;
  h->msg_len = 0;
  h->seq = 0;
  h->ack = 0;
  h->imm = 0;
  h->rdma_handle = 0;
  h->conn = 0;
  h->rdma_addr = 0;
  if (p->kind == FW_WIRE_PANIC_MSG) {
    h->rdma_handle = p->msg.prog;
    h->imm = p->msg.trig;
    h->rdma_addr = p->msg.from;
    h->ack = p->len;
  } else if (p->kind == FW_WIRE_PANIC_REQ) {
    h->rdma_handle = p->req.prog;
    h->imm = p->req.op;
    h->rdma_addr = (uint64_t)p->req.req * 0x100000000u + p->req.trig;
    h->seq = p->req.off;
    h->ack = p->req.total;
  } else if (p->kind == FW_WIRE_PANIC_REPLY) {
    h->rdma_handle = p->reply.result;
    h->imm = p->reply.status;
    h->rdma_addr = p->reply.req;
    h->seq = p->reply.detail;
  }
}

void fw_wire_panic_view(const struct fw_wire_hdr *h, struct fw_wire_panic *p) {
  p->peer = h->src_node;
  p->kind = h->dst_vi;
  p->len = h->len;
  if (h->dst_vi == FW_WIRE_PANIC_MSG) {
    p->msg.prog = h->rdma_handle;
    p->msg.trig = h->imm;
    p->msg.from = (uint32_t)h->rdma_addr;
  } else if (h->dst_vi == FW_WIRE_PANIC_REQ) {
    p->req.prog = h->rdma_handle;
    p->req.op = h->imm;
    p->req.req = (uint32_t)(h->rdma_addr / 0x100000000u);
    p->req.trig = (uint32_t)h->rdma_addr;
    p->req.off = h->seq;
    p->req.total = h->ack;
  } else if (h->dst_vi == FW_WIRE_PANIC_REPLY) {
    p->reply.result = h->rdma_handle;
    p->reply.status = h->imm;
    p->reply.req = (uint32_t)h->rdma_addr;
    p->reply.detail = h->seq;
  }
}
