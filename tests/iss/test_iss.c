/* Unit tests of the LANai ISS (hw/lanai/): instruction semantics (ALU and flags, shifts,
 * loads and stores in every addressing form, delay slots, pc reads), each fault kind with
 * its pc and address, the bus (register page, yield, class accounting), self-modifying code,
 * budgets, the cycle model's interlock, and the trace format. Programs are hand-encoded
 * words, each checked against the llvm-objdump text it stands for (iss_disasm is held to
 * llvm-objdump by tests/iss/check_disasm.py), so an encoding slip cannot hide. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "iss.h"

#define SRAM_SIZE 0x10000u

/* ---- encoders (LANAI-ISA.md section 4) ---- */
enum { ADD, ADDC, SUB, SUBB, AND, OR, XOR, SH };
enum { R0, R1, PC, R3, SP, FP, R6, R7, RV, R9, R10, R11, R12, R13, R14, RCA };
enum { T, F, UGT, ULE, ULT, UGE, NE, EQ, VC, VS, PL, MI, GE, LT, GT, LE };

static uint32_t ri(unsigned op, unsigned rd, unsigned rs1, unsigned f, unsigned h, uint32_t c)
{
  return op << 28 | rd << 23 | rs1 << 18 | f << 17 | h << 16 | (c & 0xffff);
}
static uint32_t rr(unsigned op, unsigned rd, unsigned rs1, unsigned rs2, unsigned f,
                   unsigned cc, unsigned j)
{
  return 0xcu << 28 | rd << 23 | rs1 << 18 | f << 17 | (cc & 1) << 16 | rs2 << 11 | op << 8 |
         j << 3 | cc >> 1;
}
static uint32_t rm(unsigned s, unsigned rd, unsigned rs1, unsigned p, unsigned q, int32_t k)
{
  return (8u | s) << 28 | rd << 23 | rs1 << 18 | p << 17 | q << 16 | ((uint32_t)k & 0xffff);
}
static uint32_t rrm(unsigned s, unsigned rd, unsigned rs1, unsigned rs2, unsigned p, unsigned q,
                    unsigned op, unsigned j, unsigned yl, unsigned e)
{
  return (0xau | s) << 28 | rd << 23 | rs1 << 18 | p << 17 | q << 16 | rs2 << 11 | op << 8 |
         j << 3 | yl << 1 | e;
}
static uint32_t br(unsigned cc, uint32_t target)
{
  return 0xeu << 28 | (cc >> 1) << 25 | target | (cc & 1);
}
static uint32_t scc(unsigned cc, unsigned rd)
{
  return 0xeu << 28 | (cc >> 1) << 25 | rd << 18 | 2 | (cc & 1);
}
static uint32_t sli(unsigned rd, uint32_t v)
{
  return 0xfu << 28 | rd << 23 | (v >> 16) << 18 | 2u << 16 | (v & 0xffff);
}
static uint32_t sls(unsigned s, unsigned rd, uint32_t a)
{
  return 0xfu << 28 | rd << 23 | (a >> 16) << 18 | s << 16 | (a & 0xffff);
}
static uint32_t spls(unsigned rd, unsigned rs1, unsigned y, unsigned s, unsigned e, unsigned p,
                     unsigned q, int32_t k)
{
  return 0xfu << 28 | rd << 23 | rs1 << 18 | 3u << 16 | y << 14 | s << 13 | e << 12 | p << 11 |
         q << 10 | ((uint32_t)k & 0x3ff);
}
static uint32_t special(unsigned rd, unsigned rs1, unsigned op)
{
  return 0xdu << 28 | rd << 23 | rs1 << 18 | op;
}
#define NOP 0x00000001u

/* ---- the machine under test ---- */
struct rig {
  uint8_t sram[SRAM_SIZE];
  struct iss *c;
  uint32_t scratch, writes;
  uint32_t at;               /* where put() writes next */
};

static bool bus_read(void *ctx, uint32_t off, uint32_t *v)
{
  struct rig *g = ctx;
  if (off != 0) return false;
  *v = g->scratch;
  return true;
}

static bool bus_write(void *ctx, uint32_t off, uint32_t v)
{
  struct rig *g = ctx;
  g->writes++;
  switch (off) {
  case 0x0: g->scratch = v; return true;
  case 0x4: iss_yield(g->c); return true;
  case 0x8: iss_set_class(g->c, v); return true;
  case 0xc: iss_fault_raise(g->c, ISS_FAULT_RUNAWAY); return true;
  default: return false;
  }
}

static int setup(void **state)
{
  struct rig *g = calloc(1, sizeof *g);
  struct iss_bus bus = {g, bus_read, bus_write};
  g->c = iss_new(g->sram, SRAM_SIZE, &bus);
  assert_non_null(g->c);
  *state = g;
  return 0;
}

static int teardown(void **state)
{
  struct rig *g = *state;
  iss_free(g->c);
  free(g);
  return 0;
}

static void norm(const char *in, char *out)
{
  char *o = out;
  bool space = false;
  for (; *in; in++) {
    if (*in == ' ' || *in == '\t') {
      space = o != out;
      continue;
    }
    if (space) *o++ = ' ';
    space = false;
    *o++ = *in;
  }
  *o = 0;
}

/* Writes word w at g->at after checking it disassembles to text (unless NULL: the random
 * programs, whose words the disassembler conformance covers). */
static void put(struct rig *g, uint32_t w, const char *text)
{
  char got[128], a[128], b[128];
  if (text) {
    iss_disasm(w, g->at, got, sizeof got);
    norm(got, a);
    norm(text, b);
    if (strcmp(a, b)) fail_msg("%08x disassembles to '%s', not '%s'", w, a, b);
  }
  g->sram[g->at] = (uint8_t)(w >> 24);
  g->sram[g->at + 1] = (uint8_t)(w >> 16);
  g->sram[g->at + 2] = (uint8_t)(w >> 8);
  g->sram[g->at + 3] = (uint8_t)w;
  iss_invalidate(g->c, g->at, 4);
  g->at += 4;
}

static void halt(struct rig *g)
{
  char text[32];
  snprintf(text, sizeof text, "bt 0x%x", g->at);
  put(g, br(T, g->at), text);
  put(g, NOP, "nop");
}

static uint32_t rd32(struct rig *g, uint32_t a)
{
  return (uint32_t)g->sram[a] << 24 | (uint32_t)g->sram[a + 1] << 16 |
         (uint32_t)g->sram[a + 2] << 8 | g->sram[a + 3];
}

