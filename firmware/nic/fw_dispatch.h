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

/* Its parts, for the two-processor firmware (fw_cpus.c): the handlers of the events in ev
 * (each bit counted and cleared first, then the classes in priority order), and the counters
 * published to hosts (hostif_counters). */
/*@ requires fw_ok(fw);
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1], fwb_isr_cleared;
    ensures fw_ok(fw) && fw_same{Old, Here}(fw);
    ensures fwb_isr_cleared == (\old(fwb_isr_cleared) | ev); */
void fw_dispatch_events(struct fw *fw, uint32_t ev);
/*@ requires fw_ok(fw);
    assigns *fw_counters(fw->sram); */
void fw_dispatch_publish(struct fw *fw);

#endif
