/* stats.c: the benchmarks' clock and order statistics (stats.h). */
#define _GNU_SOURCE
#include "stats.h"

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* libnic's clock, when the program links libnic: the process's virtual time in timing mode
 * (nicd --timing), CLOCK_MONOTONIC otherwise. */
uint64_t lnic_vt_now_ns(void) __attribute__((weak));

double stats_now_us(void) {
  if (lnic_vt_now_ns) return (double)lnic_vt_now_ns() / 1e3;
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void stats_sort(double *v, size_t n) { qsort(v, n, sizeof *v, cmpd); }

void stats_med_p99(double *v, size_t n, double *med, double *p99) {
  if (!n) {
    *med = *p99 = 0;
    return;
  }
  stats_sort(v, n);
  *med = v[n / 2];
  *p99 = v[n * 99 / 100];
}
