/* iss_decode.c: one LANai instruction word -> the predecoded op the run loop executes.
 * The set of defined words is exactly the set llvm-objdump 14 decodes (tests/iss checks
 * this word by word); everything else becomes K_UNDEF. Encodings: LANAI-ISA.md section 4. */
#include <string.h>

#include "iss_internal.h"

static uint32_t sx(uint32_t v, unsigned bits)
{
  uint32_t m = 1u << (bits - 1);
  return ((v & ((m << 1) - 1)) ^ m) - m;
}

/* Registers r3..r31 as a use mask (r0, r1, r2 never interlock). */
static uint32_t use(unsigned r) { return r > 2 ? 1u << r : 0; }

/* The 32-bit RI operand K (section 4.2). */
static uint32_t ri_operand(unsigned op, uint32_t w)
{
  uint32_t c = w & 0xffff, h = w >> 16 & 1;
  if (op == ALU_SHIFT) return sx(c, 16);
  if (op == ALU_AND) return h ? c << 16 | 0xffff : 0xffff0000u | c;
  return h ? c << 16 : c;
}

static void dec_ri(uint32_t w, struct iss_op *op)
{
  unsigned alu = w >> 28 & 7, f = w >> 17 & 1;
  uint32_t k = ri_operand(alu, w);
  op->alu = (uint8_t)alu;
  op->f = (uint8_t)f;
  op->imm = k;
  op->uses = use(op->rs1);
  if (f && alu == ALU_SUB) {
    op->kind = K_SUBFI;
    return;
  }
  if (f || alu == ALU_ADDC || alu == ALU_SUBB) {
    op->kind = K_ALUI;
    if (alu == ALU_SHIFT) op->mem = (uint8_t)(w >> 16 & 1); /* H: arithmetic */
    return;
  }
  switch (alu) {
  case ALU_ADD: op->kind = K_ADDI; break;
  case ALU_SUB: op->kind = K_ADDI; op->imm = 0u - k; break;
  case ALU_AND: op->kind = K_ANDI; break;
  case ALU_OR:  op->kind = K_ORI;  break;
  case ALU_XOR: op->kind = K_XORI; break;
  default: {
    int32_t a = (int32_t)k;
    if (a >= 32 || a <= -32) { op->kind = K_ALUI; op->mem = (uint8_t)(w >> 16 & 1); }
    else if (a >= 0) { op->kind = K_SHLI; op->imm = (uint32_t)a; }
    else { op->kind = (w >> 16 & 1) ? K_SRAI : K_SHRI; op->imm = (uint32_t)-a; }
  }
  }
}

static void dec_rr(uint32_t w, struct iss_op *op)
{
  unsigned alu = w >> 8 & 7, j = w >> 3 & 31, f = w >> 17 & 1;
  unsigned cc = (w & 7) << 1 | (w >> 16 & 1);
  op->alu = (uint8_t)alu;
  op->f = (uint8_t)f;
  op->cc = (uint8_t)cc;
  op->uses = use(op->rs1) | use(op->rs2);
  if (alu == ALU_SHIFT) {
    if (j == 0) { /* sel */
      if (f) { op->kind = K_UNDEF; return; }
      op->kind = K_SEL;
      return;
    }
    if (j != 0x10 && j != 0x18) { op->kind = K_UNDEF; return; }
    op->mem = j == 0x18; /* arithmetic */
  } else if (j != 0) {
    op->kind = K_UNDEF;
    return;
  }
  if (f && cc == 0 && alu == ALU_SUB) { op->kind = K_SUBF; return; }
  if (f || cc != 0 || alu == ALU_ADDC || alu == ALU_SUBB) { op->kind = K_ALU; return; }
  static const uint8_t plain[7] = {K_ADD, 0, K_SUB, 0, K_AND, K_OR, K_XOR};
  op->kind = alu == ALU_SHIFT ? (op->mem ? K_SHA : K_SH) : plain[alu];
}

/* Word load/store with a 16-bit offset (RM). */
static void dec_rm(uint32_t w, struct iss_op *op)
{
  unsigned store = w >> 28 & 1, p = w >> 17 & 1, q = w >> 16 & 1;
  op->imm = sx(w & 0xffff, 16);
  op->size = 4;
  op->uses = use(op->rs1) | (store ? use(op->rd) : 0);
  if (!q) {
    if (!p) op->imm = 0;
    op->kind = store ? K_STW : K_LDW;
    return;
  }
  op->kind = K_LDST;
  op->mem = (uint8_t)((store ? M_STORE : 0) | (p ? M_P : 0) | M_Q);
}

