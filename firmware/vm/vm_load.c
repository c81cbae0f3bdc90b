/* Module loader: checks the header, copies trigger table and code into the caller's program
 * memory, verifies that copy, then zeroes data and stack. Layout of the region (4-aligned):
 *   [trigger table: ntrig x 2 words][code, padded to 4][data words][stack words]
 * During verification the data+stack area doubles as verifier scratch (4 bytes per code byte).
 * The carving of the region into typed arrays is `layout`, the one function the proofs trust
 * (pointer casts are outside WP's typed memory model); the rest is proved (module vm-load),
 * including that a successful load leaves a program satisfying vm_prog_ok. */
#include "vm_internal.h"

struct hdr {
  uint32_t code_size, data_words, init_off, ntrig, max_stack, table_off, code_off;
};

/*@ predicate hdr_okv(struct hdr h, integer len) =
      0 < h.code_size <= VM_MAX_CODE && h.data_words <= VM_MAX_DATA &&
      h.ntrig <= VM_MAX_TRIGGERS && 0 < h.max_stack <= VM_STACK_MAX &&
      h.table_off == VM_HDR_SIZE && h.code_off == VM_HDR_SIZE + h.ntrig * VM_TRIG_SIZE &&
      len == h.code_off + h.code_size;
    predicate hdr_ok(struct hdr *h, integer len) = hdr_okv(*h, len);
*/

/*@ requires \valid(d);
    assigns d->code, d->offset;
    ensures \result == \false && d->code == code && d->offset == off; */
static bool fail(struct vm_diag *d, enum vm_err code, uint32_t off) {
  d->code = code;
  d->offset = off;
  return false;
}

/*@ requires x <= VM_MAX_CODE;
    assigns \nothing;
    ensures x <= \result <= x + 3; */
static uint32_t align4(uint32_t x) { return (x + 3u) / 4u * 4u; } /* (x + 3) & ~3 */

/*@ requires \valid_read(img + (0 .. len - 1)) && \valid(h) && \valid(d);
    requires \separated(h, d, img + (0 .. len - 1));
    assigns *h, *d;
    ensures \result ==> hdr_ok(h, len); */
static bool parse_header(const uint8_t *img, size_t len, struct hdr *h, struct vm_diag *d) {
  if (len < VM_HDR_SIZE) return fail(d, VM_ERR_TRUNCATED, (uint32_t)len);
  if (img[0] != VM_MAGIC0 || img[1] != VM_MAGIC1 || img[2] != VM_MAGIC2 || img[3] != VM_MAGIC3)
    return fail(d, VM_ERR_BAD_MAGIC, VM_H_MAGIC);
  if (vm_rd16(img + VM_H_VERSION) != VM_VERSION) return fail(d, VM_ERR_BAD_VERSION, VM_H_VERSION);
  if (vm_rd16(img + VM_H_FLAGS) != 0) return fail(d, VM_ERR_BAD_FLAGS, VM_H_FLAGS);
  h->code_size = vm_rd32(img + VM_H_CODE_SIZE);
  h->data_words = vm_rd32(img + VM_H_DATA_WORDS);
  h->init_off = vm_rd32(img + VM_H_INIT_OFF);
  h->ntrig = vm_rd16(img + VM_H_NTRIG);
  h->max_stack = vm_rd16(img + VM_H_MAX_STACK);
  if (h->code_size == 0) return fail(d, VM_ERR_BAD_SIZE, VM_H_CODE_SIZE);
  if (h->code_size > VM_MAX_CODE) return fail(d, VM_ERR_TOO_LARGE, VM_H_CODE_SIZE);
  if (h->data_words > VM_MAX_DATA) return fail(d, VM_ERR_TOO_LARGE, VM_H_DATA_WORDS);
  if (h->ntrig > VM_MAX_TRIGGERS) return fail(d, VM_ERR_TOO_LARGE, VM_H_NTRIG);
  if (h->max_stack == 0 || h->max_stack > VM_STACK_MAX)
    return fail(d, VM_ERR_BAD_STACK_DECL, VM_H_MAX_STACK);
  h->table_off = VM_HDR_SIZE;
  h->code_off = VM_HDR_SIZE + h->ntrig * VM_TRIG_SIZE;
  if (len < (size_t)h->code_off + h->code_size) return fail(d, VM_ERR_TRUNCATED, (uint32_t)len);
  if (len > (size_t)h->code_off + h->code_size)
    return fail(d, VM_ERR_BAD_SIZE, h->code_off + h->code_size);
  return true;
}

