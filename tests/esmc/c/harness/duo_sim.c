/* duo_sim.c: runs the C that esmc generates for duo.esm against simulated hardware, the HAL
 * below: a host that rings doorbells and one DMA engine that completes after a random delay
 * (sometimes at once, from inside the request, as an interrupt would). Deliveries within a
 * tick come in random order from a fixed-seed generator. After every step it checks the
 * dispatcher's promises (esm/README.md, "Run-to-completion and dispatch points") and prints
 * "N passed, N failed", one case per property and seed. Built with -Dduo_TRACE. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "duo.h"
#include "duo_hal.h"

enum { NREQ = duo_CONST_NREQ, BACKLOG = duo_CONST_BACKLOG, MAX_TICKS = 2000000 };

/* ---- checks: one counter of violations per property ---- */

enum {
  MUTEX, NO_FAULT, NO_OVERFLOW, COMPLETED, PRIORITY, CHAIN, FAIRNESS, STEP_RESULT, NCHECKS
};
static const char *const check_names[NCHECKS] = {
  "mutual exclusion of dma", "no faults", "no event overflow", "every request completed",
  "events dispatched in priority order", "run-to-completion stops at yield states",
  "round-robin fairness of dma", "step result matches transitions fired",
};
static unsigned violations[NCHECKS];
static unsigned long step_no;

__attribute__((format(printf, 2, 3))) static void violate(int check, const char *fmt, ...) {
  if (violations[check]++ < 5) {
    va_list ap;
    va_start(ap, fmt);
    printf("  step %lu: %s: ", step_no, check_names[check]);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
  }
}

/* ---- the simulated hardware ---- */

static unsigned long rng_state;
static unsigned rnd(unsigned n) { /* xorshift64: the same sequence on every platform */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (unsigned)(rng_state % n);
}

typedef struct {
  int busy, delay, who;
  duo_event_t done;
  long starts, completions;
  int guard_said_no; /* engine_ok answered false during this step */
  int checking;      /* the checks are asking: repeat the last answer, change nothing */
  bool last_ok;
} Engine;

typedef struct {
  int id, from, to, ev;
} Fired;

static Engine engine;
static int unit_mode; /* direct API tests: a healthy engine that never completes on its own */
static Fired fired[64];
static int nfired;

static void complete(duo_t *sys) {
  engine.busy = 0;
  engine.completions++;
  if (!duo_raise(sys, engine.done))
    violate(NO_OVERFLOW, "%s completion refused", duo_event_name((int)engine.done));
}

void duo_hal_dma_start(duo_t *sys, uint8_t who, uint16_t len, duo_event_t done) {
  if (engine.busy)
    violate(MUTEX, "engine started while busy for machine %d", engine.who);
  if (len > duo_CONST_MAXLEN)
    violate(NO_FAULT, "len out of range: %u", (unsigned)len);
  engine.busy = 1;
  engine.who = who;
  engine.done = done;
  engine.starts++;
  engine.delay = unit_mode ? 1000 : (int)rnd(6);
  if (engine.delay == 0) /* completes at once: the interrupt arrives mid-step */
    complete(sys);
}

static long grants_when_waiting[duo_NMACHINES + 1];
static long total_grants;

/* A's acquire is guarded by engine_ok: while it answers no, A does not wait for the engine
 * (esm/README.md, Resources), so its wait for fairness starts again. */
bool duo_hal_engine_ok(duo_t *sys) {
  (void)sys;
  if (engine.checking)
    return engine.last_ok;
  bool ok = unit_mode || rnd(8) != 0;
  engine.guard_said_no |= !ok;
  if (!ok)
    grants_when_waiting[duo_MACH_A] = total_grants;
  engine.last_ok = ok;
  return ok;
}

void duo_hal_fault(duo_t *sys, int code, const char *where) {
  (void)sys;
  if (!unit_mode)
    violate(NO_FAULT, "fault at %s, code %d", where, code);
}

void duo_hal_trace(duo_t *sys, int id, int from, int to, int ev, const char *where) {
  (void)sys;
  (void)where;
  if (nfired < (int)(sizeof fired / sizeof fired[0]))
    fired[nfired++] = (Fired){id, from, to, ev};
}

/* ---- the oracles ---- */

static int served(duo_t *sys, int id) {
  return id == duo_MACH_A ? sys->m.A.served : sys->m.B.served;
}

static int state_of(duo_t *sys, int id) {
  return id == duo_MACH_A ? (int)sys->m.A.state : (int)sys->m.B.state;
}

/* In duo.esm every pending event is enabled: done events are raised only while their
 * machine is Busy, and doorbells are handled in every state. So the first transition of a
 * step must be on the highest-priority event pending when the step began. */
