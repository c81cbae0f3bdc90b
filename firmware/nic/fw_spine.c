/* fw_spine.c: SPINE's IP router on the NIC (fw_spine.h, host/spine/README.md). An IP message for a NIC
 * whose router is configured is classified FW_RX_IP (nothing of it goes to host memory); at
 * its end the firmware judges it here:
 *   damaged wire message, bad IPv4 header or checksum, TTL <= 1, no route -> dropped, counted;
 *   a route LOCAL -> handed up (sent to this NIC itself, marked UP: then a datagram to the
 *     host's IP endpoint);
 *   a route out of this port -> TTL - 1, sent to the next hop;
 *   a route out of another port -> TTL - 1, sent to that port's NIC marked TRANSIT with the
 *     next hop, over the fabric or by peer DMA into its inbox (hw/peerdma.h: the copy is
 *     done when fwb_peer_copy returns); that NIC sends it on as is.
 * Route updates (the mailbox, spine_if.h): TABLE checks the new bank's table, switches to it
 * and completes only when every packet routed by the old table has left the send queue (the
 * queue position at the switch, drain_mark, has been retired). This is the protocol esm/spine
 * models and checks: no packet forwarded twice, none forwarded by a route after the update
 * that removed it completed, TTL never wrapped. Freestanding. */
#include "fw_spine.h"

#include "fw.h"
#include "fw_ipv4.h"
#include "fw_lpm.h"
#include "fw_sram.h"
#include "fw_txlocal.h"

#define CTL_AT(field) (SPINE_BASE + (uint32_t)offsetof(struct spine_ctl, field))

static volatile struct spine_counters *ctr(struct fw *fw) {
  return (volatile struct spine_counters *)(void *)(fw->sram + CTL_AT(ctr));
}

void fw_spine_init(struct fw *fw) {
  struct fw_spine *s = &fw->spine;
  s->bank = SPINE_BANK_NONE;
  fw_sram_wr32(fw, CTL_AT(node), fw->node);
  fw_sram_wr32(fw, CTL_AT(bank), SPINE_BANK_NONE);
  fw_sram_release();
  fw_sram_wr32(fw, CTL_AT(magic), SPINE_MAGIC);
}

static void done(struct fw *fw, uint32_t status, uint32_t detail) {
  fw_sram_wr32(fw, CTL_AT(done.status), status);
  fw_sram_wr32(fw, CTL_AT(done.detail), detail);
  fw_sram_release();
  fw_sram_wr32(fw, CTL_AT(done.seq), fw->spine.cmd_seen);
  fwb_signal_host(fw->board, HOSTIF_SIG_PANIC);
}

static uint32_t config(struct fw *fw, uint32_t nport, uint32_t self, uint32_t mode) {
  struct fw_spine *s = &fw->spine;
  if (nport == 0 || nport > SPINE_NPORT || self >= nport || mode > SPINE_MODE_PEER)
    return SPINE_ST_EINVAL;
  uint16_t nodes[SPINE_NPORT];
  for (uint32_t i = 0; i < nport; i++) nodes[i] = (uint16_t)fw_sram_rd32(fw, CTL_AT(port_node) + 4 * i);
  if (nodes[self] != fw->node) return SPINE_ST_EINVAL;
  for (uint32_t i = 0; i < nport; i++) s->port_node[i] = nodes[i];
  s->nport = (uint8_t)nport;
  s->self = (uint8_t)self;
  s->mode = (uint8_t)mode;
  s->on = true;
  return SPINE_ST_OK;
}

/* TABLE: the switch itself; the completion waits for the drain (fw_spine_pump). */
static uint32_t table(struct fw *fw, uint32_t bank, uint32_t *detail) {
  struct fw_spine *s = &fw->spine;
  if (!s->on) return SPINE_ST_ESTATE;
  if (bank >= 2) return SPINE_ST_EINVAL;
  if (bank == s->bank) return SPINE_ST_EBUSY;
  *detail = fw_lpm_check(fw->sram + SPINE_BANK(bank), SPINE_BANK_SIZE);
  if (*detail != FW_LPM_OK) return SPINE_ST_EBADTABLE;
  s->bank = bank;
  s->gen = fw_lpm_gen(fw->sram + SPINE_BANK(bank));
  fw_sram_wr32(fw, CTL_AT(bank), bank);
  fw_sram_wr32(fw, CTL_AT(gen), s->gen);
  fw_count64v(&ctr(fw)->updates);
  s->draining = true;
  s->drain_mark = fw->tx_head;
  return SPINE_ST_PENDING;
}

