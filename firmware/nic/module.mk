# firmware/nic/module.mk: the NIC firmware runtime (dispatcher, data path HAL, NIC-side VIA,
# board HALs). The freestanding core, the generated data path machines (gen/tigon: the
# machines of esm/machines with the per-processor dispatchers of esm/tigon's partition) and
# Reliable Delivery's machines (gen/reliab, esm/reliab/module.mk) go
# into build/lib/libfwnic.a with the emulated board (for nicd and tests; sanitized copy in
# build/san/lib/libfwnic.a), and into the LANai image with the LANai board and main.
FWNIC_CORE    := $(sort $(wildcard firmware/nic/fw_*.c))
FWNIC_EMU     := firmware/nic/board_emu.c
FWNIC_VM      := $(sort $(wildcard firmware/vm/*.c))   # the PANIC VM (firmware/vm/module.mk)
FWNIC_INC     := -Ifirmware/nic -Ifirmware/vm -I$(TIGON_GEN) -I$(RELIAB_GEN)
FWNIC_GEN_C   := $(TIGON_C) $(RELIAB_C)
FWNIC_STAMPS  := $(TIGON_GEN)/.stamp $(RELIAB_GEN)/.stamp   # what FWNIC_INC's users wait for
FWNIC_OBJS    := $(patsubst %.c,$(B)/obj/%.o,$(FWNIC_CORE) $(FWNIC_EMU) $(FWNIC_GEN_C) $(FWNIC_VM))
FWNIC_SAN_OBJS := $(patsubst %.c,$(B)/san/%.o,$(FWNIC_CORE) $(FWNIC_EMU) $(FWNIC_GEN_C) $(FWNIC_VM))
FWNIC_LIB     := $(B)/lib/libfwnic.a
FWNIC_LIB_SAN := $(B)/san/lib/libfwnic.a
BINS          += $(FWNIC_LIB)

$(B)/obj/firmware/nic/%.o $(B)/san/firmware/nic/%.o: INCLUDES += $(FWNIC_INC)
$(B)/obj/gen/tigon/%.o $(B)/san/gen/tigon/%.o: INCLUDES += -I$(TIGON_GEN)
$(patsubst %.c,$(B)/obj/%.o,$(FWNIC_CORE) $(RELIAB_C)) $(patsubst %.c,$(B)/san/%.o,$(FWNIC_CORE) $(RELIAB_C)): \
  CFLAGS += -ffreestanding
$(FWNIC_OBJS) $(FWNIC_SAN_OBJS): $(FWNIC_STAMPS)

$(FWNIC_LIB): $(FWNIC_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(FWNIC_LIB_SAN): $(FWNIC_SAN_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# The LANai image: this firmware replaces the cross-build's demo main.
FWNIC_LANAI   := $(FWNIC_CORE) firmware/nic/board_lanai.c firmware/nic/lanai_main.c firmware/nic/lanai_cpu1.S
# Two stacks of 16 KiB at the top of the budget: processor 0's (crt0), then processor 1's
# (lanai_cpu1.S) on a two-processor card.
LANAI_STACK   := 0x8000
LANAI_SRCS    := $(filter-out firmware/lanai/demo_main.c,$(LANAI_SRCS)) $(FWNIC_LANAI) $(FWNIC_GEN_C)
LANAI_INCLUDES += $(FWNIC_INC)
$(patsubst %.c,$(B)/lanai/obj/%.o,$(FWNIC_LANAI) $(FWNIC_GEN_C)): $(FWNIC_STAMPS)
# The whole image lies below 2 MiB (LANAI_BUDGET), so globals are reached with one absolute
# 21-bit access (R_LANAI_21) instead of a hi/lo pair.
$(patsubst %.c,$(B)/lanai/obj/%.o,$(FWNIC_LANAI) $(FWNIC_GEN_C)): LANAI_CFLAGS += -mcmodel=small
# clang 14's peephole pass turns `and.uge` + `sub.f` in reliab_step's round-robin into one
# predicated `and.f.uge`, assuming the flags are set even when the condition is false; the ISS
# (like the ISA notes, firmware/lanai) leaves them alone then, so the Receiver's `when` never ran.
# tests/iss/progs/reliab.c catches it.
$(patsubst %.c,$(B)/lanai/obj/%.o,$(RELIAB_C)): LANAI_CFLAGS += -mllvm -disable-peephole
