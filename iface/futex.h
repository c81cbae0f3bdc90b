/* Wake-ups across processes on a 32-bit word in shared memory (Linux futex), and the
 * monotonic clock their timeouts and every deadline of the wait protocol count in. The
 * protocol built on them is wait.h's. */
#ifndef IFACE_FUTEX_H
#define IFACE_FUTEX_H

#include <stdatomic.h>
#include <stdint.h>

/* Sleeps while *word == expected, at most timeout_ns (< 0: no limit). 0 when woken or the
 * word changed, -ETIMEDOUT, or -EINTR. */
int futex_wait(_Atomic uint32_t *word, uint32_t expected, int64_t timeout_ns);
void futex_wake(_Atomic uint32_t *word);
/* The same with a bit set (FUTEX_WAIT_BITSET, FUTEX_WAKE_BITSET): a wake wakes only the
 * sleepers whose bits meet its bits (futex_wait and futex_wake count as all bits). bits != 0.
 * 0 when woken, -EAGAIN when the word had changed (no sleep), -ETIMEDOUT, or -EINTR. */
int futex_wait_bits(_Atomic uint32_t *word, uint32_t expected, int64_t timeout_ns, uint32_t bits);
void futex_wake_bits(_Atomic uint32_t *word, uint32_t bits);
/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t futex_now_ns(void);

#endif
