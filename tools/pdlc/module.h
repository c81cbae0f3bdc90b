/* Building PANIC VM modules on the host: a growable byte buffer and the image writer. */
#ifndef PDL_MODULE_H
#define PDL_MODULE_H

#include <stddef.h>
#include <stdint.h>

#include "vm_format.h"

struct buf {
  uint8_t *p;
  size_t len, cap;
};

void buf_put8(struct buf *b, uint8_t v);
void buf_put16(struct buf *b, uint32_t v);
void buf_put32(struct buf *b, uint32_t v);
void buf_patch32(struct buf *b, size_t at, uint32_t v);
void buf_free(struct buf *b);

struct module {
  char name[VM_NAME_LEN + 1];
  uint32_t data_words, init_off, max_stack;
  uint32_t ntrig;
  uint32_t *trig; /* ntrig pairs (message, code offset), written in this order */
  struct buf code;
};

/* Appends the module image (header, trigger table, code) to out. */
void module_write(const struct module *m, struct buf *out);
void module_free(struct module *m);

#endif
