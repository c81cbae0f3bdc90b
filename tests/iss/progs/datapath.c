/* datapath.c: the data-path harness (tests/datapath/harness.c) over the generated machines
 * (gen/datapath), as a freestanding program: this file gives the harness the little libc it
 * uses (printf and vsnprintf for %d %u %x %s %c with an optional l, memset, memcpy) and runs a
 * few seeds. Built natively and for LANai, the outputs must be identical (and iss-diff.sh holds
 * them to the hosted harness's own output for the same seeds); exit status 1 if a run fails. */
#include <stdarg.h>
#include <stdbool.h>

#include "io.h"
#ifdef __lanai__
#include "rt.h" /* memset, memcpy */
#else
#include <string.h>
#endif

enum { DP_SEEDS = 12 }; /* about 250M instructions: some 3 s on the sanitized ISS */

/* Where formatted characters go: a bounded buffer (len counts what would have been written). */
typedef struct {
  char *buf;
  size_t size, len;
} Sink;

static void sink_putc(Sink *k, char ch)
{
  if (!k->buf)
    io_putc(ch);
  else if (k->len + 1 < k->size)
    k->buf[k->len] = ch;
  k->len++;
}

static void sink_num(Sink *k, unsigned long v, unsigned base, bool neg)
{
  char digits[24];
  int n = 0;
  do {
    digits[n++] = "0123456789abcdef"[v % base];
    v /= base;
  } while (v);
  if (neg) sink_putc(k, '-');
  while (n) sink_putc(k, digits[--n]);
}

/* One conversion after '%' (and an optional 'l'); returns the character after it. */
static const char *sink_conv(Sink *k, const char *f, va_list *ap)
{
  bool lng = *f == 'l';
  if (lng) f++;
  switch (*f) {
  case 'd': {
    long v = lng ? va_arg(*ap, long) : va_arg(*ap, int);
    sink_num(k, v < 0 ? 0ul - (unsigned long)v : (unsigned long)v, 10, v < 0);
    break;
  }
  case 'u':
  case 'x':
    sink_num(k, lng ? va_arg(*ap, unsigned long) : va_arg(*ap, unsigned), *f == 'u' ? 10 : 16,
             false);
    break;
  case 's':
    for (const char *s = va_arg(*ap, const char *); *s; s++) sink_putc(k, *s);
    break;
  case 'c': sink_putc(k, (char)va_arg(*ap, int)); break;
  case '%': sink_putc(k, '%'); break;
  default: /* not supported: shown, so the outputs differ from the hosted harness */
    sink_putc(k, '%');
    sink_putc(k, '?');
    return *f ? f + 1 : f;
  }
  return f + 1;
}

static void sink_format(Sink *k, const char *f, va_list ap)
{
  va_list aq;
  va_copy(aq, ap);
  while (*f)
    if (*f == '%')
      f = sink_conv(k, f + 1, &aq);
    else
      sink_putc(k, *f++);
  va_end(aq);
}

static int dp_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
  Sink k = {buf, size, 0};
  sink_format(&k, fmt, ap);
  if (size) buf[k.len < size ? k.len : size - 1] = '\0';
  return (int)k.len;
}

static int dp_printf(const char *fmt, ...)
{
  Sink k = {NULL, 0, 0};
  va_list ap;
  va_start(ap, fmt);
  sink_format(&k, fmt, ap);
  va_end(ap);
  return (int)k.len;
}

#define printf dp_printf
#define vsnprintf dp_vsnprintf
#define DATAPATH_HARNESS_FREESTANDING
#include "harness.c"

int main(void)
{
  return run_seeds(DP_SEEDS) ? 1 : 0;
}
