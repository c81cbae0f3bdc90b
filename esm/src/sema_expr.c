/* sema_expr.c: resolution and typing of expressions and actions, constant evaluation, and the
 * rules about who may read and write what (firmware code becomes C, so it cannot see the
 * environment or ghosts in ways that would change its behaviour). */
#include <limits.h>
#include <string.h>

#include "diag.h"
#include "sema.h"
#include "sema_int.h"

const char *type_name(int kind) {
  switch (kind) {
  case TY_INT: return "an integer";
  case TY_BOOL: return "a condition";
  default: return "an event";
  }
}

static const char *sym_kind_name(SymKind k) {
  static const char *names[] = {
    [SYM_CONST] = "a constant", [SYM_VAR] = "a variable", [SYM_EVENT] = "an event",
    [SYM_RESOURCE] = "a resource", [SYM_HWACTION] = "a hardware action",
    [SYM_HWCOND] = "a hardware condition", [SYM_QUEUE] = "a queue",
    [SYM_MACHINE] = "a machine", [SYM_STATE] = "a state", [SYM_BUILTIN] = "a built-in function",
  };
  return names[k];
}

/* ---- constant evaluation ---- */

static int fits(long v) { return v >= INT_MIN && v <= INT_MAX; }

static int eval1(Expr *e, int model, long *out) {
  long a, b;
  switch (e->kind) {
  case EX_NUM:
  case EX_BOOL:
    *out = e->num;
    return 0;
  case EX_NAME:
    if (!e->sym || e->sym->kind != SYM_CONST)
      return -1;
    *out = model ? e->sym->u.cnst->v.m : e->sym->u.cnst->v.c;
    return 0;
  case EX_UNARY:
    if (eval1(e->lhs, model, &a) != 0)
      return -1;
    *out = e->op == OP_NOT ? !a : -a;
    return 0;
  case EX_BINARY:
    if (eval1(e->lhs, model, &a) != 0 || eval1(e->rhs, model, &b) != 0)
      return -1;
    switch (e->op) {
    case OP_ADD: *out = a + b; break;
    case OP_SUB: *out = a - b; break;
    case OP_MUL: *out = a * b; break;
    case OP_DIV:
    case OP_MOD:
      if (b == 0) {
        error_at(e->loc, "division by zero in a constant expression");
        return -1;
      }
      *out = e->op == OP_DIV ? a / b : a % b;
      break;
    case OP_EQ: *out = a == b; break;
    case OP_NE: *out = a != b; break;
    case OP_LT: *out = a < b; break;
    case OP_LE: *out = a <= b; break;
    case OP_GT: *out = a > b; break;
    case OP_GE: *out = a >= b; break;
    case OP_AND: *out = a && b; break;
    case OP_OR: *out = a || b; break;
    default: return -1;
    }
    if (!fits(*out)) {
      error_at(e->loc, "constant expression overflows 32 bits");
      return -1;
    }
    return 0;
  default:
    return -1;
  }
}

int eval_const(Expr *e, Val2 *out) {
  if (eval1(e, 0, &out->c) != 0 || eval1(e, 1, &out->m) != 0)
    return -1;
  return 0;
}

/* Whether e is built from literals and constants only (evaluation is then silent). */
static int is_const(Expr *e) {
  switch (e->kind) {
  case EX_NUM:
  case EX_BOOL: return 1;
  case EX_NAME: return e->sym && e->sym->kind == SYM_CONST;
  case EX_UNARY: return is_const(e->lhs);
  case EX_BINARY:
    if (!is_const(e->lhs) || !is_const(e->rhs))
      return 0;
    if (e->op == OP_DIV || e->op == OP_MOD) {
      long b;
      return eval1(e->rhs, 0, &b) == 0 && b != 0 && eval1(e->rhs, 1, &b) == 0 && b != 0;
    }
    return 1;
  default: return 0;
  }
}

