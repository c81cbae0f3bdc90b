/* gen_pml.c: the PROMELA backend. Writes OUTDIR/SYS.pml, a model of every machine (firmware
 * and environment) that Spin checks for run-time errors, deadlock and the system's properties.
 *
 * Encoding (models/verify.sh and `esmc --trail` rely on the tagged comments):
 * - machine M: proctype M, state in global `M_st`, states `#define M_S n`, variables `M_x`
 *   (system-level ones `g_x`), so properties and environment machines can read everything;
 * - events: `pend[E_ev]` counts pending ones; raising past `CAP_ev` is an assertion failure;
 * - resources: `own_R` (0 free, else the holder's machine id) and `last_R` (the last grantee)
 *   for round-robin arbitration;
 * - run-to-completion: the firmware shares one `cpu` token (0 free, else the holder's id);
 * - hardware actions: a channel `hw_A` of requests; queues: `q_Q[]` (head at 0) and `qlen_Q`;
 * - each transition is one atomic step whose first line carries its guard and a comment
 *   `@esm FILE:LINE M: S --trigger [guard]--> T`; every model check carries `@check WHAT`.
 */
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "esm_print.h"
#include "sema.h"

typedef struct {
  System *sys;
  Buf out;
  int ind;          /* indentation of statements, in spaces */
  Machine *cur;     /* the machine whose transition is being written */
} Gen;

/* ---- names ---- */

/* Promela keywords and the model's own names: an ESM name equal to one gets a prefix. */
static const char *reserved[] = {
  "active", "assert", "atomic", "bit", "bool", "break", "byte", "chan", "d_step", "D_proctype",
  "do", "else", "empty", "enabled", "eval", "false", "fi", "full", "goto", "hidden", "if",
  "init", "int", "len", "mtype", "nempty", "never", "nfull", "od", "of", "pc_value", "printf",
  "printm", "priority", "proctype", "provided", "run", "short", "skip", "timeout", "true",
  "typedef", "unless", "unsigned", "xr", "xs", "c_code", "c_expr", "c_decl", "c_state",
  "c_track", "local", "show", "trace", "notrace", "select", "for", "in", "ltl", "np_", "_",
  "_pid", "_nr_pr", "_last", "_priority", "cpu", "pend", "deadlock", "always", "eventually",
  "stronguntil", "weakuntil", "until", "release", "implies", "equivalent", "set_priority",
  "get_priority", "inline", "return", "else", "cpu0", "cpu1",
};

static const char *safe(const char *name) {
  for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
    if (!strcmp(name, reserved[i]))
      return arena_printf("x_%s", name);
  return name;
}

static const char *var_name(Var *v) {
  if (v->owner)
    return arena_printf("%s_%s", v->owner->name, v->name);
  return arena_printf("g_%s", v->name);
}

/* The run-to-completion token of m's processor: `cpu`, or `cpu0`/`cpu1` with two. */
static const char *cpu_tok(System *sys, Machine *m) {
  return sys->ncpus > 1 ? arena_printf("cpu%d", m->cpu) : "cpu";
}

/* A variable written from both processors: its updates are a load and a store (gen_pml
 * "Two processors"). */
static int split_var(System *sys, Var *v) {
  return sys->ncpus > 1 && v && v->writers == 3 && !v->ghost;
}

static const char *state_name(State *s) {
  return arena_printf("%s_%s", s->machine->name, s->name);
}

/* ---- ranges and types ---- */

typedef struct {
  long lo, hi;
} Range;

static Range type_range(System *sys, const Type *t) {
  if (t->kind == TY_BOOL)
    return (Range){0, 1};
  if (t->kind == TY_EVENT)
    return (Range){0, sys->nevents > 0 ? sys->nevents - 1 : 0};
  return (Range){t->lo_v.m, t->hi_v.m};
}

static const char *ptype_of_range(Range r) {
  if (r.lo >= 0 && r.hi <= 1)
    return "bit";
  if (r.lo >= 0 && r.hi <= 255)
    return "byte";
  if (r.lo >= -32768 && r.hi <= 32767)
    return "short";
  return "int";
}

static const char *ptype(System *sys, const Type *t) {
  if (t->kind == TY_BOOL)
    return "bool";
  return ptype_of_range(type_range(sys, t));
}

static Var *expr_var(Expr *e) {
  if ((e->kind == EX_NAME || e->kind == EX_FIELD) && e->sym && e->sym->kind == SYM_VAR)
    return e->sym->u.var;
  return NULL;
}

static Queue *arg_queue(Expr *call) {
  Expr *a = call->args;
  return a && a->sym && a->sym->kind == SYM_QUEUE ? a->sym->u.queue : NULL;
}

static Event *arg_event(Expr *call) {
  Expr *a = call->args;
  return a && a->sym && a->sym->kind == SYM_EVENT ? a->sym->u.event : NULL;
}

