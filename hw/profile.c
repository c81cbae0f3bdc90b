/* profile.c: the hardware profile reader (profile.h). A line is blank, a comment (`#` to the
 * end of the line, anywhere), or `key = value`: the name is free text, every other value is a
 * decimal number (a fraction allowed) and a unit of the key's kind. */
#include "profile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum kind { K_NAME, K_FREQ, K_BW, K_TIME, K_COUNT };

struct key {
  const char *name;
  enum kind kind;
  size_t off;                 /* of the uint64_t field, or of name */
};

#define F(field) offsetof(struct profile, field)
static const struct key keys[] = {
    {"name", K_NAME, F(name)},
    {"nic.clock", K_FREQ, F(nic_hz)},
    {"hdma.bandwidth", K_BW, F(hdma_bps)},
    {"hdma.setup", K_TIME, F(hdma_setup_ns)},
    {"link.bandwidth", K_BW, F(link_bps)},
    {"link.latency", K_TIME, F(link_latency_ns)},
    {"send.setup", K_TIME, F(send_setup_ns)},
    {"host.call", K_TIME, F(host_call_ns)},
    {"host.wake", K_TIME, F(host_wake_ns)},
    {"host.memcpy", K_BW, F(host_copy_bps)},
    {"processors", K_COUNT, F(processors)},   /* optional */
};
#undef F
#define NKEYS (sizeof keys / sizeof keys[0])

struct unit {
  const char *name;
  double scale;               /* to Hz, bytes/s, ns or cycles */
};
static const struct unit freq_units[] = {{"Hz", 1}, {"kHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}, {0, 0}};
static const struct unit bw_units[] = {
    {"B/s", 1},      {"kB/s", 1e3},     {"KB/s", 1e3},     {"MB/s", 1e6},   {"GB/s", 1e9},
    {"b/s", 1 / 8.}, {"kb/s", 1e3 / 8}, {"Kb/s", 1e3 / 8}, {"Mb/s", 1e6 / 8}, {"Gb/s", 1e9 / 8},
    {0, 0}};
static const struct unit time_units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {0, 0}};
static const struct unit *const units_of[] = {
    [K_NAME] = NULL, [K_FREQ] = freq_units, [K_BW] = bw_units, [K_TIME] = time_units,
    [K_COUNT] = NULL};
static const char *const kind_name[] = {
    [K_NAME] = "text", [K_FREQ] = "a frequency (Hz, kHz, MHz, GHz)",
    [K_BW] = "a bandwidth (B/s, kB/s, MB/s, GB/s, b/s, Kb/s, Mb/s, Gb/s)",
    [K_TIME] = "a time (ns, us, ms, s)", [K_COUNT] = "1 or 2, without a unit"};

struct pos {
  const char *file;
  unsigned line;
  char *err;
  size_t cap;
};

static int fail(const struct pos *p, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(const struct pos *p, size_t col, const char *fmt, ...) {
  int n = snprintf(p->err, p->cap, "%s:%u:%zu: error: ", p->file, p->line, col + 1);
  if (n >= 0 && (size_t)n < p->cap) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err + n, p->cap - (size_t)n, fmt, ap);
    va_end(ap);
  }
  return -1;
}

static bool space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* A count in s[0..n) (trimmed): 1 or 2, nothing after it. */
static int count(const struct pos *p, const char *line, size_t at, size_t n, uint64_t *out) {
  const char *s = line + at;
  if (n != 1 || (s[0] != '1' && s[0] != '2'))
    return fail(p, at, "expected %s", kind_name[K_COUNT]);
  *out = (uint64_t)(s[0] - '0');
  return 0;
}

/* A number with a unit in s[0..n) (trimmed), into *out. */
static int value(const struct pos *p, const char *line, size_t at, size_t n, enum kind k,
                 uint64_t *out) {
  const char *s = line + at;
  size_t i = 0;
  double v = 0, frac = 0.1;
  bool digits = false;
  while (i < n && s[i] >= '0' && s[i] <= '9') v = v * 10 + (s[i++] - '0'), digits = true;
  if (i < n && s[i] == '.') {
    i++;
    while (i < n && s[i] >= '0' && s[i] <= '9') v += (s[i++] - '0') * frac, frac /= 10, digits = true;
  }
  if (!digits) return fail(p, at, "expected a number, %s", kind_name[k]);
  size_t u = i;
  while (u < n && space(s[u])) u++;
  size_t ulen = n - u;
  if (ulen == 0) return fail(p, at + i, "missing unit: expected %s", kind_name[k]);
  const struct unit *un = units_of[k];
  while (un->name && !(strlen(un->name) == ulen && memcmp(un->name, s + u, ulen) == 0)) un++;
  if (!un->name) return fail(p, at + u, "unknown unit '%.*s': expected %s", (int)ulen, s + u, kind_name[k]);
  double x = v * un->scale;
  if (!(x < 1e18)) return fail(p, at, "value out of range");
  if ((k == K_FREQ || k == K_BW) && x < 1) return fail(p, at, "must be positive");
  *out = (uint64_t)(x + 0.5);
  return 0;
}

