/* Interpreter speed: three PDL kernels (counting loop, array sum, table lookup chain) run in
 * the VM and as native C; prints per-instruction and per-iteration times, median and spread
 * (min..max) over repeated runs. `make bench-vm`; not part of `make test`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nic_host.h"
#include "pdlc.h"
#include "vm.h"

#define RUNS 11
#define ITERS 200000

struct kernel {
  const char *name, *pdl;
  long (*native)(long iters);
};

static volatile long sink;

static long native_loop(long n) {
  volatile long i = 0;
  while (i < n) i = i + 1;
  return i;
}

static long native_sum(long n) {
  static volatile int a[1000];
  long s = 0;
  for (int k = 0; k < 1000; k++) a[k] = k;
  for (long i = 0; i < n; i++) s += a[i % 1000];
  return s;
}

static long native_lookup(long n) {
  static volatile int t[256];
  int x = 1;
  for (int k = 0; k < 256; k++) t[k] = (k * 7 + 3) % 256;
  for (long i = 0; i < n; i++) x = t[(x * 5 + 1) % 256];
  return x;
}

static const struct kernel kernels[] = {
    {"loop", "PROGRAM k: VAR i; BEGIN i = 0; WHILE i < 200000 DO i = i + 1 END; END;",
     native_loop},
    {"array-sum",
     "PROGRAM k: VAR a[1000], i, s; BEGIN i = 0; WHILE i < 1000 DO BEGIN a[i] = i; i = i + 1 END;"
     " i = 0; s = 0; WHILE i < 200000 DO BEGIN s = s + a[i % 1000]; i = i + 1 END END; END;",
     native_sum},
    {"table-lookup",
     "PROGRAM k: VAR t[256], i, x; BEGIN i = 0; WHILE i < 256 DO BEGIN t[i] = (i * 7 + 3) % 256;"
     " i = i + 1 END; i = 0; x = 1; WHILE i < 200000 DO BEGIN x = t[(x * 5 + 1) % 256];"
     " i = i + 1 END END; END;",
     native_lookup},
};

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void stats(double *v, double *med, double *lo, double *hi) {
  qsort(v, RUNS, sizeof *v, cmp_double);
  *med = v[RUNS / 2];
  *lo = v[0];
  *hi = v[RUNS - 1];
}

static void bench(const struct kernel *k) {
  struct buf img = {NULL, 0, 0};
  if (pdlc_compile(k->name, k->pdl, strlen(k->pdl), stderr, &img) != 0) exit(1);
  size_t need = vm_mem_needed(img.p, img.len);
  void *mem = malloc(need);
  struct nic_host *h = malloc(sizeof *h);
  struct vm_services s;
  nic_host_init(h, NULL);
  nic_host_services(h, &s);
  double vm_insn[RUNS], vm_iter[RUNS], nat_iter[RUNS];
  uint32_t steps = 0;
  for (int r = 0; r < RUNS; r++) {
    struct vm_program p;
    struct vm_diag d;
    if (!vm_load(&p, img.p, img.len, mem, need, &d)) exit(1);
    double t0 = now_ns();
    enum vm_result res = vm_start(&p, &s, 100000000);
    double t1 = now_ns();
    if (res != VM_R_AWAIT) exit(1);
    steps = p.last_steps;
    vm_insn[r] = (t1 - t0) / steps;
    vm_iter[r] = (t1 - t0) / ITERS;
    t0 = now_ns();
    sink = k->native(ITERS);
    nat_iter[r] = (now_ns() - t0) / ITERS;
  }
  double a, alo, ahi, b, blo, bhi, c, clo, chi;
  stats(vm_insn, &a, &alo, &ahi);
  stats(vm_iter, &b, &blo, &bhi);
  stats(nat_iter, &c, &clo, &chi);
  printf("%-13s %10u  %5.2f (%5.2f..%5.2f)  %7.1f (%6.1f..%6.1f)  %6.2f (%5.2f..%5.2f)  %6.0fx\n",
         k->name, steps, a, alo, ahi, b, blo, bhi, c, clo, chi, b / c);
  free(h);
  free(mem);
  buf_free(&img);
}

int main(void) {
  printf("PANIC VM interpreter vs native C, %d iterations per kernel, %d runs: median (min..max)\n",
         ITERS, RUNS);
  printf("%-13s %10s  %-20s  %-24s  %-20s  %s\n", "kernel", "vm insns", "vm ns/insn",
         "vm ns/iteration", "native ns/iter", "slowdown");
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) bench(&kernels[i]);
  return 0;
}