/* The header is passed by value from here on: WP then keeps vm_load's header out of memory. */
/*@ requires 0 < h.code_size <= VM_MAX_CODE && h.data_words <= VM_MAX_DATA;
    requires h.ntrig <= VM_MAX_TRIGGERS && h.max_stack <= VM_STACK_MAX;
    assigns \nothing;
    ensures \result <= 0x7fffffff; */
static size_t needed(struct hdr h) {
  size_t work = (size_t)h.data_words * 4u + (size_t)h.max_stack * 4u;
  size_t scratch = (size_t)h.code_size * 4u;
  return (size_t)h.ntrig * 8u + align4(h.code_size) + (work > scratch ? work : scratch);
}

/*@ requires \valid_read(img + (0 .. len - 1));
    assigns \nothing; */
size_t vm_mem_needed(const uint8_t *img, size_t len) {
  struct hdr h;
  struct vm_diag d;
  return parse_header(img, len, &h, &d) ? needed(h) + 3u : 0;
}

/* The header, or one with code_size 0 if it is unusable. */
/*@ requires \valid_read(img + (0 .. len - 1)) && \valid(d);
    requires \separated(d, img + (0 .. len - 1));
    assigns *d;
    ensures \result.code_size != 0 ==> hdr_okv(\result, len); */
static struct hdr header(const uint8_t *img, size_t len, struct vm_diag *d) {
  struct hdr h = {0};
  if (!parse_header(img, len, &h, d)) h.code_size = 0;
  return h;
}

/*@ requires hdr_okv(h, h.code_off + h.code_size);
    requires \valid_read(img + (0 .. h.code_off + h.code_size - 1));
    requires \valid(t + (0 .. 2 * h.ntrig - 1)) && \valid(d);
    requires \separated(t + (0 .. 2 * h.ntrig - 1), d, img + (0 .. h.code_off + h.code_size - 1));
    requires \separated(d, img + (0 .. h.code_off + h.code_size - 1));
    assigns t[0 .. 2 * h.ntrig - 1], *d; */
static bool copy_triggers(uint32_t *t, const uint8_t *img, struct hdr h, struct vm_diag *d) {
  uint32_t ntrig = h.ntrig, table_off = h.table_off;
  /*@ loop invariant 0 <= i <= ntrig;
      loop assigns i, t[0 .. 2 * ntrig - 1];
      loop variant ntrig - i; */
  for (uint32_t i = 0; i < ntrig; i++) {
    const uint8_t *e = img + table_off + i * VM_TRIG_SIZE;
    t[2 * i] = vm_rd32(e);
    t[2 * i + 1] = vm_rd32(e + 4);
    if (i > 0 && t[2 * i] <= t[2 * i - 2])
      return fail(d, VM_ERR_TRIGGER_ORDER, table_off + i * VM_TRIG_SIZE);
  }
  return true;
}

/* Turns a verifier diagnostic (code offset, or trigger index) into a module offset. The
 * verifier reports trigger indices below ntrig and code offsets up to code_size; the bounds
 * checks below never fail for those (they keep the arithmetic provably in range). */
/*@ requires ntrig <= VM_MAX_TRIGGERS && code_off == VM_HDR_SIZE + ntrig * VM_TRIG_SIZE;
    requires \valid(d);
    assigns d->offset;
    ensures \result == \false; */
