/* iss_exec.c: the run loop. Fetches from the predecoded array parallel to SRAM (decoding a
 * word the first time it executes), executes with delay slots as a queue of the next two
 * fetch addresses (LANAI-ISA.md 7.3), and stops on the budget, a yield from the bus, or a
 * fault, which leaves pc at the faulting instruction with nothing of it committed. */
#include <string.h>

#include "../be.h"
#include "iss_internal.h"

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* Condition cc (LANAI-ISA.md 3) holds for status word sw iff bit sw of COND[cc] is set. */
static const uint16_t COND[16] = {0xffff, 0x0000, 0x0a0a, 0xf5f5, 0x5555, 0xaaaa, 0x0f0f, 0xf0f0,
                                  0x3333, 0xcccc, 0x00ff, 0xff00, 0xcc33, 0x33cc, 0x0c03, 0xf3fc};
static inline bool cond(const struct iss *c, unsigned cc) { return COND[cc] >> c->sw & 1; }

/* The status word of a - b (the adder's a + ~b + 1): C = no borrow. */
static inline uint32_t sub_flags(uint32_t a, uint32_t b, uint32_t r)
{
  return (r >> 31) * SW_N | (r == 0) * SW_Z | (((a ^ b) & (a ^ r)) >> 31) * SW_V | (a >= b) * SW_C;
}

/* Signed shift (LANAI-ISA.md 5): amount > 0 left, < 0 right; |amount| >= 32 gives 0 (or
 * the sign for an arithmetic right shift). *carry: the last bit shifted out to the left. */
static uint32_t shift(uint32_t a, uint32_t amount, bool arith, uint32_t *carry)
{
  int32_t s = (int32_t)amount;
  *carry = 0;
  if (s == 0) return a;
  if (s > 0) {
    if (s >= 32) return 0;
    *carry = a >> (32 - s) & 1;
    return a << s;
  }
  uint32_t n = 0u - amount;
  uint32_t fill = arith && (a >> 31) ? 0xffffffffu : 0;
  if (n >= 32) return fill;
  return a >> n | (fill & ~(0xffffffffu >> n));
}

/* One ALU operation (section 4.2's adder for the arithmetic ones), flags if f. */
static uint32_t alu(struct iss *c, unsigned op, uint32_t a, uint32_t b, bool f, bool arith)
{
  uint32_t r, carry = 0, over = 0;
  switch (op) {
  case ALU_ADD: case ALU_ADDC: case ALU_SUB: case ALU_SUBB: {
    uint32_t bb = op >= ALU_SUB ? ~b : b;
    uint32_t cin = op == ALU_ADD ? 0 : op == ALU_SUB ? 1 : c->sw & SW_C;
    uint64_t full = (uint64_t)a + bb + cin;
    r = (uint32_t)full;
    carry = (uint32_t)(full >> 32);
    over = (~(a ^ bb) & (a ^ r)) >> 31;
    break;
  }
  case ALU_AND: r = a & b; break;
  case ALU_OR: r = a | b; break;
  case ALU_XOR: r = a ^ b; break;
  default:
    r = shift(a, b, arith, &carry);
    break;
  }
  if (f) c->sw = (r >> 31) * SW_N | (r == 0) * SW_Z | over * SW_V | carry * SW_C;
  return r;
}

static uint32_t count(unsigned kind, uint32_t v)
{
  if (kind == K_POPC) return (uint32_t)__builtin_popcount(v);
  if (v == 0) return 32;
  return (uint32_t)(kind == K_LEADZ ? __builtin_clz(v) : __builtin_ctz(v));
}

static bool fault(struct iss *c, enum iss_fault f, uint32_t addr)
{
  c->fault = f;
  c->fault_addr = addr;
  return false;
}

/* Counters current before a bus callback (it may call iss_set_class). */
static void sync(struct iss *c, uint64_t n)
{
  c->st.insns = c->run_base + n;
  c->st.cycles = c->st.insns + c->extra_cycles;
}

