/* libFuzzer target: arbitrary text through pdlc (lexer, parser, checks, code generator).
 * Whatever compiles must load, verify and run under a budget; the compiler's own
 * "internal error" (its output failing verification) is a finding. So is any difference
 * between the program compiled with the fused instructions and with only the basic ones
 * (PDLC_NO_FUSE): the service calls, every activation's result and the final data words must
 * agree whenever neither run ran out of budget (they execute different instruction counts). */
#define _GNU_SOURCE 1
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nic_host.h"
#include "pdlc.h"
#include "vm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Starts the program and sends each trigger once, writing what it observably did to out.
 * Returns whether no activation ran out of budget. */
static bool run(const struct buf *img, FILE *out) {
  static struct nic_host host;
  size_t need = vm_mem_needed(img->p, img->len);
  uint8_t *mem = malloc(need ? need : 1);
  struct vm_program p;
  struct vm_diag d;
  if (!vm_load(&p, img->p, img->len, mem, need, &d)) abort();
  struct vm_services s;
  nic_host_init(&host, out);
  nic_host_services(&host, &s);
  enum vm_result r = vm_start(&p, &s, 20000);
  bool whole = r != VM_R_BUDGET;
  fprintf(out, "result %s\n", vm_result_name(r));
  for (uint32_t i = 0; i < p.ntrig; i++) {
    r = vm_dispatch(&p, p.trig[2 * i], NULL, &s, 20000);
    whole = whole && r != VM_R_BUDGET;
    fprintf(out, "result %s\n", vm_result_name(r));
  }
  for (uint32_t i = 0; i < p.data_words; i++) fprintf(out, "%d ", (int)p.data[i]);
  free(mem);
  return whole;
}

/* Runs img and its unfused twin; aborts when they differ. */
static void compare(const struct buf *img, const uint8_t *data, size_t size) {
  struct buf plain = {NULL, 0, 0};
  char *t1 = NULL, *t2 = NULL;
  size_t n1 = 0, n2 = 0;
  FILE *devnull = fopen("/dev/null", "w");
  if (pdlc_compile_ex("fuzz.pdl", (const char *)data, size, devnull, &plain, PDLC_NO_FUSE) != 0)
    abort(); /* the same program must compile either way */
  fclose(devnull);
  FILE *o1 = open_memstream(&t1, &n1), *o2 = open_memstream(&t2, &n2);
  bool whole = run(img, o1);
  whole = run(&plain, o2) && whole;
  fclose(o1);
  fclose(o2);
  if (whole && strcmp(t1, t2) != 0) {
    fprintf(stderr, "fused:\n%s\nplain:\n%s\n", t1, t2);
    abort();
  }
  free(t1);
  free(t2);
  buf_free(&plain);
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
  if (errors == 0) compare(&img, data, size);
  if (errors != 0 && (dlen == 0 || internal_error(diag))) abort();
  free(diag);
  buf_free(&img);
  return 0;
}
