/* pn_nicd.h: a private nicd for the PANIC tests and benchmark: its own run directory and
 * window names (/vptPID-nicN), so it never meets another nicd on this machine. */
#ifndef PN_NICD_H
#define PN_NICD_H

#include <stdbool.h>
#include <sys/types.h>

/* Starts build/bin/nicd (or $NICD) with n NICs; sets VERINIC_RUN for children; waits until
 * every NIC's firmware is up. The pid, or -1 (with a message). */
pid_t pn_nicd_start(int n, bool fast);
void pn_nicd_stop(pid_t pid);
/* The device name of NIC i ("/vptPID-nicI"), valid until the next call with the same i. */
const char *pn_dev(int i);

#endif
