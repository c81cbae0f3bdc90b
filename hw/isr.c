/* The event register and its mask, doorbells and mailboxes, and signals to the host. The
 * registers live in the window so host tools can read them. */
#include "nic_internal.h"

uint32_t nic_isr(const struct nic *nic) {
  return atomic_load_explicit(&nic->regs->isr, memory_order_relaxed);
}

uint32_t nic_imr(const struct nic *nic) {
  return atomic_load_explicit(&nic->regs->imr, memory_order_relaxed);
}

void nic_imr_set(struct nic *nic, uint32_t mask) {
  atomic_store_explicit(&nic->regs->imr, mask, memory_order_relaxed);
}

uint32_t nic_events(const struct nic *nic) { return nic_isr(nic) & nic_imr(nic); }

void nic_isr_clear(struct nic *nic, uint32_t bits) {
  atomic_fetch_and_explicit(&nic->regs->isr, ~bits, memory_order_relaxed);
}

void nic_isr_raise(struct nic *nic, uint32_t bits) { nic_isr_set(nic, bits & NIC_ISR_SW_MASK); }

/* HOST_SIG follows the pending doorbells: cleared while some are untaken, it comes back. */
void nic_doorbells_sync(struct nic *nic) {
  if (atomic_load(&nic->regs->db_pending)) nic_isr_set(nic, NIC_ISR_HOST_SIG);
}

uint32_t nic_doorbells_take(struct nic *nic) {
  uint32_t bits = atomic_exchange(&nic->regs->db_pending, 0);
  nic_ctr_add(nic, HW_CTR_DOORBELLS, (uint64_t)__builtin_popcount(bits));
  return bits;
}

uint32_t nic_mailbox(const struct nic *nic, unsigned i) {
  return i < HW_DOORBELLS ? atomic_load(&nic->regs->mailbox[i]) : 0;
}

void nic_signal_host(struct nic *nic, uint32_t bits) { hwin_signal_host(&nic->win, bits); }

uint64_t nic_counter(const struct nic *nic, enum hw_ctr c) {
  return (unsigned)c < HW_CTR_N ? atomic_load_explicit(&nic->regs->ctr[c], memory_order_relaxed)
                                : 0;
}
