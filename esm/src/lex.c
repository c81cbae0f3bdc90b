/* lex.c: splits ESM source into tokens: identifiers, keywords, decimal and hex numbers,
 * punctuators; `#` starts a comment that runs to the end of the line. */
#include "lex.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

static const char *keywords[] = {
  "system", "const", "model", "event", "capacity", "resource", "hardware", "action",
  "condition", "queue", "of", "var", "ghost", "bool", "machine", "environment", "state",
  "initial", "yield", "rest", "on", "when", "acquire", "release", "raise", "push", "pop",
  "if", "else", "assert", "choose", "in", "true", "false", "always", "eventually", "leadsto",
  "reachable", "depth", "value", NULL,
};

/* Longest first, so that `..` wins over `.` and `->` over `-`. */
static const char *puncts[] = {
  "..", "->", "~>", "==", "!=", "<=", ">=", "&&", "||", "+=", "-=",
  "{", "}", "(", ")", "[", "]", ";", ":", ",", ".", "=", "<", ">", "+", "-", "*", "/", "%", "!",
  NULL,
};

static int is_keyword(const char *s, size_t n) {
  for (int i = 0; keywords[i]; i++)
    if (strlen(keywords[i]) == n && memcmp(keywords[i], s, n) == 0)
      return 1;
  return 0;
}

typedef struct {
  Token *v;
  int n, cap;
} TokVec;

static Token *push_tok(TokVec *tv) {
  if (tv->n == tv->cap) {
    int cap = tv->cap ? tv->cap * 2 : 256;
    Token *nv = arena_alloc(sizeof(Token) * (size_t)cap);
    if (tv->n)
      memcpy(nv, tv->v, sizeof(Token) * (size_t)tv->n);
    tv->v = nv;
    tv->cap = cap;
  }
  return &tv->v[tv->n++];
}

Token *lex(const char *file, const char *text, int *ntokens) {
  TokVec tv = {0};
  const char *p = text;
  int line = 1;
  const char *line_start = p;

  while (*p) {
    Loc loc = {file, line, (int)(p - line_start) + 1};
    if (*p == '\n') {
      p++;
      line++;
      line_start = p;
      continue;
    }
    if (isspace((unsigned char)*p)) {
      p++;
      continue;
    }
    if (*p == '#') {
      while (*p && *p != '\n')
        p++;
      continue;
    }
    if (isalpha((unsigned char)*p) || *p == '_') {
      const char *s = p;
      while (isalnum((unsigned char)*p) || *p == '_')
        p++;
      Token *t = push_tok(&tv);
      t->kind = is_keyword(s, (size_t)(p - s)) ? TK_KEYWORD : TK_IDENT;
      t->text = arena_strndup(s, (size_t)(p - s));
      t->loc = loc;
      continue;
    }
    if (isdigit((unsigned char)*p)) {
      const char *s = p;
      int base = 10;
      if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2])) {
        base = 16;
        p += 2;
      }
      unsigned long long v = 0;
      int overflow = 0;
      while (base == 16 ? isxdigit((unsigned char)*p) : isdigit((unsigned char)*p)) {
        int d = isdigit((unsigned char)*p) ? *p - '0' : (tolower((unsigned char)*p) - 'a' + 10);
        v = v * (unsigned)base + (unsigned)d;
        if (v > (unsigned long long)INT_MAX)
          overflow = 1;
        p++;
      }
      if (isalpha((unsigned char)*p) || *p == '_') {
        error_at(loc, "invalid number '%.*s'", (int)(p - s) + 1, s);
        while (isalnum((unsigned char)*p) || *p == '_')
          p++;
        continue;
      }
      if (overflow)
        error_at(loc, "number '%.*s' does not fit in 32 bits (largest is %d)", (int)(p - s), s,
                 INT_MAX);
      Token *t = push_tok(&tv);
      t->kind = TK_NUM;
      t->num = overflow ? 0 : (long)v;
      t->text = arena_strndup(s, (size_t)(p - s));
      t->loc = loc;
      continue;
    }
    int matched = 0;
    for (int i = 0; puncts[i]; i++) {
      size_t n = strlen(puncts[i]);
      if (strncmp(p, puncts[i], n) == 0) {
        Token *t = push_tok(&tv);
        t->kind = TK_PUNCT;
        t->text = puncts[i];
        t->loc = loc;
        p += n;
        matched = 1;
        break;
      }
    }
    if (!matched) {
      if (isprint((unsigned char)*p))
        error_at(loc, "unexpected character '%c'", *p);
      else
        error_at(loc, "unexpected byte 0x%02x", (unsigned char)*p);
      p++;
    }
  }
  Token *t = push_tok(&tv);
  t->kind = TK_EOF;
  t->text = "end of file";
  t->loc = (Loc){file, line, (int)(p - line_start) + 1};
  *ntokens = tv.n;
  return tv.v;
}
