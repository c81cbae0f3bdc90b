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

/*@ // The operands of the instruction at i, with opcode op, lie within the n code bytes.
    predicate fits(integer op, integer i, integer n) =
      (vm_op_word(op) ==> i + 4 < n) && (vm_op_var(op) ==> i + 8 < n) &&
      (vm_op_pair(op) ==> i + 8 < n) && (vm_op_triple(op) ==> i + 12 < n);

    // Every offset marked as an instruction start holds a whole instruction.
    predicate starts_fit{L}(uint8_t *code, integer n, uint16_t *st) =
      \forall integer i; 0 <= i < n ==> st[i] != NOT_START ==> fits(code[i], i, n);

    predicate code_ok{L}(struct vm_program *p) =
      \valid_read(p) && 0 < p->code_size <= VM_MAX_CODE && p->ntrig <= VM_MAX_TRIGGERS &&
      \valid_read(p->code + (0 .. p->code_size - 1)) &&
      \valid_read(p->trig + (0 .. 2 * p->ntrig - 1));

    // scratch (2n entries) and the diagnostic are apart from the program and each other.
    predicate scratch_ok{L}(struct vm_program *p, uint16_t *st, struct vm_diag *d) =
      code_ok(p) && \valid(d) && \valid(st + (0 .. 2 * p->code_size - 1)) &&
      \separated(st + (0 .. 2 * p->code_size - 1), d, p, p->code + (0 .. p->code_size - 1),
                 p->trig + (0 .. 2 * p->ntrig - 1)) &&
      \separated(d, p, p->code + (0 .. p->code_size - 1), p->trig + (0 .. 2 * p->ntrig - 1));

    // Trigger j's code offset lies in the code. (A predicate, not an inline formula, so that
    // provers can match quantified facts about it: 2 * j + 1 makes a poor trigger.)
    predicate entry_in_code{L}(struct vm_program *p, integer j) = p->trig[2 * j + 1] < p->code_size;

    // Number of reached starts (state >= DEPTH0) among st[0..n). The worklist never holds more
    // entries than this, which bounds it by n.
    logic integer nvisited{L}(uint16_t *st, integer n) =
      n <= 0 ? 0 : nvisited(st, n - 1) + (st[n - 1] >= DEPTH0 ? 1 : 0);
*/

/*@ requires \valid(d);
    assigns *d;
    ensures !\result; */
static bool fail(struct vm_diag *d, enum vm_err code, uint32_t off) {
  d->code = code;
  d->offset = off;
  return false;
}

/*@ assigns \nothing;
    ensures \result <==> vm_op_jump(op); */
static bool is_jump(uint8_t op) {
  return op == VM_OP_JMP || op == VM_OP_JZ || op == VM_OP_JNZ ||
         (op >= VM_OP_JEQ && op <= VM_OP_JGE);
}

/*@ assigns \nothing;
    ensures \result <==> vm_op_jvk(op); */
static bool is_jvk(uint8_t op) { return op >= VM_OP_JEQVK && op <= VM_OP_JGEVK; }

/*@ assigns \nothing;
    ensures \result <==> vm_op_var(op); */
static bool has_var_operand(uint8_t op) {
  return op == VM_OP_LOADX || op == VM_OP_STOREX || op == VM_OP_SEND || op == VM_OP_DELIVER ||
         op == VM_OP_GET || op == VM_OP_RECV;
}

/* Target of the jump at pc with len operand bytes (its displacement is the last operand, relative
 * to the next instruction) as a code offset, or -1 when it falls outside [0, size). */
/*@ requires code_ok(p) && (len == 4 || len == 12) && pc + len < p->code_size;
    assigns \nothing;
    ensures \result == -1 || 0 <= \result < p->code_size; */
static int64_t jump_target(const struct vm_program *p, uint32_t pc, uint32_t len) {
  int64_t t = (int64_t)pc + 1 + len + (int32_t)vm_rd32(p->code + pc + len - 3);
  return t >= 0 && t < (int64_t)p->code_size ? t : -1;
}

