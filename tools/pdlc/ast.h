/* PDL abstract syntax tree. Nodes live in an arena freed in one go. */
#ifndef PDL_AST_H
#define PDL_AST_H

#include <stddef.h>
#include <stdint.h>

#include "lex.h"

struct arena {
  struct arena_block *head;
};
void *arena_alloc(struct arena *a, size_t n); /* zeroed; aborts on out-of-memory */
void arena_free(struct arena *a);

struct var {
  char name[PDL_NAME_MAX + 1];
  struct pos pos;
  uint32_t size; /* array length; 0 for a scalar */
  uint32_t base; /* first data word, set by sema */
};

/* A variable use: name, optional index, resolved by sema. */
struct ref {
  char name[PDL_NAME_MAX + 1];
  struct pos pos;
  struct expr *index;
  const struct var *var;
};

enum expr_kind { E_NUM, E_REF, E_CLOCK, E_MSGLEN, E_UNARY, E_BINARY };

struct expr {
  enum expr_kind kind;
  struct pos pos;
  enum tok op; /* E_UNARY: P_MINUS or K_NOT; E_BINARY: the operator token */
  uint32_t num;
  struct ref ref;
  struct expr *a, *b;
};

enum stmt_kind {
  S_ASSIGN, S_IF, S_WHILE, S_BLOCK, S_SEND, S_AWAIT, S_DELIVER, S_GET, S_RECEIVE, S_DISPLAY,
  S_STOP
};

/* Operand slots in stmt.e[] for the transfer statements. */
enum { X_LEN, X_TRIG, X_PROG, X_OFF = 1, X_SEG = 2, X_NSLOTS = 3 };

struct stmt {
  enum stmt_kind kind;
  struct pos pos;
  struct ref ref;             /* assignment target or transferred variable */
  struct expr *value;         /* assignment value, condition, DISPLAY operand */
  struct expr *e[X_NSLOTS];   /* SEND: len, trigger, program; DELIVER/GET/RECEIVE: len, off, seg */
  uint64_t addr;              /* SEND ... AT a:b:c */
  struct stmt *body, *els;    /* IF/WHILE bodies, BEGIN..END contents */
  struct stmt *next;
};

struct trigger_decl {
  uint32_t num;
  struct pos pos;
  struct trigger_decl *next;
};

struct message {
  uint32_t num;
  struct pos pos;
  struct stmt *body;
  struct message *next;
};

struct var_list {
  struct var v;
  struct var_list *next;
};

struct program {
  char name[PDL_NAME_MAX + 1];
  struct pos pos;
  struct var_list *vars;
  struct trigger_decl *triggers;
  struct stmt *init;
  struct pos init_pos;
  struct message *messages;
  uint32_t data_words; /* set by sema */
};

#endif