/* Runs to the halt loop; returns the final state. */
static struct iss_state run_halt(struct rig *g)
{
  struct iss_state st;
  assert_int_equal(iss_run(g->c, 100000), ISS_STOP_FAULT);
  iss_get_state(g->c, &st);
  if (st.fault != ISS_FAULT_HALTED)
    fail_msg("stopped with %s at pc 0x%x (address 0x%x)", iss_fault_name(st.fault), st.pc,
             st.fault_addr);
  return st;
}

static struct iss_state run_fault(struct rig *g, enum iss_fault want)
{
  struct iss_state st;
  assert_int_equal(iss_run(g->c, 100000), ISS_STOP_FAULT);
  iss_get_state(g->c, &st);
  assert_string_equal(iss_fault_name(st.fault), iss_fault_name(want));
  return st;
}

#define N_ 8u /* flag bits in iss_state.sw */
#define Z_ 4u
#define V_ 2u
#define C_ 1u

/* ---- ALU and flags ---- */

static void test_add_sub_flags(void **state)
{
  struct rig *g = *state;
  put(g, ri(AND, R3, R1, 0, 1, 0x7fff), "mov 0x7fffffff, %r3");
  put(g, ri(ADD, R6, R3, 1, 0, 1), "add.f %r3, 0x1, %r6");       /* signed overflow */
  put(g, scc(VS, R7), "svs %r7");
  put(g, scc(MI, R9), "smi %r9");
  put(g, ri(SUB, R0, R0, 1, 0, 1), "sub.f %r0, 0x1, %r0");        /* 0 - 1: borrow */
  put(g, scc(ULT, R12), "sult %r12");                            /* C = 0: not-borrow */
  put(g, scc(LT, R13), "slt %r13");
  put(g, ri(SUB, R0, R3, 1, 0, 0x7fff), "sub.f %r3, 0x7fff, %r0"); /* no borrow */
  put(g, scc(UGE, R14), "suge %r14");
  halt(g);
  struct iss_state st = run_halt(g);
  assert_int_equal(st.r[6], 0x80000000u);
  assert_int_equal(st.r[7], 1);
  assert_int_equal(st.r[9], 1);
  assert_int_equal(st.r[12], 1);
  assert_int_equal(st.r[13], 1);
  assert_int_equal(st.r[14], 1);
  assert_int_equal(st.sw, C_); /* 0x7fffffff - 0x7fff: positive, no borrow, no overflow */
}

static void test_carry_chain(void **state)
{
  struct rig *g = *state;
  /* 64-bit add 0x00000001_ffffffff + 0x00000002_00000001 with add.f / addc */
  put(g, ri(AND, R3, R1, 0, 0, 0xffff), "mov 0xffffffff, %r3");
  put(g, ri(ADD, R6, R0, 0, 0, 1), "mov 0x1, %r6");
  put(g, rr(ADD, R9, R3, R6, 1, T, 0), "add.f %r3, %r6, %r9");
  put(g, ri(ADD, R7, R0, 0, 0, 1), "mov 0x1, %r7");
  put(g, ri(ADDC, R12, R7, 0, 0, 2), "addc %r7, 0x2, %r12");
  /* 64-bit subtract 0x5_00000000 - 0x0_00000001 with sub.f / subb */
  put(g, ri(SUB, R13, R0, 1, 0, 1), "sub.f %r0, 0x1, %r13");
  put(g, ri(ADD, R14, R0, 0, 0, 5), "mov 0x5, %r14");
  put(g, rr(SUBB, R14, R14, R0, 0, T, 0), "subb %r14, %r0, %r14");
  halt(g);
  struct iss_state st = run_halt(g);
  assert_int_equal(st.r[9], 0);
  assert_int_equal(st.r[12], 4);
  assert_int_equal(st.r[13], 0xffffffffu);
  assert_int_equal(st.r[14], 4);
}

static void test_logic_and_immediates(void **state)
{
  struct rig *g = *state;
  put(g, ri(ADD, R3, R0, 0, 1, 0x1234), "mov 0x12340000, %r3");
  put(g, ri(OR, R3, R3, 0, 0, 0x5678), "or %r3, 0x5678, %r3");
  put(g, ri(AND, R6, R3, 0, 0, 0x00ff), "and %r3, 0xffff00ff, %r6");
  put(g, ri(AND, R7, R3, 0, 1, 0x00ff), "and %r3, 0xffffff, %r7");
  put(g, ri(XOR, R9, R3, 0, 1, 0xffff), "xor %r3, 0xffff0000, %r9");
  put(g, ri(AND, R12, R3, 1, 0, 0), "and.f %r3, 0xffff0000, %r12");
  put(g, sli(R13, 0x1fffff), "mov 0x1fffff, %r13");
  put(g, ri(ADD, R0, R3, 0, 0, 1), "add %r3, 0x1, %r0");          /* r0 stays 0 */
  put(g, ri(ADD, R1, R3, 0, 0, 1), "add %r3, 0x1, %r1");          /* r1 stays all ones */
  put(g, rr(ADD, R14, R0, R1, 0, T, 0), "add %r0, %r1, %r14");
  halt(g);
  struct iss_state st = run_halt(g);
  assert_int_equal(st.r[3], 0x12345678u);
  assert_int_equal(st.r[6], 0x12340078u);
  assert_int_equal(st.r[7], 0x00345678u);
  assert_int_equal(st.r[9], 0xedcb5678u);
  assert_int_equal(st.r[12], 0x12340000u);
  assert_int_equal(st.r[13], 0x1fffffu);
  assert_int_equal(st.r[0], 0);
  assert_int_equal(st.r[1], 0xffffffffu);
  assert_int_equal(st.r[14], 0xffffffffu);
  assert_int_equal(st.sw, 0); /* and.f: N = 0, Z = 0, V = C = 0 */
}

