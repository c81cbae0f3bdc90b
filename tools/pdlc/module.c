/* Byte buffer and module image writer; the layout is FORMAT.md's, little-endian throughout. */
#include "module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void reserve(struct buf *b, size_t n) {
  if (b->cap - b->len >= n) return;
  size_t cap = b->cap ? b->cap * 2 : 256;
  while (cap - b->len < n) cap *= 2;
  uint8_t *p = realloc(b->p, cap);
  if (p == NULL) {
    fputs("pdlc: out of memory\n", stderr);
    exit(2);
  }
  b->p = p;
  b->cap = cap;
}

void buf_put8(struct buf *b, uint8_t v) {
  reserve(b, 1);
  b->p[b->len++] = v;
}

void buf_put16(struct buf *b, uint32_t v) {
  buf_put8(b, (uint8_t)v);
  buf_put8(b, (uint8_t)(v >> 8));
}

void buf_put32(struct buf *b, uint32_t v) {
  buf_put16(b, v & 0xffffu);
  buf_put16(b, v >> 16);
}

void buf_patch32(struct buf *b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; i++) b->p[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}

void buf_free(struct buf *b) {
  free(b->p);
  b->p = NULL;
  b->len = b->cap = 0;
}

void module_write(const struct module *m, struct buf *out) {
  buf_put8(out, VM_MAGIC0);
  buf_put8(out, VM_MAGIC1);
  buf_put8(out, VM_MAGIC2);
  buf_put8(out, VM_MAGIC3);
  buf_put16(out, VM_VERSION);
  buf_put16(out, 0);
  buf_put32(out, (uint32_t)m->code.len);
  buf_put32(out, m->data_words);
  buf_put32(out, m->init_off);
  buf_put16(out, m->ntrig);
  buf_put16(out, m->max_stack);
  for (size_t i = 0; i < VM_NAME_LEN; i++) buf_put8(out, (uint8_t)(i < strlen(m->name) ? m->name[i] : 0));
  for (uint32_t i = 0; i < 2 * m->ntrig; i++) buf_put32(out, m->trig[i]);
  for (size_t i = 0; i < m->code.len; i++) buf_put8(out, m->code.p[i]);
}

void module_free(struct module *m) {
  free(m->trig);
  m->trig = NULL;
  buf_free(&m->code);
}
