/* The interpreter: a switch loop over verified code with an instruction budget. Every access
 * is still bounds-checked (pc, stack, data, message), so memory safety does not depend on the
 * verifier having run; the verifier makes those checks never fire for well-formed modules. */
#include "vm_internal.h"
#include "vm_ops.h"

/* Handlers return CONT to go on, or the vm_result that ends the activation. */
enum { CONT = -1 };

struct cpu {
  struct vm_program *p;
  const struct vm_services *s;
  const struct vm_msg *m;
  uint32_t pc, sp;
};

/*@ predicate cpu_ok{L}(struct cpu *c) =
      \valid(c) && vm_prog_ok(c->p) && vm_msg_ok(c->m, c->p) && \valid_read(c->s) &&
      c->sp <= c->p->stack_words && \separated(c, c->p) && \separated(c, c->m) &&
      \separated(c, c->s) &&
      \separated(c, c->p->data + (0 .. c->p->data_words - 1),
                 c->p->stack + (0 .. c->p->stack_words - 1), c->p->code + (0 .. c->p->code_size - 1));

    // The instruction at pc is whole: its operands lie within the code.
    predicate insn_ok{L}(struct cpu *c) =
      c->pc < c->p->code_size &&
      (vm_op_word(c->p->code[c->pc]) ==> c->pc + 4 < c->p->code_size) &&
      (vm_op_var(c->p->code[c->pc]) ==> c->pc + 8 < c->p->code_size) &&
      (vm_op_pair(c->p->code[c->pc]) ==> c->pc + 8 < c->p->code_size) &&
      (vm_op_triple(c->p->code[c->pc]) ==> c->pc + 12 < c->p->code_size);

    logic integer nwords(integer bytes) = (bytes + 3) / 4;
*/

/* VM arithmetic wraps (FORMAT.md). Unsigned wrap-around is defined C, but the proofs run with
 * -warn-unsigned-overflow, which reports it: these are the intended wraps, proved apart (module
 * vm-wrap, every run-time check but that warning). */
/*@ assigns \nothing; */
static uint32_t wrap_add(uint32_t a, uint32_t b) { return a + b; }
/*@ assigns \nothing; */
static uint32_t wrap_sub(uint32_t a, uint32_t b) { return a - b; }
/*@ assigns \nothing; */
static uint32_t wrap_mul(uint32_t a, uint32_t b) { return a * b; }

/* The embedder's services are called through pointers, which WP cannot check (Frama-C 25 has
 * no \valid_function); the byte view of data words is outside WP's typed memory model. These
 * wrappers state what the VM assumes of a service: it reads or writes only the data words it is
 * given and no other VM memory. Trusted by proofs/modules.conf. */
/*@ requires \valid_read(s) && \valid_read(data + (0 .. nwords(len) - 1));
    assigns \nothing; */
static int svc_send(const struct vm_services *s, const int32_t *data, uint32_t len,
                    uint32_t trig, uint32_t prog, uint32_t hi, uint32_t lo) {
  uint64_t addr = (uint64_t)hi << 32 | lo;
#ifdef __lanai__
  int32_t *w = (int32_t *)(uintptr_t)data; /* the program's own data memory */
  vm_le_words(w, len);
  int r = s->send(s->ctx, (const uint8_t *)(const void *)data, len, trig, prog, addr);
  vm_le_words(w, len);
  return r;
#else
  return s->send(s->ctx, (const uint8_t *)(const void *)data, len, trig, prog, addr);
#endif
}
/*@ requires \valid_read(s) && \valid(data + (0 .. nwords(len) - 1));
    assigns data[0 .. nwords(len) - 1]; */
