/* Interpreter speed: six PDL kernels (counting loop, array sum, table lookup chain, array copy,
 * 16-bit ones'-complement checksum, three-way branch) run in the PANIC VM, beside the same
 * kernels as native C measured in the same run and uBPF's interpreter from a documented one-off
 * run (tests/pdl/UBPF.md: uBPF is not packaged, so its figures are constants here). Every kernel
 * runs ITERS iterations and DISPLAYs a result, checked against the native C result. Runs are
 * interleaved (each round runs every kernel once in the VM and once natively); the table gives
 * the median and min..max of the rounds. The goal (issue 19): per kernel, our time <= uBPF's.
 * `make bench-vm`; not part of `make test`. */
#define _GNU_SOURCE 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../bench/summary.h"
#include "nic_host.h"
#include "pdlc.h"
#include "vm.h"

#define RUNS 11
#define ITERS 200000

struct kernel {
  const char *name, *pdl;
  long (*native)(void);
  double ubpf_ns; /* uBPF interpreter, ns per iteration: tests/pdl/UBPF.md */
};

static long native_loop(void) {
  volatile int i = 0;
  while (i < ITERS) i = i + 1;
  return i;
}

static long native_sum(void) {
  static volatile int a[1000];
  int s = 0;
  for (int i = 0; i < 1000; i++) a[i] = i;
  for (int i = 0; i < ITERS; i++) s = s + a[i % 1000];
  return s;
}

static long native_lookup(void) {
  static volatile int t[256];
  int x = 1;
  for (int i = 0; i < 256; i++) t[i] = (i * 7 + 3) % 256;
  for (int i = 0; i < ITERS; i++) x = t[(x * 5 + 1) % 256];
  return x;
}

static long native_copy(void) {
  static volatile int a[1000], b[1000];
  for (int i = 0; i < 1000; i++) a[i] = i * 3;
  for (int r = 0; r < ITERS / 1000; r++)
    for (int j = 0; j < 1000; j++) b[j] = a[j];
  return b[999];
}

static long native_checksum(void) {
  static volatile int a[1000];
  int s = 0;
  for (int i = 0; i < 1000; i++) a[i] = i * 257 % 65536;
  for (int r = 0; r < ITERS / 1000; r++)
    for (int j = 0; j < 1000; j++) {
      s = s + a[j];
      if (s > 65535) s = s - 65535;
    }
  return s;
}

static long native_branchy(void) {
  volatile int x = 0, y = 0, z = 0;
  for (volatile int i = 0; i < ITERS; i = i + 1) {
    int m = i % 3;
    if (m == 0) x = x + 1;
    else if (m == 1) y = y + 2;
    else z = z + 3;
  }
  return x + y * 3 + z * 7;
}

static const struct kernel kernels[] = {
    {"loop", "PROGRAM k: VAR i; BEGIN i = 0; WHILE i < 200000 DO i = i + 1; DISPLAY i END; END;",
     native_loop, 9.73},
    {"array-sum",
     "PROGRAM k: VAR a[1000], i, s; BEGIN i = 0; WHILE i < 1000 DO BEGIN a[i] = i; i = i + 1 END;"
     " i = 0; s = 0; WHILE i < 200000 DO BEGIN s = s + a[i % 1000]; i = i + 1 END; DISPLAY s END;"
     " END;",
     native_sum, 58.74},
    {"table-lookup",
     "PROGRAM k: VAR t[256], i, x; BEGIN i = 0; WHILE i < 256 DO BEGIN t[i] = (i * 7 + 3) % 256;"
     " i = i + 1 END; i = 0; x = 1; WHILE i < 200000 DO BEGIN x = t[(x * 5 + 1) % 256];"
     " i = i + 1 END; DISPLAY x END; END;",
     native_lookup, 43.40},
    {"copy",
     "PROGRAM k: VAR a[1000], b[1000], i, r, j; BEGIN i = 0; WHILE i < 1000 DO BEGIN"
     " a[i] = i * 3; i = i + 1 END; r = 0; WHILE r < 200 DO BEGIN j = 0; WHILE j < 1000 DO"
     " BEGIN b[j] = a[j]; j = j + 1 END; r = r + 1 END; DISPLAY b[999] END; END;",
     native_copy, 32.76},
    {"checksum",
     "PROGRAM k: VAR a[1000], i, r, j, s; BEGIN i = 0; WHILE i < 1000 DO BEGIN"
     " a[i] = i * 257 % 65536; i = i + 1 END; s = 0; r = 0; WHILE r < 200 DO BEGIN j = 0;"
     " WHILE j < 1000 DO BEGIN s = s + a[j]; IF s > 65535 THEN s = s - 65535; j = j + 1 END;"
     " r = r + 1 END; DISPLAY s END; END;",
     native_checksum, 50.15},
    {"branchy",
     "PROGRAM k: VAR i, m, x, y, z; BEGIN i = 0; x = 0; y = 0; z = 0; WHILE i < 200000 DO BEGIN"
     " m = i % 3; IF m = 0 THEN x = x + 1 ELSE IF m = 1 THEN y = y + 2 ELSE z = z + 3;"
     " i = i + 1 END; DISPLAY x + y * 3 + z * 7 END; END;",
     native_branchy, 54.24},
};
#define NK (sizeof kernels / sizeof kernels[0])

