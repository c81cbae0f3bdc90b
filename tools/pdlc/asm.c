/* PANIC VM assembler, for hand-written and deliberately hostile modules. One item per line:
 *   label:                      defines a code label
 *   push 5 / loadx 0 10 / jz L  mnemonic and operands (numbers, or a label as a jump's last
 *   jltvk 0 10 L                operand, which becomes an offset relative to the next
 *                               instruction)
 *   .name N  .data W  .stack S  .init L|off  .trigger msg L|off  (table order as written)
 *   .byte b...                  raw code bytes
 *   .patch off b...  .truncate n  edit the finished image (header fuzzing by hand)
 * Comments start with ';' or '#'. Two passes: sizes and labels first, then bytes. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "pdlc.h"
#include "vm_internal.h"
#include "vm_ops.h"

#define ASM_MAX_ARGS 64

static const struct {
  const char *name;
  uint8_t code;
} mnemonics[] = {
#define ASM_MN(n, c, o, p, q) {#n, c},
    VM_OP_TABLE(ASM_MN)
#undef ASM_MN
};

struct label {
  char name[64];
  uint32_t off;
};

struct line {
  char *w[ASM_MAX_ARGS + 1]; /* words of the line */
  size_t col[ASM_MAX_ARGS + 1];
  int n;
  struct pos pos;
};

struct asmb {
  struct diag *d;
  struct module m;
  struct label *labels;
  size_t nlabels;
  struct buf patches; /* (u32 offset, u32 byte) pairs, then applied */
  long truncate;
  int stack_set;
};

static int same_word(const char *a, const char *b) {
  while (*a && tolower((unsigned char)*a) == tolower((unsigned char)*b)) a++, b++;
  return *a == '\0' && *b == '\0';
}

static int opcode_of(const char *w) {
  for (size_t i = 0; i < sizeof mnemonics / sizeof mnemonics[0]; i++)
    if (same_word(mnemonics[i].name, w)) return mnemonics[i].code;
  return -1;
}

static int number(const char *w, int64_t *v) {
  char *end;
  if (w[0] != '-' && !isdigit((unsigned char)w[0])) return 0;
  *v = strtoll(w, &end, 0);
  return *end == '\0' && *v >= INT32_MIN && *v <= (int64_t)UINT32_MAX;
}

static const struct label *find_label(const struct asmb *as, const char *w) {
  for (size_t i = 0; i < as->nlabels; i++)
    if (strcmp(as->labels[i].name, w) == 0) return &as->labels[i];
  return NULL;
}

static struct pos at_word(const struct line *l, int i) {
  struct pos p = l->pos;
  p.col += (int)l->col[i];
  p.off += l->col[i];
  return p;
}

/* A number, or a label's code offset (minus `rel` when relative). */
static uint32_t value(struct asmb *as, const struct line *l, int i, int64_t rel, int is_jump) {
  int64_t v;
  if (i >= l->n) {
    diag_error(as->d, at_word(l, 0), "'%s' needs more operands", l->w[0]);
    return 0;
  }
  if (number(l->w[i], &v)) return (uint32_t)v;
  const struct label *lb = find_label(as, l->w[i]);
  if (lb != NULL) return (uint32_t)(is_jump ? (int64_t)lb->off - rel : (int64_t)lb->off);
  diag_error(as->d, at_word(l, i), "unknown label or bad number '%s'", l->w[i]);
  return 0;
}

static void directive(struct asmb *as, const struct line *l, int emit) {
  const char *w = l->w[0];
  if (strcmp(w, ".byte") == 0) {
    for (int i = 1; i < l->n; i++) {
      uint32_t v = emit ? value(as, l, i, 0, 0) : 0;
      buf_put8(&as->m.code, (uint8_t)v);
    }
    return;
  }
  if (!emit) return;
  if (strcmp(w, ".name") == 0 && l->n > 1) {
    snprintf(as->m.name, sizeof as->m.name, "%.*s", (int)VM_NAME_LEN, l->w[1]);
  } else if (strcmp(w, ".data") == 0) {
    as->m.data_words = value(as, l, 1, 0, 0);
  } else if (strcmp(w, ".stack") == 0) {
    as->m.max_stack = value(as, l, 1, 0, 0);
    as->stack_set = 1;
  } else if (strcmp(w, ".init") == 0) {
    as->m.init_off = value(as, l, 1, 0, 0);
  } else if (strcmp(w, ".trigger") == 0) {
    uint32_t *t = realloc(as->m.trig, (as->m.ntrig + 1) * 2 * sizeof *t);
    if (t == NULL) abort();
    as->m.trig = t;
    t[2 * as->m.ntrig] = value(as, l, 1, 0, 0);
    t[2 * as->m.ntrig + 1] = value(as, l, 2, 0, 0);
    as->m.ntrig++;
  } else if (strcmp(w, ".patch") == 0) {
    uint32_t off = value(as, l, 1, 0, 0);
    for (int i = 2; i < l->n; i++) {
      buf_put32(&as->patches, off + (uint32_t)(i - 2));
      buf_put32(&as->patches, value(as, l, i, 0, 0));
    }
  } else if (strcmp(w, ".truncate") == 0) {
    as->truncate = value(as, l, 1, 0, 0);
  } else {
    diag_error(as->d, at_word(l, 0), "unknown directive '%s'", w);
  }
}