static int svc_dma(const struct vm_services *s, bool get, int32_t *data, uint32_t len,
                   uint32_t seg, uint32_t off) {
  uint8_t *b = (uint8_t *)(void *)data;
#ifdef __lanai__
  vm_le_words(data, len);
  int r = get ? s->get(s->ctx, b, len, seg, off) : s->deliver(s->ctx, b, len, seg, off);
  vm_le_words(data, len);
  return r;
#else
  return get ? s->get(s->ctx, b, len, seg, off) : s->deliver(s->ctx, b, len, seg, off);
#endif
}
/*@ requires \valid_read(s);
    assigns \nothing; */
static uint32_t svc_clock(const struct vm_services *s) { return s->clock(s->ctx); }
/*@ requires \valid_read(s);
    assigns \nothing; */
static void svc_display(const struct vm_services *s, int32_t v) { s->display(s->ctx, v); }
/*@ requires \valid_read(s);
    assigns \nothing; */
static void svc_await(const struct vm_services *s) { s->await(s->ctx); }
/*@ requires \valid(data + (0 .. nwords(len) - 1)) && \valid_read(src + (0 .. len - 1));
    assigns data[0 .. nwords(len) - 1]; */
static void copy_in(int32_t *data, const uint8_t *src, uint32_t len) {
  uint8_t *d = (uint8_t *)(void *)data;
  for (uint32_t i = 0; i < len; i++) d[i ^ VM_LE_BYTE] = src[i];
}

/*@ requires cpu_ok(c);
    assigns c->sp, c->p->stack[0 .. c->p->stack_words - 1];
    ensures cpu_ok(c); */
static bool push(struct cpu *c, int32_t v) {
  if (c->sp >= c->p->stack_words) return false;
  c->p->stack[c->sp++] = v;
  return true;
}

/*@ requires cpu_ok(c) && \valid(v) && \separated(v, c, c->p);
    assigns c->sp, *v;
    ensures cpu_ok(c); */
static bool pop(struct cpu *c, int32_t *v) {
  if (c->sp == 0) return false;
  *v = c->p->stack[--c->sp];
  return true;
}

/*@ requires cpu_ok(c) && \valid(v + (0 .. n - 1)) && \separated(v + (0 .. n - 1), c, c->p);
    assigns c->sp, v[0 .. n - 1];
    ensures cpu_ok(c); */
static bool pop_n(struct cpu *c, int32_t *v, uint32_t n) {
  /*@ loop invariant 0 <= i <= n && cpu_ok(c);
      loop assigns i, c->sp, v[0 .. n - 1];
      loop variant i; */
  for (uint32_t i = n; i > 0; i--)
    if (!pop(c, &v[i - 1])) return false;
  return true;
}

/* Operand word k (0, 1 or 2) of the instruction at pc; the caller checked that it fits. */
/*@ requires cpu_ok(c) && k <= 2 && c->pc + 4 * k + 4 < c->p->code_size;
    assigns \nothing; */
static uint32_t operand(const struct cpu *c, uint32_t k) {
  return vm_rd32(c->p->code + c->pc + 1u + 4u * k);
}

/* Byte range of variable (base, count) starting at element idx, len bytes long. */
/*@ requires cpu_ok(c) && c->pc + 8 < c->p->code_size;
    assigns \nothing;
    ensures \result != \null ==>
      \valid(\result) && \valid(\result + (0 .. nwords((uint32_t)len) - 1)) &&
      \subset(\result + (0 .. nwords((uint32_t)len) - 1), c->p->data + (0 .. c->p->data_words - 1)) &&
      \subset(\result, c->p->data + (0 .. c->p->data_words - 1)); */
static int32_t *var_range(const struct cpu *c, int32_t idx, int32_t len) {
  uint32_t base = operand(c, 0), count = operand(c, 1), i = (uint32_t)idx, n = (uint32_t)len;
  if (base >= c->p->data_words || count > c->p->data_words - base) return NULL;
  if (i >= count || n > (count - i) * 4u) return NULL;
  return c->p->data + base + i;
}

/*@ requires \valid(divzero);
    assigns *divzero; */
