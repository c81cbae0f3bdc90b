/* esm_print.c: prints expressions, actions and transitions back as ESM source text, for the
 * comments of the generated C and PROMELA and the edge labels of the diagrams. */
#include <string.h>

#include "esm_print.h"

const char *esm_op_text(Op op) {
  switch (op) {
  case OP_ADD: return "+";
  case OP_SUB: return "-";
  case OP_MUL: return "*";
  case OP_DIV: return "/";
  case OP_MOD: return "%";
  case OP_EQ: return "==";
  case OP_NE: return "!=";
  case OP_LT: return "<";
  case OP_LE: return "<=";
  case OP_GT: return ">";
  case OP_GE: return ">=";
  case OP_AND: return "&&";
  case OP_OR: return "||";
  case OP_NOT: return "!";
  case OP_NEG: return "-";
  default: return "?";
  }
}

/* Binding strength, as in parse.c: higher binds tighter. */
static int prec(Expr *e) {
  switch (e->kind) {
  case EX_BINARY:
    switch (e->op) {
    case OP_OR: return 1;
    case OP_AND: return 2;
    case OP_ADD: case OP_SUB: return 5;
    case OP_MUL: case OP_DIV: case OP_MOD: return 6;
    default: return 3;
    }
  case EX_IN: return 4;
  case EX_UNARY: return 7;
  default: return 8;
  }
}

static void print_sub(Buf *b, Expr *e, int min) {
  if (prec(e) < min) {
    buf_puts(b, "(");
    esm_print_expr(b, e);
    buf_puts(b, ")");
  } else {
    esm_print_expr(b, e);
  }
}

static void print_args(Buf *b, Expr *args) {
  buf_puts(b, "(");
  for (Expr *a = args; a; a = a->next) {
    esm_print_expr(b, a);
    if (a->next)
      buf_puts(b, ", ");
  }
  buf_puts(b, ")");
}

void esm_print_expr(Buf *b, Expr *e) {
  switch (e->kind) {
  case EX_NUM: buf_printf(b, "%ld", e->num); break;
  case EX_BOOL: buf_puts(b, e->num ? "true" : "false"); break;
  case EX_NAME: buf_puts(b, e->name); break;
  case EX_FIELD:
    print_sub(b, e->lhs, 8);
    buf_printf(b, ".%s", e->name);
    break;
  case EX_INDEX:
    print_sub(b, e->lhs, 8);
    buf_puts(b, "[");
    esm_print_expr(b, e->rhs);
    buf_puts(b, "]");
    break;
  case EX_UNARY:
    buf_puts(b, esm_op_text(e->op));
    print_sub(b, e->lhs, 7);
    break;
  case EX_BINARY:
    print_sub(b, e->lhs, prec(e));
    buf_printf(b, " %s ", esm_op_text(e->op));
    print_sub(b, e->rhs, prec(e) + 1);
    break;
  case EX_IN: {
    int many = e->states && e->states->next;
    buf_printf(b, "%s in %s", e->name, many ? "{" : "");
    for (NameList *n = e->states; n; n = n->next)
      buf_printf(b, "%s%s", n->name, n->next ? ", " : "");
    if (many)
      buf_puts(b, "}");
    break;
  }
  case EX_CALL:
    buf_puts(b, e->name);
    print_args(b, e->args);
    break;
  }
}

void esm_print_type(Buf *b, Type *t) {
  if (t->kind == TY_BOOL) {
    buf_puts(b, "bool");
  } else if (t->kind == TY_EVENT) {
    buf_puts(b, "event");
  } else {
    esm_print_expr(b, t->lo);
    buf_puts(b, "..");
    esm_print_expr(b, t->hi);
  }
}