static bool relocate_diag(uint32_t ntrig, uint32_t code_off, struct vm_diag *d) {
  if (d->code == VM_ERR_BAD_TRIGGER && d->offset < ntrig)
    d->offset = VM_HDR_SIZE + d->offset * VM_TRIG_SIZE + 4u;
  else if (d->code == VM_ERR_BAD_ENTRY)
    d->offset = VM_H_INIT_OFF;
  else if (d->code != VM_ERR_BAD_TRIGGER && d->offset <= VM_MAX_CODE)
    d->offset += code_off;
  return false;
}

/* Where the parts of a program go in the caller's region. */
struct regions {
  uint32_t *trig;     /* ntrig pairs */
  uint8_t *code;      /* code_size bytes */
  int32_t *work;      /* data_words + max_stack words: data, then stack */
  uint16_t *scratch;  /* 2 * code_size verifier entries, over the same bytes as work */
};

/* Carves mem (4-aligned from its first aligned byte) into the regions: false if mem_size is too
 * small. Trusted: the pointer casts are outside WP's typed memory model. Its contract is what
 * the proof assumes: the regions lie inside mem, hence apart from everything mem is apart from
 * (the ghost parameters: the program record, the diagnostic, the image). scratch shares its
 * bytes with work, which WP's typed model cannot express; they are used one after the other. */
/*@ requires hdr_okv(h, h.code_off + h.code_size) && \valid(r);
    requires \valid((char *)mem + (0 .. mem_size - 1));
    requires \separated((char *)mem + (0 .. mem_size - 1), r, gp, gd, gimg + (0 .. glen - 1));
    assigns *r;
    ensures \result ==>
      \base_addr(r->trig) == \base_addr((char *)mem) && \base_addr(r->code) == \base_addr((char *)mem) &&
      \base_addr(r->work) == \base_addr((char *)mem) && \base_addr(r->scratch) == \base_addr((char *)mem);
    ensures \result ==>
      \valid(r->trig + (0 .. 2 * h.ntrig - 1)) && \valid(r->code + (0 .. h.code_size - 1)) &&
      \valid(r->work + (0 .. h.data_words + h.max_stack - 1)) &&
      \valid(r->scratch + (0 .. 2 * h.code_size - 1)) &&
      \separated(r->trig + (0 .. 2 * h.ntrig - 1), r->code + (0 .. h.code_size - 1),
                 r->work + (0 .. h.data_words + h.max_stack - 1), r, gp, gd,
                 gimg + (0 .. glen - 1)) &&
      \separated(r->scratch + (0 .. 2 * h.code_size - 1), r->trig + (0 .. 2 * h.ntrig - 1),
                 r->code + (0 .. h.code_size - 1), r, gp, gd, gimg + (0 .. glen - 1)); */
static bool layout(void *mem, size_t mem_size, struct hdr h, struct regions *r)
  /*@ ghost (struct vm_program *gp, struct vm_diag *gd, const uint8_t *gimg, size_t glen) */ {
  uintptr_t base = ((uintptr_t)mem + 3u) & ~(uintptr_t)3u;
  size_t skew = (size_t)(base - (uintptr_t)mem);
  if (mem_size < skew || mem_size - skew < needed(h)) return false;
  r->trig = (uint32_t *)base;
  r->code = (uint8_t *)(r->trig + 2u * h.ntrig);
  r->work = (int32_t *)(r->code + align4(h.code_size));
  r->scratch = (uint16_t *)(void *)r->work;
  return true;
}

/*@ requires \valid(p) && \valid(d) && \valid_read(img + (0 .. len - 1));
    requires \valid((char *)mem + (0 .. mem_size - 1));
    requires \separated(p, d, img + (0 .. len - 1), (char *)mem + (0 .. mem_size - 1));
    ensures \result ==> vm_prog_ok(p) && p->state == VM_PS_LOADED; */
