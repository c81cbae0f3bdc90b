/* gen_c_system.c: the system-level headers: SYS.h (constants, events, ids, queue types, the
 * system struct and the API) and SYS_hal.h (the functions the firmware supplies). */
#include <string.h>

#include "gen_c.h"

/* ---- SYS.h ---- */

static void header_consts(CGen *g, Buf *b) {
  if (!g->sys->consts)
    return;
  buf_puts(b, "/* Constants: firmware values (the model's, if different, in comments). */\n");
  for (Const *c = g->sys->consts; c; c = c->next) {
    const char *v = c->v.c < 0 ? arena_printf("(%s)", c_int(c->v.c)) : c_int(c->v.c);
    buf_printf(b, "#define %s_CONST_%s %s /* %s", g->p, c->name, v, esm_where(c->loc));
    if (c->v.m != c->v.c)
      buf_printf(b, ", model %ld", c->v.m);
    buf_puts(b, " */\n");
  }
  buf_puts(b, "\n");
}

static void header_events(CGen *g, Buf *b) {
  int n;
  Event **ev = c_events_by_priority(g->sys, &n);
  buf_puts(b, "/* Events, highest priority first. */\ntypedef enum {\n");
  for (int i = 0; i < n; i++) {
    buf_printf(b, "  %s_EV_%s, /* %s, capacity %ld, ", g->p, ev[i]->name, esm_where(ev[i]->loc),
               ev[i]->cap_v.c);
    if (c_event_handler(ev[i]))
      buf_printf(b, "handled by %s */\n", ev[i]->owner->name);
    else
      buf_printf(b, "handled by %s in the model only */\n",
                 ev[i]->owner ? ev[i]->owner->name : "no machine");
  }
  buf_printf(b, "  %s_NEVENTS\n} %s_event_t;\n\n", g->p, g->p);
}

static void header_ids(CGen *g, Buf *b) {
  buf_puts(b, "/* Resources. */\ntypedef enum {\n");
  for (Resource *r = g->sys->resources; r; r = r->next)
    buf_printf(b, "  %s_RES_%s, /* %s */\n", g->p, r->name, esm_where(r->loc));
  buf_printf(b, "  %s_NRESOURCES\n} %s_resource_t;\n\n", g->p, g->p);

  buf_puts(b, "/* Firmware machines, by id (0 stands for none). */\nenum {\n");
  for (Machine *m = g->sys->machines; m; m = m->next)
    if (!m->env)
      buf_printf(b, "  %s_MACH_%s = %d, /* %s */\n", g->p, m->name, m->id, esm_where(m->loc));
  buf_printf(b, "  %s_NMACHINES = %d\n};\n\n", g->p, c_firmware_count(g->sys));

  const char *p = g->p;
  buf_printf(b,
             "/* Fault codes passed to %s_hal_fault(). */\n"
             "enum {\n"
             "  %s_FAULT_ASSERT = 1,  /* an assert failed */\n"
             "  %s_FAULT_RANGE,       /* a value outside its variable's or parameter's range */\n"
             "  %s_FAULT_INDEX,       /* an array index out of bounds */\n"
             "  %s_FAULT_QUEUE_FULL,  /* push onto a full queue */\n"
             "  %s_FAULT_QUEUE_EMPTY, /* pop from an empty queue */\n"
             "  %s_FAULT_RESOURCE,    /* release of a resource the machine does not hold */\n"
             "  %s_FAULT_DIV_ZERO,    /* division or remainder by zero */\n"
             "  %s_FAULT_CHAIN        /* a run-to-completion chain longer than %s_CHAIN_MAX */\n"
             "};\n\n"
             "/* Transitions one machine may fire in a row before it must yield. */\n"
             "#ifndef %s_CHAIN_MAX\n#define %s_CHAIN_MAX 65535u\n#endif\n\n",
             p, p, p, p, p, p, p, p, p, p, p, p);
}

