/* Conformance runner for the PANIC VM toolchain, in the spirit of uBPF's .data tests.
 * Each .data file in tests/pdl/conformance has sections introduced by "-- NAME" lines:
 *   pdl | asm | hex   the program: PDL source, VM assembly, or module bytes in hex
 *   error             expected compiler/assembler diagnostics, one substring per line
 *   verify-error      expected load failure: "REASON at OFFSET"
 *   input             commands: start [budget N] | message N [payload HEX] [budget N]
 *                     [repeat K] | host SEG OFF HEX | fail | state | trace on|off
 *                     (default: start)
 *   expect            the exact trace of NIC service calls and "result R" lines
 * Prints one line per file and "N passed, N failed". */
#define _GNU_SOURCE 1
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nic_host.h"
#include "pdlc.h"
#include "vm.h"

#define MAX_SECTIONS 8

struct test {
  const char *path;
  char *names[MAX_SECTIONS], *bodies[MAX_SECTIONS];
  int n;
};

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  char *s = NULL;
  size_t n = 0;
  FILE *m = open_memstream(&s, &n);
  int c;
  while ((c = fgetc(f)) != EOF) fputc(c, m);
  fclose(f);
  fclose(m);
  return s;
}

/* Splits the text in place at "-- name" lines. */
static void sections(struct test *t, char *text) {
  char *line = text;
  t->n = 0;
  while (line != NULL && *line) {
    char *nl = strchr(line, '\n');
    if (strncmp(line, "-- ", 3) == 0 && t->n < MAX_SECTIONS) {
      if (nl) *nl = '\0';
      t->names[t->n] = line + 3;
      t->bodies[t->n++] = nl ? nl + 1 : line + strlen(line);
      if (line > text) line[-1] = '\0';
    }
    line = nl ? nl + 1 : NULL;
  }
}

static const char *section(const struct test *t, const char *name) {
  for (int i = 0; i < t->n; i++)
    if (strcmp(t->names[i], name) == 0) return t->bodies[i];
  return NULL;
}

