/* sema_int.h: what the parts of semantic analysis share: the symbol tables and the context an
 * expression or action is checked in. Not for use outside sema*.c. */
#ifndef ESM_SEMA_INT_H
#define ESM_SEMA_INT_H

#include "ast.h"

/* Where an expression or action appears; this decides what it may read and write. */
typedef enum {
  CX_CONST,      /* a constant expression: constants only */
  CX_FIRMWARE,   /* a firmware machine's guard or action: becomes C */
  CX_ENV,        /* an environment machine, or a hardware condition's model */
  CX_PROPERTY,   /* a property: reads anything */
} CxKind;

typedef struct {
  CxKind kind;
  Machine *machine;   /* the machine the code belongs to, if any */
  int in_guard;       /* a guard or an if condition: decides control flow */
} Cx;

Sym *lookup_global(const char *name);
Sym *lookup_builtin(const char *name);
Sym *lookup_local(Machine *m, const char *name);
Sym *lookup(Machine *m, const char *name);

/* Resolves and types e; returns its type kind, or -1 after reporting an error. */
int check_expr(System *sys, Expr *e, Cx *cx);
/* Evaluates a resolved constant expression in both worlds; returns 0 on success. */
int eval_const(Expr *e, Val2 *out);
/* Whether e reads a ghost variable. */
int reads_ghost(Expr *e);

void check_actions(System *sys, Action *a, Cx *cx);
void check_flow(System *sys);
/* The processor partition and the variables and queues it shares (sema_cpu.c). */
void check_processors(System *sys);

const char *type_name(int kind);
/* Reports a constant value outside a type's range (in either world); returns 1 if inside. */
int sema_check_range(const Type *t, Val2 v, Loc loc, const char *what);

#endif
