/* futex(2) wrappers. Not FUTEX_PRIVATE: the word lives in memory shared between processes. */
#define _GNU_SOURCE
#include "futex.h"

#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int futex_wait(_Atomic uint32_t *word, uint32_t expected, int64_t timeout_ns) {
  struct timespec ts, *tp = NULL;
  if (timeout_ns >= 0) {
    ts.tv_sec = (time_t)(timeout_ns / 1000000000);
    ts.tv_nsec = (long)(timeout_ns % 1000000000);
    tp = &ts;
  }
  if (syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, expected, tp, NULL, 0) == 0) return 0;
  if (errno == EAGAIN) return 0;
  return errno == ETIMEDOUT ? -ETIMEDOUT : -EINTR;
}

void futex_wake(_Atomic uint32_t *word) {
  syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, 0x7fffffff, NULL, NULL, 0);
}

int futex_wait_bits(_Atomic uint32_t *word, uint32_t expected, int64_t timeout_ns, uint32_t bits) {
  struct timespec ts, *tp = NULL;
  if (timeout_ns >= 0) {   /* FUTEX_WAIT_BITSET's timeout is absolute, on CLOCK_MONOTONIC */
    uint64_t end = futex_now_ns() + (uint64_t)timeout_ns;
    ts.tv_sec = (time_t)(end / 1000000000u);
    ts.tv_nsec = (long)(end % 1000000000u);
    tp = &ts;
  }
  if (syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_BITSET, expected, tp, NULL, bits) == 0)
    return 0;
  if (errno == EAGAIN) return -EAGAIN;
  return errno == ETIMEDOUT ? -ETIMEDOUT : -EINTR;
}

void futex_wake_bits(_Atomic uint32_t *word, uint32_t bits) {
  syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_BITSET, 0x7fffffff, NULL, NULL, bits);
}

uint64_t futex_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