static void header_queues(CGen *g, Buf *b) {
  if (!g->sys->queues)
    return;
  buf_puts(b, "/* Queues: rings of the firmware depth. */\n");
  for (Queue *q = g->sys->queues; q; q = q->next) {
    buf_printf(b, "typedef struct { /* %s: queue %s[%ld] */\n", esm_where(q->loc), q->name,
               q->depth_v.c);
    buf_printf(b, "  %s buf[%ld];\n", c_type(g, &q->type), q->depth_v.c);
    buf_printf(b, "  %s head, len;\n", c_unsigned_type(q->depth_v.c));
    buf_printf(b, "} %s_queue_%s_t;\n", g->p, q->name);
  }
  buf_puts(b, "\n");
}

static void struct_var(CGen *g, Buf *b, Var *v, int ind) {
  buf_printf(b, "%*s%s %s", ind, "", c_type(g, &v->type), c_field(v->name));
  if (v->size)
    buf_printf(b, "[%ld]", v->size_v.c);
  buf_printf(b, "; /* %s: ", esm_where(v->loc));
  esm_print_type(b, &v->type);
  buf_puts(b, " */\n");
}

static void header_struct(CGen *g, Buf *b) {
  System *sys = g->sys;
  const char *p = g->p;
  const char *pend = c_unsigned_type(c_max_capacity(sys));
  const char *id = c_unsigned_type(c_firmware_count(sys));
  buf_printf(b, "struct %s {\n", p);
  if (sys->events)
    buf_printf(b,
               "  %s pending[%s_NEVENTS]; /* raised and not yet handled, by event */\n"
               "  uint32_t overflow[%s_NEVENTS]; /* raises refused at capacity */\n"
               "  uint32_t dispatched[%s_NEVENTS]; /* transitions fired on each event */\n",
               pend, p, p, p);
  if (sys->resources)
    buf_printf(b,
               "  %s owner[%s_NRESOURCES]; /* the holding machine, 0 when free */\n"
               "  %s last_grant[%s_NRESOURCES]; /* round-robin: the machine served last */\n",
               id, p, id, p);
  buf_printf(b, "  uint32_t last_spontaneous; /* round-robin: the machine that last fired a when "
                "or acquire */\n");
  buf_printf(b, "  uint32_t faults; /* failed run-time checks reported to the HAL */\n");
  c_cpu_struct(g, b);
  int any = 0;
  for (Var *v = sys->globals; v; v = v->next)
    if (!v->ghost) {
      if (!any++)
        buf_puts(b, "  struct {\n");
      struct_var(g, b, v, 4);
    }
  if (any)
    buf_puts(b, "  } g; /* system variables */\n");
  if (sys->queues) {
    buf_puts(b, "  struct {\n");
    for (Queue *q = sys->queues; q; q = q->next)
      buf_printf(b, "    %s_queue_%s_t %s;\n", p, q->name, c_field(q->name));
    buf_puts(b, "  } q; /* queues */\n");
  }
  if (c_firmware_count(sys)) {
    buf_puts(b, "  struct {\n");
    for (Machine *m = sys->machines; m; m = m->next)
      if (!m->env)
        buf_printf(b, "    %s_%s_t %s;\n", p, m->name, c_field(m->name));
    buf_puts(b, "  } m; /* firmware machines */\n");
  }
  buf_printf(b, "  void *user; /* for the HAL; %s_init() leaves it alone */\n};\n\n", p);
}

