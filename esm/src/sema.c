/* sema.c: semantic analysis driver: the symbol tables, declarations (constants, events,
 * resources, hardware, queues, variables, machines, states, transitions) and properties.
 * Expressions and actions are checked in sema_expr.c, flow-dependent rules in sema_flow.c. */
#include "sema.h"

#include <string.h>

#include "diag.h"
#include "sema_int.h"

typedef struct {
  Machine *scope;   /* NULL: system level */
  Sym *sym;
  Loc loc;
} Entry;

static Entry *table;
static int ntable, captable;

static Sym *new_sym(SymKind kind, const char *name) {
  Sym *s = arena_alloc(sizeof(Sym));
  s->kind = kind;
  s->name = name;
  return s;
}

static Sym *find(Machine *scope, const char *name) {
  for (int i = 0; i < ntable; i++)
    if (table[i].scope == scope && !strcmp(table[i].sym->name, name))
      return table[i].sym;
  return NULL;
}

static Loc find_loc(Machine *scope, const char *name) {
  for (int i = 0; i < ntable; i++)
    if (table[i].scope == scope && !strcmp(table[i].sym->name, name))
      return table[i].loc;
  return (Loc){0};
}

static const char *builtins[] = {"pending", "holds", "free", "len", "empty", "full", "head", NULL};

static int is_builtin(const char *name) {
  for (int i = 0; builtins[i]; i++)
    if (!strcmp(builtins[i], name))
      return 1;
  return 0;
}

static void declare(Machine *scope, Sym *sym, Loc loc) {
  Sym *old = find(scope, sym->name);
  if (!old && scope)
    old = find(NULL, sym->name);
  if (old) {
    Loc prev = find_loc(scope, sym->name);
    if (!prev.file)
      prev = find_loc(NULL, sym->name);
    /* Kinds of declarations are entered in groups, so report at the later one in the file. */
    if (prev.file && !strcmp(prev.file, loc.file ? loc.file : "") &&
        (prev.line > loc.line || (prev.line == loc.line && prev.col > loc.col))) {
      Loc t = prev;
      prev = loc;
      loc = t;
    }
    error_at(loc, "'%s' is already declared", sym->name);
    note_at(prev, "'%s' was declared here", sym->name);
    return;
  }
  if (sym->kind == SYM_HWCOND && is_builtin(sym->name)) {
    error_at(loc, "'%s' is a built-in function; a hardware condition cannot take its name",
             sym->name);
    return;
  }
  if (ntable == captable) {
    captable = captable ? captable * 2 : 64;
    Entry *nt = arena_alloc(sizeof(Entry) * (size_t)captable);
    if (ntable)
      memcpy(nt, table, sizeof(Entry) * (size_t)ntable);
    table = nt;
  }
  table[ntable++] = (Entry){scope, sym, loc};
}

Sym *lookup_global(const char *name) { return find(NULL, name); }

/* Built-in functions live apart from declared names: `len(q)` is a call, `len` a variable. */
Sym *lookup_builtin(const char *name) {
  return is_builtin(name) ? new_sym(SYM_BUILTIN, name) : NULL;
}

Sym *lookup_local(Machine *m, const char *name) { return m ? find(m, name) : NULL; }

Sym *lookup(Machine *m, const char *name) {
  Sym *s = lookup_local(m, name);
  return s ? s : lookup_global(name);
}

Machine *find_machine(System *sys, const char *name) {
  for (Machine *m = sys->machines; m; m = m->next)
    if (!strcmp(m->name, name))
      return m;
  return NULL;
}

int machine_count(System *sys, int env) {
  int n = 0;
  for (Machine *m = sys->machines; m; m = m->next)
    n += m->env == env;
  return n;
}