bool vm_load(struct vm_program *p, const uint8_t *img, size_t len, void *mem, size_t mem_size,
             struct vm_diag *d) {
  struct regions r;
  p->state = VM_PS_EMPTY;
  const struct hdr h = header(img, len, d);
  if (h.code_size == 0) return false;
  /* Plain copies of the header fields (the proof then need not track h through the stores). */
  const uint32_t code_size = h.code_size, code_off = h.code_off, ntrig = h.ntrig;
  const uint32_t data_words = h.data_words, max_stack = h.max_stack, init_off = h.init_off;
  if (!layout(mem, mem_size, h, &r) /*@ ghost (p, d, img, len) */)
    return fail(d, VM_ERR_NO_MEMORY, 0);

  uint32_t *trig = r.trig;
  uint8_t *code = r.code;
  int32_t *work = r.work;
  uint16_t *scratch = r.scratch;
  if (!copy_triggers(trig, img, h, d)) return false;
  /*@ loop invariant 0 <= i <= code_size;
      loop assigns i, code[0 .. code_size - 1];
      loop variant code_size - i; */
  for (uint32_t i = 0; i < code_size; i++) code[i] = img[code_off + i];

  p->code = code;
  p->code_size = code_size;
  p->trig = trig;
  p->ntrig = ntrig;
  p->data = work;
  p->data_words = data_words;
  p->stack = work + data_words;
  p->stack_words = max_stack;
  p->init_off = init_off;
  /*@ assert \valid_read(p->code + (0 .. p->code_size - 1)) &&
             \valid_read(p->trig + (0 .. 2 * p->ntrig - 1)) &&
             \valid(p->data + (0 .. p->data_words - 1)) &&
             \valid(p->stack + (0 .. p->stack_words - 1)); */
  /*@ assert \separated(p->data + (0 .. p->data_words - 1), p->stack + (0 .. p->stack_words - 1),
                        p->code + (0 .. p->code_size - 1), p->trig + (0 .. 2 * p->ntrig - 1)); */
  /*@ assert \separated(p, p->code + (0 .. p->code_size - 1), p->trig + (0 .. 2 * p->ntrig - 1),
                        p->data + (0 .. p->data_words - 1), p->stack + (0 .. p->stack_words - 1)); */
  /*@ assert 0 < p->code_size <= VM_MAX_CODE && p->ntrig <= VM_MAX_TRIGGERS &&
             p->data_words <= VM_MAX_DATA && p->stack_words <= VM_STACK_MAX; */
  //@ assert vm_prog_ok(p);
  struct vm_diag vd = {VM_ERR_OK, 0}; /* a local: the verifier cannot touch *p through it */
  if (!vm_verify(p, max_stack, scratch, &vd)) {
    *d = vd;
    return relocate_diag(ntrig, code_off, d);
  }
  d->code = VM_ERR_OK;
  d->offset = 0;
  //@ assert vm_prog_ok(p);

  /*@ loop invariant 0 <= i <= data_words + max_stack && vm_prog_ok(p);
      loop assigns i, work[0 .. data_words + max_stack - 1];
      loop variant data_words + max_stack - i; */
  for (uint32_t i = 0; i < data_words + max_stack; i++) work[i] = 0;
  /*@ loop invariant 0 <= i <= VM_NAME_LEN && vm_prog_ok(p);
      loop assigns i, p->name[0 .. VM_NAME_LEN - 1];
      loop variant VM_NAME_LEN - i; */
  for (uint32_t i = 0; i < VM_NAME_LEN; i++) p->name[i] = (char)img[VM_H_NAME + i];
  p->name[VM_NAME_LEN] = '\0';
  p->aborts = 0;
  p->last_steps = 0;
  p->state = VM_PS_LOADED;
  //@ assert vm_prog_ok(p);
  return true;
}
