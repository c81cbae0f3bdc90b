/* gen_c_expr.c: ESM expressions and actions as C. Every run-time check of the manual becomes a
 * call that reports a fault to the HAL with the ESM source line: ranges on assignment (the
 * variable keeps an in-range value), array indexes, division by zero, queues, resources. */
#include <string.h>

#include "gen_c.h"

static Var *sym_var(Expr *e) {
  return e && e->sym && e->sym->kind == SYM_VAR ? e->sym->u.var : NULL;
}

/* The variable an lvalue (x, M.x, x[i]) names. */
static Var *root_var(Expr *e) {
  if (e->kind == EX_INDEX)
    return sym_var(e->lhs);
  return sym_var(e);
}

Type *c_var_type(Expr *lvalue) {
  Var *v = root_var(lvalue);
  return v ? &v->type : NULL;
}

int c_expr_ghost(Expr *e) {
  if (!e)
    return 0;
  Var *v = sym_var(e);
  if (v && v->ghost && (e->kind == EX_NAME || e->kind == EX_FIELD))
    return 1;
  if (c_expr_ghost(e->lhs) || c_expr_ghost(e->rhs))
    return 1;
  for (Expr *a = e->args; a; a = a->next)
    if (c_expr_ghost(a))
      return 1;
  return 0;
}

/* A compile-time integer, for checks esmc can settle itself. */
static int const_value(Expr *e, long *out) {
  if (e->kind == EX_NUM) {
    *out = e->num;
    return 1;
  }
  if (e->kind == EX_NAME && e->sym && e->sym->kind == SYM_CONST) {
    *out = e->sym->u.cnst->v.c;
    return 1;
  }
  return 0;
}

static void sub(CGen *g, Buf *b, Expr *e) {
  int paren = e->kind == EX_BINARY || (e->kind == EX_IN && e->states && e->states->next);
  if (paren)
    buf_puts(b, "(");
  c_expr(g, b, e);
  if (paren)
    buf_puts(b, ")");
}

static void var_expr(CGen *g, Buf *b, Expr *e, Var *v) {
  if (v->ghost)
    cg_error(g, e->loc, "ghost variable '%s' cannot be used in firmware code", v->name);
  else if (v->owner && v->owner->env)
    cg_error(g, e->loc, "firmware cannot read environment variable '%s.%s'", v->owner->name,
             v->name);
  c_var_ref(g, b, v);
}

/* A hardware condition, or a hardware value checked against its declared range. */
static void hw_read(CGen *g, Buf *b, HwCond *c, Loc loc) {
  if (c->type.kind != TY_INT) {
    buf_printf(b, "%s_hal_%s(sys)", g->p, c->name);
    return;
  }
  buf_printf(b, "%s__range(sys, %s_hal_%s(sys), %s, %s, \"%s\")", g->p, g->p, c->name,
             c_int(c->type.lo_v.c), c_int(c->type.hi_v.c), esm_where(loc));
}

static void name_expr(CGen *g, Buf *b, Expr *e) {
  Sym *s = e->sym;
  if (!s) {
    cg_error(g, e->loc, "unresolved name '%s'", e->name);
    return;
  }
  switch (s->kind) {
  case SYM_CONST: buf_printf(b, "%s_CONST_%s", g->p, s->u.cnst->name); break;
  case SYM_VAR: var_expr(g, b, e, s->u.var); break;
  case SYM_EVENT: buf_printf(b, "%s_EV_%s", g->p, s->u.event->name); break;
  case SYM_HWCOND: hw_read(g, b, s->u.hwc, e->loc); break;
  default: cg_error(g, e->loc, "'%s' is not a value in firmware code", e->name);
  }
}

static void index_expr(CGen *g, Buf *b, Expr *e) {
  Var *v = sym_var(e->lhs);
  if (!v) {
    cg_error(g, e->loc, "only variables can be indexed");
    return;
  }
  var_expr(g, b, e->lhs, v);
  long len = v->size_v.c, k;
  if (const_value(e->rhs, &k) && k >= 0 && k < len) {
    buf_printf(b, "[%ld]", k);
    return;
  }
  buf_printf(b, "[%s__index(sys, ", g->p);
  c_expr(g, b, e->rhs);
  buf_printf(b, ", %ld, \"%s\")]", len, esm_where(e->loc));
}

