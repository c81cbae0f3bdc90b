/* gen_c_dispatch.c: SYS.c, the system's run-time: init, raise, the run-to-completion
 * dispatcher of esm/README.md ("Run-to-completion and dispatch points"), resource arbitration
 * and the run-time checks the machine code calls. */
#include <string.h>

#include "gen_c.h"

static void source_tables(CGen *g, Buf *b) {
  System *sys = g->sys;
  const char *p = g->p;
  int n;
  Event **ev = c_events_by_priority(sys, &n);
  if (n) {
    buf_printf(b, "static const %s capacity[%s_NEVENTS] = {",
               c_unsigned_type(c_max_capacity(sys)), p);
    for (int i = 0; i < n; i++)
      buf_printf(b, "%s%ld", i ? ", " : "", ev[i]->cap_v.c);
    buf_printf(b, "};\n\n/* The machine that handles each event (0: none in the firmware). */\n"
                  "static const uint8_t handler[%s_NEVENTS] = {", p);
    for (int i = 0; i < n; i++) {
      int h = c_event_handler(ev[i]);
      buf_printf(b, "%s%s", i ? ", " : "",
                 h ? arena_printf("%s_MACH_%s", p, ev[i]->owner->name) : "0");
    }
    buf_printf(b, "};\n\nstatic const char *const event_names[%s_NEVENTS] = {", p);
    for (int i = 0; i < n; i++)
      buf_printf(b, "%s\"%s\"", i ? ", " : "", ev[i]->name);
    buf_puts(b, "};\n\n");
  }
  buf_printf(b, "static const char *const machine_names[%s_NMACHINES + 1] = {\"?\"", p);
  for (Machine *m = sys->machines; m; m = m->next)
    if (!m->env)
      buf_printf(b, ", \"%s\"", m->name);
  buf_puts(b, "};\n\n");
}

void c_init_var(CGen *g, Buf *b, Var *v) {
  Buf val = {0};
  if (v->init) {
    int paren = v->init->kind == EX_BINARY; /* the cast below must cover all of it */
    buf_puts(&val, paren ? "(" : "");
    c_expr(g, &val, v->init);
    buf_puts(&val, paren ? ")" : "");
  }
  else if (v->type.kind == TY_BOOL)
    buf_puts(&val, "false");
  else if (v->type.kind == TY_EVENT)
    buf_puts(&val, "0");
  else
    buf_puts(&val, c_int(v->type.lo_v.c));
  const char *cast = v->type.kind != TY_BOOL ? arena_printf("(%s)", c_type(g, &v->type)) : "";
  Buf ref = {0};
  c_var_ref(g, &ref, v);
  if (v->size) {
    c_acsl_init_loop(g, b, ref.data, &v->type, v->size_v.c);
    buf_printf(b, "  for (int i = 0; i < %ld; i++)\n    %s[i] = %s%s; /* %s */\n", v->size_v.c,
               ref.data, cast, val.data, esm_where(v->loc));
  } else
    buf_printf(b, "  %s = %s%s; /* %s */\n", ref.data, cast, val.data, esm_where(v->loc));
  buf_free(&val);
  buf_free(&ref);
}

