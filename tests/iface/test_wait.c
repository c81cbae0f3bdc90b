/* The wait/wake protocol of iface/wait.c as its users run it: a NIC process sleeping on
 * several windows at once is woken by a doorbell on any of them; a host waiting for signal
 * bits gets exactly the bits of its mask, from the spin or from the sleep, and a signal wakes
 * only the sleepers of its bits; stops, vanished NICs and timeouts end every wait; spin times
 * from the environment are clamped. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "futex.h"
#include "../hw/hwtest.h"
#include "wait.h"

struct later {
  struct hwin *w;
  int64_t after_ns;
  unsigned doorbell;  /* ring this doorbell, or (if bits) raise these host signal bits */
  uint32_t bits;
};

static void *act_later(void *arg) {
  struct later *l = arg;
  struct timespec ts = {0, (long)l->after_ns};
  nanosleep(&ts, NULL);
  if (l->bits)
    hwin_signal_host(l->w, l->bits);
  else
    hwin_doorbell(l->w, l->doorbell, 42);
  return NULL;
}

static void three_windows_one_doorbell(void **state) {
  (void)state;
  struct nic *nic[3];
  struct wait_set s = {.n = 3};
  for (unsigned i = 0; i < 3; i++) {
    nic[i] = t_nic((uint16_t)i, NIC_TIMING_MODEL);
    s.r[i] = nic_window(nic[i])->regs;
  }
  /* A sleep, not a spin: the doorbell comes 30 ms later and the spin lasts 0. */
  struct later l = {.w = nic_window(nic[2]), .after_ns = 30000000, .doorbell = 5};
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, act_later, &l), 0);
  assert_int_equal(wait_doorbell(&s, 0, 20000000000ll), 1);
  pthread_join(t, NULL);
  assert_int_equal(atomic_load(&s.r[2]->db_pending), 1u << 5);
  assert_int_equal(atomic_load(&s.r[0]->db_pending) | atomic_load(&s.r[1]->db_pending), 0);
  for (unsigned i = 0; i < 3; i++) assert_int_equal(atomic_load(&s.r[i]->nic_sleeping), 0);
  for (unsigned i = 0; i < 3; i++) nic_destroy(nic[i]);
}

static void doorbell_timeout_and_stop(void **state) {
  (void)state;
  struct nic *nic = t_nic(0, NIC_TIMING_MODEL);
  volatile sig_atomic_t stop = 0;
  struct wait_set s = {.r = {nic_window(nic)->regs}, .n = 1, .stop = &stop};
  uint64_t t0 = futex_now_ns();
  assert_int_equal(wait_doorbell(&s, 1000, 20000000), 0);
  assert_true(futex_now_ns() - t0 >= 20000000);   /* it waited (no upper bound: a loaded box) */
  stop = 1;
  assert_int_equal(wait_doorbell(&s, 1000, -1), 0);   /* no time limit: the stop ends it */
  assert_true(wait_doorbell_spin(&s, UINT64_MAX, UINT64_MAX));
  stop = 0;
  assert_false(wait_doorbell_spin(&s, UINT64_MAX, futex_now_ns() + 100000));
  assert_true(wait_doorbell_spin(&s, futex_now_ns() + 100000, UINT64_MAX)); /* an event due */
  nic_destroy(nic);
}

static void signal_bits_by_mask(void **state) {
  (void)state;
  struct nic *nic = t_nic(0, NIC_TIMING_MODEL);
  struct hwin *w = nic_window(nic);
  uint32_t got = 0;
  for (uint64_t spin = 0; spin <= 200000000; spin += 200000000) {  /* sleep, then spin */
    struct later l = {.w = w, .after_ns = 20000000, .bits = 0x16};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, act_later, &l), 0);
    assert_int_equal(wait_signal(w->regs, 0x6, 20000000000ll, spin, NULL, NULL, &got), 0);
    pthread_join(t, NULL);
    assert_int_equal(got, 0x6);
    assert_int_equal(atomic_load(&w->regs->host_irq), 0x10);  /* not ours: left up */
    assert_int_equal(atomic_load(&w->regs->host_waiters), 0);
    atomic_store(&w->regs->host_irq, 0);
  }
  assert_int_equal(wait_signal(w->regs, 0x1, 10000000, 100000, NULL, NULL, &got), -ETIMEDOUT);
  nic_destroy(nic);
}

/* A host thread waiting for `mask`, counting its sleeps (the probe runs before each). */
struct sleeper {
  struct hw_regs *r;
  uint32_t mask, got;
  _Atomic unsigned sleeps;
  _Atomic uint64_t first_ns;
  int rc;
};