/* The jump at pc's target, or -2 when the instruction is no jump. */
/*@ requires code_ok(p) && pc < p->code_size && fits(p->code[pc], pc, p->code_size);
    assigns \nothing;
    ensures \result == -2 || \result == -1 || 0 <= \result < p->code_size; */
static int64_t target_of(const struct vm_program *p, uint32_t pc) {
  uint8_t op = p->code[pc];
  if (is_jump(op)) return jump_target(p, pc, 4);
  if (is_jvk(op)) return jump_target(p, pc, 12);
  return -2;
}

/*@ requires code_ok(p) && \valid(d) && pc < p->code_size;
    requires fits(p->code[pc], pc, p->code_size);
    assigns *d; */
static bool check_operands(const struct vm_program *p, uint32_t pc, struct vm_diag *d) {
  uint8_t op = p->code[pc];
  if (op == VM_OP_LOAD || op == VM_OP_STORE || op == VM_OP_INCV || op == VM_OP_ADDV ||
      is_jvk(op)) {
    if (vm_rd32(p->code + pc + 1) >= p->data_words) return fail(d, VM_ERR_DATA_BOUNDS, pc);
  } else if (has_var_operand(op) || op == VM_OP_LOADXV || op == VM_OP_STOREXV) {
    uint32_t base = vm_rd32(p->code + pc + 1), count = vm_rd32(p->code + pc + 5);
    if (count == 0 || base >= p->data_words || count > p->data_words - base)
      return fail(d, VM_ERR_DATA_BOUNDS, pc);
    /* the index word of LOADXV/STOREXV */
    if (op != VM_OP_LOADXV && op != VM_OP_STOREXV) return true;
    if (vm_rd32(p->code + pc + 9) >= p->data_words) return fail(d, VM_ERR_DATA_BOUNDS, pc);
  }
  return true;
}

/*@ requires scratch_ok(p, st, d);
    assigns st[0 .. p->code_size - 1], *d;
    ensures \result ==> starts_fit(p->code, p->code_size, st); */