static void check_priority(const uint8_t *pending_before) {
  int want = -1;
  for (int e = 0; e < duo_NEVENTS && want < 0; e++)
    if (pending_before[e])
      want = e;
  if (nfired && fired[0].ev != want)
    violate(PRIORITY, "fired %s, but %s was the first pending", duo_event_name(fired[0].ev),
            want < 0 ? "nothing" : duo_event_name(want));
}

/* All transitions of a step belong to one machine; only the last may enter Busy (the one
 * yield state), and if it does not, the machine must have had nothing left to fire. */
static void check_chain(duo_t *sys) {
  for (int i = 0; i < nfired; i++) {
    if (fired[i].id != fired[0].id)
      violate(CHAIN, "%s ran inside %s's step", duo_machine_name(fired[i].id),
              duo_machine_name(fired[0].id));
    int busy = fired[i].to == duo_A_S_Busy; /* same index in A and B */
    if (busy && i != nfired - 1)
      violate(CHAIN, "%s kept running after entering a yield state (%d more)",
              duo_machine_name(fired[i].id), nfired - 1 - i);
  }
  if (!nfired || fired[nfired - 1].to == duo_A_S_Busy || engine.guard_said_no)
    return;
  int id = fired[0].id, st = state_of(sys, id);
  int bell = id == duo_MACH_A ? duo_EV_a_bell : duo_EV_b_bell;
  int backlog = id == duo_MACH_A ? sys->m.A.backlog : sys->m.B.backlog;
  engine.checking = 1;
  int enabled = sys->pending[bell] > 0 || (st == duo_A_S_Idle && backlog > 0) ||
                (st == duo_A_S_Want && duo__turn(sys, duo_RES_dma) == id);
  engine.checking = 0;
  if (enabled)
    violate(CHAIN, "%s gave up the processor in %s with a transition enabled",
            duo_machine_name(id), duo_state_name(id, st));
}

static void check_mutex(duo_t *sys) {
  int a = sys->m.A.state == duo_A_S_Busy, b = sys->m.B.state == duo_B_S_Busy;
  int owner = sys->owner[duo_RES_dma];
  if ((a && b) || (a != (owner == duo_MACH_A)) || (b != (owner == duo_MACH_B)))
    violate(MUTEX, "A busy %d, B busy %d, owner %d", a, b, owner);
}

/* A machine that starts waiting for dma is granted it before the other is granted twice. */

static void check_fairness(void) {
  for (int i = 0; i < nfired; i++) {
    Fired *f = &fired[i];
    if (f->to == duo_A_S_Want && f->from != duo_A_S_Want)
      grants_when_waiting[f->id] = total_grants;
    if (f->from == duo_A_S_Want && f->to == duo_A_S_Busy) {
      long others = total_grants - grants_when_waiting[f->id];
      if (others > duo_NMACHINES - 1)
        violate(FAIRNESS, "%s waited through %ld grants", duo_machine_name(f->id), others);
      total_grants++;
    }
  }
}

/* ---- one run ---- */

