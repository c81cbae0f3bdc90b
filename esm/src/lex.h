/* lex.h: the ESM tokenizer. A source text becomes an array of tokens ending in TK_EOF. */
#ifndef ESM_LEX_H
#define ESM_LEX_H

#include "util.h"

typedef enum {
  TK_IDENT, TK_NUM, TK_PUNCT, TK_KEYWORD, TK_EOF,
} TokKind;

typedef struct {
  TokKind kind;
  const char *text;   /* identifier, keyword or punctuator spelling (arena copy) */
  long num;
  Loc loc;
} Token;

/* Tokenizes text; lexical errors are reported and the bad characters skipped. */
Token *lex(const char *file, const char *text, int *ntokens);

#endif