static void source_init(CGen *g, Buf *b) {
  System *sys = g->sys;
  const char *p = g->p;
  buf_printf(b, "void %s_init(%s_t *sys) {\n", p, p);
  if (sys->events)
    c_acsl(b, 2, arena_printf("loop invariant 0 <= e <= %s_NEVENTS", p),
           "loop invariant \\forall integer k; 0 <= k < e ==> sys->pending[k] == 0",
           "loop assigns e, sys->pending[..], sys->overflow[..], sys->dispatched[..]",
           arena_printf("loop variant %s_NEVENTS - e", p), NULL);
  if (sys->events)
    buf_printf(b, "  for (int e = 0; e < %s_NEVENTS; e++) {\n"
                  "    sys->pending[e] = 0;\n    sys->overflow[e] = 0;\n"
                  "    sys->dispatched[e] = 0;\n  }\n", p);
  if (sys->resources)
    c_acsl(b, 2, arena_printf("loop invariant 0 <= r <= %s_NRESOURCES", p),
           "loop invariant \\forall integer k; 0 <= k < r ==> "
           "sys->owner[k] == 0 && sys->last_grant[k] == 0",
           "loop assigns r, sys->owner[..], sys->last_grant[..]",
           arena_printf("loop variant %s_NRESOURCES - r", p), NULL);
  if (sys->resources)
    buf_printf(b, "  for (int r = 0; r < %s_NRESOURCES; r++) {\n"
                  "    sys->owner[r] = 0;\n    sys->last_grant[r] = 0;\n  }\n", p);
  buf_puts(b, "  sys->last_spontaneous = 0;\n  sys->faults = 0;\n");
  c_cpu_init(g, b);
  for (Var *v = sys->globals; v; v = v->next)
    if (!v->ghost)
      c_init_var(g, b, v);
  for (Queue *q = sys->queues; q; q = q->next) {
    const char *ref = arena_printf("sys->q.%s", c_field(q->name));
    /* Free slots hold 0, or the low end of the range if 0 is outside it. */
    long zero = q->type.kind == TY_INT && (q->type.lo_v.c > 0 || q->type.hi_v.c < 0)
                    ? q->type.lo_v.c : 0;
    c_acsl_init_loop(g, b, arena_printf("%s.buf", ref), &q->type, q->depth_v.c);
    buf_printf(b, "  for (int i = 0; i < %ld; i++)\n    %s.buf[i] = %s;\n", q->depth_v.c, ref,
               q->type.kind == TY_BOOL ? "false"
                                       : arena_printf("(%s)%s", c_type(g, &q->type), c_int(zero)));
    buf_printf(b, "  %s.head = 0;\n  %s.len = 0;\n", ref, ref);
  }
  for (Machine *m = sys->machines; m; m = m->next)
    if (!m->env)
      buf_printf(b, "  %s_%s_init(sys);\n", p, m->name);
  /* The invariant, conjunct by conjunct: WP proves each on its own. */
  int n;
  const char **c = c_acsl_conjuncts(g, &n);
  for (int i = 0; i < n; i++)
    buf_printf(b, "  /*@ assert %s; */\n", c[i]);
  buf_puts(b, "}\n\n");
}

static void source_raise(CGen *g, Buf *b) {
  const char *p = g->p;
  buf_printf(b, "bool %s_raise(%s_t *sys, %s_event_t ev) {\n", p, p, p);
  if (!g->sys->events) {
    buf_puts(b, "  (void)sys;\n  (void)ev;\n  return false;\n}\n\n");
    return;
  }
  buf_printf(b, "  if ((unsigned)ev >= (unsigned)%s_NEVENTS)\n    return false;\n", p);
  if (c_has_env_event(g->sys))
    buf_puts(b, "  if (handler[ev] == 0)\n    return false; /* the hardware's event, not the "
                "firmware's */\n");
  buf_puts(b, "  if (sys->pending[ev] >= capacity[ev]) {\n"
              "    if (sys->overflow[ev] < UINT32_MAX) /* counters saturate */\n"
              "      sys->overflow[ev]++;\n"
              "    return false;\n  }\n  sys->pending[ev]++;\n  return true;\n}\n\n");
}

