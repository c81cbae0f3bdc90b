/* NIC registers: SRAM bounds, ISR/IMR, doorbells and mailboxes, timers, the clock, host
 * signals, and the window by name (same process; two processes are in test_window). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hwtest.h"
#include "wait.h"

static void sram_bounds(void **state) {
  (void)state;
  struct nic *nic = t_nic(0, NIC_TIMING_MODEL);
  uint32_t size = nic_sram_size(nic);
  assert_int_equal(size, HW_SRAM_DEFAULT);
  uint8_t buf[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, back[16];
  assert_int_equal(nic_sram_write(nic, size - 16, buf, 16), NIC_OK);
  assert_int_equal(nic_sram_read(nic, size - 16, back, 16), NIC_OK);
  assert_memory_equal(buf, back, 16);
  assert_int_equal(nic_sram_write(nic, size - 15, buf, 16), NIC_ERANGE);
  assert_int_equal(nic_sram_read(nic, size, back, 1), NIC_ERANGE);
  assert_int_equal(nic_sram_read(nic, size, back, 0), NIC_OK);
  assert_int_equal(nic_sram_write(nic, 0xffffffffu, buf, 2), NIC_ERANGE); /* no wrap-around */
  assert_int_equal(nic_sram_read(nic, 4, back, SIZE_MAX), NIC_ERANGE);
  uint32_t v;
  assert_int_equal(nic_sram_write32(nic, 8, 0x11223344), NIC_OK);
  assert_int_equal(nic_sram_read32(nic, 8, &v), NIC_OK);
  assert_int_equal(v, 0x11223344);
  assert_int_equal(nic_sram_write32(nic, 6, 1), NIC_EALIGN);
  assert_int_equal(nic_sram_read32(nic, 9, &v), NIC_EALIGN);
  assert_int_equal(nic_sram_write32(nic, size, 1), NIC_ERANGE);
  assert_non_null(nic_sram_ptr(nic, size - 4, 4));
  assert_null(nic_sram_ptr(nic, size - 3, 4));
  /* The window's SRAM is the same memory. */
  struct hwin *w = nic_window(nic);
  assert_int_equal(hwin_sram_read(w, 8, &v, 4), 0);
  assert_int_equal(v, 0x11223344);
  assert_int_equal(hwin_sram_write(w, size - 2, buf, 4), -ERANGE);
  nic_destroy(nic);
}

static void config_sizes(void **state) {
  (void)state;
  struct nic_config c;
  nic_config_default(&c);
  c.sram_size = 64 * 1024;
  int err = 1;
  struct nic *nic = nic_create(&c, &err);
  assert_non_null(nic);
  assert_int_equal(nic_sram_size(nic), 64 * 1024);
  nic_destroy(nic);
  c.sram_size = 1000; /* below the minimum */
  assert_null(nic_create(&c, &err));
  assert_int_equal(err, NIC_EINVAL);
  c.sram_size = 4100; /* not a multiple of 8 */
  assert_null(nic_create(&c, &err));
  c.sram_size = 0;    /* default */
  nic = nic_create(&c, NULL);
  assert_int_equal(nic_sram_size(nic), HW_SRAM_DEFAULT);
  nic_destroy(nic);
}

static void isr_and_mask(void **state) {
  (void)state;
  struct nic *nic = t_nic(0, NIC_TIMING_MODEL);
  nic_imr_set(nic, 0);
  assert_int_equal(nic_isr(nic), 0);
  nic_isr_raise(nic, 0x00030000u | NIC_ISR_SEND); /* hardware bits cannot be raised */
  assert_int_equal(nic_isr(nic), 0x00030000u);
  assert_int_equal(nic_events(nic), 0);            /* all masked */
  nic_imr_set(nic, 0x00010000u);
  assert_int_equal(nic_imr(nic), 0x00010000u);
  assert_int_equal(nic_events(nic), 0x00010000u);
  nic_isr_clear(nic, 0x00010000u);                 /* write one to clear */
  assert_int_equal(nic_isr(nic), 0x00020000u);
  nic_isr_clear(nic, 0x00010000u);                 /* clearing a clear bit changes nothing */
  assert_int_equal(nic_isr(nic), 0x00020000u);
  assert_int_equal(nic_events(nic), 0);
  /* The ISR is visible in the window's register page. */
  assert_int_equal(atomic_load(&nic_window(nic)->regs->isr), 0x00020000u);
  nic_destroy(nic);
}

