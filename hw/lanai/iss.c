/* iss.c: the ISS object: creation, reset, the host-side controls (yield, class, fault,
 * invalidation, trace) and the state and counter views. The run loop is iss_exec.c. */
#include <stdlib.h>
#include <string.h>

#include "../be.h"
#include "iss_internal.h"

const char *iss_fault_name(enum iss_fault f) { return hw_cpu_fault_name(f); }

struct iss *iss_new(uint8_t *sram, uint32_t sram_size, const struct iss_bus *bus)
{
  if (!sram || sram_size == 0 || sram_size % 4 || sram_size > (256u << 20) || !bus) return NULL;
  struct iss *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->ops = calloc(sram_size / 4, sizeof *c->ops);
  if (!c->ops) {
    free(c);
    return NULL;
  }
  c->sram = sram;
  c->size = sram_size;
  c->dec_lo = sram_size / 4; /* calloc'd: nothing decoded yet */
  c->bus = *bus;
  iss_reset(c);
  return c;
}

void iss_free(struct iss *c)
{
  if (!c) return;
  free(c->ops);
  free(c);
}

void iss_set_entry(struct iss *c, uint32_t pc)
{
  c->pc = pc;
  c->q0 = pc + 4;
  c->q1 = pc + 8;
}

void iss_reset(struct iss *c)
{
  memset(c->r, 0, sizeof c->r);
  c->r[1] = 0xffffffffu;
  c->sw = 0;
  c->pc = 0;
  c->q0 = 4;
  c->q1 = 8;
  c->ldmask = 0;
  c->fault = ISS_FAULT_NONE;
  c->fault_addr = c->fault_word = 0;
  c->yield = false;
  /* Only the words ever decoded: a large SRAM's array stays untouched. */
  if (c->dec_hi > c->dec_lo)
    memset(c->ops + c->dec_lo, 0, (size_t)(c->dec_hi - c->dec_lo) * sizeof *c->ops);
  c->dec_lo = c->size / 4;
  c->dec_hi = 0;
}

void iss_yield(struct iss *c) { c->yield = true; }

/* Brings the totals up to date and charges what ran since the last call to the current
 * class. */
void iss_class_flush(struct iss *c)
{
  c->st.cycles = c->st.insns + c->extra_cycles;
  c->st.class_insns[c->cls] += c->st.insns - c->cls_insns0;
  c->st.class_cycles[c->cls] += c->st.cycles - c->cls_cycles0;
  c->cls_insns0 = c->st.insns;
  c->cls_cycles0 = c->st.cycles;
}

void iss_set_class(struct iss *c, unsigned k)
{
  if (k >= ISS_NCLASS) return;
  iss_class_flush(c);
  c->cls = k;
}

void iss_fault_raise(struct iss *c, enum iss_fault f)
{
  if (c->fault != ISS_FAULT_NONE || f == ISS_FAULT_NONE) return;
  c->fault = f;
  c->fault_addr = 0;
  c->fault_word = (c->pc % 4 == 0 && c->pc < c->size) ? hw_ld32(c->sram + c->pc) : 0;
}

void iss_invalidate(struct iss *c, uint32_t addr, uint32_t len)
{
  if (addr >= c->size || len == 0) return;
  uint64_t end = (uint64_t)addr + len;
  if (end > c->size) end = c->size;
  for (uint32_t w = addr / 4; w < (end + 3) / 4; w++) {
    c->ops[w].kind = K_NEW;
    c->ops[w].uses = 0;
  }
}

void iss_get_state(const struct iss *c, struct iss_state *st)
{
  memcpy(st->r, c->r, sizeof st->r);
  st->pc = c->pc;
  st->r[2] = c->pc;
  st->sw = c->sw;
  st->fault = c->fault;
  st->fault_addr = c->fault_addr;
  st->fault_word = c->fault_word;
}

const struct iss_stats *iss_stats(const struct iss *c) { return &c->st; }

void iss_trace(struct iss *c, void *file) { c->trace = file; }
