/* bench_iss.c: speed of the LANai ISS (`make bench-lanai-iss`; not part of `make test`).
 * For each program (a LANai image and its native twin): the simulated instructions and
 * cycles, the ISS's time and M instructions/s (median and min..max over RUNS runs, each from
 * a fresh SRAM, decoding included), the native program's time (a process each run) and the
 * ratio ISS/native. Times are CPU times (the ISS thread's; the native child's user + system),
 * which a machine shared with other jobs disturbs far less than wall time; the median wall
 * time of the ISS runs is printed beside them.
 * usage: bench_iss IMAGE NATIVE [IMAGE NATIVE]... */
#include <inttypes.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "iss.h"
#include "lanai_run_io.h"

#define RUNS 7
#define SRAM (2u << 20)

extern char **environ;

static double clock_s(clockid_t id)
{
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

struct rig {
  struct iss *c;
  bool exited;
};

static bool rd(void *ctx, uint32_t off, uint32_t *v)
{
  const struct iss_stats *s = iss_stats(((struct rig *)ctx)->c);
  if (off == LRUN_CYCLES - ISS_REG_BASE) *v = (uint32_t)s->cycles;
  else if (off == LRUN_INSNS - ISS_REG_BASE) *v = (uint32_t)s->insns;
  else return false;
  return true;
}

static bool wr(void *ctx, uint32_t off, uint32_t v)
{
  struct rig *r = ctx;
  (void)v;
  if (off == LRUN_EXIT - ISS_REG_BASE) {
    r->exited = true;
    iss_yield(r->c);
  }
  return off == LRUN_CONSOLE - ISS_REG_BASE || off == LRUN_EXIT - ISS_REG_BASE;
}

/* One run of the image; its CPU time (wall time in *wall), its counters in *st. */
static double run_iss(const struct iss_image *img, uint8_t *sram, struct iss_stats *st,
                      double *wall)
{
  struct rig r = {0};
  struct iss_bus bus = {&r, rd, wr};
  memset(sram, 0, SRAM);
  double w0 = clock_s(CLOCK_MONOTONIC), t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
  r.c = iss_new(sram, SRAM, &bus);
  if (!r.c) exit(1);
  memcpy(sram, img->bytes, img->len);
  enum iss_stop why;
  while ((why = iss_run(r.c, UINT64_MAX)) == ISS_STOP_YIELD && !r.exited) {}
  double t = clock_s(CLOCK_THREAD_CPUTIME_ID) - t0;
  *wall = clock_s(CLOCK_MONOTONIC) - w0;
  struct iss_state s;
  iss_get_state(r.c, &s);
  if (!r.exited && s.fault != ISS_FAULT_HALTED) {
    fprintf(stderr, "bench_iss: %s at pc 0x%08x\n", iss_fault_name(s.fault), s.pc);
    exit(1);
  }
  *st = *iss_stats(r.c);
  iss_free(r.c);
  return t;
}

/* CPU time of all waited-for children so far. */
static double children_cpu(void)
{
  struct rusage ru;
  getrusage(RUSAGE_CHILDREN, &ru);
  return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
         (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}
static double children_before;

static double run_native(const char *path)
{
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", 1 /* O_WRONLY */, 0);
  char *argv[] = {(char *)path, NULL};
  pid_t pid;
  if (posix_spawn(&pid, path, &fa, NULL, argv, environ)) {
    perror(path);
    exit(1);
  }
  int status;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
    fprintf(stderr, "bench_iss: %s failed\n", path);
    exit(1);
  }
  posix_spawn_file_actions_destroy(&fa);
  double after = children_cpu(), t = after - children_before;
  children_before = after;
  return t;
}

int main(int argc, char **argv)
{
  if (argc < 3 || argc % 2 == 0) {
    fprintf(stderr, "usage: bench_iss IMAGE NATIVE [IMAGE NATIVE]...\n");
    return 1;
  }
  uint8_t *sram = malloc(SRAM);
  printf("LANai ISS speed: CPU times, median (min..max) of %d runs; native = the same C "
         "program built for the host\n", RUNS);
  printf("%-8s %8s %6s %22s %16s %8s %9s %8s\n", "program", "M insns", "CPI", "ISS cpu s",
         "M insns/s", "wall s", "native s", "ISS/nat");
  for (int i = 1; i + 1 < argc; i += 2) {
    struct iss_image img;
    char err[256];
    if (iss_image_read(argv[i], SRAM, &img, err, sizeof err)) {
      fprintf(stderr, "bench_iss: %s\n", err);
      return 1;
    }
    double t[RUNS], rate[RUNS], nat[RUNS], wall[RUNS];
    struct iss_stats st;
    for (int k = 0; k < RUNS; k++) {
      t[k] = run_iss(&img, sram, &st, &wall[k]);
      rate[k] = st.insns / t[k] / 1e6;
      nat[k] = run_native(argv[i + 1]);
    }
    qsort(t, RUNS, sizeof *t, by_value);
    qsort(rate, RUNS, sizeof *rate, by_value);
    qsort(nat, RUNS, sizeof *nat, by_value);
    qsort(wall, RUNS, sizeof *wall, by_value);
    const char *name = strrchr(argv[i], '/');
    char label[32];
    snprintf(label, sizeof label, "%s", name ? name + 1 : argv[i]);
    char *dot = strrchr(label, '.');
    if (dot) *dot = 0;
    char tt[40], rr[40];
    snprintf(tt, sizeof tt, "%.3f (%.3f..%.3f)", t[RUNS / 2], t[0], t[RUNS - 1]);
    snprintf(rr, sizeof rr, "%.0f (%.0f..%.0f)", rate[RUNS / 2], rate[0], rate[RUNS - 1]);
    printf("%-8s %8.1f %6.3f %22s %16s %8.3f %9.4f %8.0f\n", label, st.insns / 1e6,
           (double)st.cycles / (double)st.insns, tt, rr, wall[RUNS / 2], nat[RUNS / 2],
           t[RUNS / 2] / nat[RUNS / 2]);
    iss_image_free(&img);
  }
  printf("goal: >= 133 M insns/s (a 133 MHz LANai 9 at one instruction per cycle)\n");
  free(sram);
  return 0;
}
