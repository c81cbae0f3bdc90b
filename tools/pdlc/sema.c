/* Semantic analysis: resolves every variable use, lays variables out in data words in
 * declaration order, and rejects what the VM would only catch at run time when the compiler
 * can see it already (constant indexes and transfer lengths out of bounds). */
#include "sema.h"

#include <string.h>

#include "vm_format.h"

struct sema {
  struct program *prog;
  struct diag *d;
};

static const struct var *lookup(const struct program *prog, const char *name) {
  for (const struct var_list *vl = prog->vars; vl != NULL; vl = vl->next)
    if (strcmp(vl->v.name, name) == 0) return &vl->v;
  return NULL;
}

static void layout(struct sema *s) {
  uint64_t words = 0;
  for (struct var_list *vl = s->prog->vars; vl != NULL; vl = vl->next) {
    const struct var *first = lookup(s->prog, vl->v.name);
    if (first != &vl->v) {
      diag_error(s->d, vl->v.pos, "variable '%s' is already declared", vl->v.name);
      diag_note(s->d, first->pos, "previous declaration of '%s' is here", first->name);
    }
    vl->v.base = (uint32_t)(words < VM_MAX_DATA ? words : 0);
    words += vl->v.size ? vl->v.size : 1;
    if (words > VM_MAX_DATA && words - (vl->v.size ? vl->v.size : 1) <= VM_MAX_DATA)
      diag_error(s->d, vl->v.pos, "variables need more than %u words of data", VM_MAX_DATA);
  }
  s->prog->data_words = (uint32_t)(words <= VM_MAX_DATA ? words : VM_MAX_DATA);
}

static int is_const(const struct expr *e) { return e != NULL && e->kind == E_NUM; }

static void check_expr(struct sema *s, struct expr *e);

/* in_transfer: SEND/DELIVER/GET/RECEIVE name a whole array by its bare name (from element 0). */
static void check_ref(struct sema *s, struct ref *r, int in_transfer) {
  r->var = lookup(s->prog, r->name);
  if (r->index != NULL) check_expr(s, r->index);
  if (r->var == NULL) {
    diag_error(s->d, r->pos, "undeclared variable '%s'", r->name);
    return;
  }
  if (r->var->size == 0 && r->index != NULL) {
    diag_error(s->d, r->pos, "'%s' is not an array", r->name);
  } else if (r->var->size > 0 && r->index == NULL && !in_transfer) {
    diag_error(s->d, r->pos, "array '%s' needs an index", r->name);
  } else if (is_const(r->index) && r->index->num >= r->var->size) {
    diag_error(s->d, r->index->pos, "index %u is out of bounds for '%s[%u]'", r->index->num,
               r->name, r->var->size);
  }
}

static void check_expr(struct sema *s, struct expr *e) {
  if (e == NULL) return;
  if (e->kind == E_REF) check_ref(s, &e->ref, 0);
  check_expr(s, e->a);
  check_expr(s, e->b);
  if (e->kind == E_BINARY && (e->op == P_SLASH || e->op == P_PERCENT) && is_const(e->b) &&
      e->b->num == 0)
    diag_error(s->d, e->pos, "division by zero");
}

/* A constant LEN must fit in the variable from the (constant or first) element on. */
static void check_len(struct sema *s, struct stmt *st) {
  const struct var *v = st->ref.var;
  const struct expr *len = st->e[X_LEN];
  if (v == NULL || !is_const(len)) return;
  uint32_t words = v->size ? v->size : 1, first = 0;
  if (st->ref.index != NULL) {
    if (!is_const(st->ref.index) || st->ref.index->num >= words) return;
    first = st->ref.index->num;
  }
  uint64_t avail = (uint64_t)(words - first) * 4u;
  if (len->num > avail)
    diag_error(s->d, len->pos, "LEN %u exceeds the %llu bytes of '%s' from element %u", len->num,
               (unsigned long long)avail, v->name, first);
}

static void check_stmts(struct sema *s, struct stmt *st) {
  for (; st != NULL; st = st->next) {
    switch (st->kind) {
    case S_ASSIGN: check_ref(s, &st->ref, 0); break;
    case S_SEND:
    case S_DELIVER:
    case S_GET:
    case S_RECEIVE:
      check_ref(s, &st->ref, 1);
      check_len(s, st);
      break;
    default: break;
    }
    check_expr(s, st->value);
    for (int i = 0; i < X_NSLOTS; i++) check_expr(s, st->e[i]);
    check_stmts(s, st->body);
    check_stmts(s, st->els);
  }
}

static const struct trigger_decl *declared(const struct program *prog, uint32_t num) {
  for (const struct trigger_decl *t = prog->triggers; t != NULL; t = t->next)
    if (t->num == num) return t;
  return NULL;
}

static void check_triggers(struct sema *s) {
  unsigned count = 0;
  for (const struct trigger_decl *t = s->prog->triggers; t != NULL; t = t->next) {
    if (declared(s->prog, t->num) != t) {
      diag_error(s->d, t->pos, "trigger %u is declared twice", t->num);
      continue;
    }
    if (++count == VM_MAX_TRIGGERS + 1)
      diag_error(s->d, t->pos, "more than %u triggers", VM_MAX_TRIGGERS);
    const struct message *m = s->prog->messages;
    while (m != NULL && m->num != t->num) m = m->next;
    if (m == NULL) diag_error(s->d, t->pos, "trigger %u has no MESSAGE block", t->num);
  }
  for (const struct message *m = s->prog->messages; m != NULL; m = m->next) {
    const struct message *first = s->prog->messages;
    while (first->num != m->num) first = first->next;
    if (first != m) {
      diag_error(s->d, m->pos, "second MESSAGE block for trigger %u", m->num);
      diag_note(s->d, first->pos, "first block for trigger %u is here", m->num);
    } else if (declared(s->prog, m->num) == NULL) {
      diag_error(s->d, m->pos, "trigger %u is not declared in TRIGGERS", m->num);
    }
  }
}

void sema_check(struct program *prog, struct diag *d) {
  struct sema s = {prog, d};
  layout(&s);
  check_triggers(&s);
  check_stmts(&s, prog->init);
  for (struct message *m = prog->messages; m != NULL; m = m->next) check_stmts(&s, m->body);
}