static void header_api(CGen *g, Buf *b) {
  const char *p = g->p, *inv = c_acsl_inv(g), *all = "assigns *sys";
  const char *req = arena_printf("requires %s", inv), *ens = arena_printf("ensures %s_inv(sys)", p);
  c_acsl(b, 0, "requires \\valid(sys)", arena_printf("assigns %s", c_acsl_fields(g)),
         arena_printf("ensures %s_INV(sys)", p), NULL);
  buf_printf(b, "void %s_init(%s_t *sys);\n", p, p);
  buf_puts(b, "/* Makes ev pending; false (and counted in overflow[]) when at capacity. */\n");
  if (g->sys->events)
    c_acsl(b, 0, arena_printf("requires %s", c_acsl_INV(g)),
           "assigns sys->pending[ev], sys->overflow[ev]", arena_printf("ensures %s_INV(sys)", p),
           "ensures \\result ==> sys->pending[ev] == \\old(sys->pending[ev]) + 1", NULL);
  else
    c_acsl(b, 0, "assigns \\nothing", "ensures !\\result", NULL);
  buf_printf(b, "bool %s_raise(%s_t *sys, %s_event_t ev);\n", p, p, p);
  buf_puts(b, "/* One run-to-completion step; false if no transition is enabled. */\n");
  c_acsl(b, 0, req, all, ens, NULL);
  buf_printf(b, "bool %s_step(%s_t *sys);\n", p, p);
  buf_puts(b, "/* Steps until nothing is enabled or max_steps; returns the steps taken. */\n");
  c_acsl(b, 0, req, all, ens, "ensures \\result <= max_steps", NULL);
  buf_printf(b, "unsigned %s_run(%s_t *sys, unsigned max_steps);\n", p, p);
  buf_printf(b,
             "/*@ assigns \\nothing; */\nconst char *%s_event_name(int ev);\n"
             "/*@ assigns \\nothing; */\nconst char *%s_machine_name(int id);\n"
             "/*@ assigns \\nothing; */\nconst char *%s_state_name(int id, int state);\n\n",
             p, p, p);
}

/* The functions of machine m (in SYS_M.c; its header SYS_M.h only has its types). */
static void header_machine_api(CGen *g, Buf *b, Machine *m) {
  const char *p = g->p, *n = m->name;
  buf_printf(b, "/* Machine %s (%s), in %s_%s.c. */\n"
                "/* Enters the initial state and gives the variables their initial values. */\n",
             n, esm_where(m->loc), p, n);
  c_acsl(b, 0, "requires \\valid(sys)", arena_printf("assigns sys->m.%s", c_field(n)),
         arena_printf("ensures %s_%s_INV(sys)", p, n), NULL);
  buf_printf(b,
             "void %s_%s_init(%s_t *sys);\n"
             "/* Fires an enabled transition of %s on the pending event ev (ev < 0: a when or\n"
             " * acquire transition), then keeps firing while %s is outside a yield state and has\n"
             " * one enabled. False if nothing was enabled. */\n",
             p, n, p, n, n);
  c_acsl(b, 0, arena_printf("requires %s", c_acsl_inv(g)), "assigns *sys",
         arena_printf("ensures %s_inv(sys)", p), NULL);
  buf_printf(b,
             "bool %s_%s_fire(%s_t *sys, int ev);\n"
             "/*@ assigns \\nothing; */\n"
             "const char *%s_%s_state_name(int state);\n\n",
             p, n, p, p, n);
}

/* The run-time checks and resource arbitration the machine code calls. A check writes nothing
 * but the fault counter (faults), which the invariant does not mention, so it keeps the
 * invariant without saying so. */
