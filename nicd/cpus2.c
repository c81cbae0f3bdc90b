/* cpus2.c: nicd --cpus 2 with the native firmware: each NIC has two firmware processors
 * (hw/cpus.h), processor 1 taking the receive side's events (FW_CPU1_ISR), and each pass of
 * the loop runs processor 0's dispatcher, then processor 1's (firmware/nic/fw_cpus.c), on the
 * loop's one thread: deterministic, and the semaphore is never contended. */
#include "../hw/cpus.h"
#include "fw_cpus.h"
#include "nicd.h"

void nicd_cpus2_start(struct nicd *d, unsigned i) {
  nic_cpus_set(d->nic[i], 2, FW_CPU1_ISR);
  d->bd1[i] = (struct fw_board){.nic = d->nic[i], .cpu = 1};
  fw_cpus_start(&d->fw[i], &d->bd[i], 0);
  fw_cpus_start(&d->fw[i], &d->bd1[i], 1);
}

bool nicd_cpus2_pass(struct nicd *d, unsigned i) {
  bool did = fw_cpus_poll(&d->fw[i], &d->bd[i], 0);
  return fw_cpus_poll(&d->fw[i], &d->bd1[i], 1) || did;
}
