/* lanai.c: a NIC whose firmware is the LANai image, run on the instruction-set simulator
 * (hw/lanai/iss.h) over the NIC's own SRAM, with the card's register page wired to the
 * emulated hardware (iss_board.c). Booting is what a card driver does: hold the processor in
 * reset, write the image into SRAM at 0, release. Each pass of nicd's loop runs a slice:
 * until the firmware polls with nothing to do, or a budget of instructions. A fault of the
 * processor (undefined instruction, misaligned or bus access, a halt, or the watchdog: no
 * read of the event register for the configured processor time) stops that NIC only: its
 * window says FAULTED with the reason and pc, and its hosts get -EPIPE. A two-processor card
 * (--cpus 2) has a second simulator over the same SRAM, released at the image's _start1. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../hw/lanai/iss.h"
#include "nicd.h"

/* A pass is at most this long (about a millisecond) before the hardware moves and the other
 * NICs get theirs: the engines run while a card's processor does, and a NIC whose firmware is
 * busy for many passes (a PANIC activation) sees its hardware move in between, as on a card. */
#define SLICE_INSNS 100000u

int lanai_boot(struct lanai_nic *l, struct nic *nic, const struct iss_image *img,
               uint64_t watchdog_ns) {
  memset(l, 0, sizeof *l);
  l->nic = nic;
  l->watchdog_ns = watchdog_ns;
  uint32_t size = nic_sram_size(nic);
  uint8_t *sram = nic_sram_ptr(nic, 0, size);
  if (!sram || img->len > size) return -1;
  struct iss_bus bus;
  iss_board_init(&l->bd, nic, &bus);
  l->cpu = iss_new(sram, size, &bus);
  if (!l->cpu) return -1;
  l->bd.cpu = l->cpu;
  iss_reset(l->cpu);
  memcpy(sram, img->bytes, img->len);
  iss_invalidate(l->cpu, 0, img->len);
  nic_window(nic)->regs->cpu.kind = HW_CPU_LANAI;
  return 0;
}

/* The address and size of symbol in the image's .map (beside IMAGE.img, or IMAGE.map). */
static bool map_symbol(const char *image, const char *symbol, unsigned *addr, unsigned *size) {
  char map[512];
  const char *dot = strrchr(image, '.');
  if (dot && strcmp(dot, ".img") == 0) snprintf(map, sizeof map, "%.*s.map", (int)(dot - image), image);
  else snprintf(map, sizeof map, "%s.map", image);
  FILE *f = fopen(map, "r");
  if (!f) return false;
  char line[512], name[256];
  bool found = false;
  while (!found && fgets(line, sizeof line, f))
    found = sscanf(line, "symbol %x %x %*s %255s", addr, size, name) == 3 &&
            strcmp(name, symbol) == 0;
  fclose(f);
  return found;
}

int lanai_patch(struct lanai_nic *l, const char *image, const char *symbol, uint32_t value) {
  unsigned addr = 0, size = 0;
  bool found = map_symbol(image, symbol, &addr, &size) && size == 4;
  uint8_t *p = found ? nic_sram_ptr(l->nic, addr, 4) : NULL;
  if (!p) return -1;
  uint8_t be[4] = {(uint8_t)(value >> 24), (uint8_t)(value >> 16), (uint8_t)(value >> 8), (uint8_t)value};
  memcpy(p, be, 4);   /* the LANai is big-endian */
  return 0;
}

int lanai_boot_cpu1(struct lanai_nic *l, struct nic *nic, const char *image, uint64_t watchdog_ns) {
  unsigned entry = 0, size = 0;
  if (!map_symbol(image, "_start1", &entry, &size)) return -1;
  memset(l, 0, sizeof *l);
  l->nic = nic;
  l->watchdog_ns = watchdog_ns;
  uint32_t sram_size = nic_sram_size(nic);
  struct iss_bus bus;
  iss_board_init(&l->bd, nic, &bus);
  l->bd.id = 1;
  l->cpu = iss_new(nic_sram_ptr(nic, 0, sram_size), sram_size, &bus);
  if (!l->cpu) return -1;
  l->bd.cpu = l->cpu;
  iss_reset(l->cpu);
  iss_set_entry(l->cpu, entry);
  return 0;
}

void lanai_free(struct lanai_nic *l) {
  if (l->trace) fclose((FILE *)l->trace);
  if (l->cpu) iss_free(l->cpu);
  memset(l, 0, sizeof *l);
}

