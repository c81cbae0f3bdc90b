/* The compile pipeline: parse, check, generate, then run the VM's own loader and verifier on
 * the result, so pdlc never writes a module the NIC would reject. */
#include <stdlib.h>

#include "codegen.h"
#include "parse.h"
#include "pdlc.h"
#include "sema.h"
#include "vm.h"

static int self_check(const struct buf *img, struct diag *d, struct pos at) {
  size_t need = vm_mem_needed(img->p, img->len);
  void *mem = need ? malloc(need) : NULL;
  struct vm_program prog;
  struct vm_diag vd = {VM_ERR_OK, 0};
  int ok = mem != NULL && vm_load(&prog, img->p, img->len, mem, need, &vd);
  free(mem);
  if (!ok)
    diag_error(d, at, "internal error: generated module fails verification (%s at byte %u)",
               vm_err_name(vd.code), vd.offset);
  return ok;
}

int pdlc_compile(const char *file, const char *src, size_t len, FILE *out, struct buf *image) {
  return pdlc_compile_ex(file, src, len, out, image, 0);
}

int pdlc_compile_ex(const char *file, const char *src, size_t len, FILE *out, struct buf *image,
                    unsigned flags) {
  struct diag d;
  struct arena a = {NULL};
  diag_init(&d, file, src, len, out);
  int syntax_errors;
  struct program *prog = parse_program(&d, &a, &syntax_errors);
  if (syntax_errors == 0) sema_check(prog, &d);
  if (d.errors == 0) {
    struct module m;
    struct buf img = {NULL, 0, 0};
    codegen(prog, &d, &m, (flags & PDLC_NO_FUSE) == 0);
    if (d.errors == 0) module_write(&m, &img);
    if (d.errors == 0 && self_check(&img, &d, prog->pos))
      for (size_t i = 0; i < img.len; i++) buf_put8(image, img.p[i]);
    buf_free(&img);
    module_free(&m);
  }
  arena_free(&a);
  return d.errors;
}