static void header_support(CGen *g, Buf *b) {
  const char *p = g->p, *req = "requires \\valid(sys)", *fault = "assigns sys->faults";
  buf_printf(b, "/* Run-time support for the machine code, in %s.c. A failed check counts a fault\n"
                " * and reports it to the HAL. */\n", p);
  c_acsl(b, 0, req, fault, NULL);
  buf_printf(b, "void %s__fault(%s_t *sys, int code, const char *where);\n", p, p);
  buf_puts(b, "/* v if lo <= v <= hi; otherwise a fault, and the nearest bound. */\n");
  c_acsl(b, 0, "requires \\valid(sys) && lo <= hi", fault,
         "ensures lo <= \\result <= hi && (lo <= v <= hi ==> \\result == v)", NULL);
  buf_printf(b, "int32_t %s__range(%s_t *sys, int32_t v, int32_t lo, int32_t hi, "
                "const char *where);\n", p, p);
  buf_puts(b, "/* i if 0 <= i < len; otherwise a fault, and 0. */\n");
  c_acsl(b, 0, "requires \\valid(sys) && len > 0", fault,
         "ensures 0 <= \\result < len && (0 <= i < len ==> \\result == i)", NULL);
  buf_printf(b, "int32_t %s__index(%s_t *sys, int32_t i, int32_t len, const char *where);\n", p,
             p);
  buf_puts(b, "/* a / b and a % b as in C, except: by 0 a fault, and 0; INT32_MIN / -1 wraps. */\n");
  c_acsl(b, 0, req, fault, "ensures b != 0 && b != -1 ==> \\result == a / b",
         "ensures b == 0 ==> \\result == 0", NULL);
  buf_printf(b, "int32_t %s__div(%s_t *sys, int32_t a, int32_t b, const char *where);\n", p, p);
  c_acsl(b, 0, req, fault, "ensures b != 0 && b != -1 ==> \\result == a % b",
         "ensures b == 0 || b == -1 ==> \\result == 0", NULL);
  buf_printf(b, "int32_t %s__mod(%s_t *sys, int32_t a, int32_t b, const char *where);\n", p, p);
  if (!g->sys->resources)
    return;
  const char *res = arena_printf("0 <= r < %s_NRESOURCES", p);
  const char *INV = arena_printf("requires %s && %s", c_acsl_INV(g), res);
  const char *ens = arena_printf("ensures %s_INV(sys)", p);
  buf_puts(b, "/* The machine whose turn it is to take r; 0 if r is held or no machine waits. */\n");
  c_acsl(b, 0, arena_printf("%s && %s", req, res), fault,
         arena_printf("ensures 0 <= \\result <= %s_NMACHINES", p), NULL);
  buf_printf(b, "int %s__turn(%s_t *sys, %s_resource_t r);\n", p, p, p);
  c_acsl(b, 0, arena_printf("%s && 1 <= id <= %s_NMACHINES", INV, p),
         "assigns sys->owner[r], sys->last_grant[r]", ens,
         "ensures sys->owner[r] == id && sys->last_grant[r] == id", NULL);
  buf_printf(b, "void %s__grant(%s_t *sys, %s_resource_t r, int id);\n", p, p, p);
  c_acsl(b, 0, INV, "assigns sys->owner[r], sys->faults", ens, NULL);
  buf_printf(b, "void %s__release(%s_t *sys, %s_resource_t r, int id, const char *where);\n", p,
             p, p);
}

void c_system_header(CGen *g, Buf *b) {
  const char *p = g->p;
  buf_printf(b,
             "/* %s.h: system %s, generated by esmc from %s; do not edit.\n"
             " *\n"
             " * Call %s_init() once; %s_raise() when hardware completes (from the HAL or an\n"
             " * interrupt path); %s_step() or %s_run() from the main loop. %s_hal.h lists what\n"
             " * the firmware must supply. Semantics: esm/README.md. */\n"
             "#ifndef %s_H\n#define %s_H\n\n"
             "#include <stdbool.h>\n#include <stdint.h>\n\n"
             "typedef struct %s %s_t;\n\n",
             p, p, esm_source_name(g->sys), p, p, p, p, p, p, p, p, p);
  header_consts(g, b);
  c_cpu_consts(g, b);
  header_events(g, b);
  header_ids(g, b);
  header_queues(g, b);
  for (Machine *m = g->sys->machines; m; m = m->next)
    if (!m->env)
      buf_printf(b, "#include \"%s_%s.h\"\n", p, m->name);
  buf_puts(b, "\n");
  header_struct(g, b);
  c_acsl_predicates(g, b);
  header_api(g, b);
  c_cpu_header(g, b);
  for (Machine *m = g->sys->machines; m; m = m->next)
    if (!m->env)
      header_machine_api(g, b, m);
  header_support(g, b);
  buf_printf(b, "\n#endif\n");
}

/* ---- SYS_hal.h ---- */

