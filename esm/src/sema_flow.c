/* sema_flow.c: checks that need the whole system: events that are never handled or never
 * raised, states unreachable from the initial state, resources released without being held
 * (or held inconsistently), and hardware actions nobody serves. */
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "sema.h"
#include "sema_int.h"

/* ---- events ---- */

static void mark_expr_events(Expr *e, unsigned char *raised) {
  if (!e)
    return;
  if (e->kind == EX_CALL && !strcmp(e->name, "pending"))
    return; /* reading a count does not raise */
  if (e->kind == EX_NAME && e->sym && e->sym->kind == SYM_EVENT)
    raised[e->sym->u.event->index] = 1;
  mark_expr_events(e->lhs, raised);
  mark_expr_events(e->rhs, raised);
  for (Expr *a = e->args; a; a = a->next)
    mark_expr_events(a, raised);
}

/* An event counts as raised when an action raises it by name, or when it is used as a value
 * anywhere (stored in an event variable, passed to a hardware action to raise later). */
static void mark_action_events(Action *a, unsigned char *raised) {
  for (; a; a = a->next) {
    mark_expr_events(a->rhs, raised);
    for (Expr *arg = a->args; arg; arg = arg->next)
      mark_expr_events(arg, raised);
    mark_action_events(a->then, raised);
    mark_action_events(a->els, raised);
  }
}

static void check_events(System *sys) {
  unsigned char *raised = arena_alloc((size_t)sys->nevents + 1);
  for (Var *v = sys->globals; v; v = v->next)
    mark_expr_events(v->init, raised);
  for (Machine *m = sys->machines; m; m = m->next) {
    for (Var *v = m->vars; v; v = v->next)
      mark_expr_events(v->init, raised);
    for (State *s = m->states; s; s = s->next)
      for (Transition *t = s->trans; t; t = t->next)
        mark_action_events(t->actions, raised);
  }
  for (Event *e = sys->events; e; e = e->next) {
    if (!e->owner)
      error_at(e->loc, "event '%s' is never handled: no machine has a transition on it", e->name);
    else if (!raised[e->index])
      error_at(e->loc, "event '%s' is handled by '%s' but never raised", e->name, e->owner->name);
  }
}

/* ---- reachability and resources ---- */

typedef unsigned long long ResSet;

static void res_names(System *sys, ResSet set, char *out, size_t n) {
  size_t len = 0;
  out[0] = 0;
  for (Resource *r = sys->resources; r && len + 1 < n; r = r->next)
    if (set & (1ULL << r->index)) {
      int w = snprintf(out + len, n - len, "%s%s", len ? ", " : "", r->name);
      len += w > 0 ? (size_t)w : 0;
    }
  if (!set)
    snprintf(out, n, "nothing");
}

/* Applies a transition's actions to the held set; conditional releases are rejected since the
 * held set must be known in every state. */
static ResSet apply_actions(Machine *m, Action *a, ResSet held, int conditional) {
  for (; a; a = a->next) {
    if (a->kind == AC_IF) {
      apply_actions(m, a->then, held, 1);
      apply_actions(m, a->els, held, 1);
    }
    if (a->kind != AC_RELEASE || !a->sym)
      continue;
    ResSet bit = 1ULL << a->sym->u.res->index;
    if (conditional)
      error_at(a->loc, "'release %s' inside 'if': releases must be unconditional, so that "
               "ownership is known in every state (split the transition with guards)", a->name);
    else if (!(held & bit))
      error_at(a->loc, "machine '%s' releases '%s' without holding it", m->name, a->name);
    held &= ~bit;
  }
  return held;
}

static void check_machine_flow(System *sys, Machine *m) {
  int n = m->nstates;
  ResSet *held = arena_alloc(sizeof(ResSet) * (size_t)n);
  unsigned char *seen = arena_alloc((size_t)n), *reported = arena_alloc((size_t)n);
  State **work = arena_alloc(sizeof(State *) * (size_t)n);
  int top = 0;
  seen[m->initial->index] = 1;
  work[top++] = m->initial;
  while (top > 0) {
    State *s = work[--top];
    for (Transition *t = s->trans; t; t = t->next) {
      ResSet cur = held[s->index];
      if (t->trig == TR_ACQUIRE && t->trig_sym) {
        ResSet bit = 1ULL << t->trig_sym->u.res->index;
        if (cur & bit)
          error_at(t->trig_loc, "machine '%s' acquires '%s' in state '%s' while already "
                   "holding it", m->name, t->trig_name, s->name);
        cur |= bit;
      }
      cur = apply_actions(m, t->actions, cur, 0);
      State *d = t->target;
      if (!seen[d->index]) {
        seen[d->index] = 1;
        held[d->index] = cur;
        work[top++] = d;
      } else if (held[d->index] != cur && !reported[d->index]) {
        char a[256], b[256];
        res_names(sys, held[d->index], a, sizeof a);
        res_names(sys, cur, b, sizeof b);
        error_at(t->target_loc, "machine '%s' enters state '%s' holding %s here, but holding %s "
                 "on another path", m->name, d->name, b, a);
        reported[d->index] = 1;
      }
    }
  }
  for (State *s = m->states; s; s = s->next)
    if (!seen[s->index])
      error_at(s->loc, "state '%s' of machine '%s' is unreachable from its initial state '%s'",
               s->name, m->name, m->initial->name);
}

static void check_hw_served(System *sys) {
  for (HwAction *h = sys->hwactions; h; h = h->next) {
    if (!h->env)
      continue;
    int served = 0;
    for (State *s = h->env->states; s; s = s->next)
      for (Transition *t = s->trans; t; t = t->next)
        served |= t->trig == TR_HWMSG && t->trig_sym && t->trig_sym->u.hwa == h;
    if (!served)
      error_at(h->loc, "hardware action '%s' is served by '%s', but '%s' never receives it "
               "(add a transition `on %s(...)`)", h->name, h->env->name, h->env->name, h->name);
  }
}

void check_flow(System *sys) {
  if (sys->nresources > 64) {
    error_at(sys->resources->loc, "at most 64 resources are supported");
    return;
  }
  check_events(sys);
  check_hw_served(sys);
  for (Machine *m = sys->machines; m; m = m->next)
    if (m->initial)
      check_machine_flow(sys, m);
}
