/* gen_c_acsl.c: ACSL annotations in the generated C, for Frama-C/WP (proofs/README.md). esmc
 * knows things about the machines that a prover has to be told: every variable stays in its
 * declared range, a machine's state is one of its states, pending events stay within their
 * capacity, resource owners and queue positions stay in bounds. SYS.h states them as the
 * predicate SYS_inv(sys); every generated function requires and ensures it, so WP proves the
 * generated C free of run-time errors and keeping the invariant. ACSL lives in special comments,
 * which C compilers ignore. */
#include <stdarg.h>
#include <string.h>

#include "gen_c.h"

/* ---- formatting ---- */

#define WIDTH 100

/* Appends one clause, "KEYWORD TEXT;", breaking it after top-level ", " and "&& " so lines stay
 * within WIDTH; continuation lines are indented by cont. col is the current column. */
static void clause(Buf *b, const char *text, int col, int cont) {
  size_t n = strlen(text);
  size_t start = 0;
  while (start < n) {
    /* The longest prefix from start that fits, ending at a break point. */
    size_t brk = 0, depth = 0;
    for (size_t i = start; i < n; i++) {
      char c = text[i];
      if (c == '(' || c == '[' || c == '{')
        depth++;
      else if ((c == ')' || c == ']' || c == '}') && depth)
        depth--;
      if ((int)(i - start) + col + 1 >= WIDTH && brk)
        break;
      if (!depth && c == ' ' && i > start &&
          (text[i - 1] == ',' || (i >= 2 && text[i - 1] == '&' && text[i - 2] == '&')))
        brk = i;
    }
    if ((int)(n - start) + col + 1 < WIDTH || !brk) {
      buf_printf(b, "%s;", text + start);
      return;
    }
    buf_printf(b, "%.*s\n%*s", (int)(brk - start), text + start, cont, "");
    start = brk + 1;
    col = cont;
  }
  buf_puts(b, ";");
}

void c_acsl(Buf *b, int ind, ...) {
  va_list ap;
  va_start(ap, ind);
  int n = 0;
  for (const char *c; (c = va_arg(ap, const char *));) {
    if (!*c)
      continue;
    if (n++)
      buf_printf(b, "\n%*s", ind + 4, "");
    else
      buf_printf(b, "%*s/*@ ", ind, "");
    const char *kw = !strncmp(c, "loop ", 5) ? c + 5 : c;
    int kwlen = (int)(strcspn(kw, " ") + (size_t)(kw - c));
    clause(b, c, ind + 4, ind + 4 + kwlen + 1);
  }
  va_end(ap);
  if (n)
    buf_puts(b, " */\n");
}

/* ---- clauses ---- */

/* The invariant as a predicate (function interfaces), and spelled out (where a function
 * updates the system; see c_acsl_predicates). */
const char *c_acsl_inv(CGen *g) { return arena_printf("\\valid(sys) && %s_inv(sys)", g->p); }
const char *c_acsl_INV(CGen *g) { return arena_printf("\\valid(sys) && %s_INV(sys)", g->p); }

const char *c_acsl_hal(CGen *g) {
  return g->sys->events ? "sys->pending[..], sys->overflow[..]" : "\\nothing";
}

const char *c_acsl_fields(CGen *g) {
  System *sys = g->sys;
  Buf b = {0};
  if (sys->events)
    buf_puts(&b, "sys->pending[..], sys->overflow[..], sys->dispatched[..], ");
  if (sys->resources)
    buf_puts(&b, "sys->owner[..], sys->last_grant[..], ");
  buf_puts(&b, "sys->last_spontaneous, sys->faults");
  for (Var *v = sys->globals; v; v = v->next)
    if (!v->ghost) {
      buf_puts(&b, ", sys->g");
      break;
    }
  if (sys->queues)
    buf_puts(&b, ", sys->q");
  if (c_firmware_count(sys))
    buf_puts(&b, ", sys->m");
  const char *s = arena_strdup(b.data);
  buf_free(&b);
  return s;
}

/* The bound of a value of type t stored at ref (ref[i] for arrays of size len), or NULL when
 * the C type says it all (bool). k names the quantified index. */
const char *c_acsl_bound(CGen *g, const char *ref, Type *t, long len, const char *k) {
  const char *x = len ? arena_printf("%s[%s]", ref, k) : ref;
  const char *p;
  if (t->kind == TY_BOOL)
    return NULL;
  if (t->kind == TY_EVENT)
    p = arena_printf("0 <= %s < %s_NEVENTS", x, g->p);
  else
    p = arena_printf("%s <= %s <= %s", c_int(t->lo_v.c), x, c_int(t->hi_v.c));
  if (len)
    p = arena_printf("(\\forall integer %s; 0 <= %s < %ld ==> %s)", k, k, len, p);
  return p;
}

/* A loop `for (int i = 0; i < len; i++) ref[i] = ...;` that gives every element of an array a
 * value of type t. */