/* A hardware action may raise events (through SYS_raise) but changes nothing else in sys, so
 * it keeps the invariant; conditions, values and the fault and trace hooks change nothing in
 * sys. Results are unconstrained: the generated code checks hardware values when it reads them. */
static void hal_contract(CGen *g, Buf *b, const char *requires, int action) {
  if (action)
    c_acsl(b, 0, arena_printf("requires %s", c_acsl_INV(g)), requires,
           arena_printf("assigns %s", c_acsl_hal(g)), arena_printf("ensures %s_INV(sys)", g->p),
           NULL);
  else
    c_acsl(b, 0, "requires \\valid(sys)", "assigns \\nothing", NULL);
}

static void hal_action(CGen *g, Buf *b, HwAction *h) {
  buf_printf(b, "/* %s: hardware action %s(", esm_where(h->loc), h->name);
  for (Param *p = h->params; p; p = p->next) {
    buf_printf(b, "%s: ", p->name);
    esm_print_type(b, &p->type);
    buf_puts(b, p->next ? ", " : "");
  }
  buf_printf(b, ") -> %s */\n", h->env_name);
  Buf args = {0};
  for (Param *p = h->params; p; p = p->next) {
    const char *c = c_acsl_bound(g, c_field(p->name), &p->type, 0, NULL);
    if (c)
      buf_printf(&args, "%s%s", args.len ? " && " : "requires ", c);
  }
  hal_contract(g, b, args.len ? args.data : "", 1);
  buf_free(&args);
  buf_printf(b, "void %s_hal_%s(%s_t *sys", g->p, h->name, g->p);
  for (Param *p = h->params; p; p = p->next)
    buf_printf(b, ", %s %s",
               p->type.kind == TY_EVENT ? arena_printf("%s_event_t", g->p) : c_type(g, &p->type),
               c_field(p->name));
  buf_puts(b, ");\n\n");
}

void c_hal_header(CGen *g, Buf *b) {
  const char *p = g->p;
  buf_printf(b,
             "/* %s_hal.h: the hardware interface of system %s, generated by esmc; do not edit.\n"
             " * The firmware (or a test's simulated hardware) defines these functions. Their ACSL\n"
             " * contracts state what the generated code assumes of them: a hardware action may\n"
             " * raise events (%s_raise) but changes nothing else in the system struct; conditions,\n"
             " * values and the fault and trace hooks change nothing in it. Results are\n"
             " * unconstrained (hardware values are checked when read). */\n"
             "#ifndef %s_HAL_H\n#define %s_HAL_H\n\n#include \"%s.h\"\n\n",
             p, p, p, p, p, p);
  for (HwAction *h = g->sys->hwactions; h; h = h->next)
    hal_action(g, b, h);
  for (HwCond *c = g->sys->hwconds; c; c = c->next) {
    int value = c->type.kind == TY_INT;
    buf_printf(b, "/* %s: hardware %s %s%s */\n", esm_where(c->loc),
               value ? "value" : "condition", c->name,
               value ? arena_printf(" : %s..%s, checked when read", c_int(c->type.lo_v.c),
                                    c_int(c->type.hi_v.c))
                     : "");
    hal_contract(g, b, "", 0);
    buf_printf(b, "%s %s_hal_%s(%s_t *sys);\n\n", value ? "int32_t" : "bool", p, c->name, p);
  }
  buf_printf(b, "/* A run-time check failed: code is a %s_FAULT_*, where is \"file.esm:LINE\". */\n",
             p);
  hal_contract(g, b, "", 0);
  buf_printf(b,
             "void %s_hal_fault(%s_t *sys, int code, const char *where);\n\n"
             "#ifdef %s_TRACE\n"
             "/* After every transition: the machine id, its states before and after, the event\n"
             " * (-1 for when and acquire) and the transition's ESM line. */\n",
             p, p, p);
  hal_contract(g, b, "", 0);
  buf_printf(b,
             "void %s_hal_trace(%s_t *sys, int id, int from, int to, int ev, const char *where);\n"
             "#endif\n\n#endif\n",
             p, p);
}