/* The values e can take, as far as a simple interval analysis sees; 0 if unknown. */
static int range_of(System *sys, Expr *e, Range *r) {
  Range a, b;
  switch (e->kind) {
  case EX_NUM:
  case EX_BOOL:
    *r = (Range){e->num, e->num};
    return 1;
  case EX_NAME:
  case EX_FIELD:
  case EX_INDEX: {
    Expr *base = e->kind == EX_INDEX ? e->lhs : e;
    if (base->sym && base->sym->kind == SYM_CONST) {
      *r = (Range){base->sym->u.cnst->v.m, base->sym->u.cnst->v.m};
      return 1;
    }
    Var *v = expr_var(base);
    if (v) {
      *r = type_range(sys, &v->type);
      return 1;
    }
    if (base->sym && base->sym->kind == SYM_HWCOND) {
      *r = type_range(sys, &base->sym->u.hwc->type);
      return 1;
    }
    if (base->sym && base->sym->kind == SYM_EVENT) {
      *r = (Range){base->sym->u.event->index, base->sym->u.event->index};
      return 1;
    }
    return 0;
  }
  case EX_UNARY:
    if (e->op == OP_NOT) {
      *r = (Range){0, 1};
      return 1;
    }
    if (!range_of(sys, e->lhs, &a))
      return 0;
    *r = (Range){-a.hi, -a.lo};
    return 1;
  case EX_BINARY:
    if (e->op >= OP_EQ) {
      *r = (Range){0, 1};
      return 1;
    }
    if (!range_of(sys, e->lhs, &a) || !range_of(sys, e->rhs, &b))
      return 0;
    switch (e->op) {
    case OP_ADD: *r = (Range){a.lo + b.lo, a.hi + b.hi}; return 1;
    case OP_SUB: *r = (Range){a.lo - b.hi, a.hi - b.lo}; return 1;
    case OP_MUL: {
      long p[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
      *r = (Range){p[0], p[0]};
      for (int i = 1; i < 4; i++) {
        r->lo = p[i] < r->lo ? p[i] : r->lo;
        r->hi = p[i] > r->hi ? p[i] : r->hi;
      }
      return 1;
    }
    case OP_MOD:
      if (a.lo >= 0 && b.lo > 0) {
        *r = (Range){0, b.hi - 1 < a.hi ? b.hi - 1 : a.hi};
        return 1;
      }
      return 0;
    case OP_DIV:
      if (a.lo >= 0 && b.lo > 0) {
        *r = (Range){a.lo / b.hi, a.hi / b.lo};
        return 1;
      }
      return 0;
    default: return 0;
    }
  case EX_IN:
    *r = (Range){0, 1};
    return 1;
  case EX_CALL:
    if (e->sym && e->sym->kind == SYM_BUILTIN) {
      Queue *q = arg_queue(e);
      Event *ev = arg_event(e);
      if (!strcmp(e->name, "pending") && ev)
        *r = (Range){0, ev->cap_v.m};
      else if (!strcmp(e->name, "len") && q)
        *r = (Range){0, q->depth_v.m};
      else if (!strcmp(e->name, "head") && q)
        *r = type_range(sys, &q->type);
      else
        *r = (Range){0, 1};
      return 1;
    }
    if (e->sym && e->sym->kind == SYM_HWCOND) {
      *r = type_range(sys, &e->sym->u.hwc->type);
      return 1;
    }
    return 0;
  }
  return 0;
}

/* ---- ESM text for comments ---- */

/* ESM text of an expression, in the arena. */
static const char *esm_text(Expr *e) {
  Buf b = {0};
  esm_print_expr(&b, e);
  char *s = arena_strdup(b.data ? b.data : "");
  buf_free(&b);
  return s;
}

static const char *loc_text(Loc l) {
  return arena_printf("%s:%d", l.file ? l.file : "?", l.line);
}

/* ---- expressions ---- */

static int is_free_cond(Expr *e) {
  return (e->kind == EX_NAME || e->kind == EX_CALL) && e->sym && e->sym->kind == SYM_HWCOND &&
         !e->sym->u.hwc->model;
}

static int count_free(Expr *e) {
  if (!e)
    return 0;
  if (is_free_cond(e))
    return 1;
  int n = count_free(e->lhs) + count_free(e->rhs);
  if (e->kind == EX_CALL)
    for (Expr *a = e->args; a; a = a->next)
      n += count_free(a);
  return n;
}

static void ex(Gen *g, Buf *b, Expr *e, int pol);

static void ex_call(Buf *b, Expr *e) {
  const char *f = e->name;
  if (e->sym && e->sym->kind == SYM_HWCOND) {
    buf_printf(b, "HW_%s", e->sym->u.hwc->name);
    return;
  }
  Queue *q = arg_queue(e);
  if (!strcmp(f, "pending") && arg_event(e)) {
    buf_printf(b, "pend[E_%s]", arg_event(e)->name);
  } else if (!strcmp(f, "free") && e->args) {
    buf_printf(b, "(own_%s == 0)", e->args->name);
  } else if (!strcmp(f, "holds") && e->args && e->args->next) {
    buf_printf(b, "(own_%s == ID_%s)", e->args->next->name, e->args->name);
  } else if (q && !strcmp(f, "len")) {
    buf_printf(b, "qlen_%s", q->name);
  } else if (q && !strcmp(f, "empty")) {
    buf_printf(b, "(qlen_%s == 0)", q->name);
  } else if (q && !strcmp(f, "full")) {
    buf_printf(b, "(qlen_%s == QD_%s)", q->name, q->name);
  } else if (q && !strcmp(f, "head")) {
    buf_printf(b, "q_%s[0]", q->name);
  } else {
    buf_puts(b, "0 /* unresolved call */");
  }
}

static void ex_name(Gen *g, Buf *b, Expr *e) {
  (void)g;
  Sym *s = e->sym;
  if (!s) {
    buf_puts(b, safe(e->name));
    return;
  }
  switch (s->kind) {
  case SYM_CONST: buf_puts(b, safe(s->u.cnst->name)); break;
  case SYM_VAR: buf_puts(b, var_name(s->u.var)); break;
  case SYM_EVENT: buf_printf(b, "E_%s", s->u.event->name); break;
  case SYM_HWCOND: buf_printf(b, "HW_%s", s->u.hwc->name); break;
  default: buf_puts(b, safe(e->name)); break;
  }
}

/* Emits e as a Promela expression. pol is the polarity of the position in a condition: +1 read
 * as is, -1 under a negation. A free hardware condition (sema allows one only as an operand
 * of && || ! in a guard or an if) may answer either way, so it becomes the answer that lets
 * the whole condition hold (+1) or fail (-1) whenever some answer would. */
static void ex(Gen *g, Buf *b, Expr *e, int pol) {
  if (is_free_cond(e)) {
    buf_puts(b, pol < 0 ? "false" : "true");
    return;
  }
  int logic = (e->kind == EX_UNARY && e->op == OP_NOT) ||
              (e->kind == EX_BINARY && (e->op == OP_AND || e->op == OP_OR));
  switch (e->kind) {
  case EX_NUM: buf_printf(b, "%ld", e->num); break;
  case EX_BOOL: buf_puts(b, e->num ? "true" : "false"); break;
  case EX_NAME: ex_name(g, b, e); break;
  case EX_FIELD:
    if (e->sym && e->sym->kind == SYM_VAR)
      buf_puts(b, var_name(e->sym->u.var));
    else
      buf_printf(b, "%s_%s", e->lhs->name, e->name);
    break;
  case EX_INDEX:
    ex(g, b, e->lhs, 0);
    buf_puts(b, "[");
    ex(g, b, e->rhs, 0);
    buf_puts(b, "]");
    break;
  case EX_UNARY:
    buf_puts(b, e->op == OP_NOT ? "!" : "-");
    buf_puts(b, "(");
    ex(g, b, e->lhs, e->op == OP_NOT ? -pol : 0);
    buf_puts(b, ")");
    break;
  case EX_BINARY:
    buf_puts(b, "(");
    ex(g, b, e->lhs, logic ? pol : 0);
    buf_printf(b, " %s ", esm_op_text(e->op));
    ex(g, b, e->rhs, logic ? pol : 0);
    buf_puts(b, ")");
    break;
  case EX_IN: {
    Machine *m = e->sym && e->sym->kind == SYM_MACHINE ? e->sym->u.machine : NULL;
    const char *mname = m ? m->name : e->name;
    int n = 0;
    for (NameList *s = e->states; s; s = s->next)
      n++;
    if (n > 1)
      buf_puts(b, "(");
    for (NameList *s = e->states; s; s = s->next)
      buf_printf(b, "%s%s_st == %s_%s", s == e->states ? "" : " || ", mname, mname, s->name);
    if (n > 1)
      buf_puts(b, ")");
    if (n == 0)
      buf_puts(b, "false");
    break;
  }
  case EX_CALL: ex_call(b, e); break;
  }
}

/* e as a string, in the arena. */
static const char *ex_str(Gen *g, Expr *e, int pol) {
  Buf b = {0};
  ex(g, &b, e, pol);
  char *s = arena_strdup(b.data ? b.data : "");
  buf_free(&b);
  return s;
}

/* ---- output helpers ---- */

static void line(Gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(Gen *g, const char *fmt, ...) {
  buf_printf(&g->out, "%*s", g->ind, "");
  va_list ap;
  va_start(ap, fmt);
  buf_vprintf(&g->out, fmt, ap);
  va_end(ap);
  buf_puts(&g->out, "\n");
}

/* A range check of `value` (a Promela expression) against r, unless vr proves it. */
static void range_check(Gen *g, const char *value, int known, Range vr, Range r,
                        const char *what, Loc loc) {
  if (known && vr.lo >= r.lo && vr.hi <= r.hi)
    return;
  line(g, "assert(%ld <= %s && %s <= %ld); /* @check %s: %s out of range %ld..%ld */", r.lo, value,
       value, r.hi, loc_text(loc), what, r.lo, r.hi);
}

/* ---- actions ---- */

static void actions(Gen *g, Machine *m, Action *a);

static Range lvalue_range(Gen *g, Expr *lhs) {
  Expr *base = lhs->kind == EX_INDEX ? lhs->lhs : lhs;
  Var *v = expr_var(base);
  return v ? type_range(g->sys, &v->type) : (Range){0, 0};
}

static const char *lvalue_what(Expr *lhs) {
  Expr *base = lhs->kind == EX_INDEX ? lhs->lhs : lhs;
  Var *v = expr_var(base);
  if (v && v->owner)
    return arena_printf("%s.%s", v->owner->name, esm_text(lhs));
  return esm_text(lhs);
}

/* Stores value (with value range vr, if known) into lhs, checking the range and the index. */
static void store(Gen *g, Expr *lhs, const char *value, int known, Range vr, Loc loc) {
  if (lhs->kind == EX_INDEX) {
    Var *v = expr_var(lhs->lhs);
    Range ir;
    int iknown = range_of(g->sys, lhs->rhs, &ir);
    if (v)
      range_check(g, ex_str(g, lhs->rhs, 0), iknown, ir, (Range){0, v->size_v.m - 1},
                  arena_printf("index of %s", v->name), loc);
  }
  Var *v = expr_var(lhs->kind == EX_INDEX ? lhs->lhs : lhs);
  if (v && v->lock && g->cur && !g->cur->env)
    line(g, "assert(own_%s == ID_%s); /* @check %s: %s writes %s without holding its lock %s */",
         v->lock->name, g->cur->name, loc_text(loc), g->cur->name, v->name, v->lock->name);
  if (v && v->type.kind == TY_INT)
    range_check(g, value, known, vr, lvalue_range(g, lhs), lvalue_what(lhs), loc);
  line(g, "%s = %s;", ex_str(g, lhs, 0), value);
}

/* A read-modify-write of a variable both processors write: the load ends one atomic step and
 * the store begins the next, so the other processor can run between them, as on the real
 * machine. The ghost sv_x applies the same updates one at a time; when no update is in flight
 * the variable must equal it, or an update was lost. The processor is kept across the gap. */
static void act_split(Gen *g, Action *a, Var *v) {
  const char *x = var_name(v), *op = a->op == OP_ADD ? "+" : "-";
  const char *rhs = ex_str(g, a->rhs, 0);
  line(g, "ld_%s = %s; inflight_%s++; %s = ID_%s /* @share %s loads %s (%s); the other "
       "processor may run before it stores */", x, x, x, cpu_tok(g->sys, g->cur), g->cur->name,
       g->cur->name, v->name, loc_text(a->loc));
  g->ind -= 5;
  line(g, "};");
  line(g, "atomic {");
  g->ind += 5;
  Range rr, cur = lvalue_range(g, a->lhs);
  int known = range_of(g->sys, a->rhs, &rr);
  Range vr = a->op == OP_ADD ? (Range){cur.lo + rr.lo, cur.hi + rr.hi}
                             : (Range){cur.lo - rr.hi, cur.hi - rr.lo};
  store(g, a->lhs, arena_printf("(ld_%s %s %s)", x, op, rhs), known, vr, a->loc);
  line(g, "sv_%s = sv_%s %s %s; inflight_%s--; /* @share %s stores %s */", x, x, op, rhs, x,
       g->cur->name, v->name);
  line(g, "assert(inflight_%s > 0 || %s == sv_%s); /* @check %s: lost update of %s (written "
       "from both processors) */", x, x, x, loc_text(a->loc), v->name);
}

static void act_assign(Gen *g, Action *a) {
  Var *sv = expr_var(a->lhs);
  if (a->op != OP_NONE && split_var(g->sys, sv) && g->cur && !g->cur->env) {
    act_split(g, a, sv);
    return;
  }
  Range vr, rr, cur = lvalue_range(g, a->lhs);
  int known = range_of(g->sys, a->rhs, &rr);
  const char *rhs = ex_str(g, a->rhs, 0);
  const char *value = rhs;
  vr = rr;
  if (a->op != OP_NONE) {
    const char *lv = ex_str(g, a->lhs, 0);
    value = arena_printf("(%s %s %s)", lv, a->op == OP_ADD ? "+" : "-", rhs);
    vr = a->op == OP_ADD ? (Range){cur.lo + rr.lo, cur.hi + rr.hi}
                         : (Range){cur.lo - rr.hi, cur.hi - rr.lo};
  }
  store(g, a->lhs, value, known, vr, a->loc);
  if (split_var(g->sys, sv))
    line(g, "sv_%s = %s;", var_name(sv), var_name(sv));
}

static void act_raise(Gen *g, Action *a) {
  Expr *e = a->rhs;
  if (e->sym && e->sym->kind == SYM_EVENT) {
    const char *n = e->sym->u.event->name;
    line(g, "assert(pend[E_%s] < CAP_%s); /* @check %s: event %s raised past its capacity */",
         n, n, loc_text(a->loc), n);
    line(g, "pend[E_%s]++;", n);
  } else {
    const char *v = ex_str(g, e, 0);
    line(g, "assert(pend[%s] < CAP(%s)); /* @check %s: event %s (%s) raised past its "
         "capacity */", v, v, loc_text(a->loc), esm_text(e), v);
    line(g, "pend[%s]++;", v);
  }
}

static void act_release(Gen *g, Machine *m, Action *a) {
  line(g, "assert(own_%s == ID_%s); /* @check %s: %s releases %s without holding it */",
       a->name, m->name, loc_text(a->loc), m->name, a->name);
  line(g, "own_%s = 0;", a->name);
}

static void act_hwcall(Gen *g, Action *a) {
  HwAction *h = a->sym && a->sym->kind == SYM_HWACTION ? a->sym->u.hwa : NULL;
  if (!h) {
    for (h = g->sys->hwactions; h && strcmp(h->name, a->name); h = h->next)
      ;
    if (!h)
      return;
  }
  line(g, "assert(len(hw_%s) < HD_%s); /* @check %s: %s issued while its request queue is "
       "full */", h->name, h->name, loc_text(a->loc), h->name);
  Buf args = {0};
  Param *p = h->params;
  for (Expr *e = a->args; e; e = e->next, p = p ? p->next : NULL) {
    const char *v = ex_str(g, e, 0);
    if (p && p->type.kind == TY_INT) {
      Range vr;
      int known = range_of(g->sys, e, &vr);
      range_check(g, v, known, vr, type_range(g->sys, &p->type),
                  arena_printf("argument %s of %s", p->name, h->name), a->loc);
    }
    buf_printf(&args, "%s%s", e == a->args ? "" : ", ", v);
  }
  line(g, "hw_%s!%s;", h->name, args.data ? args.data : "0");
  buf_free(&args);
}

static void act_push(Gen *g, Action *a) {
  Queue *q = a->sym && a->sym->kind == SYM_QUEUE ? a->sym->u.queue : NULL;
  if (!q)
    return;
  line(g, "assert(qlen_%s < QD_%s); /* @check %s: push onto full queue %s */", q->name, q->name,
       loc_text(a->loc), q->name);
  const char *v = ex_str(g, a->rhs, 0);
  if (q->type.kind == TY_INT) {
    Range vr;
    int known = range_of(g->sys, a->rhs, &vr);
    range_check(g, v, known, vr, type_range(g->sys, &q->type),
                arena_printf("element of queue %s", q->name), a->loc);
  }
  line(g, "q_%s[qlen_%s] = %s;", q->name, q->name, v);
  line(g, "qlen_%s++;", q->name);
}

/* Pops into lhs; the buffer shifts down so the head is always at 0 and a queue's contents have
 * one representation (fewer states than a ring with a moving head). */
static void act_pop(Gen *g, Action *a) {
  Queue *q = a->sym && a->sym->kind == SYM_QUEUE ? a->sym->u.queue : NULL;
  if (!q)
    return;
  line(g, "assert(qlen_%s > 0); /* @check %s: pop from empty queue %s */", q->name,
       loc_text(a->loc), q->name);
  store(g, a->lhs, arena_printf("q_%s[0]", q->name), 1, type_range(g->sys, &q->type), a->loc);
  for (long i = 0; i + 1 < q->depth_v.m; i++)
    line(g, "q_%s[%ld] = q_%s[%ld];", q->name, i, q->name, i + 1);
  line(g, "q_%s[%ld] = 0;", q->name, q->depth_v.m - 1);
  line(g, "qlen_%s--;", q->name);
}

static void act_choose(Gen *g, Action *a) {
  Range lo, hi;
  int static_bounds = range_of(g->sys, a->lo, &lo) && lo.lo == lo.hi &&
                      range_of(g->sys, a->hi, &hi) && hi.lo == hi.hi;
  if (static_bounds && hi.lo - lo.lo <= 32) {
    if (hi.lo < lo.lo) {
      line(g, "assert(false); /* @check %s: choose from an empty range */", loc_text(a->loc));
      return;
    }
    line(g, "if");
    for (long v = lo.lo; v <= hi.lo; v++) {
      line(g, ":: true ->");
      g->ind += 3;
      store(g, a->lhs, arena_printf("%ld", v), 1, (Range){v, v}, a->loc);
      g->ind -= 3;
    }
    line(g, "fi;");
    return;
  }
  const char *lv = ex_str(g, a->lhs, 0);
  Range lr = {0, 0}, hr = {0, 0};
  int known = range_of(g->sys, a->lo, &lr) && range_of(g->sys, a->hi, &hr);
  if (a->lhs && expr_var(a->lhs->kind == EX_INDEX ? a->lhs->lhs : a->lhs))
    range_check(g, ex_str(g, a->hi, 0), known, hr, lvalue_range(g, a->lhs),
                arena_printf("upper bound of choose for %s", lvalue_what(a->lhs)), a->loc);
  store(g, a->lhs, ex_str(g, a->lo, 0), known, (Range){lr.lo, hr.hi}, a->loc);
  line(g, "do");
  line(g, ":: %s < %s -> %s++", lv, ex_str(g, a->hi, 0), lv);
  line(g, ":: break");
  line(g, "od;");
}

static void act_if(Gen *g, Machine *m, Action *a) {
  line(g, "if");
  line(g, ":: %s ->", ex_str(g, a->cond, 1));
  g->ind += 3;
  if (a->then)
    actions(g, m, a->then);
  else
    line(g, "skip;");
  g->ind -= 3;
  if (count_free(a->cond))
    line(g, ":: !%s ->", ex_str(g, a->cond, -1));
  else
    line(g, ":: else ->");
  g->ind += 3;
  if (a->els)
    actions(g, m, a->els);
  else
    line(g, "skip;");
  g->ind -= 3;
  line(g, "fi;");
}

static void action(Gen *g, Machine *m, Action *a) {
  switch (a->kind) {
  case AC_ASSIGN: act_assign(g, a); break;
  case AC_RAISE: act_raise(g, a); break;
  case AC_RELEASE: act_release(g, m, a); break;
  case AC_HWCALL: act_hwcall(g, a); break;
  case AC_PUSH: act_push(g, a); break;
  case AC_POP: act_pop(g, a); break;
  case AC_IF: act_if(g, m, a); break;
  case AC_ASSERT:
    line(g, "assert(%s); /* @check %s: assert %s */", ex_str(g, a->cond, -1), loc_text(a->loc),
         esm_text(a->cond));
    break;
  case AC_CHOOSE: act_choose(g, a); break;
  }
}

static void actions(Gen *g, Machine *m, Action *a) {
  for (; a; a = a->next)
    action(g, m, a);
}

/* ---- transitions ---- */

static HwAction *trig_hwa(System *sys, Transition *t) {
  if (t->trig_sym && t->trig_sym->kind == SYM_HWACTION)
    return t->trig_sym->u.hwa;
  for (HwAction *h = sys->hwactions; h; h = h->next)
    if (t->trig_name && !strcmp(h->name, t->trig_name))
      return h;
  return NULL;
}

/* The trigger's availability as a Promela condition, or NULL for `when`. */
static const char *trigger_cond(Gen *g, Machine *m, Transition *t) {
  switch (t->trig) {
  case TR_EVENT: return arena_printf("pend[E_%s] > 0", t->trig_name);
  case TR_ACQUIRE: return arena_printf("TURN_%s_%s", t->trig_name, m->name);
  case TR_HWMSG: {
    HwAction *h = trig_hwa(g->sys, t);
    return arena_printf("len(hw_%s) > 0", h ? h->name : t->trig_name);
  }
  case TR_WHEN: return NULL;
  }
  return NULL;
}

static const char *trigger_text(Transition *t) {
  switch (t->trig) {
  case TR_EVENT: return t->trig_name;
  case TR_ACQUIRE: return arena_printf("acquire %s", t->trig_name);
  case TR_WHEN: return "when";
  case TR_HWMSG: {
    Buf b = {0};
    buf_printf(&b, "%s(", t->trig_name);
    for (NameList *n = t->binds; n; n = n->next)
      buf_printf(&b, "%s%s", n->name, n->next ? ", " : "");
    buf_puts(&b, ")");
    const char *s = arena_strdup(b.data);
    buf_free(&b);
    return s;
  }
  }
  return "?";
}

static Var *find_var(System *sys, Machine *m, const char *name) {
  for (Var *v = m->vars; v; v = v->next)
    if (!strcmp(v->name, name))
      return v;
  for (Var *v = sys->globals; v; v = v->next)
    if (!strcmp(v->name, name))
      return v;
  return NULL;
}

/* Receives a hardware request into the bound variables. A variable whose range does not
 * cover the parameter's goes through the scratch `rcv` so the range check sees the value. */
static void receive(Gen *g, Machine *m, Transition *t) {
  HwAction *h = trig_hwa(g->sys, t);
  if (!h)
    return;
  Buf args = {0};
  Param *p = h->params;
  NameList *n = t->binds;
  int scratch = 0;
  for (; p; p = p->next, n = n ? n->next : NULL) {
    Var *v = n ? find_var(g->sys, m, n->name) : NULL;
    const char *dst = "_";
    if (v) {
      Range pr = type_range(g->sys, &p->type), vr = type_range(g->sys, &v->type);
      dst = var_name(v);
      if (pr.lo < vr.lo || pr.hi > vr.hi)
        dst = arena_printf("rcv[%d]", scratch++);
    }
    buf_printf(&args, "%s%s", p == h->params ? "" : ", ", dst);
  }
  line(g, "hw_%s?%s;", h->name, args.data ? args.data : "_");
  buf_free(&args);
  scratch = 0;
  for (p = h->params, n = t->binds; p && n; p = p->next, n = n->next) {
    Var *v = find_var(g->sys, m, n->name);
    if (!v)
      continue;
    Range pr = type_range(g->sys, &p->type), vr = type_range(g->sys, &v->type);
    if (pr.lo < vr.lo || pr.hi > vr.hi) {
      const char *r = arena_printf("rcv[%d]", scratch++);
      range_check(g, r, 0, vr, vr, arena_printf("%s.%s", m->name, v->name), t->trig_loc);
      line(g, "%s = %s;", var_name(v), r);
      line(g, "%s = 0;", r);
    }
  }
}

static int needs_scratch(System *sys, Machine *m) {
  int most = 0;
  for (State *s = m->states; s; s = s->next)
    for (Transition *t = s->trans; t; t = t->next) {
      HwAction *h = t->trig == TR_HWMSG ? trig_hwa(sys, t) : NULL;
      if (!h)
        continue;
      int k = 0;
      NameList *n = t->binds;
      for (Param *p = h->params; p && n; p = p->next, n = n->next) {
        Var *v = find_var(sys, m, n->name);
        Range pr = type_range(sys, &p->type);
        Range vr = v ? type_range(sys, &v->type) : pr;
        k += pr.lo < vr.lo || pr.hi > vr.hi;
      }
      most = k > most ? k : most;
    }
  return most;
}

static void transition(Gen *g, Machine *m, State *s, Transition *t) {
  Buf cond = {0};
  g->cur = m;
  if (!m->env && g->sys->ncpus > 1)
    buf_printf(&cond, "FW_READY(%s, ID_%s) && ", cpu_tok(g->sys, m), m->name);
  else if (!m->env)
    buf_printf(&cond, "FW_READY(ID_%s) && ", m->name);
  buf_printf(&cond, "%s_st == %s", m->name, state_name(s));
  const char *trig = trigger_cond(g, m, t);
  if (trig)
    buf_printf(&cond, " && %s", trig);
  if (t->guard)
    buf_printf(&cond, " && %s", ex_str(g, t->guard, 1));
  const char *guard_text = t->guard ? arena_printf(" [%s]", esm_text(t->guard)) : "";
  const char *target = t->target ? t->target->name : t->target_name;
  line(g, ":: atomic { %s -> /* @esm %s %s: %s --%s%s--> %s */", cond.data, loc_text(t->loc),
       m->name, s->name, trigger_text(t), guard_text, target);
  buf_free(&cond);
  g->ind += 5;
  switch (t->trig) {
  case TR_EVENT: line(g, "pend[E_%s]--;", t->trig_name); break;
  case TR_ACQUIRE:
    line(g, "own_%s = ID_%s;", t->trig_name, m->name);
    line(g, "last_%s = ID_%s;", t->trig_name, m->name);
    break;
  case TR_HWMSG: receive(g, m, t); break;
  case TR_WHEN: break;
  }
  actions(g, m, t->actions);
  if (t->target)
    line(g, "%s_st = %s;", m->name, state_name(t->target));
  if (!m->env)
    line(g, "%s = %s;", cpu_tok(g->sys, m), t->target && (t->target->flags & ST_YIELD) ? "0" :
         arena_printf("ID_%s", m->name));
  g->ind -= 5;
  line(g, "}");
}

/* A firmware machine holding the processor in a non-yield state gives it up when none of its
 * transitions there can fire (some answer of the hardware may disable each). */
static void yield_option(Gen *g, Machine *m, State *s) {
  Buf cond = {0};
  const char *cpu = cpu_tok(g->sys, m);
  buf_printf(&cond, "%s == ID_%s && %s_st == %s", cpu, m->name, m->name, state_name(s));
  for (Transition *t = s->trans; t; t = t->next) {
    const char *trig = trigger_cond(g, m, t);
    if (!trig && !t->guard) {
      buf_free(&cond);
      return;   /* an unguarded `when` is always enabled */
    }
    buf_puts(&cond, " && !(");
    if (trig)
      buf_printf(&cond, "%s%s", trig, t->guard ? " && " : "");
    if (t->guard)
      buf_puts(&cond, ex_str(g, t->guard, -1));
    buf_puts(&cond, ")");
  }
  line(g, ":: atomic { %s -> %s = 0 } /* @cpu %s: %s gives up the processor */", cond.data,
       cpu, m->name, s->name);
  buf_free(&cond);
}

static int updates_var(Action *a, Var *v) {
  for (; a; a = a->next)
    if ((a->kind == AC_ASSIGN && a->op != OP_NONE && expr_var(a->lhs) == v) ||
        updates_var(a->then, v) || updates_var(a->els, v))
      return 1;
  return 0;
}

/* The register each read-modify-write of a shared variable loads into. */
static void split_locals(Gen *g, Machine *m) {
  if (m->env)
    return;
  for (Var *v = g->sys->globals; v; v = v->next) {
    int uses = 0;
    for (State *s = m->states; s && !uses; s = s->next)
      for (Transition *t = s->trans; t && !uses; t = t->next)
        uses = split_var(g->sys, v) && updates_var(t->actions, v);
    if (uses)
      line(g, "%s ld_%s;", ptype(g->sys, &v->type), var_name(v));
  }
}

static void machine(Gen *g, Machine *m) {
  line(g, "/* %s machine %s (%s) */", m->env ? "environment" : "firmware", m->name,
       loc_text(m->loc));
  line(g, "active proctype %s() {", safe(m->name));
  g->ind += 2;
  int k = needs_scratch(g->sys, m);
  if (k > 0)
    line(g, "int rcv[%d];", k);
  split_locals(g, m);
  line(g, "end_%s:", m->name);
  line(g, "do");
  size_t before = g->out.len;
  for (State *s = m->states; s; s = s->next) {
    for (Transition *t = s->trans; t; t = t->next)
      transition(g, m, s, t);
    if (!m->env && !(s->flags & ST_YIELD))
      yield_option(g, m, s);
  }
  if (g->out.len == before)
    line(g, ":: false /* no transitions: the machine never moves */");
  line(g, "od");
  g->ind -= 2;
  line(g, "}");
  line(g, "%s", "");
}

/* ---- declarations ---- */

static void header(Gen *g) {
  System *sys = g->sys;
  line(g, "/* %s.pml: the PROMELA model of ESM system %s, generated by esmc. Do not edit.", sys->name,
       sys->name);
  line(g, " * Spin checks it with models/verify.sh; `esmc --trail %s.pml` turns a Spin", sys->name);
  line(g, " * counterexample back into ESM machines, states, events and source lines. */");
  line(g, "%s", "");
}

static void consts(Gen *g) {
  if (!g->sys->consts)
    return;
  line(g, "/* constants, with their model values */");
  for (Const *c = g->sys->consts; c; c = c->next) {
    const char *v = arena_printf(c->v.m < 0 ? "(%ld)" : "%ld", c->v.m);
    if (c->v.c != c->v.m)
      line(g, "#define %s %s /* firmware: %ld */", safe(c->name), v, c->v.c);
    else
      line(g, "#define %s %s", safe(c->name), v);
  }
  line(g, "%s", "");
}

static void machine_ids(Gen *g) {
  line(g, "/* machines (ids: firmware first) and their states */");
  for (int id = 1; id <= g->sys->nmachines; id++)
    for (Machine *m = g->sys->machines; m; m = m->next) {
      if (m->id != id)
        continue;
      line(g, "#define ID_%s %d /* @machine %s %s */", m->name, m->id, m->name,
           m->env ? "environment" : "firmware");
      for (State *s = m->states; s; s = s->next)
        line(g, "#define %s %d /* @state %s %s%s%s%s */", state_name(s), s->index, m->name, s->name,
             s->flags & ST_INITIAL ? " initial" : "", s->flags & ST_YIELD ? " yield" : "",
             s->flags & ST_REST ? " rest" : "");
    }
  if (g->sys->ncpus > 1) {
    line(g, "#define FW_READY(c, id) (c == 0 || c == id)");
    line(g, "byte cpu0 = 0, cpu1 = 0; /* run-to-completion on each processor: 0 free, else the "
         "id of its machine running */");
    for (Machine *m = g->sys->machines; m; m = m->next)
      if (!m->env)
        line(g, "/* @processor %s %d */", m->name, m->cpu);
  } else {
    line(g, "#define FW_READY(id) (cpu == 0 || cpu == id)");
    line(g, "byte cpu = 0; /* run-to-completion: 0 free, else the id of the firmware machine "
         "running */");
  }
  for (Machine *m = g->sys->machines; m; m = m->next)
    line(g, "byte %s_st = %s;", m->name, m->initial ? state_name(m->initial) : "0");
  line(g, "%s", "");
}

static void events(Gen *g) {
  System *sys = g->sys;
  line(g, "/* events, in priority order; pend[e] counts the pending ones */");
  long maxcap = 1;
  int same = 1;
  for (Event *e = sys->events; e; e = e->next) {
    line(g, "#define E_%s %d /* @event %s */", e->name, e->index, e->name);
    line(g, "#define CAP_%s %ld", e->name, e->cap_v.m);
    maxcap = e->cap_v.m > maxcap ? e->cap_v.m : maxcap;
    same &= e->cap_v.m == sys->events->cap_v.m;
  }
  /* CAP(e) for an event only known at run time (an `event` variable). */
  Buf cap = {0};
  if (!sys->events || same) {
    buf_printf(&cap, "%ld", sys->events ? sys->events->cap_v.m : 1L);
  } else {
    int n = 0;
    for (Event *e = sys->events; e; e = e->next) {
      if (e->next) {
        buf_printf(&cap, "((e) == E_%s -> CAP_%s : ", e->name, e->name);
        n++;
      } else {
        buf_printf(&cap, "CAP_%s", e->name);
      }
    }
    for (int i = 0; i < n; i++)
      buf_puts(&cap, ")");
  }
  line(g, "#define CAP(e) (%s)", cap.data);
  buf_free(&cap);
  line(g, "%s pend[%d];", ptype_of_range((Range){0, maxcap}), sys->nevents > 0 ? sys->nevents : 1);
  line(g, "%s", "");
}

/* Round-robin arbitration: machine m may take r when it is free and no other machine that
 * wants r (is in a state with an enabled `on acquire r`) comes strictly between the last
 * grantee and m in cyclic id order. */
static void resources(Gen *g) {
  System *sys = g->sys;
  for (Resource *r = sys->resources; r; r = r->next) {
    line(g, "/* resource %s: own_%s is the holder's id (0: free), last_%s the last grantee */",
         r->name, r->name, r->name);
    line(g, "byte own_%s = 0; /* @resource %s */", r->name, r->name);
    line(g, "byte last_%s = 0;", r->name);
    Machine *users[256];
    int n = resource_users(sys, r, users, 256);
    n = n > 256 ? 256 : n;
    for (int i = 0; i < n; i++) {
      Machine *m = users[i];
      Buf b = {0};
      buf_printf(&b, "(own_%s == 0", r->name);
      for (int j = 0; j < n; j++) {
        Machine *u = users[j];
        if (u == m)
          continue;
        /* u comes strictly between last and m in the order after last */
        const char *between = u->id < m->id
                                  ? arena_printf("!(last_%s >= %d && last_%s < %d)", r->name,
                                                 u->id, r->name, m->id)
                                  : arena_printf("(last_%s >= %d && last_%s < %d)", r->name,
                                                 m->id, r->name, u->id);
        buf_puts(&b, " && !(");
        int first = 1;
        buf_puts(&b, "(");
        for (State *s = u->states; s; s = s->next)
          for (Transition *t = s->trans; t; t = t->next) {
            if (t->trig != TR_ACQUIRE || !t->trig_sym || t->trig_sym->u.res != r)
              continue;
            buf_printf(&b, "%s(%s_st == %s", first ? "" : " || ", u->name, state_name(s));
            if (t->guard)
              buf_printf(&b, " && %s", ex_str(g, t->guard, -1));
            buf_puts(&b, ")");
            first = 0;
          }
        buf_printf(&b, ") && %s)", between);
      }
      buf_puts(&b, ")");
      line(g, "#define TURN_%s_%s %s", r->name, m->name, b.data);
      buf_free(&b);
    }
    line(g, "%s", "");
  }
}

static void hwactions(Gen *g) {
  System *sys = g->sys;
  for (HwAction *h = sys->hwactions; h; h = h->next) {
    Buf types = {0};
    for (Param *p = h->params; p; p = p->next)
      buf_printf(&types, "%s%s", p == h->params ? "" : ", ", ptype(sys, &p->type));
    line(g, "/* hardware action %s, served by %s */", h->name, h->env_name);
    line(g, "#define HD_%s %ld", h->name, h->depth_v.m);
    line(g, "chan hw_%s = [HD_%s] of { %s }; /* @hwaction %s */", h->name, h->name,
         types.data ? types.data : "bit", h->name);
    buf_free(&types);
  }
  for (HwCond *c = sys->hwconds; c; c = c->next) {
    if (c->model)
      line(g, "#define HW_%s (%s) /* hardware %s %s */", c->name, ex_str(g, c->model, 0),
           c->type.kind == TY_INT ? "value" : "condition", c->name);
    else
      line(g, "/* hardware condition %s: no model, so every use may answer either way */",
           c->name);
  }
  if (sys->hwactions || sys->hwconds)
    line(g, "%s", "");
}

static void queues(Gen *g) {
  for (Queue *q = g->sys->queues; q; q = q->next) {
    line(g, "/* queue %s: q_%s[0] is the head, qlen_%s the length */", q->name, q->name, q->name);
    line(g, "#define QD_%s %ld", q->name, q->depth_v.m);
    line(g, "%s q_%s[QD_%s]; /* @queue %s */", ptype(g->sys, &q->type), q->name, q->name, q->name);
    line(g, "%s qlen_%s = 0;", ptype_of_range((Range){0, q->depth_v.m}), q->name);
    line(g, "%s", "");
  }
}

static void var_decl(Gen *g, Var *v) {
  const char *init = "";
  if (v->init)
    init = arena_printf(" = %s", ex_str(g, v->init, 0));
  else if (v->type.kind == TY_INT && v->type.lo_v.m != 0)
    init = arena_printf(" = %ld", v->type.lo_v.m);
  const char *size = v->size ? arena_printf("[%ld]", v->size_v.m) : "";
  const char *who = v->owner ? arena_printf("%s.%s", v->owner->name, v->name) : v->name;
  line(g, "%s %s%s%s; /* @var %s%s%s */", ptype(g->sys, &v->type), var_name(v), size, init, who,
       v->ghost ? " ghost" : "", v->type.kind == TY_EVENT ? " event" : "");
}

/* A variable both processors write: the value its updates give one at a time, and how many
 * updates have loaded it and not yet stored. */
static void split_decl(Gen *g, Var *v) {
  if (!split_var(g->sys, v))
    return;
  const char *init = v->init ? ex_str(g, v->init, 0) : arena_printf("%ld", v->type.lo_v.m);
  line(g, "int sv_%s = %s; /* @shared %s: its updates one at a time */", var_name(v), init,
       v->name);
  line(g, "byte inflight_%s = 0;", var_name(v));
}

static void variables(Gen *g) {
  if (g->sys->globals) {
    line(g, "/* system variables */");
    for (Var *v = g->sys->globals; v; v = v->next) {
      var_decl(g, v);
      split_decl(g, v);
    }
    line(g, "%s", "");
  }
  for (Machine *m = g->sys->machines; m; m = m->next) {
    if (!m->vars)
      continue;
    line(g, "/* variables of %s */", m->name);
    for (Var *v = m->vars; v; v = v->next)
      var_decl(g, v);
    line(g, "%s", "");
  }
}

/* On timeout (nothing can move) every machine must rest, with nothing left to do. */
static void deadlock_monitor(Gen *g) {
  System *sys = g->sys;
  line(g, "/* deadlock: when no machine can move, everything must be at rest */");
  line(g, "active proctype deadlock() {");
  g->ind += 2;
  line(g, "timeout ->");
  line(g, "atomic {");
  g->ind += 2;
  for (Machine *m = sys->machines; m; m = m->next) {
    Buf b = {0};
    for (State *s = m->states; s; s = s->next)
      if (s->flags & ST_REST)
        buf_printf(&b, "%s%s_st == %s", b.len ? " || " : "", m->name, state_name(s));
    line(g, "assert(%s); /* @check deadlock: %s is stuck in a state that is not rest */",
         b.data ? b.data : "false", m->name);
    buf_free(&b);
  }
  for (Event *e = sys->events; e; e = e->next)
    line(g, "assert(pend[E_%s] == 0); /* @check deadlock: event %s is pending but nothing "
         "can take it */", e->name, e->name);
  for (Queue *q = sys->queues; q; q = q->next)
    line(g, "assert(qlen_%s == 0); /* @check deadlock: queue %s is not empty */", q->name,
         q->name);
  for (HwAction *h = sys->hwactions; h; h = h->next)
    line(g, "assert(len(hw_%s) == 0); /* @check deadlock: a %s request is never served */",
         h->name, h->name);
  g->ind -= 2;
  line(g, "}");
  g->ind -= 2;
  line(g, "}");
  line(g, "%s", "");
}

static const char *prop_kind[] = {
  [PR_ALWAYS] = "always", [PR_EVENTUALLY] = "eventually", [PR_LEADSTO] = "leadsto",
  [PR_REACHABLE] = "reachable",
};

/* The ltl block's name: Spin rejects one equal to a proctype, and a constant's name would be
 * replaced by its #define. */
static const char *ltl_name(System *sys, Property *p) {
  for (Machine *m = sys->machines; m; m = m->next)
    if (!strcmp(m->name, p->name))
      return arena_printf("p_%s", p->name);
  for (Const *c = sys->consts; c; c = c->next)
    if (!strcmp(c->name, p->name))
      return arena_printf("p_%s", p->name);
  return safe(p->name);
}

static void properties(Gen *g) {
  System *sys = g->sys;
  if (!sys->props)
    return;
  line(g, "/* properties; `reachable` asks Spin to refute [] !P, so its violation is the "
       "witness */");
  for (Property *p = sys->props; p; p = p->next) {
    const char *name = ltl_name(sys, p);
    const char *text = p->q ? arena_printf("%s ~> %s", esm_text(p->p), esm_text(p->q))
                            : esm_text(p->p);
    line(g, "/* @prop %s %s %s: %s */", prop_kind[p->kind], name, loc_text(p->loc), text);
    line(g, "#define P_%s (%s)", p->name, ex_str(g, p->p, 1));
    if (p->q)
      line(g, "#define Q_%s (%s)", p->name, ex_str(g, p->q, 1));
    switch (p->kind) {
    case PR_ALWAYS: line(g, "ltl %s { [] P_%s }", name, p->name); break;
    case PR_EVENTUALLY: line(g, "ltl %s { <> P_%s }", name, p->name); break;
    case PR_LEADSTO: line(g, "ltl %s { [] (P_%s -> <> Q_%s) }", name, p->name, p->name); break;
    case PR_REACHABLE: line(g, "ltl %s { [] !P_%s }", name, p->name); break;
    }
  }
}

int gen_pml(System *sys, const char *outdir) {
  Gen g = {.sys = sys};
  header(&g);
  consts(&g);
  machine_ids(&g);
  events(&g);
  resources(&g);
  hwactions(&g);
  queues(&g);
  variables(&g);
  for (int env = 0; env <= 1; env++)
    for (Machine *m = sys->machines; m; m = m->next)
      if (m->env == env)
        machine(&g, m);
  deadlock_monitor(&g);
  properties(&g);
  const char *path = arena_printf("%s/%s.pml", outdir, sys->name);
  int rc = buf_save(&g.out, path);
  buf_free(&g.out);
  if (rc != 0) {
    perror(path);
    return -1;
  }
  return 0;
}
