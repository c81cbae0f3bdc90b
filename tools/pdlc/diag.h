/* Compiler diagnostics: "file:line:col: error: message", the source line, and a caret. */
#ifndef PDL_DIAG_H
#define PDL_DIAG_H

#include <stddef.h>
#include <stdio.h>

struct pos {
  int line, col;
  size_t off; /* byte offset of the position in the source */
};

struct diag {
  const char *file;
  const char *src;
  size_t len;
  FILE *out;
  int errors;
};

#define PDL_MAX_ERRORS 20

void diag_init(struct diag *d, const char *file, const char *src, size_t len, FILE *out);
void diag_error(struct diag *d, struct pos p, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag_note(struct diag *d, struct pos p, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
