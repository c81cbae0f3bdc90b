/* iss.h: the LANai instruction-set simulator: the processor of one emulated NIC, executing a
 * firmware image out of that NIC's SRAM (big-endian, as on a LANai card; LANAI-ISA.md) with
 * the register page at the top of the address space delegated to the NIC around it (a bus).
 * One ISS per NIC; one thread drives it. The ISS never crashes on what it executes: an
 * undefined encoding, a misaligned access or an address outside SRAM and the register page
 * stops it in a named fault with the faulting pc.
 *
 * Driving it (nicd, tests):
 *   struct iss *c = iss_new(sram, sram_size, &bus);   iss_reset(c);   copy the image to SRAM 0
 *   for (;;) switch (iss_run(c, budget)) { YIELD: wait for hardware; FAULT: report; ... }
 */
#ifndef ISS_H
#define ISS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "window.h" /* HW_CPU_FAULTS */

#define ISS_REG_BASE 0xfffffe00u /* the register page (firmware/nic/board_lanai.c) */
#define ISS_REG_SIZE 0x200u
#define ISS_NCLASS   8u          /* event classes instructions and cycles are charged to */

/* Why the processor stopped: the codes and names the NIC window publishes (cpu.fault,
 * HW_CPU_FAULTS in iface/window.h), which nicstat prints. */
enum iss_fault {
  ISS_FAULT_NONE = HW_CPU_FAULT_NONE,
  ISS_FAULT_UNDEFINED = HW_CPU_FAULT_UNDEFINED,   /* an instruction word the ISA does not define */
  ISS_FAULT_MISALIGNED = HW_CPU_FAULT_MISALIGNED, /* a fetch, load or store not aligned to its size */
  ISS_FAULT_BUS = HW_CPU_FAULT_BUS,               /* an address outside SRAM and the register page,
                                                     or a register the bus refuses (sub-word or
                                                     unknown) */
  ISS_FAULT_RUNAWAY = HW_CPU_FAULT_RUNAWAY,       /* raised by the host (iss_fault_raise): no event
                                                     handled for too long */
  ISS_FAULT_HALTED = HW_CPU_FAULT_HALTED,         /* the firmware parked in a branch to itself (main
                                                     returned) */
};
/* "undefined instruction", ...: a name for messages and nicstat. */
const char *iss_fault_name(enum iss_fault f);

/* The NIC around the processor. off = address - ISS_REG_BASE, a multiple of 4 below
 * ISS_REG_SIZE (other accesses to the page fault before reaching the bus). false: no such
 * register (the ISS faults with ISS_FAULT_BUS). A callback may call iss_yield or
 * iss_set_class on the ISS. */
struct iss_bus {
  void *ctx;
  bool (*read)(void *ctx, uint32_t off, uint32_t *val);
  bool (*write)(void *ctx, uint32_t off, uint32_t val);
};

enum iss_stop {
  ISS_STOP_BUDGET,       /* max_insns executed */
  ISS_STOP_YIELD,        /* a bus callback called iss_yield */
  ISS_STOP_FAULT,        /* faulted (iss_state gives the fault, pc and address); stays so until
                            iss_reset */
};

/* Deterministic counters (hw/lanai/README.md documents the cycle model). */
struct iss_stats {
  uint64_t insns, cycles;
  uint64_t class_insns[ISS_NCLASS], class_cycles[ISS_NCLASS];
  uint64_t loads, stores, reg_reads, reg_writes, taken_jumps, interlocks;
};

struct iss_state {
  uint32_t pc;           /* the next instruction to execute (the faulting one after a fault) */
  uint32_t r[32];        /* r0..r31 as the program sees them (r2 = pc) */
  uint32_t sw;           /* status word: flags N Z V C */
  enum iss_fault fault;
  uint32_t fault_addr;   /* the data address of a bus or alignment fault, else 0 */
  uint32_t fault_word;   /* the instruction word at pc (0 if pc itself was unreadable) */
};

struct iss;

/* An ISS over sram[0 .. sram_size) (sram_size a multiple of 4, at most 256 MiB); NULL if out of
 * memory. The bus is copied. */
struct iss *iss_new(uint8_t *sram, uint32_t sram_size, const struct iss_bus *bus);
void iss_free(struct iss *c);
/* Hold in reset: registers and flags zero, pc 0, no fault, counters kept, decoded
 * instructions dropped (load the image after this). */
void iss_reset(struct iss *c);
/* After iss_reset: start at pc instead of 0 (the reset vector of a card's second processor,
 * which shares the first one's SRAM and image). */
void iss_set_entry(struct iss *c, uint32_t pc);
/* Runs at most max_insns instructions. */
enum iss_stop iss_run(struct iss *c, uint64_t max_insns);
/* From a bus callback: stop after the current instruction. */
void iss_yield(struct iss *c);
/* Charge what follows to class k (< ISS_NCLASS) until the next call. */
void iss_set_class(struct iss *c, unsigned k);
/* Stops the processor with fault f (the host's watchdog: ISS_FAULT_RUNAWAY). */
void iss_fault_raise(struct iss *c, enum iss_fault f);
/* Someone other than the processor wrote SRAM [addr, addr + len): forget decoded instructions
 * there (a host loading code by programmed I/O; data writes need no call). */
void iss_invalidate(struct iss *c, uint32_t addr, uint32_t len);
void iss_get_state(const struct iss *c, struct iss_state *st);
const struct iss_stats *iss_stats(const struct iss *c);
/* Prints each instruction executed ("pc: word  disassembly") to f, NULL to stop. */
void iss_trace(struct iss *c, void *file);

/* One instruction word at address pc as llvm-objdump -d prints it (mnemonic and operands,
 * branch targets absolute), or "<unknown>" (return 0) for an undefined word. Returns 1. */
int iss_disasm(uint32_t word, uint32_t pc, char *buf, size_t n);

/* ---- images (iss_image.c) ---- */
/* A firmware image as `make firmware-lanai` writes it: the flat image (with its .map beside it,
 * which gives the text range and the budget) or its ELF twin. */
struct iss_image {
  uint8_t *bytes;        /* SRAM contents from address 0 (malloc'd) */
  uint32_t len;
  uint32_t text_end;     /* code is [0, text_end) */
  uint32_t budget;       /* SRAM reserved for image + stack */
};
/* 0, or -1 with a message in err ("file: not a LANai image (...)", "file: truncated ...",
 * "file: N bytes do not fit the SRAM budget ..."). sram_size bounds everything. */
int iss_image_read(const char *path, uint32_t sram_size, struct iss_image *img, char *err,
                   size_t errlen);
void iss_image_free(struct iss_image *img);

#endif
