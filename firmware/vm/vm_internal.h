/* Shared between the loader, verifier and interpreter; not part of the embedder interface. */
#ifndef VM_INTERNAL_H
#define VM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "vm.h"

struct vm_opinfo {
  uint8_t valid, operand_bytes, pops, pushes;
};

const struct vm_opinfo *vm_opinfo(uint8_t op);

static inline uint32_t vm_rd16(const uint8_t *b) { return (uint32_t)b[0] | (uint32_t)b[1] << 8; }
static inline uint32_t vm_rd32(const uint8_t *b) {
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* Verifies p->code against p->data_words and the declared stack depth; scratch holds
 * 2 * code_size uint16 entries. Offsets in diag are code offsets. */
bool vm_verify(const struct vm_program *p, uint32_t max_stack, uint16_t *scratch,
               struct vm_diag *diag);

/* Executes from pc until AWAIT, STOP, a fault, or budget instructions have run. */
enum vm_result vm_exec(struct vm_program *p, uint32_t pc, const struct vm_services *s,
                       const struct vm_msg *m, uint32_t budget);

#endif
