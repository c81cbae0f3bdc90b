/* util.c: arena allocation and text buffers for the ESM compiler. */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Block {
  struct Block *next;
  size_t used, cap;
  _Alignas(16) unsigned char data[];
} Block;

static Block *blocks;

void *arena_alloc(size_t size) {
  size = (size + 15) & ~(size_t)15;
  if (!blocks || blocks->cap - blocks->used < size) {
    size_t cap = size > 65536 ? size : 65536;
    Block *b = malloc(sizeof(Block) + cap);
    if (!b) {
      fputs("esmc: out of memory\n", stderr);
      exit(2);
    }
    b->next = blocks;
    b->used = 0;
    b->cap = cap;
    blocks = b;
  }
  void *p = blocks->data + blocks->used;
  blocks->used += size;
  memset(p, 0, size);
  return p;
}

char *arena_strndup(const char *s, size_t n) {
  char *p = arena_alloc(n + 1);
  memcpy(p, s, n);
  return p;
}

char *arena_strdup(const char *s) { return arena_strndup(s, strlen(s)); }

char *arena_printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *p = arena_alloc((size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return p;
}

void arena_free_all(void) {
  while (blocks) {
    Block *next = blocks->next;
    free(blocks);
    blocks = next;
  }
}

static void buf_reserve(Buf *b, size_t extra) {
  if (b->len + extra + 1 <= b->cap)
    return;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap < b->len + extra + 1)
    cap *= 2;
  char *p = realloc(b->data, cap);
  if (!p) {
    fputs("esmc: out of memory\n", stderr);
    exit(2);
  }
  b->data = p;
  b->cap = cap;
}

void buf_vprintf(Buf *b, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  buf_reserve(b, (size_t)n);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  b->len += (size_t)n;
}

void buf_printf(Buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  buf_vprintf(b, fmt, ap);
  va_end(ap);
}

void buf_puts(Buf *b, const char *s) {
  size_t n = strlen(s);
  buf_reserve(b, n);
  memcpy(b->data + b->len, s, n + 1);
  b->len += n;
}

void buf_free(Buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

int buf_save(const Buf *b, const char *path) {
  FILE *f = fopen(path, "wb");
  if (!f)
    return -1;
  size_t n = b->len ? fwrite(b->data, 1, b->len, f) : 0;
  int err = ferror(f) || n != b->len;
  if (fclose(f) != 0 || err)
    return -1;
  return 0;
}
