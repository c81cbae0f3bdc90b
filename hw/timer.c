/* Interval timers: one-shot deadlines on the emulated clock that set NIC_ISR_TIMER(t). */
#include "nic_internal.h"

int nic_timer_set(struct nic *nic, unsigned t, uint64_t delay_ns) {
  if (t >= NIC_TIMERS) return NIC_EINVAL;
  nic->timer[t].armed = true;
  nic->timer[t].due = delay_ns > NIC_NEVER - 1 - nic->now ? NIC_NEVER - 1 : nic->now + delay_ns;
  return NIC_OK;
}

int nic_timer_cancel(struct nic *nic, unsigned t) {
  if (t >= NIC_TIMERS) return NIC_EINVAL;
  nic->timer[t].armed = false;
  return NIC_OK;
}

bool nic_timer_armed(const struct nic *nic, unsigned t) {
  return t < NIC_TIMERS && nic->timer[t].armed;
}

uint64_t nic_timer_due(const struct nic *nic, unsigned *which) {
  uint64_t best = NIC_NEVER;
  for (unsigned t = 0; t < NIC_TIMERS; t++)
    if (nic->timer[t].armed && nic->timer[t].due < best) {
      best = nic->timer[t].due;
      *which = t;
    }
  return best;
}

void nic_timer_fire(struct nic *nic, unsigned t) {
  nic->timer[t].armed = false;
  nic_isr_set(nic, NIC_ISR_TIMER(t));
  nic_ctr_add(nic, HW_CTR_TIMER_FIRES, 1);
}
