/* parse.c: ESM grammar (see esm/README.md for the manual):
 *
 *   file       = { decl }
 *   decl       = "system" IDENT ";"
 *              | "const" IDENT "=" expr [ "model" expr ] ";"
 *              | "event" evdecl { "," evdecl } ";"            evdecl = IDENT [ "capacity" expr ]
 *              | "resource" IDENT { "," IDENT } ";"
 *              | "hardware" "action" IDENT "(" [ param { "," param } ] ")" "->" IDENT
 *                  [ "depth" expr ] ";"
 *              | "hardware" "condition" IDENT [ "=" expr ] ";"
 *              | "hardware" "value" IDENT ":" type "=" expr ";"
 *              | "queue" IDENT "[" expr "]" "of" type ";"
 *              | vardecl
 *              | ( "machine" | "environment" ) IDENT "{" { vardecl | state } "}"
 *              | ( "always" | "eventually" | "reachable" ) IDENT ":" expr ";"
 *              | "leadsto" IDENT ":" expr "~>" expr ";"
 *              | "processor" NUM ":" IDENT { "," IDENT } ";"
 *   vardecl    = [ "ghost" ] "var" IDENT [ "[" expr "]" ] ":" type [ "=" expr ]
 *                [ "lock" IDENT ] ";"
 * `processor` and `lock` are contextual: names elsewhere, words only in these places.
 *   type       = "bool" | "event" | expr ".." expr
 *   state      = { "initial" | "yield" | "rest" } "state" IDENT "{" { transition } "}"
 *   transition = ( "on" trigger | "when" ) [ "[" expr "]" ] [ "/" actions ] "->" IDENT ";"
 *   trigger    = "acquire" IDENT | IDENT [ "(" IDENT { "," IDENT } ")" ]
 *   actions    = action { ";" action } [ ";" ]
 *   action     = lvalue ( "=" | "+=" | "-=" ) expr | "raise" expr | "release" IDENT
 *              | IDENT "(" [ args ] ")" | "push" "(" IDENT "," expr ")"
 *              | "pop" "(" IDENT "," lvalue ")" | "assert" expr
 *              | "choose" lvalue "in" expr ".." expr
 *              | "if" "(" expr ")" block [ "else" ( block | if-action ) ]
 *   block      = "{" [ actions ] "}"
 *   expr       = precedence climbing over || && (== != < <= > >=) (+ -) (* / %),
 *                unary ! -, postfix . [ ] ( ), and `IDENT in ( IDENT | "{" IDENT, ... "}" )`.
 */
#include "parse.h"

#include <setjmp.h>
#include <string.h>

#include "diag.h"
#include "lex.h"

typedef struct {
  Token *tok;
  int pos, n;
  System *sys;
  jmp_buf *recover;
  int depth;          /* nesting of expressions and blocks, bounded to protect the stack */
  /* Tails of the system's lists, so declarations append in source order. */
  Const **consts;
  Event **events;
  Resource **resources;
  HwAction **hwactions;
  HwCond **hwconds;
  Queue **queues;
  Var **globals;
  Machine **machines;
  Property **props;
  ProcDecl **procs;
} Parser;

#define TAIL_APPEND(tailp, node) \
  do {                           \
    *(tailp) = (node);           \
    (tailp) = &(node)->next;     \
  } while (0)

static Token *peek(Parser *p) { return &p->tok[p->pos]; }
static Token *peek_at(Parser *p, int k) {
  int i = p->pos + k;
  return &p->tok[i < p->n ? i : p->n - 1];
}
static Token *next(Parser *p) {
  Token *t = &p->tok[p->pos];
  if (t->kind != TK_EOF)
    p->pos++;
  return t;
}

static int is(Parser *p, const char *s) {
  Token *t = peek(p);
  return (t->kind == TK_PUNCT || t->kind == TK_KEYWORD) && strcmp(t->text, s) == 0;
}

/* A contextual word: an identifier token with this text. */
static int is_word(Parser *p, const char *s) {
  Token *t = peek(p);
  return t->kind == TK_IDENT && strcmp(t->text, s) == 0;
}

