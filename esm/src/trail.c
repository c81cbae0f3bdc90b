/* trail.c: `esmc --trail MODEL.pml [SPIN-OUTPUT]`. Reads a counterexample replayed by
 * `spin -t -p -g -l MODEL.pml` and prints it in ESM terms: one line per transition taken
 * (machine, state, trigger, guard, target, ESM source line), where a liveness cycle starts,
 * which check failed, and the final state of every machine.
 *
 * It understands the model through the tagged comments gen_pml.c writes (@esm, @check, @cpu,
 * @share, @machine, @state, @event, @var, @resource, @queue, @hwaction, @prop). Input it does
 * not recognise is skipped, so any text is safe to feed it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "backend.h"

typedef struct {
  char kind;          /* 'e' transition, 'c' check, 'y' processor yield, 0 nothing */
  const char *text;
} LineTag;

typedef struct Pair {
  struct Pair *next;
  struct Pair *hnext;  /* values only: the hash chain */
  const char *key, *val;
  long num;            /* values only: bytes allocated for val */
} Pair;

enum { NBUCKETS = 1024 };

typedef struct {
  LineTag *lines;
  int nlines;
  Pair *machines;     /* key machine name, num id, val "firmware"/"environment" */
  Pair *states;       /* key "M:n", val state name */
  Pair *events;       /* key index as text, val event name */
  Pair *vars;         /* key Promela name, val ESM name; num 1 for event-typed */
  Pair *resources;    /* key resource name */
  Pair *queues;       /* key queue name */
  Pair *hwactions;    /* key action name */
  Pair *props;        /* key property name, val its description */
  Pair *values;       /* key Promela name, val last value seen; in first-seen order */
  Pair **values_tail;
  Pair *bucket[NBUCKETS];   /* the values again, hashed: replays can be millions of lines */
} Model;

static Pair *push_pair(Pair **list, const char *key, const char *val, long num) {
  Pair *p = arena_alloc(sizeof(Pair));
  p->key = key;
  p->val = val;
  p->num = num;
  Pair **tail = list;
  while (*tail)
    tail = &(*tail)->next;
  *tail = p;
  return p;
}

static Pair *find_pair(Pair *list, const char *key) {
  for (; list; list = list->next)
    if (!strcmp(list->key, key))
      return list;
  return NULL;
}

/* Reads one line of any length; NULL at end of file. The newline is dropped. */
static char *read_line(FILE *f, char **line, size_t *cap) {
  ssize_t n = getline(line, cap, f);
  if (n < 0)
    return NULL;
  if (n > 0 && (*line)[n - 1] == '\n')
    (*line)[n - 1] = 0;
  return *line;
}

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t')
    s++;
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
    s[--n] = 0;
  return s;
}

/* The text of the tag `@name ` in a comment on this line, up to the comment's end. */
static char *tag_text(const char *line, const char *name) {
  const char *open = strstr(line, "/* @");
  for (; open; open = strstr(open + 1, "/* @")) {
    size_t n = strlen(name);
    if (!strncmp(open + 4, name, n) && open[4 + n] == ' ') {
      const char *s = open + 5 + n;
      const char *end = strstr(s, " */");
      return arena_strndup(s, end ? (size_t)(end - s) : strlen(s));
    }
  }
  return NULL;
}

/* Splits off the first space-separated word of *s. */
static char *word(char **s) {
  char *p = *s;
  while (*p == ' ')
    p++;
  char *start = p;
  while (*p && *p != ' ')
    p++;
  char *w = arena_strndup(start, (size_t)(p - start));
  *s = p;
  return w;
}

/* `#define NAME VALUE ...`: the value as a number, or -1. */
static long define_value(const char *line) {
  if (strncmp(line, "#define ", 8))
    return -1;
  const char *p = line + 8;
  while (*p && *p != ' ')
    p++;
  char *end;
  long v = strtol(p, &end, 10);
  return end == p ? -1 : v;
}

/* Promela name declared on a line `TYPE NAME[...] = ...; ...`. */
static char *declared_name(const char *line) {
  const char *p = line;
  while (*p && *p != ' ')
    p++;
  while (*p == ' ')
    p++;
  const char *s = p;
  while (*p && *p != ' ' && *p != '[' && *p != ';' && *p != '=')
    p++;
  return arena_strndup(s, (size_t)(p - s));
}

