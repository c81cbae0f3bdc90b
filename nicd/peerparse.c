/* peerparse.c: one line of the nicd-to-nicd control protocol (CONNECT.md, "Between nicds"),
 * parsed strictly and apart from what it does (peer.c), so that it can be fuzzed alone: fields
 * one space apart, the number of fields the verb asks for, numbers decimal digits only and at
 * most 4294967295, strings taken whole as pointers into the line. */
#define _GNU_SOURCE
#include <string.h>

#include "nicd.h"

#define MAXTOK 9

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

/* Each line: its verb, then 'n' (a number) or 's' (a string) per field. */
static const struct { const char *verb; enum peer_verb v; const char *args; } shapes[] = {
    {"HB", PEER_HB, ""},           {"HELLO", PEER_HELLO, "n"}, {"CONN", PEER_CONN, "nnnnssn"},
    {"WDRAW", PEER_WDRAW, "n"},    {"ACC", PEER_ACC, "nnnn"},  {"REJ", PEER_REJ, "n"},
    {"FAIL", PEER_FAIL, "ns"},     {"DONE", PEER_DONE, "nn"},  {"DISC", PEER_DISC, "nnnn"},
};

enum peer_verb peer_parse(char *line, struct peer_msg *m) {
  memset(m, 0, sizeof *m);
  char *tok[MAXTOK], *save = NULL;
  int n = 0;
  for (char *p = strtok_r(line, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
    if (n == MAXTOK) return PEER_BAD;
    tok[n++] = p;
  }
  if (n == 0) return PEER_BAD;
  for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
    if (strcmp(tok[0], shapes[k].verb) != 0) continue;
    const char *a = shapes[k].args;
    if ((size_t)n != 1 + strlen(a)) return PEER_BAD;
    unsigned nn = 0, ns = 0;
    for (int i = 1; i < n; i++) {
      if (a[i - 1] == 'n') {
        if (!num(tok[i], &m->n[nn++])) return PEER_BAD;
      } else {
        m->s[ns++] = tok[i];
      }
    }
    return m->verb = shapes[k].v;
  }
  return PEER_BAD;
}
