/* PDL lexer: '#' comments to end of line, decimal and 0x integers, case-folded words. */
#include "lex.h"

#include <ctype.h>
#include <string.h>

static const struct {
  const char *word;
  enum tok kind;
} keywords[] = {
#define PDL_KW_ROW(k, s) {s, K_##k},
    PDL_KEYWORDS(PDL_KW_ROW)
#undef PDL_KW_ROW
};

void lex_init(struct lexer *lx, struct diag *d) {
  lx->d = d;
  lx->src = d->src;
  lx->len = d->len;
  lx->i = 0;
  lx->line = 1;
  lx->col = 1;
}

static int peek(const struct lexer *lx, size_t k) {
  return lx->i + k < lx->len ? (unsigned char)lx->src[lx->i + k] : -1;
}

static void advance(struct lexer *lx) {
  if (lx->src[lx->i] == '\n') {
    lx->line++;
    lx->col = 1;
  } else {
    lx->col++;
  }
  lx->i++;
}

static void skip_space(struct lexer *lx) {
  for (;;) {
    int c = peek(lx, 0);
    if (c == '#') {
      while (peek(lx, 0) != -1 && peek(lx, 0) != '\n') advance(lx);
    } else if (c != -1 && isspace(c)) {
      advance(lx);
    } else {
      return;
    }
  }
}

static void lex_word(struct lexer *lx, struct token *t) {
  size_t n = 0;
  while (peek(lx, 0) != -1 && (isalnum(peek(lx, 0)) || peek(lx, 0) == '_')) {
    if (n < PDL_NAME_MAX) t->text[n] = (char)tolower(peek(lx, 0));
    n++;
    advance(lx);
  }
  if (n > PDL_NAME_MAX) {
    diag_error(lx->d, t->pos, "identifier longer than %d characters", PDL_NAME_MAX);
    n = PDL_NAME_MAX;
  }
  t->text[n] = '\0';
  t->kind = T_IDENT;
  for (size_t k = 0; k < sizeof keywords / sizeof keywords[0]; k++)
    if (strcmp(t->text, keywords[k].word) == 0) t->kind = keywords[k].kind;
}

static int digit_value(int c, int base) {
  int v = isdigit(c) ? c - '0' : isxdigit(c) ? tolower(c) - 'a' + 10 : 99;
  return v < base ? v : -1;
}

static void lex_number(struct lexer *lx, struct token *t) {
  int base = 10;
  uint64_t v = 0;
  int overflow = 0;
  if (peek(lx, 0) == '0' && (peek(lx, 1) == 'x' || peek(lx, 1) == 'X') &&
      peek(lx, 2) != -1 && isxdigit(peek(lx, 2))) {
    base = 16;
    advance(lx);
    advance(lx);
  }
  while (peek(lx, 0) != -1 && digit_value(peek(lx, 0), base) >= 0) {
    v = v * (uint64_t)base + (uint64_t)digit_value(peek(lx, 0), base);
    if (v > UINT32_MAX) overflow = 1, v = UINT32_MAX;
    advance(lx);
  }
  if (peek(lx, 0) != -1 && (isalnum(peek(lx, 0)) || peek(lx, 0) == '_')) {
    diag_error(lx->d, t->pos, "malformed number");
    while (peek(lx, 0) != -1 && (isalnum(peek(lx, 0)) || peek(lx, 0) == '_')) advance(lx);
  } else if (overflow) {
    diag_error(lx->d, t->pos, "integer literal does not fit in 32 bits");
  }
  t->kind = T_NUM;
  t->num = (uint32_t)v;
}

/* One- or two-character punctuation; returns 0 when c starts none. */
static int lex_punct(struct lexer *lx, struct token *t) {
  static const struct {
    const char *s;
    enum tok k;
  } ops[] = {{"<=", P_LE}, {">=", P_GE}, {"<>", P_NE}, {"!=", P_NE}, {"==", P_EQ},
             {":", P_COLON}, {";", P_SEMI}, {",", P_COMMA}, {"[", P_LBRACK}, {"]", P_RBRACK},
             {"(", P_LPAREN}, {")", P_RPAREN}, {"=", P_ASSIGN}, {"<", P_LT}, {">", P_GT},
             {"+", P_PLUS}, {"-", P_MINUS}, {"*", P_STAR}, {"/", P_SLASH}, {"%", P_PERCENT}};
  for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
    size_t n = strlen(ops[k].s);
    if (peek(lx, 0) == ops[k].s[0] && (n == 1 || peek(lx, 1) == ops[k].s[1])) {
      while (n--) advance(lx);
      t->kind = ops[k].k;
      strcpy(t->text, ops[k].s);
      return 1;
    }
  }
  return 0;
}

void lex_next(struct lexer *lx, struct token *t) {
  for (;;) {
    skip_space(lx);
    t->pos = (struct pos){lx->line, lx->col, lx->i};
    t->num = 0;
    t->text[0] = '\0';
    int c = peek(lx, 0);
    if (c == -1) {
      t->kind = T_EOF;
      return;
    }
    if (isalpha(c) || c == '_') return lex_word(lx, t);
    if (isdigit(c)) return lex_number(lx, t);
    if (lex_punct(lx, t)) return;
    if (isprint(c)) diag_error(lx->d, t->pos, "unexpected character '%c'", c);
    else diag_error(lx->d, t->pos, "unexpected byte 0x%02x", (unsigned)c);
    advance(lx);
  }
}

const char *tok_name(enum tok k) {
  switch (k) {
  case T_EOF: return "end of file";
  case T_IDENT: return "identifier";
  case T_NUM: return "number";
#define PDL_KW_NAME(kw, s) case K_##kw: return "'" #kw "'";
    PDL_KEYWORDS(PDL_KW_NAME)
#undef PDL_KW_NAME
  case P_COLON: return "':'";
  case P_SEMI: return "';'";
  case P_COMMA: return "','";
  case P_LBRACK: return "'['";
  case P_RBRACK: return "']'";
  case P_LPAREN: return "'('";
  case P_RPAREN: return "')'";
  case P_ASSIGN: return "'='";
  case P_EQ: return "'=='";
  case P_NE: return "'<>'";
  case P_LT: return "'<'";
  case P_LE: return "'<='";
  case P_GT: return "'>'";
  case P_GE: return "'>='";
  case P_PLUS: return "'+'";
  case P_MINUS: return "'-'";
  case P_STAR: return "'*'";
  case P_SLASH: return "'/'";
  case P_PERCENT: return "'%'";
  }
  return "token";
}