static void add_line_tag(Model *m, int lineno, char kind, const char *text) {
  if (lineno >= m->nlines) {
    int n = lineno * 2 + 64;
    LineTag *t = arena_alloc(sizeof(LineTag) * (size_t)n);
    if (m->nlines)
      memcpy(t, m->lines, sizeof(LineTag) * (size_t)m->nlines);
    m->lines = t;
    m->nlines = n;
  }
  m->lines[lineno].kind = kind;
  m->lines[lineno].text = text;
}

static void scan_model_line(Model *m, int lineno, char *line) {
  char *t;
  if ((t = tag_text(line, "esm")))
    add_line_tag(m, lineno, 'e', t);
  else if ((t = tag_text(line, "check")))
    add_line_tag(m, lineno, 'c', t);
  else if ((t = tag_text(line, "cpu")) || (t = tag_text(line, "share")))
    add_line_tag(m, lineno, 'y', t);
  else if ((t = tag_text(line, "machine"))) {
    char *name = word(&t);
    push_pair(&m->machines, name, word(&t), define_value(line));
  } else if ((t = tag_text(line, "state"))) {
    char *mach = word(&t), *st = word(&t);
    push_pair(&m->states, arena_printf("%s:%ld", mach, define_value(line)), st, 0);
  } else if ((t = tag_text(line, "event"))) {
    push_pair(&m->events, arena_printf("%ld", define_value(line)), word(&t), 0);
  } else if ((t = tag_text(line, "var"))) {
    char *name = word(&t);
    push_pair(&m->vars, declared_name(line), name, strstr(t, "event") != NULL);
  } else if ((t = tag_text(line, "resource"))) {
    push_pair(&m->resources, word(&t), "", 0);
  } else if ((t = tag_text(line, "queue"))) {
    push_pair(&m->queues, word(&t), "", 0);
  } else if ((t = tag_text(line, "hwaction"))) {
    push_pair(&m->hwactions, word(&t), "", 0);
  } else if ((t = tag_text(line, "prop"))) {
    char *kind = word(&t), *name = word(&t);
    while (*t == ' ')
      t++;
    push_pair(&m->props, name, arena_printf("%s %s %s", kind, name, t), 0);
  }
}

static int load_model(Model *m, const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "esmc: cannot open %s: %s\n", path, strerror(errno));
    return -1;
  }
  char *buf = NULL, *line;
  size_t cap = 0;
  for (int lineno = 1; (line = read_line(f, &buf, &cap)); lineno++)
    scan_model_line(m, lineno, line);
  free(buf);
  fclose(f);
  if (!m->machines) {
    fprintf(stderr, "esmc: %s does not look like a model written by esmc (no @machine tags)\n",
            path);
    return -1;
  }
  return 0;
}

/* ---- values ---- */

static unsigned hash(const char *s) {
  unsigned h = 2166136261u;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 16777619u;
  return h % NBUCKETS;
}

static Pair *find_value(Model *m, const char *key) {
  for (Pair *p = m->bucket[hash(key)]; p; p = p->hnext)
    if (!strcmp(p->key, key))
      return p;
  return NULL;
}

static void set_value(Model *m, const char *key, const char *val) {
  size_t n = strlen(val);
  Pair *p = find_value(m, key);
  if (!p) {
    p = arena_alloc(sizeof(Pair));
    p->key = arena_strdup(key);
    unsigned h = hash(key);
    p->hnext = m->bucket[h];
    m->bucket[h] = p;
    *m->values_tail = p;
    m->values_tail = &p->next;
  }
  if (p->val && (size_t)p->num > n) {
    memcpy((char *)p->val, val, n + 1);   /* overwrite in place: no growth per step */
    return;
  }
  p->val = arena_strdup(val);
  p->num = (long)n + 1;
}

static const char *get_value(Model *m, const char *key) {
  Pair *p = find_value(m, key);
  return p ? p->val : NULL;
}

/* `\t\tNAME = VALUE` (a global) or `\t\tqueue N (NAME): [..]` (a channel). */
static void scan_value(Model *m, char *line) {
  char *s = trim(line);
  if (!strncmp(s, "queue ", 6)) {
    char *open = strchr(s, '('), *close = open ? strstr(open, "):") : NULL;
    if (open && close) {
      *close = 0;
      set_value(m, open + 1, trim(close + 2));
    }
    return;
  }
  char *eq = strstr(s, " = ");
  if (!eq || eq == s)
    return;
  *eq = 0;
  if (strpbrk(s, " :()"))
    return;   /* a local (`M(1):x`) or not a value line */
  set_value(m, s, trim(eq + 3));
}

