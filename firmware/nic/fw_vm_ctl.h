/* fw_vm_ctl.h: the host command mailbox of the PANIC VM, and commands forwarded to or from a peer
 * NIC (fw_vm_ctl.c; firmware/vm/CONTROL.md). Its event handlers carry the dispatcher's handler
 * contract (fw_ok kept, fw.h). Freestanding. */
#ifndef FW_VM_CTL_H
#define FW_VM_CTL_H

#include "fw.h"

/*@ requires fw_ok(fw);
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1];
    ensures fw_ok(fw) && fw_same{Old, Here}(fw); */
void fw_vm_ctl_doorbell(struct fw *fw);                   /* doorbell HOSTIF_DOORBELL_PANIC */
/*@ requires fw_ok(fw);
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1];
    ensures fw_ok(fw) && fw_same{Old, Here}(fw); */
void fw_vm_ctl_tick(struct fw *fw);                       /* timer FW_TIMER_VM */
/* Sends what a forwarded LOAD has left to send, as far as the send queue has room. */
/*@ requires fw_ok(fw);
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1];
    ensures fw_ok(fw) && fw_same{Old, Here}(fw); */
void fw_vm_ctl_pump(struct fw *fw);
/* A control request or reply from a peer (its PANIC view, payload in SRAM). */
void fw_vm_ctl_request(struct fw *fw, const struct fw_wire_panic *k, uint32_t payload);
void fw_vm_ctl_reply(struct fw *fw, const struct fw_wire_panic *k, uint32_t payload);
/* Completes the mailbox's command. */
void fw_vm_ctl_done(struct fw *fw, uint32_t status, uint32_t result, uint32_t detail);

#endif
