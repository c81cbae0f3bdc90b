# firmware/lanai/module.mk: the LANai cross-build. A freestanding runtime (rt/), crt0,
# `make firmware-lanai` (linked by the host tool lanai-ld, tools/lanai-ld/module.mk), and the
# runtime's tests.
#
# Firmware modules add their sources to LANAI_SRCS (and include flags to LANAI_INCLUDES);
# every listed .c/.S is compiled for LANai, merged with `ld.lld -r` and linked by lanai-ld
# into build/lanai/firmware.img (+ .map, .elf, and the size table in .sizes).

LANAI_CC       := clang
# LanaiMemAluCombiner in clang 14 folds `add %r, k, %r` into a following load that has its
# own offset (`add %r3, 1, %r3; uld.b 1[%r3]` becomes `uld.b [++%r3]`, losing the offset):
# wrong code, found running the PANIC VM on the ISS (tests/iss). The pass stays off.
LANAI_CFLAGS   := --target=lanai -ffreestanding -O2 -std=c11 \
                  -mllvm -disable-lanai-mem-alu-combiner $(WARN)
LANAI_INCLUDES += -Ifirmware/lanai/rt
LANAI_OUT      := $(B)/lanai
LANAI_RT_SRCS  := $(sort $(wildcard firmware/lanai/rt/*.c))
LANAI_SRCS     += firmware/lanai/crt0.S $(LANAI_RT_SRCS) firmware/lanai/demo_main.c
# SRAM for image + stack, from address 0; the rest of the 2 MiB is left to buffers.
LANAI_BUDGET   ?= 0x100000
LANAI_STACK    ?= 0x4000

# --- make firmware-lanai ------------------------------------------------------------------
# Modules included after this one still append to LANAI_SRCS, and prerequisite lists are
# expanded as they are read; so the image is built by a sub-make that receives the finished
# list on its command line (which also makes later `+=` to it no-ops there).
firmware-lanai: $(LANAI_LD)
	@$(MAKE) --no-print-directory LANAI_SRCS="$(strip $(LANAI_SRCS))" lanai-image

LANAI_OBJS = $(patsubst %,$(LANAI_OUT)/obj/%.o,$(basename $(LANAI_SRCS)))

.PHONY: lanai-image lanai-force
lanai-image: $(LANAI_OUT)/firmware.img
	@echo "LANai image $< (map $(LANAI_OUT)/firmware.map, ELF $(LANAI_OUT)/firmware.elf):"
	@cat $(LANAI_OUT)/firmware.sizes

$(LANAI_OUT)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(LANAI_CC) $(LANAI_CFLAGS) $(LANAI_INCLUDES) $(INCLUDES) -MMD -MP -c $< -o $@

$(LANAI_OUT)/obj/%.o: %.S
	@mkdir -p $(dir $@)
	$(LANAI_CC) $(LANAI_CFLAGS) $(LANAI_INCLUDES) -MMD -MP -c $< -o $@

# Relink when the list of objects changes, not only when one of them does.
$(LANAI_OUT)/objects.list: lanai-force
	@mkdir -p $(dir $@)
	@echo '$(LANAI_OBJS)' | cmp -s - $@ || echo '$(LANAI_OBJS)' > $@

$(LANAI_OUT)/firmware.o: $(LANAI_OBJS) $(LANAI_OUT)/objects.list
	ld.lld -r $(LANAI_OBJS) -o $@

$(LANAI_OUT)/firmware.img: $(LANAI_OUT)/firmware.o $(LANAI_LD)
	$(LANAI_LD) --budget $(LANAI_BUDGET) --stack $(LANAI_STACK) -o $@ \
	  --map $(LANAI_OUT)/firmware.map --elf $(LANAI_OUT)/firmware.elf $< \
	  > $(LANAI_OUT)/firmware.sizes

# --- tests --------------------------------------------------------------------------------
LANAI_T := $(B)/tests/lanai
TEST_BINS += $(LANAI_T)/test_rt
TESTS     += $(LANAI_T)/test_rt tests/lanai/lanai-image.sh

# The runtime is built natively (renamed, see rt.h) and checked against the C operators;
# keep gcc from turning its loops back into calls to the libc functions under test.
$(B)/san/firmware/lanai/rt/%.o: CFLAGS += -ffreestanding -fno-tree-loop-distribute-patterns
$(B)/san/tests/lanai/test_rt.o: INCLUDES += -Ifirmware/lanai/rt

$(LANAI_T)/test_rt: $(B)/san/tests/lanai/test_rt.o $(LANAI_RT_SRCS:%.c=$(B)/san/%.o)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $^ -o $@