static void test_shifts(void **state)
{
  struct rig *g = *state;
  put(g, ri(ADD, R3, R0, 0, 1, 0x8000), "mov 0x80000000, %r3");
  put(g, ri(OR, R3, R3, 0, 0, 0x00f0), "or %r3, 0xf0, %r3");
  put(g, ri(SH, R6, R3, 0, 0, 0xfffc), "sh %r3, -0x4, %r6");       /* logical >> 4 */
  put(g, ri(SH, R7, R3, 0, 1, 0xfffc), "sha %r3, -0x4, %r7");      /* arithmetic >> 4 */
  put(g, ri(SH, R9, R3, 1, 0, 1), "sh.f %r3, 0x1, %r9");           /* C = bit shifted out */
  put(g, scc(UGE, R12), "suge %r12");
  put(g, ri(SUB, R13, R0, 0, 0, 40), "sub %r0, 0x28, %r13");
  put(g, rr(SH, R14, R3, R13, 0, T, 0x18), "sha %r3, %r13, %r14");  /* -40: all sign */
  put(g, ri(ADD, R13, R0, 0, 0, 33), "mov 0x21, %r13");
  put(g, rr(SH, RCA, R3, R13, 0, T, 0x10), "sh %r3, %r13, %rca");   /* 33: zero */
  halt(g);
  struct iss_state st = run_halt(g);
  assert_int_equal(st.r[6], 0x0800000fu);
  assert_int_equal(st.r[7], 0xf800000fu);
  assert_int_equal(st.r[9], 0x000001e0u);
  assert_int_equal(st.r[12], 1);
  assert_int_equal(st.r[14], 0xffffffffu);
  assert_int_equal(st.r[15], 0);
}

static void test_predication_select_count(void **state)
{
  struct rig *g = *state;
  put(g, ri(ADD, R3, R0, 0, 0, 5), "mov 0x5, %r3");
  put(g, ri(ADD, R6, R0, 0, 0, 7), "mov 0x7, %r6");
  put(g, rr(SUB, R0, R3, R6, 1, T, 0), "sub.f %r3, %r6, %r0");       /* 5 < 7 */
  put(g, rr(ADD, R7, R3, R6, 0, GT, 0), "add.gt %r3, %r6, %r7");     /* not taken */
  put(g, rr(ADD, R9, R3, R6, 0, LT, 0), "add.lt %r3, %r6, %r9");     /* taken */
  put(g, rr(SUB, R12, R3, R6, 1, EQ, 0), "sub.f.eq %r3, %r6, %r12"); /* false: no flags */
  put(g, rr(SH, R13, R3, R6, 0, LT, 0), "sel.lt %r3, %r6, %r13");
  put(g, rr(SH, R14, R3, R6, 0, GE, 0), "sel.ge %r3, %r6, %r14");
  put(g, ri(ADD, RCA, R0, 0, 1, 0xf0), "mov 0xf00000, %rca");
  put(g, special(16, RCA, 1), "popc %rca, %r16");
  put(g, special(17, RCA, 2), "leadz %rca, %r17");
  put(g, special(18, RCA, 3), "trailz %rca, %r18");
  put(g, special(19, R0, 2), "leadz %r0, %r19");
  put(g, special(20, R0, 3), "trailz %r0, %r20");
  halt(g);
  struct iss_state st = run_halt(g);
  assert_int_equal(st.r[7], 0);
  assert_int_equal(st.r[9], 12);
  assert_int_equal(st.r[12], 0);
  assert_int_equal(st.sw, N_); /* from the sub.f: 5 - 7 < 0, borrow */
  assert_int_equal(st.r[13], 5);
  assert_int_equal(st.r[14], 7);
  assert_int_equal(st.r[16], 4);
  assert_int_equal(st.r[17], 8);
  assert_int_equal(st.r[18], 20);
  assert_int_equal(st.r[19], 32);
  assert_int_equal(st.r[20], 32);
}

/* ---- memory ---- */

static void test_loads_stores(void **state)
{
  struct rig *g = *state;
  put(g, sli(R3, 0x1000), "mov 0x1000, %r3");
  put(g, ri(ADD, R6, R0, 0, 1, 0x89ab), "mov 0x89ab0000, %r6");
  put(g, ri(OR, R6, R6, 0, 0, 0xcdef), "or %r6, 0xcdef, %r6");
  put(g, rm(1, R6, R3, 1, 0, 4), "st %r6, 4[%r3]");
  put(g, spls(R9, R3, 1, 0, 0, 1, 0, 4), "ld.b 4[%r3], %r9");
  put(g, spls(R12, R3, 1, 0, 1, 1, 0, 7), "uld.b 7[%r3], %r12");
  put(g, spls(R13, R3, 0, 0, 0, 1, 0, 6), "ld.h 6[%r3], %r13");
  put(g, spls(R14, R3, 0, 0, 1, 1, 0, 4), "uld.h 4[%r3], %r14");
  put(g, spls(R6, R3, 1, 1, 0, 1, 0, 8), "st.b %r6, 8[%r3]");
  put(g, spls(R6, R3, 0, 1, 0, 1, 0, 10), "st.h %r6, 10[%r3]");
  put(g, sls(0, 16, 0x1004), "ld [0x1004], %r16");
  put(g, sls(1, R6, 0x100c), "st %r6, [0x100c]");
  put(g, ri(ADD, R7, R0, 0, 0, 4), "mov 0x4, %r7");
  put(g, rrm(0, 17, R3, R7, 1, 0, ADD, 0, 1, 0), "ld [%r3 add %r7], %r17");
  put(g, rrm(0, 18, R3, R7, 1, 0, ADD, 0, 2, 0), "ld.b [%r3 add %r7], %r18");
  put(g, rrm(1, R6, R3, R7, 1, 0, SUB, 0, 2, 0), "st.b %r6, [%r3 sub %r7]");
  halt(g);
  struct iss_state st = run_halt(g);
  assert_int_equal(rd32(g, 0x1004), 0x89abcdefu);
  assert_int_equal(st.r[9], 0xffffff89u);
  assert_int_equal(st.r[12], 0xefu);
  assert_int_equal(st.r[13], 0xffffcdefu);
  assert_int_equal(st.r[14], 0x89abu);
  assert_int_equal(g->sram[0x1008], 0xef);
  assert_int_equal(g->sram[0x100a], 0xcd);
  assert_int_equal(g->sram[0x100b], 0xef);
  assert_int_equal(st.r[16], 0x89abcdefu);
  assert_int_equal(rd32(g, 0x100c), 0x89abcdefu);
  assert_int_equal(st.r[17], 0x89abcdefu);
  assert_int_equal(st.r[18], 0xffffff89u);
  assert_int_equal(g->sram[0xffc], 0xef);
}