int reads_ghost(Expr *e) {
  if (!e)
    return 0;
  if ((e->kind == EX_NAME || e->kind == EX_FIELD) && e->sym && e->sym->kind == SYM_VAR &&
      e->sym->u.var->ghost)
    return 1;
  for (Expr *a = e->args; a; a = a->next)
    if (reads_ghost(a))
      return 1;
  return reads_ghost(e->lhs) || reads_ghost(e->rhs);
}

/* ---- expressions ---- */

static int check_var_access(Var *v, Loc loc, Cx *cx) {
  if (cx->kind == CX_FIRMWARE && v->owner && v->owner->env) {
    error_at(loc, "firmware machine '%s' cannot read '%s.%s': environment variables do not "
             "exist in the firmware", cx->machine->name, v->owner->name, v->name);
    return -1;
  }
  return (int)v->type.kind;
}

static int check_name(Expr *e, Cx *cx) {
  Sym *s = lookup(cx->machine, e->name);
  e->sym = s;
  if (!s) {
    error_at(e->loc, "unknown name '%s'", e->name);
    return -1;
  }
  if (cx->kind == CX_CONST && s->kind != SYM_CONST) {
    error_at(e->loc, "'%s' is %s; a constant expression can only use constants", e->name,
             sym_kind_name(s->kind));
    return -1;
  }
  switch (s->kind) {
  case SYM_CONST: return TY_INT;
  case SYM_EVENT: return TY_EVENT;
  case SYM_VAR:
    if (s->u.var->size) {
      error_at(e->loc, "'%s' is an array; index it", e->name);
      return -1;
    }
    return check_var_access(s->u.var, e->loc, cx);
  case SYM_HWCOND:
    if (cx->kind != CX_FIRMWARE && !s->u.hwc->model) {
      error_at(e->loc, "hardware condition '%s' has no model expression, so only firmware "
               "code can test it", e->name);
      return -1;
    }
    if (!s->u.hwc->model && !cx->in_guard) {
      error_at(e->loc, "hardware condition '%s' has no model expression, so it can only be "
               "tested directly in a guard or an if condition (with &&, || and !)", e->name);
      return -1;
    }
    return (int)s->u.hwc->type.kind;
  default:
    error_at(e->loc, "'%s' is %s, not a value", e->name, sym_kind_name(s->kind));
    return -1;
  }
}

/* Resolves `M.x` (sym of the var); returns its type or -1. Arrays are allowed when `indexed`. */
static int check_field(System *sys, Expr *e, Cx *cx, int indexed) {
  if (cx->kind == CX_CONST) {
    error_at(e->loc, "a constant expression can only use constants");
    return -1;
  }
  if (e->lhs->kind != EX_NAME) {
    error_at(e->loc, "'.' must follow a machine name");
    return -1;
  }
  Machine *m = find_machine(sys, e->lhs->name);
  if (!m) {
    error_at(e->lhs->loc, "unknown machine '%s'", e->lhs->name);
    return -1;
  }
  e->lhs->sym = lookup_global(m->name);
  Sym *s = lookup_local(m, e->name);
  if (!s) {
    error_at(e->loc, "machine '%s' has no variable '%s'", m->name, e->name);
    return -1;
  }
  e->sym = s;
  if (s->u.var->size && !indexed) {
    error_at(e->loc, "'%s.%s' is an array; index it", m->name, e->name);
    return -1;
  }
  return check_var_access(s->u.var, e->loc, cx);
}

