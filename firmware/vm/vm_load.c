/* Module loader: checks the header, copies trigger table and code into the caller's program
 * memory, verifies that copy, then zeroes data and stack. Layout of the region (4-aligned):
 *   [trigger table: ntrig x 2 words][code, padded to 4][data words][stack words]
 * During verification the data+stack area doubles as verifier scratch (4 bytes per code byte). */
#include "vm_internal.h"

struct hdr {
  uint32_t code_size, data_words, init_off, ntrig, max_stack, table_off, code_off;
};

static bool fail(struct vm_diag *d, enum vm_err code, uint32_t off) {
  d->code = code;
  d->offset = off;
  return false;
}

static uint32_t align4(uint32_t x) { return (x + 3u) & ~3u; }

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

static size_t needed(const struct hdr *h) {
  size_t work = (size_t)h->data_words * 4u + (size_t)h->max_stack * 4u;
  size_t scratch = (size_t)h->code_size * 4u;
  return (size_t)h->ntrig * 8u + align4(h->code_size) + (work > scratch ? work : scratch);
}

size_t vm_mem_needed(const uint8_t *img, size_t len) {
  struct hdr h;
  struct vm_diag d;
  return parse_header(img, len, &h, &d) ? needed(&h) + 3u : 0;
}

static bool copy_triggers(uint32_t *t, const uint8_t *img, const struct hdr *h,
                          struct vm_diag *d) {
  for (uint32_t i = 0; i < h->ntrig; i++) {
    const uint8_t *e = img + h->table_off + i * VM_TRIG_SIZE;
    t[2 * i] = vm_rd32(e);
    t[2 * i + 1] = vm_rd32(e + 4);
    if (i > 0 && t[2 * i] <= t[2 * i - 2])
      return fail(d, VM_ERR_TRIGGER_ORDER, h->table_off + i * VM_TRIG_SIZE);
  }
  return true;
}

/* Turns a verifier diagnostic (code offset, or trigger index) into a module offset. */
static bool relocate_diag(const struct hdr *h, struct vm_diag *d) {
  if (d->code == VM_ERR_BAD_TRIGGER)
    d->offset = h->table_off + d->offset * VM_TRIG_SIZE + 4u;
  else if (d->code == VM_ERR_BAD_ENTRY)
    d->offset = VM_H_INIT_OFF;
  else
    d->offset += h->code_off;
  return false;
}

bool vm_load(struct vm_program *p, const uint8_t *img, size_t len, void *mem, size_t mem_size,
             struct vm_diag *d) {
  struct hdr h;
  p->state = VM_PS_EMPTY;
  if (!parse_header(img, len, &h, d)) return false;
  uintptr_t base = ((uintptr_t)mem + 3u) & ~(uintptr_t)3u;
  size_t skew = (size_t)(base - (uintptr_t)mem);
  if (mem_size < skew || mem_size - skew < needed(&h)) return fail(d, VM_ERR_NO_MEMORY, 0);

  uint32_t *trig = (uint32_t *)base;
  uint8_t *code = (uint8_t *)(trig + 2u * h.ntrig);
  int32_t *work = (int32_t *)(code + align4(h.code_size));
  if (!copy_triggers(trig, img, &h, d)) return false;
  for (uint32_t i = 0; i < h.code_size; i++) code[i] = img[h.code_off + i];

  p->code = code;
  p->code_size = h.code_size;
  p->trig = trig;
  p->ntrig = h.ntrig;
  p->data = work;
  p->data_words = h.data_words;
  p->stack = work + h.data_words;
  p->stack_words = h.max_stack;
  p->init_off = h.init_off;
  if (!vm_verify(p, h.max_stack, (uint16_t *)(void *)work, d)) return relocate_diag(&h, d);

  for (uint32_t i = 0; i < h.data_words + h.max_stack; i++) work[i] = 0;
  for (uint32_t i = 0; i < VM_NAME_LEN; i++) p->name[i] = (char)img[VM_H_NAME + i];
  p->name[VM_NAME_LEN] = '\0';
  p->aborts = 0;
  p->last_steps = 0;
  p->state = VM_PS_LOADED;
  d->code = VM_ERR_OK;
  d->offset = 0;
  return true;
}
