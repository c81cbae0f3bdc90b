/* One-off harness (not built by make; tests/pdl/UBPF.md): times bench-vm's six kernels, compiled
 * to eBPF from kernels.bpf.c, in uBPF's interpreter (the JIT is never called). Arguments: the
 * raw .text of each kernel (llvm-objcopy -O binary --only-section=s_k_NAME). Rounds are
 * interleaved like bench-vm's; prints median and min..max ns per kernel iteration and the
 * value each kernel returns (the result bench-vm checks). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ubpf.h"

#define RUNS 11
#define ITERS 200000
#define MAXK 8

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  static uint32_t mem[4096]; /* a[1000] b[1000] t[256] of the kernels */
  static uint8_t code[65536];
  struct ubpf_vm *vm[MAXK];
  double t[MAXK][RUNS];
  uint64_t ret[MAXK];
  int n = argc - 1 < MAXK ? argc - 1 : MAXK;
  for (int k = 0; k < n; k++) {
    FILE *f = fopen(argv[k + 1], "rb");
    if (f == NULL) return perror(argv[k + 1]), 1;
    size_t len = fread(code, 1, sizeof code, f);
    fclose(f);
    char *err = NULL;
    vm[k] = ubpf_create();
    if (ubpf_load(vm[k], code, (uint32_t)len, &err) < 0)
      return fprintf(stderr, "%s: %s\n", argv[k + 1], err), 1;
  }
  for (int r = 0; r < RUNS; r++)
    for (int k = 0; k < n; k++) {
      memset(mem, 0, sizeof mem);
      double t0 = now_ns();
      if (ubpf_exec(vm[k], mem, sizeof mem, &ret[k]) < 0) return fprintf(stderr, "exec\n"), 1;
      t[k][r] = (now_ns() - t0) / ITERS;
    }
  for (int k = 0; k < n; k++) {
    qsort(t[k], RUNS, sizeof t[k][0], cmp);
    printf("%-20s result %-10d ns/iteration %6.2f (%6.2f..%6.2f)\n", argv[k + 1],
           (int32_t)ret[k], t[k][RUNS / 2], t[k][0], t[k][RUNS - 1]);
    ubpf_destroy(vm[k]);
  }
  return 0;
}
