/* Wake-ups across processes on a 32-bit word in shared memory (Linux futex), and the
 * monotonic clock. The protocol built on them is iface/wait.h's. */
#ifndef HW_FUTEX_H
#define HW_FUTEX_H

#include <stdatomic.h>
#include <stdint.h>

/* Sleeps while *word == expected, at most timeout_ns (< 0: no limit). 0 when woken or the
 * word changed, -ETIMEDOUT, or -EINTR. */
int hw_futex_wait(_Atomic uint32_t *word, uint32_t expected, int64_t timeout_ns);
void hw_futex_wake(_Atomic uint32_t *word);
uint64_t hw_mono_ns(void);

#endif