int resource_users(System *sys, Resource *r, Machine **out, int max) {
  int n = 0;
  for (int id = 1; id <= sys->nmachines; id++) {
    for (Machine *m = sys->machines; m; m = m->next) {
      if (m->id != id)
        continue;
      int uses = 0;
      for (State *s = m->states; s && !uses; s = s->next)
        for (Transition *t = s->trans; t && !uses; t = t->next)
          uses = t->trig == TR_ACQUIRE && t->trig_sym && t->trig_sym->u.res == r;
      if (uses && n < max)
        out[n] = m;
      n += uses;
    }
  }
  return n;
}

/* ---- constants and types ---- */

static int const_value(System *sys, Expr *e, Val2 *out, const char *what) {
  Cx cx = {CX_CONST, NULL, 0};
  int ty = check_expr(sys, e, &cx);
  if (ty < 0)
    return -1;
  if (ty != TY_INT) {
    error_at(e->loc, "%s must be an integer, not %s", what, type_name(ty));
    return -1;
  }
  return eval_const(e, out);
}

static void check_consts(System *sys) {
  for (Const *c = sys->consts; c; c = c->next) {
    Val2 v, m;
    int ok = const_value(sys, c->value, &v, "a constant") == 0;
    if (ok && c->model)
      ok = const_value(sys, c->model, &m, "a model bound") == 0;
    if (ok) {
      c->v.c = v.c;
      c->v.m = c->model ? m.m : v.m;
    }
    /* Declared after its value is checked, so a constant cannot refer to itself. */
    Sym *s = new_sym(SYM_CONST, c->name);
    s->u.cnst = c;
    declare(NULL, s, c->loc);
  }
}

/* Evaluates a count (capacity, depth, array length) and checks 1 <= n <= max in both worlds,
 * or in the model only for counts that exist only there (hardware request queues). */
static void count_value_in(System *sys, Expr *e, Val2 *out, const char *what, long max,
                           int model_only) {
  out->c = out->m = 1;
  if (!e)
    return;
  Val2 v;
  if (const_value(sys, e, &v, what) != 0)
    return;
  if (model_only && v.m >= 1 && v.m <= max) {
    *out = v;
    return;
  }
  if (v.c < 1 || v.m < 1 || v.c > max || v.m > max) {
    error_at(e->loc, "%s must be between 1 and %ld (it is %ld in the firmware, %ld in the model)",
             what, max, v.c, v.m);
    return;
  }
  *out = v;
}

static void count_value(System *sys, Expr *e, Val2 *out, const char *what, long max) {
  count_value_in(sys, e, out, what, max, 0);
}

static void check_type(System *sys, Type *t) {
  if (t->kind != TY_INT)
    return;
  if (const_value(sys, t->lo, &t->lo_v, "a range bound") != 0 ||
      const_value(sys, t->hi, &t->hi_v, "a range bound") != 0)
    return;
  if (t->lo_v.c > t->hi_v.c || t->lo_v.m > t->hi_v.m)
    error_at(t->loc, "empty range: %ld..%ld in the firmware, %ld..%ld in the model", t->lo_v.c,
             t->hi_v.c, t->lo_v.m, t->hi_v.m);
}

static int in_range(const Type *t, Val2 v) {
  return t->kind != TY_INT ||
         (v.c >= t->lo_v.c && v.c <= t->hi_v.c && v.m >= t->lo_v.m && v.m <= t->hi_v.m);
}

int sema_check_range(const Type *t, Val2 v, Loc loc, const char *what) {
  if (in_range(t, v))
    return 1;
  if (v.c < t->lo_v.c || v.c > t->hi_v.c)
    error_at(loc, "%s %ld is outside the declared range %ld..%ld", what, v.c, t->lo_v.c,
             t->hi_v.c);
  else
    error_at(loc, "%s %ld is outside the declared range %ld..%ld in the model", what, v.m,
             t->lo_v.m, t->hi_v.m);
  return 0;
}