static void doorbells(void **state) {
  (void)state;
  struct nic *nic = t_nic(0, NIC_TIMING_MODEL);
  struct hwin *w = nic_window(nic);
  nic_advance(nic, 10);
  assert_int_equal(nic_isr(nic) & NIC_ISR_HOST_SIG, 0);
  assert_int_equal(hwin_doorbell(w, 3, 42), 0);
  assert_int_equal(hwin_doorbell(w, 31, 7), 0);
  assert_int_equal(hwin_doorbell(w, 32, 7), -EINVAL);
  assert_int_equal(nic_isr(nic) & NIC_ISR_HOST_SIG, 0); /* seen on the next advance */
  nic_advance(nic, 20);
  assert_true(nic_events(nic) & NIC_ISR_HOST_SIG);
  nic_isr_clear(nic, NIC_ISR_HOST_SIG);
  nic_advance(nic, 30);
  assert_true(nic_isr(nic) & NIC_ISR_HOST_SIG); /* untaken doorbells keep it asserted */
  assert_int_equal(nic_doorbells_take(nic), (1u << 3) | (1u << 31));
  assert_int_equal(nic_mailbox(nic, 3), 42);
  assert_int_equal(nic_mailbox(nic, 31), 7);
  assert_int_equal(nic_mailbox(nic, 99), 0);
  nic_isr_clear(nic, NIC_ISR_HOST_SIG);
  nic_advance(nic, 40);
  assert_int_equal(nic_isr(nic) & NIC_ISR_HOST_SIG, 0);
  assert_int_equal(nic_doorbells_take(nic), 0);
  hwin_doorbell(w, 3, 43); /* a second write overwrites the mailbox, like a register */
  hwin_doorbell(w, 3, 44);
  assert_int_equal(nic_doorbells_take(nic), 1u << 3);
  assert_int_equal(nic_mailbox(nic, 3), 44);
  assert_int_equal(nic_counter(nic, HW_CTR_DOORBELLS), 3);
  assert_int_equal(t_doorbell_wait(nic, 0), 0);   /* nothing pending: times out at once */
  hwin_doorbell(w, 0, 1);
  assert_int_equal(t_doorbell_wait(nic, -1), 1);  /* pending: returns without sleeping */
  nic_destroy(nic);
}

static void timers(void **state) {
  (void)state;
  struct nic *nic = t_nic(0, NIC_TIMING_MODEL);
  assert_true(nic_next_due(nic) == NIC_NEVER);
  assert_false(nic_step(nic));
  assert_int_equal(nic_timer_set(nic, 0, 1000), NIC_OK);
  assert_int_equal(nic_timer_set(nic, 1, 500), NIC_OK);
  assert_int_equal(nic_timer_set(nic, NIC_TIMERS, 5), NIC_EINVAL);
  assert_true(nic_next_due(nic) == 500);
  nic_advance(nic, 499);
  assert_int_equal(nic_isr(nic) & (NIC_ISR_TIMER(0) | NIC_ISR_TIMER(1)), 0);
  nic_advance(nic, 500);
  assert_int_equal(nic_isr(nic) & (NIC_ISR_TIMER(0) | NIC_ISR_TIMER(1)), NIC_ISR_TIMER(1));
  assert_false(nic_timer_armed(nic, 1));
  assert_true(nic_timer_armed(nic, 0));
  nic_timer_set(nic, 0, 2000); /* re-arming moves the deadline: 500 + 2000 */
  nic_advance(nic, 1500);
  assert_int_equal(nic_isr(nic) & NIC_ISR_TIMER(0), 0);
  assert_true(nic_step(nic));
  assert_true(nic_clock(nic) == 2500);
  assert_true(nic_isr(nic) & NIC_ISR_TIMER(0));
  nic_timer_set(nic, 2, 10);
  nic_timer_cancel(nic, 2);
  assert_int_equal(nic_timer_cancel(nic, 3), NIC_EINVAL);
  nic_advance(nic, 10000);
  assert_int_equal(nic_isr(nic) & NIC_ISR_TIMER(2), 0);
  assert_int_equal(nic_counter(nic, HW_CTR_TIMER_FIRES), 2);
  nic_timer_set(nic, 2, UINT64_MAX); /* saturates instead of wrapping into the past */
  assert_true(nic_next_due(nic) > nic_clock(nic));
  nic_destroy(nic);
}