static void print_action(Buf *b, Action *a) {
  switch (a->kind) {
  case AC_ASSIGN:
    esm_print_expr(b, a->lhs);
    buf_puts(b, a->op == OP_ADD ? " += " : a->op == OP_SUB ? " -= " : " = ");
    esm_print_expr(b, a->rhs);
    break;
  case AC_RAISE:
    buf_puts(b, "raise ");
    esm_print_expr(b, a->rhs);
    break;
  case AC_RELEASE: buf_printf(b, "release %s", a->name); break;
  case AC_HWCALL:
    buf_puts(b, a->name);
    print_args(b, a->args);
    break;
  case AC_PUSH:
    buf_printf(b, "push(%s, ", a->name);
    esm_print_expr(b, a->rhs);
    buf_puts(b, ")");
    break;
  case AC_POP:
    buf_printf(b, "pop(%s, ", a->name);
    esm_print_expr(b, a->lhs);
    buf_puts(b, ")");
    break;
  case AC_IF:
    buf_puts(b, "if (");
    esm_print_expr(b, a->cond);
    buf_puts(b, ") { ");
    esm_print_actions(b, a->then);
    buf_puts(b, a->then ? " }" : "}");
    if (a->els && a->els->kind == AC_IF && !a->els->next) {
      buf_puts(b, " else ");
      print_action(b, a->els);
    } else if (a->els) {
      buf_puts(b, " else { ");
      esm_print_actions(b, a->els);
      buf_puts(b, " }");
    }
    break;
  case AC_ASSERT:
    buf_puts(b, "assert ");
    esm_print_expr(b, a->cond);
    break;
  case AC_CHOOSE:
    buf_puts(b, "choose ");
    esm_print_expr(b, a->lhs);
    buf_puts(b, " in ");
    esm_print_expr(b, a->lo);
    buf_puts(b, "..");
    esm_print_expr(b, a->hi);
    break;
  }
}

void esm_print_actions(Buf *b, Action *a) {
  for (; a; a = a->next) {
    print_action(b, a);
    if (a->next)
      buf_puts(b, "; ");
  }
}

void esm_print_trigger(Buf *b, Transition *t) {
  switch (t->trig) {
  case TR_EVENT: buf_puts(b, t->trig_name); break;
  case TR_ACQUIRE: buf_printf(b, "acquire %s", t->trig_name); break;
  case TR_WHEN: buf_puts(b, "when"); break;
  case TR_HWMSG:
    buf_printf(b, "%s(", t->trig_name);
    for (NameList *n = t->binds; n; n = n->next)
      buf_printf(b, "%s%s", n->name, n->next ? ", " : "");
    buf_puts(b, ")");
    break;
  }
}

void esm_print_label(Buf *b, Transition *t) {
  esm_print_trigger(b, t);
  if (t->guard) {
    buf_puts(b, " [");
    esm_print_expr(b, t->guard);
    buf_puts(b, "]");
  }
  if (t->actions) {
    buf_puts(b, " / ");
    esm_print_actions(b, t->actions);
  }
}

char *esm_transition_text(State *s, Transition *t, size_t max) {
  Buf b = {0};
  buf_printf(&b, "%s: %s", s->name, t->trig == TR_WHEN ? "" : "on ");
  esm_print_label(&b, t);
  buf_printf(&b, " -> %s", t->target_name);
  if (b.len > max && max > 3) {
    b.len = max - 3;
    memcpy(b.data + b.len, "...", 4);
  }
  char *text = arena_strdup(b.data);
  buf_free(&b);
  return text;
}

const char *esm_where(Loc loc) {
  const char *file = loc.file ? loc.file : "?";
  const char *slash = strrchr(file, '/');
  return arena_printf("%s:%d", slash ? slash + 1 : file, loc.line);
}

const char *esm_source_name(System *sys) {
  const char *file = sys->loc.file;
  for (Machine *m = sys->machines; !file && m; m = m->next)
    file = m->loc.file;
  for (Event *e = sys->events; !file && e; e = e->next)
    file = e->loc.file;
  if (!file)
    return "?";
  const char *slash = strrchr(file, '/');
  return slash ? slash + 1 : file;
}
