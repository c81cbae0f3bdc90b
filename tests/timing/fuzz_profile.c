/* fuzz_profile.c: libFuzzer over the hardware profile reader (hw/profile.c): any bytes give a
 * profile or a `t.prof:line:col: error:` message, never a crash. */
#include <stdint.h>
#include <string.h>

#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct profile p;
  char err[PROFILE_ERR_LEN];
  if (profile_parse("t.prof", (const char *)data, size, &p, err, sizeof err) != 0 &&
      strncmp(err, "t.prof:", 7) != 0)
    __builtin_trap();
  return 0;
}
