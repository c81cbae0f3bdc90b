/* iss_disasm.c: one LANai word in the syntax llvm-objdump 14 prints (mnemonic, operands,
 * aliases such as mov/nop/log_N and the increment forms, absolute branch targets without
 * the <symbol> annotation). tests/iss/check_disasm.py holds it to llvm-objdump word by word.
 * A word objdump cannot decode is "<unknown>" here too; the one class objdump decodes and
 * the ISS does not execute is BRR (bt.r: its target base is undocumented, LANAI-ISA.md 4.6). */
#include <stdarg.h>
#include <stdio.h>

#include "iss_internal.h"

static const char *const reg_names[32] = {
  "r0", "r1", "pc", "r3", "sp", "fp", "r6", "r7", "rv", "r9", "rr1", "rr2", "r12", "r13",
  "r14", "rca", "r16", "r17", "r18", "r19", "r20", "r21", "r22", "r23", "r24", "r25", "r26",
  "r27", "r28", "r29", "r30", "r31"};
static const char *const cc_names[16] = {"t", "f", "ugt", "ule", "ult", "uge", "ne", "eq",
                                         "vc", "vs", "pl", "mi", "ge", "lt", "gt", "le"};
static const char *const alu_names[7] = {"add", "addc", "sub", "subb", "and", "or", "xor"};

struct out {
  char *buf;
  size_t n, len;
};

static void put(struct out *o, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  size_t room = o->len < o->n ? o->n - o->len : 0;
  int k = vsnprintf(room ? o->buf + o->len : NULL, room, fmt, ap);
  va_end(ap);
  if (k > 0) o->len += (size_t)k;
}

/* LLVM's formatHex: 0x.. or -0x.. */
static void hex(struct out *o, int64_t v)
{
  if (v < 0) put(o, "-0x%llx", (unsigned long long)-v);
  else put(o, "0x%llx", (unsigned long long)v);
}

#define R(n) reg_names[(n) & 31]

static int32_t sx(uint32_t v, unsigned bits)
{
  uint32_t m = 1u << (bits - 1);
  return (int32_t)(((v & ((m << 1) - 1)) ^ m) - m);
}

static int dis_ri(struct out *o, uint32_t w)
{
  unsigned op = w >> 28 & 7, rd = w >> 23 & 31, rs1 = w >> 18 & 31, f = w >> 17 & 1,
           h = w >> 16 & 1;
  uint32_t c = w & 0xffff;
  if (w == 1) { put(o, "nop"); return 1; }
  if (w >= 2 && w <= 6) { put(o, "log_%u", w - 2); return 1; }
  if (op == ALU_SHIFT) {
    put(o, "%s%s\t%%%s, ", h ? "sha" : "sh", f ? ".f" : "", R(rs1));
    hex(o, sx(c, 16));
    put(o, ", %%%s", R(rd));
    return 1;
  }
  int64_t k = op == ALU_AND ? (h ? (int64_t)(c << 16 | 0xffff) : (int64_t)(0xffff0000u | c))
                            : (int64_t)(h ? c << 16 : c);
  bool mov = !f && ((op == ALU_ADD && rs1 == 0) || (op == ALU_AND && rs1 == 1));
  if (mov) put(o, "mov\t");
  else put(o, "%s%s\t%%%s, ", alu_names[op], f ? ".f" : "", R(rs1));
  hex(o, k);
  put(o, ", %%%s", R(rd));
  return 1;
}

static int dis_rr(struct out *o, uint32_t w)
{
  unsigned rd = w >> 23 & 31, rs1 = w >> 18 & 31, f = w >> 17 & 1, rs2 = w >> 11 & 31,
           op = w >> 8 & 7, j = w >> 3 & 31, cc = (w & 7) << 1 | (w >> 16 & 1);
  char pred[8] = "";
  if (cc) snprintf(pred, sizeof pred, ".%s", cc_names[cc]);
  if (op == ALU_SHIFT) {
    if (j == 0) {
      if (f) return 0;
      put(o, "sel.%s %%%s, %%%s, %%%s", cc_names[cc], R(rs1), R(rs2), R(rd));
      return 1;
    }
    if (j != 0x10 && j != 0x18) return 0;
    put(o, "%s%s%s\t%%%s, %%%s, %%%s", j == 0x18 ? "sha" : "sh", f ? ".f" : "", pred, R(rs1),
        R(rs2), R(rd));
    return 1;
  }
  if (j != 0) return 0;
  if (op == ALU_OR && rd == 2 && !f) { /* register jumps */
    if (rs1 == 0 && cc == 0) put(o, "bt\t%%%s", R(rs2));
    else if (rs2 == 0) put(o, "b%s\t%%%s", cc_names[cc], R(rs1));
    else put(o, "b%s\t%%%s add %%%s", cc_names[cc], R(rs1), R(rs2));
    return 1;
  }
  if (op == ALU_ADD && !f && cc == 0 && rs2 == 0) {
    put(o, "mov\t%%%s, %%%s", R(rs1), R(rd));
    return 1;
  }
  put(o, "%s%s%s\t%%%s, %%%s, %%%s", alu_names[op], f ? ".f" : "", pred, R(rs1), R(rs2), R(rd));
  return 1;
}

/* "k[%r]", "k[*%r]", "k[%r*]", or the ++/-- forms when k is the access size. */
static void mem_ri(struct out *o, unsigned base, unsigned p, unsigned q, int32_t k,
                   int32_t size)
{
  if (!p && !q) k = 0;
  if (q && (k == size || k == -size)) {
    const char *inc = k < 0 ? "--" : "++";
    if (p) put(o, "[%s%%%s]", inc, R(base));
    else put(o, "[%%%s%s]", R(base), inc);
    return;
  }
  put(o, "%d[%s%%%s%s]", k, p && q ? "*" : "", R(base), !p && q ? "*" : "");
}

