/* spine_router.c: the router program's control of the forwarding firmware (spine.h): the
 * route set, the table built from it, written into each port's idle bank, and the mailbox
 * commands (iface/spine_if.h). Nothing here runs per packet. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "spine.h"

#define CMD_TIMEOUT_NS 2000000000ll

struct spine_router {
  unsigned nport, mode;
  struct lnic_dev *dev[SPINE_NPORT];
  struct spine_route *rt;
  size_t n;
  uint32_t gen;
  size_t table_size;
  uint8_t table[SPINE_BANK_SIZE];
};

static volatile struct spine_ctl *ctl(struct lnic_dev *d) {
  return (volatile struct spine_ctl *)(void *)(d->win.sram + SPINE_BASE);
}

static int status_errno(uint32_t st) {
  switch (st) {
  case SPINE_ST_OK: return 0;
  case SPINE_ST_EBADTABLE: return -EPROTO;
  case SPINE_ST_EBUSY: return -EBUSY;
  case SPINE_ST_ESTATE: return -ENOTCONN;
  default: return -EINVAL;
  }
}

/* Posts op with args on NIC d's mailbox and waits for its completion. */
static int command(struct lnic_dev *d, uint32_t op, uint32_t a0, uint32_t a1, uint32_t a2) {
  volatile struct spine_ctl *c = ctl(d);
  if (c->magic != SPINE_MAGIC) return -ENODEV;
  lnic_vt_call(d);
  uint32_t seq = c->cmd.seq + 1;
  if (seq == c->done.seq) seq++;   /* never equal to an old answer */
  c->cmd.op = op;
  c->cmd.arg[0] = a0;
  c->cmd.arg[1] = a1;
  c->cmd.arg[2] = a2;
  __atomic_store_n(&c->cmd.seq, seq, __ATOMIC_RELEASE);
  int rc = hwin_doorbell(&d->win, HOSTIF_DOORBELL_PANIC, seq);
  if (!rc) rc = lnic_wait_word(d, HOSTIF_SIG_PANIC, &c->done.seq, seq, CMD_TIMEOUT_NS, 10000000);
  return rc ? rc : status_errno(c->done.status);
}

/* Builds the table of the route set and switches every port to it. */
static int publish(struct spine_router *r) {
  long size = spine_lpm_build(r->rt, r->n, r->gen + 1, r->table, sizeof r->table);
  if (size < 0) return (int)size;
  for (unsigned p = 0; p < r->nport; p++) {
    uint32_t bank = ctl(r->dev[p])->bank == 0 ? 1 : 0;
    int rc = hwin_sram_write(&r->dev[p]->win, SPINE_BANK(bank), r->table, (size_t)size);
    if (!rc) rc = command(r->dev[p], SPINE_OP_TABLE, bank, r->gen + 1, 0);
    if (rc) return rc;
  }
  r->gen++;
  r->table_size = (size_t)size;
  return 0;
}

int spine_router_open(struct lnic_dev *const *d, unsigned nport, unsigned mode,
                      struct spine_router **out) {
  if (!d || !out || nport == 0 || nport > SPINE_NPORT || mode > SPINE_MODE_PEER) return -EINVAL;
  struct spine_router *r = calloc(1, sizeof *r);
  if (!r || !(r->rt = calloc(SPINE_MAX_ROUTES, sizeof *r->rt))) {
    free(r);
    return -ENOMEM;
  }
  r->nport = nport;
  r->mode = mode;
  int rc = 0;
  for (unsigned p = 0; p < nport && !rc; p++) {
    r->dev[p] = d[p];
    if (ctl(d[p])->magic != SPINE_MAGIC) rc = -ENODEV;
    for (unsigned q = 0; q < nport && !rc; q++) ctl(d[p])->port_node[q] = d[q]->node;
  }
  for (unsigned p = 0; p < nport && !rc; p++) rc = command(d[p], SPINE_OP_CONFIG, nport, p, mode);
  if (!rc) rc = publish(r);
  if (rc) {
    spine_router_close(r);
    return rc;
  }
  *out = r;
  return 0;
}

void spine_router_detach(struct spine_router *r) {
  if (!r) return;
  free(r->rt);
  free(r);
}

void spine_router_close(struct spine_router *r) {
  if (!r) return;
  for (unsigned p = 0; p < r->nport; p++)
    if (r->dev[p] && ctl(r->dev[p])->magic == SPINE_MAGIC) (void)command(r->dev[p], SPINE_OP_OFF, 0, 0, 0);
  spine_router_detach(r);
}

static uint32_t masked(uint32_t prefix, unsigned len) { return len ? prefix & (~0u << (32 - len)) : 0; }

static long find(const struct spine_router *r, uint32_t prefix, unsigned len) {
  for (size_t i = 0; i < r->n; i++)
    if (r->rt[i].len == len && r->rt[i].prefix == masked(prefix, len)) return (long)i;
  return -1;
}

static int check_route(const struct spine_router *r, uint32_t prefix, unsigned len, uint32_t hop) {
  if (len > 32) return -EINVAL;
  if (!(SPINE_HOP_FLAGS(hop) & SPINE_HOP_LOCAL) && SPINE_HOP_PORT(hop) >= r->nport) return -EINVAL;
  if (SPINE_HOP_FLAGS(hop) & ~SPINE_HOP_LOCAL) return -EINVAL;
  return find(r, prefix, len) >= 0 ? -EEXIST : 0;
}

int spine_route_add_many(struct spine_router *r, const struct spine_route *rt, size_t n) {
  if (!r || (!rt && n)) return -EINVAL;
  if (r->n + n > SPINE_MAX_ROUTES) return -ENOSPC;
  size_t n0 = r->n;
  for (size_t i = 0; i < n; i++) {
    int rc = check_route(r, rt[i].prefix, rt[i].len, rt[i].hop);
    if (rc) {
      r->n = n0;
      return rc;
    }
    r->rt[r->n] = rt[i];
    r->rt[r->n++].prefix = masked(rt[i].prefix, rt[i].len);
  }
  int rc = publish(r);
  if (rc) r->n = n0;
  return rc;
}

int spine_route_add(struct spine_router *r, uint32_t prefix, unsigned len, uint32_t hop) {
  struct spine_route one = {prefix, (uint8_t)(len > 32 ? 33 : len), hop};
  if (len > 32) return -EINVAL;
  return spine_route_add_many(r, &one, 1);
}

int spine_route_del(struct spine_router *r, uint32_t prefix, unsigned len) {
  if (!r || len > 32) return -EINVAL;
  long i = find(r, prefix, len);
  if (i < 0) return -ENOENT;
  struct spine_route gone = r->rt[i];
  r->rt[i] = r->rt[--r->n];
  int rc = publish(r);
  if (rc) r->rt[r->n++] = gone;
  return rc;
}

unsigned spine_route_count(const struct spine_router *r) { return r ? (unsigned)r->n : 0; }
size_t spine_table_size(const struct spine_router *r) { return r ? r->table_size : 0; }

void spine_nic_counters(struct lnic_dev *d, struct spine_counters *out) {
  volatile struct spine_ctl *c = ctl(d);
  memcpy(out, (const void *)&c->ctr, sizeof *out);
}

void spine_counters(struct spine_router *r, unsigned port, struct spine_counters *out) {
  memset(out, 0, sizeof *out);
  if (r && port < r->nport) spine_nic_counters(r->dev[port], out);
}
