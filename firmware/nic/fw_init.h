/* fw_init.h: booting the firmware of one NIC (fw_init.c). Freestanding. */
#ifndef FW_INIT_H
#define FW_INIT_H

#include "fw.h"

/* Lays out the SRAM, clears the VI table and counters, starts the data path and the PANIC VM,
 * unmasks the events and publishes the host interface. 0, or -1 when the SRAM is too small for
 * the host interface and the buffers. */
int fw_init(struct fw *fw, struct fw_board *board, const struct fw_config *cfg);

#endif
