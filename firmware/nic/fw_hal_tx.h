/* fw_hal_tx.h: the send side of the data path's HAL (fw_hal_tx.c; the datapath_hal_* functions
 * it defines are declared by the generated datapath_hal.h). Freestanding. */
#ifndef FW_HAL_TX_H
#define FW_HAL_TX_H

#include "fw.h"

/* SDMA's first host DMA into send buffer buf (hdma_start, offset 0) binds the
 * oldest queued message to it and writes its header there. */
void fw_hal_tx_bind(struct fw *fw, uint8_t buf);

#endif
