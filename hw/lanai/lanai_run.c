/* lanai_run.c: lanai-run, runs a LANai image (flat + map, or ELF) on the ISS in a fresh SRAM
 * with the small test bus of lanai_run_io.h. The differential tests run their LANai builds
 * with it. Exit status: the value written to the exit register, main's return value (& 255)
 * when the firmware halts, 2 on a fault, 3 when the instruction budget runs out, 1 on bad
 * usage or a bad image. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iss.h"
#include "lanai_run_io.h"

struct runner {
  struct iss *cpu;
  bool exited;
  uint32_t status;
};

static bool bus_read(void *ctx, uint32_t off, uint32_t *val)
{
  struct runner *r = ctx;
  const struct iss_stats *st = iss_stats(r->cpu);
  if (off == LRUN_CYCLES - ISS_REG_BASE) *val = (uint32_t)st->cycles;
  else if (off == LRUN_INSNS - ISS_REG_BASE) *val = (uint32_t)st->insns;
  else return false;
  return true;
}

static bool bus_write(void *ctx, uint32_t off, uint32_t val)
{
  struct runner *r = ctx;
  if (off == LRUN_CONSOLE - ISS_REG_BASE) {
    putchar((int)(val & 0xff));
  } else if (off == LRUN_EXIT - ISS_REG_BASE) {
    r->exited = true;
    r->status = val;
    iss_yield(r->cpu);
  } else {
    return false;
  }
  return true;
}

static void usage(void)
{
  fprintf(stderr, "usage: lanai-run [--trace] [--stats] [--max-insns N] [--sram BYTES] "
                  "IMAGE\n");
  exit(1);
}

static void print_stats(const struct iss *cpu)
{
  const struct iss_stats *s = iss_stats(cpu);
  fprintf(stderr,
          "insns %" PRIu64 " cycles %" PRIu64 " loads %" PRIu64 " stores %" PRIu64
          " reg_reads %" PRIu64 " reg_writes %" PRIu64 " taken_jumps %" PRIu64
          " interlocks %" PRIu64 "\n",
          s->insns, s->cycles, s->loads, s->stores, s->reg_reads, s->reg_writes,
          s->taken_jumps, s->interlocks);
}

int main(int argc, char **argv)
{
  bool trace = false, stats = false;
  uint64_t max = 20000000000ull;
  uint32_t sram_size = 2u << 20;
  const char *path = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--trace")) trace = true;
    else if (!strcmp(argv[i], "--stats")) stats = true;
    else if (!strcmp(argv[i], "--max-insns") && i + 1 < argc) max = strtoull(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--sram") && i + 1 < argc) sram_size = (uint32_t)strtoul(argv[++i], NULL, 0);
    else if (argv[i][0] == '-' || path) usage();
    else path = argv[i];
  }
  if (!path || sram_size == 0 || sram_size % 4) usage();
  struct iss_image img;
  char err[512];
  if (iss_image_read(path, sram_size, &img, err, sizeof err)) {
    fprintf(stderr, "lanai-run: %s\n", err);
    return 1;
  }
  uint8_t *sram = calloc(1, sram_size);
  struct runner r = {0};
  struct iss_bus bus = {.ctx = &r, .read = bus_read, .write = bus_write};
  r.cpu = sram ? iss_new(sram, sram_size, &bus) : NULL;
  if (!r.cpu) {
    fprintf(stderr, "lanai-run: out of memory\n");
    return 1;
  }
  memcpy(sram, img.bytes, img.len);
  iss_image_free(&img);
  if (trace) iss_trace(r.cpu, stderr);
  int rc;
  uint64_t left = max;
  for (;;) {
    uint64_t before = iss_stats(r.cpu)->insns;
    enum iss_stop why = iss_run(r.cpu, left);
    left -= iss_stats(r.cpu)->insns - before;
    struct iss_state st;
    iss_get_state(r.cpu, &st);
    if (why == ISS_STOP_YIELD && r.exited) { rc = (int)r.status; break; }
    if (why == ISS_STOP_YIELD) continue;
    if (why == ISS_STOP_BUDGET) {
      fprintf(stderr, "lanai-run: budget of %" PRIu64 " instructions exhausted at pc 0x%08x\n",
              max, st.pc);
      rc = 3;
      break;
    }
    if (st.fault == ISS_FAULT_HALTED) { rc = (int)(st.r[8] & 0xff); break; }
    fprintf(stderr, "lanai-run: %s at pc 0x%08x (word 0x%08x, address 0x%08x)\n",
            iss_fault_name(st.fault), st.pc, st.fault_word, st.fault_addr);
    rc = 2;
    break;
  }
  fflush(stdout);
  if (stats) print_stats(r.cpu);
  iss_free(r.cpu);
  free(sram);
  return rc;
}
