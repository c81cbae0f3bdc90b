/* bench_vipl.h: the VIPL endpoints and the measured pair of bench_vipl.c, shared with
 * bench_lanai.c (`make bench-lanai`). */
#ifndef BENCH_VIPL_H
#define BENCH_VIPL_H

#include <stdbool.h>
#include <stdint.h>

#include "vipl.h"

#define MAXMSG (1u << 20)
#define NPOST 64
#define NLAT 7
#define NBW 8
extern const uint32_t lat_sizes[NLAT], bw_sizes[NBW];

struct result { double lat_med[NLAT], lat_p99[NLAT], bw[NBW]; };

/* One end of a reliable VI between node 0 (accepts) and node 1 (connects), NPOST receives of
 * MAXMSG posted; buf holds a receive area and a send area of MAXMSG each. */
struct vep {
  VIP_NIC_HANDLE nic;
  VIP_VI_HANDLE vi;
  VIP_MEM_HANDLE mh;
  uint8_t *buf;
  VIP_DESCRIPTOR *rd, *sd;   /* NPOST each */
};
void vep_open(struct vep *e, int node);
void vsend(struct vep *e, unsigned k, uint32_t len, uint32_t imm);
void vreap_sends(struct vep *e, bool all, unsigned *outstanding);
uint32_t vrecv(struct vep *e);

/* Forks fn(0, port, fd) and fn(1, port, fd); node 1 writes *out to fd. 0 or -1. */
int run_pair(void (*fn)(int, int, int), int port, struct result *out);
/* bench_vipl.c's VIPL latency and bandwidth run, as run_pair's fn. */
void vipl_fn(int node, int port, int fd);

/* bench_lanai.c: the native firmware beside the LANai image; prints the tables. 0 or 1. */
int bench_lanai(void);

#endif
