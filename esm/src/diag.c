/* diag.c: formatting and counting of compiler diagnostics. */
#include "diag.h"

#include <stdio.h>
#include <string.h>

#define MAX_SOURCES 64

static struct {
  const char *file, *text;
} sources[MAX_SOURCES];
static int nsources, nerrors, quiet;

void diag_add_source(const char *file, const char *text) {
  if (nsources < MAX_SOURCES) {
    sources[nsources].file = file;
    sources[nsources].text = text;
    nsources++;
  }
}

void diag_reset(void) { nsources = nerrors = 0; }
void diag_set_quiet(int q) { quiet = q; }
int diag_error_count(void) { return nerrors; }

static const char *find_line(const char *file, int line, int *len) {
  for (int i = 0; i < nsources; i++) {
    if (strcmp(sources[i].file, file) != 0)
      continue;
    const char *p = sources[i].text;
    for (int l = 1; l < line && p; l++) {
      p = strchr(p, '\n');
      if (p)
        p++;
    }
    if (!p)
      return NULL;
    const char *e = strchr(p, '\n');
    *len = e ? (int)(e - p) : (int)strlen(p);
    return p;
  }
  return NULL;
}

static void report(Loc loc, const char *kind, const char *fmt, va_list ap) {
  if (quiet)
    return;
  if (loc.file)
    fprintf(stderr, "%s:%d:%d: %s: ", loc.file, loc.line, loc.col, kind);
  else
    fprintf(stderr, "esmc: %s: ", kind);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  int len;
  const char *line = loc.file ? find_line(loc.file, loc.line, &len) : NULL;
  if (!line)
    return;
  fprintf(stderr, "  %.*s\n  ", len, line);
  for (int i = 1; i < loc.col && i <= len; i++)
    fputc(line[i - 1] == '\t' ? '\t' : ' ', stderr);
  fputs("^\n", stderr);
}

void error_at(Loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report(loc, "error", fmt, ap);
  va_end(ap);
  nerrors++;
}

void warning_at(Loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report(loc, "warning", fmt, ap);
  va_end(ap);
}

void note_at(Loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report(loc, "note", fmt, ap);
  va_end(ap);
}
