/* lanai_run_io.h: the test bus of lanai-run (hw/lanai/lanai_run.c), shared with the LANai
 * programs it runs: a console, an exit register and two counters in the register page. */
#ifndef LANAI_RUN_IO_H
#define LANAI_RUN_IO_H

#define LRUN_CONSOLE 0xfffffff0u /* write: the low byte goes to stdout */
#define LRUN_EXIT    0xfffffff4u /* write: stop; the value is the exit status */
#define LRUN_CYCLES  0xfffffff8u /* read: cycles so far (low 32 bits) */
#define LRUN_INSNS   0xfffffffcu /* read: instructions so far (low 32 bits) */

#endif