static void binary_expr(CGen *g, Buf *b, Expr *e) {
  long k;
  if ((e->op == OP_DIV || e->op == OP_MOD) && !(const_value(e->rhs, &k) && k != 0)) {
    buf_printf(b, "%s__%s(sys, ", g->p, e->op == OP_DIV ? "div" : "mod");
    c_expr(g, b, e->lhs);
    buf_puts(b, ", ");
    c_expr(g, b, e->rhs);
    buf_printf(b, ", \"%s\")", esm_where(e->loc));
    return;
  }
  sub(g, b, e->lhs);
  buf_printf(b, " %s ", esm_op_text(e->op));
  sub(g, b, e->rhs);
}

static void in_expr(CGen *g, Buf *b, Expr *e) {
  Machine *m = e->sym && e->sym->kind == SYM_MACHINE ? e->sym->u.machine : NULL;
  if (!m || m->env) {
    cg_error(g, e->loc, "firmware can only test the state of firmware machines");
    return;
  }
  for (NameList *n = e->states; n; n = n->next) {
    if (!n->state) {
      cg_error(g, n->loc, "unresolved state '%s'", n->name);
      return;
    }
    buf_printf(b, "sys->m.%s.state == %s%s", c_field(m->name), c_state(g, n->state),
               n->next ? " || " : "");
  }
}

static Sym *arg_sym(Expr *args, int i) {
  for (; args && i > 0; i--)
    args = args->next;
  return args ? args->sym : NULL;
}

static void queue_expr(Buf *b, const char *fn, Queue *q) {
  const char *ref = arena_printf("sys->q.%s", c_field(q->name));
  if (!strcmp(fn, "len"))
    buf_printf(b, "%s.len", ref);
  else if (!strcmp(fn, "empty"))
    buf_printf(b, "(%s.len == 0)", ref);
  else if (!strcmp(fn, "full"))
    buf_printf(b, "(%s.len == %ld)", ref, q->depth_v.c);
  else
    buf_printf(b, "%s.buf[%s.head]", ref, ref); /* head(q): the oldest element */
}

static void call_expr(CGen *g, Buf *b, Expr *e) {
  Sym *s = e->sym;
  if (s && s->kind == SYM_HWCOND) {
    hw_read(g, b, s->u.hwc, e->loc);
    return;
  }
  Sym *a0 = arg_sym(e->args, 0), *a1 = arg_sym(e->args, 1);
  const char *fn = e->name;
  if (!strcmp(fn, "pending") && a0 && a0->kind == SYM_EVENT) {
    buf_printf(b, "sys->pending[%s_EV_%s]", g->p, a0->u.event->name);
  } else if (!strcmp(fn, "free") && a0 && a0->kind == SYM_RESOURCE) {
    buf_printf(b, "(sys->owner[%s_RES_%s] == 0)", g->p, a0->u.res->name);
  } else if (!strcmp(fn, "holds") && a0 && a0->kind == SYM_MACHINE && a1 &&
             a1->kind == SYM_RESOURCE) {
    if (a0->u.machine->env)
      buf_puts(b, "false /* environment machines hold nothing in C */");
    else
      buf_printf(b, "(sys->owner[%s_RES_%s] == %s_MACH_%s)", g->p, a1->u.res->name, g->p,
                 a0->u.machine->name);
  } else if (a0 && a0->kind == SYM_QUEUE &&
             (!strcmp(fn, "len") || !strcmp(fn, "empty") || !strcmp(fn, "full") ||
              !strcmp(fn, "head"))) {
    queue_expr(b, fn, a0->u.queue);
  } else {
    cg_error(g, e->loc, "'%s(...)' has no C translation", fn);
  }
}