static int32_t arith(uint8_t op, int32_t a, int32_t b, bool *divzero) {
  uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
  switch (op) {
  case VM_OP_ADD: return (int32_t)wrap_add(ua, ub);
  case VM_OP_SUB: return (int32_t)wrap_sub(ua, ub);
  case VM_OP_MUL: return (int32_t)wrap_mul(ua, ub);
  case VM_OP_AND: return a != 0 && b != 0;
  case VM_OP_OR: return a != 0 || b != 0;
  case VM_OP_EQ: return a == b;
  case VM_OP_NE: return a != b;
  case VM_OP_LT: return a < b;
  case VM_OP_LE: return a <= b;
  case VM_OP_GT: return a > b;
  case VM_OP_GE: return a >= b;
  default: break;
  }
  if (b == 0) {
    *divzero = true;
    return 0;
  }
  if (b == -1) return op == VM_OP_DIV ? (int32_t)wrap_sub(0u, ua) : 0; /* INT32_MIN / -1 wraps */
  return op == VM_OP_DIV ? a / b : a % b;
}

/* Comparison cc (0..5: EQ NE LT LE GT GE) of a and b, without a second dispatch: bit 2, 1 or 0
 * of cc's mask says whether it holds when a < b, a == b or a > b. */
/*@ requires cc <= 5;
    assigns \nothing; */
static bool holds(uint32_t cc, int32_t a, int32_t b) {
  static const uint8_t mask[6] = {2, 5, 4, 6, 1, 3};
  uint32_t bit = a < b ? 2u : a == b ? 1u : 0u;
  return (mask[cc] >> bit & 1u) != 0;
}

/*@ requires cpu_ok(c);
    assigns c->sp, c->p->stack[0 .. c->p->stack_words - 1];
    ensures cpu_ok(c); */
static int binary(struct cpu *c, uint8_t op) {
  int32_t v[2];
  bool divzero = false;
  if (!pop_n(c, v, 2)) return VM_R_FAULT_INTERNAL;
  int32_t x = arith(op, v[0], v[1], &divzero);
  if (divzero) return VM_R_FAULT_DIV;
  return push(c, x) ? CONT : VM_R_FAULT_INTERNAL;
}

/* ADDK..MODK: the ADD..MOD of the popped value and the constant operand. */
/*@ requires cpu_ok(c) && insn_ok(c) && c->p->code[c->pc] == op && vm_op_kop(op);
    assigns c->sp, c->p->stack[0 .. c->p->stack_words - 1];
    ensures cpu_ok(c); */
static int binary_k(struct cpu *c, uint8_t op) {
  int32_t a;
  bool divzero = false;
  if (!pop(c, &a)) return VM_R_FAULT_INTERNAL;
  int32_t k = (int32_t)operand(c, 0), x;
  if (op == VM_OP_ADDK) x = (int32_t)wrap_add((uint32_t)a, (uint32_t)k);
  else x = arith((uint8_t)(op - VM_OP_ADDK + VM_OP_ADD), a, k, &divzero);
  if (divzero) return VM_R_FAULT_DIV;
  return push(c, x) ? CONT : VM_R_FAULT_INTERNAL;
}

/*@ requires cpu_ok(c);
    assigns c->sp, c->p->stack[0 .. c->p->stack_words - 1];
    ensures cpu_ok(c); */
static int unary(struct cpu *c, uint8_t op) {
  int32_t a;
  if (!pop(c, &a)) return VM_R_FAULT_INTERNAL;
  if (op == VM_OP_NEG) a = (int32_t)wrap_sub(0u, (uint32_t)a);
  else if (op == VM_OP_NOT) a = a == 0;
  else if (!push(c, a)) return VM_R_FAULT_INTERNAL; /* DUP */
  return push(c, a) ? CONT : VM_R_FAULT_INTERNAL;
}

