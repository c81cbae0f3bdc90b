/* Starting and stopping a private nicd for end-to-end tests and the benchmark: its own run
 * directory (socket, hosts file), NICs nic0..nic<n-1>. */
#ifndef NICD_RUN_H
#define NICD_RUN_H

#include <stdbool.h>
#include <sys/types.h>

/* Starts build/bin/nicd (or $NICD) with n NICs; sets VERINIC_RUN for this process and its
 * children; waits until every NIC's firmware is up. The pid, or -1 (with a message). */
pid_t nicd_start(int n, bool fast);
/* SIGTERM (or SIGKILL when kill9), then reaps it and removes the run directory. */
void nicd_stop(pid_t pid, bool kill9);

#endif