void c_expr(CGen *g, Buf *b, Expr *e) {
  switch (e->kind) {
  case EX_NUM: buf_puts(b, c_int(e->num)); break;
  case EX_BOOL: buf_puts(b, e->num ? "true" : "false"); break;
  case EX_NAME: name_expr(g, b, e); break;
  case EX_FIELD:
    if (sym_var(e))
      var_expr(g, b, e, sym_var(e));
    else
      cg_error(g, e->loc, "unresolved variable '%s'", e->name);
    break;
  case EX_INDEX: index_expr(g, b, e); break;
  case EX_UNARY:
    buf_puts(b, e->op == OP_NOT ? "!" : "-");
    if (e->lhs->kind == EX_IN) {
      buf_puts(b, "(");
      c_expr(g, b, e->lhs);
      buf_puts(b, ")");
    } else {
      sub(g, b, e->lhs);
    }
    break;
  case EX_BINARY: binary_expr(g, b, e); break;
  case EX_IN: in_expr(g, b, e); break;
  case EX_CALL: call_expr(g, b, e); break;
  }
}

/* ---- actions ---- */

static void indent_to(Buf *b, int n) { buf_printf(b, "%*s", n, ""); }

/* rhs converted to type t, with a range check for integers. */
static void checked(CGen *g, Buf *b, Type *t, Expr *rhs, const char *prefix, Loc loc) {
  long k;
  HwCond *hv = rhs->sym && rhs->sym->kind == SYM_HWCOND ? rhs->sym->u.hwc : NULL;
  int fits = !prefix && ((const_value(rhs, &k) && k >= t->lo_v.c && k <= t->hi_v.c) ||
                         (hv && hv->type.kind == TY_INT && hv->type.lo_v.c >= t->lo_v.c &&
                          hv->type.hi_v.c <= t->hi_v.c)); /* the read is checked already */
  if (t->kind != TY_INT || fits) {
    if (t->kind == TY_INT)
      buf_printf(b, "(%s)", c_type(g, t));
    c_expr(g, b, rhs);
    return;
  }
  buf_printf(b, "(%s)%s__range(sys, %s", c_type(g, t), g->p, prefix ? prefix : "");
  if (prefix)
    sub(g, b, rhs);
  else
    c_expr(g, b, rhs);
  buf_printf(b, ", %s, %s, \"%s\")", c_int(t->lo_v.c), c_int(t->hi_v.c), esm_where(loc));
}

static void assign(CGen *g, Buf *b, Action *a, int ind) {
  Type *t = c_var_type(a->lhs);
  if (!t) {
    cg_error(g, a->loc, "cannot assign to this expression");
    return;
  }
  indent_to(b, ind);
  if (a->op == OP_NONE) {
    c_expr(g, b, a->lhs);
    buf_puts(b, " = ");
    checked(g, b, t, a->rhs, NULL, a->loc);
    buf_puts(b, ";\n");
    return;
  }
  /* x += e: an indexed target is named once, through a pointer, so its index check runs once. */
  const char *op = a->op == OP_ADD ? " + " : " - ";
  if (a->lhs->kind == EX_INDEX) {
    buf_printf(b, "{\n");
    indent_to(b, ind + 2);
    buf_printf(b, "%s *lv = &", c_type(g, t));
    c_expr(g, b, a->lhs);
    buf_puts(b, ";\n");
    indent_to(b, ind + 2);
    buf_puts(b, "*lv = ");
    checked(g, b, t, a->rhs, arena_printf("*lv%s", op), a->loc);
    buf_puts(b, ";\n");
    indent_to(b, ind);
    buf_puts(b, "}\n");
    return;
  }
  Buf lv = {0};
  c_expr(g, &lv, a->lhs);
  buf_printf(b, "%s = ", lv.data);
  checked(g, b, t, a->rhs, arena_printf("%s%s", lv.data, op), a->loc);
  buf_puts(b, ";\n");
  buf_free(&lv);
}

