/* fw_vm_ctl.c: host control of the PANIC VM (PANIC section 3.3; hostif.h, CONTROL.md). The
 * host's command mailbox (doorbell HOSTIF_DOORBELL_PANIC): LOAD, UNLOAD, RUN, SEND, LIST and
 * ROUTE on this NIC, or, for another node, forwarded as PANIC control requests (a module in
 * pieces of at most one wire message) and answered by the peer's reply, or by ETIMEDOUT when
 * none came within HOSTIF_PANIC_REMOTE_MS (timer FW_TIMER_VM). RUN and SEND complete when the
 * handler has ended, with its vm_result. Requests from peers are served here too. Only one
 * command is in the mailbox at a time (libpanic takes the mailbox's lock). Freestanding. */
#include "fw_vm_ctl.h"

#include "fw_spine.h"
#include "fw_sram.h"
#include "fw_vm_prog.h"
#include "fw_vm_run.h"
#include "fw_vm_wire.h"

#define PANIC_AT(field) (HOSTIF_PANIC_BASE + (uint32_t)offsetof(struct hostif_panic, field))
#define CMD_AT(field) (PANIC_AT(cmd) + (uint32_t)offsetof(struct hostif_panic_cmd, field))
#define DONE_AT(field) (PANIC_AT(done) + (uint32_t)offsetof(struct hostif_panic_done, field))

void fw_vm_ctl_done(struct fw *fw, uint32_t status, uint32_t result, uint32_t detail) {
  struct fw_vm *v = &fw->vm;
  fw_sram_wr32(fw, DONE_AT(status), status);
  fw_sram_wr32(fw, DONE_AT(result), result);
  fw_sram_wr32(fw, DONE_AT(detail), detail);
  fw_sram_release();
  fw_sram_wr32(fw, DONE_AT(seq), v->cmd_seen);
  v->cmd_wait = false;
  v->remote.busy = false;
  fw_count64v(&fw_ctr(fw)->panic.ctl_cmds);
  fwb_signal_host(fw->board, HOSTIF_SIG_PANIC);
}

static uint32_t route(struct fw *fw, uint32_t lo, uint32_t hi, uint32_t node, bool remove) {
  uint64_t addr = (uint64_t)hi << 32 | lo;
  int free_at = -1;
  for (unsigned i = 0; i < HOSTIF_PANIC_NROUTE; i++) {
    uint32_t at = PANIC_AT(route) + i * (uint32_t)sizeof(struct hostif_panic_route);
    struct hostif_panic_route r;
    fw_sram_panic_route_in(fw, &r, at);
    if (!r.used) {
      if (free_at < 0) free_at = (int)i;
      continue;
    }
    if (r.addr != addr) continue;
    if (remove) r.used = 0;
    r.node = node;
    fw_sram_panic_route_out(fw, at, &r);
    return HOSTIF_PANIC_OK;
  }
  if (remove) return HOSTIF_PANIC_ENOENT;
  if (free_at < 0) return HOSTIF_PANIC_ENOSPC;
  struct hostif_panic_route r = {1, node, addr};
  fw_sram_panic_route_out(fw, PANIC_AT(route) + (uint32_t)free_at * (uint32_t)sizeof r, &r);
  return HOSTIF_PANIC_OK;
}

/* Sends what the forwarded command has not sent yet (one packet without data, or the data in
 * pieces of at most one wire message), as far as the send queue has room. */
static void forward_some(struct fw *fw) {
  struct fw_vm_remote *r = &fw->vm.remote;
  while (r->unsent) {
    uint32_t n = r->len - r->sent < FW_MAX_PAYLOAD ? r->len - r->sent : FW_MAX_PAYLOAD;
    struct fw_wire_panic k = {.peer = r->node, .kind = FW_WIRE_PANIC_REQ, .len = n,
                              .req = {r->prog, r->op, r->req, r->trigger, r->sent, r->len}};
    if (!fw_vm_wire_tx(fw, &k, fw->sram + PANIC_AT(data) + r->sent))
      return;
    r->sent += n;
    r->unsent = r->sent < r->len;
  }
}

void fw_vm_ctl_pump(struct fw *fw) {
  if (fw->vm.remote.busy) forward_some(fw);
  fw_spine_pump(fw);   /* the router's mailbox shares this doorbell (spine_if.h) */
}

