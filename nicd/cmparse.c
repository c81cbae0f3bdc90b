/* cmparse.c: the connection manager's request lines (CONNECT.md), parsed strictly and apart
 * from what they do (cm.c), so that the parser can be fuzzed alone: fields one space apart,
 * numbers decimal digits only and at most 4294967295 (no sign, no hex, no wrap), strings
 * (names, discriminators) taken whole as pointers into the line. */
#define _GNU_SOURCE
#include <string.h>

#include "nicd.h"

#define MAXTOK 7

static bool num(const char *s, unsigned *out) {
  size_t n = strlen(s);
  if (n == 0 || n > 10) return false;
  unsigned long long v = 0;
  for (const char *p = s; *p; p++) {
    if (*p < '0' || *p > '9') return false;
    v = v * 10 + (unsigned)(*p - '0');
  }
  if (v > 0xffffffffull) return false;
  *out = (unsigned)v;
  return true;
}

/* The shape of each request: its verb, then 'n' (a number) or 's' (a string) per field. */
static const struct { const char *verb; enum cm_verb v; const char *args; } shapes[] = {
    {"PING", CM_PING, ""},         {"RESOLVE", CM_RESOLVE, "s"}, {"STATS", CM_STATS, "n"},
    {"WAIT", CM_WAIT, "ns"},       {"CONNECT", CM_CONNECT, "nnnss"},
    {"ACCEPT", CM_ACCEPT, "nnn"},  {"REJECT", CM_REJECT, "n"},   {"DISCONNECT", CM_DISCONNECT, "nn"},
    {"FABRIC", CM_FABRIC, ""},     {"PEER", CM_PEER, "n"},
};

enum cm_verb cm_parse(char *line, struct cm_req *r) {
  memset(r, 0, sizeof *r);
  char *tok[MAXTOK], *save = NULL;
  int n = 0;
  for (char *p = strtok_r(line, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
    if (n == MAXTOK) return CM_BAD;
    tok[n++] = p;
  }
  if (n == 0) return CM_BAD;
  for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
    if (strcmp(tok[0], shapes[k].verb) != 0) continue;
    const char *a = shapes[k].args;
    if ((size_t)n != 1 + strlen(a)) return CM_BAD;
    unsigned nn = 0, ns = 0;
    for (int i = 1; i < n; i++) {
      if (a[i - 1] == 'n') {
        if (!num(tok[i], &r->n[nn++])) return CM_BAD;
      } else {
        r->s[ns++] = tok[i];
      }
    }
    return r->verb = shapes[k].v;
  }
  return CM_BAD;
}