/*@ requires cpu_ok(c) && insn_ok(c) && c->p->code[c->pc] == op;
    requires op == VM_OP_LOAD || op == VM_OP_STORE || op == VM_OP_LOADX || op == VM_OP_STOREX ||
             op == VM_OP_INCV || op == VM_OP_ADDV || op == VM_OP_LOADXV || op == VM_OP_STOREXV;
    assigns c->sp, c->p->stack[0 .. c->p->stack_words - 1], c->p->data[0 .. c->p->data_words - 1];
    ensures cpu_ok(c); */
static int memop(struct cpu *c, uint8_t op) {
  int32_t v[2];
  uint32_t k = operand(c, 0);
  if (op == VM_OP_LOAD) {
    if (k >= c->p->data_words || !push(c, c->p->data[k])) return VM_R_FAULT_INTERNAL;
    return CONT;
  }
  if (op == VM_OP_STORE) {
    if (k >= c->p->data_words || !pop(c, &v[0])) return VM_R_FAULT_INTERNAL;
    c->p->data[k] = v[0];
    return CONT;
  }
  if (op == VM_OP_INCV) {
    if (k >= c->p->data_words) return VM_R_FAULT_INTERNAL;
    c->p->data[k] = (int32_t)wrap_add((uint32_t)c->p->data[k], operand(c, 1));
    return CONT;
  }
  if (op == VM_OP_ADDV) {
    if (k >= c->p->data_words || !pop(c, &v[0])) return VM_R_FAULT_INTERNAL;
    c->p->data[k] = (int32_t)wrap_add((uint32_t)c->p->data[k], (uint32_t)v[0]);
    return CONT;
  }
  if (op == VM_OP_LOADXV || op == VM_OP_STOREXV) { /* the index is data word operand 2 */
    uint32_t w = operand(c, 2);
    if (w >= c->p->data_words) return VM_R_FAULT_INTERNAL;
    if (op == VM_OP_STOREXV && !pop(c, &v[1])) return VM_R_FAULT_INTERNAL;
    v[0] = c->p->data[w];
  } else if (!pop_n(c, v, op == VM_OP_LOADX ? 1u : 2u)) {
    return VM_R_FAULT_INTERNAL;
  }
  int32_t *cell = var_range(c, v[0], 4);
  if (cell == NULL) return VM_R_FAULT_BOUNDS;
  if (op == VM_OP_STOREX || op == VM_OP_STOREXV) *cell = v[1];
  else if (!push(c, *cell)) return VM_R_FAULT_INTERNAL;
  return CONT;
}

/* Takes a jump: next (the following instruction) moves by rel. */
/*@ requires cpu_ok(c) && \valid(next) && \separated(next, c, c->p);
    assigns *next; */
static int take(const struct cpu *c, int32_t rel, uint32_t *next) {
  int64_t t = (int64_t)*next + rel;
  if (t < 0 || t >= (int64_t)c->p->code_size) return VM_R_FAULT_INTERNAL;
  *next = (uint32_t)t;
  return CONT;
}

/* JMP, JZ, JNZ, and JEQ..JGE (the EQ..GE of the two popped values). */
/*@ requires cpu_ok(c) && insn_ok(c) && c->p->code[c->pc] == op && vm_op_jump(op) && \valid(next);
    requires \separated(next, c, c->p, c->m, c->p->stack + (0 .. c->p->stack_words - 1));
    assigns c->sp, *next;
    ensures cpu_ok(c); */
static int jump(struct cpu *c, uint8_t op, uint32_t *next) {
  int32_t v[2] = {0, 0};
  bool taken = true;
  if (op == VM_OP_JZ || op == VM_OP_JNZ) {
    if (!pop(c, &v[0])) return VM_R_FAULT_INTERNAL;
    taken = (op == VM_OP_JZ) == (v[0] == 0);
  } else if (op != VM_OP_JMP) {
    if (!pop_n(c, v, 2)) return VM_R_FAULT_INTERNAL;
    taken = holds((uint32_t)(op - VM_OP_JEQ), v[0], v[1]);
  }
  return taken ? take(c, (int32_t)operand(c, 0), next) : CONT;
}