void c_acsl_init_loop(CGen *g, Buf *b, const char *ref, Type *t, long len) {
  const char *elem = c_acsl_bound(g, arena_printf("%s[k]", ref), t, 0, NULL);
  c_acsl(b, 2, arena_printf("loop invariant 0 <= i <= %ld", len),
         elem ? arena_printf("loop invariant \\forall integer k; 0 <= k < i ==> %s", elem) : "",
         arena_printf("loop assigns i, %s[..]", ref), arena_printf("loop variant %ld - i", len),
         NULL);
}

/* ---- SYS.h: the invariant ---- */

/* Conjuncts as the body of a macro, one a line. */
static void conjuncts(Buf *b, const char **c, int n) {
  if (!n)
    buf_puts(b, "  \\true");
  for (int i = 0; i < n; i++)
    buf_printf(b, "  %s%s", c[i], i + 1 < n ? " && \\\n" : "");
  buf_puts(b, ")\n");
}

static int var_bounds(CGen *g, Var *vars, const char **out, int n) {
  for (Var *v = vars; v; v = v->next) {
    if (v->ghost)
      continue;
    Buf ref = {0};
    c_var_ref(g, &ref, v);
    const char *c = c_acsl_bound(g, ref.data, &v->type, v->size ? v->size_v.c : 0, "i");
    if (c)
      out[n++] = c;
    buf_free(&ref);
  }
  return n;
}

static int count_vars(Var *v) {
  int n = 0;
  for (; v; v = v->next)
    n++;
  return n;
}

/* The conjuncts of SYS_INV, one a string. */
const char **c_acsl_conjuncts(CGen *g, int *count) {
  System *sys = g->sys;
  const char *p = g->p;
  int max = 8 + count_vars(sys->globals) + c_firmware_count(sys);
  for (Event *e = sys->events; e; e = e->next)
    max++;
  for (Queue *q = sys->queues; q; q = q->next)
    max += 3;
  const char **c = arena_alloc(sizeof(char *) * (size_t)max);
  int n = 0, nev;
  Event **ev = c_events_by_priority(sys, &nev);
  for (int i = 0; i < nev; i++)
    c[n++] = arena_printf("sys->pending[%s_EV_%s] <= %ld", p, ev[i]->name, ev[i]->cap_v.c);
  if (sys->resources)
    c[n++] = arena_printf("(\\forall integer r; 0 <= r < %s_NRESOURCES ==> sys->owner[r] <= "
                          "%s_NMACHINES && sys->last_grant[r] <= %s_NMACHINES)", p, p, p);
  n = var_bounds(g, sys->globals, c, n);
  for (Queue *q = sys->queues; q; q = q->next) {
    const char *ref = arena_printf("sys->q.%s", c_field(q->name));
    long d = q->depth_v.c;
    c[n++] = arena_printf("%s.head < %ld && %s.len <= %ld", ref, d, ref, d);
    const char *e = c_acsl_bound(g, arena_printf("%s.buf", ref), &q->type, d, "i");
    if (e)
      c[n++] = e;
  }
  for (Machine *m = sys->machines; m; m = m->next)
    if (!m->env)
      c[n++] = arena_printf("%s_%s_INV(sys)", p, m->name);
  *count = n;
  return c;
}

void c_acsl_predicates(CGen *g, Buf *b) {
  System *sys = g->sys;
  const char *p = g->p;
  int n;
  buf_printf(b,
             "/* What esmc knows about the system, in ACSL for Frama-C/WP (proofs/README.md); C\n"
             " * compilers ignore it. %s_inv(sys): machines in one of their states, variables\n"
             " * within their declared ranges, pending events within capacity, resource owners\n"
             " * and queue positions in bounds. Every function of the system keeps it. The macro\n"
             " * %s_INV spells it out, so that WP's simplifier sees each conjunct where a function\n"
             " * updates the system (a transition asserts it on entry and on exit). */\n"
             "#ifdef __FRAMAC__\n",
             p, p);
  for (Machine *m = sys->machines; m; m = m->next) {
    if (m->env)
      continue;
    const char **mc = arena_alloc(sizeof(char *) * (size_t)(count_vars(m->vars) + 1));
    mc[0] = arena_printf("0 <= sys->m.%s.state < %s_%s_NSTATES", c_field(m->name), p, m->name);
    int k = var_bounds(g, m->vars, mc, 1);
    buf_printf(b, "#define %s_%s_INV(sys) ( \\\n", p, m->name);
    conjuncts(b, mc, k);
  }
  const char **c = c_acsl_conjuncts(g, &n);
  buf_printf(b, "#define %s_INV(sys) ( \\\n", p);
  conjuncts(b, c, n);
  buf_printf(b, "#endif\n/*@ predicate %s_inv(%s_t *sys) = %s_INV(sys); */\n\n", p, p, p);
}
