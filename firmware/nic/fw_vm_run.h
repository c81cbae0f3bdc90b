/* fw_vm_run.h: the PANIC VM's activation queue (fw_vm_run.c, which also defines the VM machine's
 * HAL, datapath_hal_vm_*, declared by the generated datapath_hal.h). Freestanding. */
#ifndef FW_VM_RUN_H
#define FW_VM_RUN_H

#include "fw.h"

/* Queues an activation of program id (start: its initial block; else trigger with the message
 * at SRAM address msg, len bytes): a hostif_panic_status (ENOENT, ESTATE, EBUSY, OK). */
uint32_t fw_vm_run_queue(struct fw *fw, uint32_t id, bool start, uint32_t trigger, uint32_t msg,
                         uint32_t len, const struct fw_vm_act *reply);
/* The activation has ended: its answer (hostif status and vm_result) goes to whoever waits. */
void fw_vm_run_answer(struct fw *fw, const struct fw_vm_act *a, uint32_t status, uint32_t result);

#endif
