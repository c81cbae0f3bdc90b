/* pdlc: the PDL compiler command line. */
#include <stdlib.h>
#include <string.h>

#include "pdlc.h"

static const char usage[] =
    "usage: pdlc [options] FILE\n"
    "Compiles a PDL program (PANIC) into a PANIC VM module.\n"
    "\n"
    "options:\n"
    "  -o OUT     write the module to OUT (default: FILE with its extension replaced by .pvm)\n"
    "  -S         print the module's disassembly to standard output\n"
    "  --check    check the program only; write no module\n"
    "  --asm      FILE is PANIC VM assembly instead of PDL\n"
    "  --no-fuse  emit only the basic stack instructions (no fused forms, FORMAT.md)\n"
    "  --dump     FILE is a module: print its header, triggers and code\n"
    "  -h, --help show this help\n"
    "\n"
    "Diagnostics go to standard error as file:line:col: error: message.\n"
    "Exit status: 0 on success, 1 on errors in the input, 2 on usage or I/O errors.\n";

struct opts {
  const char *in, *out;
  int disasm, check, assemble, dump, no_fuse;
};

static int parse_args(int argc, char **argv, struct opts *o) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(usage, stdout);
      exit(0);
    } else if (strcmp(a, "-o") == 0 && i + 1 < argc) {
      o->out = argv[++i];
    } else if (strcmp(a, "-S") == 0) {
      o->disasm = 1;
    } else if (strcmp(a, "--check") == 0) {
      o->check = 1;
    } else if (strcmp(a, "--asm") == 0) {
      o->assemble = 1;
    } else if (strcmp(a, "--no-fuse") == 0) {
      o->no_fuse = 1;
    } else if (strcmp(a, "--dump") == 0) {
      o->dump = 1;
    } else if (a[0] == '-' || o->in != NULL) {
      fprintf(stderr, "pdlc: unexpected argument '%s'\n%s", a, usage);
      return 0;
    } else {
      o->in = a;
    }
  }
  if (o->in == NULL) fprintf(stderr, "pdlc: no input file\n%s", usage);
  return o->in != NULL;
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  struct buf b = {NULL, 0, 0};
  int c;
  while ((c = fgetc(f)) != EOF) buf_put8(&b, (uint8_t)c);
  fclose(f);
  buf_put8(&b, 0);
  *len = b.len - 1;
  return (char *)b.p;
}

static char *default_out(const char *in) {
  size_t n = strlen(in);
  const char *dot = strrchr(in, '.'), *slash = strrchr(in, '/');
  if (dot != NULL && (slash == NULL || dot > slash)) n = (size_t)(dot - in);
  char *out = malloc(n + 5);
  if (out == NULL) abort();
  memcpy(out, in, n);
  strcpy(out + n, ".pvm");
  return out;
}

static int write_file(const char *path, const struct buf *b) {
  FILE *f = fopen(path, "wb");
  if (f == NULL) return 0;
  int ok = fwrite(b->p, 1, b->len, f) == b->len;
  return fclose(f) == 0 && ok;
}

int main(int argc, char **argv) {
  struct opts o = {0};
  size_t len;
  if (!parse_args(argc, argv, &o)) return 2;
  char *src = read_file(o.in, &len);
  if (src == NULL) {
    perror(o.in);
    return 2;
  }
  if (o.dump) {
    int rc = pdlc_disasm((const uint8_t *)src, len, stdout);
    free(src);
    return rc;
  }
  struct buf img = {NULL, 0, 0};
  unsigned flags = o.no_fuse ? PDLC_NO_FUSE : 0;
  int errors = o.assemble ? pdlc_assemble(o.in, src, len, stderr, &img)
                          : pdlc_compile_ex(o.in, src, len, stderr, &img, flags);
  int rc = errors ? 1 : 0;
  if (errors)
    fprintf(stderr, "%d error%s\n", errors, errors == 1 ? "" : "s");
  if (!errors && o.disasm) pdlc_disasm(img.p, img.len, stdout);
  if (!errors && !o.check && (o.out != NULL || !o.disasm)) {
    char *out = o.out ? NULL : default_out(o.in);
    if (!write_file(o.out ? o.out : out, &img)) {
      perror(o.out ? o.out : out);
      rc = 2;
    }
    free(out);
  }
  buf_free(&img);
  free(src);
  return rc;
}