static void test_pre_post_increment(void **state)
{
  struct rig *g = *state;
  put(g, sli(SP, 0x2000), "mov 0x2000, %sp");
  put(g, ri(ADD, R3, R0, 0, 1, 0x1122), "mov 0x11220000, %r3");
  put(g, ri(OR, R3, R3, 0, 0, 0x3344), "or %r3, 0x3344, %r3");
  put(g, rm(1, R3, SP, 1, 1, -4), "st %r3, [--%sp]");      /* 0x1ffc, sp = 0x1ffc */
  put(g, ri(ADD, R3, R0, 0, 1, 0x5566), "mov 0x55660000, %r3");
  put(g, ri(OR, R3, R3, 0, 0, 0x7788), "or %r3, 0x7788, %r3");
  put(g, rm(1, R3, SP, 1, 1, -4), "st %r3, [--%sp]");      /* 0x1ff8, sp = 0x1ff8 */
  put(g, rm(0, R6, SP, 0, 1, 4), "ld [%sp++], %r6");       /* sp = 0x1ffc */
  put(g, rm(0, R7, SP, 0, 1, 8), "ld 8[%sp*], %r7");       /* sp = 0x2004 */
  put(g, sli(R9, 0x1ff8), "mov 0x1ff8, %r9");
  put(g, spls(R12, R9, 1, 0, 1, 0, 1, 1), "uld.b [%r9++], %r12");  /* 0x1ff8 */
  put(g, spls(18, R9, 1, 0, 1, 1, 1, 1), "uld.b [++%r9], %r18");   /* 0x1ffa */
  put(g, spls(R13, R9, 0, 0, 1, 1, 1, 2), "uld.h [++%r9], %r13");  /* 0x1ffc */
  put(g, ri(ADD, R14, R0, 0, 0, 4), "mov 0x4, %r14");
  put(g, sli(16, 0x1ff8), "mov 0x1ff8, %r16");
  put(g, rrm(0, 17, 16, R14, 1, 1, ADD, 0, 1, 0), "ld [*%r16 add %r14], %r17");
  put(g, rrm(0, 19, 16, R14, 0, 1, SUB, 0, 1, 0), "ld [%r16* sub %r14], %r19");
  halt(g);
  struct iss_state st = run_halt(g);
  assert_int_equal(st.r[6], 0x55667788u);
  assert_int_equal(st.r[7], 0x11223344u);
  assert_int_equal(st.r[4], 0x2004);
  assert_int_equal(st.r[12], 0x55);
  assert_int_equal(st.r[18], 0x77);
  assert_int_equal(st.r[13], 0x1122);
  assert_int_equal(st.r[9], 0x1ffc);
  assert_int_equal(st.r[17], 0x11223344u);
  assert_int_equal(st.r[19], 0x11223344u);
  assert_int_equal(st.r[16], 0x1ff8);
}

/* ---- control flow ---- */

static void test_delay_slots_and_pc(void **state)
{
  struct rig *g = *state;
  put(g, ri(ADD, RCA, PC, 0, 0, 0x10), "add %pc, 0x10, %rca"); /* 0x00: rca = 0x10 */
  put(g, br(T, 0x40), "bt 0x40");                               /* 0x04 */
  put(g, ri(ADD, R3, R0, 0, 0, 1), "mov 0x1, %r3");            /* 0x08: delay slot */
  put(g, ri(ADD, R6, R0, 0, 0, 1), "mov 0x1, %r6");            /* 0x0c: skipped */
  put(g, ri(ADD, R7, R0, 0, 0, 2), "mov 0x2, %r7");            /* 0x10: return lands here */
  put(g, br(T, 0x80), "bt 0x80");                               /* 0x14 */
  put(g, NOP, "nop");
  g->at = 0x40;
  put(g, sli(R9, 0x3000), "mov 0x3000, %r9");
  put(g, rm(1, RCA, R9, 0, 0, 0), "st %rca, 0[%r9]");
  put(g, rm(0, PC, R9, 0, 0, 0), "ld 0[%r9], %pc");            /* 2 delay slots */
  put(g, ri(ADD, R12, R0, 0, 0, 1), "mov 0x1, %r12");          /* slot 1 */
  put(g, ri(ADD, R13, R0, 0, 0, 1), "mov 0x1, %r13");          /* slot 2 */
  put(g, ri(ADD, R14, R0, 0, 0, 1), "mov 0x1, %r14");          /* skipped */
  g->at = 0x80;
  put(g, ri(ADD, 16, R0, 0, 0, 0xa0), "mov 0xa0, %r16");
  put(g, rr(OR, PC, R0, 16, 0, T, 0), "bt %r16");              /* ALU to pc: 1 slot */
  put(g, ri(ADD, 17, R0, 0, 0, 1), "mov 0x1, %r17");           /* slot */
  put(g, ri(ADD, 18, R0, 0, 0, 1), "mov 0x1, %r18");           /* skipped */
  g->at = 0xa0;
  put(g, ri(SUB, R0, R0, 1, 0, 0), "sub.f %r0, 0x0, %r0");     /* Z */
  put(g, br(NE, 0xc0), "bne 0xc0");                             /* not taken */
  put(g, ri(ADD, 19, R0, 0, 0, 1), "mov 0x1, %r19");           /* slot runs anyway */
  put(g, ri(ADD, 20, PC, 0, 0, 0), "add %pc, 0x0, %r20");       /* pc read = 0xac */
  halt(g);
  struct iss_state st = run_halt(g);
  assert_int_equal(st.r[15], 0x10);
  assert_int_equal(st.r[3], 1);
  assert_int_equal(st.r[6], 0);
  assert_int_equal(st.r[7], 2);
  assert_int_equal(st.r[12], 1);
  assert_int_equal(st.r[13], 1);
  assert_int_equal(st.r[14], 0);
  assert_int_equal(st.r[17], 1);
  assert_int_equal(st.r[18], 0);
  assert_int_equal(st.r[19], 1);
  assert_int_equal(st.r[20], 0xac);
  assert_int_equal(st.pc, 0xb0);
  assert_int_equal(iss_stats(g->c)->taken_jumps, 4);
}

static void test_budget_resumes_in_delay_slot(void **state)
{
  struct rig *g = *state;
  put(g, br(T, 0x20), "bt 0x20");
  put(g, ri(ADD, R3, R0, 0, 0, 1), "mov 0x1, %r3");
  put(g, ri(ADD, R6, R0, 0, 0, 1), "mov 0x1, %r6");
  g->at = 0x20;
  halt(g);
  assert_int_equal(iss_run(g->c, 1), ISS_STOP_BUDGET);
  struct iss_state st;
  iss_get_state(g->c, &st);
  assert_int_equal(st.pc, 4); /* the delay slot, with the branch still pending */
  st = run_halt(g);
  assert_int_equal(st.r[3], 1);
  assert_int_equal(st.r[6], 0);
  assert_int_equal(st.pc, 0x20);
  assert_int_equal(iss_stats(g->c)->insns, 2);
}

