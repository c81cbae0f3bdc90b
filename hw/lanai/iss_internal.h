/* iss_internal.h: what the ISS's files share and nothing outside hw/lanai/ sees: the
 * predecoded instruction (one per SRAM word, decoded on first execution), the op kinds the
 * run loop dispatches on, and the processor state behind struct iss. */
#ifndef ISS_INTERNAL_H
#define ISS_INTERNAL_H

#include <stdio.h>

#include "iss.h"

/* Op kinds. K_NEW marks a word not decoded yet (calloc'd arrays start so). */
enum iss_kind {
  K_NEW = 0,
  K_UNDEF,      /* undefined word: faults when executed */
  /* RI without flags; imm = the 32-bit operand K (or the shift amount) */
  K_ADDI, K_ANDI, K_ORI, K_XORI, K_SHLI, K_SHRI, K_SRAI,
  K_ALUI,       /* RI addc/subb or any .f form: alu = op, f = F, imm = K */
  K_SUBFI,      /* RI sub.f (the compare), imm = K */
  /* RR, always-true condition, no flags */
  K_ADD, K_SUB, K_AND, K_OR, K_XOR, K_SH, K_SHA,
  K_ALU,        /* RR predicated, .f, addc/subb: alu, f, cc */
  K_SUBF,       /* RR sub.f, unconditional */
  K_SEL,        /* cc ? rs1 : rs2 */
  /* word load/store at r[rs1] + imm, no write-back (RM PQ 00/10, SLS with rs1 = r0) */
  K_LDW, K_STW,
  K_LDST,       /* every other memory form (RM/SPLS pre/post, RRM): see struct iss_op */
  K_MOVI,       /* SLI: rd = imm (a load-timed write: 2 delay slots into pc) */
  K_POPC, K_LEADZ, K_TRAILZ,
  K_BR,         /* conditional branch to imm (cc) */
  K_BT,         /* unconditional branch to imm */
  K_BTSELF,     /* unconditional branch to itself: the halt loop */
  K_SCC,        /* rd = cond(cc) */
  K_NKIND
};

/* ALU op codes (the 3-bit field). */
enum { ALU_ADD, ALU_ADDC, ALU_SUB, ALU_SUBB, ALU_AND, ALU_OR, ALU_XOR, ALU_SHIFT };

/* The status word (iss_state.sw has the same layout). */
#define SW_N 8u
#define SW_Z 4u
#define SW_V 2u
#define SW_C 1u

/* Memory-op flags in struct iss_op.mem. */
#define M_STORE 0x01u  /* store (else load) */
#define M_SEXT  0x02u  /* sign-extend a sub-word load */
#define M_P     0x04u  /* address = computed value (else the base register) */
#define M_Q     0x08u  /* write the computed value back into rs1 */
#define M_RRM   0x10u  /* computed value = rs1 alu rs2 (else rs1 + imm) */
#define M_ARITH 0x20u  /* RRM shift is arithmetic */

struct iss_op {
  uint8_t kind;
  uint8_t rd, rs1, rs2;
  uint8_t alu;      /* ALU op (K_ALUI, K_ALU, RRM address op) */
  uint8_t f;        /* set flags */
  uint8_t cc;       /* condition 0..15 */
  uint8_t mem;      /* M_* flags */
  uint32_t imm;
  uint8_t size;     /* access size in bytes (1, 2, 4) */
  uint8_t pad[3];
  uint32_t uses;    /* bit mask of registers r3..r31 read (load-use interlock) */
};

/* Decodes one word at address pc (pc only matters for the halt loop). */
void iss_decode(uint32_t word, uint32_t pc, struct iss_op *op);

/* Totals up to date, and what ran since the last call charged to the current class. */
void iss_class_flush(struct iss *c);

/* Cycle model (hw/lanai/README.md). */
#define ISS_CYC_INTERLOCK 1u  /* a load whose result the next instruction reads */
#define ISS_CYC_REG       3u  /* extra cycles of a register-page access */

struct iss {
  uint8_t *sram;
  uint32_t size;
  struct iss_bus bus;
  struct iss_op *ops;       /* one per SRAM word */
  uint32_t dec_lo, dec_hi;  /* words [dec_lo, dec_hi) may hold decoded ops */
  uint32_t r[32];
  uint32_t sw;              /* flags: SW_N | SW_Z | SW_V | SW_C */
  uint32_t pc, q0, q1;      /* this instruction and the next two fetch addresses */
  uint32_t ldmask;          /* register loaded by the previous instruction (interlock) */
  enum iss_fault fault;
  uint32_t fault_addr, fault_word;
  bool yield;
  unsigned cls;
  uint64_t cls_insns0, cls_cycles0;  /* totals when the current class began */
  uint64_t extra_cycles;              /* cycles beyond one per instruction */
  uint64_t run_base;                  /* st.insns when iss_run began */
  struct iss_stats st;
  FILE *trace;
};

#endif
