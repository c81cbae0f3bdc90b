/* fuzz_esmc.c: libFuzzer target for the ESM front end. Any bytes go through the lexer, the
 * parser and semantic analysis; they must never crash, hang or leak, only report errors. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "parse.h"
#include "sema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0'; /* esmc rejects NUL bytes before parsing; here they just end the text */
  diag_reset();
  diag_set_quiet(1);
  diag_add_source("fuzz.esm", text);
  System *sys = NULL;
  parse_source(&sys, "fuzz.esm", text);
  if (diag_error_count() == 0)
    sema_check(sys, "fuzz");
  arena_free_all();
  free(text);
  return 0;
}
