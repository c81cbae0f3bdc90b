/* board_emu.h: the board HAL on the emulated NIC of hw/ (hosted C; nicd and the tests). */
#ifndef FW_BOARD_EMU_H
#define FW_BOARD_EMU_H

#include "../../hw/nic.h"
#include "fw_board.h"

struct fw_board {
  struct nic *nic;
  unsigned cpu;       /* the processor this board is the view of (0 with one processor) */
};

#endif
