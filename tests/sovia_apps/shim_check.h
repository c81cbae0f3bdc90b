/* shim_check.h: what the shim's test programs (shim_sem.c, shim_fd.c) share: CHECK, which
 * prints "ok"/"FAIL" and counts, done(), which prints "N passed, N failed", and read_full. */
#ifndef SHIM_CHECK_H
#define SHIM_CHECK_H

#include <stdio.h>
#include <unistd.h>

static int pass, fail;
#define CHECK(c, ...) do { if (c) { pass++; printf("ok   " __VA_ARGS__); } \
                           else { fail++; printf("FAIL " __VA_ARGS__); } printf("\n"); fflush(stdout); } while (0)

static inline int done(void) {
  printf("%d passed, %d failed\n", pass, fail);
  fflush(stdout);
  return fail ? 1 : 0;
}

/* n bytes from s: 0, or -1 at an end or error first. */
static inline int read_full(int s, void *b, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(s, (char *)b + got, n - got);
    if (r <= 0) return -1;
    got += (size_t)r;
  }
  return 0;
}

#endif