/* JEQVK..JGEVK: the EQ..GE of a data word and a constant. */
/*@ requires cpu_ok(c) && insn_ok(c) && c->p->code[c->pc] == op && vm_op_jvk(op) && \valid(next);
    requires \separated(next, c, c->p, c->m, c->p->stack + (0 .. c->p->stack_words - 1));
    assigns *next;
    ensures cpu_ok(c); */
static int jump_vk(struct cpu *c, uint8_t op, uint32_t *next) {
  uint32_t w = operand(c, 0);
  if (w >= c->p->data_words) return VM_R_FAULT_INTERNAL;
  if (!holds((uint32_t)(op - VM_OP_JEQVK), c->p->data[w], (int32_t)operand(c, 1))) return CONT;
  return take(c, (int32_t)operand(c, 2), next);
}

/*@ requires cpu_ok(c) && c->pc + 8 < c->p->code_size;
    assigns c->sp;
    ensures cpu_ok(c); */
static int do_send(struct cpu *c) {
  int32_t v[6]; /* idx, len, trigger, program, addr_hi, addr_lo */
  if (!pop_n(c, v, 6)) return VM_R_FAULT_INTERNAL;
  const int32_t *d = var_range(c, v[0], v[1]);
  if (d == NULL) return VM_R_FAULT_BOUNDS;
  if (c->s->send == NULL) return VM_R_FAULT_SERVICE;
  return svc_send(c->s, d, (uint32_t)v[1], (uint32_t)v[2], (uint32_t)v[3], (uint32_t)v[4],
                  (uint32_t)v[5]) == 0
             ? CONT
             : VM_R_FAULT_SERVICE;
}

/*@ requires cpu_ok(c) && c->pc + 8 < c->p->code_size;
    assigns c->sp, c->p->data[0 .. c->p->data_words - 1];
    ensures cpu_ok(c); */
static int do_dma(struct cpu *c, uint8_t op) {
  int32_t v[4]; /* idx, host offset, segment, len */
  if (!pop_n(c, v, 4)) return VM_R_FAULT_INTERNAL;
  int32_t *d = var_range(c, v[0], v[3]);
  if (d == NULL) return VM_R_FAULT_BOUNDS;
  uint32_t len = (uint32_t)v[3], seg = (uint32_t)v[2], off = (uint32_t)v[1];
  if (op == VM_OP_DELIVER ? c->s->deliver == NULL : c->s->get == NULL) return VM_R_FAULT_SERVICE;
  return svc_dma(c->s, op != VM_OP_DELIVER, d, len, seg, off) == 0 ? CONT : VM_R_FAULT_SERVICE;
}

/*@ requires cpu_ok(c) && c->pc + 8 < c->p->code_size;
    assigns c->sp, c->p->data[0 .. c->p->data_words - 1];
    ensures cpu_ok(c); */
static int do_recv(struct cpu *c) {
  int32_t v[3]; /* idx, message offset, len */
  if (!pop_n(c, v, 3)) return VM_R_FAULT_INTERNAL;
  int32_t *d = var_range(c, v[0], v[2]);
  uint32_t off = (uint32_t)v[1], len = (uint32_t)v[2];
  if (d == NULL || off > c->m->len || len > c->m->len - off) return VM_R_FAULT_BOUNDS;
  if (len > 0) /* an empty message may have no payload at all */
    copy_in(d, c->m->payload + off, len);
  return CONT;
}

/*@ requires cpu_ok(c) && insn_ok(c) && c->p->code[c->pc] == op;
    assigns c->sp, c->p->stack[0 .. c->p->stack_words - 1], c->p->data[0 .. c->p->data_words - 1];
    ensures cpu_ok(c); */