/* The slow paths of a data access: sub-word, misaligned, register page, out of range. */
static bool mem_read(struct iss *c, uint64_t n, uint32_t ea, unsigned size, bool sext,
                     uint32_t *v)
{
  if (ea & (size - 1)) return fault(c, ISS_FAULT_MISALIGNED, ea);
  if (ea < c->size) {
    const uint8_t *p = c->sram + ea;
    if (size == 4) *v = hw_ld32(p);
    else if (size == 2) *v = sext ? (uint32_t)(int32_t)(int16_t)hw_ld16(p) : hw_ld16(p);
    else *v = sext ? (uint32_t)(int32_t)(int8_t)*p : *p;
    return true;
  }
  if (ea < ISS_REG_BASE || size != 4 || !c->bus.read) return fault(c, ISS_FAULT_BUS, ea);
  sync(c, n);
  bool ok = c->bus.read(c->bus.ctx, ea - ISS_REG_BASE, v);
  /* after the callback: an instruction that switches class is charged wholly to the new one */
  c->st.reg_reads++;
  c->extra_cycles += ISS_CYC_REG;
  return ok ? true : fault(c, ISS_FAULT_BUS, ea);
}

static bool mem_write(struct iss *c, uint64_t n, uint32_t ea, unsigned size, uint32_t v)
{
  if (ea & (size - 1)) return fault(c, ISS_FAULT_MISALIGNED, ea);
  if (ea < c->size) {
    uint8_t *p = c->sram + ea;
    if (size == 4) hw_st32(p, v);
    else if (size == 2) hw_st16(p, (uint16_t)v);
    else *p = (uint8_t)v;
    c->ops[ea >> 2].kind = K_NEW;
    c->ops[ea >> 2].uses = 0;
    return true;
  }
  if (ea < ISS_REG_BASE || size != 4 || !c->bus.write) return fault(c, ISS_FAULT_BUS, ea);
  sync(c, n);
  bool ok = c->bus.write(c->bus.ctx, ea - ISS_REG_BASE, v);
  c->st.reg_writes++;
  c->extra_cycles += ISS_CYC_REG;
  return ok ? true : fault(c, ISS_FAULT_BUS, ea);
}

static void trace_one(struct iss *c, uint32_t pc)
{
  uint32_t w = hw_ld32(c->sram + pc);
  char text[96];
  iss_disasm(w, pc, text, sizeof text);
  fprintf(c->trace, "%08x: %08x  %s\n", pc, w, text);
}

/* A register write; r0/r1 discard it, r2 makes it a jump with one delay slot (load-timed
 * writes, WRL, with two). */
#define WR(rd_, v_) do { uint32_t v__ = (v_); unsigned d__ = (rd_);                        \
    if (likely(d__ > 2)) r[d__] = v__;                                                     \
    else if (d__ == 2) { q1 = v__; nq1 = v__ + 4; c->st.taken_jumps++; } } while (0)
#define WRL(rd_, v_) do { uint32_t v__ = (v_); unsigned d__ = (rd_);                       \
    if (likely(d__ > 2)) r[d__] = v__;                                                     \
    else if (d__ == 2) { nq1 = v__; c->st.taken_jumps++; } } while (0)
#define USE(rd_) ((rd_) > 2 ? 1u << (rd_) : 0u)

/* The interpreter, direct-threaded: every handler ends in its own copy of the fetch and
 * dispatch (NEXT), so the host's branch predictor sees one indirect jump per handler. */