static int accept(Parser *p, const char *s) {
  if (!is(p, s))
    return 0;
  next(p);
  return 1;
}

static const char *describe(Token *t) {
  switch (t->kind) {
  case TK_EOF: return "end of file";
  case TK_NUM: return arena_printf("number '%s'", t->text);
  case TK_IDENT: return arena_printf("identifier '%s'", t->text);
  case TK_KEYWORD: return arena_printf("keyword '%s'", t->text);
  default: return arena_printf("'%s'", t->text);
  }
}

static _Noreturn void syntax_error(Parser *p, const char *expected) {
  Token *t = peek(p);
  error_at(t->loc, "expected %s, found %s", expected, describe(t));
  longjmp(*p->recover, 1);
}

static void expect(Parser *p, const char *s) {
  if (!accept(p, s))
    syntax_error(p, arena_printf("'%s'", s));
}

static Token *expect_ident(Parser *p, const char *what) {
  Token *t = peek(p);
  if (t->kind != TK_IDENT) {
    if (t->kind == TK_KEYWORD)
      error_at(t->loc, "expected %s, found keyword '%s' (keywords cannot be used as names)",
               what, t->text);
    else
      error_at(t->loc, "expected %s, found %s", what, describe(t));
    longjmp(*p->recover, 1);
  }
  return next(p);
}

/* Error recovery: skip to just after the next ';' at the current brace depth, or stop before
 * a '}' that closes the enclosing block. */
static void skip_to_sync(Parser *p) {
  int depth = 0;
  for (;;) {
    Token *t = peek(p);
    if (t->kind == TK_EOF)
      return;
    if (t->kind == TK_PUNCT) {
      if (!strcmp(t->text, "{"))
        depth++;
      else if (!strcmp(t->text, "}")) {
        if (depth == 0)
          return;
        if (--depth == 0) {
          next(p);
          return;
        }
      } else if (!strcmp(t->text, ";") && depth == 0) {
        next(p);
        return;
      }
    }
    next(p);
  }
}

/* Error recovery inside a state: skip the rest of a broken transition, up to just after its
 * `-> Target ;`, or to the next `on`, `when` or `}` that starts the next item. */
static void skip_transition(Parser *p) {
  int depth = 0, first = 1;
  for (;; first = 0) {
    Token *t = peek(p);
    if (t->kind == TK_EOF)
      return;
    if (depth == 0 && !first && (is(p, "on") || is(p, "when")))
      return;
    if (t->kind == TK_PUNCT && !strcmp(t->text, "{"))
      depth++;
    if (t->kind == TK_PUNCT && !strcmp(t->text, "}") && depth-- == 0)
      return;
    if (depth == 0 && is(p, "->") && peek_at(p, 1)->kind == TK_IDENT &&
        !strcmp(peek_at(p, 2)->text, ";")) {
      p->pos += 3;
      return;
    }
    next(p);
  }
}

/* ---- expressions ---- */

enum { MAX_NESTING = 200 };

static void enter(Parser *p) {
  if (++p->depth > MAX_NESTING) {
    error_at(peek(p)->loc, "nested too deeply (more than %d levels)", MAX_NESTING);
    p->depth = 0;
    longjmp(*p->recover, 1);
  }
}

static Expr *new_expr(ExprKind kind, Loc loc) {
  Expr *e = arena_alloc(sizeof(Expr));
  e->kind = kind;
  e->loc = loc;
  return e;
}

static Expr *expr(Parser *p);

static Expr *call_args(Parser *p) {
  Expr head = {0}, *tail = &head;
  if (!is(p, ")")) {
    do {
      tail = tail->next = expr(p);
    } while (accept(p, ","));
  }
  expect(p, ")");
  return head.next;
}

