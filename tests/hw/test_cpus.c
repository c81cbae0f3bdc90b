/* A NIC's two firmware processors (hw/cpus.c): engine events reach the processor whose route
 * holds their bit, each processor masks and clears only its own events, one processor by
 * default sees everything as the NIC's own register does, each scratchpad is private, and the
 * semaphore and the doorbell between the processors work as cpus.h says. */
#include "hwtest.h"
#include "../../hw/cpus.h"

/* The Tigon partition's routing: the receive side's bits (and timer 1) on processor 1. */
#define RX_BITS (NIC_ISR_RECV | NIC_ISR_HEAD | NIC_ISR_BUFF | NIC_ISR_TIMER(1))

static void one_processor_by_default(void **state) {
  (void)state;
  struct nic *nic = t_nic(0, NIC_TIMING_MODEL);
  assert_int_equal(nic_cpus(nic), 1);
  nic_imr_set(nic, 0xffffffffu);
  nic_timer_set(nic, 1, 10);
  nic_advance(nic, 10);
  assert_int_equal(nic_cpu_events(nic, 0), nic_events(nic));
  assert_int_equal(nic_cpu_events(nic, 1), 0);
  assert_int_equal(nic_scratch_size(nic, 1), 0);
  assert_int_equal(nic_cpus_set(nic, 3, 0), -1);
  nic_destroy(nic);
}

static void events_follow_the_route(void **state) {
  (void)state;
  struct nic *nic = t_nic(0, NIC_TIMING_MODEL);
  assert_int_equal(nic_cpus_set(nic, 2, RX_BITS), 0);
  nic_cpu_imr_set(nic, 0, 0xffffffffu);
  nic_cpu_imr_set(nic, 1, 0xffffffffu);
  /* Timer 0 (the send side's) and timer 1 (the receive side's) expire together. */
  nic_timer_set(nic, 0, 100);
  nic_timer_set(nic, 1, 100);
  nic_advance(nic, 100);
  assert_int_equal(nic_cpu_events(nic, 0), NIC_ISR_TIMER(0));
  assert_int_equal(nic_cpu_events(nic, 1), NIC_ISR_TIMER(1));
  /* Processor 0 clearing everything leaves processor 1's event pending. */
  nic_cpu_isr_clear(nic, 0, 0xffffffffu);
  assert_int_equal(nic_cpu_events(nic, 0), 0);
  assert_int_equal(nic_cpu_events(nic, 1), NIC_ISR_TIMER(1));
  /* Processor 1's mask is its own. */
  nic_cpu_imr_set(nic, 1, 0);
  assert_int_equal(nic_cpu_events(nic, 1), 0);
  assert_true(nic_isr(nic) & NIC_ISR_TIMER(1));
  nic_cpu_imr_set(nic, 1, RX_BITS);
  nic_cpu_isr_clear(nic, 1, NIC_ISR_TIMER(1));
  assert_int_equal(nic_isr(nic) & NIC_ISR_TIMER(1), 0);
  assert_int_equal(nic_cpu_route(nic, 0) & RX_BITS, 0);
  assert_int_equal(nic_cpu_route(nic, 0) | nic_cpu_route(nic, 1), 0xffffffffu);
  nic_destroy(nic);
}

static void scratchpads_are_private(void **state) {
  (void)state;
  struct nic *nic = t_nic(0, NIC_TIMING_MODEL);
  nic_cpus_set(nic, 2, RX_BITS);
  assert_int_equal(nic_scratch_size(nic, 0), NIC_SCRATCH0);
  assert_int_equal(nic_scratch_size(nic, 1), NIC_SCRATCH1);
  uint32_t a = 0xa0a0a0a0u, b = 0xb1b1b1b1u, v = 0;
  assert_int_equal(nic_scratch_write(nic, 0, 64, &a, 4), 0);
  assert_int_equal(nic_scratch_write(nic, 1, 64, &b, 4), 0);
  assert_int_equal(nic_scratch_read(nic, 0, 64, &v, 4), 0);
  assert_int_equal(v, a);
  assert_int_equal(nic_scratch_read(nic, 1, 64, &v, 4), 0);
  assert_int_equal(v, b);
  /* Neither is in SRAM, and neither reaches past its end (CPU B's is the smaller). */
  uint32_t word = 0;
  assert_int_equal(nic_sram_read32(nic, 64, &word), NIC_OK);
  assert_int_equal(word, 0);
  assert_int_equal(nic_scratch_write(nic, 1, NIC_SCRATCH1 - 2, &b, 4), -1);
  assert_int_equal(nic_scratch_read(nic, 0, NIC_SCRATCH0, &v, 1), -1);
  assert_int_equal(nic_scratch_read(nic, 0, NIC_SCRATCH0 - 4, &v, 4), 0);
  assert_int_equal(nic_scratch_read(nic, 2, 0, &v, 4), -1);
  nic_destroy(nic);
}

static void semaphore_and_kick(void **state) {
  (void)state;
  struct nic *nic = t_nic(0, NIC_TIMING_MODEL);
  nic_cpus_set(nic, 2, RX_BITS);
  assert_int_equal(nic_sem_holder(nic), -1);
  assert_int_equal(nic_sem_take(nic, 1), 1);
  assert_int_equal(nic_sem_take(nic, 1), 1);
  assert_int_equal(nic_sem_take(nic, 0), 0);
  nic_sem_give(nic, 0);                      /* not the holder: nothing happens */
  assert_int_equal(nic_sem_holder(nic), 1);
  nic_sem_give(nic, 1);
  assert_int_equal(nic_sem_take(nic, 0), 1);
  assert_int_equal(nic_sem_take(nic, 2), 0);
  /* The doorbell between the processors stays up until its processor takes it. */
  assert_false(nic_cpu_kicked(nic, 0));
  nic_cpu_kick(nic, 0);
  assert_true(nic_cpu_kicked(nic, 0));
  assert_false(nic_cpu_kicked(nic, 1));
  assert_true(nic_cpu_kick_take(nic, 0));
  assert_false(nic_cpu_kick_take(nic, 0));
  nic_destroy(nic);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(one_processor_by_default),
      cmocka_unit_test(events_follow_the_route),
      cmocka_unit_test(scratchpads_are_private),
      cmocka_unit_test(semaphore_and_kick),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