static int check_index(System *sys, Expr *e, Cx *cx) {
  Expr *base = e->lhs;
  Var *v = NULL;
  int ty = -1;
  if (base->kind == EX_NAME) {
    Sym *s = lookup(cx->machine, base->name);
    base->sym = s;
    if (!s)
      error_at(base->loc, "unknown name '%s'", base->name);
    else if (s->kind != SYM_VAR || !s->u.var->size)
      error_at(base->loc, "'%s' is not an array", base->name);
    else if ((ty = check_var_access(s->u.var, base->loc, cx)) >= 0)
      v = s->u.var;
  } else if (base->kind == EX_FIELD) {
    if ((ty = check_field(sys, base, cx, 1)) >= 0) {
      v = base->sym->u.var;
      if (!v->size) {
        error_at(base->loc, "'%s' is not an array", v->name);
        v = NULL;
      }
    }
  } else {
    error_at(e->loc, "only arrays can be indexed");
  }
  int ity = check_expr(sys, e->rhs, cx);
  if (ity >= 0 && ity != TY_INT)
    error_at(e->rhs->loc, "an array index must be an integer, not %s", type_name(ity));
  if (!v || ity != TY_INT)
    return -1;
  Val2 iv;
  if (is_const(e->rhs) && eval_const(e->rhs, &iv) == 0 &&
      (iv.c < 0 || iv.c >= v->size_v.c || iv.m < 0 || iv.m >= v->size_v.m)) {
    error_at(e->rhs->loc, "index %ld is outside '%s' (length %ld in the firmware, %ld in the "
             "model)", iv.c < 0 || iv.c >= v->size_v.c ? iv.c : iv.m, v->name, v->size_v.c,
             v->size_v.m);
    return -1;
  }
  e->sym = v->owner ? lookup_local(v->owner, v->name) : lookup_global(v->name);
  return ty;
}

static int check_unary(System *sys, Expr *e, Cx *cx) {
  int t = check_expr(sys, e->lhs, cx);
  if (t < 0)
    return -1;
  int want = e->op == OP_NOT ? TY_BOOL : TY_INT;
  if (t != want) {
    error_at(e->loc, "'%s' needs %s, not %s", e->op == OP_NOT ? "!" : "-", type_name(want),
             type_name(t));
    return -1;
  }
  return want;
}

static int check_binary(System *sys, Expr *e, Cx *cx) {
  /* A freely chosen hardware condition may be an operand of && and || only. */
  int saved = cx->in_guard;
  if (e->op != OP_AND && e->op != OP_OR)
    cx->in_guard = 0;
  int l = check_expr(sys, e->lhs, cx);
  int r = check_expr(sys, e->rhs, cx);
  cx->in_guard = saved;
  if (l < 0 || r < 0)
    return -1;
  switch (e->op) {
  case OP_AND:
  case OP_OR:
    if (l != TY_BOOL || r != TY_BOOL) {
      error_at(e->loc, "'%s' needs conditions on both sides, not %s and %s",
               e->op == OP_AND ? "&&" : "||", type_name(l), type_name(r));
      return -1;
    }
    return TY_BOOL;
  case OP_EQ:
  case OP_NE:
    if (l != r) {
      error_at(e->loc, "cannot compare %s with %s", type_name(l), type_name(r));
      return -1;
    }
    return TY_BOOL;
  default:
    if (l != TY_INT || r != TY_INT) {
      error_at(e->loc, "arithmetic and ordering need integers, not %s and %s", type_name(l),
               type_name(r));
      return -1;
    }
    if ((e->op == OP_DIV || e->op == OP_MOD) && is_const(e->lhs) == 0 && e->rhs->kind == EX_NUM &&
        e->rhs->num == 0) {
      error_at(e->rhs->loc, "division by zero");
      return -1;
    }
    return e->op >= OP_EQ ? TY_BOOL : TY_INT;
  }
}

static int check_in(System *sys, Expr *e, Cx *cx) {
  if (cx->kind == CX_CONST) {
    error_at(e->loc, "a constant expression can only use constants");
    return -1;
  }
  Machine *m = find_machine(sys, e->name);
  if (!m) {
    error_at(e->loc, "unknown machine '%s'", e->name);
    return -1;
  }
  e->sym = lookup_global(m->name);
  if (cx->kind == CX_FIRMWARE && m->env) {
    error_at(e->loc, "firmware machine '%s' cannot test the state of environment machine '%s'",
             cx->machine->name, m->name);
    return -1;
  }
  int ok = 1;
  for (NameList *n = e->states; n; n = n->next) {
    for (State *s = m->states; s; s = s->next)
      if (!strcmp(s->name, n->name))
        n->state = s;
    if (!n->state) {
      error_at(n->loc, "machine '%s' has no state '%s'", m->name, n->name);
      ok = 0;
    }
  }
  return ok ? TY_BOOL : -1;
}

