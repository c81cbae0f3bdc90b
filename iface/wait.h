/* The wait/wake protocol over a NIC window's register page (window.h, WINDOW.md), in
 * one place for every party: host processes waiting for signal bits (libnic, libpanic,
 * tests) and the NIC process waiting for doorbells on one or several windows (nicd, tests).
 *
 * Each side spins first (plain loads and the CPU's pause hint, the clock read every
 * WAIT_CLOCK_EVERY looks, no system call), for a time the caller chooses, then sleeps on a
 * futex word. A sleeper announces itself (host_waiters, nic_sleeping) before its last look,
 * and a waker bumps the sequence word before it reads the announcement, so a wake-up is never
 * lost. A host sleeps with its mask as the futex's bit set, and a signal wakes only the
 * sleepers of its bits (one thread's completion does not wake the process's other threads);
 * a stop or fault wakes every sleeper. Sleeping hosts also OR their mask into host_wait_bits,
 * which the waker clears as it wakes them, so that a signal nobody sleeps on costs no system
 * call. Hosts sleep in slices of WAIT_SLICE_NS so a NIC process that died without marking
 * its window stopped is noticed. */
#ifndef IFACE_WAIT_H
#define IFACE_WAIT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct hw_regs;

#define WAIT_SLICE_NS    50000000     /* a host's longest sleep between liveness probes */
#define WAIT_CLOCK_EVERY 32           /* spins read the clock once per this many looks */
#define WAIT_SPIN_MAX_NS 1000000000ull
#define WAIT_SET_MAX     18           /* pages one NIC process waits on: 16 windows, 2 of its own */

/* The spin times, in microseconds from the environment, and their defaults. On the shared
 * two-core machine they were tuned on (README.md, Benchmarks), every host spin tried (3 to
 * 200 us) made ping-pong latency worse: the spinning host holds a CPU that nicd or the peer
 * needs, and the futex wake-up costs less (again on 2026-11-27, after the wake-ups were made
 * selective: 10 and 30 us spins, 31 and 39-64 us RTT/2 against 8.9); nicd's short spin
 * catches a host's next doorbell without a wake-up. On an idle multi-core machine a host spin
 * of 10-20 us saves one. */
#define WAIT_HOST_SPIN_ENV "VERINIC_HOST_SPIN_US"
#define WAIT_HOST_SPIN_NS  0ull
#define WAIT_NICD_SPIN_ENV "VERINIC_NICD_SPIN_US"
#define WAIT_NICD_SPIN_NS  20000ull

/* The CPU's spin-wait hint. */
void wait_relax(void);
/* A spin time from environment variable `var` in microseconds (clamped to [0, 1 s]), or
 * dflt_ns when it is unset or empty. */
uint64_t wait_spin_env(const char *var, uint64_t dflt_ns);

/* Wake sides: called after the state they announce is stored. */
void wait_wake_nic(struct hw_regs *r);   /* a doorbell is pending (db_pending) */
void wait_wake_hosts(struct hw_regs *r); /* the NIC stopped, or anything every host sees */
/* Signal bits raised (host_irq): wakes only the sleepers waiting for one of them. */
void wait_wake_hosts_bits(struct hw_regs *r, uint32_t bits);
/* A host's own wake-up of its sleepers on bits, without a signal: they look again. Unlike
 * the NIC's wake it leaves host_wait_bits alone: a sleeper about to sleep when it comes
 * misses it, and must still be woken by the NIC's next signal of its bits. */
void wait_poke_hosts(struct hw_regs *r, uint32_t bits);

/* True when the window's NIC is stopped or its process is gone (a kill(2) probe). */
bool wait_nic_gone(struct hw_regs *r);

/* Host side: waits until one of the mask bits of host_irq is up, takes (clears) the mask's
 * bits and returns them in *got (got may be NULL). Spins at most spin_ns, then sleeps.
 * `gone(ctx)` is asked before each sleep whether the NIC went away (NULL: wait_nic_gone).
 * 0, -ETIMEDOUT, or -EPIPE when the NIC stopped or vanished. timeout_ns < 0: no limit. */
int wait_signal(struct hw_regs *r, uint32_t mask, int64_t timeout_ns, uint64_t spin_ns,
                bool (*gone)(void *ctx), void *ctx, uint32_t *got);

/* The same, but it returns after its first sleep that ends without its bits: -EINTR when a
 * signal cut the sleep short, -EAGAIN when it was woken for bits another waiter took first
 * (or for nothing). A caller that sleeps with its own condition in mind (SOVIA's, through
 * VipxCQWaitEx) looks at it again at once instead of sleeping on until the timeout. */
int wait_signal_once(struct hw_regs *r, uint32_t mask, int64_t timeout_ns, uint64_t spin_ns,
                     bool (*gone)(void *ctx), void *ctx, uint32_t *got);

/* NIC side: the windows one NIC process serves, and an optional stop flag (a signal
 * handler's) that ends every wait. */
struct wait_set {
  struct hw_regs *r[WAIT_SET_MAX];
  unsigned n;
  const volatile sig_atomic_t *stop;
};

bool wait_doorbell_pending(const struct wait_set *s);
/* Spins until a doorbell on any window or the stop flag (true), the clock (futex_now_ns)
 * reaching `due` (true: an engine event is due) or `until` (false). */
bool wait_doorbell_spin(const struct wait_set *s, uint64_t due, uint64_t until);
/* Sleeps on every window's doorbell futex at once (futex_waitv) until a doorbell, the stop
 * flag, a signal or the clock reaching `deadline`. */
void wait_doorbell_sleep(const struct wait_set *s, uint64_t deadline);
/* The same, but sleeping only while every window's nic_seq still equals seq[i] (read by the
 * caller before it last looked at the windows): nicd's timing mode, whose hosts bump nic_seq
 * for changes other than doorbells. */
void wait_doorbell_sleep_seq(const struct wait_set *s, const uint32_t *seq, uint64_t deadline);
/* Spin at most spin_ns, then sleep: 1 when a doorbell is pending, 0 on timeout or stop.
 * timeout_ns < 0: no limit. */
int wait_doorbell(const struct wait_set *s, uint64_t spin_ns, int64_t timeout_ns);

#endif