static bool count_sleep(void *ctx) {
  struct sleeper *z = ctx;
  if (atomic_fetch_add(&z->sleeps, 1) == 0) atomic_store(&z->first_ns, futex_now_ns());
  return false;
}

static void *sleeper_main(void *arg) {
  struct sleeper *z = arg;
  z->rc = wait_signal(z->r, z->mask, 5000000000ll, 0, count_sleep, z, &z->got);
  return NULL;
}

/* Sleeps z may have made without being woken: one, and one per slice since. */
static unsigned sleeps_allowed(struct sleeper *z) {
  return 1 + (unsigned)((futex_now_ns() - atomic_load(&z->first_ns)) / WAIT_SLICE_NS);
}

static void signal_wakes_only_its_sleepers(void **state) {
  (void)state;
  struct nic *nic = t_nic(0, NIC_TIMING_MODEL);
  struct hwin *w = nic_window(nic);
  struct sleeper x = {.r = w->regs, .mask = 0x1}, y = {.r = w->regs, .mask = 0x2};
  pthread_t tx, ty;
  assert_int_equal(pthread_create(&tx, NULL, sleeper_main, &x), 0);
  assert_int_equal(pthread_create(&ty, NULL, sleeper_main, &y), 0);
  while (atomic_load(&w->regs->host_waiters) < 2) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  assert_int_equal(atomic_load(&w->regs->host_wait_bits), 0x3);
  hwin_signal_host(w, 0x1);   /* x's bit: x goes, y sleeps on */
  pthread_join(tx, NULL);
  assert_int_equal(x.rc, 0);
  assert_int_equal(x.got, 0x1);
  hwin_signal_host(w, 0x4);   /* nobody's: no wake-up */
  atomic_fetch_or(&w->regs->host_wait_bits, 0x8);   /* a stale bit: the futex wakes, not y */
  hwin_signal_host(w, 0x8);
  struct timespec ts = {0, 5000000};
  nanosleep(&ts, NULL);
  assert_true(atomic_load(&y.sleeps) <= sleeps_allowed(&y));
  assert_int_equal(atomic_load(&w->regs->host_wait_bits), 0x2);
  assert_int_equal(atomic_load(&w->regs->host_irq), 0xc);
  hwin_signal_host(w, 0x2);
  pthread_join(ty, NULL);
  assert_int_equal(y.rc, 0);
  assert_int_equal(y.got, 0x2);
  assert_int_equal(atomic_load(&w->regs->host_waiters), 0);
  nic_destroy(nic);
}

static bool always_gone(void *ctx) {
  ++*(int *)ctx;
  return true;
}

static void gone_nic_ends_the_wait(void **state) {
  (void)state;
  struct nic *nic = t_nic(0, NIC_TIMING_MODEL);
  struct hwin *w = nic_window(nic);
  int asked = 0;
  uint32_t got = 7;
  assert_int_equal(wait_signal(w->regs, 1, -1, 0, always_gone, &asked, &got), -EPIPE);
  assert_int_equal(asked, 1);
  assert_false(wait_nic_gone(w->regs));
  atomic_store(&w->regs->state, HW_NIC_STOPPED);
  assert_true(wait_nic_gone(w->regs));
  assert_int_equal(wait_signal(w->regs, 1, -1, 1000000, NULL, NULL, &got), -EPIPE);
  atomic_store(&w->regs->state, HW_NIC_RUNNING);
  w->regs->nic_pid = 0x7ffffff0;   /* no such process */
  assert_true(wait_nic_gone(w->regs));
  nic_destroy(nic);
}

static void spin_from_environment(void **state) {
  (void)state;
  unsetenv("VT_SPIN");
  assert_int_equal(wait_spin_env("VT_SPIN", 777), 777);
  setenv("VT_SPIN", "", 1);
  assert_int_equal(wait_spin_env("VT_SPIN", 777), 777);
  setenv("VT_SPIN", "15", 1);
  assert_int_equal(wait_spin_env("VT_SPIN", 777), 15000);
  setenv("VT_SPIN", "-4", 1);
  assert_int_equal(wait_spin_env("VT_SPIN", 777), 0);
  setenv("VT_SPIN", "99999999999", 1);
  assert_int_equal(wait_spin_env("VT_SPIN", 777), WAIT_SPIN_MAX_NS);
  unsetenv("VT_SPIN");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(three_windows_one_doorbell), cmocka_unit_test(doorbell_timeout_and_stop),
      cmocka_unit_test(signal_bits_by_mask),        cmocka_unit_test(signal_wakes_only_its_sleepers),
      cmocka_unit_test(gone_nic_ends_the_wait),
      cmocka_unit_test(spin_from_environment),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