static void hwcall(CGen *g, Buf *b, Action *a, int ind) {
  HwAction *h = a->sym && a->sym->kind == SYM_HWACTION ? a->sym->u.hwa
                                                      : c_find_hwaction(g->sys, a->name);
  if (!h) {
    cg_error(g, a->loc, "unknown hardware action '%s'", a->name);
    return;
  }
  Buf call = {0};
  buf_printf(&call, "%s_hal_%s(sys", g->p, h->name);
  Param *p = h->params;
  for (Expr *e = a->args; e; e = e->next, p = p ? p->next : NULL) {
    buf_puts(&call, ",\n");
    if (p)
      checked(g, &call, &p->type, e, NULL, e->loc);
    else
      c_expr(g, &call, e);
  }
  /* One argument a line when the call does not fit in 100 columns. */
  int wide = call.len + (size_t)ind + 2 > 100;
  indent_to(b, ind);
  for (char *c = call.data; *c; c++) {
    buf_printf(b, "%c", *c);
    if (*c == '\n')
      indent_to(b, ind + 4);
    if (*c == ',' && c[1] == '\n' && !wide)
      c++, buf_puts(b, " ");
  }
  buf_puts(b, ");\n");
  buf_free(&call);
}

static void release(CGen *g, Buf *b, Action *a, int ind) {
  Resource *r = a->sym && a->sym->kind == SYM_RESOURCE ? a->sym->u.res
                                                      : c_find_resource(g->sys, a->name);
  if (!r || !g->m) {
    cg_error(g, a->loc, "unknown resource '%s'", a->name);
    return;
  }
  indent_to(b, ind);
  buf_printf(b, "%s__release(sys, %s_RES_%s, %s_MACH_%s, \"%s\");\n", g->p, g->p, r->name, g->p,
             g->m->name, esm_where(a->loc));
}

static Queue *action_queue(CGen *g, Action *a) {
  Queue *q = a->sym && a->sym->kind == SYM_QUEUE ? a->sym->u.queue
                                                : c_find_queue(g->sys, a->name);
  if (!q)
    cg_error(g, a->loc, "unknown queue '%s'", a->name);
  return q;
}

static void push(CGen *g, Buf *b, Action *a, int ind) {
  Queue *q = action_queue(g, a);
  if (!q)
    return;
  const char *ref = arena_printf("sys->q.%s", c_field(q->name));
  long depth = q->depth_v.c;
  indent_to(b, ind);
  buf_printf(b, "if (%s.len == %ld) {\n", ref, depth);
  indent_to(b, ind + 2);
  buf_printf(b, "%s__fault(sys, %s_FAULT_QUEUE_FULL, \"%s\");\n", g->p, g->p, esm_where(a->loc));
  indent_to(b, ind);
  buf_puts(b, "} else {\n");
  indent_to(b, ind + 2);
  buf_printf(b, "unsigned at = %s.head + %s.len;\n", ref, ref);
  indent_to(b, ind + 2);
  buf_printf(b, "%s.buf[at < %ldu ? at : at - %ldu] = ", ref, depth, depth);
  checked(g, b, &q->type, a->rhs, NULL, a->loc);
  buf_puts(b, ";\n");
  indent_to(b, ind + 2);
  buf_printf(b, "%s.len++;\n", ref);
  indent_to(b, ind);
  buf_puts(b, "}\n");
}

static void pop(CGen *g, Buf *b, Action *a, int ind) {
  Queue *q = action_queue(g, a);
  Type *t = c_var_type(a->lhs);
  if (!q || !t) {
    if (q)
      cg_error(g, a->loc, "cannot pop into this expression");
    return;
  }
  const char *ref = arena_printf("sys->q.%s", c_field(q->name));
  indent_to(b, ind);
  buf_printf(b, "if (%s.len == 0) {\n", ref);
  indent_to(b, ind + 2);
  buf_printf(b, "%s__fault(sys, %s_FAULT_QUEUE_EMPTY, \"%s\");\n", g->p, g->p, esm_where(a->loc));
  indent_to(b, ind);
  buf_puts(b, "} else {\n");
  if (!c_expr_ghost(a->lhs)) {
    Expr head = {.kind = EX_CALL, .loc = a->loc, .name = "head"};
    Expr qname = {.kind = EX_NAME, .loc = a->loc, .name = q->name};
    Sym qsym = {.kind = SYM_QUEUE, .name = q->name, .u.queue = q};
    qname.sym = &qsym;
    head.args = &qname;
    Action set = {.kind = AC_ASSIGN, .loc = a->loc, .op = OP_NONE, .lhs = a->lhs, .rhs = &head};
    assign(g, b, &set, ind + 2);
  }
  indent_to(b, ind + 2);
  buf_printf(b, "%s.head = (%s)(%s.head + 1u == %ldu ? 0 : %s.head + 1u);\n", ref,
             c_unsigned_type(q->depth_v.c), ref, q->depth_v.c, ref);
  indent_to(b, ind + 2);
  buf_printf(b, "%s.len--;\n", ref);
  indent_to(b, ind);
  buf_puts(b, "}\n");
}

