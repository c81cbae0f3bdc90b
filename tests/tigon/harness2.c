/* harness2.c: the data path's C harness (tests/datapath/harness.c: simulated engines, real
 * bytes, the model's invariants as run-time checks) run on two processors: the partitioned
 * data path of esm/tigon/ (gen/tigon), each firmware step taken by processor 0 or processor 1
 * at random with its own dispatcher (datapath_step_p0/_p1), so the send and receive sides
 * interleave at handler granularity. Also checks that a processor fires only its machines. */
#include "datapath.h"

static int cpu_of_last_step;

#define HARNESS_STEP(s) step_random_cpu(s)
static _Bool step_random_cpu(datapath_t *sys);

#include "../datapath/harness.c"

static _Bool step_random_cpu(datapath_t *sys) {
  uint32_t before[datapath_NEVENTS];
  memcpy(before, sys->dispatched, sizeof before);
  cpu_of_last_step = (int)rnd(2);
  _Bool fired = cpu_of_last_step ? datapath_step_p1(sys) : datapath_step_p0(sys);
  for (int e = 0; e < datapath_NEVENTS; e++)
    if (sys->dispatched[e] != before[e] && !datapath_event_on(cpu_of_last_step, e))
      fail("processor %d handled %s, an event of the other processor", cpu_of_last_step,
           datapath_event_name(e));
  return fired;
}
