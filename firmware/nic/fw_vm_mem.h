/* fw_vm_mem.h: the PANIC VM's program memory in SRAM, a small first-fit allocator
 * (fw_vm_mem.c; proved, module fw-vm-mem). Freestanding. */
#ifndef FW_VM_MEM_H
#define FW_VM_MEM_H

#include <stdbool.h>
#include <stdint.h>

#include "hostif.h"

#define FW_VM_NPROG      HOSTIF_PANIC_NPROG

struct fw_vm_mem {
  uint32_t size;                      /* bytes of program memory */
  bool used[FW_VM_NPROG];
  uint32_t off[FW_VM_NPROG], len[FW_VM_NPROG];   /* block of slot i, when used */
};

/*@ predicate mem_inside(struct fw_vm_mem *m) =
      \forall integer i; 0 <= i < FW_VM_NPROG && m->used[i] ==>
        0 < m->len[i] && m->off[i] + m->len[i] <= m->size;
    predicate mem_disjoint(struct fw_vm_mem *m) =
      \forall integer i, j; 0 <= i < FW_VM_NPROG && 0 <= j < FW_VM_NPROG && i != j &&
        m->used[i] && m->used[j] ==>
        m->off[i] + m->len[i] <= m->off[j] || m->off[j] + m->len[j] <= m->off[i];
    predicate mem_ok(struct fw_vm_mem *m) = \valid(m) && mem_inside(m) && mem_disjoint(m);
*/

/*@ requires \valid(m);
    assigns *m;
    ensures mem_ok(m) && m->size == size;
    ensures \forall integer i; 0 <= i < FW_VM_NPROG ==> !m->used[i]; */
void fw_vm_mem_init(struct fw_vm_mem *m, uint32_t size);

/* Gives slot a block of len bytes (rounded up to 4) that overlaps no other: its offset, or -1
 * (slot out of range or already holding a block, len 0 or too big, no gap large enough). */
/*@ requires mem_ok(m);
    assigns m->used[0 .. FW_VM_NPROG - 1], m->off[0 .. FW_VM_NPROG - 1],
            m->len[0 .. FW_VM_NPROG - 1];
    ensures mem_ok(m);
    ensures \result >= 0 ==> slot < FW_VM_NPROG && !\old(m->used[slot]) && m->used[slot] &&
                             m->off[slot] == \result && m->len[slot] >= len;
    ensures \result >= 0 ==> \forall integer i; 0 <= i < FW_VM_NPROG && i != slot ==>
                             m->used[i] == \old(m->used[i]) && m->off[i] == \old(m->off[i]) &&
                             m->len[i] == \old(m->len[i]);
    ensures \result < 0 ==> \forall integer i; 0 <= i < FW_VM_NPROG ==>
                             m->used[i] == \old(m->used[i]) && m->off[i] == \old(m->off[i]) &&
                             m->len[i] == \old(m->len[i]); */
int32_t fw_vm_mem_alloc(struct fw_vm_mem *m, uint32_t slot, uint32_t len);

/* Frees slot's block: the bytes it held (what fw_vm_mem_alloc gave it), 0 if it held none. */
/*@ requires mem_ok(m);
    assigns m->used[0 .. FW_VM_NPROG - 1];
    ensures mem_ok(m);
    ensures slot < FW_VM_NPROG && \old(m->used[slot]) ==> \result == \old(m->len[slot]) &&
                                                          !m->used[slot];
    ensures !(slot < FW_VM_NPROG && \old(m->used[slot])) ==> \result == 0;
    ensures \forall integer i; 0 <= i < FW_VM_NPROG && i != slot ==>
              m->used[i] == \old(m->used[i]); */
uint32_t fw_vm_mem_free(struct fw_vm_mem *m, uint32_t slot);

#endif
