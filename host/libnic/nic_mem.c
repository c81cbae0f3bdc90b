/* Memory registration: a registration is one region of the window's region table per shared
 * segment its pages span (normally one), all with the caller's protection tag. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "futex.h"
#include "nic_internal.h"

uint32_t lnic_ptag_new(void) {
  static _Atomic uint32_t ctr;
  uint32_t zero = 0;
  atomic_compare_exchange_strong(&ctr, &zero, (uint32_t)futex_now_ns() & 0xfff);
  uint32_t c = atomic_fetch_add(&ctr, 1) & 0xfff;
  uint32_t t = (((uint32_t)getpid() & 0xfff) << 12) | c;
  return t ? t : 1;
}

/* Lock held. The regions' access word: hw's read/write, the key, and the RDMA Write bit. */
static void mr_access(struct lnic_dev *d, int id, bool remote_write) {
  struct lnic_mr *m = &d->mr[id];
  uint32_t acc = HW_ACC_NIC_READ | HW_ACC_NIC_WRITE | (uint32_t)(id + 1) << HOSTIF_REGION_KEY_SHIFT |
                 (remote_write ? HOSTIF_REGION_RDMA_WRITE : 0);
  for (unsigned k = 0; k < m->npieces; k++) {
    struct hw_region *g = &d->win.regions[m->region[k]];
    __atomic_store_n(&g->access, acc, __ATOMIC_RELEASE);
    atomic_fetch_add(&g->gen, 1);   /* the NIC rereads the entry */
  }
}

int lnic_mem_set_rdma(struct lnic_dev *d, int id, bool remote_write) {
  if (!d || id < 0 || id >= NIC_MAX_MR) return -EINVAL;
  lnic_lock(d);
  int rc = d->mr[id].used ? 0 : -EINVAL;
  if (!rc) mr_access(d, id, remote_write);
  lnic_unlock(d);
  return rc;
}

int lnic_mem_register(struct lnic_dev *d, void *addr, size_t len, uint32_t ptag) {
  if (!d || !addr || len == 0 || ptag == 0) return -EINVAL;
  uintptr_t a = (uintptr_t)addr;
  if (a + len < a) return -EINVAL;
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t pstart = a & ~(page - 1), pend = (a + len + page - 1) & ~(page - 1);
  lnic_lock(d);
  int id = -1;
  for (int i = 0; i < NIC_MAX_MR; i++)
    if (!d->mr[i].used) {
      id = i;
      break;
    }
  if (id < 0) {
    lnic_unlock(d);
    return -ENOSPC;
  }
  struct lnic_mr *m = &d->mr[id];
  memset(m, 0, sizeof *m);
  int n = lnic_seg_cover(pstart, pend - pstart, m->seg, NIC_MR_PIECES);
  if (n < 0) {
    lnic_unlock(d);
    return n == -E2BIG ? -ENOSPC : n;
  }
  int rc = 0;
  for (int i = 0; i < n; i++) {
    uintptr_t lo = (uintptr_t)m->seg[i]->hm.base, hi = lo + m->seg[i]->hm.len;
    if (lo < a) lo = a;
    if (hi > a + len) hi = a + len;
    int r = lnic_seg_region(&d->win, m->seg[i], lo, hi - lo, ptag);
    if (r < 0) {
      rc = r;
      for (int j = 0; j < i; j++) hwin_region_remove(&d->win, m->region[j]);
      for (int j = 0; j < n; j++) lnic_seg_put(m->seg[j]);
      break;
    }
    m->region[i] = r;
  }
  if (rc == 0) {
    m->used = true;
    m->ptag = ptag;
    m->addr = a;
    m->len = len;
    m->npieces = (unsigned)n;
    mr_access(d, id, false);   /* keyed, closed to RDMA Writes until asked */
  }
  lnic_unlock(d);
  return rc ? rc : id;
}

int lnic_mem_deregister(struct lnic_dev *d, int id) {
  if (!d || id < 0 || id >= NIC_MAX_MR) return -EINVAL;
  lnic_lock(d);
  struct lnic_mr *m = &d->mr[id];
  if (!m->used) {
    lnic_unlock(d);
    return -ENOENT;
  }
  for (unsigned i = 0; i < m->npieces; i++) {
    hwin_region_remove(&d->win, m->region[i]);
    lnic_seg_put(m->seg[i]);
  }
  memset(m, 0, sizeof *m);
  lnic_unlock(d);
  return 0;
}

int lnic_mem_forget(struct lnic_dev *d, int id) {
  if (!d || id < 0 || id >= NIC_MAX_MR) return -EINVAL;
  lnic_lock(d);
  int rc = d->mr[id].used ? 0 : -ENOENT;
  if (!rc) memset(&d->mr[id], 0, sizeof d->mr[id]);
  lnic_unlock(d);
  return rc;
}

int lnic_mem_find(struct lnic_dev *d, const void *addr, size_t len, uint32_t ptag) {
  uintptr_t a = (uintptr_t)addr;
  for (int i = 0; i < NIC_MAX_MR; i++) {
    const struct lnic_mr *m = &d->mr[i];
    if (m->used && m->ptag == ptag && a >= m->addr && a - m->addr <= m->len &&
        len <= m->len - (a - m->addr))
      return i;
  }
  return -ENOENT;
}
