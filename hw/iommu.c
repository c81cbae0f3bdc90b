/* Host address translation for the host DMA engine: the region table in the window says which
 * host ranges the NIC may touch, with which protection tag and direction. The table is written
 * by other processes, so each entry is copied and re-checked against its generation, and the
 * final bound is the NIC's own mapping of the segment, whatever the table says. */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nic_internal.h"

static void unmap(struct seg_map *s) {
  if (s->map) munmap(s->map, s->len);
  s->map = NULL;
  s->len = 0;
  s->gen = 0;
}

static bool map_segment(struct seg_map *s, const char *name, uint32_t gen) {
  if (s->map && s->gen == gen) return true;
  unmap(s);
  if (strncmp(name, HOSTMEM_PREFIX, strlen(HOSTMEM_PREFIX)) != 0) return false;
  int fd = shm_open(name, O_RDWR, 0);
  if (fd < 0) return false;
  struct stat st;
  void *p = MAP_FAILED;
  if (fstat(fd, &st) == 0 && st.st_size > 0)
    p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) return false;
  s->map = p;
  s->len = (size_t)st.st_size;
  s->gen = gen;
  return true;
}

/* A consistent copy of a valid region entry. */
struct region_copy {
  uint32_t gen, ptag, access;
  uint64_t base, len, seg_off;
  char name[HOSTMEM_NAME_LEN];
};

/* Region id's verdict on [host, host + len) with this tag and access: DONE (and a consistent
 * copy in *rc), EPROT when it is not valid or does not cover the range, else EPTAG or EACCESS.
 * The range is checked before the rest is copied: a table of many regions costs a DMA a few
 * loads per region, not a copy of each. */
static enum nic_hdma_status try_region(struct nic *nic, unsigned id, uint64_t host, uint32_t len,
                                       uint32_t ptag, uint32_t access, struct region_copy *rc) {
  struct hw_region *g = &nic->win.regions[id];
  if (atomic_load_explicit(&g->state, memory_order_acquire) != HW_REGION_VALID)
    return NIC_HDMA_EPROT;
  rc->gen = atomic_load(&g->gen);
  rc->base = g->host_base, rc->len = g->len;
  if (host < rc->base || host - rc->base > rc->len || len > rc->len - (host - rc->base))
    return NIC_HDMA_EPROT;
  rc->seg_off = g->seg_off;
  rc->ptag = g->ptag, rc->access = g->access;
  memcpy(rc->name, g->seg, sizeof rc->name);
  rc->name[sizeof rc->name - 1] = 0;
  atomic_thread_fence(memory_order_acquire);
  if (atomic_load(&g->state) != HW_REGION_VALID || atomic_load(&g->gen) != rc->gen ||
      g->host_base != rc->base || g->len != rc->len)
    return NIC_HDMA_EPROT;
  if (rc->ptag != ptag) return NIC_HDMA_EPTAG;
  uint32_t want = access & HW_ACC_DIR_MASK, key = access >> HW_ACC_KEY_SHIFT;
  if ((rc->access & want) != want || (key && rc->access >> HW_ACC_KEY_SHIFT != key))
    return NIC_HDMA_EACCESS;
  return NIC_HDMA_DONE;
}

/* The region that allows [host, host + len) with this tag and access (its id, and a copy in
 * *rc), or -1 with the verdict: EPROT, EPTAG or EACCESS (the last of those met). The region of
 * the last translation is tried first: a stream's DMAs hit the same one. */
static int lookup(struct nic *nic, uint64_t host, uint32_t len, uint32_t ptag, uint32_t access,
                  struct region_copy *rc, enum nic_hdma_status *verdict) {
  unsigned hint = nic->region_hint % HW_REGIONS;
  enum nic_hdma_status err = try_region(nic, hint, host, len, ptag, access, rc);
  if (err == NIC_HDMA_DONE) {
    *verdict = NIC_HDMA_DONE;
    return (int)hint;
  }
  for (unsigned id = 0; id < HW_REGIONS; id++) {
    if (id == hint) continue;
    enum nic_hdma_status v = try_region(nic, id, host, len, ptag, access, rc);
    if (v == NIC_HDMA_DONE) {
      nic->region_hint = id;
      *verdict = NIC_HDMA_DONE;
      return (int)id;
    }
    if (v == NIC_HDMA_EACCESS || (v == NIC_HDMA_EPTAG && err == NIC_HDMA_EPROT)) err = v;
  }
  *verdict = err;
  return -1;
}

enum nic_hdma_status nic_region_check(struct nic *nic, uint64_t host, uint32_t len, uint32_t ptag,
                                      uint32_t access) {
  struct region_copy rc;
  enum nic_hdma_status v;
  (void)lookup(nic, host, len, ptag, access, &rc, &v);
  return v;
}

enum nic_hdma_status nic_iommu_map(struct nic *nic, uint64_t host, uint32_t len, uint32_t ptag,
                                   uint32_t access, uint8_t **p) {
  struct region_copy rc;
  enum nic_hdma_status v;
  int id = lookup(nic, host, len, ptag, access, &rc, &v);
  if (id < 0) return v;
  struct seg_map *s = &nic->seg[id];
  /* gen is never 0 for a published entry (hwin_region_add bumps it), so 0 marks no mapping. */
  if (rc.gen == 0 || !map_segment(s, rc.name, rc.gen)) return NIC_HDMA_EMAP;
  uint64_t off = rc.seg_off + (host - rc.base);
  if (off < rc.seg_off || off > s->len || len > s->len - off) return NIC_HDMA_EMAP;
  *p = s->map + off;
  return NIC_HDMA_DONE;
}

void nic_iommu_release(struct nic *nic) {
  for (unsigned id = 0; id < HW_REGIONS; id++) unmap(&nic->seg[id]);
}
