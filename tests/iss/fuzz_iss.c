/* libFuzzer target for the LANai ISS: arbitrary bytes as the SRAM image (an instruction
 * stream from address 0, and the data it touches), run with an instruction budget and a bus
 * that knows a few registers. Must never crash, hang or trip a sanitizer; every stop is the
 * budget or a named fault; an undefined-instruction fault names a word the disassembler calls
 * <unknown> (or BRR); two runs from reset agree exactly; r0 and r1 keep their values. */
#include <stdlib.h>
#include <string.h>

#include "iss.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SRAM 0x4000u

struct ctx {
  struct iss *c;
  uint32_t reg;
};

static bool rd(void *p, uint32_t off, uint32_t *v)
{
  struct ctx *x = p;
  if (off >= 0x40) return false;
  *v = x->reg + off;
  return true;
}

static bool wr(void *p, uint32_t off, uint32_t v)
{
  struct ctx *x = p;
  if (off >= 0x40) return false;
  if (off == 0x4) iss_yield(x->c);
  if (off == 0x8) iss_set_class(x->c, v);
  x->reg ^= v;
  return true;
}

static void run(const uint8_t *data, size_t size, uint8_t *sram, struct iss_state *st,
                struct iss_stats *stats)
{
  struct ctx x = {0};
  struct iss_bus bus = {&x, rd, wr};
  memset(sram, 0, SRAM);
  memcpy(sram, data, size < SRAM ? size : SRAM);
  x.c = iss_new(sram, SRAM, &bus);
  if (!x.c) abort();
  enum iss_stop why = ISS_STOP_YIELD;
  for (int i = 0; i < 50 && why == ISS_STOP_YIELD; i++) why = iss_run(x.c, 20000);
  iss_get_state(x.c, st);
  *stats = *iss_stats(x.c);
  if (st->r[0] != 0 || st->r[1] != 0xffffffffu) abort();
  if ((why == ISS_STOP_FAULT) != (st->fault != ISS_FAULT_NONE)) abort();
  if (why == ISS_STOP_FAULT && !strcmp(iss_fault_name(st->fault), "unknown fault")) abort();
  if (st->fault == ISS_FAULT_UNDEFINED) {
    char text[64];
    uint32_t w = st->fault_word;
    bool brr = w >> 28 == 0xe && (w & 2) && (w >> 24 & 1);
    if (iss_disasm(w, st->pc, text, sizeof text) != 0 && !brr) abort();
  }
  iss_free(x.c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static uint8_t a[SRAM], b[SRAM];
  struct iss_state s1, s2;
  struct iss_stats t1, t2;
  run(data, size, a, &s1, &t1);
  run(data, size, b, &s2, &t2);
  if (memcmp(&s1, &s2, sizeof s1) || memcmp(&t1, &t2, sizeof t1) || memcmp(a, b, SRAM)) abort();
  return 0;
}
