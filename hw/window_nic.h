/* The NIC's side of the window whose layout iface/window.h defines: what only the NIC's
 * process does with it (nicd through hw/nic.c, and tests that play a NIC). */
#ifndef HW_WINDOW_NIC_H
#define HW_WINDOW_NIC_H

#include "window.h"

/* Creates the window, named (shm_open, for nicd) or anonymous (name NULL: memfd, shared with
 * children through fd). 0 or -errno. */
int hwin_create(struct hwin *w, const char *name, uint32_t sram_size, uint16_t node);
/* Marks the NIC stopped, wakes every waiting host, unlinks the name and unmaps. */
void hwin_destroy(struct hwin *w);
/* Raises signal bits for the hosts (wait_signal wakes). */
void hwin_signal_host(struct hwin *w, uint32_t bits);
/* The NIC's processor stopped in a fault (regs.cpu says which): state FAULTED, and every
 * waiting host wakes to find it not alive (-EPIPE). */
void hwin_fault(struct hwin *w);

#endif