static void forward(struct fw *fw, const struct hostif_panic_cmd *c) {
  struct fw_vm *v = &fw->vm;
  if (c->op < HOSTIF_PANIC_LOAD || c->op > HOSTIF_PANIC_LIST ||
      (c->op == HOSTIF_PANIC_SEND && c->len > HOSTIF_PANIC_MSG_MAX) ||
      (c->op == HOSTIF_PANIC_LOAD && c->len == 0)) {
    fw_vm_ctl_done(fw, HOSTIF_PANIC_EINVAL, 0, 0);
    return;
  }
  struct fw_vm_remote *r = &v->remote;
  r->busy = true;
  r->node = (uint16_t)c->node;
  r->req = v->next_req++;
  r->op = c->op;
  r->prog = c->prog;
  r->trigger = c->trigger;
  r->len = c->op == HOSTIF_PANIC_LOAD || c->op == HOSTIF_PANIC_SEND ? c->len : 0;
  r->sent = 0;
  r->unsent = true;
  r->deadline = fwb_clock_ns(fw->board) + HOSTIF_PANIC_REMOTE_MS * 1000000ull;
  fwb_timer_set(fw->board, FW_TIMER_VM, HOSTIF_PANIC_REMOTE_MS * 1000000ull);
  fw_count64v(&fw_ctr(fw)->panic.ctl_remote);
  forward_some(fw); /* what does not fit now, fw_vm_ctl_pump sends later */
}

void fw_vm_ctl_doorbell(struct fw *fw) {
  struct fw_vm *v = &fw->vm;
  if (!v->on || v->cmd_wait || v->remote.busy) return; /* one command at a time */
  uint32_t seq = fw_sram_rd32(fw, CMD_AT(seq));
  fw_sram_acquire();
  if (seq == v->cmd_seen) return;
  v->cmd_seen = seq;
  struct hostif_panic_cmd c;
  fw_sram_panic_cmd_in(fw, &c, PANIC_AT(cmd)); /* a snapshot */
  if (c.len > HOSTIF_PANIC_DATA_MAX) {
    fw_vm_ctl_done(fw, HOSTIF_PANIC_EINVAL, 0, 0);
    return;
  }
  if (c.node != fw->node) {
    forward(fw, &c);
    return;
  }
  struct fw_vm_act reply = {0};
  reply.reply = FW_VM_REPLY_HOST;
  uint32_t st, err = 0, off = 0;
  switch (c.op) {
  case HOSTIF_PANIC_LOAD: st = fw_vm_prog_load(fw, c.prog, PANIC_AT(data), c.len, &err, &off); break;
  case HOSTIF_PANIC_UNLOAD: st = fw_vm_prog_unload(fw, c.prog); break;
  case HOSTIF_PANIC_RUN: st = fw_vm_run_queue(fw, c.prog, true, 0, 0, 0, &reply); break;
  case HOSTIF_PANIC_SEND:
    st = c.len > HOSTIF_PANIC_MSG_MAX ? HOSTIF_PANIC_EINVAL
                                      : fw_vm_run_queue(fw, c.prog, false, c.trigger, PANIC_AT(data),
                                                    c.len, &reply);
    break;
  case HOSTIF_PANIC_LIST: st = HOSTIF_PANIC_OK; off = fw_vm_prog_list(fw, DONE_AT(list)); break;
  case HOSTIF_PANIC_ROUTE: st = route(fw, c.arg[0], c.arg[1], c.arg[2], c.arg[3] != 0); break;
  default: st = HOSTIF_PANIC_EINVAL; break;
  }
  if (st == HOSTIF_PANIC_OK && (c.op == HOSTIF_PANIC_RUN || c.op == HOSTIF_PANIC_SEND))
    v->cmd_wait = true; /* answered when the handler has run (fw_vm_run_answer) */
  else
    fw_vm_ctl_done(fw, st, err, off);
}

void fw_vm_ctl_tick(struct fw *fw) {
  struct fw_vm_remote *r = &fw->vm.remote;
  if (!r->busy) return;
  if (fwb_clock_ns(fw->board) < r->deadline) { /* re-armed for a later command: not yet */
    fwb_timer_set(fw->board, FW_TIMER_VM, r->deadline - fwb_clock_ns(fw->board));
    return;
  }
  fw_count64v(&fw_ctr(fw)->panic.ctl_timeouts);
  fw_vm_ctl_done(fw, HOSTIF_PANIC_ETIMEDOUT, 0, 0);
}