static Expr *primary(Parser *p) {
  Token *t = peek(p);
  if (t->kind == TK_NUM) {
    next(p);
    Expr *e = new_expr(EX_NUM, t->loc);
    e->num = t->num;
    return e;
  }
  if (is(p, "true") || is(p, "false")) {
    next(p);
    Expr *e = new_expr(EX_BOOL, t->loc);
    e->num = !strcmp(t->text, "true");
    return e;
  }
  if (accept(p, "(")) {
    Expr *e = expr(p);
    expect(p, ")");
    return e;
  }
  if (t->kind == TK_IDENT) {
    next(p);
    if (accept(p, "(")) {
      Expr *e = new_expr(EX_CALL, t->loc);
      e->name = t->text;
      e->args = call_args(p);
      return e;
    }
    Expr *e = new_expr(EX_NAME, t->loc);
    e->name = t->text;
    return e;
  }
  syntax_error(p, "an expression");
}

static Expr *postfix(Parser *p) {
  Expr *e = primary(p);
  for (;;) {
    Token *t = peek(p);
    if (accept(p, ".")) {
      Token *f = expect_ident(p, "a variable name after '.'");
      Expr *x = new_expr(EX_FIELD, t->loc);
      x->lhs = e;
      x->name = f->text;
      x->loc = f->loc;
      e = x;
    } else if (accept(p, "[")) {
      Expr *x = new_expr(EX_INDEX, t->loc);
      x->lhs = e;
      x->rhs = expr(p);
      expect(p, "]");
      e = x;
    } else {
      return e;
    }
  }
}

static Expr *unary(Parser *p) {
  Token *t = peek(p);
  if (accept(p, "!") || accept(p, "-")) {
    Expr *e = new_expr(EX_UNARY, t->loc);
    e->op = t->text[0] == '!' ? OP_NOT : OP_NEG;
    enter(p);
    e->lhs = unary(p);
    p->depth--;
    return e;
  }
  return postfix(p);
}

static const struct {
  const char *tok;
  Op op;
  int prec;
} binops[] = {
  {"||", OP_OR, 1}, {"&&", OP_AND, 2},
  {"==", OP_EQ, 3}, {"!=", OP_NE, 3}, {"<", OP_LT, 3}, {"<=", OP_LE, 3}, {">", OP_GT, 3},
  {">=", OP_GE, 3},
  {"+", OP_ADD, 5}, {"-", OP_SUB, 5},
  {"*", OP_MUL, 6}, {"/", OP_DIV, 6}, {"%", OP_MOD, 6},
};
enum { IN_PREC = 4 };

static Expr *in_expr(Parser *p, Expr *lhs, Loc loc) {
  if (lhs->kind != EX_NAME) {
    error_at(lhs->loc, "the left side of 'in' must be a machine name");
    longjmp(*p->recover, 1);
  }
  Expr *e = new_expr(EX_IN, loc);
  e->name = lhs->name;
  e->loc = lhs->loc;
  NameList head = {0}, *tail = &head;
  int braced = accept(p, "{");
  do {
    Token *s = expect_ident(p, "a state name");
    NameList *n = arena_alloc(sizeof(NameList));
    n->name = s->text;
    n->loc = s->loc;
    tail = tail->next = n;
  } while (braced && accept(p, ","));
  if (braced)
    expect(p, "}");
  e->states = head.next;
  return e;
}

static Expr *binary(Parser *p, int min_prec) {
  Expr *lhs = unary(p);
  for (;;) {
    Token *t = peek(p);
    if (is(p, "in") && IN_PREC >= min_prec) {
      next(p);
      lhs = in_expr(p, lhs, t->loc);
      continue;
    }
    int found = -1;
    if (t->kind == TK_PUNCT)
      for (size_t i = 0; i < sizeof binops / sizeof binops[0]; i++)
        if (!strcmp(t->text, binops[i].tok) && binops[i].prec >= min_prec) {
          found = (int)i;
          break;
        }
    if (found < 0)
      return lhs;
    next(p);
    Expr *e = new_expr(EX_BINARY, t->loc);
    e->op = binops[found].op;
    e->lhs = lhs;
    e->rhs = binary(p, binops[found].prec + 1);
    lhs = e;
  }
}

static Expr *expr(Parser *p) {
  enter(p);
  Expr *e = binary(p, 1);
  p->depth--;
  return e;
}

/* ---- types and variables ---- */

