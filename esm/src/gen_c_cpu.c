/* gen_c_cpu.c: the per-processor dispatchers of a system with a processor partition
 * (`processor N: M, ...;`). Each processor runs the SYS_step() rule restricted to its own
 * machines: the highest-priority pending event whose machine is on it, failing that the next
 * of its machines, round-robin, with an enabled when or acquire transition. A system without a
 * partition gets none of this, so its C is unchanged. */
#include "gen_c.h"

int c_cpu_count(System *sys) { return sys->ncpus > 1 ? sys->ncpus : 1; }

void c_cpu_struct(CGen *g, Buf *b) {
  if (c_cpu_count(g->sys) > 1)
    buf_printf(b, "  uint32_t last_spontaneous_cpu[%s_NCPUS]; /* round-robin, per processor */\n",
               g->p);
}

void c_cpu_header(CGen *g, Buf *b) {
  System *sys = g->sys;
  const char *p = g->p;
  if (c_cpu_count(sys) < 2)
    return;
  buf_printf(b, "/* Processors: the static partition of the firmware machines (processor 0 and 1\n"
                " * each run their own dispatcher over one shared %s_t). */\n", p);
  for (Machine *m = sys->machines; m; m = m->next)
    if (!m->env)
      buf_printf(b, "#define %s_CPU_%s %d\n", p, m->name, m->cpu);
  static const char *const decls[] = {
    "/* The processor a firmware machine runs on (0 for an id that names none). */",
    "/*@ assigns \\nothing; */\nint %1$s_processor_of(int id);",
    "/* Whether processor cpu handles event ev (its machine runs there). */",
    "/*@ assigns \\nothing; */\nbool %1$s_event_on(int cpu, int ev);",
    "/* One run-to-completion step of processor cpu: only its machines run. */",
    "bool %1$s_step_cpu(%1$s_t *sys, int cpu);",
    "bool %1$s_step_p0(%1$s_t *sys);\nbool %1$s_step_p1(%1$s_t *sys);",
    "/* Steps processor cpu until it has nothing enabled or max_steps. */",
    "unsigned %1$s_run_cpu(%1$s_t *sys, int cpu, unsigned max_steps);",
  };
  for (size_t i = 0; i < sizeof decls / sizeof decls[0]; i++) {
    buf_printf(b, decls[i], p);
    buf_puts(b, "\n");
  }
  buf_puts(b, "\n");
}

void c_cpu_init(CGen *g, Buf *b) {
  for (int c = 0; c < c_cpu_count(g->sys) && g->sys->ncpus > 1; c++)
    buf_printf(b, "  sys->last_spontaneous_cpu[%d] = 0;\n", c);
}

void c_cpu_consts(CGen *g, Buf *b) {
  if (c_cpu_count(g->sys) > 1)
    buf_printf(b, "#define %s_NCPUS %d\n", g->p, c_cpu_count(g->sys));
}

static void cpu_table(CGen *g, Buf *b) {
  const char *p = g->p;
  buf_printf(b, "static const uint8_t processor[%s_NMACHINES + 1] = {0", p);
  for (Machine *m = g->sys->machines; m; m = m->next)
    if (!m->env)
      buf_printf(b, ", %d", m->cpu);
  buf_printf(b, "};\n\n"
                "int %s_processor_of(int id) {\n"
                "  return id >= 1 && id <= %s_NMACHINES ? processor[id] : 0;\n}\n\n", p, p);
  buf_printf(b, "bool %s_event_on(int cpu, int ev) {\n", p);
  if (g->sys->events)
    buf_printf(b, "  return ev >= 0 && ev < %s_NEVENTS && handler[ev] != 0 &&\n"
                  "         processor[handler[ev]] == cpu;\n}\n\n", p);
  else
    buf_puts(b, "  (void)cpu;\n  (void)ev;\n  return false;\n}\n\n");
}

void c_cpu_source(CGen *g, Buf *b) {
  const char *p = g->p;
  if (c_cpu_count(g->sys) < 2)
    return;
  cpu_table(g, b);
  buf_printf(b, "bool %s_step_cpu(%s_t *sys, int cpu) {\n"
                "  if (cpu < 0 || cpu >= %s_NCPUS)\n    return false;\n", p, p, p);
  if (g->sys->events)
    buf_printf(b, "  for (int e = 0; e < %s_NEVENTS; e++)\n"
                  "    if (sys->pending[e] > 0 && handler[e] != 0 && processor[handler[e]] == cpu &&\n"
                  "        fire(sys, handler[e], e))\n"
                  "      return true;\n", p);
  buf_printf(b, "  uint32_t last = sys->last_spontaneous_cpu[cpu];\n"
                "  if (last > %s_NMACHINES)\n    last = 0;\n"
                "  for (int i = 1; i <= %s_NMACHINES; i++) {\n"
                "    int id = (int)last + i;\n"
                "    if (id > %s_NMACHINES)\n      id -= %s_NMACHINES;\n"
                "    if (processor[id] == cpu && fire(sys, id, -1)) {\n"
                "      sys->last_spontaneous_cpu[cpu] = (uint32_t)id;\n      return true;\n"
                "    }\n  }\n  return false;\n}\n\n", p, p, p, p);
  buf_printf(b, "bool %s_step_p0(%s_t *sys) { return %s_step_cpu(sys, 0); }\n\n"
                "bool %s_step_p1(%s_t *sys) { return %s_step_cpu(sys, 1); }\n\n", p, p, p, p, p,
             p);
  buf_printf(b, "unsigned %s_run_cpu(%s_t *sys, int cpu, unsigned max_steps) {\n"
                "  unsigned n = 0;\n"
                "  while (n < max_steps && %s_step_cpu(sys, cpu))\n    n++;\n"
                "  return n;\n}\n\n", p, p, p);
}
