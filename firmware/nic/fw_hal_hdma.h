/* fw_hal_hdma.h: the host DMA side of the data path's HAL (fw_hal_hdma.c; proved, module
 * fw-hal-hdma; its datapath_hal_* functions are declared by the generated datapath_hal.h).
 * Freestanding. */
#ifndef FW_HAL_HDMA_H
#define FW_HAL_HDMA_H

#include "fw.h"

/* Host DMA channel ch (SDMA's or RDMA's) woke: the payload sum is folded in, a send message's
 * trailer written once its payload is all in SRAM, and the machine's event raised. */
/*@ requires fw_ok(fw) && ch <= FW_CH_RDMA;
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1];
    ensures fw_ok(fw) && fw_same{Old, Here}(fw); */
void fw_hal_hdma_wake(struct fw *fw, unsigned ch);

#endif