static int do_service(struct cpu *c, uint8_t op) {
  int32_t v;
  switch (op) {
  case VM_OP_SEND: return do_send(c);
  case VM_OP_DELIVER:
  case VM_OP_GET: return do_dma(c, op);
  case VM_OP_RECV: return do_recv(c);
  case VM_OP_MSGLEN: return push(c, (int32_t)c->m->len) ? CONT : VM_R_FAULT_INTERNAL;
  case VM_OP_CLOCK:
    if (c->s->clock == NULL) return VM_R_FAULT_SERVICE;
    return push(c, (int32_t)svc_clock(c->s)) ? CONT : VM_R_FAULT_INTERNAL;
  case VM_OP_DISPLAY:
    if (!pop(c, &v)) return VM_R_FAULT_INTERNAL;
    if (c->s->display == NULL) return VM_R_FAULT_SERVICE;
    svc_display(c->s, v);
    return CONT;
  case VM_OP_AWAIT:
    if (c->s->await != NULL) svc_await(c->s);
    return VM_R_AWAIT;
  case VM_OP_STOP: return VM_R_STOP;
  default: return VM_R_FAULT_INTERNAL;
  }
}

/*@ requires cpu_ok(c) && insn_ok(c) && c->p->code[c->pc] == op && \valid(next);
    requires \separated(next, c, c->p, c->m, c->p->stack + (0 .. c->p->stack_words - 1),
                        c->p->data + (0 .. c->p->data_words - 1));
    assigns c->sp, c->p->stack[0 .. c->p->stack_words - 1], c->p->data[0 .. c->p->data_words - 1],
            *next;
    ensures cpu_ok(c); */
static int execute(struct cpu *c, uint8_t op, uint32_t *next) {
  switch (op) {
  case VM_OP_NOP: return CONT;
  case VM_OP_PUSH: return push(c, (int32_t)operand(c, 0)) ? CONT : VM_R_FAULT_INTERNAL;
  case VM_OP_POP: {
    int32_t v;
    return pop(c, &v) ? CONT : VM_R_FAULT_INTERNAL;
  }
  case VM_OP_DUP:
  case VM_OP_NEG:
  case VM_OP_NOT: return unary(c, op);
  case VM_OP_LOAD:
  case VM_OP_STORE:
  case VM_OP_LOADX:
  case VM_OP_STOREX:
  case VM_OP_INCV:
  case VM_OP_ADDV:
  case VM_OP_LOADXV:
  case VM_OP_STOREXV: return memop(c, op);
  case VM_OP_JMP:
  case VM_OP_JZ:
  case VM_OP_JNZ:
  case VM_OP_JEQ:
  case VM_OP_JNE:
  case VM_OP_JLT:
  case VM_OP_JLE:
  case VM_OP_JGT:
  case VM_OP_JGE: return jump(c, op, next);
  case VM_OP_JEQVK:
  case VM_OP_JNEVK:
  case VM_OP_JLTVK:
  case VM_OP_JLEVK:
  case VM_OP_JGTVK:
  case VM_OP_JGEVK: return jump_vk(c, op, next);
  case VM_OP_ADDK:
  case VM_OP_SUBK:
  case VM_OP_MULK:
  case VM_OP_DIVK:
  case VM_OP_MODK: return binary_k(c, op);
  default: break;
  }
  if (op >= VM_OP_ADD && op <= VM_OP_GE && op != VM_OP_NEG && op != VM_OP_NOT)
    return binary(c, op);
  return do_service(c, op);
}

/* Ends an activation after `steps` instructions with r: AWAIT and STOP set the state, the others
 * abort the activation. */
/*@ requires \valid(p);
    assigns p->last_steps, p->aborts, p->state;
    ensures p->last_steps == steps; */
