/* The host DMA engine: chained descriptors in SRAM, one engine shared round-robin by the
 * channels, one descriptor in flight at a time. A descriptor's bytes move when it completes;
 * the checksum is computed over them as they are copied. */
#include <string.h>

#include "nic_internal.h"

static void chain_end(struct nic *nic, unsigned c, enum nic_hdma_status st) {
  struct hdma_chan *ch = &nic->hdma.ch[c];
  ch->busy = false;
  ch->st.busy = false;
  ch->st.error = st;
  if (st != NIC_HDMA_DONE) {
    nic_isr_set(nic, NIC_ISR_WAKE(c)); /* errors always wake the firmware */
    nic_ctr_add(nic, HW_CTR_HDMA_ERRORS, 1);
    if (st == NIC_HDMA_ESRAM || st == NIC_HDMA_EDESC) nic_isr_set(nic, NIC_ISR_MEMORY);
  }
}

static bool desc_ok(const struct nic *nic, uint32_t addr) {
  return addr % 4 == 0 && nic_sram_ok(nic, addr, sizeof(struct nic_hdma_desc));
}

static void write_back(struct nic *nic, uint32_t addr, uint16_t csum, uint32_t status) {
  struct nic_hdma_desc *d = (struct nic_hdma_desc *)(void *)(nic->sram + addr);
  memcpy(&d->csum, &csum, sizeof csum);
  memcpy(&d->status, &status, sizeof status);
}

int nic_hdma_start(struct nic *nic, unsigned c, uint32_t desc) {
  if (c >= NIC_HDMA_CHANNELS) return NIC_EINVAL;
  struct hdma_chan *ch = &nic->hdma.ch[c];
  if (ch->busy) return NIC_EBUSY;
  memset(&ch->st, 0, sizeof ch->st);
  hw_csum_init(&ch->sum);
  ch->st.cur = desc;
  ch->st.error = NIC_HDMA_PENDING;
  if (!desc_ok(nic, desc)) {
    chain_end(nic, c, NIC_HDMA_EDESC);
    return NIC_OK; /* reported like any engine error: status and WAKE */
  }
  ch->busy = true;
  ch->st.busy = true;
  nic_hdma_kick(nic);
  return NIC_OK;
}

int nic_hdma_status(const struct nic *nic, unsigned c, struct nic_hdma_chan_status *st) {
  if (c >= NIC_HDMA_CHANNELS) return NIC_EINVAL;
  *st = nic->hdma.ch[c].st;
  st->sum = hw_csum_sum(&nic->hdma.ch[c].sum);
  st->csum = (uint16_t)~st->sum;
  return NIC_OK;
}

/* Starts the next descriptor if the engine is idle. */
void nic_hdma_kick(struct nic *nic) {
  if (nic->hdma.active >= 0) return;
  for (unsigned i = 0; i < NIC_HDMA_CHANNELS; i++) {
    unsigned c = (nic->hdma.rr + i) % NIC_HDMA_CHANNELS;
    struct hdma_chan *ch = &nic->hdma.ch[c];
    if (!ch->busy) continue;
    nic->hdma.rr = (c + 1) % NIC_HDMA_CHANNELS;
    struct nic_hdma_desc *d = &nic->hdma.desc;
    memcpy(d, nic->sram + ch->st.cur, sizeof *d);
    unsigned dir = d->flags & (NIC_HDMA_E2L | NIC_HDMA_L2E);
    nic->hdma.pre = NIC_HDMA_DONE;
    if ((d->flags & ~NIC_HDMA_FLAGS) || (dir != NIC_HDMA_E2L && dir != NIC_HDMA_L2E))
      nic->hdma.pre = NIC_HDMA_EDESC;
    else if (!nic_sram_ok(nic, d->sram, d->len))
      nic->hdma.pre = NIC_HDMA_ESRAM;
    uint64_t len = nic->hdma.pre == NIC_HDMA_DONE ? d->len : 0;
    uint64_t dur = nic_xfer_ns(nic, nic->cfg.hdma_bytes_per_s, nic->cfg.hdma_latency_ns, len);
    nic->hdma.active = (int)c;
    nic->hdma.due = nic->now + dur;
    nic_ctr_add(nic, HW_CTR_HDMA_BUSY_NS, dur);
    nic_trace(nic, NIC_ENG_HDMA, nic->now, nic->hdma.due);
    return;
  }
}

uint64_t nic_hdma_due(const struct nic *nic) {
  return nic->hdma.active >= 0 ? nic->hdma.due : NIC_NEVER;
}

void nic_hdma_fire(struct nic *nic) {
  unsigned c = (unsigned)nic->hdma.active;
  struct hdma_chan *ch = &nic->hdma.ch[c];
  const struct nic_hdma_desc *d = &nic->hdma.desc;
  uint32_t at = ch->st.cur;
  enum nic_hdma_status st = nic->hdma.pre;
  uint16_t sum = 0;
  nic->hdma.active = -1;
  if (st == NIC_HDMA_DONE && d->len) {
    bool e2l = d->flags & NIC_HDMA_E2L;
    uint64_t host = (uint64_t)d->host_hi << 32 | d->host_lo;
    uint8_t *hp;
    st = nic_iommu_map(nic, host, d->len, d->ptag, e2l ? HW_ACC_NIC_READ : HW_ACC_NIC_WRITE, &hp);
    if (st == NIC_HDMA_DONE) {
      uint8_t *sp = nic->sram + d->sram;
      /* Summed as the words are stored: what SRAM holds or sent, whatever the host does to
       * its side meanwhile. Writes into host memory bypass nicd's cache (cksum.h). */
      sum = e2l ? hw_csum_copy(sp, hp, d->len) : hw_csum_copy_uncached(hp, sp, d->len);
      hw_csum_append(&ch->sum, sum, d->len);
      ch->st.bytes += d->len;
      nic_ctr_add(nic, HW_CTR_HDMA_BYTES, d->len);
    }
  }
  write_back(nic, at, sum, (uint32_t)st);
  if (st != NIC_HDMA_DONE) {
    chain_end(nic, c, st);
  } else {
    ch->st.descs++;
    nic_ctr_add(nic, HW_CTR_HDMA_DESCS, 1);
    if (d->flags & NIC_HDMA_WAKE) nic_isr_set(nic, NIC_ISR_WAKE(c));
    if (d->flags & NIC_HDMA_TERMINAL) {
      chain_end(nic, c, NIC_HDMA_DONE);
    } else if (ch->st.descs >= NIC_HDMA_MAX_CHAIN || !desc_ok(nic, d->next)) {
      ch->st.cur = d->next;
      chain_end(nic, c, NIC_HDMA_EDESC);
    } else {
      ch->st.cur = d->next;
    }
  }
  nic_hdma_kick(nic);
}

const char *nic_hdma_status_name(enum nic_hdma_status s) {
  switch (s) {
  case NIC_HDMA_PENDING: return "pending";
  case NIC_HDMA_DONE: return "done";
  case NIC_HDMA_EPROT: return "outside registered memory";
  case NIC_HDMA_EPTAG: return "protection tag mismatch";
  case NIC_HDMA_EACCESS: return "access not allowed";
  case NIC_HDMA_ESRAM: return "SRAM range";
  case NIC_HDMA_EDESC: return "bad descriptor";
  case NIC_HDMA_EMAP: return "host segment unmappable";
  }
  return "?";
}