/* The argument of a builtin that names a declaration of a given kind. */
static Sym *named_arg(Expr *a, SymKind kind, const char *fn) {
  static const char *what[] = {[SYM_EVENT] = "an event", [SYM_RESOURCE] = "a resource",
                               [SYM_QUEUE] = "a queue", [SYM_MACHINE] = "a machine"};
  if (!a || a->kind != EX_NAME) {
    error_at(a ? a->loc : (Loc){0}, "%s() needs %s name here", fn, what[kind]);
    return NULL;
  }
  Sym *s = lookup_global(a->name);
  if (!s || s->kind != kind) {
    error_at(a->loc, "%s() needs %s name; '%s' is %s", fn, what[kind], a->name,
             s ? sym_kind_name(s->kind) : "not declared");
    return NULL;
  }
  a->sym = s;
  return s;
}

static int count_args(Expr *e) {
  int n = 0;
  for (Expr *a = e->args; a; a = a->next)
    n++;
  return n;
}

static int check_call(Expr *e, Cx *cx) {
  Sym *s = lookup_builtin(e->name);
  if (!s)
    s = lookup_global(e->name);
  e->sym = s;
  if (!s) {
    error_at(e->loc, "unknown function '%s'", e->name);
    return -1;
  }
  if (cx->kind == CX_CONST) {
    error_at(e->loc, "a constant expression can only use constants");
    return -1;
  }
  if (s->kind == SYM_HWCOND) {
    if (e->args) {
      error_at(e->loc, "hardware condition '%s' takes no arguments", e->name);
      return -1;
    }
    Expr name = *e;
    name.kind = EX_NAME;
    return check_name(&name, cx);
  }
  if (s->kind == SYM_HWACTION) {
    error_at(e->loc, "'%s' is a hardware action, which is an action, not a value", e->name);
    return -1;
  }
  if (s->kind != SYM_BUILTIN) {
    error_at(e->loc, "'%s' is %s, not a function", e->name, sym_kind_name(s->kind));
    return -1;
  }
  int n = count_args(e), want = !strcmp(e->name, "holds") ? 2 : 1;
  if (n != want) {
    error_at(e->loc, "%s() takes %d argument%s, not %d", e->name, want, want == 1 ? "" : "s", n);
    return -1;
  }
  if (!strcmp(e->name, "pending"))
    return named_arg(e->args, SYM_EVENT, e->name) ? TY_INT : -1;
  if (!strcmp(e->name, "free"))
    return named_arg(e->args, SYM_RESOURCE, e->name) ? TY_BOOL : -1;
  if (!strcmp(e->name, "holds")) {
    Sym *m = named_arg(e->args, SYM_MACHINE, e->name);
    Sym *r = named_arg(e->args->next, SYM_RESOURCE, e->name);
    return m && r ? TY_BOOL : -1;
  }
  Sym *q = named_arg(e->args, SYM_QUEUE, e->name);
  if (!q)
    return -1;
  if (!strcmp(e->name, "len"))
    return TY_INT;
  if (!strcmp(e->name, "head"))
    return (int)q->u.queue->type.kind;
  return TY_BOOL; /* empty, full */
}

int check_expr(System *sys, Expr *e, Cx *cx) {
  switch (e->kind) {
  case EX_NUM: return TY_INT;
  case EX_BOOL: return TY_BOOL;
  case EX_NAME: return check_name(e, cx);
  case EX_FIELD: return check_field(sys, e, cx, 0);
  case EX_INDEX: return check_index(sys, e, cx);
  case EX_UNARY: return check_unary(sys, e, cx);
  case EX_BINARY: return check_binary(sys, e, cx);
  case EX_IN: return check_in(sys, e, cx);
  case EX_CALL: return check_call(e, cx);
  }
  return -1;
}