struct loaded {
  struct buf img;
  void *mem;
  size_t need;
  uint32_t steps;
  double vm[RUNS], native[RUNS];
};

static volatile long sink;

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

static void die(const char *k, const char *what) {
  fprintf(stderr, "bench-vm: %s: %s\n", k, what);
  exit(1);
}

/* One run of kernel k in the VM; returns ns, and the DISPLAYed value when trace is set. */
static double run_vm(const struct kernel *k, struct loaded *l, FILE *trace) {
  static struct nic_host h;
  struct vm_services s;
  struct vm_program p;
  struct vm_diag d;
  nic_host_init(&h, trace);
  nic_host_services(&h, &s);
  if (!vm_load(&p, l->img.p, l->img.len, l->mem, l->need, &d)) die(k->name, "does not load");
  double t0 = now_ns();
  enum vm_result res = vm_start(&p, &s, 100000000);
  double t1 = now_ns();
  if (res != VM_R_AWAIT) die(k->name, vm_result_name(res));
  l->steps = p.last_steps;
  return t1 - t0;
}

/* The VM's result (the DISPLAYed value) must be the native one. */
static void check(const struct kernel *k, struct loaded *l) {
  char *text = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&text, &n);
  if (f == NULL) die(k->name, "open_memstream");
  run_vm(k, l, f);
  fclose(f);
  const char *line = strstr(text, "display ");
  long want = k->native(), got;
  if (line == NULL || sscanf(line, "display %ld", &got) != 1 || got != want) {
    fprintf(stderr, "bench-vm: %s: VM trace '%s', native result %ld\n", k->name, text, want);
    exit(1);
  }
  free(text);
}

int main(void) {
  static struct loaded ld[NK];
  for (size_t i = 0; i < NK; i++) {
    const struct kernel *k = &kernels[i];
    if (pdlc_compile(k->name, k->pdl, strlen(k->pdl), stderr, &ld[i].img) != 0)
      die(k->name, "does not compile");
    ld[i].need = vm_mem_needed(ld[i].img.p, ld[i].img.len);
    ld[i].mem = malloc(ld[i].need);
    if (ld[i].mem == NULL) die(k->name, "out of memory");
    check(k, &ld[i]);
  }
  for (int r = 0; r < RUNS; r++)
    for (size_t i = 0; i < NK; i++) {
      ld[i].vm[r] = run_vm(&kernels[i], &ld[i], NULL) / ITERS;
      double t0 = now_ns();
      sink = kernels[i].native();
      ld[i].native[r] = (now_ns() - t0) / ITERS;
    }
  printf("PANIC VM interpreter per kernel, %d iterations, %d interleaved rounds: median (min..max)"
         " ns per iteration.\nuBPF: its interpreter, documented one-off run (tests/pdl/UBPF.md),"
         " not measured here. Goal: PANIC/uBPF <= 1.00.\n",
         ITERS, RUNS);
  printf("%-13s %8s  %-22s  %8s  %6s  %4s  %-20s\n", "kernel", "insn/it", "PANIC VM ns/it",
         "uBPF doc", "ratio", "goal", "native C ns/it");
  double vm[NK], lo, hi, nat, nlo, nhi;
  for (size_t i = 0; i < NK; i++) {
    const struct kernel *k = &kernels[i];
    stats(ld[i].vm, &vm[i], &lo, &hi);
    stats(ld[i].native, &nat, &nlo, &nhi);
    double ratio = vm[i] / k->ubpf_ns;
    printf("%-13s %8.2f  %6.1f (%6.1f..%6.1f)  %8.2f  %5.2fx  %4s  %5.2f (%5.2f..%5.2f)\n", k->name,
           (double)ld[i].steps / ITERS, vm[i], lo, hi, k->ubpf_ns, ratio,
           ratio <= 1.0 ? "met" : "miss", nat, nlo, nhi);
  }
  summary_header();
  for (size_t i = 0; i < NK; i++) {
    char fig[64];
    snprintf(fig, sizeof fig, "PANIC VM %s, ns/iter", kernels[i].name);
    summary_row(fig, vm[i], "uBPF interp (documented)", kernels[i].ubpf_ns, 1.0, false);
  }
  for (size_t i = 0; i < NK; i++) {
    free(ld[i].mem);
    buf_free(&ld[i].img);
  }
  return 0;
}