static void instruction(struct asmb *as, const struct line *l, int emit) {
  int code = opcode_of(l->w[0]);
  if (code < 0) {
    if (emit) diag_error(as->d, at_word(l, 0), "unknown mnemonic '%s'", l->w[0]);
    return;
  }
  const struct vm_opinfo *oi = vm_opinfo((uint8_t)code);
  int nops = oi->operand_bytes / 4;
  int64_t next = (int64_t)as->m.code.len + 1 + oi->operand_bytes;
  int is_jump = VM_OP_IS_JUMP(code); /* the displacement (a label) is the last operand */
  buf_put8(&as->m.code, (uint8_t)code);
  for (int i = 1; i <= nops; i++)
    buf_put32(&as->m.code, emit ? value(as, l, i, next, is_jump && i == nops) : 0);
  if (emit && l->n > nops + 1)
    diag_error(as->d, at_word(l, nops + 1), "too many operands for '%s'", l->w[0]);
}

/* Splits one line in place into words; strips comments; records a trailing-':' label. */
static void split(char *s, struct line *l) {
  l->n = 0;
  for (char *c = s; *c; c++)
    if (*c == ';' || *c == '#') *c = '\0';
  char *p = s;
  while (*p && l->n < ASM_MAX_ARGS) {
    while (*p && isspace((unsigned char)*p)) *p++ = '\0';
    if (!*p) break;
    l->col[l->n] = (size_t)(p - s);
    l->w[l->n++] = p;
    while (*p && !isspace((unsigned char)*p)) p++;
  }
}

static void add_label(struct asmb *as, const struct line *l) {
  size_t n = strlen(l->w[0]) - 1;
  if (n == 0 || n >= sizeof as->labels[0].name || find_label(as, l->w[0]) != NULL) {
    diag_error(as->d, l->pos, "bad or duplicate label '%s'", l->w[0]);
    return;
  }
  struct label *lb = realloc(as->labels, (as->nlabels + 1) * sizeof *lb);
  if (lb == NULL) abort();
  as->labels = lb;
  memcpy(lb[as->nlabels].name, l->w[0], n);
  lb[as->nlabels].name[n] = '\0';
  lb[as->nlabels++].off = (uint32_t)as->m.code.len;
}

static void pass(struct asmb *as, const char *src, size_t len, int emit) {
  struct pos pos = {1, 1, 0};
  as->m.code.len = 0;
  for (size_t i = 0; i < len;) {
    size_t end = i;
    while (end < len && src[end] != '\n') end++;
    char *text = malloc(end - i + 1);
    if (text == NULL) abort();
    memcpy(text, src + i, end - i);
    text[end - i] = '\0';
    struct line l;
    l.pos = pos;
    split(text, &l);
    if (l.n > 0 && l.w[0][strlen(l.w[0]) - 1] == ':') {
      if (!emit) add_label(as, &l);
    } else if (l.n > 0 && l.w[0][0] == '.') {
      directive(as, &l, emit);
    } else if (l.n > 0) {
      instruction(as, &l, emit);
    }
    free(text);
    pos.line++;
    pos.off = i = end + 1;
  }
}

static void finish(struct asmb *as, struct buf *image) {
  struct buf img = {NULL, 0, 0};
  module_write(&as->m, &img);
  for (size_t i = 0; i + 8 <= as->patches.len; i += 8) {
    uint32_t off = vm_rd32(as->patches.p + i), b = vm_rd32(as->patches.p + i + 4);
    if (off < img.len) img.p[off] = (uint8_t)b;
  }
  size_t n = as->truncate >= 0 && (size_t)as->truncate < img.len ? (size_t)as->truncate : img.len;
  for (size_t i = 0; i < n; i++) buf_put8(image, img.p[i]);
  buf_free(&img);
}

int pdlc_assemble(const char *file, const char *src, size_t len, FILE *out, struct buf *image) {
  struct diag d;
  struct asmb as;
  memset(&as, 0, sizeof as);
  as.d = &d;
  as.truncate = -1;
  diag_init(&d, file, src, len, out);
  pass(&as, src, len, 0);
  pass(&as, src, len, 1);
  if (!as.stack_set) as.m.max_stack = 16;
  if (d.errors == 0) finish(&as, image);
  module_free(&as.m);
  buf_free(&as.patches);
  free(as.labels);
  return d.errors;
}
