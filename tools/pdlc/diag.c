/* Diagnostic printing with source excerpt and caret; stops printing after PDL_MAX_ERRORS. */
#include "diag.h"

#include <stdarg.h>

void diag_init(struct diag *d, const char *file, const char *src, size_t len, FILE *out) {
  d->file = file;
  d->src = src;
  d->len = len;
  d->out = out;
  d->errors = 0;
}

static void excerpt(struct diag *d, struct pos p) {
  size_t start = p.off > d->len ? d->len : p.off, end;
  while (start > 0 && d->src[start - 1] != '\n') start--;
  for (end = start; end < d->len && d->src[end] != '\n'; end++) {}
  fprintf(d->out, "  %.*s\n  ", (int)(end - start), d->src + start);
  for (size_t i = start; i < p.off && i < end; i++) fputc(d->src[i] == '\t' ? '\t' : ' ', d->out);
  fputs("^\n", d->out);
}

static void report(struct diag *d, struct pos p, const char *kind, const char *fmt, va_list ap) {
  fprintf(d->out, "%s:%d:%d: %s: ", d->file, p.line, p.col, kind);
  vfprintf(d->out, fmt, ap);
  fputc('\n', d->out);
  excerpt(d, p);
}

void diag_error(struct diag *d, struct pos p, const char *fmt, ...) {
  va_list ap;
  if (++d->errors > PDL_MAX_ERRORS) return;
  va_start(ap, fmt);
  report(d, p, "error", fmt, ap);
  va_end(ap);
  if (d->errors == PDL_MAX_ERRORS) fprintf(d->out, "%s: too many errors, stopping\n", d->file);
}

void diag_note(struct diag *d, struct pos p, const char *fmt, ...) {
  va_list ap;
  if (d->errors > PDL_MAX_ERRORS) return;
  va_start(ap, fmt);
  report(d, p, "note", fmt, ap);
  va_end(ap);
}
