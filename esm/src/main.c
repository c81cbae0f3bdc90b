/* main.c: the esmc command line: read ESM files, check them, run the chosen backends. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend.h"
#include "diag.h"
#include "parse.h"
#include "sema.h"

static void usage(FILE *f) {
  fputs("usage: esmc [--pml] [--c] [--dot] [--check] -o OUTDIR FILE.esm...\n"
        "       esmc --trail MODEL.pml [SPIN-OUTPUT]\n"
        "\n"
        "Compiles an ESM system (one or more files) to a PROMELA model (--pml), freestanding\n"
        "C firmware (--c) and Graphviz diagrams (--dot); with no backend option, all three.\n"
        "  -o OUTDIR   directory for the output files (created if missing)\n"
        "  --check     parse and check only; write nothing\n"
        "  --unlocked-shared  accept a variable written from both processors without a lock\n"
        "              (for mutation tests: the model then shows the lost update)\n"
        "  --trail     translate `spin -t -p -g MODEL.pml` output (a file or standard input)\n"
        "              into machine/state/event steps with ESM source lines\n"
        "  -h, --help  this text\n"
        "Diagnostics are printed as file:line:col: error: message. Exit status: 0 on success,\n"
        "1 on errors in the sources, 2 on usage or I/O errors.\n",
        f);
}

/* Reads a whole file into the arena (NUL bytes included: *len is its length). */
static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "esmc: cannot open %s: %s\n", path, strerror(errno));
    return NULL;
  }
  char *data = NULL, chunk[8192];
  size_t n, total = 0;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
    char *grown = realloc(data, total + n);
    if (!grown) break;
    data = grown;
    memcpy(data + total, chunk, n);
    total += n;
  }
  int bad = ferror(f) || n > 0;
  fclose(f);
  if (bad) {
    fprintf(stderr, "esmc: cannot read %s\n", path);
    free(data);
    return NULL;
  }
  char *text = arena_alloc(total + 1);   /* zeroed: NUL-terminated */
  if (total) memcpy(text, data, total);
  free(data);
  *len = total;
  return text;
}

/* Sources are text: a NUL byte is an error at its position (the text is cut there so the
 * diagnostic can quote its line). True if the text is clean. */
static bool check_nul(const char *file, char *text, size_t len) {
  char *nul = memchr(text, '\0', len);
  if (!nul) return true;
  int line = 1;
  const char *line_start = text;
  for (const char *p = text; p < nul; p++)
    if (*p == '\n') line++, line_start = p + 1;
  diag_add_source(file, text);
  error_at((Loc){file, line, (int)(nul - line_start) + 1},
           "NUL byte in the source (ESM sources are text)");
  return false;
}
static int make_dir(const char *dir) {
  if (mkdir(dir, 0777) == 0 || errno == EEXIST)
    return 0;
  fprintf(stderr, "esmc: cannot create %s: %s\n", dir, strerror(errno));
  return -1;
}

static char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  s = s ? s + 1 : path;
  const char *dot = strrchr(s, '.');
  return arena_strndup(s, dot ? (size_t)(dot - s) : strlen(s));
}

int main(int argc, char **argv) {
  if (argc >= 2 && !strcmp(argv[1], "--trail"))
    return trail_main(argc - 1, argv + 1);

  int want_pml = 0, want_c = 0, want_dot = 0, check_only = 0, unlocked = 0, nfiles = 0;
  const char *outdir = NULL;
  const char **files = calloc((size_t)argc, sizeof *files);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      free(files);
      return 0;
    } else if (!strcmp(a, "--pml")) {
      want_pml = 1;
    } else if (!strcmp(a, "--c")) {
      want_c = 1;
    } else if (!strcmp(a, "--dot")) {
      want_dot = 1;
    } else if (!strcmp(a, "--check")) {
      check_only = 1;
    } else if (!strcmp(a, "--unlocked-shared")) {
      unlocked = 1;
    } else if (!strcmp(a, "-o")) {
      if (++i == argc) {
        fputs("esmc: -o needs a directory\n", stderr);
        free(files);
        return 2;
      }
      outdir = argv[i];
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "esmc: unknown option '%s' (see esmc --help)\n", a);
      free(files);
      return 2;
    } else {
      files[nfiles++] = a;
    }
  }
  if (nfiles == 0 || (!outdir && !check_only)) {
    usage(stderr);
    free(files);
    return 2;
  }
  if (!want_pml && !want_c && !want_dot)
    want_pml = want_c = want_dot = 1;

  System *sys = NULL;
  int status = 0;
  for (int i = 0; i < nfiles; i++) {
    size_t len = 0;
    char *text = read_file(files[i], &len);
    if (!text) {
      status = 2;
      continue;
    }
    if (!check_nul(files[i], text, len)) continue;
    diag_add_source(files[i], text);
    parse_source(&sys, files[i], text);
  }
  if (sys)
    sys->unlocked_shared = unlocked;
  if (status == 0 && diag_error_count() == 0)
    sema_check(sys, base_name(files[0]));
  if (status == 0 && diag_error_count() > 0) {
    int n = diag_error_count();
    fprintf(stderr, "%d error%s\n", n, n == 1 ? "" : "s");
    status = 1;
  }
  if (status == 0 && !check_only) {
    if (make_dir(outdir) != 0 || (want_pml && gen_pml(sys, outdir) != 0) ||
        (want_c && gen_c(sys, outdir) != 0) || (want_dot && gen_dot(sys, outdir) != 0))
      status = 2;
  }
  free(files);
  arena_free_all();
  return status;
}
