# hw/lanai/module.mk: the LANai instruction-set simulator (libiss), the lanai-run host tool,
# their tests (tests/iss/), fuzz targets and the speed benchmark (bench-lanai-iss).
ISS_SRCS     := hw/lanai/iss.c hw/lanai/iss_decode.c hw/lanai/iss_exec.c \
                hw/lanai/iss_disasm.c hw/lanai/iss_image.c
ISS_LIB      := $(B)/lib/libiss.a
ISS_LIB_SAN  := $(B)/san/lib/libiss.a
LANAI_RUN    := $(B)/bin/lanai-run
LANAI_RUN_SAN := $(B)/san/bin/lanai-run
BINS         += $(ISS_LIB) $(LANAI_RUN)
TEST_BINS    += $(ISS_LIB_SAN) $(LANAI_RUN_SAN)

$(ISS_LIB): $(ISS_SRCS:%.c=$(B)/obj/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(ISS_LIB_SAN): $(ISS_SRCS:%.c=$(B)/san/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LANAI_RUN): $(B)/obj/hw/lanai/lanai_run.o $(ISS_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -o $@

$(LANAI_RUN_SAN): $(B)/san/hw/lanai/lanai_run.o $(ISS_LIB_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $^ -o $@
