/* fw_cpus.c: the firmware's pass on one of two processors (fw_cpus.h).
 *
 * What the two share is struct fw and the SRAM structures both sides touch: the data path's
 * pending events (datapath_t), the send pipeline (a receive raises ACKs and NACKs into it, and
 * an acknowledgement completes sends), the VIs, the counters of hostif_counters. All of it is
 * under one lock, the card's firmware semaphore (hw/cpus.c, FWB_R_SEM on the LANai card): a
 * processor holds it while it handles events and runs machines, and not while it polls. Only
 * the per-processor counters (fw->cpu_*[cpu], hostif_counters.cpu_*[cpu]) are written outside
 * it, each by its own processor alone. The handlers reach the hardware through fw->board,
 * which the holder points at its own board (its event register, its class counters).
 * Freestanding. */
#include "fw_cpus.h"

#include "fw_dispatch.h"
#include "fw_sq.h"
#include "fw_vm_ctl.h"

_Static_assert((FW_CPU1_ISR & ~FW_ISR_UNMASKED) == 0, "processor 1 handles what fw_init unmasks");

/* Each start rings the other processor's doorbell, so that each runs a first pass whatever
 * happens: its machines' first steps (RECV arms the receive engine there). */
void fw_cpus_start(struct fw *fw, struct fw_board *b, unsigned cpu) {
  (void)fw;
  if (cpu == 1) fwb_imr_set(b, FW_ISR_UNMASKED & FW_CPU1_ISR);
  fwb_kick(b);
}

static unsigned popcount(uint32_t v) {
  unsigned n = 0;
  for (; v; v &= v - 1u) n++;
  return n;
}

/* Under the semaphore: events, pumps, machines. Whether anything happened. */
static bool work(struct fw *fw, unsigned cpu, uint32_t ev) {
  bool any = ev != 0;
  if (ev) fw_dispatch_events(fw, ev);
  if (cpu == 0) {
    uint32_t queued = fw->tx_head;
    fw_vm_ctl_pump(fw);
    fw_sq_pump(fw);
    if (fw->tx_head != queued) any = true;
  }
  unsigned steps = datapath_run_cpu(&fw->dp, (int)cpu, 0xffffffffu);
  fw->cpu_steps[cpu] += steps;
  return any || steps != 0;
}

static void publish_own(struct fw *fw, unsigned cpu) {
  volatile struct hostif_counters *c = fw_ctr(fw);
  fw_ctr_set(&c->cpu_isr[cpu], fw->cpu_isr[cpu]);
  fw_ctr_set(&c->cpu_steps[cpu], fw->cpu_steps[cpu]);
  fw_ctr_set(&c->cpu_passes[cpu], fw->cpu_passes[cpu]);
}

bool fw_cpus_poll(struct fw *fw, struct fw_board *b, unsigned cpu) {
  if (cpu > 1) return false;
  bool did = false;
  /* After a pass that did something, one more: its machines may have freed what the pumps
   * wait for (as fw_dispatch_poll loops). */
  for (bool again = false;;) {
    uint32_t ev = fwb_events(b);
    bool kicked = fwb_kicked(b);
    if (!ev && !kicked && !again) break;
    fw->cpu_isr[cpu] += popcount(ev);
    /* Out of the idle class before the next EVENTS read: timing mode takes a read that finds
     * nothing while idle for the end of the poll, and the doorbell that ends it would be lost. */
    fwb_class(b, cpu ? FWB_CLASS_RECV : FWB_CLASS_DOORBELL);
    fwb_lock(b);
    fw->board = b;
    fw->cpu_passes[cpu]++;
    bool any = work(fw, cpu, ev);
    if (!any && did) fw_dispatch_publish(fw);   /* a productive poll's last round: once */
    fwb_unlock(b);
    if (!any) break;
    again = did = true;
  }
  if (did) {
    fwb_kick(b);
    publish_own(fw, cpu);
  }
  fwb_class(b, FWB_CLASS_IDLE);
  return did;
}
