/* PANIC VM module format: header layout, limits and verifier reason codes (FORMAT.md). */
#ifndef VM_FORMAT_H
#define VM_FORMAT_H

#include <stdint.h>

#define VM_MAGIC0 'P'
#define VM_MAGIC1 'V'
#define VM_MAGIC2 'M'
#define VM_MAGIC3 '1'
#define VM_VERSION 1u

#define VM_HDR_SIZE      40u  /* fixed header, then the trigger table, then code */
#define VM_TRIG_SIZE      8u  /* u32 message number, u32 code offset */
#define VM_NAME_LEN      16u
#define VM_MAX_CODE   65535u  /* verifier scratch uses 16-bit code offsets */
#define VM_MAX_DATA   65536u  /* data words */
#define VM_MAX_TRIGGERS 256u
#define VM_STACK_MAX    255u

/* Header field offsets (all little-endian). */
#define VM_H_MAGIC       0u  /* 4 bytes "PVM1" */
#define VM_H_VERSION     4u  /* u16 */
#define VM_H_FLAGS       6u  /* u16, must be 0 */
#define VM_H_CODE_SIZE   8u  /* u32 bytes */
#define VM_H_DATA_WORDS 12u  /* u32 32-bit words, zero-initialised at load */
#define VM_H_INIT_OFF   16u  /* u32 code offset of the initial BEGIN..END block */
#define VM_H_NTRIG      20u  /* u16 trigger count */
#define VM_H_MAX_STACK  22u  /* u16 declared operand-stack depth */
#define VM_H_NAME       24u  /* 16 bytes, NUL padded */

/* Load/verify failures: a named reason and the byte offset in the module image. */
#define VM_ERR_TABLE(X)                                             \
  X(OK,              "ok")                                          \
  X(TRUNCATED,       "truncated")                                   \
  X(BAD_MAGIC,       "bad-magic")                                   \
  X(BAD_VERSION,     "bad-version")                                 \
  X(BAD_FLAGS,       "bad-flags")                                   \
  X(BAD_SIZE,        "bad-size")                                    \
  X(TOO_LARGE,       "too-large")                                   \
  X(NO_MEMORY,       "no-memory")                                   \
  X(BAD_STACK_DECL,  "bad-stack-decl")                              \
  X(BAD_TRIGGER,     "bad-trigger")                                 \
  X(TRIGGER_ORDER,   "trigger-order")                               \
  X(BAD_ENTRY,       "bad-entry")                                   \
  X(BAD_OPCODE,      "bad-opcode")                                  \
  X(TRUNCATED_INSN,  "truncated-insn")                              \
  X(BAD_JUMP,        "bad-jump")                                    \
  X(DATA_BOUNDS,     "data-bounds")                                 \
  X(STACK_UNDERFLOW, "stack-underflow")                             \
  X(STACK_OVERFLOW,  "stack-overflow")                              \
  X(STACK_MISMATCH,  "stack-mismatch")                              \
  X(FALLS_OFF_END,   "falls-off-end")

enum vm_err {
#define VM_ERR_ENUM(n, s) VM_ERR_##n,
  VM_ERR_TABLE(VM_ERR_ENUM)
#undef VM_ERR_ENUM
  VM_ERR_COUNT
};

struct vm_diag {
  enum vm_err code;
  uint32_t offset; /* byte offset into the module image */
};

const char *vm_err_name(enum vm_err e);

#endif