static Type type(Parser *p) {
  Type ty = {0};
  ty.loc = peek(p)->loc;
  if (accept(p, "bool")) {
    ty.kind = TY_BOOL;
  } else if (accept(p, "event")) {
    ty.kind = TY_EVENT;
  } else {
    ty.kind = TY_INT;
    ty.lo = binary(p, 5);
    expect(p, "..");
    ty.hi = binary(p, 5);
  }
  return ty;
}

static Var *vardecl(Parser *p, Machine *owner) {
  Var *v = arena_alloc(sizeof(Var));
  v->ghost = accept(p, "ghost");
  expect(p, "var");
  Token *name = expect_ident(p, "a variable name");
  v->name = name->text;
  v->loc = name->loc;
  v->owner = owner;
  if (accept(p, "[")) {
    v->size = expr(p);
    expect(p, "]");
  }
  expect(p, ":");
  v->type = type(p);
  if (accept(p, "="))
    v->init = expr(p);
  if (is_word(p, "lock")) {
    next(p);
    Token *res = expect_ident(p, "the resource that locks this variable");
    v->lock_name = res->text;
    v->lock_loc = res->loc;
  }
  expect(p, ";");
  return v;
}

/* ---- actions ---- */

static Action *action_list(Parser *p, const char *end);

static Action *new_action(ActionKind kind, Loc loc) {
  Action *a = arena_alloc(sizeof(Action));
  a->kind = kind;
  a->loc = loc;
  return a;
}

static Action *block(Parser *p) {
  expect(p, "{");
  enter(p);
  Action *a = is(p, "}") ? NULL : action_list(p, "}");
  p->depth--;
  expect(p, "}");
  return a;
}

static Action *action(Parser *p) {
  Token *t = peek(p);
  Loc loc = t->loc;
  if (accept(p, "raise")) {
    Action *a = new_action(AC_RAISE, loc);
    a->rhs = expr(p);
    return a;
  }
  if (accept(p, "release")) {
    Action *a = new_action(AC_RELEASE, loc);
    Token *r = expect_ident(p, "a resource name");
    a->name = r->text;
    a->loc = r->loc;
    return a;
  }
  if (accept(p, "assert")) {
    Action *a = new_action(AC_ASSERT, loc);
    a->cond = expr(p);
    return a;
  }
  if (accept(p, "choose")) {
    Action *a = new_action(AC_CHOOSE, loc);
    a->lhs = postfix(p);
    expect(p, "in");
    a->lo = binary(p, 5);
    expect(p, "..");
    a->hi = binary(p, 5);
    return a;
  }
  if (accept(p, "push") || accept(p, "pop")) {
    int push = !strcmp(t->text, "push");
    Action *a = new_action(push ? AC_PUSH : AC_POP, loc);
    expect(p, "(");
    Token *q = expect_ident(p, "a queue name");
    a->name = q->text;
    expect(p, ",");
    if (push)
      a->rhs = expr(p);
    else
      a->lhs = postfix(p);
    expect(p, ")");
    return a;
  }
  if (accept(p, "if")) {
    Action *a = new_action(AC_IF, loc);
    expect(p, "(");
    a->cond = expr(p);
    expect(p, ")");
    a->then = block(p);
    if (accept(p, "else"))
      a->els = is(p, "if") ? action(p) : block(p);
    return a;
  }
  if (t->kind == TK_IDENT && !strcmp(peek_at(p, 1)->text, "(") &&
      peek_at(p, 1)->kind == TK_PUNCT) {
    next(p);
    next(p);
    Action *a = new_action(AC_HWCALL, loc);
    a->name = t->text;
    a->args = call_args(p);
    return a;
  }
  if (t->kind != TK_IDENT)
    syntax_error(p, "an action (assignment, raise, release, push, pop, if, assert, choose or a "
                    "hardware action)");
  Action *a = new_action(AC_ASSIGN, loc);
  a->lhs = postfix(p);
  Token *op = peek(p);
  if (accept(p, "="))
    a->op = OP_NONE;
  else if (accept(p, "+="))
    a->op = OP_ADD;
  else if (accept(p, "-="))
    a->op = OP_SUB;
  else
    syntax_error(p, "'=', '+=' or '-=' in an assignment");
  a->loc = op->loc;
  a->rhs = expr(p);
  return a;
}

