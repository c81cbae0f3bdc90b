/* esm_print.h: ESM source text printed back from the tree, for comments in generated C and
 * PROMELA, labels in diagrams, and counterexamples. */
#ifndef ESM_PRINT_H
#define ESM_PRINT_H

#include "ast.h"

const char *esm_op_text(Op op);                  /* "+", "&&", ... (the same in C and PROMELA) */
void esm_print_expr(Buf *b, Expr *e);
void esm_print_type(Buf *b, Type *t);             /* "bool", "event", "0..N" */
void esm_print_actions(Buf *b, Action *a);        /* "a; b; if (c) { d } else { e }" */
void esm_print_trigger(Buf *b, Transition *t);    /* "ev", "acquire r", "when", "hw(v, w)" */
void esm_print_label(Buf *b, Transition *t);      /* "trigger [guard] / actions" */
/* "State: on ev [guard] / actions -> Target", on one line, cut to max characters. */
char *esm_transition_text(State *s, Transition *t, size_t max);
const char *esm_where(Loc loc);                   /* "file.esm:LINE" (base name) */
const char *esm_source_name(System *sys);         /* base name of the (first) source file */

#endif
