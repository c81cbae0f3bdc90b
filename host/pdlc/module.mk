# pdlc, the PDL compiler (host tool). The library part is shared with tests and fuzzers.
PDL_LIB_SRCS := host/pdlc/arena.c host/pdlc/asm.c host/pdlc/codegen.c host/pdlc/compile.c \
                host/pdlc/diag.c host/pdlc/disasm.c host/pdlc/lex.c host/pdlc/module.c \
                host/pdlc/parse.c host/pdlc/sema.c
PDL_LIB_OBJS := $(PDL_LIB_SRCS:%.c=$(B)/obj/%.o)
PDL_LIB_SAN_OBJS := $(PDL_LIB_SRCS:%.c=$(B)/san/%.o)
# Include paths are per target, so other modules' headers (esmc has a lex.h too) never mix in.
$(B)/obj/host/pdlc/%.o $(B)/san/host/pdlc/%.o: INCLUDES += -Ihost/pdlc -Ifirmware/vm
BINS         += $(B)/bin/pdlc

$(B)/bin/pdlc: $(B)/obj/host/pdlc/main.o $(PDL_LIB_OBJS) $(VM_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -o $@