static void mailbox(struct fw *fw) {
  struct fw_spine *s = &fw->spine;
  if (s->draining) return;               /* one command at a time */
  uint32_t seq = fw_sram_rd32(fw, CTL_AT(cmd.seq));
  fw_sram_acquire();
  if (seq == s->cmd_seen) return;
  s->cmd_seen = seq;
  uint32_t op = fw_sram_rd32(fw, CTL_AT(cmd.op)), a[3], st = SPINE_ST_EINVAL, detail = 0;
  for (unsigned i = 0; i < 3; i++) a[i] = fw_sram_rd32(fw, CTL_AT(cmd.arg) + 4 * i);
  if (op == SPINE_OP_CONFIG) st = config(fw, a[0], a[1], a[2]);
  else if (op == SPINE_OP_TABLE) st = table(fw, a[0], &detail);
  else if (op == SPINE_OP_OFF) {
    s->on = false;
    s->bank = SPINE_BANK_NONE;
    fw_sram_wr32(fw, CTL_AT(bank), SPINE_BANK_NONE);
    st = SPINE_ST_OK;
  }
  if (st != SPINE_ST_PENDING) done(fw, st, detail);
}

/* The update completes once the send queue has retired every entry queued before the switch:
 * tx_done has reached drain_mark (free-running counters, compared modulo 2^32). */
static void drain(struct fw *fw) {
  struct fw_spine *s = &fw->spine;
  if (!s->draining) return;
  if ((int32_t)(fw->tx_done - s->drain_mark) < 0) return;
  if (fw->tx_head != s->drain_mark) fw_count64v(&ctr(fw)->drain_waits);
  s->draining = false;
  done(fw, SPINE_ST_OK, s->gen);
}

/* Queues the IP packet p (len bytes, in SRAM) to node with `ack` word w; false if the send
 * queue or the staging is full. */
static bool queue(struct fw *fw, uint16_t node, const uint8_t *p, uint32_t len, uint32_t w) {
  struct fw_wire_hdr h = {0};
  h.type = FW_WIRE_IP;
  h.flags = FW_WIRE_F_FIRST | FW_WIRE_F_LAST;
  h.dst_node = node;
  h.ack = w;
  h.len = len;
  h.rdma_handle = (uint32_t)SPINE_IP_PORT << 16 | SPINE_IP_PORT;
  return fw_txlocal_queue(fw, &h, p);
}

/* queue, or dropped and counted busy */
static bool send(struct fw *fw, uint16_t node, const uint8_t *p, uint32_t len, uint32_t w) {
  if (queue(fw, node, p, len, w)) return true;
  fw_count64v(&ctr(fw)->busy);
  return false;
}

/* Peer DMA: the packet p (len bytes, in a receive buffer) with the slot head written over the
 * end of its wire header (decoded already) into a free inbox slot of port's NIC. */
static bool peer_send(struct fw *fw, unsigned port, uint8_t *p, uint32_t len, uint32_t hop) {
  struct fw_spine *s = &fw->spine;
  uint32_t at = (uint32_t)(p - fw->sram) - (uint32_t)sizeof(struct spine_slot);
  fw_sram_wr32(fw, at + offsetof(struct spine_slot, len), len);
  fw_sram_wr32(fw, at + offsetof(struct spine_slot, hop), hop);
  fw_sram_wr32(fw, at + offsetof(struct spine_slot, reserved), 0);
  fw_sram_wr32(fw, at + offsetof(struct spine_slot, state), 1);
  for (unsigned k = 0; k < SPINE_INBOX_N; k++) {
    unsigned slot = (s->peer_next + k) % SPINE_INBOX_N;
    if (fwb_peer_copy(fw->board, s->port_node[port], at, SPINE_INBOX_AT(slot),
                      (uint32_t)sizeof(struct spine_slot) + len) == 0) {
      s->peer_next = (uint8_t)(slot + 1u);
      fw_count64v(&ctr(fw)->peer_out);
      return true;
    }
  }
  fw_count64v(&ctr(fw)->busy);
  return false;
}

/* Peer DMA's inbox: packets other ports routed here, sent on to their next hop; one the send
 * queue has no room for stays until a later pass. */