static void test_self_modifying_code(void **state)
{
  struct rig *g = *state;
  /* Runs the word at 0x40 once, overwrites it with the word at 0x44, runs it again. */
  put(g, sli(R3, 0x40), "mov 0x40, %r3");
  put(g, ri(ADD, RCA, PC, 0, 0, 0xc), "add %pc, 0xc, %rca");    /* 0x04: returns to 0x10 */
  put(g, br(T, 0x40), "bt 0x40");
  put(g, NOP, "nop");
  put(g, rm(0, R6, R3, 1, 0, 4), "ld 4[%r3], %r6");             /* 0x10 */
  put(g, rm(1, R6, R3, 0, 0, 0), "st %r6, 0[%r3]");
  put(g, ri(ADD, RCA, PC, 0, 0, 0xc), "add %pc, 0xc, %rca");    /* 0x18: returns to 0x24 */
  put(g, br(T, 0x40), "bt 0x40");
  put(g, NOP, "nop");
  halt(g);                                                       /* 0x24 */
  g->at = 0x40;
  put(g, ri(ADD, R9, R9, 0, 0, 1), "add %r9, 0x1, %r9");
  put(g, ri(ADD, R9, R9, 0, 0, 0x100), "add %r9, 0x100, %r9");
  put(g, rr(ADD, PC, RCA, R0, 0, T, 0), "mov %rca, %pc");
  put(g, NOP, "nop");
  /* the first call adds 0x101; the second runs the new word at 0x40 and the one at 0x44 */
  struct iss_state st = run_halt(g);
  assert_int_equal(st.r[9], 0x101 + 0x100 + 0x100);
}

/* ---- faults ---- */

static void test_fault_undefined(void **state)
{
  struct rig *g = *state;
  put(g, NOP, "nop");
  put(g, 0xc10c0008u, "<unknown>"); /* RR with JJJJJ != 0 */
  struct iss_state st = run_fault(g, ISS_FAULT_UNDEFINED);
  assert_int_equal(st.pc, 4);
  assert_int_equal(st.fault_word, 0xc10c0008u);
  assert_int_equal(iss_stats(g->c)->insns, 1);
  /* stays faulted until reset */
  assert_int_equal(iss_run(g->c, 10), ISS_STOP_FAULT);
  iss_reset(g->c);
  iss_get_state(g->c, &st);
  assert_int_equal(st.fault, ISS_FAULT_NONE);
  assert_int_equal(st.pc, 0);
}

static void test_fault_undefined_kinds(void **state)
{
  struct rig *g = *state;
  static const uint32_t words[] = {
    0xc4181f88u, /* RR BBB=111, JJJJJ=10001 */
    0xc41a1f07u, /* sel with F set */
    0xd4180000u, /* special OP 0 */
    0xd41a0001u, /* popc with F set */
    0xe4300006u, /* SCC with a stray bit */
    0xf1838000u, /* 0xF with bits 17..15 = 111 */
    0xa28e2706u, /* RRM YL = 11 */
    0xa28e2722u, /* RRM shift with JJJJJ bit 2 (llvm-objdump crashes) */
    0xf39b7807u, /* SPLS store with E */
    0xe100000au, /* BRR: decoded by llvm, target base undocumented */
  };
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
    iss_reset(g->c);
    g->at = 0;
    g->sram[0] = (uint8_t)(words[i] >> 24);
    g->sram[1] = (uint8_t)(words[i] >> 16);
    g->sram[2] = (uint8_t)(words[i] >> 8);
    g->sram[3] = (uint8_t)words[i];
    struct iss_state st = run_fault(g, ISS_FAULT_UNDEFINED);
    assert_int_equal(st.pc, 0);
    assert_int_equal(st.fault_word, words[i]);
  }
}

static void test_fault_misaligned(void **state)
{
  struct rig *g = *state;
  put(g, sli(R3, 0x1002), "mov 0x1002, %r3");
  put(g, ri(ADD, R6, R0, 0, 0, 7), "mov 0x7, %r6");
  put(g, rm(1, R6, R3, 1, 1, 4), "st %r6, [++%r3]");          /* 0x1006: misaligned */
  struct iss_state st = run_fault(g, ISS_FAULT_MISALIGNED);
  assert_int_equal(st.pc, 8);
  assert_int_equal(st.fault_addr, 0x1006);
  assert_int_equal(st.r[3], 0x1002); /* nothing of the faulting instruction committed */
  assert_int_equal(rd32(g, 0x1004), 0);

  iss_reset(g->c);
  g->at = 0;
  put(g, sli(R3, 0x1001), "mov 0x1001, %r3");
  put(g, spls(R9, R3, 0, 0, 1, 1, 0, 0), "uld.h 0[%r3], %r9");
  st = run_fault(g, ISS_FAULT_MISALIGNED);
  assert_int_equal(st.pc, 4);
  assert_int_equal(st.fault_addr, 0x1001);

  iss_reset(g->c);
  g->at = 0;
  put(g, ri(ADD, R3, R0, 0, 0, 0x42), "mov 0x42, %r3");
  put(g, rr(ADD, PC, R3, R0, 0, T, 0), "mov %r3, %pc");        /* jump to 0x42 */
  put(g, NOP, "nop");
  st = run_fault(g, ISS_FAULT_MISALIGNED);
  assert_int_equal(st.pc, 0x42);
  assert_int_equal(st.fault_addr, 0x42);
  assert_int_equal(st.fault_word, 0);
}

