/* fw_vm_prog.c: the PANIC VM's program table: boot, load (program memory from fw_vm_mem.c,
 * then firmware/vm's loader and verifier on its own copy of the image), unload, list, and
 * look-up by program id. A program whose code holds a DELIVER or GET opcode byte anywhere (an
 * over-approximation: operand bytes count too) "may DMA": the dispatcher runs it holding the
 * host DMA engine. Freestanding. */
#include "fw_vm_prog.h"

#include "fw_sram.h"
#include "vm_ops.h"
#include "window.h"

_Static_assert(FW_VM_PMEM + 16u * FW_VM_PMEM_MIN <= HW_SRAM_DEFAULT,
               "a default board's SRAM leaves the VM room for its programs");

void fw_vm_prog_init(struct fw *fw) {
  struct fw_vm *v = &fw->vm;
  uint32_t size = fwb_sram_size(fw->board);
  v->on = size >= FW_VM_PMEM + FW_VM_PMEM_MIN;
  if (!v->on) return;
  fw_vm_mem_init(&v->mem, size - FW_VM_PMEM);
  v->next_gen = 1;
  v->next_req = 1;
  fw_sram_wr32(fw, HOSTIF_PANIC_BASE + offsetof(struct hostif_panic, node), fw->node);
  fw_sram_release();
  fw_sram_wr32(fw, HOSTIF_PANIC_BASE + offsetof(struct hostif_panic, magic), HOSTIF_PANIC_MAGIC);
}

int fw_vm_prog_find(struct fw *fw, uint32_t id) {
  for (unsigned i = 0; i < FW_VM_NPROG; i++)
    if (fw->vm.prog[i].used && fw->vm.prog[i].id == id) return (int)i;
  return -1;
}

static bool may_dma(const struct vm_program *p) {
  for (uint32_t i = 0; i < p->code_size; i++)
    if (p->code[i] == VM_OP_DELIVER || p->code[i] == VM_OP_GET) return true;
  return false;
}

uint32_t fw_vm_prog_load(struct fw *fw, uint32_t id, uint32_t img, uint32_t len, uint32_t *err,
                    uint32_t *off) {
  struct fw_vm *v = &fw->vm;
  *err = VM_ERR_OK;
  *off = 0;
  if (len == 0 || len > HOSTIF_PANIC_DATA_MAX) return HOSTIF_PANIC_EINVAL;
  if (fw_vm_prog_find(fw, id) >= 0) return HOSTIF_PANIC_EEXIST;
  unsigned slot = 0;
  while (slot < FW_VM_NPROG && v->prog[slot].used) slot++;
  if (slot == FW_VM_NPROG) return HOSTIF_PANIC_ENOSPC;
  struct fw_vm_prog *pr = &v->prog[slot];
  const uint8_t *image = fw->sram + img;
  struct vm_diag d = {VM_ERR_OK, 0};
  size_t need = vm_mem_needed(image, len);
  if (need == 0) { /* the header is unusable: the loader says why */
    (void)vm_load(&pr->p, image, len, fw->sram + FW_VM_PMEM, 0, &d);
    *err = d.code;
    *off = d.offset;
    return HOSTIF_PANIC_EREJECT;
  }
  int32_t at = need <= 0x7fffffffu ? fw_vm_mem_alloc(&v->mem, slot, (uint32_t)need) : -1;
  if (at < 0) {
    *err = VM_ERR_NO_MEMORY;
    return HOSTIF_PANIC_ENOSPC;
  }
  if (!vm_load(&pr->p, image, len, fw->sram + FW_VM_PMEM + (uint32_t)at, need, &d)) {
    (void)fw_vm_mem_free(&v->mem, slot);
    *err = d.code;
    *off = d.offset;
    return HOSTIF_PANIC_EREJECT;
  }
  pr->used = true;
  pr->id = id;
  pr->gen = v->next_gen++;
  pr->aborts_row = 0;
  pr->activations = 0;
  pr->may_dma = may_dma(&pr->p);
  return HOSTIF_PANIC_OK;
}

uint32_t fw_vm_prog_unload(struct fw *fw, uint32_t id) {
  int slot = fw_vm_prog_find(fw, id);
  if (slot < 0) return HOSTIF_PANIC_ENOENT;
  struct fw_vm_prog *pr = &fw->vm.prog[slot];
  pr->used = false;
  pr->p.state = VM_PS_EMPTY;
  (void)fw_vm_mem_free(&fw->vm.mem, (uint32_t)slot);
  return HOSTIF_PANIC_OK; /* queued activations of it find its generation gone */
}

uint32_t fw_vm_prog_list(struct fw *fw, uint32_t list_addr) {
  uint32_t n = 0;
  for (unsigned i = 0; i < FW_VM_NPROG; i++) {
    const struct fw_vm_prog *pr = &fw->vm.prog[i];
    if (!pr->used) continue;
    struct hostif_panic_prog e = {0};
    e.id = pr->id;
    e.state = (uint32_t)pr->p.state;
    e.mem = fw->vm.mem.len[i];
    e.aborts = pr->p.aborts;
    e.activations = pr->activations;
    for (unsigned k = 0; k < sizeof e.name && k < VM_NAME_LEN; k++) e.name[k] = pr->p.name[k];
    fw_sram_panic_prog_out(fw, list_addr + n * (uint32_t)sizeof e, &e);
    n++;
  }
  return n;
}