/* Actions separated by ';', up to (not including) the token `end`. */
static Action *action_list(Parser *p, const char *end) {
  Action head = {0}, *tail = &head;
  for (;;) {
    tail = tail->next = action(p);
    if (tail->kind == AC_IF && !is(p, ";") && !is(p, end))
      continue; /* a block needs no ';' after it */
    if (!accept(p, ";") || is(p, end))
      break;
  }
  return head.next;
}

/* ---- machines ---- */

static Transition *transition(Parser *p) {
  Transition *tr = arena_alloc(sizeof(Transition));
  Token *kw = next(p);
  tr->loc = kw->loc;
  if (!strcmp(kw->text, "when")) {
    tr->trig = TR_WHEN;
  } else if (accept(p, "acquire")) {
    tr->trig = TR_ACQUIRE;
    Token *r = expect_ident(p, "a resource name after 'acquire'");
    tr->trig_name = r->text;
    tr->trig_loc = r->loc;
  } else {
    Token *e = expect_ident(p, "an event name or 'acquire' after 'on'");
    tr->trig = TR_EVENT;
    tr->trig_name = e->text;
    tr->trig_loc = e->loc;
    if (accept(p, "(")) {
      tr->trig = TR_HWMSG;
      NameList head = {0}, *tail = &head;
      if (!is(p, ")")) {
        do {
          Token *v = expect_ident(p, "a variable to receive a hardware request argument");
          NameList *n = arena_alloc(sizeof(NameList));
          n->name = v->text;
          n->loc = v->loc;
          tail = tail->next = n;
        } while (accept(p, ","));
      }
      expect(p, ")");
      tr->binds = head.next;
    }
  }
  if (accept(p, "[")) {
    tr->guard = expr(p);
    expect(p, "]");
  }
  if (accept(p, "/") && !is(p, "->"))
    tr->actions = action_list(p, "->");
  expect(p, "->");
  Token *target = expect_ident(p, "a target state name after '->'");
  tr->target_name = target->text;
  tr->target_loc = target->loc;
  expect(p, ";");
  return tr;
}

static State *state(Parser *p, Machine *m) {
  State *s = arena_alloc(sizeof(State));
  for (;;) {
    Token *t = peek(p);
    int flag = accept(p, "initial") ? ST_INITIAL : accept(p, "yield") ? ST_YIELD
               : accept(p, "rest")  ? ST_REST
                                    : 0;
    if (!flag)
      break;
    if (s->flags & flag)
      error_at(t->loc, "'%s' given twice", t->text);
    s->flags |= flag;
  }
  expect(p, "state");
  Token *name = expect_ident(p, "a state name");
  s->name = name->text;
  s->loc = name->loc;
  s->machine = m;
  expect(p, "{");
  Transition **volatile tail = &s->trans;
  jmp_buf here, *outer = p->recover;
  while (!is(p, "}") && peek(p)->kind != TK_EOF) {
    p->recover = &here;
    if (setjmp(here)) {
      p->depth = 0;
      skip_transition(p);
      continue;
    }
    if (!is(p, "on") && !is(p, "when"))
      syntax_error(p, "'on', 'when' or '}' in a state");
    Transition *tr = transition(p);
    TAIL_APPEND(tail, tr);
  }
  p->recover = outer;
  expect(p, "}");
  return s;
}