static void check_var(System *sys, Var *v) {
  check_type(sys, &v->type);
  if (v->size)
    count_value(sys, v->size, &v->size_v, "an array length", 65535);
  if (!v->init)
    return;
  if (v->type.kind == TY_EVENT) {
    Sym *s = v->init->kind == EX_NAME ? lookup_global(v->init->name) : NULL;
    if (!s || s->kind != SYM_EVENT)
      error_at(v->init->loc, "'%s' is an event variable; its initial value must be an event name",
               v->name);
    v->init->sym = s;
    return;
  }
  Cx cx = {CX_CONST, NULL, 0};
  int ty = check_expr(sys, v->init, &cx);
  if (ty < 0)
    return;
  if (ty != (int)v->type.kind) {
    error_at(v->init->loc, "'%s' is %s but its initial value is %s", v->name,
             type_name((int)v->type.kind), type_name(ty));
    return;
  }
  Val2 val;
  if (ty != TY_EVENT && eval_const(v->init, &val) == 0)
    sema_check_range(&v->type, val, v->init->loc, "initial value");
}

static void declare_var(Var *v) {
  Sym *s = new_sym(SYM_VAR, v->name);
  s->u.var = v;
  declare(v->owner, s, v->loc);
}

static void check_decls(System *sys) {
  int i = 0;
  for (Event *e = sys->events; e; e = e->next, i++) {
    e->index = i;
    count_value(sys, e->capacity, &e->cap_v, "an event capacity", 255);
    Sym *s = new_sym(SYM_EVENT, e->name);
    s->u.event = e;
    declare(NULL, s, e->loc);
  }
  sys->nevents = i;
  i = 0;
  for (Resource *r = sys->resources; r; r = r->next, i++) {
    r->index = i;
    Sym *s = new_sym(SYM_RESOURCE, r->name);
    s->u.res = r;
    declare(NULL, s, r->loc);
  }
  sys->nresources = i;
  for (Machine *m = sys->machines; m; m = m->next) {
    Sym *s = new_sym(SYM_MACHINE, m->name);
    s->u.machine = m;
    declare(NULL, s, m->loc);
  }
  for (HwAction *h = sys->hwactions; h; h = h->next) {
    Sym *s = new_sym(SYM_HWACTION, h->name);
    s->u.hwa = h;
    declare(NULL, s, h->loc);
    for (Param *p = h->params; p; p = p->next) {
      check_type(sys, &p->type);
      for (Param *q = h->params; q != p; q = q->next)
        if (!strcmp(q->name, p->name))
          error_at(p->loc, "parameter '%s' is declared twice", p->name);
    }
    count_value_in(sys, h->depth, &h->depth_v, "a request queue depth", 255, 1);
    h->env = find_machine(sys, h->env_name);
    if (!h->env)
      error_at(h->env_loc, "unknown environment machine '%s'", h->env_name);
    else if (!h->env->env)
      error_at(h->env_loc, "'%s' is a firmware machine; hardware actions are served by "
               "environment machines", h->env_name);
  }
  for (HwCond *c = sys->hwconds; c; c = c->next) {
    check_type(sys, &c->type);
    Sym *s = new_sym(SYM_HWCOND, c->name);
    s->u.hwc = c;
    declare(NULL, s, c->loc);
  }
  for (Queue *q = sys->queues; q; q = q->next) {
    count_value(sys, q->depth, &q->depth_v, "a queue depth", 255);
    check_type(sys, &q->type);
    Sym *s = new_sym(SYM_QUEUE, q->name);
    s->u.queue = q;
    declare(NULL, s, q->loc);
  }
  for (Var *v = sys->globals; v; v = v->next) {
    check_var(sys, v);
    declare_var(v);
  }
}

/* ---- machines ---- */

static State *find_state(Machine *m, const char *name) {
  for (State *s = m->states; s; s = s->next)
    if (!strcmp(s->name, name))
      return s;
  return NULL;
}