/* ---- actions ---- */

/* Checks an assignable place; returns its type, or -1. */
static int check_lvalue(System *sys, Expr *e, Cx *cx, Var **out) {
  int ty;
  if (e->kind == EX_NAME || e->kind == EX_FIELD || e->kind == EX_INDEX)
    ty = check_expr(sys, e, cx);
  else {
    error_at(e->loc, "only a variable or an array element can be assigned");
    return -1;
  }
  if (ty < 0)
    return -1;
  if (!e->sym || e->sym->kind != SYM_VAR) {
    error_at(e->loc, "only a variable or an array element can be assigned");
    return -1;
  }
  Var *v = e->sym->u.var;
  *out = v;
  if (v->owner && v->owner != cx->machine) {
    error_at(e->loc, "machine '%s' cannot write '%s.%s': a machine writes only its own and "
             "system-level variables", cx->machine->name, v->owner->name, v->name);
    return -1;
  }
  if (cx->kind == CX_ENV && !v->owner && !v->ghost) {
    error_at(e->loc, "environment machine '%s' cannot write firmware variable '%s'",
             cx->machine->name, v->name);
    return -1;
  }
  return ty;
}

static void check_value_into(System *sys, Expr *rhs, int want, const Type *ty, int ghost_ok,
                             Cx *cx, const char *what) {
  int t = check_expr(sys, rhs, cx);
  if (t < 0)
    return;
  if (t != want) {
    error_at(rhs->loc, "%s needs %s, not %s", what, type_name(want), type_name(t));
    return;
  }
  if (!ghost_ok && cx->kind == CX_FIRMWARE && reads_ghost(rhs)) {
    error_at(rhs->loc, "a ghost variable cannot flow into firmware state");
    return;
  }
  Val2 v;
  if (ty && want == TY_INT && is_const(rhs) && eval_const(rhs, &v) == 0)
    sema_check_range(ty, v, rhs->loc, "value");
}

static void check_assign(System *sys, Action *a, Cx *cx) {
  Var *v;
  int ty = check_lvalue(sys, a->lhs, cx, &v);
  if (ty < 0) {
    Cx any = *cx;
    any.kind = CX_PROPERTY;
    check_expr(sys, a->rhs, &any);
    return;
  }
  if (a->op != OP_NONE && ty != TY_INT) {
    error_at(a->loc, "'%s' needs an integer variable", a->op == OP_ADD ? "+=" : "-=");
    return;
  }
  check_value_into(sys, a->rhs, ty, a->op == OP_NONE ? &v->type : NULL, v->ghost, cx,
                   "this assignment");
}

static void check_raise(System *sys, Action *a, Cx *cx) {
  int t = check_expr(sys, a->rhs, cx);
  if (t < 0)
    return;
  if (t != TY_EVENT) {
    error_at(a->rhs->loc, "raise needs an event, not %s", type_name(t));
    return;
  }
  if (a->rhs->kind == EX_NAME && a->rhs->sym->kind == SYM_EVENT) {
    Event *e = a->rhs->sym->u.event;
    if (cx->kind == CX_FIRMWARE && e->owner && e->owner->env)
      error_at(a->rhs->loc, "firmware cannot raise '%s', which environment machine '%s' "
               "handles; firmware talks to the hardware through hardware actions", e->name,
               e->owner->name);
  }
}

static void check_hwcall(System *sys, Action *a, Cx *cx) {
  Sym *s = lookup_global(a->name);
  a->sym = s;
  if (!s || s->kind != SYM_HWACTION) {
    error_at(a->loc, s ? "'%s' is %s, not a hardware action" : "unknown hardware action '%s'",
             a->name, s ? sym_kind_name(s->kind) : "");
    return;
  }
  if (cx->kind == CX_ENV) {
    error_at(a->loc, "environment machines serve hardware actions; they do not issue them");
    return;
  }
  HwAction *h = s->u.hwa;
  Param *p = h->params;
  int n = 0;
  for (Expr *arg = a->args; arg; arg = arg->next, n++) {
    if (p) {
      check_value_into(sys, arg, (int)p->type.kind, &p->type, 0, cx, "this argument");
      p = p->next;
    } else {
      check_expr(sys, arg, cx);
    }
  }
  if (n != h->nparams)
    error_at(a->loc, "hardware action '%s' takes %d argument%s, not %d", h->name, h->nparams,
             h->nparams == 1 ? "" : "s", n);
}