static void inbox(struct fw *fw) {
  struct fw_spine *s = &fw->spine;
  for (unsigned k = 0; k < SPINE_INBOX_N; k++) {
    unsigned i = (s->inbox_next + k) % SPINE_INBOX_N;
    uint32_t at = SPINE_INBOX_AT(i);
    if (fw_sram_rd32(fw, at + offsetof(struct spine_slot, state)) != 1) continue;
    fw_sram_acquire();
    uint32_t len = fw_sram_rd32(fw, at + offsetof(struct spine_slot, len));
    uint32_t hop = fw_sram_rd32(fw, at + offsetof(struct spine_slot, hop));
    if (len > SPINE_IP_MAX) {
      fw_count64v(&ctr(fw)->damaged);
    } else if (queue(fw, SPINE_HOP_NODE(hop), fw->sram + at + sizeof(struct spine_slot), len, 0)) {
      fw_count64v(&ctr(fw)->peer_in);
      fw_count64v(&ctr(fw)->transit);
    } else {
      return;
    }
    fw_sram_wr32(fw, at + offsetof(struct spine_slot, state), 0);
    s->inbox_next = i + 1u;
  }
}

bool fw_spine_classify(struct fw *fw, struct fw_rxi *ri) {
  const struct fw_spine *s = &fw->spine;
  const struct fw_wire_hdr *h = &ri->hdr;
  if (!s->on || h->ack == FW_SPINE_W_UP) return false;
  ri->verdict = FW_RX_IP;
  ri->drop_reason = FW_DROP_NONE;
  ri->npiece = 0;
  return true;
}

/* Whether node is one of the router's ports. */
static bool is_port(const struct fw_spine *s, uint16_t node) {
  for (unsigned i = 0; i < s->nport; i++)
    if (s->port_node[i] == node) return true;
  return false;
}

/* Routes the packet p (len bytes, a valid IPv4 header) by the table in use. */
static void route(struct fw *fw, uint8_t *p, uint32_t len) {
  struct fw_spine *s = &fw->spine;
  volatile struct spine_counters *c = ctr(fw);
  uint32_t hop;
  if (s->bank == SPINE_BANK_NONE ||
      !fw_lpm_lookup(fw->sram + SPINE_BANK(s->bank), fw_ipv4_dst(p), &hop) ||
      (!(SPINE_HOP_FLAGS(hop) & SPINE_HOP_LOCAL) && SPINE_HOP_PORT(hop) >= s->nport)) {
    fw_count64v(&c->no_route);
    return;
  }
  if (SPINE_HOP_FLAGS(hop) & SPINE_HOP_LOCAL) {
    if (send(fw, fw->node, p, len, FW_SPINE_W_UP)) fw_count64v(&c->to_host);
    return;
  }
  fw_ipv4_ttl_dec(p);
  unsigned port = SPINE_HOP_PORT(hop);
  bool ok = port == s->self ? send(fw, SPINE_HOP_NODE(hop), p, len, 0)
            : s->mode == SPINE_MODE_PEER
                ? peer_send(fw, port, p, len, hop)
                : send(fw, s->port_node[port], p, len, FW_SPINE_W_TRANSIT | SPINE_HOP_NODE(hop));
  if (ok) fw_count64v(&c->forwarded);
}

void fw_spine_rx(struct fw *fw, unsigned buf) {
  struct fw_rxi *ri = &fw->rxi[buf];
  const struct fw_wire_hdr *h = &ri->hdr;
  volatile struct spine_counters *c = ctr(fw);
  uint8_t *p = fw->sram + FW_RBUF_ADDR(buf) + FW_WIRE_HDR_LEN;
  uint32_t len = h->len;
  fw_count64v(&c->rx_ip);
  if (!ri->complete_ok || h->msg_off != 0 || h->msg_len != len || h->dst_node != fw->node ||
      !fw_wire_trailer_ok(p + len, fw_wire_csum(p, len))) {
    fw_count64v(&c->damaged);
    return;
  }
  if (h->ack & FW_SPINE_W_TRANSIT) {   /* routed by another port: sent on as it is */
    if (!is_port(&fw->spine, h->src_node) || (h->ack & 0x3fff0000u)) fw_count64v(&c->damaged);
    else if (send(fw, (uint16_t)h->ack, p, len, 0)) fw_count64v(&c->transit);
    return;
  }
  switch (fw_ipv4_check(p, len)) {
  case FW_IPV4_OK: route(fw, p, len); break;
  case FW_IPV4_CSUM: fw_count64v(&c->bad_csum); break;
  case FW_IPV4_TTL: fw_count64v(&c->ttl_expired); break;
  default: fw_count64v(&c->bad_header); break;
  }
}

void fw_spine_pump(struct fw *fw) {
  mailbox(fw);
  drain(fw);
  if (fw->spine.on) inbox(fw);
}