static int dis_rm(struct out *o, uint32_t w)
{
  unsigned s = w >> 28 & 1, rd = w >> 23 & 31, rs1 = w >> 18 & 31, p = w >> 17 & 1,
           q = w >> 16 & 1;
  if (w == 0x8116fffcu) {
    put(o, "ld\t-4[%%fp], %%pc ! return");
    return 1;
  }
  if (s) {
    put(o, "st\t%%%s, ", R(rd));
    mem_ri(o, rs1, p, q, sx(w, 16), 4);
  } else {
    put(o, "ld\t");
    mem_ri(o, rs1, p, q, sx(w, 16), 4);
    put(o, ", %%%s", R(rd));
  }
  return 1;
}

static int dis_rrm(struct out *o, uint32_t w)
{
  unsigned s = w >> 28 & 1, rd = w >> 23 & 31, rs1 = w >> 18 & 31, p = w >> 17 & 1,
           q = w >> 16 & 1, rs2 = w >> 11 & 31, op = w >> 8 & 7, j = w >> 3 & 31,
           yl = w >> 1 & 3, e = w & 1;
  static const char *const loads[2][4] = {{"ld.h", "ld", "ld.b", NULL},
                                          {"uld.h", "uld", "uld.b", NULL}};
  static const char *const stores[4] = {"st.h", "st", "st.b", NULL};
  const char *mn = s ? (e ? NULL : stores[yl]) : loads[e][yl];
  if (!mn) return 0;
  if (op == ALU_SHIFT && (j & 4)) return 0; /* llvm-objdump 14 crashes on these */
  const char *aop = op == ALU_SHIFT ? ((j & 8) ? "sha" : "sh") : alu_names[op];
  if (!p && !q) rs2 = 0;
  char addr[64];
  snprintf(addr, sizeof addr, "[%s%%%s%s %s %%%s]", p && q ? "*" : "", R(rs1),
           !p && q ? "*" : "", aop, R(rs2));
  if (s) put(o, "%s\t%%%s, %s", mn, R(rd), addr);
  else put(o, "%s\t%s, %%%s", mn, addr, R(rd));
  return 1;
}

static int dis_special(struct out *o, uint32_t w)
{
  static const char *const names[4] = {NULL, "popc", "leadz", "trailz"};
  if ((w & 0x3fff8) || (w & 7) > 3 || !names[w & 7]) return 0;
  put(o, "%s\t%%%s, %%%s", names[w & 7], R(w >> 18), R(w >> 23));
  return 1;
}

static int dis_branch(struct out *o, uint32_t w)
{
  unsigned cc = (w >> 25 & 7) << 1 | (w & 1);
  if (!(w & 2)) {
    put(o, "b%s\t", cc_names[cc]);
    hex(o, w & 0x01fffffc);
    return 1;
  }
  if (w >> 24 & 1) {
    if (w & 0x00ff0000) return 0;
    put(o, "b%s.r\t", cc_names[cc]);
    hex(o, w & 0xfffc);
    return 1;
  }
  if (w & 0x0083fffc) return 0;
  put(o, "s%s\t%%%s", cc_names[cc], R(w >> 18));
  return 1;
}

static int dis_f(struct out *o, uint32_t w)
{
  unsigned rd = w >> 23 & 31, rs1 = w >> 18 & 31;
  uint32_t a21 = (uint32_t)rs1 << 16 | (w & 0xffff);
  switch (w >> 15 & 7) {
  case 0: case 1:
    put(o, "ld\t[");
    hex(o, a21);
    put(o, "], %%%s", R(rd));
    return 1;
  case 2: case 3:
    put(o, "st\t%%%s, [", R(rd));
    hex(o, a21);
    put(o, "]");
    return 1;
  case 4: case 5:
    put(o, "mov\t");
    hex(o, a21);
    put(o, ", %%%s", R(rd));
    return 1;
  case 6: break;
  default: return 0;
  }
  unsigned y = w >> 14 & 1, s = w >> 13 & 1, e = w >> 12 & 1, p = w >> 11 & 1, q = w >> 10 & 1;
  if (s && e) return 0;
  const char *mn = s ? (y ? "st.b" : "st.h") : y ? (e ? "uld.b" : "ld.b") : (e ? "uld.h" : "ld.h");
  int32_t size = y ? 1 : 2;
  if (s) {
    put(o, "%s\t%%%s, ", mn, R(rd));
    mem_ri(o, rs1, p, q, sx(w, 10), size);
  } else {
    put(o, "%s\t", mn);
    mem_ri(o, rs1, p, q, sx(w, 10), size);
    put(o, ", %%%s", R(rd));
  }
  return 1;
}

int iss_disasm(uint32_t w, uint32_t pc, char *buf, size_t n)
{
  struct out o = {buf, n, 0};
  int ok;
  (void)pc; /* branch targets are absolute */
  switch (w >> 28) {
  case 0x8: case 0x9: ok = dis_rm(&o, w); break;
  case 0xa: case 0xb: ok = dis_rrm(&o, w); break;
  case 0xc: ok = dis_rr(&o, w); break;
  case 0xd: ok = dis_special(&o, w); break;
  case 0xe: ok = dis_branch(&o, w); break;
  case 0xf: ok = dis_f(&o, w); break;
  default: ok = dis_ri(&o, w); break;
  }
  if (!ok) {
    o.len = 0;
    put(&o, "<unknown>");
  }
  return ok;
}