static void number_machines(System *sys) {
  int id = 1;
  for (int env = 0; env <= 1; env++)
    for (Machine *m = sys->machines; m; m = m->next)
      if (m->env == env)
        m->id = id++;
  sys->nmachines = id - 1;
}

static void check_states(Machine *m) {
  int i = 0;
  for (State *s = m->states; s; s = s->next) {
    s->index = i++;
    for (State *o = m->states; o != s; o = o->next)
      if (!strcmp(o->name, s->name)) {
        error_at(s->loc, "machine '%s' has two states named '%s'", m->name, s->name);
        note_at(o->loc, "the first is here");
        break;
      }
    if (s->flags & ST_INITIAL) {
      if (m->initial) {
        error_at(s->loc, "machine '%s' has two initial states ('%s' and '%s')", m->name,
                 m->initial->name, s->name);
      } else {
        m->initial = s;
      }
    }
    if (m->env && (s->flags & ST_YIELD))
      error_at(s->loc, "'yield' is for firmware machines; environment machines are hardware "
               "and never hold the processor");
  }
  m->nstates = i;
  if (!m->states)
    error_at(m->loc, "machine '%s' has no states", m->name);
  else if (!m->initial) {
    m->initial = m->states;
    m->initial->flags |= ST_INITIAL;
  }
  if (i > 250)
    error_at(m->loc, "machine '%s' has %d states; at most 250 are supported", m->name, i);
}

static void bind_hw_message(Machine *m, Transition *t, HwAction *h) {
  if (!m->env) {
    error_at(t->trig_loc, "'%s' is a hardware action: firmware machines issue it, only its "
             "environment machine '%s' receives it", h->name, h->env_name);
    return;
  }
  if (h->env != m)
    error_at(t->trig_loc, "hardware action '%s' is served by '%s', not by '%s'", h->name,
             h->env_name, m->name);
  int n = 0;
  Param *p = h->params;
  for (NameList *b = t->binds; b; b = b->next, n++) {
    Sym *s = lookup_local(m, b->name);
    if (!s || s->kind != SYM_VAR) {
      error_at(b->loc, "'%s' is not a variable of '%s' (a hardware request's arguments are "
               "stored in the receiving machine's variables)", b->name, m->name);
    } else if (p && s->u.var->type.kind != p->type.kind) {
      error_at(b->loc, "'%s' is %s but parameter '%s' of '%s' is %s", b->name,
               type_name((int)s->u.var->type.kind), p->name, h->name,
               type_name((int)p->type.kind));
    } else if (s->u.var->size) {
      error_at(b->loc, "'%s' is an array; a request argument needs a scalar", b->name);
    }
    if (p)
      p = p->next;
  }
  if (n != h->nparams)
    error_at(t->trig_loc, "hardware action '%s' has %d parameter%s, but %d variable%s given",
             h->name, h->nparams, h->nparams == 1 ? "" : "s", n, n == 1 ? " is" : "s are");
}

static void check_trigger(Machine *m, Transition *t) {
  if (t->trig == TR_WHEN)
    return;
  Sym *s = lookup_global(t->trig_name);
  t->trig_sym = s;
  if (t->trig == TR_ACQUIRE) {
    if (!s || s->kind != SYM_RESOURCE)
      error_at(t->trig_loc, "unknown resource '%s'", t->trig_name);
    else if (m->env)
      error_at(t->trig_loc, "environment machines cannot acquire resources; resources are "
               "firmware state");
    return;
  }
  if (s && s->kind == SYM_HWACTION) {
    t->trig = TR_HWMSG;
    bind_hw_message(m, t, s->u.hwa);
    return;
  }
  if (t->trig == TR_HWMSG) {
    error_at(t->trig_loc, "unknown hardware action '%s'", t->trig_name);
    return;
  }
  if (!s || s->kind != SYM_EVENT) {
    error_at(t->trig_loc, "unknown event '%s'", t->trig_name);
    t->trig_sym = NULL;
    return;
  }
  Event *e = s->u.event;
  if (!e->owner) {
    e->owner = m;
  } else if (e->owner != m) {
    error_at(t->trig_loc, "event '%s' is already handled by machine '%s'; an event has one "
             "handling machine", e->name, e->owner->name);
  }
}

