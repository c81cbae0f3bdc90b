/* lineparse.c: the strict line grammar of nicd's two text protocols (CONNECT.md: the
 * connection manager's requests, cmparse.c, and the lines nicds send each other,
 * peerparse.c): fields one space apart, the number of fields the verb asks for, numbers
 * decimal digits only and at most 4294967295 (no sign, no hex, no wrap), strings taken whole
 * as pointers into the line. */
#define _GNU_SOURCE
#include <string.h>

#include "nicd.h"

#define MAXTOK 10

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

int line_parse(char *line, const struct line_shape *shapes, size_t nshapes, int bad,
               unsigned *nums, const char **strs) {
  char *tok[MAXTOK], *save = NULL;
  int n = 0;
  for (char *p = strtok_r(line, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
    if (n == MAXTOK) return bad;
    tok[n++] = p;
  }
  if (n == 0) return bad;
  for (size_t k = 0; k < nshapes; k++) {
    if (strcmp(tok[0], shapes[k].verb) != 0) continue;
    const char *a = shapes[k].args;
    if ((size_t)n != 1 + strlen(a)) return bad;
    unsigned nn = 0, ns = 0;
    for (int i = 1; i < n; i++) {
      if (a[i - 1] == 'n') {
        if (!num(tok[i], &nums[nn++])) return bad;
      } else {
        strs[ns++] = tok[i];
      }
    }
    return shapes[k].v;
  }
  return bad;
}
