/* gen_c.h: internals shared by the C backend (gen_c*.c) and the Graphviz backend (gen_dot.c). */
#ifndef ESM_GEN_C_H
#define ESM_GEN_C_H

#include "ast.h"
#include "esm_print.h"

/* ---- the C generator's context ---- */
typedef struct {
  System *sys;
  const char *p;    /* the system name: the prefix of every identifier */
  Machine *m;       /* the machine whose code is being emitted, NULL at system level */
  int errors;
} CGen;

void cg_error(CGen *g, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Names (gen_c.c). */
const char *c_field(const char *name);            /* an ESM name, safe as a C member name */
const char *c_type(CGen *g, Type *t);             /* smallest stdint type, bool, or SYS_event_t */
const char *c_int(long v);                        /* a literal, INT32_MIN spelled safely */
const char *c_unsigned_type(long max);            /* smallest unsigned type holding 0..max */
const char *c_state(CGen *g, State *s);           /* SYS_M_S_name */
void c_var_ref(CGen *g, Buf *b, Var *v);          /* sys->g.x or sys->m.M.x */
Resource *c_find_resource(System *sys, const char *name);
Queue *c_find_queue(System *sys, const char *name);
HwAction *c_find_hwaction(System *sys, const char *name);
Event *c_find_event(System *sys, const char *name);
int c_firmware_count(System *sys);
Event **c_events_by_priority(System *sys, int *n);
int c_event_handler(Event *e);                    /* firmware machine id, or 0 */
long c_max_capacity(System *sys);
int c_has_env_event(System *sys);                 /* some event has no firmware handler */

/* Expressions and actions (gen_c_expr.c). */
void c_expr(CGen *g, Buf *b, Expr *e);
int c_expr_ghost(Expr *e);                        /* reads a ghost variable */
void c_actions(CGen *g, Buf *b, Action *a, int indent);
Type *c_var_type(Expr *lvalue);                   /* type of an assignable expression */

/* ACSL annotations for Frama-C/WP (gen_c_acsl.c). */
void c_acsl(Buf *b, int ind, ...);                /* clauses (NULL-terminated; "" skipped) as one
                                                     annotation, indented by ind */
const char *c_acsl_inv(CGen *g);                  /* \valid(sys) && SYS_inv(sys) */
const char *c_acsl_INV(CGen *g);                  /* \valid(sys) && SYS_INV(sys), spelled out */
const char *c_acsl_hal(CGen *g);                  /* what a HAL action may write in sys */
const char *c_acsl_fields(CGen *g);               /* everything in sys but user */
const char *c_acsl_bound(CGen *g, const char *ref, Type *t, long len, const char *k);
void c_acsl_init_loop(CGen *g, Buf *b, const char *ref, Type *t, long len);
const char **c_acsl_conjuncts(CGen *g, int *n);  /* the conjuncts of SYS_INV */
void c_acsl_predicates(CGen *g, Buf *b);          /* SYS_M_INV, SYS_INV, SYS_inv */

/* Files (gen_c_system.c, gen_c_dispatch.c, gen_c_machine.c). */
int c_write(CGen *g, const char *outdir, const char *file, Buf *b);
void c_system_header(CGen *g, Buf *b);
void c_hal_header(CGen *g, Buf *b);
void c_system_source(CGen *g, Buf *b);
void c_init_var(CGen *g, Buf *b, Var *v);         /* "  x = INIT;" (a loop for arrays) */
void c_machine_header(CGen *g, Buf *b, Machine *m);
void c_machine_source(CGen *g, Buf *b, Machine *m);

/* Two processors (gen_c_cpu.c): each emits nothing for a system without a partition. */
int c_cpu_count(System *sys);
void c_cpu_consts(CGen *g, Buf *b);               /* SYS_NCPUS */
void c_cpu_struct(CGen *g, Buf *b);               /* the per-processor round-robin field */
void c_cpu_init(CGen *g, Buf *b);
void c_cpu_header(CGen *g, Buf *b);               /* SYS_step_cpu, _p0, _p1, ... */
void c_cpu_source(CGen *g, Buf *b);

#endif
