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

static bool push(struct cpu *c, int32_t v) {
  if (c->sp >= c->p->stack_words) return false;
  c->p->stack[c->sp++] = v;
  return true;
}

static bool pop(struct cpu *c, int32_t *v) {
  if (c->sp == 0) return false;
  *v = c->p->stack[--c->sp];
  return true;
}

static bool pop_n(struct cpu *c, int32_t *v, uint32_t n) {
  for (uint32_t i = n; i > 0; i--)
    if (!pop(c, &v[i - 1])) return false;
  return true;
}

/* Operand word k (0 or 1) of the instruction at pc; the caller checked that it fits. */
static uint32_t operand(const struct cpu *c, uint32_t k) {
  return vm_rd32(c->p->code + c->pc + 1u + 4u * k);
}

/* Byte range of variable (base, count) starting at element idx, len bytes long. */
static uint8_t *var_range(const struct cpu *c, int32_t idx, int32_t len) {
  uint32_t base = operand(c, 0), count = operand(c, 1), i = (uint32_t)idx, n = (uint32_t)len;
  if (base >= c->p->data_words || count > c->p->data_words - base) return NULL;
  if (i >= count || n > (count - i) * 4u) return NULL;
  return (uint8_t *)(void *)(c->p->data + base + i);
}

static int32_t arith(uint8_t op, int32_t a, int32_t b, bool *divzero) {
  uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
  switch (op) {
  case VM_OP_ADD: return (int32_t)(ua + ub);
  case VM_OP_SUB: return (int32_t)(ua - ub);
  case VM_OP_MUL: return (int32_t)(ua * ub);
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
  if (b == -1) return op == VM_OP_DIV ? (int32_t)(0u - ua) : 0; /* INT32_MIN / -1 wraps */
  return op == VM_OP_DIV ? a / b : a % b;
}

static int binary(struct cpu *c, uint8_t op) {
  int32_t v[2];
  bool divzero = false;
  if (!pop_n(c, v, 2)) return VM_R_FAULT_INTERNAL;
  int32_t x = arith(op, v[0], v[1], &divzero);
  if (divzero) return VM_R_FAULT_DIV;
  return push(c, x) ? CONT : VM_R_FAULT_INTERNAL;
}

static int unary(struct cpu *c, uint8_t op) {
  int32_t a;
  if (!pop(c, &a)) return VM_R_FAULT_INTERNAL;
  if (op == VM_OP_NEG) a = (int32_t)(0u - (uint32_t)a);
  else if (op == VM_OP_NOT) a = a == 0;
  else if (!push(c, a)) return VM_R_FAULT_INTERNAL; /* DUP */
  return push(c, a) ? CONT : VM_R_FAULT_INTERNAL;
}

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
  if (!pop_n(c, v, op == VM_OP_LOADX ? 1u : 2u)) return VM_R_FAULT_INTERNAL;
  int32_t *cell = (int32_t *)(void *)var_range(c, v[0], 4);
  if (cell == NULL) return VM_R_FAULT_BOUNDS;
  if (op == VM_OP_STOREX) *cell = v[1];
  else if (!push(c, *cell)) return VM_R_FAULT_INTERNAL;
  return CONT;
}

static int jump(struct cpu *c, uint8_t op, uint32_t *next) {
  int32_t cond = 0;
  if (op != VM_OP_JMP && !pop(c, &cond)) return VM_R_FAULT_INTERNAL;
  if (op == VM_OP_JMP || (op == VM_OP_JZ) == (cond == 0)) {
    int64_t t = (int64_t)*next + (int32_t)operand(c, 0);
    if (t < 0 || t >= (int64_t)c->p->code_size) return VM_R_FAULT_INTERNAL;
    *next = (uint32_t)t;
  }
  return CONT;
}

static int do_send(struct cpu *c) {
  int32_t v[6]; /* idx, len, trigger, program, addr_hi, addr_lo */
  if (!pop_n(c, v, 6)) return VM_R_FAULT_INTERNAL;
  const uint8_t *d = var_range(c, v[0], v[1]);
  if (d == NULL) return VM_R_FAULT_BOUNDS;
  if (c->s->send == NULL) return VM_R_FAULT_SERVICE;
  uint64_t addr = (uint64_t)(uint32_t)v[4] << 32 | (uint32_t)v[5];
  return c->s->send(c->s->ctx, d, (uint32_t)v[1], (uint32_t)v[2], (uint32_t)v[3], addr) == 0
             ? CONT
             : VM_R_FAULT_SERVICE;
}

