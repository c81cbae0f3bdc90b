/* PANIC VM public interface: load a module into caller-provided memory, run its initial block,
 * dispatch triggers to it. Freestanding C11: no allocation, no libc. */
#ifndef VM_H
#define VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vm_format.h"

/* NIC services the embedder supplies. A non-zero return from send/deliver/get, or a NULL
 * pointer for a service the program uses, aborts the activation with VM_R_FAULT_SERVICE.
 * Data pointers are into the program's data section; the VM has checked [data, data+len). */
struct vm_services {
  void *ctx;
  int (*send)(void *ctx, const uint8_t *data, uint32_t len, uint32_t trigger, uint32_t program,
              uint64_t addr);
  void (*await)(void *ctx);
  int (*deliver)(void *ctx, const uint8_t *data, uint32_t len, uint32_t segment, uint32_t offset);
  int (*get)(void *ctx, uint8_t *data, uint32_t len, uint32_t segment, uint32_t offset);
  uint32_t (*clock)(void *ctx);
  void (*display)(void *ctx, int32_t value);
};

enum vm_result {
  VM_R_AWAIT,          /* handler ended in AWAIT: program waits for its next trigger */
  VM_R_STOP,           /* program executed STOP: it takes no more triggers */
  VM_R_BUDGET,         /* instruction budget exhausted: handler aborted */
  VM_R_FAULT_BOUNDS,   /* index or byte range outside its variable / the message */
  VM_R_FAULT_DIV,      /* division or modulo by zero */
  VM_R_FAULT_SERVICE,  /* a NIC service failed or is missing */
  VM_R_FAULT_INTERNAL, /* defensive check tripped: cannot happen for verified code */
  VM_R_NO_TRIGGER,     /* the program declares no block for this message number */
  VM_R_NOT_READY       /* program not loaded, already started, or stopped */
};

enum vm_state { VM_PS_EMPTY, VM_PS_LOADED, VM_PS_WAITING, VM_PS_STOPPED };

/* A loaded program. All pointers point into the region given to vm_load. */
struct vm_program {
  const uint8_t *code;
  uint32_t code_size;
  const uint32_t *trig; /* ntrig pairs (message number, code offset), ascending */
  uint32_t ntrig;
  int32_t *data;
  uint32_t data_words;
  int32_t *stack;
  uint32_t stack_words;
  uint32_t init_off;
  enum vm_state state;
  uint32_t aborts;     /* activations ended by budget or fault, for the dispatcher's policy */
  uint32_t last_steps; /* instructions executed by the last activation */
  char name[VM_NAME_LEN + 1];
};

/* The message that triggered an activation (RECV and MSGLEN read it). */
struct vm_msg {
  const uint8_t *payload;
  uint32_t len;
};

/* Bytes of program memory vm_load needs for this image, or 0 if the header is unusable. */
size_t vm_mem_needed(const uint8_t *img, size_t len);

/* Validates and verifies img, placing code, trigger table, data and stack in mem.
 * The copy in mem is what gets verified, so img may live in memory the host can still change. */
bool vm_load(struct vm_program *p, const uint8_t *img, size_t len, void *mem, size_t mem_size,
             struct vm_diag *diag);

enum vm_result vm_start(struct vm_program *p, const struct vm_services *s, uint32_t budget);
enum vm_result vm_dispatch(struct vm_program *p, uint32_t trigger, const struct vm_msg *m,
                           const struct vm_services *s, uint32_t budget);

const char *vm_result_name(enum vm_result r);

#endif
