/* sema_cpu.c: the processor partition (`processor N: M, ...;`) and what it shares. Each
 * firmware machine runs on one of at most two processors; a system-level variable written from
 * both must be declared `lock RES` (the model then checks that every write holds RES and that
 * no update is lost), and a queue may have one pushing and one popping processor. */
#include <string.h>

#include "diag.h"
#include "sema.h"
#include "sema_int.h"

enum { MAX_CPUS = 2 };

static void assign(System *sys, ProcDecl *d, NameList *n, Loc *assigned) {
  Machine *m = find_machine(sys, n->name);
  if (!m) {
    error_at(n->loc, "unknown machine '%s' in processor %ld", n->name, d->num);
    return;
  }
  if (m->env) {
    error_at(n->loc, "'%s' is an environment machine (hardware): only firmware machines run "
             "on a processor", n->name);
    return;
  }
  Loc *prev = &assigned[m->id];
  if (prev->file) {
    error_at(n->loc, "machine '%s' is already assigned to processor %d (%s:%d)", n->name, m->cpu,
             prev->file, prev->line);
    return;
  }
  *prev = n->loc;
  m->cpu = (int)d->num;
}

static void check_partition(System *sys) {
  sys->ncpus = 1;
  if (!sys->procs)
    return;
  Loc *assigned = arena_alloc(sizeof(Loc) * (size_t)(sys->nmachines + 1));
  for (ProcDecl *d = sys->procs; d; d = d->next) {
    if (d->num < 0 || d->num >= MAX_CPUS) {
      error_at(d->loc, "processor %ld: a NIC has at most %d firmware processors, numbered 0 "
               "and 1", d->num, MAX_CPUS);
      continue;
    }
    if (d->num == 1)
      sys->ncpus = 2;
    for (NameList *n = d->machines; n; n = n->next)
      assign(sys, d, n, assigned);
  }
  for (Machine *m = sys->machines; m; m = m->next)
    if (!m->env && !assigned[m->id].file)
      error_at(m->loc, "machine '%s' is on no processor: with a `processor` partition every "
               "firmware machine is assigned to one", m->name);
}

/* ---- who writes what ---- */

static Var *lvalue_var(Expr *lhs) {
  Expr *base = lhs && lhs->kind == EX_INDEX ? lhs->lhs : lhs;
  if (base && (base->kind == EX_NAME || base->kind == EX_FIELD) && base->sym &&
      base->sym->kind == SYM_VAR)
    return base->sym->u.var;
  return NULL;
}

typedef struct {
  int push, pop;   /* bit p: processor p pushes (pops) */
} QueueUse;

static void mark_writes(System *sys, Machine *m, Action *a, QueueUse *qu) {
  for (; a; a = a->next) {
    Var *v = (a->kind == AC_ASSIGN || a->kind == AC_POP) ? lvalue_var(a->lhs) : NULL;
    if (v)
      v->writers |= 1 << m->cpu;
    Queue *q = a->sym && a->sym->kind == SYM_QUEUE ? a->sym->u.queue : NULL;
    if (q) {
      int i = 0;
      for (Queue *k = sys->queues; k && k != q; k = k->next)
        i++;
      if (a->kind == AC_PUSH)
        qu[i].push |= 1 << m->cpu;
      else if (a->kind == AC_POP)
        qu[i].pop |= 1 << m->cpu;
    }
    mark_writes(sys, m, a->then, qu);
    mark_writes(sys, m, a->els, qu);
  }
}

/* The first write of v by a machine on processor cpu, for the diagnostic. */
static int find_writer(System *sys, Var *v, int cpu, Action *a, Machine *m, Loc *at) {
  for (; a; a = a->next) {
    if ((a->kind == AC_ASSIGN || a->kind == AC_POP) && lvalue_var(a->lhs) == v &&
        m->cpu == cpu) {
      *at = a->loc;
      return 1;
    }
    if (find_writer(sys, v, cpu, a->then, m, at) || find_writer(sys, v, cpu, a->els, m, at))
      return 1;
  }
  return 0;
}

static const char *writer_text(System *sys, Var *v, int cpu) {
  for (Machine *m = sys->machines; m; m = m->next)
    for (State *s = m->states; s && !m->env; s = s->next)
      for (Transition *t = s->trans; t; t = t->next) {
        Loc at;
        if (find_writer(sys, v, cpu, t->actions, m, &at))
          return arena_printf("%s at %s:%d", m->name, at.file, at.line);
      }
  return "?";
}

/* Cross-processor updates are split into a load and a store in the model; that is done for
 * the top-level actions of a transition, so a shared write may not hide inside an `if`. */
static void check_nested(Action *a, int top) {
  for (; a; a = a->next) {
    Var *v = a->kind == AC_ASSIGN ? lvalue_var(a->lhs) : NULL;
    if (!top && v && v->writers == 3 && !v->ghost)
      error_at(a->loc, "'%s' is written from both processors: write it at the top level of "
               "the transition's actions, not inside an `if`", v->name);
    check_nested(a->then, 0);
    check_nested(a->els, 0);
  }
}

static void check_lock(System *sys, Var *v) {
  if (v->lock_name) {
    Sym *s = lookup_global(v->lock_name);
    if (!s || s->kind != SYM_RESOURCE)
      error_at(v->lock_loc, "'%s' is not a resource (a variable's lock is a resource the "
               "writers hold)", v->lock_name);
    else
      v->lock = s->u.res;
    if (v->owner)
      error_at(v->lock_loc, "only system-level variables take a lock (a machine's own "
               "variables have one writer)");
  }
  if (v->writers != 3 || v->ghost)
    return;
  if (v->size || v->type.kind != TY_INT)
    error_at(v->loc, "'%s' is written from both processors: only a scalar integer variable "
             "may be shared that way", v->name);
  else if (!v->lock_name && !sys->unlocked_shared)
    error_at(v->loc, "'%s' is written from processor 0 (%s) and processor 1 (%s); declare it "
             "`lock RES` with a resource its writers hold, or keep it to one processor",
             v->name, writer_text(sys, v, 0), writer_text(sys, v, 1));
}

static void check_queues(System *sys, QueueUse *qu) {
  int i = 0;
  for (Queue *q = sys->queues; q; q = q->next, i++) {
    if (qu[i].push == 3)
      error_at(q->loc, "queue '%s' is pushed from both processors (a queue between processors "
               "has one producer)", q->name);
    if (qu[i].pop == 3)
      error_at(q->loc, "queue '%s' is popped from both processors (a queue between processors "
               "has one consumer)", q->name);
  }
}

void check_processors(System *sys) {
  check_partition(sys);
  int nq = 0;
  for (Queue *q = sys->queues; q; q = q->next)
    nq++;
  QueueUse *qu = arena_alloc(sizeof(QueueUse) * (size_t)(nq + 1));
  for (Machine *m = sys->machines; m; m = m->next)
    for (State *s = m->states; s && !m->env; s = s->next)
      for (Transition *t = s->trans; t; t = t->next)
        mark_writes(sys, m, t->actions, qu);
  for (Var *v = sys->globals; v; v = v->next)
    check_lock(sys, v);
  for (Machine *m = sys->machines; m; m = m->next)
    for (Var *v = m->vars; v; v = v->next)
      check_lock(sys, v);
  check_queues(sys, qu);
  for (Machine *m = sys->machines; m; m = m->next)
    for (State *s = m->states; s && !m->env; s = s->next)
      for (Transition *t = s->trans; t; t = t->next)
        check_nested(t->actions, 1);
}
