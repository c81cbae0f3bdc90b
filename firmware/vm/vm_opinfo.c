/* Opcode descriptions and name tables, expanded from vm_ops.h and vm_format.h. */
#include "vm_internal.h"
#include "vm_ops.h"

const struct vm_opinfo vm_optab[256] = {
#define VM_OP_INFO(n, c, o, p, q) [c] = {1, o, p, q},
    VM_OP_TABLE(VM_OP_INFO)
#undef VM_OP_INFO
};

static const char *const err_names[VM_ERR_COUNT] = {
#define VM_ERR_NAME(n, s) s,
    VM_ERR_TABLE(VM_ERR_NAME)
#undef VM_ERR_NAME
};

const char *vm_err_name(enum vm_err e) {
  return (unsigned)e < VM_ERR_COUNT ? err_names[e] : "unknown";
}

const char *vm_result_name(enum vm_result r) {
  switch (r) {
  case VM_R_AWAIT: return "await";
  case VM_R_STOP: return "stop";
  case VM_R_BUDGET: return "budget";
  case VM_R_FAULT_BOUNDS: return "fault-bounds";
  case VM_R_FAULT_DIV: return "fault-div";
  case VM_R_FAULT_SERVICE: return "fault-service";
  case VM_R_FAULT_INTERNAL: return "fault-internal";
  case VM_R_NO_TRIGGER: return "no-trigger";
  case VM_R_NOT_READY: return "not-ready";
  }
  return "unknown";
}