static void machine(Parser *p, int env) {
  Machine *m = arena_alloc(sizeof(Machine));
  m->env = env;
  Token *name = expect_ident(p, "a machine name");
  m->name = name->text;
  m->loc = name->loc;
  TAIL_APPEND(p->machines, m);
  expect(p, "{");
  Var **volatile vtail = &m->vars;
  State **volatile stail = &m->states;
  jmp_buf here, *outer = p->recover;
  while (!is(p, "}") && peek(p)->kind != TK_EOF) {
    p->recover = &here;
    if (setjmp(here)) {
      p->depth = 0;
      skip_to_sync(p);
      continue;
    }
    if (is(p, "var") || is(p, "ghost")) {
      Var *v = vardecl(p, m);
      TAIL_APPEND(vtail, v);
    } else if (is(p, "state") || is(p, "initial") || is(p, "yield") || is(p, "rest")) {
      State *s = state(p, m);
      TAIL_APPEND(stail, s);
    } else {
      syntax_error(p, "'var', 'state' or '}' in a machine");
    }
  }
  p->recover = outer;
  expect(p, "}");
}

/* ---- top level ---- */

static void hardware(Parser *p) {
  if (accept(p, "action")) {
    HwAction *h = arena_alloc(sizeof(HwAction));
    Token *name = expect_ident(p, "a hardware action name");
    h->name = name->text;
    h->loc = name->loc;
    expect(p, "(");
    Param **tail = &h->params;
    if (!is(p, ")")) {
      do {
        Param *pa = arena_alloc(sizeof(Param));
        Token *pn = expect_ident(p, "a parameter name");
        pa->name = pn->text;
        pa->loc = pn->loc;
        expect(p, ":");
        pa->type = type(p);
        TAIL_APPEND(tail, pa);
        h->nparams++;
      } while (accept(p, ","));
    }
    expect(p, ")");
    expect(p, "->");
    Token *env = expect_ident(p, "the environment machine that serves this action");
    h->env_name = env->text;
    h->env_loc = env->loc;
    if (accept(p, "depth"))
      h->depth = expr(p);
    expect(p, ";");
    TAIL_APPEND(p->hwactions, h);
  } else if (accept(p, "condition")) {
    HwCond *c = arena_alloc(sizeof(HwCond));
    Token *name = expect_ident(p, "a hardware condition name");
    c->name = name->text;
    c->loc = name->loc;
    c->type.kind = TY_BOOL;
    if (accept(p, "="))
      c->model = expr(p);
    expect(p, ";");
    TAIL_APPEND(p->hwconds, c);
  } else if (accept(p, "value")) {
    HwCond *c = arena_alloc(sizeof(HwCond));
    Token *name = expect_ident(p, "a hardware value name");
    c->name = name->text;
    c->loc = name->loc;
    expect(p, ":");
    c->type = type(p);
    if (c->type.kind != TY_INT) {
      error_at(c->type.loc, "a hardware value is an integer range (use `hardware condition` for "
               "a yes/no question)");
      longjmp(*p->recover, 1);
    }
    expect(p, "=");
    c->model = expr(p);
    expect(p, ";");
    TAIL_APPEND(p->hwconds, c);
  } else {
    syntax_error(p, "'action', 'condition' or 'value' after 'hardware'");
  }
}

static void property(Parser *p, Token *kw) {
  Property *pr = arena_alloc(sizeof(Property));
  pr->kind = !strcmp(kw->text, "always")       ? PR_ALWAYS
             : !strcmp(kw->text, "eventually") ? PR_EVENTUALLY
             : !strcmp(kw->text, "leadsto")    ? PR_LEADSTO
                                               : PR_REACHABLE;
  Token *name = expect_ident(p, "a property name");
  pr->name = name->text;
  pr->loc = name->loc;
  expect(p, ":");
  pr->p = expr(p);
  if (pr->kind == PR_LEADSTO) {
    expect(p, "~>");
    pr->q = expr(p);
  }
  expect(p, ";");
  TAIL_APPEND(p->props, pr);
}

static void processor(Parser *p) {
  ProcDecl *d = arena_alloc(sizeof(ProcDecl));
  next(p);
  Token *num = peek(p);
  if (num->kind != TK_NUM)
    syntax_error(p, "a processor number");
  next(p);
  d->num = num->num;
  d->loc = num->loc;
  expect(p, ":");
  NameList **tail = &d->machines;
  do {
    NameList *n = arena_alloc(sizeof(NameList));
    Token *name = expect_ident(p, "a machine name");
    n->name = name->text;
    n->loc = name->loc;
    TAIL_APPEND(tail, n);
  } while (accept(p, ","));
  expect(p, ";");
  TAIL_APPEND(p->procs, d);
}

