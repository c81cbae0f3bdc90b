/* lanai_main.c: the firmware's entry on a LANai card (crt0 calls main): boot the firmware on
 * the board's registers and run the dispatcher forever. The card's processor has nothing else
 * to do, so it polls (a host-side daemon sleeps instead; see nicd). Freestanding. */
#include "fw_dispatch.h"
#include "fw_init.h"

int main(void);

static struct fw fw_state;

/* Fine-grained pipelining unless nicd --coarse --lanai cleared this word in SRAM before it
 * released the processor (nicd/lanai.c, lanai_patch): the card has no other configuration. */
volatile unsigned fw_lanai_fine_mode = 1;
static struct fw_board *const board = 0; /* board_lanai.c keeps no state */

int main(void) {
  struct fw_config cfg = {.fine_mode = fw_lanai_fine_mode != 0};
  if (fw_init(&fw_state, board, &cfg) != 0) return 1;
  for (;;) (void)fw_dispatch_poll(&fw_state);
}
