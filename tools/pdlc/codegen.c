/* Code generator: one pass over the AST emitting stack code. Jumps are emitted with a
 * placeholder and patched (relative to the next instruction). The operand-stack depth is
 * tracked per instruction to fill the header's max_stack. Blocks that can fall through end in
 * an implicit AWAIT, as a PDL block returns control to the NIC when it ends.
 * Fewer instructions where the shape allows (the VM's fused forms, FORMAT.md): a comparison
 * that decides a jump becomes one compare-and-branch (against a constant: JxxVK on the scalar
 * itself); `e op constant` uses the constant operand forms ADDK..MODK; `v = v +/- constant`
 * is one INCV, `v = v + e` evaluates e then ADDV; an array element indexed by a scalar is one
 * LOADXV/STOREXV; WHILE tests at the bottom, so an iteration runs one jump, not two. */
#include "codegen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm_internal.h"
#include "vm_ops.h"

struct gen {
  struct module *m;
  struct diag *d;
  uint32_t depth;
  bool fuse; /* emit the fused forms; without, only the basic stack code (for comparison) */
};

static void op(struct gen *g, enum vm_op o) {
  const struct vm_opinfo *oi = vm_opinfo((uint8_t)o);
  buf_put8(&g->m->code, (uint8_t)o);
  g->depth = g->depth - oi->pops + oi->pushes;
  if (g->depth > g->m->max_stack) g->m->max_stack = g->depth;
}

static void op1(struct gen *g, enum vm_op o, uint32_t a) {
  op(g, o);
  buf_put32(&g->m->code, a);
}

static void op2(struct gen *g, enum vm_op o, uint32_t a, uint32_t b) {
  op1(g, o, a);
  buf_put32(&g->m->code, b);
}

/* Appends a jump displacement placeholder to the instruction just emitted; returns where. */
static size_t jump_operand(struct gen *g) {
  buf_put32(&g->m->code, 0);
  return g->m->code.len - 4;
}

/* Emits a jump with a placeholder; returns where to patch. */
static size_t jump(struct gen *g, enum vm_op o) {
  op(g, o);
  return jump_operand(g);
}

static void patch_to(struct gen *g, size_t at, size_t target) {
  buf_patch32(&g->m->code, at, (uint32_t)((int64_t)target - (int64_t)(at + 4)));
}

static void expr(struct gen *g, const struct expr *e);

static uint32_t var_words(const struct var *v) { return v->size ? v->size : 1; }

static void index_of(struct gen *g, const struct ref *r) {
  if (r->index != NULL) expr(g, r->index);
  else op1(g, VM_OP_PUSH, 0);
}

static bool is_scalar(const struct expr *e) { return e->kind == E_REF && e->ref.var->size == 0; }

/* A literal, or the negation of one (the parser reads -5 as NEG 5); *k gets its value. */
static bool is_const(const struct expr *e, uint32_t *k) {
  if (e->kind == E_NUM) *k = e->num;
  else if (e->kind == E_UNARY && e->op == P_MINUS && e->a->kind == E_NUM) *k = 0u - e->a->num;
  else return false;
  return true;
}

static enum vm_op binop(enum tok t) {
  switch (t) {
  case P_PLUS: return VM_OP_ADD;
  case P_MINUS: return VM_OP_SUB;
  case P_STAR: return VM_OP_MUL;
  case P_SLASH: return VM_OP_DIV;
  case P_PERCENT: return VM_OP_MOD;
  case K_AND: return VM_OP_AND;
  case K_OR: return VM_OP_OR;
  case P_EQ: return VM_OP_EQ;
  case P_NE: return VM_OP_NE;
  case P_LT: return VM_OP_LT;
  case P_LE: return VM_OP_LE;
  case P_GT: return VM_OP_GT;
  default: return VM_OP_GE;
  }
}

