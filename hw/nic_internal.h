/* The NIC's private state, shared by the files that implement its parts. */
#ifndef HW_NIC_INTERNAL_H
#define HW_NIC_INTERNAL_H

#include <stdatomic.h>

#include "cksum.h"
#include "cpus.h"
#include "nic.h"

struct hdma_chan {
  bool busy;
  struct nic_hdma_chan_status st;
  struct hw_csum sum;
};

struct seg_map {
  uint32_t gen;       /* region generation this mapping was made for; 0: none */
  uint8_t *map;
  size_t len;
};

struct nic {
  struct nic_config cfg;
  struct hwin win;
  struct hw_regs *regs;
  uint8_t *sram;
  uint32_t sram_size;
  uint64_t now;

  struct fabric *fab;
  bool link_up;

  struct {
    bool armed;
    uint64_t due;
  } timer[NIC_TIMERS];

  struct {
    struct hdma_chan ch[NIC_HDMA_CHANNELS];
    int active;                 /* channel whose descriptor is in flight, or -1 */
    struct nic_hdma_desc desc;  /* that descriptor, as fetched */
    enum nic_hdma_status pre;   /* error found when it was fetched, or NIC_HDMA_DONE */
    uint64_t due;
    unsigned rr;                /* next channel to serve */
  } hdma;

  struct {
    bool busy;
    uint16_t dst;
    uint32_t sram, len;
    unsigned flags;
    uint64_t due;
    int open_dst;               /* destination of a message left open by SML, or -1 */
    uint32_t frame;
  } send;

  struct {
    uint32_t base, cap;
    struct nic_recv_status st;
    int lock;                   /* source of the message in progress, or FAB_ANY */
  } recv;

  struct seg_map seg[HW_REGIONS];
  unsigned region_hint;         /* the region the last translation found (iommu.c) */
  struct nic_cpus cpus;         /* the firmware processors (cpus.c) */
};

/* Hardware sets ISR bits. */
static inline void nic_isr_set(struct nic *nic, uint32_t bits) {
  atomic_fetch_or_explicit(&nic->regs->isr, bits, memory_order_relaxed);
}

static inline void nic_ctr_add(struct nic *nic, enum hw_ctr c, uint64_t v) {
  atomic_fetch_add_explicit(&nic->regs->ctr[c], v, memory_order_relaxed);
}

/* Emulated duration of moving len bytes. */
/* Reports a busy interval to nic_config.trace, if set. */
void nic_trace(struct nic *nic, enum nic_engine e, uint64_t start_ns, uint64_t end_ns);
uint64_t nic_xfer_ns(const struct nic *nic, uint64_t bytes_per_s, uint64_t latency_ns,
                     uint64_t len);
bool nic_sram_ok(const struct nic *nic, uint32_t addr, uint64_t len);

uint64_t nic_timer_due(const struct nic *nic, unsigned *which);
void nic_timer_fire(struct nic *nic, unsigned t);

uint64_t nic_hdma_due(const struct nic *nic);
void nic_hdma_fire(struct nic *nic);
void nic_hdma_kick(struct nic *nic);

uint64_t nic_send_due(const struct nic *nic);
void nic_send_fire(struct nic *nic);

uint64_t nic_recv_due(struct nic *nic);
void nic_recv_fire(struct nic *nic);

void nic_doorbells_sync(struct nic *nic);

/* Finds the registered region holding [host, host + len) with this ptag and access and maps
 * it: NIC_HDMA_DONE and *p, or the error to report. */
enum nic_hdma_status nic_iommu_map(struct nic *nic, uint64_t host, uint32_t len, uint32_t ptag,
                                   uint32_t access, uint8_t **p);
void nic_iommu_release(struct nic *nic);

#endif