static int hexval(int c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Appends hex digit pairs from s (whitespace and '#' comments skipped) to b. */
static int parse_hex(const char *s, struct buf *b) {
  int hi = -1;
  for (; *s; s++) {
    if (*s == '#') {
      while (*s && *s != '\n') s++;
      if (!*s) break;
      continue;
    }
    if (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r') continue;
    int v = hexval(*s);
    if (v < 0) return 0;
    if (hi < 0) hi = v;
    else buf_put8(b, (uint8_t)(hi << 4 | v)), hi = -1;
  }
  return hi < 0;
}

static char *fail_msg;

static int failf(const char *fmt, const char *a, const char *b) {
  free(fail_msg);
  if (asprintf(&fail_msg, fmt, a, b) < 0) fail_msg = NULL;
  return 0;
}

/* Every non-empty line of want must occur in got. */
static int contains_lines(const char *want, const char *got) {
  char *w = strdup(want);
  int ok = 1;
  for (char *line = strtok(w, "\n"); line && ok; line = strtok(NULL, "\n"))
    if (line[strspn(line, " \t")] != '\0' && strstr(got, line) == NULL)
      ok = failf("missing diagnostic '%s' in:\n%s", line, got);
  free(w);
  return ok;
}

static void trim(char *s) {
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\r')) s[--n] = '\0';
}

static int build(const struct test *t, struct buf *img) {
  const char *src, *want = section(t, "error");
  char *diag = NULL;
  size_t dlen = 0;
  FILE *d = open_memstream(&diag, &dlen);
  int errors = 0;
  if ((src = section(t, "pdl")) != NULL) errors = pdlc_compile("test.pdl", src, strlen(src), d, img);
  else if ((src = section(t, "asm")) != NULL) errors = pdlc_assemble("test.s", src, strlen(src), d, img);
  else if ((src = section(t, "hex")) != NULL) errors = !parse_hex(src, img);
  else errors = -1;
  fclose(d);
  int ok;
  if (errors < 0) ok = failf("no pdl, asm or hex section%s%s", "", "");
  else if (want != NULL) ok = errors > 0 ? contains_lines(want, diag) : failf("compiled, but expected:\n%s%s", want, "");
  else ok = errors == 0 ? 1 : failf("build failed:\n%s%s", diag, "");
  free(diag);
  return ok;
}

static uint32_t word_after(const char *line, const char *key, uint32_t dflt) {
  const char *k = strstr(line, key);
  return k ? (uint32_t)strtoul(k + strlen(key), NULL, 0) : dflt;
}

static void run_command(char *line, struct vm_program *p, struct nic_host *h,
                        const struct vm_services *s, FILE *tr) {
  static const char *const states[] = {"empty", "loaded", "waiting", "stopped"};
  uint32_t budget = word_after(line, " budget ", 1000000);
  enum vm_result r = VM_R_NOT_READY;
  if (strncmp(line, "start", 5) == 0) {
    r = vm_start(p, s, budget);
  } else if (strncmp(line, "message ", 8) == 0) {
    struct buf payload = {NULL, 0, 0};
    const char *pl = strstr(line, " payload ");
    if (pl != NULL) {
      char *hexs = strndup(pl + 9, strcspn(pl + 9, " "));
      parse_hex(hexs, &payload);
      free(hexs);
    }
    struct vm_msg m = {payload.p, (uint32_t)payload.len};
    for (uint32_t k = word_after(line, " repeat ", 1); k > 0; k--) {
      r = vm_dispatch(p, (uint32_t)strtoul(line + 8, NULL, 0), &m, s, budget);
      if (k > 1 && h->trace != NULL) fprintf(tr, "result %s\n", vm_result_name(r));
    }
    buf_free(&payload);
  } else if (strncmp(line, "host ", 5) == 0) {
    char *end;
    uint32_t seg = (uint32_t)strtoul(line + 5, &end, 0), off = (uint32_t)strtoul(end, &end, 0);
    struct buf b = {NULL, 0, 0};
    parse_hex(end, &b);
    for (size_t i = 0; i < b.len && seg < HOST_SEGMENTS && off + i < HOST_SEG_SIZE; i++)
      h->mem[seg][off + i] = b.p[i];
    buf_free(&b);
    return;
  } else if (strcmp(line, "fail") == 0) {
    h->fail_next = 1;
    return;
  } else if (strncmp(line, "trace ", 6) == 0) {
    h->trace = strcmp(line + 6, "off") == 0 ? NULL : tr;
    return;
  } else if (strcmp(line, "state") == 0) {
    fprintf(tr, "state %s\n", states[p->state]);
    return;
  } else {
    fprintf(tr, "bad input command '%s'\n", line);
    return;
  }
  if (h->trace != NULL) fprintf(tr, "result %s\n", vm_result_name(r));
}

static int run(const struct test *t, const struct buf *img) {
  const char *want_verr = section(t, "verify-error");
  size_t need = vm_mem_needed(img->p, img->len);
  void *mem = malloc(need ? need : 1);
  struct vm_program p;
  struct vm_diag vd;
  char verr[96];
  int ok = 1;
  int loaded = vm_load(&p, img->p, img->len, mem, need, &vd);
  snprintf(verr, sizeof verr, "%s at %u", vm_err_name(vd.code), vd.offset);
  if (want_verr != NULL) {
    char *w = strdup(want_verr);
    trim(w);
    ok = loaded ? failf("loaded, but expected '%s'%s", w, "")
         : strcmp(w, verr) == 0 ? 1 : failf("expected '%s', got '%s'", w, verr);
    free(w);
  } else if (!loaded) {
    ok = failf("load failed: %s%s", verr, "");
  }
  const char *want = section(t, "expect");
  if (ok && loaded && want != NULL) {
    struct nic_host *h = malloc(sizeof *h);
    struct vm_services s;
    char *trace = NULL;
    size_t tlen = 0;
    FILE *tr = open_memstream(&trace, &tlen);
    nic_host_init(h, tr);
    nic_host_services(h, &s);
    char *input = strdup(section(t, "input") ? section(t, "input") : "start\n");
    for (char *line = strtok(input, "\n"); line; line = strtok(NULL, "\n"))
      if (line[0] != '#' && line[strspn(line, " ")] != '\0') run_command(line, &p, h, &s, tr);
    fclose(tr);
    char *w = strdup(want);
    trim(w);
    trim(trace);
    if (strcmp(w, trace) != 0) ok = failf("trace differs; expected:\n%s\n-- got:\n%s", w, trace);
    free(w);
    free(trace);
    free(input);
    free(h);
  }
  free(mem);
  return ok;
}

static int run_file(const char *path) {
  struct test t = {.path = path};
  char *text = slurp(path);
  if (text == NULL) return failf("cannot read %s%s", path, "");
  sections(&t, text);
  struct buf img = {NULL, 0, 0};
  int ok = build(&t, &img);
  if (ok && section(&t, "error") == NULL) ok = run(&t, &img);
  buf_free(&img);
  free(text);
  return ok;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
  const char *dir = "tests/pdl/conformance";
  char **files = NULL;
  size_t n = 0;
  if (argc > 1) {
    files = argv + 1;
    n = (size_t)argc - 1;
  } else {
    DIR *dp = opendir(dir);
    struct dirent *e;
    if (dp == NULL) return perror(dir), 2;
    while ((e = readdir(dp)) != NULL) {
      size_t len = strlen(e->d_name);
      if (len < 5 || strcmp(e->d_name + len - 5, ".data") != 0) continue;
      files = realloc(files, (n + 1) * sizeof *files);
      if (asprintf(&files[n++], "%s/%s", dir, e->d_name) < 0) return 2;
    }
    closedir(dp);
    qsort(files, n, sizeof *files, by_name);
  }
  int pass = 0, fail = 0;
  for (size_t i = 0; i < n; i++) {
    if (run_file(files[i])) {
      pass++;
      printf("PASS %s\n", files[i]);
    } else {
      fail++;
      printf("FAIL %s: %s\n", files[i], fail_msg ? fail_msg : "");
    }
  }
  if (argc <= 1) {
    for (size_t i = 0; i < n; i++) free(files[i]);
    free(files);
  }
  free(fail_msg);
  printf("%d passed, %d failed\n", pass, fail);
  return fail != 0 || n == 0;
}
