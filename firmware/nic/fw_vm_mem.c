/* fw_vm_mem.c: program memory for the PANIC VM, one block per program slot in the SRAM above
 * the data path's buffers. First fit over at most FW_VM_NPROG blocks: a candidate offset is 0
 * or the end of a block, and it is taken if the new block fits in the memory and overlaps no
 * block in use. No slot ever holds two blocks, blocks never overlap, and freeing a slot gives
 * back exactly the block it was given. Contracts in fw_vm_mem.h, for Frama-C/WP. Freestanding. */
#include "fw_vm_mem.h"

void fw_vm_mem_init(struct fw_vm_mem *m, uint32_t size) {
  m->size = size;
  /*@ loop invariant 0 <= i <= FW_VM_NPROG;
      loop invariant \forall integer k; 0 <= k < i ==> !m->used[k];
      loop assigns i, m->used[0 .. FW_VM_NPROG - 1], m->off[0 .. FW_VM_NPROG - 1],
                   m->len[0 .. FW_VM_NPROG - 1];
      loop variant FW_VM_NPROG - i; */
  for (uint32_t i = 0; i < FW_VM_NPROG; i++) {
    m->used[i] = false;
    m->off[i] = 0;
    m->len[i] = 0;
  }
}

/* Does [off, off + len) fit in the memory and miss every block in use? */
/*@ requires mem_ok(m);
    assigns \nothing;
    ensures \result ==> off + len <= m->size;
    ensures \result ==> \forall integer i; 0 <= i < FW_VM_NPROG && m->used[i] ==>
              off + len <= m->off[i] || m->off[i] + m->len[i] <= off; */
static bool fits(const struct fw_vm_mem *m, uint32_t off, uint32_t len) {
  if (off > m->size || len > m->size - off) return false;
  /*@ loop invariant 0 <= i <= FW_VM_NPROG;
      loop invariant \forall integer k; 0 <= k < i && m->used[k] ==>
        off + len <= m->off[k] || m->off[k] + m->len[k] <= off;
      loop assigns i;
      loop variant FW_VM_NPROG - i; */
  for (uint32_t i = 0; i < FW_VM_NPROG; i++)
    if (m->used[i] && off < m->off[i] + m->len[i] && m->off[i] < off + len) return false;
  return true;
}

int32_t fw_vm_mem_alloc(struct fw_vm_mem *m, uint32_t slot, uint32_t len) {
  if (slot >= FW_VM_NPROG || m->used[slot] || len == 0 || len > m->size || len > 0x7ffffff0u)
    return -1;
  len = (len + 3u) / 4u * 4u;
  if (len > m->size) return -1;
  /* Candidates: 0, then the end of each block in use. */
  /*@ loop invariant 0 <= c <= FW_VM_NPROG + 1;
      loop assigns c;
      loop variant FW_VM_NPROG + 1 - c; */
  for (uint32_t c = 0; c <= FW_VM_NPROG; c++) {
    uint32_t off;
    if (c == 0) off = 0;
    else if (m->used[c - 1]) off = m->off[c - 1] + m->len[c - 1];
    else continue;
    if (off > 0x7fffffffu) continue; /* not representable in the int32_t result */
    if (fits(m, off, len)) {
      m->off[slot] = off;
      m->len[slot] = len;
      m->used[slot] = true;
      return (int32_t)off;
    }
  }
  return -1;
}

uint32_t fw_vm_mem_free(struct fw_vm_mem *m, uint32_t slot) {
  if (slot >= FW_VM_NPROG || !m->used[slot]) return 0;
  m->used[slot] = false;
  return m->len[slot];
}
