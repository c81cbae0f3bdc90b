/* fw_dispatch.h: the event dispatcher, the firmware's main loop body (fw_dispatch.c; proved,
 * module fw-dispatch). Freestanding. */
#ifndef FW_DISPATCH_H
#define FW_DISPATCH_H

#include "fw.h"

/* Handles every pending event, runs the data path until nothing is enabled;
 * returns true if it did anything. Call after the hardware has moved (nic_advance). */
/*@ requires fw_ok(fw);
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1], *fw_counters(fw->sram), fwb_isr_cleared;
    ensures fw_ok(fw) && fw_same{Old, Here}(fw); */
bool fw_dispatch_poll(struct fw *fw);

#endif
