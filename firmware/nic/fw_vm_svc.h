/* fw_vm_svc.h: the NIC services a PANIC program uses (fw_vm_svc.c): SEND, DELIVER/GET, CLOCK,
 * DISPLAY. Freestanding. */
#ifndef FW_VM_SVC_H
#define FW_VM_SVC_H

#include "fw.h"

/* The services table the interpreter calls (vm.h). */
const struct vm_services *fw_vm_svc_table(struct fw *fw);
/* PANIC address (hi:lo) -> node: false if there is no route. */
bool fw_vm_svc_route(struct fw *fw, uint32_t hi, uint32_t lo, uint16_t *node);

#endif
