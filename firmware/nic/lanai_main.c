/* lanai_main.c: the firmware's entry on a LANai card (crt0 calls main): boot the firmware on
 * the board's registers and run the dispatcher forever. The card's processor has nothing else
 * to do, so it polls (a host-side daemon sleeps instead; see nicd). On a card with two
 * processors, main runs processor 0's side (fw_cpus.h) and processor 1 starts in main_cpu1
 * (lanai_cpu1.S), once processor 0 has booted the firmware. Freestanding. */
#include "fw_cpus.h"
#include "fw_dispatch.h"
#include "fw_init.h"

int main(void);
int main_cpu1(void);

static struct fw fw_state;

/* Fine-grained pipelining unless nicd --coarse --lanai cleared this word in SRAM before it
 * released the processor (nicd/lanai.c, lanai_patch): the card has no other configuration. */
volatile unsigned fw_lanai_fine_mode = 1;
static struct fw_board *const board = 0; /* board_lanai.c keeps no state */

/* Processor 1 waits for processor 0's fw_init. Initialised data, so that the image itself
 * says "booting" (SRAM is not cleared at reset, and .bss is cleared by processor 0 only). */
#define FW_LANAI_BOOTING 0xb0075u
#define FW_LANAI_UP 1u
static volatile unsigned fw_lanai_boot = FW_LANAI_BOOTING;

int main(void) {
  struct fw_config cfg = {.fine_mode = fw_lanai_fine_mode != 0};
  if (fw_init(&fw_state, board, &cfg) != 0) return 1;
  if (fwb_ncpus(board) == 2) {
    fw_cpus_start(&fw_state, board, 0);
    fw_lanai_boot = FW_LANAI_UP;
    for (;;) (void)fw_cpus_poll(&fw_state, board, 0);
  }
  for (;;) (void)fw_dispatch_poll(&fw_state);
}

int main_cpu1(void) {
  while (fw_lanai_boot != FW_LANAI_UP) {}
  fw_cpus_start(&fw_state, board, 1);
  for (;;) (void)fw_cpus_poll(&fw_state, board, 1);
}
