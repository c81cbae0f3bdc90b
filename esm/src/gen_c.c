/* gen_c.c: the C backend's entry point, naming rules and shared helpers. For system SYS it
 * writes SYS.h (types and API) and SYS_hal.h (what the firmware supplies) from gen_c_system.c,
 * SYS.c (the dispatcher) from gen_c_dispatch.c, and SYS_M.h/.c per firmware machine from
 * gen_c_machine.c. Environment machines and ghost variables exist only in the model and are
 * never emitted. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "backend.h"
#include "gen_c.h"

void cg_error(CGen *g, Loc loc, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  error_at(loc, "C backend: %s", msg);
  g->errors++;
}

static const char *const c_keywords[] = {
  "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
  "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
  "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
  "union", "unsigned", "void", "volatile", "while", "bool", "true", "false", "sys",
};

const char *c_field(const char *name) {
  for (size_t i = 0; i < sizeof c_keywords / sizeof c_keywords[0]; i++)
    if (!strcmp(name, c_keywords[i]))
      return arena_printf("%s_", name);
  return name;
}

const char *c_unsigned_type(long max) {
  return max <= UINT8_MAX ? "uint8_t" : max <= UINT16_MAX ? "uint16_t" : "uint32_t";
}

/* uint32_t is avoided for ranges: its comparisons with int draw -Wsign-compare, and int32_t is
 * no bigger. Event variables are stored as small integers, so a machine's header needs no
 * SYS_event_t. */
const char *c_type(CGen *g, Type *t) {
  if (t->kind == TY_BOOL)
    return "bool";
  if (t->kind == TY_EVENT) {
    long n = 0;
    for (Event *e = g->sys->events; e; e = e->next)
      n++;
    return c_unsigned_type(n);
  }
  long lo = t->lo_v.c, hi = t->hi_v.c;
  if (lo >= 0 && hi <= UINT8_MAX)
    return "uint8_t";
  if (lo >= INT8_MIN && hi <= INT8_MAX)
    return "int8_t";
  if (lo >= 0 && hi <= UINT16_MAX)
    return "uint16_t";
  if (lo >= INT16_MIN && hi <= INT16_MAX)
    return "int16_t";
  if (lo < INT32_MIN || hi > INT32_MAX)
    cg_error(g, t->loc, "range %ld..%ld does not fit in 32 bits", lo, hi);
  return "int32_t";
}

const char *c_int(long v) {
  if (v == INT32_MIN)
    return "(-2147483647 - 1)";
  return arena_printf("%ld", v);
}

const char *c_state(CGen *g, State *s) {
  return arena_printf("%s_%s_S_%s", g->p, s->machine->name, s->name);
}

void c_var_ref(CGen *g, Buf *b, Var *v) {
  if (v->owner)
    buf_printf(b, "sys->m.%s.%s", c_field(v->owner->name), c_field(v->name));
  else
    buf_printf(b, "sys->g.%s", c_field(v->name));
  (void)g;
}

#define FIND(type, list)                       \
  for (type *x = (list); x; x = x->next)       \
    if (name && !strcmp(x->name, name))        \
      return x;                                \
  return NULL

Resource *c_find_resource(System *sys, const char *name) { FIND(Resource, sys->resources); }
Queue *c_find_queue(System *sys, const char *name) { FIND(Queue, sys->queues); }
HwAction *c_find_hwaction(System *sys, const char *name) { FIND(HwAction, sys->hwactions); }
Event *c_find_event(System *sys, const char *name) { FIND(Event, sys->events); }

/* Events by priority (Event.index), highest first. */
Event **c_events_by_priority(System *sys, int *n) {
  int count = 0;
  for (Event *e = sys->events; e; e = e->next)
    count++;
  Event **v = arena_alloc(sizeof(Event *) * (size_t)(count + 1));
  int i = 0;
  for (Event *e = sys->events; e; e = e->next, i++)
    v[e->index >= 0 && e->index < count && !v[e->index] ? e->index : i] = e;
  *n = count;
  return v;
}

int c_event_handler(Event *e) { return e->owner && !e->owner->env ? e->owner->id : 0; }

long c_max_capacity(System *sys) {
  long max = 1;
  for (Event *e = sys->events; e; e = e->next)
    if (e->cap_v.c > max)
      max = e->cap_v.c;
  return max;
}

int c_firmware_count(System *sys) {
  int n = 0;
  for (Machine *m = sys->machines; m; m = m->next)
    n += !m->env;
  return n;
}

int c_has_env_event(System *sys) {
  for (Event *e = sys->events; e; e = e->next)
    if (!e->owner || e->owner->env)
      return 1;
  return 0;
}

int c_write(CGen *g, const char *outdir, const char *file, Buf *b) {
  char *path = arena_printf("%s/%s", outdir, file);
  if (buf_save(b, path) != 0) {
    fprintf(stderr, "esmc: cannot write %s: %s\n", path, strerror(errno));
    g->errors++;
    buf_free(b);
    return -1;
  }
  buf_free(b);
  return 0;
}

int gen_c(System *sys, const char *outdir) {
  CGen g = {sys, sys->name, NULL, 0};
  Buf b = {0};
  c_system_header(&g, &b);
  if (g.errors || c_write(&g, outdir, arena_printf("%s.h", g.p), &b))
    goto fail;
  c_hal_header(&g, &b);
  if (g.errors || c_write(&g, outdir, arena_printf("%s_hal.h", g.p), &b))
    goto fail;
  c_system_source(&g, &b);
  if (g.errors || c_write(&g, outdir, arena_printf("%s.c", g.p), &b))
    goto fail;
  for (Machine *m = sys->machines; m; m = m->next) {
    if (m->env)
      continue;
    c_machine_header(&g, &b, m);
    if (g.errors || c_write(&g, outdir, arena_printf("%s_%s.h", g.p, m->name), &b))
      goto fail;
    c_machine_source(&g, &b, m);
    if (g.errors || c_write(&g, outdir, arena_printf("%s_%s.c", g.p, m->name), &b))
      goto fail;
  }
  return 0;
fail:
  buf_free(&b);
  return -1;
}
