/* A host-side implementation of the VM's NIC services that records every call as a text line,
 * with a small host memory (segments) for DELIVER and GET. Used by the conformance runner,
 * the fuzz targets and the benchmark. */
#ifndef PDL_NIC_HOST_H
#define PDL_NIC_HOST_H

#include <stdint.h>
#include <stdio.h>

#include "vm.h"

#define HOST_SEGMENTS 8
#define HOST_SEG_SIZE 4096

struct nic_host {
  FILE *trace;      /* where call records go; NULL records nothing */
  uint32_t clock;   /* value CLOCK returns next; advances by 10 per call */
  int fail_next;    /* make the next send/deliver/get fail */
  uint8_t mem[HOST_SEGMENTS][HOST_SEG_SIZE];
};

void nic_host_init(struct nic_host *h, FILE *trace);
void nic_host_services(struct nic_host *h, struct vm_services *s);

#endif