static void host_and_engine(duo_t *sys, long *rang) {
  int order[3] = {0, 1, 2};
  for (int i = 2; i > 0; i--) { /* random delivery order within a tick */
    int j = (int)rnd((unsigned)i + 1), t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (int k = 0; k < 3; k++) {
    int who = order[k];
    if (who == 2) {
      if (engine.busy && --engine.delay <= 0)
        complete(sys);
      continue;
    }
    int id = who == 0 ? duo_MACH_A : duo_MACH_B;
    if (rang[id] < NREQ && rang[id] - served(sys, id) < BACKLOG && rnd(3) == 0) {
      if (!duo_raise(sys, id == duo_MACH_A ? duo_EV_a_bell : duo_EV_b_bell))
        violate(NO_OVERFLOW, "doorbell refused");
      rang[id]++;
    }
  }
}

static void one_step(duo_t *sys) {
  uint8_t before[duo_NEVENTS];
  memcpy(before, sys->pending, sizeof before);
  nfired = 0;
  engine.guard_said_no = 0;
  step_no++;
  bool stepped = duo_step(sys);
  if (stepped != (nfired > 0))
    violate(STEP_RESULT, "%s with %d transitions", stepped ? "true" : "false", nfired);
  check_priority(before);
  check_chain(sys);
  check_mutex(sys);
  check_fairness();
}

static void run(unsigned long seed) {
  static duo_t sys;
  duo_init(&sys);
  rng_state = seed;
  step_no = 0;
  memset(&engine, 0, sizeof engine);
  memset(grants_when_waiting, 0, sizeof grants_when_waiting);
  total_grants = 0;
  long rang[duo_NMACHINES + 1] = {0};
  long tick;
  for (tick = 0; tick < MAX_TICKS; tick++) {
    host_and_engine(&sys, rang);
    for (unsigned n = rnd(3); n > 0; n--)
      one_step(&sys);
    if (sys.m.A.served == NREQ && sys.m.B.served == NREQ && !engine.busy)
      break;
  }
  while (duo_step(&sys)) /* drain: nothing may be left enabled */
    step_no++;
  for (int e = 0; e < duo_NEVENTS; e++) {
    if (sys.overflow[e])
      violate(NO_OVERFLOW, "%s overflowed %lu times", duo_event_name(e),
              (unsigned long)sys.overflow[e]);
    if (sys.pending[e])
      violate(COMPLETED, "%s still pending (%d)", duo_event_name(e), sys.pending[e]);
  }
  if (sys.faults)
    violate(NO_FAULT, "%lu faults", (unsigned long)sys.faults);
  if (sys.m.A.served != NREQ || sys.m.B.served != NREQ || rang[duo_MACH_A] != NREQ ||
      rang[duo_MACH_B] != NREQ)
    violate(COMPLETED, "A served %d, B served %d", sys.m.A.served, sys.m.B.served);
  if (engine.starts != 2L * NREQ || engine.completions != engine.starts ||
      sys.g.grants != 2L * NREQ || sys.dispatched[duo_EV_a_done] != NREQ ||
      sys.dispatched[duo_EV_b_bell] != NREQ)
    violate(COMPLETED, "%ld DMAs started, %ld completed", engine.starts, engine.completions);
  if (sys.m.A.state != duo_A_S_Idle || sys.m.B.state != duo_B_S_Idle || sys.owner[duo_RES_dma])
    violate(COMPLETED, "machines not back at rest (A %d, B %d)", (int)sys.m.A.state,
            (int)sys.m.B.state);
  printf("seed %lu: %ld ticks, %lu steps, %ld DMAs\n", seed, tick, step_no, engine.starts);
}

/* ---- small direct tests of the generated API ---- */

static int unit_failures;
static void expect(int ok, const char *what) {
  if (!ok) {
    printf("  FAIL: %s\n", what);
    unit_failures++;
  }
}

static void unit_tests(void) {
  static duo_t sys;
  unit_mode = 1;
  duo_init(&sys);
  for (int i = 0; i < BACKLOG; i++)
    expect(duo_raise(&sys, duo_EV_a_bell), "raise within capacity");
  expect(!duo_raise(&sys, duo_EV_a_bell) && sys.overflow[duo_EV_a_bell] == 1,
         "raise past capacity is refused and counted");
  expect(!duo_raise(&sys, (duo_event_t)duo_NEVENTS), "raise of a bad event is refused");
  expect(!strcmp(duo_event_name(duo_EV_b_bell), "b_bell") && !strcmp(duo_event_name(99), "?"),
         "event names");
  expect(!strcmp(duo_state_name(duo_MACH_B, duo_B_S_Want), "Want") &&
             !strcmp(duo_machine_name(duo_MACH_A), "A"),
         "state and machine names");
  /* One step: A takes all four doorbells, then when, then acquire, and yields in Busy. */
  nfired = 0;
  expect(duo_step(&sys) && nfired == 6 && sys.m.A.state == duo_A_S_Busy &&
             sys.m.A.backlog == 3 && sys.pending[duo_EV_a_bell] == 0,
         "one step runs A to completion, up to its yield state");
  expect(!duo_step(&sys), "nothing enabled while the DMA is out");
  expect(duo__range(&sys, 9, 0, 4, "unit:1") == 4 && sys.faults == 1, "range fault saturates");
  duo__release(&sys, duo_RES_dma, duo_MACH_B, "unit:2");
  expect(sys.faults == 2 && sys.owner[duo_RES_dma] == duo_MACH_A, "release by a non-holder");
  expect(duo__index(&sys, 4, 4, "unit:3") == 0 && duo__div(&sys, 1, 0, "unit:4") == 0 &&
             sys.faults == 4,
         "index and division faults");
  unit_mode = 0;
}

int main(void) {
  unit_tests();
  static const unsigned long seeds[] = {1, 0x5eed, 20240607};
  memset(violations, 0, sizeof violations);
  for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++)
    run(seeds[i]);
  int passed = 0, failed = 0;
  for (int c = 0; c < NCHECKS; c++) {
    printf("%-4s %s (%u violations)\n", violations[c] ? "FAIL" : "ok", check_names[c],
           violations[c]);
    violations[c] ? failed++ : passed++;
  }
  unit_failures ? failed++ : passed++;
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
