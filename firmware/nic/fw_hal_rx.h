/* fw_hal_rx.h: the receive side of the data path's HAL (fw_hal_rx.c; proved, module fw-hal-rx;
 * its datapath_hal_* functions are declared by the generated datapath_hal.h). Freestanding. */
#ifndef FW_HAL_RX_H
#define FW_HAL_RX_H

#include "fw.h"

/* The receive engine moved (HEAD, RECV, BUFF): how much of the message is in SRAM, its header
 * once it is there; wakes RECV. */
/*@ requires fw_ok(fw);
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1];
    ensures fw_ok(fw) && fw_same{Old, Here}(fw); */
void fw_hal_rx_progress(struct fw *fw);
/* The stall timer (TIMER0): a message that stopped growing for FW_RX_STALL_NS is aborted. */
/*@ requires fw_ok(fw);
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1];
    ensures fw_ok(fw) && fw_same{Old, Here}(fw); */
void fw_hal_rx_tick(struct fw *fw);

#endif
