/* fw_board_regs.h: the register page of the Verinic LANai card, the one contract between the
 * firmware's board HAL on the card (board_lanai.c) and the card's hardware, which nicd
 * emulates around the instruction-set simulator (nicd/iss_board.c). 32-bit
 * registers at FWB_REG_BASE + offset (the top 512 bytes of the address space); a register not
 * listed here, or a sub-word access, is a bus error. The engines run while the processor does:
 * status that spans several registers is latched by reading the first one. No databook gives
 * the offsets of a real
 * card: they mirror the emulated NIC's functions (hw/nic.h) one word per field. Freestanding. */
#ifndef FW_BOARD_REGS_H
#define FW_BOARD_REGS_H

#define FWB_REG_BASE 0xfffffe00u
#define FWB_REG_SIZE 0x200u

enum fwb_reg {
  /* events */
  FWB_R_ISR = 0x00,        /* read: the event register; write: clears the bits written */
  FWB_R_IMR = 0x04,        /* read/write: the event mask */
  FWB_R_EVENTS = 0x08,     /* read: ISR & IMR (reading it with nothing pending while the
                              class is IDLE means the processor is idle: the host may
                              suspend it until the hardware moves) */
  FWB_R_DB_TAKE = 0x0c,    /* read: the doorbells rung since the last read (and clears them) */
  FWB_R_HOST_IRQ = 0x10,   /* write: raises host signal bits */
  FWB_R_CLASS = 0x14,      /* write: the event class being handled (enum fwb_class), for the
                              processor's cycle counters */
  /* identity and time */
  FWB_R_NODE = 0x18,       /* read: node id */
  FWB_R_SRAM_SIZE = 0x1c,  /* read: SRAM bytes */
  FWB_R_CLOCK_LO = 0x20,   /* read: the board clock in ns (read HI, LO, HI again) */
  FWB_R_CLOCK_HI = 0x24,
  FWB_R_HDMA_BUSY_LO = 0x28, /* read: host DMA engine busy time in ns (LO first latches HI) */
  FWB_R_HDMA_BUSY_HI = 0x2c,
  FWB_R_SEND_BUSY_LO = 0x30, /* read: send engine busy time in ns (LO first latches HI) */
  FWB_R_SEND_BUSY_HI = 0x34,
  FWB_R_CPU_ID = 0x38,     /* read: this processor's number (0, or 1 on a two-processor card) */
  FWB_R_RESULT = 0x3c,     /* read: the result of the last command written (HDMA START,
                              SEND GO, RECV ARM/ABORT, TIMER): 0 or a negative error */
  /* host DMA: 4 channels of 16 bytes */
  FWB_R_HDMA = 0x40,       /* + 16 ch: START (write: chain address) */
  FWB_R_HDMA_STATUS = 0x44,/* + 16 ch: read: FWB_HDMA_BUSY | error (FWB_HDMA_DONE when clean);
                              latches SUM, so the two are one snapshot */
  FWB_R_HDMA_SUM = 0x48,   /* + 16 ch: read: the chain's ones'-complement sum (as latched) */
  FWB_R_HDMA_POLL = 0x4c,  /* + 16 ch: read: as STATUS, by a processor waiting for the channel:
                              while it is busy the engine advances to its next event */
  /* send engine */
  FWB_R_SEND_DST = 0x80, FWB_R_SEND_ADDR = 0x84, FWB_R_SEND_LEN = 0x88,
  FWB_R_SEND_GO = 0x8c,    /* write: flags (FWB_SEND_SML / SMLT): starts the fragment */
  /* receive engine */
  FWB_R_RECV_ADDR = 0x90,
  FWB_R_RECV_ARM = 0x94,   /* write: capacity: arms the engine at RECV_ADDR */
  FWB_R_RECV_STATE = 0x98, /* read: enum fwb_recv_state; latches LEN, FRAGS, SRC and FLAGS,
                              so the five are one snapshot while the engine goes on */
  FWB_R_RECV_LEN = 0x9c, FWB_R_RECV_FRAGS = 0xa0, FWB_R_RECV_SRC = 0xa4, FWB_R_RECV_FLAGS = 0xa8,
  FWB_R_RECV_ABORT = 0xac, /* write: gives up the message in progress */
  /* timers: 3 */
  FWB_R_TIMER = 0xb0,      /* + 4 t: write: delay in ns (saturated to 32 bits): starts it */
  /* host memory protection: the host DMA engine's region check, asked in advance */
  FWB_R_REGION_HOST_HI = 0xc0, FWB_R_REGION_HOST_LO = 0xc4, FWB_R_REGION_LEN = 0xc8,
  FWB_R_REGION_PTAG = 0xcc,
  FWB_R_REGION_ACCESS = 0xd0, /* write: FWB_ACC_READ / WRITE: runs the check */
  FWB_R_REGION_VERDICT = 0xd4, /* read: enum fwb_region_verdict of the last check */
  /* peer DMA into another NIC's SRAM (hw/peerdma.h) */
  FWB_R_PEER_NODE = 0xd8, FWB_R_PEER_FROM = 0xdc, FWB_R_PEER_TO = 0xe0,
  FWB_R_PEER_LEN = 0xe4,   /* write: length: runs the copy (RESULT) */
  /* two processors: each has its own page at the same addresses (its events, mask, CPU_ID) */
  FWB_R_SEM = 0x100,       /* read: 1 if this processor now holds the firmware semaphore, 0 if
                              the other does; write: gives it back */
  FWB_R_KICK = 0x104,      /* read: this processor's doorbell from the other (and lowers it);
                              write: raises the other's */
  FWB_R_NCPUS = 0x108,     /* read: the card's processors (1, or 2) */
};

#define FWB_HDMA_CH_STRIDE 16u
#define FWB_HDMA_BUSY 0x80000000u
#define FWB_HDMA_ERROR_MASK 0xffu
#define FWB_NTIMERS 3u
#define FWB_NHDMA 4u

#endif
