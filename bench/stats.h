/* stats.h: the clock and the order statistics shared by the benchmarks: bench_sovia
 * (bs_stats.c, bs_stream.c, bs_vipl.c), tests/vipl/bench_vipl.c and tests/panic/bench_panic.c. */
#ifndef STATS_H
#define STATS_H

#include <stddef.h>

/* CLOCK_MONOTONIC in microseconds; in nicd's timing mode, the process's virtual time. */
double stats_now_us(void);
/* Sorts v[0..n) in ascending order. */
void stats_sort(double *v, size_t n);
/* Sorts v[0..n), then its median v[n / 2] and p99 v[n * 99 / 100] (0 and 0 when n is 0). */
void stats_med_p99(double *v, size_t n, double *med, double *p99);

#endif