static void check_machine(System *sys, Machine *m) {
  for (Var *v = m->vars; v; v = v->next) {
    check_var(sys, v);
    declare_var(v);
  }
  check_states(m);
  int index = 0;
  for (State *s = m->states; s; s = s->next) {
    for (Transition *t = s->trans; t; t = t->next) {
      t->index = index++;
      check_trigger(m, t);
      t->target = find_state(m, t->target_name);
      if (!t->target)
        error_at(t->target_loc, "machine '%s' has no state '%s'", m->name, t->target_name);
    }
  }
}

static void check_bodies(System *sys, Machine *m) {
  Cx cx = {m->env ? CX_ENV : CX_FIRMWARE, m, 0};
  for (State *s = m->states; s; s = s->next)
    for (Transition *t = s->trans; t; t = t->next) {
      if (t->guard) {
        cx.in_guard = 1;
        int ty = check_expr(sys, t->guard, &cx);
        cx.in_guard = 0;
        if (ty >= 0 && ty != TY_BOOL)
          error_at(t->guard->loc, "a guard must be a condition, not %s", type_name(ty));
        if (!m->env && reads_ghost(t->guard))
          error_at(t->guard->loc, "a firmware guard cannot read ghost variables (they do not "
                   "exist in the C firmware)");
      }
      check_actions(sys, t->actions, &cx);
    }
}

static void check_props(System *sys) {
  Cx cx = {CX_PROPERTY, NULL, 1};
  for (Property *p = sys->props; p; p = p->next) {
    for (Property *o = sys->props; o != p; o = o->next)
      if (!strcmp(o->name, p->name)) {
        error_at(p->loc, "property '%s' is declared twice", p->name);
        break;
      }
    for (Expr *e = p->p; e; e = e == p->p ? p->q : NULL) {
      int ty = check_expr(sys, e, &cx);
      if (ty >= 0 && ty != TY_BOOL)
        error_at(e->loc, "a property must be a condition, not %s", type_name(ty));
    }
  }
}

static void check_hwconds(System *sys) {
  Cx cx = {CX_ENV, NULL, 1};
  for (HwCond *c = sys->hwconds; c; c = c->next) {
    if (!c->model)
      continue;
    int ty = check_expr(sys, c->model, &cx);
    if (ty >= 0 && ty != (int)c->type.kind)
      error_at(c->model->loc, "hardware %s '%s' must be %s, not %s",
               c->type.kind == TY_BOOL ? "condition" : "value", c->name,
               type_name((int)c->type.kind), type_name(ty));
  }
}

static int is_c_name(const char *s) {
  if (!*s || (*s >= '0' && *s <= '9'))
    return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          *s == '_'))
      return 0;
  return 1;
}

int sema_check(System *sys, const char *default_name) {
  int before = diag_error_count();
  table = NULL;
  ntable = captable = 0;
  if (!sys->name)
    sys->name = default_name;
  if (!is_c_name(sys->name))
    error_at(sys->loc, "system name '%s' must be a valid C identifier (it prefixes the generated "
             "C); add a `system NAME;` declaration", sys->name);
  number_machines(sys);
  check_consts(sys);
  check_decls(sys);
  for (Machine *m = sys->machines; m; m = m->next)
    check_machine(sys, m);
  check_hwconds(sys);
  for (Machine *m = sys->machines; m; m = m->next)
    check_bodies(sys, m);
  check_processors(sys);
  check_props(sys);
  if (diag_error_count() == before)
    check_flow(sys);
  return diag_error_count() - before;
}
