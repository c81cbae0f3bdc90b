/* libFuzzer target: arbitrary request lines through nicd's connection manager parser
 * (nicd/cmparse.c). Whatever it accepts has the shape its verb asks for: every string
 * a non-empty field of the line without spaces; every number the decimal field it came from. */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "nicd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char line[256], copy[256];
  if (size > sizeof line - 1) size = sizeof line - 1;
  memcpy(line, data, size);
  line[size] = 0;
  memcpy(copy, line, size + 1);
  struct cm_req r;
  enum cm_verb v = cm_parse(line, &r);
  if (v == CM_BAD) return 0;
  assert(v == r.verb && v < CM_NVERBS);
  for (int i = 0; i < 2; i++) {
    if (!r.s[i]) continue;
    assert(r.s[i] >= line && r.s[i] < line + size && *r.s[i] && !strchr(r.s[i], ' '));
  }
  for (int i = 0; i < 3; i++) {   /* a number's digits appear in the original line */
    char d[16];
    snprintf(d, sizeof d, "%u", r.n[i]);
    assert(r.n[i] == 0 || strstr(copy, d));
  }
  return 0;
}