static void test_fault_bus(void **state)
{
  struct rig *g = *state;
  put(g, ri(ADD, R3, R0, 0, 1, 0x0001), "mov 0x10000, %r3");   /* = SRAM_SIZE */
  put(g, rm(0, R6, R3, 0, 0, 0), "ld 0[%r3], %r6");
  struct iss_state st = run_fault(g, ISS_FAULT_BUS);
  assert_int_equal(st.pc, 4);
  assert_int_equal(st.fault_addr, SRAM_SIZE);

  /* register page: a word the bus refuses, then a sub-word access */
  iss_reset(g->c);
  g->at = 0;
  put(g, ri(AND, R3, R1, 0, 0, 0xfe00), "mov 0xfffffe00, %r3");
  put(g, rm(1, R3, R3, 1, 0, 0x10), "st %r3, 16[%r3]");
  st = run_fault(g, ISS_FAULT_BUS);
  assert_int_equal(st.pc, 4);
  assert_int_equal(st.fault_addr, 0xfffffe10u);

  iss_reset(g->c);
  g->at = 0;
  put(g, ri(AND, R3, R1, 0, 0, 0xfe00), "mov 0xfffffe00, %r3");
  put(g, spls(R6, R3, 1, 0, 1, 0, 0, 0), "uld.b 0[%r3], %r6");
  st = run_fault(g, ISS_FAULT_BUS);
  assert_int_equal(st.fault_addr, 0xfffffe00u);

  /* fetch outside SRAM */
  iss_reset(g->c);
  g->at = 0;
  put(g, ri(ADD, R3, R0, 0, 1, 0x0002), "mov 0x20000, %r3");
  put(g, rr(OR, PC, R0, R3, 0, T, 0), "bt %r3");
  put(g, NOP, "nop");
  st = run_fault(g, ISS_FAULT_BUS);
  assert_int_equal(st.pc, 0x20000);
  assert_int_equal(st.fault_addr, 0x20000);
  assert_int_equal(st.fault_word, 0);

  /* between SRAM and the register page */
  iss_reset(g->c);
  g->at = 0;
  put(g, ri(ADD, R3, R0, 0, 1, 0x8000), "mov 0x80000000, %r3");
  put(g, rm(1, R0, R3, 0, 0, 0), "st %r0, 0[%r3]");
  st = run_fault(g, ISS_FAULT_BUS);
  assert_int_equal(st.fault_addr, 0x80000000u);
}

static void test_halt_and_runaway(void **state)
{
  struct rig *g = *state;
  put(g, NOP, "nop");
  halt(g);
  struct iss_state st = run_fault(g, ISS_FAULT_HALTED);
  assert_int_equal(st.pc, 4);
  assert_int_equal(iss_stats(g->c)->insns, 1);

  /* a spin the host's watchdog stops */
  iss_reset(g->c);
  g->at = 0;
  put(g, br(T, 0x8), "bt 0x8");
  put(g, NOP, "nop");
  put(g, br(T, 0x0), "bt 0x0");
  put(g, NOP, "nop");
  assert_int_equal(iss_run(g->c, 1000), ISS_STOP_BUDGET);
  iss_fault_raise(g->c, ISS_FAULT_RUNAWAY);
  assert_int_equal(iss_run(g->c, 1000), ISS_STOP_FAULT);
  iss_get_state(g->c, &st);
  assert_int_equal(st.fault, ISS_FAULT_RUNAWAY);
  assert_string_equal(iss_fault_name(st.fault), "runaway firmware");
}

/* ---- every ALU operation against a reference model written from LANAI-ISA.md 3 and 4.2 ---- */

struct ref {
  uint32_t n, z, v, c;
};

static bool ref_cond(const struct ref *f, unsigned cc)
{
  switch (cc) {
  case T: return true;
  case F: return false;
  case UGT: return f->c && !f->z;
  case ULE: return !f->c || f->z;
  case ULT: return !f->c;
  case UGE: return f->c;
  case NE: return !f->z;
  case EQ: return f->z;
  case VC: return !f->v;
  case VS: return f->v;
  case PL: return !f->n;
  case MI: return f->n;
  case GE: return f->n == f->v;
  case LT: return f->n != f->v;
  case GT: return !f->z && f->n == f->v;
  default: return f->z || f->n != f->v;
  }
}

/* a op b; sets *f when setf. Shifts: b as a signed amount, |amount| >= 32 gives 0 (the sign
 * for an arithmetic right shift); the carry of a left shift is the last bit shifted out. */
static uint32_t ref_alu(unsigned op, uint32_t a, uint32_t b, bool arith, bool setf,
                        struct ref *f)
{
  uint32_t r = 0, c = 0, v = 0;
  if (op <= SUBB) {
    uint64_t bb = op >= SUB ? (uint64_t)(uint32_t)~b : b;
    uint64_t cin = op == ADD ? 0 : op == SUB ? 1 : f->c;
    uint64_t full = a + bb + cin;
    r = (uint32_t)full;
    c = (uint32_t)(full >> 32);
    uint32_t sa = a >> 31, sb = (uint32_t)(bb >> 31) & 1, sr = r >> 31;
    v = sa == sb && sr != sa;
  } else if (op == AND) {
    r = a & b;
  } else if (op == OR) {
    r = a | b;
  } else if (op == XOR) {
    r = a ^ b;
  } else {
    int64_t amt = (int32_t)b;
    if (amt >= 32) r = 0;
    else if (amt > 0) {
      r = a << amt;
      c = a >> (32 - amt) & 1;
    } else if (amt == 0) r = a;
    else if (amt > -32) r = arith ? (uint32_t)((int64_t)(int32_t)a >> -amt) : a >> -amt;
    else r = arith && (a >> 31) ? 0xffffffffu : 0;
  }
  if (setf) {
    f->n = r >> 31;
    f->z = r == 0;
    f->v = v;
    f->c = c;
  }
  return r;
}

static uint32_t rnd_state = 12345;
static uint32_t rnd(void)
{
  rnd_state ^= rnd_state << 13;
  rnd_state ^= rnd_state >> 17;
  rnd_state ^= rnd_state << 5;
  return rnd_state;
}

static uint32_t interesting(void)
{
  static const uint32_t edge[] = {0, 1, 2, 31, 32, 33, 0x7fffffff, 0x80000000u, 0xffffffffu,
                                  0xffffffe0u, 0xffffffe1u, 0xffff, 0x10000, 0xffff8000u};
  return rnd() % 3 ? edge[rnd() % (sizeof edge / sizeof edge[0])] : rnd();
}

/* Loads v into rd with mov hi / or lo (no flags). */
static void load_const(struct rig *g, unsigned rd, uint32_t v)
{
  put(g, ri(ADD, rd, R0, 0, 1, v >> 16), NULL);
  put(g, ri(OR, rd, rd, 0, 0, v & 0xffff), NULL);
}