static void decl(Parser *p) {
  Token *t = peek(p);
  if (is_word(p, "processor")) {
    processor(p);
  } else if (accept(p, "system")) {
    Token *name = expect_ident(p, "a system name");
    if (p->sys->name && strcmp(p->sys->name, name->text) != 0)
      error_at(name->loc, "system already named '%s'", p->sys->name);
    p->sys->name = name->text;
    p->sys->loc = name->loc;
    expect(p, ";");
  } else if (accept(p, "const")) {
    Const *c = arena_alloc(sizeof(Const));
    Token *name = expect_ident(p, "a constant name");
    c->name = name->text;
    c->loc = name->loc;
    expect(p, "=");
    c->value = expr(p);
    if (accept(p, "model"))
      c->model = expr(p);
    expect(p, ";");
    TAIL_APPEND(p->consts, c);
  } else if (accept(p, "event")) {
    do {
      Event *e = arena_alloc(sizeof(Event));
      Token *name = expect_ident(p, "an event name");
      e->name = name->text;
      e->loc = name->loc;
      if (accept(p, "capacity"))
        e->capacity = binary(p, 3);
      TAIL_APPEND(p->events, e);
    } while (accept(p, ","));
    expect(p, ";");
  } else if (accept(p, "resource")) {
    do {
      Resource *r = arena_alloc(sizeof(Resource));
      Token *name = expect_ident(p, "a resource name");
      r->name = name->text;
      r->loc = name->loc;
      TAIL_APPEND(p->resources, r);
    } while (accept(p, ","));
    expect(p, ";");
  } else if (accept(p, "hardware")) {
    hardware(p);
  } else if (accept(p, "queue")) {
    Queue *q = arena_alloc(sizeof(Queue));
    Token *name = expect_ident(p, "a queue name");
    q->name = name->text;
    q->loc = name->loc;
    expect(p, "[");
    q->depth = expr(p);
    expect(p, "]");
    expect(p, "of");
    q->type = type(p);
    expect(p, ";");
    TAIL_APPEND(p->queues, q);
  } else if (is(p, "var") || is(p, "ghost")) {
    Var *v = vardecl(p, NULL);
    TAIL_APPEND(p->globals, v);
  } else if (accept(p, "machine") || accept(p, "environment")) {
    machine(p, !strcmp(t->text, "environment"));
  } else if (accept(p, "always") || accept(p, "eventually") || accept(p, "leadsto") ||
             accept(p, "reachable")) {
    property(p, t);
  } else {
    syntax_error(p, "a declaration (system, const, event, resource, hardware, queue, var, "
                    "machine, environment, processor, or a property)");
  }
}

/* Finds the tail pointer of a list whose nodes start with a `next` field. */
#define FIND_TAIL(field, type) \
  do {                         \
    p.field = &sys->field;     \
    while (*p.field)           \
      p.field = (type **)&(*p.field)->next; \
  } while (0)

void parse_source(System **sysp, const char *file, const char *text) {
  if (!*sysp)
    *sysp = arena_alloc(sizeof(System));
  System *sys = *sysp;
  Parser p = {0};
  p.sys = sys;
  p.tok = lex(file, text, &p.n);
  FIND_TAIL(consts, Const);
  FIND_TAIL(events, Event);
  FIND_TAIL(resources, Resource);
  FIND_TAIL(hwactions, HwAction);
  FIND_TAIL(hwconds, HwCond);
  FIND_TAIL(queues, Queue);
  FIND_TAIL(globals, Var);
  FIND_TAIL(machines, Machine);
  FIND_TAIL(props, Property);
  FIND_TAIL(procs, ProcDecl);

  jmp_buf top;
  while (peek(&p)->kind != TK_EOF) {
    p.recover = &top;
    if (setjmp(top)) {
      p.depth = 0;
      skip_to_sync(&p);
      if (is(&p, "}"))
        next(&p); /* a stray '}' at top level */
      continue;
    }
    decl(&p);
  }
}
