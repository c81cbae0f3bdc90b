/* Shared between the loader, verifier and interpreter; not part of the embedder interface.
 * ACSL contracts are proved by `make proofs` (proofs/README.md). */
#ifndef VM_INTERNAL_H
#define VM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "vm.h"
#include "vm_ops.h"

struct vm_opinfo {
  uint8_t valid, operand_bytes, pops, pushes;
};

/* The table, expanded from vm_ops.h in vm_opinfo.c; read through vm_opinfo, inlined in the
 * interpreter's loop. */
extern const struct vm_opinfo vm_optab[256];

/*@ assigns \nothing;
    ensures \valid_read(\result);
    ensures \result->valid != 0 <==> vm_op_valid(op);
    ensures vm_op_word(op) ==> \result->operand_bytes == 4;
    ensures vm_op_var(op) ==> \result->operand_bytes == 8;
    ensures vm_op_pair(op) ==> \result->operand_bytes == 8;
    ensures vm_op_triple(op) ==> \result->operand_bytes == 12;
*/
static inline const struct vm_opinfo *vm_opinfo(uint8_t op) { return &vm_optab[op]; }

/* The byte view of data words (messages copied in, SEND, DELIVER, GET) is little-endian on
 * every CPU, as hosts read the words DELIVERed to them: on the big-endian LANai the
 * interpreter swaps the words around each service call (vm_le_words) and message bytes land
 * mirrored within their word (VM_LE_BYTE). */
#ifdef __lanai__
#define VM_LE_BYTE 3u
static inline void vm_le_words(int32_t *w, uint32_t len) {
  for (uint32_t i = 0; i < (len + 3) / 4; i++) w[i] = (int32_t)__builtin_bswap32((uint32_t)w[i]);
}
#else
#define VM_LE_BYTE 0u
#endif

/*@ requires \valid_read(b + (0 .. 1));
    assigns \nothing; */
static inline uint32_t vm_rd16(const uint8_t *b) { return (uint32_t)b[0] | (uint32_t)b[1] << 8; }
/*@ requires \valid_read(b + (0 .. 3));
    assigns \nothing; */
static inline uint32_t vm_rd32(const uint8_t *b) {
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/*@ // What the interpreter needs of a program: every region valid, within the format's limits,
    // and apart from each other and from the program record.
    predicate vm_prog_ok(struct vm_program *p) =
      \valid(p) &&
      0 < p->code_size <= VM_MAX_CODE && p->ntrig <= VM_MAX_TRIGGERS &&
      p->data_words <= VM_MAX_DATA && p->stack_words <= VM_STACK_MAX &&
      \valid_read(p->code + (0 .. p->code_size - 1)) &&
      \valid_read(p->trig + (0 .. 2 * p->ntrig - 1)) &&
      \valid(p->data + (0 .. p->data_words - 1)) &&
      \valid(p->stack + (0 .. p->stack_words - 1)) &&
      \separated(p, p->code + (0 .. p->code_size - 1), p->trig + (0 .. 2 * p->ntrig - 1),
                 p->data + (0 .. p->data_words - 1), p->stack + (0 .. p->stack_words - 1)) &&
      \separated(p->data + (0 .. p->data_words - 1), p->stack + (0 .. p->stack_words - 1),
                 p->code + (0 .. p->code_size - 1), p->trig + (0 .. 2 * p->ntrig - 1));

    // A triggering message, apart from the program.
    predicate vm_msg_ok(struct vm_msg *m, struct vm_program *p) =
      \valid_read(m) && \valid_read(m->payload + (0 .. m->len - 1)) &&
      \separated(m, p, p->data + (0 .. p->data_words - 1), p->stack + (0 .. p->stack_words - 1));
*/

/* Verifies p->code against p->data_words and the declared stack depth; scratch holds
 * 2 * code_size uint16 entries. Offsets in diag are code offsets. */
/*@ requires \valid_read(p) && \valid(d);
    requires max_stack <= VM_STACK_MAX && p->ntrig <= VM_MAX_TRIGGERS;
    requires \valid_read(p->code + (0 .. p->code_size - 1));
    requires \valid_read(p->trig + (0 .. 2 * p->ntrig - 1));
    requires \valid(scratch + (0 .. 2 * p->code_size - 1));
    requires \separated(scratch + (0 .. 2 * p->code_size - 1), d, p,
                        p->code + (0 .. p->code_size - 1), p->trig + (0 .. 2 * p->ntrig - 1));
    requires \separated(d, p, p->code + (0 .. p->code_size - 1),
                        p->trig + (0 .. 2 * p->ntrig - 1));
    assigns scratch[0 .. 2 * p->code_size - 1], *d;
*/
bool vm_verify(const struct vm_program *p, uint32_t max_stack, uint16_t *scratch,
               struct vm_diag *d);

/* Executes from pc until AWAIT, STOP, a fault, or budget instructions have run. */
/*@ requires vm_prog_ok(p) && vm_msg_ok(m, p) && \valid_read(s);
    assigns p->data[0 .. p->data_words - 1], p->stack[0 .. p->stack_words - 1],
            p->last_steps, p->aborts, p->state;
    ensures p->last_steps <= budget;
*/
enum vm_result vm_exec(struct vm_program *p, uint32_t pc, const struct vm_services *s,
                       const struct vm_msg *m, uint32_t budget);

#endif
