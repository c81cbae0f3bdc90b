/* PANIC VM instruction set: one table, expanded wherever opcodes are described.
 * Columns: name, opcode byte, operand bytes, values popped, values pushed.
 * Operands are little-endian; see FORMAT.md for the meaning of each. */
#ifndef VM_OPS_H
#define VM_OPS_H

#define VM_OP_TABLE(X)                 \
  X(NOP,     0x01, 0, 0, 0)            \
  X(PUSH,    0x02, 4, 0, 1)            \
  X(POP,     0x03, 0, 1, 0)            \
  X(DUP,     0x04, 0, 1, 2)            \
  X(LOAD,    0x10, 4, 0, 1)            \
  X(STORE,   0x11, 4, 1, 0)            \
  X(LOADX,   0x12, 8, 1, 1)            \
  X(STOREX,  0x13, 8, 2, 0)            \
  X(INCV,    0x14, 8, 0, 0)            \
  X(ADDV,    0x15, 4, 1, 0)            \
  X(LOADXV,  0x16, 12, 0, 1)           \
  X(STOREXV, 0x17, 12, 1, 0)           \
  X(ADD,     0x20, 0, 2, 1)            \
  X(SUB,     0x21, 0, 2, 1)            \
  X(MUL,     0x22, 0, 2, 1)            \
  X(DIV,     0x23, 0, 2, 1)            \
  X(MOD,     0x24, 0, 2, 1)            \
  X(NEG,     0x25, 0, 1, 1)            \
  X(AND,     0x26, 0, 2, 1)            \
  X(OR,      0x27, 0, 2, 1)            \
  X(NOT,     0x28, 0, 1, 1)            \
  X(EQ,      0x30, 0, 2, 1)            \
  X(NE,      0x31, 0, 2, 1)            \
  X(LT,      0x32, 0, 2, 1)            \
  X(LE,      0x33, 0, 2, 1)            \
  X(GT,      0x34, 0, 2, 1)            \
  X(GE,      0x35, 0, 2, 1)            \
  X(JMP,     0x40, 4, 0, 0)            \
  X(JZ,      0x41, 4, 1, 0)            \
  X(JNZ,     0x42, 4, 1, 0)            \
  X(JEQ,     0x43, 4, 2, 0)            \
  X(JNE,     0x44, 4, 2, 0)            \
  X(JLT,     0x45, 4, 2, 0)            \
  X(JLE,     0x46, 4, 2, 0)            \
  X(JGT,     0x47, 4, 2, 0)            \
  X(JGE,     0x48, 4, 2, 0)            \
  X(JEQVK,   0x49, 12, 0, 0)           \
  X(JNEVK,   0x4a, 12, 0, 0)           \
  X(JLTVK,   0x4b, 12, 0, 0)           \
  X(JLEVK,   0x4c, 12, 0, 0)           \
  X(JGTVK,   0x4d, 12, 0, 0)           \
  X(JGEVK,   0x4e, 12, 0, 0)           \
  X(SEND,    0x50, 8, 6, 0)            \
  X(AWAIT,   0x51, 0, 0, 0)            \
  X(DELIVER, 0x52, 8, 4, 0)            \
  X(GET,     0x53, 8, 4, 0)            \
  X(RECV,    0x54, 8, 3, 0)            \
  X(CLOCK,   0x55, 0, 0, 1)            \
  X(DISPLAY, 0x56, 0, 1, 0)            \
  X(STOP,    0x57, 0, 0, 0)            \
  X(MSGLEN,  0x58, 0, 0, 1)            \
  X(ADDK,    0x60, 4, 1, 1)            \
  X(SUBK,    0x61, 4, 1, 1)            \
  X(MULK,    0x62, 4, 1, 1)            \
  X(DIVK,    0x63, 4, 1, 1)            \
  X(MODK,    0x64, 4, 1, 1)

enum vm_op {
#define VM_OP_ENUM(n, c, o, p, q) VM_OP_##n = c,
  VM_OP_TABLE(VM_OP_ENUM)
#undef VM_OP_ENUM
};

/* Opcode families, for the tools (the verifier and the interpreter state them in ACSL too):
 * compare-and-branch on two stack values (JEQ..JGE), on a data word and a constant
 * (JEQVK..JGEVK), and arithmetic with a constant operand (ADDK..MODK). Each family keeps the
 * order of EQ..GE and ADD..MOD. A jump's displacement is always its last operand. */
#define VM_OP_IS_JCC(op) ((op) >= VM_OP_JEQ && (op) <= VM_OP_JGE)
#define VM_OP_IS_JVK(op) ((op) >= VM_OP_JEQVK && (op) <= VM_OP_JGEVK)
#define VM_OP_IS_JUMP(op)                                                    \
  ((op) == VM_OP_JMP || (op) == VM_OP_JZ || (op) == VM_OP_JNZ || VM_OP_IS_JCC(op) || \
   VM_OP_IS_JVK(op))

/* The opcode table as ACSL logic, for the proofs (proofs/README.md). */
#define VM_ACSL_VALID(n, c, o, p, q) op == c ||
/*@ predicate vm_op_valid(integer op) = VM_OP_TABLE(VM_ACSL_VALID) \false;
    predicate vm_op_jcc(integer op) = VM_OP_JEQ <= op <= VM_OP_JGE;
    predicate vm_op_jvk(integer op) = VM_OP_JEQVK <= op <= VM_OP_JGEVK;
    predicate vm_op_kop(integer op) = VM_OP_ADDK <= op <= VM_OP_MODK;
    // Jumps whose displacement is their only operand.
    predicate vm_op_jump(integer op) =
      op == VM_OP_JMP || op == VM_OP_JZ || op == VM_OP_JNZ || vm_op_jcc(op);
    // Opcodes with one 32-bit operand, those with a (base, count) variable operand, a
    // (word, constant) pair, and three operands: (word, constant, displacement) or
    // (base, count, index word).
    predicate vm_op_word(integer op) =
      op == VM_OP_PUSH || op == VM_OP_LOAD || op == VM_OP_STORE || op == VM_OP_ADDV ||
      vm_op_jump(op) || vm_op_kop(op);
    predicate vm_op_var(integer op) =
      op == VM_OP_LOADX || op == VM_OP_STOREX || op == VM_OP_SEND || op == VM_OP_DELIVER ||
      op == VM_OP_GET || op == VM_OP_RECV;
    predicate vm_op_pair(integer op) = op == VM_OP_INCV;
    predicate vm_op_xv(integer op) = op == VM_OP_LOADXV || op == VM_OP_STOREXV;
    predicate vm_op_triple(integer op) = vm_op_jvk(op) || vm_op_xv(op);
*/

#endif