static void source_fire(CGen *g, Buf *b) {
  const char *p = g->p;
  c_acsl(b, 0, arena_printf("requires %s", c_acsl_inv(g)),
         "assigns *sys", arena_printf("ensures %s_inv(sys)", p), NULL);
  buf_printf(b, "static bool fire(%s_t *sys, int id, int ev) {\n  switch (id) {\n", p);
  for (Machine *m = g->sys->machines; m; m = m->next)
    if (!m->env)
      buf_printf(b, "  case %s_MACH_%s:\n    return %s_%s_fire(sys, ev);\n", p, m->name, p,
                 m->name);
  buf_puts(b, "  default:\n");
  if (!c_firmware_count(g->sys))
    buf_puts(b, "    (void)sys;\n    (void)ev;\n");
  buf_puts(b, "    return false;\n  }\n}\n\n");
}

static void source_step(CGen *g, Buf *b) {
  const char *p = g->p;
  const char *inv = arena_printf("loop invariant %s_inv(sys)", p);
  const char *all = "*sys";
  buf_printf(b, "bool %s_step(%s_t *sys) {\n", p, p);
  if (g->sys->events)
    c_acsl(b, 2, arena_printf("loop invariant 0 <= e <= %s_NEVENTS", p), inv,
           arena_printf("loop assigns e, %s", all), arena_printf("loop variant %s_NEVENTS - e", p),
           NULL);
  if (g->sys->events)
    buf_printf(b, "  for (int e = 0; e < %s_NEVENTS; e++)\n"
                  "    if (sys->pending[e] > 0 && fire(sys, handler[e], e))\n"
                  "      return true;\n", p);
  c_acsl(b, 2, arena_printf("loop invariant 1 <= i <= %s_NMACHINES + 1", p), inv,
         arena_printf("loop assigns i, %s", all),
         arena_printf("loop variant %s_NMACHINES + 1 - i", p), NULL);
  /* The machine after the one that fired last. A stored value is at most NMACHINES, and the
   * modulo (a library call on a core without a divider, such as the LANai) only guards
   * against any other value. */
  buf_printf(b, "  for (int i = 1; i <= %s_NMACHINES; i++) {\n"
                "    int id = %s + i;\n"
                "    if (id > %s_NMACHINES)\n      id -= %s_NMACHINES;\n"
                "    if (fire(sys, id, -1)) {\n"
                "      sys->last_spontaneous = (uint32_t)id;\n      return true;\n    }\n  }\n"
                "  return false;\n}\n\n",
             p, c_firmware_count(g->sys)
                    ? arena_printf("(int)(sys->last_spontaneous <= %s_NMACHINES ? sys->last_spontaneous\n"
                                 "                 : sys->last_spontaneous %% %s_NMACHINES)", p, p)
                    : "0",
             p, p);
  buf_printf(b, "unsigned %s_run(%s_t *sys, unsigned max_steps) {\n  unsigned n = 0;\n", p, p);
  c_acsl(b, 2, "loop invariant 0 <= n <= max_steps", inv, arena_printf("loop assigns n, %s", all),
         "loop variant max_steps - n", NULL);
  buf_printf(b, "  while (n < max_steps && %s_step(sys))\n    n++;\n  return n;\n}\n\n", p);
}

static void source_names(CGen *g, Buf *b) {
  const char *p = g->p;
  buf_printf(b, "const char *%s_event_name(int ev) {\n", p);
  if (g->sys->events)
    buf_printf(b, "  return ev >= 0 && ev < %s_NEVENTS ? event_names[ev] : \"?\";\n}\n\n", p);
  else
    buf_puts(b, "  (void)ev;\n  return \"?\";\n}\n\n");
  buf_printf(b, "const char *%s_machine_name(int id) {\n"
                "  return id >= 1 && id <= %s_NMACHINES ? machine_names[id] : \"?\";\n}\n\n",
             p, p);
  buf_printf(b, "const char *%s_state_name(int id, int state) {\n  switch (id) {\n", p);
  for (Machine *m = g->sys->machines; m; m = m->next)
    if (!m->env)
      buf_printf(b, "  case %s_MACH_%s:\n    return %s_%s_state_name(state);\n", p, m->name, p,
                 m->name);
  buf_puts(b, "  default:\n");
  if (!c_firmware_count(g->sys))
    buf_puts(b, "    (void)state;\n");
  buf_puts(b, "    return \"?\";\n  }\n}\n\n");
}

