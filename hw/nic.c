/* NIC lifetime and the emulated clock: nic_advance runs the engines', timers' and link's
 * events in time order (ties: timers, host DMA, send, receive). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "link.h"
#include "nic_internal.h"

void nic_config_default(struct nic_config *c) {
  memset(c, 0, sizeof *c);
  c->sram_size = HW_SRAM_DEFAULT;
  c->timing = NIC_TIMING_MODEL;
  c->hdma_bytes_per_s = NIC_DEFAULT_HDMA_BPS;
  c->hdma_latency_ns = NIC_DEFAULT_HDMA_LAT_NS;
  c->link_bytes_per_s = NIC_DEFAULT_LINK_BPS;
  c->send_latency_ns = NIC_DEFAULT_SEND_LAT_NS;
}

struct nic *nic_create(const struct nic_config *c, int *err) {
  int dummy;
  if (!err) err = &dummy;
  struct nic *nic = calloc(1, sizeof *nic);
  if (!nic) {
    *err = NIC_ENOMEM;
    return NULL;
  }
  nic->cfg = *c;
  if (!nic->cfg.sram_size) nic->cfg.sram_size = HW_SRAM_DEFAULT;
  if (!nic->cfg.hdma_bytes_per_s) nic->cfg.hdma_bytes_per_s = NIC_DEFAULT_HDMA_BPS;
  if (!nic->cfg.link_bytes_per_s) nic->cfg.link_bytes_per_s = NIC_DEFAULT_LINK_BPS;
  nic->cfg.shm_name = NULL; /* not kept: the caller owns the string */
  int rc = hwin_create(&nic->win, c->shm_name, nic->cfg.sram_size, c->node);
  if (rc != 0) {
    free(nic);
    *err = rc == -EINVAL ? NIC_EINVAL : NIC_ESYS;
    return NULL;
  }
  nic->regs = nic->win.regs;
  nic->sram = nic->win.sram;
  nic->sram_size = nic->cfg.sram_size;
  nic->hdma.active = -1;
  nic->send.open_dst = -1;
  nic->recv.lock = FAB_ANY;
  *err = NIC_OK;
  return nic;
}

void nic_destroy(struct nic *nic) {
  if (!nic) return;
  nic_iommu_release(nic);
  hwin_destroy(&nic->win);
  free(nic);
}

struct hwin *nic_window(struct nic *nic) { return &nic->win; }

uint16_t nic_node(const struct nic *nic) { return nic->cfg.node; }

int nic_attach(struct nic *nic, struct fabric *f) {
  if (!f || nic->cfg.node >= f->nodes) return NIC_EINVAL;
  nic->fab = f;
  nic->link_up = fabric_link_up(f, nic->cfg.node);
  return NIC_OK;
}

uint64_t nic_clock(const struct nic *nic) { return nic->now; }

void nic_trace(struct nic *nic, enum nic_engine e, uint64_t start_ns, uint64_t end_ns) {
  if (nic->cfg.trace) nic->cfg.trace(nic->cfg.trace_ctx, nic->cfg.node, e, start_ns, end_ns);
}

uint64_t nic_xfer_ns(const struct nic *nic, uint64_t bytes_per_s, uint64_t latency_ns,
                     uint64_t len) {
  if (nic->cfg.timing == NIC_TIMING_FAST) return 0;
  /* len < 2^32 and 10^9 < 2^30: the product fits in 64 bits. */
  return latency_ns + (len * 1000000000u + bytes_per_s - 1) / bytes_per_s;
}

enum source { SRC_NONE, SRC_TIMER, SRC_HDMA, SRC_SEND, SRC_RECV };

static uint64_t earliest(struct nic *nic, enum source *src, unsigned *timer) {
  uint64_t best = nic_timer_due(nic, timer), t;
  *src = best == NIC_NEVER ? SRC_NONE : SRC_TIMER;
  if ((t = nic_hdma_due(nic)) < best) best = t, *src = SRC_HDMA;
  if ((t = nic_send_due(nic)) < best) best = t, *src = SRC_SEND;
  if ((t = nic_recv_due(nic)) < best) best = t, *src = SRC_RECV;
  return best;
}

static void check_link(struct nic *nic) {
  if (!nic->fab) return;
  bool up = fabric_link_up(nic->fab, nic->cfg.node);
  if (nic->link_up && !up) nic_isr_set(nic, NIC_ISR_LINK_DOWN);
  nic->link_up = up;
}

void nic_advance(struct nic *nic, uint64_t now) {
  if (now < nic->now) now = nic->now;
  nic_doorbells_sync(nic);
  check_link(nic);
  for (;;) {
    enum source src;
    unsigned timer = 0;
    uint64_t t = earliest(nic, &src, &timer);
    if (src == SRC_NONE || t > now) break;
    if (t > nic->now) nic->now = t;
    switch (src) {
    case SRC_TIMER: nic_timer_fire(nic, timer); break;
    case SRC_HDMA: nic_hdma_fire(nic); break;
    case SRC_SEND: nic_send_fire(nic); break;
    case SRC_RECV: nic_recv_fire(nic); break;
    case SRC_NONE: break;
    }
  }
  nic->now = now;
  atomic_store_explicit(&nic->regs->clock_ns, now, memory_order_relaxed);
}

uint64_t nic_next_due(struct nic *nic) {
  enum source src;
  unsigned timer;
  return earliest(nic, &src, &timer);
}

bool nic_step(struct nic *nic) {
  uint64_t t = nic_next_due(nic);
  if (t == NIC_NEVER) return false;
  nic_advance(nic, t);
  return true;
}

void nic_advance_all(struct nic **nics, size_t n, uint64_t now) {
  for (;;) {
    uint64_t best = NIC_NEVER;
    size_t bi = 0;
    for (size_t i = 0; i < n; i++) {
      uint64_t t = nic_next_due(nics[i]);
      if (t < best) best = t, bi = i;
    }
    if (best == NIC_NEVER || best > now) break;
    nic_advance(nics[bi], best);
  }
  for (size_t i = 0; i < n; i++) nic_advance(nics[i], now);
}

