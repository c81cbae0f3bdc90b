/* Bump allocator for AST nodes: blocks chained and freed together. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"

struct arena_block {
  struct arena_block *next;
  size_t used, cap;
  max_align_t data[];
};

void *arena_alloc(struct arena *a, size_t n) {
  n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
  struct arena_block *b = a->head;
  if (b == NULL || b->cap - b->used < n) {
    size_t cap = n > 16384 ? n : 16384;
    b = malloc(sizeof *b + cap);
    if (b == NULL) {
      fputs("pdlc: out of memory\n", stderr);
      exit(2);
    }
    b->next = a->head;
    b->used = 0;
    b->cap = cap;
    a->head = b;
  }
  void *p = (char *)b->data + b->used;
  b->used += n;
  memset(p, 0, n);
  return p;
}

void arena_free(struct arena *a) {
  while (a->head != NULL) {
    struct arena_block *next = a->head->next;
    free(a->head);
    a->head = next;
  }
}