static void source_checks(CGen *g, Buf *b) {
  const char *p = g->p;
  buf_printf(b,
             "void %s__fault(%s_t *sys, int code, const char *where) {\n"
             "  if (sys->faults < UINT32_MAX) /* counters saturate */\n    sys->faults++;\n"
             "  %s_hal_fault(sys, code, where);\n}\n\n",
             p, p, p);
  buf_printf(b,
             "/* An out-of-range value is reported and saturated, so variables stay in range. */\n"
             "int32_t %s__range(%s_t *sys, int32_t v, int32_t lo, int32_t hi, const char *where) {\n"
             "  if (v >= lo && v <= hi)\n    return v;\n"
             "  %s__fault(sys, %s_FAULT_RANGE, where);\n  return v < lo ? lo : hi;\n}\n\n",
             p, p, p, p);
  buf_printf(b,
             "int32_t %s__index(%s_t *sys, int32_t i, int32_t len, const char *where) {\n"
             "  if (i >= 0 && i < len)\n    return i;\n"
             "  %s__fault(sys, %s_FAULT_INDEX, where);\n  return 0;\n}\n\n",
             p, p, p, p);
  /* INT32_MIN / -1 overflows in C; it wraps to INT32_MIN instead. */
  buf_printf(b,
             "int32_t %s__div(%s_t *sys, int32_t a, int32_t b, const char *where) {\n"
             "  if (b == 0) {\n    %s__fault(sys, %s_FAULT_DIV_ZERO, where);\n    return 0;\n  }\n"
             "  if (b == -1)\n    return a == INT32_MIN ? INT32_MIN : -a;\n  return a / b;\n}\n\n"
             "int32_t %s__mod(%s_t *sys, int32_t a, int32_t b, const char *where) {\n"
             "  if (b == 0) {\n    %s__fault(sys, %s_FAULT_DIV_ZERO, where);\n    return 0;\n  }\n"
             "  return b == -1 ? 0 : a %% b;\n}\n\n",
             p, p, p, p, p, p, p, p);
}

/* Whether state s has an `on acquire r`. */
static int waits_in(State *s, Resource *r) {
  for (Transition *t = s->trans; t; t = t->next)
    if (t->trig == TR_ACQUIRE && t->trig_name && !strcmp(t->trig_name, r->name))
      return 1;
  return 0;
}

/* A machine waits for r while it is in a state with an `on acquire r` whose guard holds (as in
 * the model): a machine idling where its acquire is guarded off does not block the others. */
static void source_waits(CGen *g, Buf *b) {
  const char *p = g->p;
  buf_printf(b, "/* Whether machine id waits for r: it is in a state with an `on acquire r` whose\n"
                " * guard holds. */\n");
  c_acsl(b, 0, "requires \\valid(sys)", "assigns sys->faults", NULL);
  buf_printf(b, "static bool waits(%s_t *sys, %s_resource_t r, int id) {\n", p, p);
  int any_user = 0;
  Buf body = {0};
  buf_puts(&body, "  switch (r) {\n");
  for (Resource *r = g->sys->resources; r; r = r->next) {
    buf_printf(&body, "  case %s_RES_%s:\n    return ", p, r->name);
    int users = 0;
    for (Machine *m = g->sys->machines; m; m = m->next) {
      if (m->env)
        continue;
      for (State *s = m->states; s; s = s->next) {
        if (!waits_in(s, r))
          continue;
        for (Transition *t = s->trans; t; t = t->next) {
          if (t->trig != TR_ACQUIRE || strcmp(t->trig_name, r->name) != 0)
            continue;
          buf_printf(&body, "%s(id == %s_MACH_%s && sys->m.%s.state == %s", users++ ? " ||\n           " : "",
                     p, m->name, c_field(m->name), c_state(g, s));
          if (t->guard) {
            buf_puts(&body, " && (");
            c_expr(g, &body, t->guard);
            buf_puts(&body, ")");
          }
          buf_puts(&body, ")");
        }
      }
    }
    buf_puts(&body, users ? ";\n" : "false;\n");
    any_user += users;
  }
  buf_puts(&body, "  default:\n    return false;\n  }\n}\n\n");
  if (!any_user)
    buf_puts(b, "  (void)sys;\n  (void)id;\n");
  buf_puts(b, body.data);
  buf_free(&body);
}

