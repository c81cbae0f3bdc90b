/* fw_vm_prog.h: the PANIC VM's program table (fw_vm_prog.c): load, unload, list, look-up by id.
 * Freestanding. */
#ifndef FW_VM_PROG_H
#define FW_VM_PROG_H

#include "fw.h"

/* Starts the VM, if the SRAM has room for its program memory (FW_VM_PMEM_MIN). */
void fw_vm_prog_init(struct fw *fw);
int fw_vm_prog_find(struct fw *fw, uint32_t id);          /* slot of program id, or -1 */
/* Loads the image at SRAM address img (len bytes) as program id: a hostif_panic_status;
 * *err and *off tell why the verifier rejected it. */
uint32_t fw_vm_prog_load(struct fw *fw, uint32_t id, uint32_t img, uint32_t len, uint32_t *err,
                         uint32_t *off);
uint32_t fw_vm_prog_unload(struct fw *fw, uint32_t id);
/* Fills done.list; the number of programs. */
uint32_t fw_vm_prog_list(struct fw *fw, uint32_t list_addr);

#endif
