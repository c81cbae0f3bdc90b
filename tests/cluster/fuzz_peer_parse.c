/* libFuzzer target: arbitrary lines through the parser of nicd's control protocol between
 * nicds (nicd/peerparse.c). Whatever it accepts has the shape its verb asks for: every string
 * a non-empty field of the line without spaces; every number the decimal field it came from. */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "nicd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char line[512], copy[512];
  if (size > sizeof line - 1) size = sizeof line - 1;
  memcpy(line, data, size);
  line[size] = 0;
  memcpy(copy, line, size + 1);
  struct peer_msg m;
  enum peer_verb v = peer_parse(line, &m);
  if (v == PEER_BAD) return 0;
  assert(v == m.verb && v < PEER_NVERBS);
  for (int i = 0; i < 2; i++) {
    if (!m.s[i]) continue;
    assert(m.s[i] >= line && m.s[i] < line + size && *m.s[i] && !strchr(m.s[i], ' '));
  }
  for (int i = 0; i < 5; i++) {   /* a number's digits appear in the original line */
    char d[16];
    snprintf(d, sizeof d, "%u", m.n[i]);
    assert(m.n[i] == 0 || strstr(copy, d));
  }
  return 0;
}