/* Register-register addressed load/store (RRM). */
static void dec_rrm(uint32_t w, struct iss_op *op)
{
  unsigned store = w >> 28 & 1, p = w >> 17 & 1, q = w >> 16 & 1;
  unsigned alu = w >> 8 & 7, j = w >> 3 & 31, yl = w >> 1 & 3, e = w & 1;
  static const uint8_t sizes[4] = {2, 4, 1, 0};
  /* YL = 11, a store with E set, and a shifted address whose JJJJJ has bit 2 set (llvm's
   * ALU code has no meaning for it: llvm-objdump 14 crashes) are undefined. For BBB = 111 the
   * ISA names JJJJJ 10000 (sh) and 11000 (sha); llvm decodes every other value by bit 3 alone
   * (00000 and 10001 print as sh, 01000 as sha) and so does the ISS. */
  if (yl == 3 || (store && e) || (alu == ALU_SHIFT && (j & 4))) { op->kind = K_UNDEF; return; }
  op->kind = K_LDST;
  op->alu = (uint8_t)alu;
  op->size = sizes[yl];
  op->uses = use(op->rs1) | use(op->rs2) | (store ? use(op->rd) : 0);
  op->mem = (uint8_t)((store ? M_STORE : 0) | (p ? M_P : 0) | (q ? M_Q : 0) | M_RRM |
                      (!e && !store ? M_SEXT : 0) | (alu == ALU_SHIFT && (j & 8) ? M_ARITH : 0));
}

static void dec_special(uint32_t w, struct iss_op *op)
{
  static const uint8_t kinds[8] = {K_UNDEF, K_POPC, K_LEADZ, K_TRAILZ,
                                   K_UNDEF, K_UNDEF, K_UNDEF, K_UNDEF};
  op->uses = use(op->rs1);
  op->kind = (w & 0x3fff8) ? K_UNDEF : kinds[w & 7];
}

static void dec_branch(uint32_t w, uint32_t pc, struct iss_op *op)
{
  unsigned cc = (w >> 25 & 7) << 1 | (w & 1);
  op->cc = (uint8_t)cc;
  if (!(w & 2)) { /* BR */
    op->imm = w & 0x01fffffc;
    op->kind = cc != 0 ? K_BR : op->imm == pc ? K_BTSELF : K_BT;
    return;
  }
  if (w >> 24 & 1) { /* BRR: llvm decodes it, its target base is unknown (LANAI-ISA 4.6) */
    op->kind = K_UNDEF;
    return;
  }
  if (w & 0x0083fffc) { op->kind = K_UNDEF; return; } /* SCC: bit 23 and 17..2 zero */
  op->kind = K_SCC;
  op->rd = op->rs1;
}

static void dec_f(uint32_t w, struct iss_op *op)
{
  unsigned b17 = w >> 17 & 1, b16 = w >> 16 & 1, b15 = w >> 15 & 1;
  uint32_t a21 = (uint32_t)op->rs1 << 16 | (w & 0xffff);
  if (!b17) { /* SLS: absolute word access, base r0 */
    op->kind = b16 ? K_STW : K_LDW;
    op->rs1 = 0;
    op->imm = a21;
    op->size = 4;
    op->uses = b16 ? use(op->rd) : 0;
    return;
  }
  if (!b16) { op->kind = K_MOVI; op->imm = a21; return; }
  if (b15) { op->kind = K_UNDEF; return; }
  /* SPLS */
  unsigned s = w >> 13 & 1;
  if (s && (w >> 12 & 1)) { op->kind = K_UNDEF; return; } /* a store has no E */
  op->kind = K_LDST;
  op->size = (w >> 14 & 1) ? 1 : 2;
  op->imm = sx(w & 0x3ff, 10);
  op->uses = use(op->rs1) | (s ? use(op->rd) : 0);
  op->mem = (uint8_t)((s ? M_STORE : 0) | (!s && !(w >> 12 & 1) ? M_SEXT : 0) |
                      (w >> 11 & 1 ? M_P : 0) | (w >> 10 & 1 ? M_Q : 0));
}

void iss_decode(uint32_t w, uint32_t pc, struct iss_op *op)
{
  memset(op, 0, sizeof *op);
  op->rd = w >> 23 & 31;
  op->rs1 = w >> 18 & 31;
  op->rs2 = w >> 11 & 31;
  switch (w >> 28) {
  case 0x8: case 0x9: dec_rm(w, op); break;
  case 0xa: case 0xb: dec_rrm(w, op); break;
  case 0xc: dec_rr(w, op); break;
  case 0xd: dec_special(w, op); break;
  case 0xe: dec_branch(w, pc, op); break;
  case 0xf: dec_f(w, op); break;
  default: dec_ri(w, op); break;
  }
}
