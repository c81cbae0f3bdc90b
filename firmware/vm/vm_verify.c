/* Load-time bytecode verifier. Three passes over the code:
 *   1. linear decode: valid opcodes, whole operands, static data bounds; marks instruction starts;
 *   2. every jump lands on an instruction start;
 *   3. abstract interpretation of stack depth from every entry point over the CFG: no underflow,
 *      depth within the declared maximum, equal depths where paths merge, no path off the end.
 * scratch[0..n) holds per-offset state (0: not an instruction start, 1: start not yet reached,
 * 2+d: reached with depth d); scratch[n..2n) is the worklist, each start is pushed at most once. */
#include "vm_internal.h"
#include "vm_ops.h"

enum { NOT_START = 0, UNREACHED = 1, DEPTH0 = 2 };

static bool fail(struct vm_diag *d, enum vm_err code, uint32_t off) {
  d->code = code;
  d->offset = off;
  return false;
}

static bool is_jump(uint8_t op) { return op == VM_OP_JMP || op == VM_OP_JZ || op == VM_OP_JNZ; }

static bool has_var_operand(uint8_t op) {
  return op == VM_OP_LOADX || op == VM_OP_STOREX || op == VM_OP_SEND || op == VM_OP_DELIVER ||
         op == VM_OP_GET || op == VM_OP_RECV;
}

/* Jump target as a code offset, or -1 when it falls outside [0, size). */
static int64_t jump_target(const struct vm_program *p, uint32_t pc) {
  int64_t t = (int64_t)pc + 5 + (int32_t)vm_rd32(p->code + pc + 1);
  return t >= 0 && t < (int64_t)p->code_size ? t : -1;
}

static bool check_operands(const struct vm_program *p, uint32_t pc, struct vm_diag *d) {
  uint8_t op = p->code[pc];
  if (op == VM_OP_LOAD || op == VM_OP_STORE) {
    if (vm_rd32(p->code + pc + 1) >= p->data_words) return fail(d, VM_ERR_DATA_BOUNDS, pc);
  } else if (has_var_operand(op)) {
    uint32_t base = vm_rd32(p->code + pc + 1), count = vm_rd32(p->code + pc + 5);
    if (count == 0 || base >= p->data_words || count > p->data_words - base)
      return fail(d, VM_ERR_DATA_BOUNDS, pc);
  }
  return true;
}

static bool decode_pass(const struct vm_program *p, uint16_t *st, struct vm_diag *d) {
  uint32_t pc = 0, n = p->code_size;
  for (uint32_t i = 0; i < n; i++) st[i] = NOT_START;
  while (pc < n) {
    const struct vm_opinfo *oi = vm_opinfo(p->code[pc]);
    if (!oi->valid) return fail(d, VM_ERR_BAD_OPCODE, pc);
    if (oi->operand_bytes >= n - pc) return fail(d, VM_ERR_TRUNCATED_INSN, pc);
    if (!check_operands(p, pc, d)) return false;
    st[pc] = UNREACHED;
    pc += 1u + oi->operand_bytes;
  }
  return true;
}

static bool jump_pass(const struct vm_program *p, const uint16_t *st, struct vm_diag *d) {
  for (uint32_t pc = 0; pc < p->code_size; pc++) {
    if (st[pc] == NOT_START || !is_jump(p->code[pc])) continue;
    int64_t t = jump_target(p, pc);
    if (t < 0 || st[t] == NOT_START) return fail(d, VM_ERR_BAD_JUMP, pc);
  }
  return true;
}

struct work {
  uint16_t *st, *list;
  uint32_t len;
};

/* Records that control reaches `to` with depth `depth`; `from` names the instruction for errors. */
static bool reach(struct work *w, uint32_t to, uint32_t depth, uint32_t from, struct vm_diag *d) {
  if (w->st[to] == UNREACHED) {
    w->st[to] = (uint16_t)(DEPTH0 + depth);
    w->list[w->len++] = (uint16_t)to;
    return true;
  }
  if (w->st[to] != DEPTH0 + depth) return fail(d, VM_ERR_STACK_MISMATCH, from);
  return true;
}

static bool step(const struct vm_program *p, struct work *w, uint32_t pc, uint32_t max_stack,
                 struct vm_diag *d) {
  uint8_t op = p->code[pc];
  const struct vm_opinfo *oi = vm_opinfo(op);
  uint32_t depth = (uint32_t)w->st[pc] - DEPTH0;
  if (depth < oi->pops) return fail(d, VM_ERR_STACK_UNDERFLOW, pc);
  depth = depth - oi->pops + oi->pushes;
  if (depth > max_stack) return fail(d, VM_ERR_STACK_OVERFLOW, pc);
  if (op == VM_OP_AWAIT || op == VM_OP_STOP) return true;
  if (is_jump(op) && !reach(w, (uint32_t)jump_target(p, pc), depth, pc, d)) return false;
  if (op == VM_OP_JMP) return true;
  uint32_t next = pc + 1u + oi->operand_bytes;
  if (next >= p->code_size) return fail(d, VM_ERR_FALLS_OFF_END, pc);
  return reach(w, next, depth, pc, d);
}

static bool stack_pass(const struct vm_program *p, uint16_t *scratch, uint32_t max_stack,
                       struct vm_diag *d) {
  struct work w = {scratch, scratch + p->code_size, 0};
  if (!reach(&w, p->init_off, 0, p->init_off, d)) return false;
  for (uint32_t i = 0; i < p->ntrig; i++)
    if (!reach(&w, p->trig[2 * i + 1], 0, p->trig[2 * i + 1], d)) return false;
  while (w.len > 0) {
    uint32_t pc = w.list[--w.len];
    if (!step(p, &w, pc, max_stack, d)) return false;
  }
  return true;
}

bool vm_verify(const struct vm_program *p, uint32_t max_stack, uint16_t *scratch,
               struct vm_diag *d) {
  if (p->code_size == 0 || p->code_size > VM_MAX_CODE) return fail(d, VM_ERR_BAD_SIZE, 0);
  if (!decode_pass(p, scratch, d) || !jump_pass(p, scratch, d)) return false;
  if (p->init_off >= p->code_size || scratch[p->init_off] == NOT_START)
    return fail(d, VM_ERR_BAD_ENTRY, p->init_off);
  for (uint32_t i = 0; i < p->ntrig; i++) {
    uint32_t off = p->trig[2 * i + 1];
    if (off >= p->code_size || scratch[off] == NOT_START) return fail(d, VM_ERR_BAD_TRIGGER, i);
  }
  return stack_pass(p, scratch, max_stack, d);
}
