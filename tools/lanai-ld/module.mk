# tools/lanai-ld/module.mk: lanai-ld, the image linker for the LANai firmware (a host tool,
# build/bin/lanai-ld; tools/lanai-ld/README.md). `make firmware-lanai` (firmware/lanai/module.mk)
# links with it. Its tests live in tests/lanai/ (test_reloc, lanai-ld-errors.sh, the fuzz target).
LANAI_LD_SRCS  := $(sort $(wildcard tools/lanai-ld/*.c))
LANAI_LD_LIB   := $(filter-out tools/lanai-ld/main.c,$(LANAI_LD_SRCS))
LANAI_LD       := $(B)/bin/lanai-ld
LANAI_LD_SAN   := $(B)/san/bin/lanai-ld
BINS           += $(LANAI_LD)
TEST_BINS      += $(LANAI_LD_SAN)

$(LANAI_LD): $(LANAI_LD_SRCS:%.c=$(B)/obj/%.o)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^

$(LANAI_LD_SAN): $(LANAI_LD_SRCS:%.c=$(B)/san/%.o)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^

# --- tests --------------------------------------------------------------------------------
LANAI_LD_T := $(B)/tests/lanai
TEST_BINS  += $(LANAI_LD_T)/test_reloc
TESTS      += $(LANAI_LD_T)/test_reloc tests/lanai/lanai-ld-errors.sh

$(B)/san/tests/lanai/test_reloc.o: INCLUDES += -Itools/lanai-ld
$(LANAI_LD_T)/test_reloc: $(B)/san/tests/lanai/test_reloc.o $(B)/san/tools/lanai-ld/reloc.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $^ -lcmocka -o $@

# libFuzzer: arbitrary bytes as an input object through the whole link and the writers.
LANAI_FUZZ := $(B)/fuzz/fuzz_lanai_ld
FUZZ_BINS  += $(LANAI_FUZZ)
$(LANAI_FUZZ): tests/lanai/fuzz_lanai_ld.c $(LANAI_LD_LIB) $(wildcard tools/lanai-ld/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Itools/lanai-ld -o $@ tests/lanai/fuzz_lanai_ld.c $(LANAI_LD_LIB)
