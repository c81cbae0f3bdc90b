/* iss_dis.c: prints iss_disasm's text for each hex word on stdin (one per line, the word
 * taken to sit at address 4 * line index), for tests/iss/check_disasm.py. With -d it also
 * prints whether the ISS decoder executes the word ("exec" or "undef"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iss.h"
#include "iss_internal.h"

int main(int argc, char **argv)
{
  bool dec = argc > 1 && !strcmp(argv[1], "-d");
  char line[64], text[128];
  uint32_t pc = 0;
  while (fgets(line, sizeof line, stdin)) {
    uint32_t w = (uint32_t)strtoul(line, NULL, 16);
    int ok = iss_disasm(w, pc, text, sizeof text);
    if (dec) {
      struct iss_op op;
      iss_decode(w, pc, &op);
      printf("%d %s\t%s\n", ok, op.kind == K_UNDEF ? "undef" : "exec", text);
    } else {
      printf("%s\n", text);
    }
    pc += 4;
  }
  return 0;
}
