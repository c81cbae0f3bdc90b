# tools/pdlc/module.mk: pdlc, the PDL compiler (a host tool: PDL programs to PANIC VM modules).
# The library part is shared with tests and fuzzers.
PDL_LIB_SRCS := tools/pdlc/arena.c tools/pdlc/asm.c tools/pdlc/codegen.c tools/pdlc/compile.c \
                tools/pdlc/diag.c tools/pdlc/disasm.c tools/pdlc/lex.c tools/pdlc/module.c \
                tools/pdlc/parse.c tools/pdlc/sema.c
PDL_LIB_OBJS := $(PDL_LIB_SRCS:%.c=$(B)/obj/%.o)
PDL_LIB_SAN_OBJS := $(PDL_LIB_SRCS:%.c=$(B)/san/%.o)
# Include paths are per target, so other modules' headers (esmc has a lex.h too) never mix in.
$(B)/obj/tools/pdlc/%.o $(B)/san/tools/pdlc/%.o: INCLUDES += -Itools/pdlc -Ifirmware/vm
BINS         += $(B)/bin/pdlc

$(B)/bin/pdlc: $(B)/obj/tools/pdlc/main.o $(PDL_LIB_OBJS) $(VM_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -o $@