static bool decode_pass(const struct vm_program *p, uint16_t *st, struct vm_diag *d) {
  uint32_t pc = 0, n = p->code_size;
  /*@ loop invariant 0 <= i <= n;
      loop invariant \forall integer j; 0 <= j < i ==> st[j] == NOT_START;
      loop assigns i, st[0 .. n - 1];
      loop variant n - i; */
  for (uint32_t i = 0; i < n; i++) st[i] = NOT_START;
  /*@ loop invariant 0 <= pc <= n;
      loop invariant \forall integer i; 0 <= i < n ==> st[i] != NOT_START ==>
        i < pc && fits(p->code[i], i, n);
      loop assigns pc, st[0 .. n - 1], *d;
      loop variant n - pc; */
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

/*@ requires scratch_ok(p, (uint16_t *)st, d) && starts_fit(p->code, p->code_size, (uint16_t *)st);
    assigns *d; */
static bool jump_pass(const struct vm_program *p, const uint16_t *st, struct vm_diag *d) {
  /*@ loop invariant 0 <= pc <= p->code_size;
      loop assigns pc;
      loop variant p->code_size - pc; */
  for (uint32_t pc = 0; pc < p->code_size; pc++) {
    if (st[pc] == NOT_START) continue;
    int64_t t = target_of(p, pc);
    if (t == -2) continue;
    if (t < 0 || st[t] == NOT_START) return fail(d, VM_ERR_BAD_JUMP, pc);
  }
  return true;
}

struct work {
  uint16_t *st, *list;
  uint32_t len;
  uint32_t n; /* code size: st and list hold n entries each */
};

/*@ predicate work_ok{L}(struct work *w) =
      \valid(w) && 0 < w->n <= VM_MAX_CODE && w->list == w->st + w->n &&
      \valid(w->st + (0 .. 2 * w->n - 1)) && \separated(w, w->st + (0 .. 2 * w->n - 1)) &&
      w->len <= nvisited(w->st, w->n) <= w->n &&
      \forall integer k; 0 <= k < w->len ==> w->list[k] < w->n && w->st[w->list[k]] >= DEPTH0;

    // The marks that say "instruction start" are those of label L.
    predicate same_starts{L1, L2}(struct work *w) =
      \forall integer i; 0 <= i < \at(w->n, L1) ==>
        (\at(w->st[i], L1) == NOT_START <==> \at(w->st[i], L2) == NOT_START);
*/

/* Records that control reaches `to` with depth `depth`; `from` names the instruction for errors. */
/*@ requires work_ok(w) && to < w->n && depth <= VM_STACK_MAX && \valid(d);
    requires \separated(d, w, w->st + (0 .. 2 * w->n - 1));
    assigns w->st[to], w->list[0 .. w->n - 1], w->len, *d;
    ensures same_starts{Old, Here}(w);
    ensures \result ==> work_ok(w);
    ensures \result ==> w->len >= \old(w->len);
    ensures \result ==>
      w->len - \old(w->len) == nvisited(w->st, w->n) - \old(nvisited(w->st, w->n));
*/
static bool reach(struct work *w, uint32_t to, uint32_t depth, uint32_t from, struct vm_diag *d) {
  if (w->st[to] == UNREACHED) {
    /* to is an unreached start, so fewer than n starts are reached and the list has room. */
    /*@ ghost
      /@ loop invariant 0 <= i <= w->n;
         loop invariant 0 <= nvisited(w->st, i) && nvisited(w->st, i) + (i > to ? 1 : 0) <= i;
         loop assigns i;
         loop variant w->n - i; @/
      for (uint32_t i = 0; i < w->n; i++);
    */
    w->list[w->len++] = (uint16_t)to;
    w->st[to] = (uint16_t)(DEPTH0 + depth);
    /*@ ghost
      /@ loop invariant 0 <= i <= w->n;
         loop invariant \forall integer k; 0 <= k <= i ==>
           nvisited(w->st, k) == \at(nvisited(w->st, k), Pre) + (k > to ? 1 : 0);
         loop assigns i;
         loop variant w->n - i; @/
      for (uint32_t i = 0; i < w->n; i++);
    */
    return true;
  }
  if (w->st[to] != DEPTH0 + depth) return fail(d, VM_ERR_STACK_MISMATCH, from);
  return true;
}

/*@ requires code_ok(p) && work_ok(w) && w->n == p->code_size && \valid(d);
    requires max_stack <= VM_STACK_MAX;
    requires pc < w->n && w->st[pc] >= DEPTH0 && starts_fit(p->code, w->n, w->st);
    requires \separated(d, w, w->st + (0 .. 2 * w->n - 1), p, p->code + (0 .. p->code_size - 1));
    requires \separated(w, p, p->code + (0 .. p->code_size - 1));
    requires \separated(w->st + (0 .. 2 * w->n - 1), p, p->code + (0 .. p->code_size - 1));
    assigns w->st[0 .. w->n - 1], w->list[0 .. w->n - 1], w->len, *d;
    ensures \result ==> work_ok(w);
    ensures \result ==> starts_fit(\old(p->code), \old(w->n), w->st);
    ensures \result ==> w->len >= \old(w->len);
    ensures \result ==>
      w->len - \old(w->len) == nvisited(w->st, w->n) - \old(nvisited(w->st, w->n));
*/
static bool step(const struct vm_program *p, struct work *w, uint32_t pc, uint32_t max_stack,
                 struct vm_diag *d) {
  uint8_t op = p->code[pc];
  const struct vm_opinfo *oi = vm_opinfo(op);
  uint32_t depth = (uint32_t)w->st[pc] - DEPTH0;
  if (depth < oi->pops) return fail(d, VM_ERR_STACK_UNDERFLOW, pc);
  depth = depth - oi->pops + oi->pushes;
  if (depth > max_stack) return fail(d, VM_ERR_STACK_OVERFLOW, pc);
  if (op == VM_OP_AWAIT || op == VM_OP_STOP) return true;
  int64_t t = target_of(p, pc);
  if (t != -2) {
    /* jump_pass has rejected every start whose jump leaves the code: t >= 0 here. */
    if (t < 0) return fail(d, VM_ERR_BAD_JUMP, pc);
    if (!reach(w, (uint32_t)t, depth, pc, d)) return false;
  }
  if (op == VM_OP_JMP) return true;
  uint32_t next = pc + 1u + oi->operand_bytes;
  if (next >= p->code_size) return fail(d, VM_ERR_FALLS_OFF_END, pc);
  return reach(w, next, depth, pc, d);
}

/*@ requires scratch_ok(p, scratch, d) && max_stack <= VM_STACK_MAX;
    requires starts_fit(p->code, p->code_size, scratch);
    requires p->init_off < p->code_size;
    assigns scratch[0 .. 2 * p->code_size - 1], *d;
*/
static bool stack_pass(const struct vm_program *p, uint16_t *scratch, uint32_t max_stack,
                       struct vm_diag *d) {
  struct work w = {scratch, scratch + p->code_size, 0, p->code_size};
  /*@ ghost
    /@ loop invariant 0 <= i <= w.n && 0 <= nvisited(scratch, i) <= i;
       loop assigns i;
       loop variant w.n - i; @/
    for (uint32_t i = 0; i < w.n; i++);
  */
  if (!reach(&w, p->init_off, 0, p->init_off, d)) return false;
  /*@ loop invariant 0 <= i <= p->ntrig <= VM_MAX_TRIGGERS;
      loop invariant work_ok(&w) && w.st == scratch && w.n == p->code_size;
      loop invariant starts_fit(p->code, w.n, scratch);
      loop assigns i, scratch[0 .. 2 * p->code_size - 1], w.len, *d;
      loop variant p->ntrig - i; */
  for (uint32_t i = 0; i < p->ntrig; i++) {
    uint32_t off = p->trig[2 * i + 1];
    /* entry_pass has rejected such entries; the check keeps the proof local (proofs/README.md) */
    if (off >= p->code_size) return fail(d, VM_ERR_BAD_TRIGGER, i);
    if (!reach(&w, off, 0, off, d)) return false;
  }
  /*@ loop invariant work_ok(&w) && w.st == scratch && w.n == p->code_size;
      loop invariant starts_fit(p->code, w.n, scratch);
      loop assigns scratch[0 .. 2 * p->code_size - 1], w.len, *d; */
  while (w.len > 0) {
    uint32_t pc = w.list[--w.len];
    if (!step(p, &w, pc, max_stack, d)) return false;
  }
  return true;
}

/* Entry points (initial block, triggers) must be instruction starts. */
/*@ requires \valid_read(p) && \valid(d) && p->ntrig <= VM_MAX_TRIGGERS;
    requires \valid_read(p->trig + (0 .. 2 * p->ntrig - 1));
    requires \valid_read(st + (0 .. p->code_size - 1));
    requires \separated(d, p, p->trig + (0 .. 2 * p->ntrig - 1));
    assigns *d;
    ensures \result ==> p->init_off < p->code_size;
    ensures \result ==> \forall integer i; 0 <= i < p->ntrig ==> entry_in_code(p, i);
*/
static bool entry_pass(const struct vm_program *p, const uint16_t *st, struct vm_diag *d) {
  if (p->init_off >= p->code_size || st[p->init_off] == NOT_START)
    return fail(d, VM_ERR_BAD_ENTRY, p->init_off);
  /*@ loop invariant 0 <= i <= p->ntrig <= VM_MAX_TRIGGERS;
      loop invariant \forall integer j; 0 <= j < i ==> entry_in_code(p, j);
      loop assigns i;
      loop variant p->ntrig - i; */
  for (uint32_t i = 0; i < p->ntrig; i++) {
    uint32_t off = p->trig[2 * i + 1];
    if (off >= p->code_size || st[off] == NOT_START) return fail(d, VM_ERR_BAD_TRIGGER, i);
  }
  return true;
}

bool vm_verify(const struct vm_program *p, uint32_t max_stack, uint16_t *scratch,
               struct vm_diag *d) {
  if (p->code_size == 0 || p->code_size > VM_MAX_CODE) return fail(d, VM_ERR_BAD_SIZE, 0);
  if (!decode_pass(p, scratch, d) || !jump_pass(p, scratch, d) || !entry_pass(p, scratch, d))
    return false;
  return stack_pass(p, scratch, max_stack, d);
}