static void answer(struct fw *fw, const struct fw_wire_panic *q, uint32_t st, uint32_t result,
                   uint32_t detail, uint32_t list, uint32_t list_len) {
  fw_count64v(&fw_ctr(fw)->panic.ctl_served);
  struct fw_wire_panic k = {.peer = q->peer, .kind = FW_WIRE_PANIC_REPLY, .len = list_len,
                            .reply = {result, st, q->req.req, detail}};
  if (!fw_vm_wire_tx(fw, &k, fw->sram + list))
    fw_count64v(&fw_ctr(fw)->panic.send_fail); /* the asking NIC times out */
}

/* A piece of a module from a peer; the whole module is loaded once it is in. */
static void remote_load(struct fw *fw, const struct fw_wire_panic *h, uint32_t payload) {
  struct fw_vm_rimg *m = &fw->vm.rimg;
  uint32_t req = h->req.req, off = h->req.off, total = h->req.total;
  if (off == 0) {
    m->active = total > 0 && total <= HOSTIF_PANIC_DATA_MAX;
    m->node = h->peer;
    m->req = req;
    m->len = total;
    m->got = 0;
  }
  if (!m->active || m->node != h->peer || m->req != req || off != m->got ||
      total != m->len || h->len > m->len - m->got) {
    m->active = false;
    answer(fw, h, HOSTIF_PANIC_EINVAL, 0, 0, 0, 0);
    return;
  }
  uint8_t *dst = fw->sram + FW_VM_RIMG + off;
  const uint8_t *src = fw->sram + payload;
  for (uint32_t i = 0; i < h->len; i++) dst[i] = src[i];
  m->got += h->len;
  if (m->got < m->len) return;
  m->active = false;
  uint32_t err, eoff;
  uint32_t st = fw_vm_prog_load(fw, h->req.prog, FW_VM_RIMG, m->len, &err, &eoff);
  answer(fw, h, st, err, eoff, 0, 0);
}

void fw_vm_ctl_request(struct fw *fw, const struct fw_wire_panic *h, uint32_t payload) {
  struct fw_vm_act reply = {0};
  reply.reply = FW_VM_REPLY_PEER;
  reply.peer = h->peer;
  reply.req = h->req.req;
  uint32_t st;
  switch (h->req.op) {
  case HOSTIF_PANIC_LOAD: remote_load(fw, h, payload); return;
  case HOSTIF_PANIC_UNLOAD: answer(fw, h, fw_vm_prog_unload(fw, h->req.prog), 0, 0, 0, 0); return;
  case HOSTIF_PANIC_LIST: {
    uint32_t n = fw_vm_prog_list(fw, FW_VM_LIST);
    answer(fw, h, HOSTIF_PANIC_OK, 0, n, FW_VM_LIST, n * (uint32_t)sizeof(struct hostif_panic_prog));
    return;
  }
  case HOSTIF_PANIC_RUN: st = fw_vm_run_queue(fw, h->req.prog, true, 0, 0, 0, &reply); break;
  case HOSTIF_PANIC_SEND: /* the message in one packet */
    st = h->req.off != 0 || h->req.total != h->len
             ? HOSTIF_PANIC_EINVAL
             : fw_vm_run_queue(fw, h->req.prog, false, h->req.trig, payload, h->len, &reply);
    break;
  default: st = HOSTIF_PANIC_EINVAL; break;
  }
  if (st != HOSTIF_PANIC_OK) answer(fw, h, st, 0, 0, 0, 0);
  else fw_count64v(&fw_ctr(fw)->panic.ctl_served); /* answered when the handler has run */
}

void fw_vm_ctl_reply(struct fw *fw, const struct fw_wire_panic *h, uint32_t payload) {
  struct fw_vm_remote *r = &fw->vm.remote;
  if (!r->busy || h->peer != r->node || h->reply.req != r->req) return; /* late */
  if (r->op == HOSTIF_PANIC_LIST) {
    uint32_t n = h->len / (uint32_t)sizeof(struct hostif_panic_prog);
    if (n > HOSTIF_PANIC_NPROG) n = HOSTIF_PANIC_NPROG;
    const uint8_t *src = fw->sram + payload;
    uint8_t *dst = fw->sram + DONE_AT(list);
    for (uint32_t i = 0; i < n * (uint32_t)sizeof(struct hostif_panic_prog); i++) dst[i] = src[i];
  }
  fw_vm_ctl_done(fw, h->reply.status, h->reply.result, h->reply.detail);
}
