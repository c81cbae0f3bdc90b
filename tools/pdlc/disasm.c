/* Module disassembler for `pdlc --dump` and for reading test failures. */
#include <ctype.h>

#include "pdlc.h"
#include "vm_internal.h"
#include "vm_ops.h"

static const char *mnemonic(uint8_t op) {
  switch (op) {
#define DIS_MN(n, c, o, p, q) case c: return #n;
    VM_OP_TABLE(DIS_MN)
#undef DIS_MN
  }
  return NULL;
}

static void print_insn(const uint8_t *code, uint32_t n, uint32_t pc, FILE *out) {
  const struct vm_opinfo *oi = vm_opinfo(code[pc]);
  fprintf(out, "  %04x  ", pc);
  for (const char *m = mnemonic(code[pc]); *m; m++) fputc(tolower((unsigned char)*m), out);
  for (uint32_t k = 0; k < oi->operand_bytes / 4u; k++)
    fprintf(out, " %d", (int32_t)vm_rd32(code + pc + 1 + 4 * k));
  if (VM_OP_IS_JUMP(code[pc])) /* the displacement is the last operand */
    fprintf(out, "  ; -> %04llx",
            (unsigned long long)((int64_t)pc + 1 + oi->operand_bytes +
                                 (int32_t)vm_rd32(code + pc + oi->operand_bytes - 3)));
  (void)n;
  fputc('\n', out);
}

int pdlc_disasm(const uint8_t *img, size_t len, FILE *out) {
  if (len < VM_HDR_SIZE) return fprintf(out, "truncated header\n"), 1;
  uint32_t ntrig = vm_rd16(img + VM_H_NTRIG), code_size = vm_rd32(img + VM_H_CODE_SIZE);
  size_t code_off = VM_HDR_SIZE + (size_t)ntrig * VM_TRIG_SIZE;
  if (len < code_off + code_size) return fprintf(out, "truncated module\n"), 1;
  fprintf(out, "module '%.16s' version %u: code %u bytes, data %u words, stack %u, init %04x\n",
          (const char *)img + VM_H_NAME, vm_rd16(img + VM_H_VERSION), code_size,
          vm_rd32(img + VM_H_DATA_WORDS), vm_rd16(img + VM_H_MAX_STACK),
          vm_rd32(img + VM_H_INIT_OFF));
  for (uint32_t i = 0; i < ntrig; i++)
    fprintf(out, "  trigger %u -> %04x\n", vm_rd32(img + VM_HDR_SIZE + 8 * i),
            vm_rd32(img + VM_HDR_SIZE + 8 * i + 4));
  const uint8_t *code = img + code_off;
  for (uint32_t pc = 0; pc < code_size;) {
    const struct vm_opinfo *oi = vm_opinfo(code[pc]);
    if (!oi->valid || oi->operand_bytes >= code_size - pc) {
      fprintf(out, "  %04x  .byte %u\n", pc, code[pc]);
      pc++;
      continue;
    }
    print_insn(code, code_size, pc, out);
    pc += 1u + oi->operand_bytes;
  }
  return 0;
}