static void expr(struct gen *g, const struct expr *e) {
  uint32_t k;
  switch (e->kind) {
  case E_NUM: op1(g, VM_OP_PUSH, e->num); break;
  case E_CLOCK: op(g, VM_OP_CLOCK); break;
  case E_MSGLEN: op(g, VM_OP_MSGLEN); break;
  case E_REF:
    if (e->ref.var->size == 0) {
      op1(g, VM_OP_LOAD, e->ref.var->base);
    } else if (g->fuse && is_scalar(e->ref.index)) {
      op2(g, VM_OP_LOADXV, e->ref.var->base, e->ref.var->size);
      buf_put32(&g->m->code, e->ref.index->ref.var->base);
    } else {
      expr(g, e->ref.index);
      op2(g, VM_OP_LOADX, e->ref.var->base, e->ref.var->size);
    }
    break;
  case E_UNARY:
    if (g->fuse && is_const(e, &k)) {
      op1(g, VM_OP_PUSH, k);
      break;
    }
    expr(g, e->a);
    op(g, e->op == P_MINUS ? VM_OP_NEG : VM_OP_NOT);
    break;
  case E_BINARY:
    expr(g, e->a);
    if (g->fuse && is_const(e->b, &k) && binop(e->op) >= VM_OP_ADD && binop(e->op) <= VM_OP_MOD) {
      op1(g, (enum vm_op)(VM_OP_ADDK + (binop(e->op) - VM_OP_ADD)), k);
      break;
    }
    expr(g, e->b);
    op(g, binop(e->op));
    break;
  }
}

static void stmts(struct gen *g, const struct stmt *s);

static int cmp_index(enum tok t) {
  switch (t) {
  case P_EQ: return 0;
  case P_NE: return 1;
  case P_LT: return 2;
  case P_LE: return 3;
  case P_GT: return 4;
  case P_GE: return 5;
  default: return -1;
  }
}

/* Emits a jump taken when e is non-zero (when_true) or zero; returns where to patch. */
static size_t cond_jump(struct gen *g, const struct expr *e, bool when_true) {
  static const int negate[6] = {1, 0, 5, 4, 3, 2}, mirror[6] = {0, 1, 4, 5, 2, 3};
  int cc = g->fuse && e->kind == E_BINARY ? cmp_index(e->op) : -1;
  if (cc < 0) {
    expr(g, e);
    return jump(g, when_true ? VM_OP_JNZ : VM_OP_JZ);
  }
  if (!when_true) cc = negate[cc];
  const struct expr *v = NULL;
  uint32_t k = 0;
  if (is_scalar(e->a) && is_const(e->b, &k)) {
    v = e->a;
  } else if (is_const(e->a, &k) && is_scalar(e->b)) {
    v = e->b;
    cc = mirror[cc];
  }
  if (v != NULL) {
    op2(g, (enum vm_op)(VM_OP_JEQVK + cc), v->ref.var->base, k);
    return jump_operand(g);
  }
  expr(g, e->a);
  expr(g, e->b);
  return jump(g, (enum vm_op)(VM_OP_JEQ + cc));
}

static void assign(struct gen *g, const struct stmt *s) {
  const struct var *v = s->ref.var;
  const struct expr *e = s->value;
  if (g->fuse && v->size == 0 && e->kind == E_BINARY && (e->op == P_PLUS || e->op == P_MINUS)) {
    /* v = v + k, v = v - k, v = k + v */
    const struct expr *other = NULL;
    if (is_scalar(e->a) && e->a->ref.var == v) other = e->b;
    else if (e->op == P_PLUS && is_scalar(e->b) && e->b->ref.var == v) other = e->a;
    uint32_t k;
    if (other != NULL && is_const(other, &k)) {
      op2(g, VM_OP_INCV, v->base, e->op == P_MINUS ? 0u - k : k);
      return;
    }
    if (other != NULL && e->op == P_PLUS) { /* expressions cannot change v: order is free */
      expr(g, other);
      op1(g, VM_OP_ADDV, v->base);
      return;
    }
  }
  if (v->size == 0) {
    expr(g, s->value);
    op1(g, VM_OP_STORE, v->base);
  } else if (g->fuse && is_scalar(s->ref.index)) {
    expr(g, s->value);
    op2(g, VM_OP_STOREXV, v->base, v->size);
    buf_put32(&g->m->code, s->ref.index->ref.var->base);
  } else {
    expr(g, s->ref.index);
    expr(g, s->value);
    op2(g, VM_OP_STOREX, v->base, v->size);
  }
}

static void if_stmt(struct gen *g, const struct stmt *s) {
  size_t to_else = cond_jump(g, s->value, false);
  stmts(g, s->body);
  if (s->els == NULL) {
    patch_to(g, to_else, g->m->code.len);
    return;
  }
  size_t to_end = jump(g, VM_OP_JMP);
  patch_to(g, to_else, g->m->code.len);
  stmts(g, s->els);
  patch_to(g, to_end, g->m->code.len);
}