static void source_resources(CGen *g, Buf *b) {
  if (!g->sys->resources)
    return;
  const char *p = g->p;
  source_waits(g, b);
  Buf loop = {0};
  c_acsl(&loop, 2, arena_printf("loop invariant 1 <= i <= %s_NMACHINES + 1", p),
         "loop assigns i, sys->faults",
         arena_printf("loop variant %s_NMACHINES + 1 - i", p), NULL);
  buf_printf(b,
             "/* Whose turn it is to take r: the first waiting machine after the one served\n"
             " * last, so waiting machines are served round-robin; 0 if r is held or nobody waits. */\n"
             "int %s__turn(%s_t *sys, %s_resource_t r) {\n"
             "  if (sys->owner[r] != 0)\n    return 0;\n"
             "%s"
             "  for (int i = 1; i <= %s_NMACHINES; i++) {\n"
             "    int id = %s + i;\n"
             "    if (id > %s_NMACHINES)\n      id -= %s_NMACHINES;\n"
             "    if (waits(sys, r, id))\n      return id;\n  }\n  return 0;\n}\n\n",
             p, p, p, loop.data, p,
             c_firmware_count(g->sys) ? arena_printf("(sys->last_grant[r] <= %s_NMACHINES ? sys->last_grant[r]\n"
                                       "                 : sys->last_grant[r] %% %s_NMACHINES)", p, p)
                                 : "0",
             p, p);
  buf_free(&loop);
  const char *id = c_unsigned_type(c_firmware_count(g->sys));
  buf_printf(b,
             "void %s__grant(%s_t *sys, %s_resource_t r, int id) {\n"
             "  sys->owner[r] = (%s)id;\n  sys->last_grant[r] = (%s)id;\n}\n\n"
             "void %s__release(%s_t *sys, %s_resource_t r, int id, const char *where) {\n"
             "  if (sys->owner[r] != id)\n    %s__fault(sys, %s_FAULT_RESOURCE, where);\n"
             "  else\n    sys->owner[r] = 0;\n}\n\n",
             p, p, p, id, id, p, p, p, p, p);
}

void c_system_source(CGen *g, Buf *b) {
  const char *p = g->p;
  buf_printf(b,
             "/* %s.c: the dispatcher of system %s, generated by esmc; do not edit.\n"
             " * %s_step() runs one run-to-completion step (esm/README.md, \"Run-to-completion and\n"
             " * dispatch points\"): the highest-priority pending event whose machine has an\n"
             " * enabled transition for it; failing that, the next machine, round-robin, with an\n"
             " * enabled when or acquire transition. The machine then keeps the processor until\n"
             " * it enters a yield state or has nothing enabled (%s_M_fire in %s_M.c). */\n"
             "#include \"%s.h\"\n#include \"%s_hal.h\"\n\n",
             p, p, p, p, p, p, p);
  source_tables(g, b);
  source_init(g, b);
  source_raise(g, b);
  source_fire(g, b);
  source_step(g, b);
  c_cpu_source(g, b);
  source_names(g, b);
  source_checks(g, b);
  source_resources(g, b);
  /* No trailing blank line. */
  if (b->len >= 2 && b->data[b->len - 1] == '\n' && b->data[b->len - 2] == '\n')
    b->data[--b->len] = '\0';
}
