/* libnic internals shared by its files: SRAM access with the right ordering, the
 * process-wide map of shared segments (the pages libnic made DMA-able), and helpers. */
#ifndef LIBNIC_INTERNAL_H
#define LIBNIC_INTERNAL_H

#include "libnic.h"

/* nic_fork.c: the open devices, whose locks fork() takes (lnic_open, lnic_close). */
void lnic_fork_track(struct lnic_dev *d);
void lnic_fork_untrack(struct lnic_dev *d);

/* SRAM words another process writes: loads acquire, stores release. */
static inline uint32_t sram_ld32(const volatile uint32_t *p) {
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
static inline void sram_st32(volatile uint32_t *p, uint32_t v) {
  __atomic_store_n(p, v, __ATOMIC_RELEASE);
}
static inline bool sram_cas32(volatile uint32_t *p, uint32_t expect, uint32_t v) {
  return __atomic_compare_exchange_n(p, &expect, v, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* A shared memory segment mapped at a fixed place of this process: either memory libnic
 * allocated (lnic_alloc), or ordinary pages it moved into a segment in place. */
struct lnic_seg {
  struct hostmem hm;   /* hm.base == start, hm.len == length */
  unsigned refs;          /* registrations using it (+1 while lnic_alloc owns it) */
  bool allocated;         /* from lnic_alloc */
  struct lnic_seg *next;
};

/* Makes [start, start+len) (page aligned) DMA-able: returns the segments covering it, in
 * address order, creating segments for the pages not yet in one. Each returned segment's
 * refs is incremented. -EINVAL / -EACCES / -ENOMEM, or the count. */
int lnic_seg_cover(uintptr_t start, size_t len, struct lnic_seg **segs, unsigned max);
void lnic_seg_put(struct lnic_seg *s);
/* Registered a piece [addr, addr+len) of s: id or -errno. */
int lnic_seg_region(struct hwin *w, struct lnic_seg *s, uintptr_t addr, size_t len,
                   uint32_t ptag);

bool lnic_dead_check(struct lnic_dev *d, bool force);
/* Timing mode: d is being closed; this process's virtual time no longer looks at it. */
void lnic_vt_forget(struct lnic_dev *d);

#endif
