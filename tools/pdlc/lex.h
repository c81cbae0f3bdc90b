/* PDL tokens. Keywords and identifiers are case-insensitive: the lexer lowercases them. */
#ifndef PDL_LEX_H
#define PDL_LEX_H

#include <stdint.h>

#include "diag.h"

#define PDL_KEYWORDS(X)                                                                        \
  X(PROGRAM, "program") X(VAR, "var") X(TRIGGERS, "triggers") X(BEGIN, "begin")                \
  X(END, "end") X(MESSAGE, "message") X(IF, "if") X(THEN, "then") X(ELSE, "else")              \
  X(WHILE, "while") X(DO, "do") X(SEND, "send") X(LEN, "len") X(AS, "as") X(TO, "to")          \
  X(AT, "at") X(AWAIT, "await") X(DELIVER, "deliver") X(OFFSET, "offset") X(INTO, "into")      \
  X(GET, "get") X(FROM, "from") X(CLOCK, "clock") X(DISPLAY, "display") X(STOP, "stop")        \
  X(RECEIVE, "receive") X(MSGLEN, "msglen") X(AND, "and") X(OR, "or") X(NOT, "not")            \
  X(MOD, "mod")

enum tok {
  T_EOF,
  T_IDENT,
  T_NUM,
#define PDL_KW_ENUM(k, s) K_##k,
  PDL_KEYWORDS(PDL_KW_ENUM)
#undef PDL_KW_ENUM
  P_COLON, P_SEMI, P_COMMA, P_LBRACK, P_RBRACK, P_LPAREN, P_RPAREN, P_ASSIGN, P_EQ, P_NE,
  P_LT, P_LE, P_GT, P_GE, P_PLUS, P_MINUS, P_STAR, P_SLASH, P_PERCENT
};

#define PDL_NAME_MAX 63

struct token {
  enum tok kind;
  struct pos pos;
  uint32_t num;
  char text[PDL_NAME_MAX + 1];
};

struct lexer {
  struct diag *d;
  const char *src;
  size_t len, i;
  int line, col;
};

void lex_init(struct lexer *lx, struct diag *d);
void lex_next(struct lexer *lx, struct token *t);
const char *tok_name(enum tok k);

#endif
