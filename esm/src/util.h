/* util.h: source locations, an arena allocator, and a growable text buffer. The compiler
 * allocates everything of one run from one arena and frees it in one go. */
#ifndef ESM_UTIL_H
#define ESM_UTIL_H

#include <stddef.h>
#include <stdarg.h>

typedef struct {
  const char *file;
  int line, col;
} Loc;

void *arena_alloc(size_t size);        /* zeroed; aborts on exhaustion */
char *arena_strndup(const char *s, size_t n);
char *arena_strdup(const char *s);
char *arena_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void arena_free_all(void);

/* A text buffer that output backends write to, then save to a file in one piece. */
typedef struct {
  char *data;
  size_t len, cap;
} Buf;

void buf_puts(Buf *b, const char *s);
void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(Buf *b, const char *fmt, va_list ap);
void buf_free(Buf *b);
int buf_save(const Buf *b, const char *path);   /* 0 on success, -1 with errno */

#endif
