/* A stand-in for the firmware in unit tests: a NIC window created in the test process with
 * hw's API, a published host interface, and a step function that serves the VI rings the way
 * hostif.h describes (send matched with the peer VI's receive, RDMA Write, immediate data,
 * protection checks against the region table), by plain memcpy within the process. */
#ifndef FAKENIC_H
#define FAKENIC_H

#include <stdbool.h>

#include "libnic.h"

struct fakenic {
  struct hwin w;
  char name[64];
};

/* Creates /verinic-t<pid>-<n> with a host interface; publish=false leaves magic 0. */
int fake_create(struct fakenic *f, int n, bool publish);
void fake_destroy(struct fakenic *f);
/* Connects VIs a and b of the window to each other (what nicd does on ACCEPT). */
void fake_connect(struct fakenic *f, unsigned a, unsigned b);
/* Serves every ring once; returns how many descriptors completed. Consumes at most limit
 * send descriptors (0: no limit). */
unsigned fake_step(struct fakenic *f, unsigned limit);

#endif