static void test_alu_against_reference(void **state)
{
  struct rig *g = *state;
  for (int iter = 0; iter < 3000; iter++) {
    iss_reset(g->c);
    g->at = 0;
    uint32_t x = interesting(), y = interesting(), a = interesting(), b = interesting();
    uint32_t old = rnd();
    struct ref f = {0};
    /* flags from a random add.f or sub.f, then the operation under test */
    unsigned fop = rnd() & 1 ? ADD : SUB;
    load_const(g, R3, x);
    load_const(g, R6, y);
    load_const(g, R7, a);
    load_const(g, R9, b);
    load_const(g, R12, old);
    put(g, rr(fop, R0, R3, R6, 1, T, 0), NULL);
    ref_alu(fop, x, y, false, true, &f);
    unsigned op = rnd() % 8, setf = rnd() & 1, form = rnd() % 3;
    uint32_t want = old;
    if (form == 0) { /* RI */
      unsigned h = rnd() & 1;
      uint32_t c16 = rnd() % 4 ? interesting() & 0xffff : rnd() & 0xffff;
      uint32_t k = op == SH ? (uint32_t)(int32_t)(int16_t)c16
                 : op == AND ? (h ? c16 << 16 | 0xffff : 0xffff0000u | c16)
                 : (h ? c16 << 16 : c16);
      put(g, ri(op, R12, R7, setf, h, c16), NULL);
      want = ref_alu(op, a, k, op == SH && h, setf, &f);
    } else { /* RR, maybe predicated; sel when op is 7 and form 2 */
      unsigned cc = rnd() % 4 ? T : rnd() % 16;
      if (op == SH && form == 2) {
        put(g, rr(SH, R12, R7, R9, 0, cc, 0), NULL);
        want = ref_cond(&f, cc) ? a : b;
      } else {
        unsigned j = op == SH ? (rnd() & 1 ? 0x18 : 0x10) : 0;
        put(g, rr(op, R12, R7, R9, setf, cc, j), NULL);
        if (ref_cond(&f, cc)) want = ref_alu(op, a, b, j == 0x18, setf, &f);
      }
    }
    uint32_t at = g->at;
    halt(g);
    struct iss_state st = run_halt(g);
    uint32_t sw = f.n * N_ | f.z * Z_ | f.v * V_ | f.c * C_;
    if (st.r[12] != want || st.sw != sw) {
      char text[64];
      iss_disasm(rd32(g, at - 4), at - 4, text, sizeof text);
      fail_msg("'%s' with r7=%08x r9=%08x flags-from %s %08x,%08x: r12 %08x sw %x, want %08x "
               "sw %x", text, a, b, fop == ADD ? "add.f" : "sub.f", x, y, st.r[12], st.sw,
               want, sw);
    }
  }
}

/* ---- every load/store form against a reference model (LANAI-ISA.md 4.4, 4.5, 4.7) ---- */

static void test_memory_against_reference(void **state)
{
  struct rig *g = *state;
  static const int32_t offs[] = {0, 1, 2, 3, 4, -1, -2, -4, 6, 8, -8, 12, 0x7c, -0x80, 0x1f};
  for (int iter = 0; iter < 8000; iter++) {
    iss_reset(g->c);
    g->at = 0;
    for (uint32_t a = 0x1000; a < 0x1200; a++) g->sram[a] = (uint8_t)rnd();
    uint32_t base = (rnd() % 4 ? 0 : 0x80000000u) + 0x1100 + (rnd() % 16); /* or far away */
    uint32_t val = interesting(), idx = (uint32_t)offs[rnd() % 15];
    unsigned form = rnd() % 3, store = rnd() & 1, p = rnd() & 1, q = rnd() & 1;
    unsigned size = 4, sext = 0, op = ADD, j = 0;
    int32_t k = offs[rnd() % 15];
    uint32_t w;
    load_const(g, R3, base);
    load_const(g, R6, val);
    load_const(g, R7, idx);
    put(g, rr(SUB, R0, R6, R7, 1, T, 0), NULL); /* some carry for addc/subb addresses */
    if (form == 0) {
      w = rm(store, R6, R3, p, q, k);
    } else if (form == 1) {
      static const unsigned ops[] = {ADD, ADDC, SUB, SUBB, OR, XOR, SH};
      op = ops[rnd() % 7];
      j = op == SH ? (rnd() & 1 ? 0x18 : 0x10) : 0;
      unsigned yl = rnd() % 3, e = store ? 0 : rnd() & 1;
      size = yl == 0 ? 2 : yl == 1 ? 4 : 1;
      sext = !store && !e;
      w = rrm(store, R6, R3, R7, p, q, op, j, yl, e);
    } else {
      unsigned y = rnd() & 1, e = store ? 0 : rnd() & 1;
      size = y ? 1 : 2;
      sext = !store && !e;
      w = spls(R6, R3, y, store, e, p, q, k);
    }
    put(g, w, NULL);
    uint32_t at = g->at - 4;
    halt(g);
    static uint8_t before[SRAM_SIZE], want_mem[SRAM_SIZE];
    memcpy(before, g->sram, SRAM_SIZE);

    /* the reference */
    struct ref f = {0};
    ref_alu(SUB, val, idx, false, true, &f);
    uint32_t eff = form == 1 ? (op == SH ? ref_alu(SH, base, idx, j == 0x18, false, &f)
                                         : ref_alu(op, base, idx, false, false, &f))
                             : base + (uint32_t)k;
    uint32_t ea = form == 1 && !p && !q ? base : p ? eff : base;
    if (form == 0 && !p && !q) ea = base;
    enum iss_fault want_fault = ea % size ? ISS_FAULT_MISALIGNED
                              : ea >= SRAM_SIZE ? ISS_FAULT_BUS : ISS_FAULT_NONE;
    struct iss_state st;
    assert_int_equal(iss_run(g->c, 1000), ISS_STOP_FAULT);
    iss_get_state(g->c, &st);
    char text[64];
    iss_disasm(w, at, text, sizeof text);
    if (want_fault != ISS_FAULT_NONE) {
      if (st.fault != want_fault || st.pc != at || st.fault_addr != ea || st.r[3] != base ||
          memcmp(before, g->sram, SRAM_SIZE))
        fail_msg("'%s' r3=%08x r7=%08x: %s at %x addr %x, want %s at %x addr %x", text, base,
                 idx, iss_fault_name(st.fault), st.pc, st.fault_addr,
                 iss_fault_name(want_fault), at, ea);
      continue;
    }
    if (store && ea < 0x400) continue; /* a shifted address into the program itself */
    memcpy(want_mem, before, SRAM_SIZE);
    uint32_t want_r6 = val, want_r3 = q ? eff : base;
    if (store) {
      for (unsigned b = 0; b < size; b++) want_mem[ea + b] = (uint8_t)(val >> 8 * (size - 1 - b));
    } else {
      uint32_t v = 0;
      for (unsigned b = 0; b < size; b++) v = v << 8 | before[ea + b];
      if (sext && size < 4) v = (uint32_t)((int32_t)(v << (32 - 8 * size)) >> (32 - 8 * size));
      want_r6 = v;
    }
    if (st.fault != ISS_FAULT_HALTED || st.r[6] != want_r6 || st.r[3] != want_r3 ||
        memcmp(want_mem, g->sram, SRAM_SIZE))
      fail_msg("'%s' r3=%08x r6=%08x r7=%08x: %s, r6 %08x r3 %08x, want r6 %08x r3 %08x%s", text,
               base, val, idx, iss_fault_name(st.fault), st.r[6], st.r[3], want_r6, want_r3,
               memcmp(want_mem, g->sram, SRAM_SIZE) ? " (memory differs)" : "");
  }
}