static void if_action(CGen *g, Buf *b, Action *a, int ind, int chained) {
  if (!chained)
    indent_to(b, ind);
  buf_puts(b, "if (");
  c_expr(g, b, a->cond);
  buf_puts(b, ") {\n");
  c_actions(g, b, a->then, ind + 2);
  indent_to(b, ind);
  if (a->els && a->els->kind == AC_IF && !a->els->next && !c_expr_ghost(a->els->cond)) {
    buf_puts(b, "} else ");
    if_action(g, b, a->els, ind, 1);
    return;
  }
  if (a->els) {
    buf_puts(b, "} else {\n");
    c_actions(g, b, a->els, ind + 2);
    indent_to(b, ind);
  }
  buf_puts(b, "}\n");
}

/* Whether an action exists only in the model: it writes a ghost variable, or asserts or
 * branches on one (sema guarantees ghosts never flow into firmware state). */
static int ghost_action(Action *a) {
  switch (a->kind) {
  case AC_ASSIGN:
  case AC_CHOOSE: return c_expr_ghost(a->lhs);
  case AC_ASSERT:
  case AC_IF: return c_expr_ghost(a->cond);
  default: return 0;
  }
}

static void action(CGen *g, Buf *b, Action *a, int ind) {
  if (ghost_action(a)) {
    Buf t = {0};
    esm_print_actions(&t, &(Action){.kind = a->kind, .op = a->op, .lhs = a->lhs, .rhs = a->rhs,
                                    .cond = a->cond, .lo = a->lo, .hi = a->hi,
                                    .then = a->then, .els = a->els});
    indent_to(b, ind);
    buf_printf(b, "/* ghost, model only: %.60s%s */\n", t.data, t.len > 60 ? "..." : "");
    buf_free(&t);
    return;
  }
  switch (a->kind) {
  case AC_ASSIGN: assign(g, b, a, ind); break;
  case AC_RAISE:
    indent_to(b, ind);
    buf_printf(b, "(void)%s_raise(sys, ", g->p);
    c_expr(g, b, a->rhs);
    buf_puts(b, ");\n");
    break;
  case AC_RELEASE: release(g, b, a, ind); break;
  case AC_HWCALL: hwcall(g, b, a, ind); break;
  case AC_PUSH: push(g, b, a, ind); break;
  case AC_POP: pop(g, b, a, ind); break;
  case AC_IF: if_action(g, b, a, ind, 0); break;
  case AC_ASSERT:
    indent_to(b, ind);
    if (a->cond->kind == EX_UNARY && a->cond->op == OP_NOT) {
      buf_puts(b, "if (");
      c_expr(g, b, a->cond->lhs);
    } else {
      buf_puts(b, "if (!(");
      c_expr(g, b, a->cond);
      buf_puts(b, ")");
    }
    buf_puts(b, ")\n");
    indent_to(b, ind + 2);
    buf_printf(b, "%s__fault(sys, %s_FAULT_ASSERT, \"%s\");\n", g->p, g->p, esm_where(a->loc));
    break;
  case AC_CHOOSE: cg_error(g, a->loc, "'choose' is for environment machines only"); break;
  }
}

void c_actions(CGen *g, Buf *b, Action *a, int indent) {
  for (; a; a = a->next)
    action(g, b, a, indent);
}