static void clock_monotonic(void **state) {
  (void)state;
  struct nic *nic = t_nic(0, NIC_TIMING_MODEL);
  nic_advance(nic, 5000);
  assert_true(nic_clock(nic) == 5000);
  nic_advance(nic, 100);
  assert_true(nic_clock(nic) == 5000);
  assert_true(atomic_load(&nic_window(nic)->regs->clock_ns) == 5000);
  nic_destroy(nic);
}

static void host_signal_same_process(void **state) {
  (void)state;
  struct nic *nic = t_nic(0, NIC_TIMING_MODEL);
  struct hwin *w = nic_window(nic);
  uint32_t got = 0;
  assert_int_equal(wait_signal(w->regs, 1, 1000000, 0, NULL, NULL, &got), -ETIMEDOUT);
  nic_signal_host(nic, 0x5);
  assert_int_equal(wait_signal(w->regs, 0x4, 0, 0, NULL, NULL, &got), 0);
  assert_int_equal(got, 0x4);
  assert_int_equal(wait_signal(w->regs, 0x5, 0, 0, NULL, NULL, &got), 0);
  assert_int_equal(got, 0x1); /* bit 2 was taken already */
  assert_int_equal(nic_counter(nic, HW_CTR_HOST_SIGNALS), 1);
  nic_destroy(nic);
}

static void window_by_name(void **state) {
  (void)state;
  char name[64];
  snprintf(name, sizeof name, "/verinic-test-%d", (int)getpid());
  struct nic_config c;
  nic_config_default(&c);
  c.shm_name = name;
  c.node = 5;
  c.sram_size = 1 << 20;
  struct nic *nic = nic_create(&c, NULL);
  assert_non_null(nic);
  assert_null(nic_create(&c, NULL)); /* the name is taken */
  struct hwin w;
  assert_int_equal(hwin_open(&w, name), 0);
  assert_int_equal(w.regs->magic, HW_WIN_MAGIC);
  assert_int_equal(w.regs->node, 5);
  assert_int_equal(w.sram_size, 1 << 20);
  assert_true(hwin_nic_alive(&w));
  nic_sram_write32(nic, 64, 0xabcdef01);
  uint32_t v = 0;
  hwin_sram_read(&w, 64, &v, 4);
  assert_int_equal(v, 0xabcdef01);
  nic_destroy(nic);
  assert_false(hwin_nic_alive(&w));
  uint32_t got;
  assert_int_equal(wait_signal(w.regs, 1, -1, 0, NULL, NULL, &got), -EPIPE); /* stopped NIC: an error, no hang */
  hwin_close(&w);
  assert_int_equal(hwin_open(&w, name), -ENOENT);
}

static void window_rejects_garbage(void **state) {
  (void)state;
  char name[64];
  snprintf(name, sizeof name, "/verinic-junk-%d", (int)getpid());
  struct nic_config c;
  nic_config_default(&c);
  c.shm_name = name;
  c.sram_size = 1 << 16;
  struct nic *nic = nic_create(&c, NULL);
  struct hwin *w = nic_window(nic);
  w->regs->sram_size = 1 << 20; /* lies about the size of the object */
  struct hwin o;
  assert_int_equal(hwin_open(&o, name), -EPROTO);
  w->regs->sram_size = 1 << 16;
  w->regs->magic = 0;
  assert_int_equal(hwin_open(&o, name), -EPROTO);
  w->regs->magic = HW_WIN_MAGIC;
  assert_int_equal(hwin_open(&o, name), 0);
  hwin_close(&o);
  nic_destroy(nic);
  c.shm_name = "no-slash";
  int err;
  assert_null(nic_create(&c, &err));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(sram_bounds),     cmocka_unit_test(config_sizes),
      cmocka_unit_test(isr_and_mask),    cmocka_unit_test(doorbells),
      cmocka_unit_test(timers),          cmocka_unit_test(clock_monotonic),
      cmocka_unit_test(host_signal_same_process), cmocka_unit_test(window_by_name),
      cmocka_unit_test(window_rejects_garbage),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