/* ---- the bus, classes, the cycle model, tracing ---- */

static void test_bus_yield_and_classes(void **state)
{
  struct rig *g = *state;
  put(g, ri(AND, R3, R1, 0, 0, 0xfe00), "mov 0xfffffe00, %r3");
  put(g, ri(ADD, R6, R0, 0, 0, 3), "mov 0x3, %r6");
  put(g, rm(1, R6, R3, 1, 0, 8), "st %r6, 8[%r3]");           /* class 3 */
  put(g, NOP, "nop");
  put(g, rm(1, R6, R3, 1, 0, 0), "st %r6, 0[%r3]");           /* scratch = 3 */
  put(g, rm(0, R7, R3, 1, 0, 0), "ld 0[%r3], %r7");
  put(g, rm(1, R6, R3, 1, 0, 4), "st %r6, 4[%r3]");           /* yield */
  put(g, ri(ADD, R9, R0, 0, 0, 9), "mov 0x9, %r9");
  put(g, rm(1, R0, R3, 1, 0, 8), "st %r0, 8[%r3]");           /* class 0 */
  halt(g);
  assert_int_equal(iss_run(g->c, 1000), ISS_STOP_YIELD);
  struct iss_state st;
  iss_get_state(g->c, &st);
  assert_int_equal(st.pc, 0x1c);
  assert_int_equal(st.r[7], 3);
  assert_int_equal(st.r[9], 0);
  st = run_halt(g);
  assert_int_equal(st.r[9], 9);
  const struct iss_stats *s = iss_stats(g->c);
  assert_int_equal(s->insns, 9);
  assert_int_equal(s->class_insns[3], 6);   /* the nop to the class switch back */
  assert_int_equal(s->class_insns[0], 3);
  assert_int_equal(s->reg_reads, 1);
  assert_int_equal(s->reg_writes, 4);
  /* the class switches take their instruction and its register cycles along */
  assert_int_equal(s->class_cycles[3], 6 + 4 * 3);
  assert_int_equal(s->class_cycles[0], 3 + 1 * 3);
  uint64_t sum = 0;
  for (unsigned k = 0; k < ISS_NCLASS; k++) sum += s->class_cycles[k];
  assert_int_equal(sum, s->cycles);
  assert_true(s->cycles >= s->insns + 5 * 3); /* register-page accesses cost extra */
}

static void test_interlock(void **state)
{
  struct rig *g = *state;
  put(g, sli(R3, 0x1000), "mov 0x1000, %r3");
  put(g, rm(0, R6, R3, 0, 0, 0), "ld 0[%r3], %r6");
  put(g, ri(ADD, R7, R6, 0, 0, 1), "add %r6, 0x1, %r7");        /* uses the load: +1 */
  put(g, rm(0, R6, R3, 0, 0, 0), "ld 0[%r3], %r6");
  put(g, NOP, "nop");
  put(g, ri(ADD, R7, R6, 0, 0, 1), "add %r6, 0x1, %r7");        /* one apart: no stall */
  halt(g);
  run_halt(g);
  const struct iss_stats *s = iss_stats(g->c);
  assert_int_equal(s->insns, 6);
  assert_int_equal(s->interlocks, 1);
  assert_int_equal(s->cycles, 7);
  assert_int_equal(s->loads, 2);
}

static void test_trace(void **state)
{
  struct rig *g = *state;
  put(g, ri(ADD, R3, R0, 0, 0, 5), "mov 0x5, %r3");
  halt(g);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  iss_trace(g->c, f);
  run_halt(g);
  iss_trace(g->c, NULL);
  fclose(f);
  /* the halt loop's branch is shown, as any instruction that stops the processor */
  assert_string_equal(buf, "00000000: 01800005  mov\t0x5, %r3\n"
                           "00000004: e0000004  bt\t0x4\n");
  free(buf);
}

static void test_bad_arguments(void **state)
{
  (void)state;
  uint8_t sram[16];
  struct iss_bus bus = {0};
  assert_null(iss_new(sram, 6, &bus));
  assert_null(iss_new(NULL, 16, &bus));
  assert_null(iss_new(sram, 16, NULL));
  char text[8];
  assert_int_equal(iss_disasm(0xc10c0008u, 0, text, sizeof text), 0);
  assert_string_equal(text, "<unknow"); /* truncated, terminated */
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_add_sub_flags, setup, teardown),
    cmocka_unit_test_setup_teardown(test_carry_chain, setup, teardown),
    cmocka_unit_test_setup_teardown(test_logic_and_immediates, setup, teardown),
    cmocka_unit_test_setup_teardown(test_shifts, setup, teardown),
    cmocka_unit_test_setup_teardown(test_predication_select_count, setup, teardown),
    cmocka_unit_test_setup_teardown(test_loads_stores, setup, teardown),
    cmocka_unit_test_setup_teardown(test_pre_post_increment, setup, teardown),
    cmocka_unit_test_setup_teardown(test_delay_slots_and_pc, setup, teardown),
    cmocka_unit_test_setup_teardown(test_budget_resumes_in_delay_slot, setup, teardown),
    cmocka_unit_test_setup_teardown(test_self_modifying_code, setup, teardown),
    cmocka_unit_test_setup_teardown(test_fault_undefined, setup, teardown),
    cmocka_unit_test_setup_teardown(test_fault_undefined_kinds, setup, teardown),
    cmocka_unit_test_setup_teardown(test_fault_misaligned, setup, teardown),
    cmocka_unit_test_setup_teardown(test_fault_bus, setup, teardown),
    cmocka_unit_test_setup_teardown(test_halt_and_runaway, setup, teardown),
    cmocka_unit_test_setup_teardown(test_alu_against_reference, setup, teardown),
    cmocka_unit_test_setup_teardown(test_memory_against_reference, setup, teardown),
    cmocka_unit_test_setup_teardown(test_bus_yield_and_classes, setup, teardown),
    cmocka_unit_test_setup_teardown(test_interlock, setup, teardown),
    cmocka_unit_test_setup_teardown(test_trace, setup, teardown),
    cmocka_unit_test(test_bad_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