/* ---- the trail ---- */

typedef struct {
  Model *m;
  long last_depth, last_line;   /* one atomic step prints several Promela statements */
  int step;
  int failed;
  int cycle;
  int in_final;
} Trail;

/* From `  N:\tproc  K (NAME:1) FILE:LINE (state S)\t[...]`: the file and line. */
static int step_location(char *line, const char **file, int *lineno) {
  char *p = strstr(line, "proc ");
  if (!p)
    return 0;
  char *st = strstr(p, " (state ");
  if (!st)
    return 0;
  char *c = st;
  while (c > p && c[-1] >= '0' && c[-1] <= '9')
    c--;
  if (c == st || c == p || c[-1] != ':')
    return 0;
  long n = strtol(c, NULL, 10);
  char *f = c - 1;
  while (f > p && f[-1] != ' ')
    f--;
  *file = arena_strndup(f, (size_t)(c - 1 - f));
  *lineno = n > 0 && n < 1000000000 ? (int)n : 0;
  return 1;
}

static const LineTag *tag_at(Model *m, const char *file, int lineno) {
  if (strstr(file, "_spin_nvr") || lineno <= 0 || lineno >= m->nlines)
    return NULL;
  return m->lines[lineno].kind ? &m->lines[lineno] : NULL;
}

/* `FILE:LINE M: S --trig--> T` printed as `step N: M: S --trig--> T   (FILE:LINE)`. */
static void print_step(Trail *t, const char *text) {
  const char *sp = strchr(text, ' ');
  if (!sp) {
    printf("step %d: %s\n", ++t->step, text);
    return;
  }
  printf("step %d: %s   (%.*s)\n", ++t->step, sp + 1, (int)(sp - text), text);
}

static void assertion_failed(Trail *t, char *line) {
  /* spin: FILE:LINE, Error: assertion violated */
  char *s = line + 6;
  char *comma = strstr(s, ", Error");
  char *colon = NULL;
  for (char *c = s; comma && c < comma; c++)
    if (*c == ':')
      colon = c;
  t->failed = 1;
  if (!colon) {
    printf("error: %s\n", trim(s));
    return;
  }
  *comma = 0;
  *colon = 0;
  int lineno = (int)strtol(colon + 1, NULL, 10);
  const LineTag *tag = tag_at(t->m, s, lineno);
  if (strstr(s, "_spin_nvr")) {
    printf("property violated: the run above breaks the property being checked\n");
  } else if (tag && tag->kind == 'c') {
    const char *d = tag->text;
    if (!strncmp(d, "deadlock: ", 10))
      printf("DEADLOCK: no machine can move, and %s\n", d + 10);
    else
      printf("assertion failed: %s\n", d);
  } else {
    printf("assertion failed at model line %d\n", lineno);
  }
}

static void trail_line(Trail *t, char *line) {
  const char *file;
  int lineno;
  if (strstr(line, "START OF CYCLE")) {
    printf("<<<<<START OF CYCLE>>>>> (the steps from here repeat forever)\n");
    t->cycle = 1;
  } else if (!strncmp(line, "spin: ", 6) && strstr(line, "Error: assertion violated")) {
    assertion_failed(t, line);
  } else if (!strncmp(line, "spin: text of failed assertion:", 31)) {
    printf("  (Promela: %s)\n", trim(line + 31));
  } else if (!strncmp(line, "pan:", 4) || (!strncmp(line, "spin: ", 6) && strstr(line, "rror"))) {
    if (!t->failed)   /* later errors are consequences of the first */
      printf("%s\n", trim(line));
    t->failed = 1;
  } else if (!strncmp(line, "#processes:", 11)) {
    t->in_final = 1;
  } else if (line[0] == '\t' && line[1] == '\t') {
    scan_value(t->m, line);
  } else if (!t->in_final && step_location(line, &file, &lineno)) {
    long depth = strtol(line, NULL, 10);
    if (depth == t->last_depth && lineno == t->last_line)
      return;
    t->last_depth = depth;
    t->last_line = lineno;
    const LineTag *tag = tag_at(t->m, file, lineno);
    if (tag && tag->kind == 'e')
      print_step(t, tag->text);
    else if (tag && tag->kind == 'y')
      printf("        (%s)\n", tag->text);
  }
}

/* ---- final state ---- */