enum iss_stop iss_run(struct iss *c, uint64_t max)
{
  const void *const labels[K_NKIND] = {
    [K_NEW] = &&h_new, [K_UNDEF] = &&h_undef,
    [K_ADDI] = &&h_addi, [K_ANDI] = &&h_andi, [K_ORI] = &&h_ori, [K_XORI] = &&h_xori,
    [K_SHLI] = &&h_shli, [K_SHRI] = &&h_shri, [K_SRAI] = &&h_srai, [K_ALUI] = &&h_alui,
    [K_SUBFI] = &&h_subfi, [K_SUBF] = &&h_subf,
    [K_ADD] = &&h_add, [K_SUB] = &&h_sub, [K_AND] = &&h_and, [K_OR] = &&h_or,
    [K_XOR] = &&h_xor, [K_SH] = &&h_sh, [K_SHA] = &&h_sha, [K_ALU] = &&h_alu,
    [K_SEL] = &&h_sel, [K_LDW] = &&h_ldw, [K_STW] = &&h_stw, [K_LDST] = &&h_ldst,
    [K_MOVI] = &&h_movi, [K_POPC] = &&h_count, [K_LEADZ] = &&h_count,
    [K_TRAILZ] = &&h_count, [K_BR] = &&h_br, [K_BT] = &&h_bt, [K_BTSELF] = &&h_btself,
    [K_SCC] = &&h_scc,
  };
  if (c->fault != ISS_FAULT_NONE) return ISS_STOP_FAULT;
  c->yield = false;
  c->run_base = c->st.insns;
  uint32_t *const r = c->r;
  uint8_t *const m = c->sram;
  struct iss_op *const ops = c->ops;
  const uint32_t size = c->size;
  uint32_t pc = c->pc, q0 = c->q0, q1 = c->q1, ldmask = c->ldmask, lm, nq1, v, ea;
  uint64_t n = 0;
  struct iss_op *op;
  const bool tracing = c->trace != NULL;

#define DISPATCH() do {                                                                    \
    if (unlikely(n >= max)) goto out;                                                      \
    if (unlikely((pc & 3) || pc >= size)) goto fetch_fault;                                \
    op = &ops[pc >> 2];                                                                    \
    if (unlikely(tracing)) trace_one(c, pc);                                                       \
    lm = ldmask;                                                                           \
    ldmask = 0;                                                                            \
    if (unlikely(op->uses & lm)) { c->st.interlocks++; c->extra_cycles += ISS_CYC_INTERLOCK; } \
    r[2] = pc;                                                                             \
    nq1 = q1 + 4;                                                                          \
    goto *labels[op->kind];                                                                \
  } while (0)
#define NEXT() do { pc = q0; q0 = q1; q1 = nq1; n++; DISPATCH(); } while (0)
/* After an access that may have reached the bus: a callback may have yielded or raised a
 * fault; the instruction completes, then the loop stops. */
#define NEXT_BUS() do { if (unlikely(c->yield || c->fault != ISS_FAULT_NONE)) max = n + 1;     \
    NEXT(); } while (0)

  DISPATCH();

h_new:
  iss_decode(hw_ld32(m + pc), pc, op);
  if (pc / 4 < c->dec_lo) c->dec_lo = pc / 4;
  if (pc / 4 >= c->dec_hi) c->dec_hi = pc / 4 + 1;
  if (op->uses & lm) { c->st.interlocks++; c->extra_cycles += ISS_CYC_INTERLOCK; }
  goto *labels[op->kind];
h_addi: WR(op->rd, r[op->rs1] + op->imm); NEXT();
h_andi: WR(op->rd, r[op->rs1] & op->imm); NEXT();
h_ori: WR(op->rd, r[op->rs1] | op->imm); NEXT();
h_xori: WR(op->rd, r[op->rs1] ^ op->imm); NEXT();
h_shli: WR(op->rd, r[op->rs1] << op->imm); NEXT();
h_shri: WR(op->rd, r[op->rs1] >> op->imm); NEXT();
h_srai: WR(op->rd, (uint32_t)((int32_t)r[op->rs1] >> op->imm)); NEXT();
h_alui: WR(op->rd, alu(c, op->alu, r[op->rs1], op->imm, op->f, op->mem)); NEXT();
h_subfi: {
  uint32_t a = r[op->rs1], b = op->imm, res = a - b;
  c->sw = sub_flags(a, b, res);
  WR(op->rd, res);
  NEXT();
}
h_subf: {
  uint32_t a = r[op->rs1], b = r[op->rs2], res = a - b;
  c->sw = sub_flags(a, b, res);
  WR(op->rd, res);
  NEXT();
}
h_add: WR(op->rd, r[op->rs1] + r[op->rs2]); NEXT();
h_sub: WR(op->rd, r[op->rs1] - r[op->rs2]); NEXT();
h_and: WR(op->rd, r[op->rs1] & r[op->rs2]); NEXT();
h_or: WR(op->rd, r[op->rs1] | r[op->rs2]); NEXT();
h_xor: WR(op->rd, r[op->rs1] ^ r[op->rs2]); NEXT();
h_sh: { uint32_t cy; WR(op->rd, shift(r[op->rs1], r[op->rs2], false, &cy)); NEXT(); }
h_sha: { uint32_t cy; WR(op->rd, shift(r[op->rs1], r[op->rs2], true, &cy)); NEXT(); }
h_alu:
  if (cond(c, op->cc)) WR(op->rd, alu(c, op->alu, r[op->rs1], r[op->rs2], op->f, op->mem));
  NEXT();