int profile_parse(const char *file, const char *text, size_t len, struct profile *pr, char *err,
                  size_t cap) {
  memset(pr, 0, sizeof *pr);
  bool seen[NKEYS] = {false};
  struct pos p = {.file = file, .line = 0, .err = err, .cap = cap};
  size_t i = 0;
  while (i < len) {
    p.line++;
    const char *line = text + i;
    size_t n = 0;
    while (i + n < len && line[n] != '\n') n++;
    i += n + (i + n < len);
    size_t end = 0;
    while (end < n && line[end] != '#') end++;
    if (memchr(line, '\0', end)) return fail(&p, (size_t)((const char *)memchr(line, '\0', end) - line), "NUL byte");
    while (end > 0 && space(line[end - 1])) end--;
    size_t a = 0;
    while (a < end && space(line[a])) a++;
    if (a == end) continue;
    size_t kb = a;
    while (a < end && !space(line[a]) && line[a] != '=') a++;
    size_t klen = a - kb;
    while (a < end && space(line[a])) a++;
    if (klen == 0) return fail(&p, kb, "expected a key before '='");
    if (a == end || line[a] != '=') return fail(&p, a, "expected '=' after '%.*s'", (int)klen, line + kb);
    a++;
    while (a < end && space(line[a])) a++;
    size_t k = 0;
    while (k < NKEYS && !(strlen(keys[k].name) == klen && memcmp(keys[k].name, line + kb, klen) == 0)) k++;
    if (k == NKEYS) return fail(&p, kb, "unknown key '%.*s'", (int)klen, line + kb);
    if (seen[k]) return fail(&p, kb, "'%s' given twice", keys[k].name);
    seen[k] = true;
    if (a == end) return fail(&p, a, "'%s' has no value", keys[k].name);
    if (keys[k].kind == K_NAME) {
      if (end - a >= sizeof pr->name) return fail(&p, a, "name longer than %zu characters", sizeof pr->name - 1);
      memcpy(pr->name, line + a, end - a);
      pr->name[end - a] = '\0';
    } else if (keys[k].kind == K_COUNT) {
      if (count(&p, line, a, end - a, (uint64_t *)((char *)pr + keys[k].off)) != 0) return -1;
    } else if (value(&p, line, a, end - a, keys[k].kind, (uint64_t *)((char *)pr + keys[k].off)) != 0) {
      return -1;
    }
  }
  p.line++;
  for (size_t k = 0; k < NKEYS; k++)
    if (!seen[k] && keys[k].kind != K_COUNT) return fail(&p, 0, "missing key '%s'", keys[k].name);
  if (!pr->processors) pr->processors = 1;
  return 0;
}

int profile_load(const char *path, struct profile *p, char *err, size_t cap) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, cap, "%s: %s", path, strerror(errno));
    return -1;
  }
  char *buf = NULL;
  size_t n = 0, size = 0;
  for (;;) {
    if (n == size) {
      size = size ? 2 * size : 4096;
      if (size > (1u << 20)) {
        snprintf(err, cap, "%s: larger than 1 MiB", path);
        free(buf), fclose(f);
        return -1;
      }
      char *b = realloc(buf, size);
      if (!b) {
        snprintf(err, cap, "%s: out of memory", path);
        free(buf), fclose(f);
        return -1;
      }
      buf = b;
    }
    size_t r = fread(buf + n, 1, size - n, f);
    if (r == 0) break;
    n += r;
  }
  bool bad = ferror(f);
  fclose(f);
  int rc = bad ? (snprintf(err, cap, "%s: read error", path), -1)
               : profile_parse(path, buf, n, p, err, cap);
  free(buf);
  return rc;
}

uint64_t profile_cycles_ns(const struct profile *p, uint64_t cycles) {
  if (!p->nic_hz) return 0;
  unsigned __int128 x = (unsigned __int128)cycles * 1000000000u + p->nic_hz - 1;
  return (uint64_t)(x / p->nic_hz);
}
