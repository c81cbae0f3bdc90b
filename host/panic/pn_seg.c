/* pn_seg.c: shared memory segments between a host program and PANIC programs (PANIC 3.3):
 * DMA-able memory registered with the NIC under a fresh protection tag and entered in the
 * control area's segment table under an id, which DELIVER and GET name. In a segment made
 * with HOSTIF_PANIC_SEG_SYNC the first HOSTIF_PANIC_SYNC bytes hold 8 lock words and 8 flag words: the host sets locks and clears
 * flags, the NIC clears locks and sets flags (the firmware refuses a DELIVER that would do
 * otherwise). The host polls; no interrupt is involved, as in the paper. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pn_int.h"

int panic_seg_create(struct panic_dev *p, unsigned id, size_t len, uint32_t flags,
                     struct panic_seg **out) {
  if (id >= HOSTIF_PANIC_NSEG || len == 0 || len > UINT32_MAX ||
      (flags & ~HOSTIF_PANIC_SEG_SYNC) || ((flags & HOSTIF_PANIC_SEG_SYNC) && len < HOSTIF_PANIC_SYNC))
    return -EINVAL;
  volatile struct hostif_panic_seg *e = &p->area->seg[id];
  if (e->state == 1 && e->owner_pid != (uint32_t)getpid() &&
      !(kill((pid_t)e->owner_pid, 0) != 0 && errno == ESRCH))
    return -EEXIST;
  struct panic_seg *s = calloc(1, sizeof *s);
  if (!s) return -ENOMEM;
  s->p = p;
  s->id = id;
  s->len = len;
  s->base = lnic_alloc(len);
  if (!s->base) {
    free(s);
    return -ENOMEM;
  }
  memset(s->base, 0, len);
  s->ptag = lnic_ptag_new();
  s->mr = lnic_mem_register(p->nic, s->base, len, s->ptag);
  if (s->mr < 0) {
    int rc = s->mr;
    lnic_free(s->base);
    free(s);
    return rc;
  }
  e->state = 0;
  __atomic_thread_fence(__ATOMIC_RELEASE);
  e->ptag = s->ptag;
  e->addr = (uint64_t)(uintptr_t)s->base;
  e->len = (uint32_t)len;
  e->owner_pid = (uint32_t)getpid();
  e->flags = flags;
  s->sync = (flags & HOSTIF_PANIC_SEG_SYNC) != 0;
  __atomic_store_n(&e->state, 1u, __ATOMIC_RELEASE);
  *out = s;
  return 0;
}

void panic_seg_destroy(struct panic_seg *s) {
  if (!s) return;
  volatile struct hostif_panic_seg *e = &s->p->area->seg[s->id];
  if (e->owner_pid == (uint32_t)getpid()) __atomic_store_n(&e->state, 0u, __ATOMIC_RELEASE);
  lnic_mem_deregister(s->p->nic, s->mr);
  lnic_free(s->base);
  free(s);
}

void *panic_seg_base(struct panic_seg *s) { return s->base; }
size_t panic_seg_len(struct panic_seg *s) { return s->len; }

static uint32_t *word(struct panic_seg *s, unsigned i) { return (uint32_t *)s->base + i; }

int panic_lock_set(struct panic_seg *s, unsigned i) {
  if (i >= HOSTIF_PANIC_NLOCK || !s->sync) return -EINVAL;
  __atomic_store_n(word(s, i), 1u, __ATOMIC_RELEASE);
  return 0;
}

bool panic_lock_held(struct panic_seg *s, unsigned i) {
  return i < HOSTIF_PANIC_NLOCK && s->sync && __atomic_load_n(word(s, i), __ATOMIC_ACQUIRE) != 0;
}

static bool flag_up(void *arg) { return __atomic_load_n((uint32_t *)arg, __ATOMIC_ACQUIRE) != 0; }

/* The firmware raises no signal for a flag: looked at every 20 us of the process's time. */
int panic_flag_wait(struct panic_seg *s, unsigned i, int64_t timeout_ns, uint32_t *value) {
  if (i >= HOSTIF_PANIC_NLOCK || !s->sync) return -EINVAL;
  uint32_t *w = word(s, HOSTIF_PANIC_NLOCK + i);
  int rc = lnic_wait_until(s->p->nic, HOSTIF_SIG_PANIC, timeout_ns, 20000, flag_up, w);
  if (rc == 0 && value) *value = __atomic_load_n(w, __ATOMIC_ACQUIRE);
  return rc;
}

int panic_flag_clear(struct panic_seg *s, unsigned i) {
  if (i >= HOSTIF_PANIC_NLOCK || !s->sync) return -EINVAL;
  __atomic_store_n(word(s, HOSTIF_PANIC_NLOCK + i), 0u, __ATOMIC_RELEASE);
  return 0;
}
