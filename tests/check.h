/* check.h: the CHECK macro of test programs that count their own cases and end with
 * "N passed, N failed" (tests/run.sh reads that line). One test program per translation unit. */
#ifndef VERINIC_TESTS_CHECK_H
#define VERINIC_TESTS_CHECK_H

#include <stdio.h>

static int passed, failed;

#define CHECK(c, ...)                                                                    \
  do {                                                                                   \
    if (c) {                                                                             \
      passed++;                                                                          \
    } else {                                                                             \
      failed++;                                                                          \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                                        \
      printf(__VA_ARGS__);                                                               \
      printf("\n");                                                                      \
      fflush(stdout);                                                                    \
    }                                                                                    \
  } while (0)

#endif