static enum vm_result finish(struct vm_program *p, uint32_t steps, int r) {
  p->last_steps = steps;
  if (r == VM_R_AWAIT) p->state = VM_PS_WAITING;
  if (r == VM_R_STOP) p->state = VM_PS_STOPPED;
  if (r == VM_R_AWAIT || r == VM_R_STOP) return (enum vm_result)r;
  p->aborts = wrap_add(p->aborts, 1u);
  p->state = VM_PS_WAITING;
  return (enum vm_result)r;
}

enum vm_result vm_exec(struct vm_program *p, uint32_t pc, const struct vm_services *s,
                       const struct vm_msg *m, uint32_t budget) {
  struct cpu c = {p, s, m, pc, 0};
  uint32_t steps = 0; /* kept out of *p in the loop: stores to data words could alias it */
  p->last_steps = 0;
  /*@ loop invariant cpu_ok(&c) && c.p == p && c.s == s && c.m == m;
      loop invariant steps <= budget && p->last_steps == 0;
      loop assigns c.pc, c.sp, steps, p->data[0 .. p->data_words - 1],
                   p->stack[0 .. p->stack_words - 1];
      loop variant budget - steps; */
  while (steps < budget) {
    if (c.pc >= p->code_size) return finish(p, steps, VM_R_FAULT_INTERNAL);
    uint8_t op = p->code[c.pc];
    const struct vm_opinfo *oi = vm_opinfo(op);
    if (!oi->valid || oi->operand_bytes >= p->code_size - c.pc)
      return finish(p, steps, VM_R_FAULT_INTERNAL);
    uint32_t next = c.pc + 1u + oi->operand_bytes;
    steps++;
    int r = execute(&c, op, &next);
    if (r != CONT) return finish(p, steps, r);
    c.pc = next;
  }
  return finish(p, steps, VM_R_BUDGET);
}

static const struct vm_msg no_msg = {NULL, 0};

/*@ requires vm_prog_ok(p) && \valid_read(s);
    requires \separated(&no_msg, p, p->data + (0 .. p->data_words - 1),
                        p->stack + (0 .. p->stack_words - 1));
    assigns p->data[0 .. p->data_words - 1], p->stack[0 .. p->stack_words - 1],
            p->last_steps, p->aborts, p->state; */
enum vm_result vm_start(struct vm_program *p, const struct vm_services *s, uint32_t budget) {
  if (p->state != VM_PS_LOADED) return VM_R_NOT_READY;
  return vm_exec(p, p->init_off, s, &no_msg, budget);
}

/* Binary search of the ascending trigger table. */
/*@ requires vm_prog_ok((struct vm_program *)p) && \valid(off) && \separated(off, p);
    assigns *off; */
static bool find_trigger(const struct vm_program *p, uint32_t trigger, uint32_t *off) {
  uint32_t lo = 0, hi = p->ntrig;
  /*@ loop invariant 0 <= lo <= hi <= p->ntrig;
      loop assigns lo, hi;
      loop variant hi - lo; */
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2u;
    uint32_t t = p->trig[2u * mid];
    if (t == trigger) {
      *off = p->trig[2u * mid + 1u];
      return true;
    }
    if (t < trigger) lo = mid + 1u;
    else hi = mid;
  }
  return false;
}

/*@ requires vm_prog_ok(p) && \valid_read(s) && (m == \null || vm_msg_ok(m, p));
    requires \separated(&no_msg, p, p->data + (0 .. p->data_words - 1),
                        p->stack + (0 .. p->stack_words - 1));
    assigns p->data[0 .. p->data_words - 1], p->stack[0 .. p->stack_words - 1],
            p->last_steps, p->aborts, p->state; */
enum vm_result vm_dispatch(struct vm_program *p, uint32_t trigger, const struct vm_msg *m,
                           const struct vm_services *s, uint32_t budget) {
  uint32_t off;
  if (p->state != VM_PS_WAITING) return VM_R_NOT_READY;
  if (!find_trigger(p, trigger, &off)) return VM_R_NO_TRIGGER;
  return vm_exec(p, off, s, m != NULL ? m : &no_msg, budget);
}