static int do_dma(struct cpu *c, uint8_t op) {
  int32_t v[4]; /* idx, host offset, segment, len */
  if (!pop_n(c, v, 4)) return VM_R_FAULT_INTERNAL;
  uint8_t *d = var_range(c, v[0], v[3]);
  if (d == NULL) return VM_R_FAULT_BOUNDS;
  uint32_t len = (uint32_t)v[3], seg = (uint32_t)v[2], off = (uint32_t)v[1];
  int rc;
  if (op == VM_OP_DELIVER) {
    if (c->s->deliver == NULL) return VM_R_FAULT_SERVICE;
    rc = c->s->deliver(c->s->ctx, d, len, seg, off);
  } else {
    if (c->s->get == NULL) return VM_R_FAULT_SERVICE;
    rc = c->s->get(c->s->ctx, d, len, seg, off);
  }
  return rc == 0 ? CONT : VM_R_FAULT_SERVICE;
}

static int do_recv(struct cpu *c) {
  int32_t v[3]; /* idx, message offset, len */
  if (!pop_n(c, v, 3)) return VM_R_FAULT_INTERNAL;
  uint8_t *d = var_range(c, v[0], v[2]);
  uint32_t off = (uint32_t)v[1], len = (uint32_t)v[2];
  if (d == NULL || off > c->m->len || len > c->m->len - off) return VM_R_FAULT_BOUNDS;
  for (uint32_t i = 0; i < len; i++) d[i] = c->m->payload[off + i];
  return CONT;
}

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
    return push(c, (int32_t)c->s->clock(c->s->ctx)) ? CONT : VM_R_FAULT_INTERNAL;
  case VM_OP_DISPLAY:
    if (!pop(c, &v)) return VM_R_FAULT_INTERNAL;
    if (c->s->display == NULL) return VM_R_FAULT_SERVICE;
    c->s->display(c->s->ctx, v);
    return CONT;
  case VM_OP_AWAIT:
    if (c->s->await != NULL) c->s->await(c->s->ctx);
    return VM_R_AWAIT;
  case VM_OP_STOP: return VM_R_STOP;
  default: return VM_R_FAULT_INTERNAL;
  }
}

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
  case VM_OP_STOREX: return memop(c, op);
  case VM_OP_JMP:
  case VM_OP_JZ:
  case VM_OP_JNZ: return jump(c, op, next);
  default: break;
  }
  if (op >= VM_OP_ADD && op <= VM_OP_GE && op != VM_OP_NEG && op != VM_OP_NOT)
    return binary(c, op);
  return do_service(c, op);
}

static enum vm_result abort_activation(struct vm_program *p, enum vm_result r) {
  p->aborts++;
  p->state = VM_PS_WAITING;
  return r;
}

enum vm_result vm_exec(struct vm_program *p, uint32_t pc, const struct vm_services *s,
                       const struct vm_msg *m, uint32_t budget) {
  struct cpu c = {p, s, m, pc, 0};
  p->last_steps = 0;
  while (p->last_steps < budget) {
    if (c.pc >= p->code_size) return abort_activation(p, VM_R_FAULT_INTERNAL);
    uint8_t op = p->code[c.pc];
    const struct vm_opinfo *oi = vm_opinfo(op);
    if (!oi->valid || oi->operand_bytes >= p->code_size - c.pc)
      return abort_activation(p, VM_R_FAULT_INTERNAL);
    uint32_t next = c.pc + 1u + oi->operand_bytes;
    p->last_steps++;
    int r = execute(&c, op, &next);
    if (r == VM_R_AWAIT) p->state = VM_PS_WAITING;
    if (r == VM_R_STOP) p->state = VM_PS_STOPPED;
    if (r == VM_R_AWAIT || r == VM_R_STOP) return (enum vm_result)r;
    if (r != CONT) return abort_activation(p, (enum vm_result)r);
    c.pc = next;
  }
  return abort_activation(p, VM_R_BUDGET);
}

static const struct vm_msg no_msg = {NULL, 0};

enum vm_result vm_start(struct vm_program *p, const struct vm_services *s, uint32_t budget) {
  if (p->state != VM_PS_LOADED) return VM_R_NOT_READY;
  return vm_exec(p, p->init_off, s, &no_msg, budget);
}

/* Binary search of the ascending trigger table. */
static bool find_trigger(const struct vm_program *p, uint32_t trigger, uint32_t *off) {
  uint32_t lo = 0, hi = p->ntrig;
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

enum vm_result vm_dispatch(struct vm_program *p, uint32_t trigger, const struct vm_msg *m,
                           const struct vm_services *s, uint32_t budget) {
  uint32_t off;
  if (p->state != VM_PS_WAITING) return VM_R_NOT_READY;
  if (!find_trigger(p, trigger, &off)) return VM_R_NO_TRIGGER;
  return vm_exec(p, off, s, m != NULL ? m : &no_msg, budget);
}