h_sel: WR(op->rd, cond(c, op->cc) ? r[op->rs1] : r[op->rs2]); NEXT();
h_ldw:
  ea = r[op->rs1] + op->imm;
  c->st.loads++;
  if (likely(!(ea & 3) && ea < size)) {
    v = hw_ld32(m + ea);
    WRL(op->rd, v);
    ldmask = USE(op->rd);
    NEXT();
  }
  if (!mem_read(c, n, ea, 4, false, &v)) goto faulted;
  WRL(op->rd, v);
  ldmask = USE(op->rd);
  NEXT_BUS();
h_stw:
  ea = r[op->rs1] + op->imm;
  c->st.stores++;
  if (likely(!(ea & 3) && ea < size)) {
    hw_st32(m + ea, r[op->rd]);
    ops[ea >> 2].kind = K_NEW;
    ops[ea >> 2].uses = 0;
    NEXT();
  }
  if (!mem_write(c, n, ea, 4, r[op->rd])) goto faulted;
  NEXT_BUS();
h_ldst: {
  uint32_t base = r[op->rs1], eff;
  if (op->mem & M_RRM) {
    uint32_t cy;
    eff = op->alu == ALU_SHIFT ? shift(base, r[op->rs2], op->mem & M_ARITH, &cy)
                               : alu(c, op->alu, base, r[op->rs2], false, false);
  } else {
    eff = base + op->imm;
  }
  ea = op->mem & M_P ? eff : base;
  if (op->mem & M_STORE) {
    c->st.stores++;
    if (!mem_write(c, n, ea, op->size, r[op->rd])) goto faulted;
    if (op->mem & M_Q) WR(op->rs1, eff);
  } else {
    c->st.loads++;
    if (!mem_read(c, n, ea, op->size, op->mem & M_SEXT, &v)) goto faulted;
    if (op->mem & M_Q) WR(op->rs1, eff);
    WRL(op->rd, v);
    ldmask = USE(op->rd);
  }
  NEXT_BUS();
}
h_movi: WRL(op->rd, op->imm); NEXT();
h_count: WR(op->rd, count(op->kind, r[op->rs1])); NEXT();
h_btself:
  if (q0 == pc + 4 && q1 == pc + 8) {
    fault(c, ISS_FAULT_HALTED, 0);
    goto faulted;
  }
  /* a branch to itself inside another jump's delay slot: an ordinary branch */
  goto h_bt;
h_bt:
  q1 = op->imm;
  nq1 = op->imm + 4;
  c->st.taken_jumps++;
  NEXT();
h_br:
  if (cond(c, op->cc)) {
    q1 = op->imm;
    nq1 = op->imm + 4;
    c->st.taken_jumps++;
  }
  NEXT();
h_scc: WR(op->rd, cond(c, op->cc)); NEXT();
h_undef:
  fault(c, ISS_FAULT_UNDEFINED, 0);
  goto faulted;
fetch_fault:
  fault(c, pc & 3 ? ISS_FAULT_MISALIGNED : ISS_FAULT_BUS, pc);
faulted:
  c->pc = pc;
  c->q0 = q0;
  c->q1 = q1;
  c->ldmask = ldmask;
  c->fault_word = pc % 4 == 0 && pc < size ? hw_ld32(m + pc) : 0;
  c->st.insns = c->run_base + n;
  iss_class_flush(c);
  return ISS_STOP_FAULT;
out:
  c->pc = pc;
  c->q0 = q0;
  c->q1 = q1;
  c->ldmask = ldmask;
  c->st.insns = c->run_base + n;
  iss_class_flush(c);
  if (c->fault != ISS_FAULT_NONE) {
    c->fault_word = pc % 4 == 0 && pc < size ? hw_ld32(m + pc) : 0;
    return ISS_STOP_FAULT;
  }
  return c->yield ? ISS_STOP_YIELD : ISS_STOP_BUDGET;
#undef DISPATCH
#undef NEXT
#undef NEXT_BUS
}