int lanai_trace(struct lanai_nic *l, const char *path) {
  l->trace = fopen(path, "w");
  if (!l->trace) return -1;
  iss_trace(l->cpu, l->trace);
  return 0;
}

static uint64_t cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The processor block of the window (iface/window.h), for nicstat and the benchmarks. */
static void publish(struct lanai_nic *l) {
  struct hw_cpu *w = &nic_window(l->nic)->regs->cpu;
  if (l->bd.id != 0 && !l->faulted) return;   /* the block is processor 0's but for a fault */
  struct iss_state st;
  iss_get_state(l->cpu, &st);
  const struct iss_stats *s = iss_stats(l->cpu);
  w->fault = st.fault;
  w->pc = st.pc;
  w->fault_word = st.fault_word;
  w->fault_addr = st.fault_addr;
  w->insns = s->insns;
  w->cycles = s->cycles;
  for (unsigned k = 0; k < HW_CPU_NCLASS; k++) {
    w->class_insns[k] = s->class_insns[k];
    w->class_cycles[k] = s->class_cycles[k];
  }
}

static void fault(struct lanai_nic *l, unsigned node) {
  l->faulted = true;
  publish(l);
  if (l->trace) fflush((FILE *)l->trace);
  const struct hw_cpu *w = &nic_window(l->nic)->regs->cpu;
  fprintf(stderr, "nicd: NIC %u: FAULTED: %s at pc 0x%08x word 0x%08x address 0x%08x\n", node,
          iss_fault_name((enum iss_fault)w->fault), w->pc, w->fault_word, w->fault_addr);
  hwin_fault(nic_window(l->nic));
}

/* The watchdog: processor time of consecutive full slices that never read the event register
 * (counted from the end of the first; a slice is a few milliseconds). */
static bool runaway(struct lanai_nic *l) {
  if (l->bd.events_read) {
    l->watching = false;
    return false;
  }
  uint64_t now = cpu_ns();
  if (!l->watching) {
    l->watching = true;
    l->watch_from = now;
    return false;
  }
  return now - l->watch_from > l->watchdog_ns;
}

bool lanai_run(struct lanai_nic *l, unsigned node) {
  if (l->faulted) return false;
  l->bd.saw_event = false;
  l->bd.events_read = false;
  enum iss_stop stop = iss_run(l->cpu, SLICE_INSNS);
  bool did = true;
  if (stop == ISS_STOP_BUDGET && runaway(l)) {
    iss_fault_raise(l->cpu, ISS_FAULT_RUNAWAY);
    stop = ISS_STOP_FAULT;
  } else if (stop != ISS_STOP_BUDGET) {
    l->watching = false;
    did = l->bd.saw_event;
  }
  if (stop == ISS_STOP_FAULT) fault(l, node);
  else publish(l);
  return did;
}

/* An instruction takes at most this many cycles (a register-page load whose result the next
 * instruction uses: 1 + 1 + 3, hw/lanai/README.md), so a budget of room / VT_MAX_CPI
 * instructions never carries the processor past its limit. */
#define VT_MAX_CPI 8u

bool lanai_run_timed(struct lanai_nic *l, unsigned node, uint64_t limit_ns, uint64_t hz) {
  if (l->faulted) return true;
  struct iss_board *b = &l->bd;
  b->timed = true;
  b->hz = hz;
  for (;;) {
    if (l->vt_ns >= limit_ns) return false;
    uint64_t room = (uint64_t)(((unsigned __int128)(limit_ns - l->vt_ns) * hz) / 1000000000u);
    uint64_t budget = room / VT_MAX_CPI;
    if (budget == 0) return false;
    if (budget > SLICE_INSNS) budget = SLICE_INSNS;
    b->saw_event = b->events_read = b->idle_yield = false;
    b->woke_ns = NIC_NEVER;
    enum iss_stop stop = iss_run(l->cpu, budget);
    l->vt_ns = iss_board_now(b);
    if (stop == ISS_STOP_FAULT) {
      fault(l, node);
      return true;
    }
    if (b->woke_ns != NIC_NEVER) { /* a host signal woke a host: run no further than its time */
      if (b->woke_ns < limit_ns) limit_ns = b->woke_ns;
      if (stop == ISS_STOP_YIELD && !b->idle_yield) continue;
    }
    if (stop == ISS_STOP_YIELD) {
      publish(l);
      return true;
    }
  }
}
