/* A tiny test harness for the VIPL/libnic tests: CHECK records failures with file:line,
 * RUN runs one case, vt_now_ms/vt_sleep_ms keep time, vt_summary prints "N passed, N failed" (tests/run.sh reads it). */
#ifndef VTEST_H
#define VTEST_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

extern int vt_case_failed, vt_passed, vt_failed;

#define CHECK(c)                                                                   \
  do {                                                                             \
    if (!(c)) {                                                                    \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);        \
      vt_case_failed = 1;                                                          \
    }                                                                              \
  } while (0)
#define CHECK_EQ(a, b)                                                             \
  do {                                                                             \
    long long va_ = (long long)(a), vb_ = (long long)(b);                          \
    if (va_ != vb_) {                                                              \
      fprintf(stderr, "%s:%d: %s == %s: %lld != %lld\n", __FILE__, __LINE__, #a, #b, \
              va_, vb_);                                                           \
      vt_case_failed = 1;                                                          \
    }                                                                              \
  } while (0)

#define RUN(fn)                                                                    \
  do {                                                                             \
    vt_case_failed = 0;                                                            \
    fn();                                                                          \
    printf("%s %s\n", vt_case_failed ? "FAIL" : "ok  ", #fn);                     \
    fflush(stdout);                                                                \
    if (vt_case_failed) vt_failed++;                                               \
    else vt_passed++;                                                              \
  } while (0)

static inline int vt_summary(void) {
  printf("%d passed, %d failed\n", vt_passed, vt_failed);
  return vt_failed ? 1 : 0;
}

/* The monotonic clock in milliseconds, and a sleep of ms. */
static inline uint64_t vt_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}
static inline void vt_sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
  nanosleep(&ts, NULL);
}

#define VT_GLOBALS int vt_case_failed, vt_passed, vt_failed

#endif
