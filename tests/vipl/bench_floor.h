/* bench_floor.h: the floors bench_vipl compares with (bench_floor.c). */
#ifndef BENCH_FLOOR_H
#define BENCH_FLOOR_H

#include <stdbool.h>

/* memcpy bandwidth, MB/s (median of 5 passes of 8 x 16 MiB in 32 KiB chunks). */
double floor_memcpy_mbs(void);
/* The 3-process relay ping-pong's RTT/2 in microseconds (median of 20,000): awake, every
 * process spins; otherwise the product's wait strategy. -1 on failure. */
double floor_relay_us(bool awake);

/* The streaming floor of SOVIA's shape: 32 KiB messages copied five times through a
 * 3-process relay (bench_floor.c), MB/s (median of 5 runs of 128 MiB); awake as above. */
double floor_stream_mbs(bool awake);

#endif
