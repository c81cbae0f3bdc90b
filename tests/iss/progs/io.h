/* io.h: output for the differential test programs, identical natively and on the ISS: on
 * LANai through lanai-run's console register, natively through stdout. Each program prints
 * lines of "name hash"; the test compares the two outputs byte for byte. */
#ifndef ISS_PROG_IO_H
#define ISS_PROG_IO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __lanai__
#include "lanai_run_io.h"
static inline void io_putc(char ch) { *(volatile uint32_t *)LRUN_CONSOLE = (uint8_t)ch; }
#else
#include <stdio.h>
static inline void io_putc(char ch) { putchar(ch); }
#endif

static inline void io_puts(const char *s)
{
  while (*s) io_putc(*s++);
}

static inline void io_hex(uint32_t v)
{
  for (int i = 28; i >= 0; i -= 4) io_putc("0123456789abcdef"[v >> i & 15]);
}

static inline void io_line(const char *name, uint32_t v)
{
  io_puts(name);
  io_putc(' ');
  io_hex(v);
  io_putc('\n');
}

/* FNV-1a over 32-bit words. */
static inline uint32_t fnv(uint32_t h, uint32_t v)
{
  for (int i = 0; i < 4; i++) {
    h ^= v >> (8 * i) & 0xff;
    h *= 16777619u;
  }
  return h;
}
#define FNV_INIT 2166136261u

#endif