static Queue *queue_named(Action *a) {
  Sym *s = lookup_global(a->name);
  a->sym = s;
  if (!s || s->kind != SYM_QUEUE) {
    error_at(a->loc, "'%s' is not a queue", a->name);
    return NULL;
  }
  return s->u.queue;
}

static void check_cond(System *sys, Expr *c, Cx *cx, const char *what) {
  int saved = cx->in_guard;
  cx->in_guard = 1;
  int t = check_expr(sys, c, cx);
  cx->in_guard = saved;
  if (t >= 0 && t != TY_BOOL)
    error_at(c->loc, "%s needs a condition, not %s", what, type_name(t));
}

static void check_action(System *sys, Action *a, Cx *cx) {
  Var *v;
  Queue *q;
  switch (a->kind) {
  case AC_ASSIGN: check_assign(sys, a, cx); break;
  case AC_RAISE: check_raise(sys, a, cx); break;
  case AC_RELEASE: {
    Sym *s = lookup_global(a->name);
    a->sym = s;
    if (!s || s->kind != SYM_RESOURCE)
      error_at(a->loc, "unknown resource '%s'", a->name);
    else if (cx->kind == CX_ENV)
      error_at(a->loc, "environment machines cannot hold resources");
    break;
  }
  case AC_HWCALL: check_hwcall(sys, a, cx); break;
  case AC_PUSH:
    if ((q = queue_named(a)))
      check_value_into(sys, a->rhs, (int)q->type.kind, &q->type, 0, cx, "push");
    break;
  case AC_POP: {
    q = queue_named(a);
    int t = check_lvalue(sys, a->lhs, cx, &v);
    if (q && t >= 0 && t != (int)q->type.kind)
      error_at(a->lhs->loc, "queue '%s' holds %s, but the target is %s", q->name,
               type_name((int)q->type.kind), type_name(t));
    break;
  }
  case AC_IF:
    check_cond(sys, a->cond, cx, "if");
    if (cx->kind == CX_FIRMWARE && reads_ghost(a->cond))
      error_at(a->cond->loc, "a firmware 'if' cannot test ghost variables (they do not exist "
               "in the C firmware)");
    check_actions(sys, a->then, cx);
    check_actions(sys, a->els, cx);
    break;
  case AC_ASSERT: check_cond(sys, a->cond, cx, "assert"); break;
  case AC_CHOOSE: {
    if (cx->kind != CX_ENV) {
      error_at(a->loc, "'choose' is nondeterminism, which only environment machines have");
      break;
    }
    int t = check_lvalue(sys, a->lhs, cx, &v);
    if (t >= 0 && t != TY_INT) {
      error_at(a->lhs->loc, "choose needs an integer variable");
      break;
    }
    Val2 lo, hi;
    Cx cc = {CX_CONST, NULL, 0};
    if (check_expr(sys, a->lo, &cc) != TY_INT || check_expr(sys, a->hi, &cc) != TY_INT ||
        eval_const(a->lo, &lo) != 0 || eval_const(a->hi, &hi) != 0 || t < 0)
      break;
    if (lo.c > hi.c || lo.m > hi.m)
      error_at(a->lo->loc, "empty choice range");
    else if (sema_check_range(&v->type, lo, a->lo->loc, "choice bound"))
      sema_check_range(&v->type, hi, a->hi->loc, "choice bound");
    break;
  }
  }
}

void check_actions(System *sys, Action *a, Cx *cx) {
  for (; a; a = a->next)
    check_action(sys, a, cx);
}