static void print_machines(Model *m) {
  for (Pair *mc = m->machines; mc; mc = mc->next) {
    const char *v = get_value(m, arena_printf("%s_st", mc->key));
    const char *state = "?";
    if (v) {
      Pair *s = find_pair(m->states, arena_printf("%s:%ld", mc->key, strtol(v, NULL, 10)));
      state = s ? s->val : arena_printf("state #%s", v);
    }
    printf("  %-12s in %s", mc->key, state);
    int first = 1;
    size_t n = strlen(mc->key);
    for (Pair *var = m->vars; var; var = var->next) {
      if (strncmp(var->val, mc->key, n) || var->val[n] != '.')
        continue;
      for (Pair *val = m->values; val; val = val->next) {
        size_t k = strlen(var->key);
        if (strncmp(val->key, var->key, k) || (val->key[k] && val->key[k] != '['))
          continue;
        const char *shown = val->val;
        if (var->num) {
          Pair *ev = find_pair(m->events, val->val);
          shown = ev ? ev->val : shown;
        }
        printf("%s%s%s = %s", first ? "   (" : ", ", var->val + n + 1, val->key + k, shown);
        first = 0;
      }
    }
    printf("%s\n", first ? "" : ")");
  }
}

static void print_system(Model *m) {
  Buf b = {0};
  for (Pair *ev = m->events; ev; ev = ev->next) {
    const char *v = get_value(m, arena_printf("pend[%s]", ev->key));
    if (v && strcmp(v, "0"))
      buf_printf(&b, "%s%s x%s", b.len ? ", " : "", ev->val, v);
  }
  printf("  pending events: %s\n", b.len ? b.data : "none");
  buf_free(&b);
  for (Pair *r = m->resources; r; r = r->next) {
    const char *v = get_value(m, arena_printf("own_%s", r->key));
    const char *holder = "?";
    if (v && !strcmp(v, "0"))
      holder = "free";
    else if (v)
      for (Pair *mc = m->machines; mc; mc = mc->next)
        if (mc->num == strtol(v, NULL, 10))
          holder = arena_printf("held by %s", mc->key);
    printf("  resource %s: %s\n", r->key, holder);
  }
  for (Pair *q = m->queues; q; q = q->next) {
    const char *v = get_value(m, arena_printf("qlen_%s", q->key));
    printf("  queue %s: %s element%s\n", q->key, v ? v : "?", v && !strcmp(v, "1") ? "" : "s");
  }
  for (Pair *h = m->hwactions; h; h = h->next) {
    const char *v = get_value(m, arena_printf("hw_%s", h->key));
    if (v && *v)
      printf("  requests queued for %s: %s\n", h->key, v);
  }
  for (Pair *var = m->vars; var; var = var->next) {
    if (strchr(var->val, '.'))
      continue;
    for (Pair *val = m->values; val; val = val->next) {
      size_t k = strlen(var->key);
      if (!strncmp(val->key, var->key, k) && (!val->key[k] || val->key[k] == '['))
        printf("  %s%s = %s\n", var->val, val->key + k, val->val);
    }
  }
}

static void usage(void) {
  fputs("usage: esmc --trail MODEL.pml [SPIN-OUTPUT]\n"
        "Reads `spin -t -p -g -l MODEL.pml` output (a file, or standard input) and prints the\n"
        "counterexample as ESM machine/state/event steps with their source lines.\n",
        stderr);
}

int trail_main(int argc, char **argv) {
  if (argc < 2 || argc > 3 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
    usage();
    return 2;
  }
  Model m = {0};
  m.values_tail = &m.values;
  if (load_model(&m, argv[1]) != 0) {
    arena_free_all();
    return 2;
  }
  FILE *in = stdin;
  if (argc == 3 && strcmp(argv[2], "-") != 0 && !(in = fopen(argv[2], "r"))) {
    fprintf(stderr, "esmc: cannot open %s: %s\n", argv[2], strerror(errno));
    arena_free_all();
    return 2;
  }
  Trail t = {.m = &m, .last_depth = -1};
  char *buf = NULL, *line;
  size_t cap = 0;
  printf("counterexample (%s):\n", argv[1]);
  while ((line = read_line(in, &buf, &cap)))
    trail_line(&t, line);
  free(buf);
  if (in != stdin)
    fclose(in);
  if (t.step == 0)
    printf("(no ESM transitions in the trail)\n");
  printf("final state:\n");
  print_machines(&m);
  print_system(&m);
  arena_free_all();
  return 0;
}
