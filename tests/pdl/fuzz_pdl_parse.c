/* libFuzzer target: arbitrary text through pdlc (lexer, parser, checks, code generator).
 * Whatever compiles must load, verify and run under a budget; the compiler's own
 * "internal error" (its output failing verification) is a finding. */
#define _GNU_SOURCE 1
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nic_host.h"
#include "pdlc.h"
#include "vm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void run(const struct buf *img) {
  static struct nic_host host;
  size_t need = vm_mem_needed(img->p, img->len);
  uint8_t *mem = malloc(need ? need : 1);
  struct vm_program p;
  struct vm_diag d;
  if (!vm_load(&p, img->p, img->len, mem, need, &d)) abort();
  struct vm_services s;
  nic_host_init(&host, NULL);
  nic_host_services(&host, &s);
  vm_start(&p, &s, 20000);
  for (uint32_t i = 0; i < p.ntrig; i++) vm_dispatch(&p, p.trig[2 * i], NULL, &s, 20000);
  free(mem);
}

/* A diagnostic line (not a quoted source line, which starts with spaces) saying "internal". */
static int internal_error(const char *diag) {
  for (const char *line = diag; line != NULL; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
    if (strncmp(line, "fuzz.pdl:", 9) == 0) {
      const char *e = strstr(line, ": error: internal error");
      const char *nl = strchr(line, '\n');
      if (e != NULL && (nl == NULL || e < nl)) return 1;
    }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *diag = NULL;
  size_t dlen = 0;
  FILE *out = open_memstream(&diag, &dlen);
  struct buf img = {NULL, 0, 0};
  int errors = pdlc_compile("fuzz.pdl", (const char *)data, size, out, &img);
  fclose(out);
  if (errors == 0) run(&img);
  if (errors != 0 && (dlen == 0 || internal_error(diag))) abort();
  free(diag);
  buf_free(&img);
  return 0;
}