static void while_stmt(struct gen *g, const struct stmt *s) {
  if (!g->fuse) {
    size_t top = g->m->code.len;
    expr(g, s->value);
    size_t to_end = jump(g, VM_OP_JZ);
    stmts(g, s->body);
    patch_to(g, jump(g, VM_OP_JMP), top);
    patch_to(g, to_end, g->m->code.len);
    return;
  }
  size_t to_test = jump(g, VM_OP_JMP);
  size_t body = g->m->code.len;
  stmts(g, s->body);
  patch_to(g, to_test, g->m->code.len);
  patch_to(g, cond_jump(g, s->value, true), body);
}

/* Operands go on the stack in the order the VM pops them back (FORMAT.md). */
static void transfer(struct gen *g, const struct stmt *s) {
  const struct var *v = s->ref.var;
  index_of(g, &s->ref);
  switch (s->kind) {
  case S_SEND:
    expr(g, s->e[X_LEN]);
    expr(g, s->e[X_TRIG]);
    expr(g, s->e[X_PROG]);
    op1(g, VM_OP_PUSH, (uint32_t)(s->addr >> 32));
    op1(g, VM_OP_PUSH, (uint32_t)s->addr);
    op2(g, VM_OP_SEND, v->base, var_words(v));
    break;
  case S_RECEIVE:
    expr(g, s->e[X_OFF]);
    expr(g, s->e[X_LEN]);
    op2(g, VM_OP_RECV, v->base, var_words(v));
    break;
  default:
    expr(g, s->e[X_OFF]);
    expr(g, s->e[X_SEG]);
    expr(g, s->e[X_LEN]);
    op2(g, s->kind == S_DELIVER ? VM_OP_DELIVER : VM_OP_GET, v->base, var_words(v));
    break;
  }
}

static void stmt(struct gen *g, const struct stmt *s) {
  switch (s->kind) {
  case S_ASSIGN: assign(g, s); break;
  case S_IF: if_stmt(g, s); break;
  case S_WHILE: while_stmt(g, s); break;
  case S_BLOCK: stmts(g, s->body); break;
  case S_DISPLAY:
    expr(g, s->value);
    op(g, VM_OP_DISPLAY);
    break;
  case S_AWAIT: op(g, VM_OP_AWAIT); break;
  case S_STOP: op(g, VM_OP_STOP); break;
  default: transfer(g, s); break;
  }
}

static void stmts(struct gen *g, const struct stmt *s) {
  for (; s != NULL; s = s->next)
    if (s->kind != S_BLOCK || s->body != NULL) stmt(g, s);
}

/* The last statement executed in a block, looking into trailing BEGIN..END. */
static const struct stmt *last_stmt(const struct stmt *s) {
  while (s != NULL && s->next != NULL) s = s->next;
  if (s != NULL && s->kind == S_BLOCK) return last_stmt(s->body);
  return s;
}

static uint32_t handler(struct gen *g, const struct stmt *block) {
  uint32_t at = (uint32_t)g->m->code.len;
  stmts(g, block->body);
  const struct stmt *last = last_stmt(block->body);
  if (last == NULL || (last->kind != S_AWAIT && last->kind != S_STOP)) op(g, VM_OP_AWAIT);
  return at;
}

static int by_message(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

void codegen(const struct program *prog, struct diag *d, struct module *m, bool fuse) {
  struct gen g = {m, d, 0, fuse};
  size_t n = 0;
  memset(m, 0, sizeof *m);
  snprintf(m->name, sizeof m->name, "%.*s", (int)VM_NAME_LEN, prog->name);
  m->data_words = prog->data_words;
  m->max_stack = 1;
  for (const struct message *msg = prog->messages; msg != NULL; msg = msg->next) n++;
  m->trig = calloc(n ? 2 * n : 1, sizeof *m->trig);
  if (m->trig == NULL) abort();
  m->init_off = handler(&g, prog->init);
  for (const struct message *msg = prog->messages; msg != NULL; msg = msg->next) {
    m->trig[2 * m->ntrig] = msg->num;
    m->trig[2 * m->ntrig + 1] = handler(&g, msg->body);
    m->ntrig++;
  }
  qsort(m->trig, m->ntrig, 2 * sizeof *m->trig, by_message);
  if (m->code.len > VM_MAX_CODE)
    diag_error(d, prog->pos, "program needs %zu bytes of code, more than the VM's %u",
               m->code.len, VM_MAX_CODE);
  if (m->max_stack > VM_STACK_MAX)
    diag_error(d, prog->pos, "expressions need %u stack slots, more than the VM's %u",
               m->max_stack, VM_STACK_MAX);
}
