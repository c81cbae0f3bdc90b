# hw/module.mk: the emulated NIC hardware library (SRAM, registers, DMA engines, timers, the
# shared memory window, fabrics, link and wire formats), its tests and its fuzz target.
HW_SRCS     := $(sort $(wildcard hw/*.c))
HW_OBJS     := $(HW_SRCS:%.c=$(B)/obj/%.o)
HW_SAN_OBJS := $(HW_SRCS:%.c=$(B)/san/%.o)
HW_LIB      := $(B)/lib/libhw.a
HW_LIB_SAN  := $(B)/san/lib/libhw.a
BINS        += $(HW_LIB)

$(HW_LIB): $(HW_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(HW_LIB_SAN): $(HW_SAN_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# --- tests --------------------------------------------------------------------------------
HW_T      := $(B)/tests/hw
HW_TESTS  := test_cksum test_wire test_fabric test_nic test_hdma test_linkdma test_window
TEST_BINS += $(HW_TESTS:%=$(HW_T)/%)
TESTS     += $(HW_TESTS:%=$(HW_T)/%)


$(HW_T)/%: $(B)/san/tests/hw/%.o $(B)/san/tests/hw/hwtest.o $(HW_LIB_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(filter %.o,$^) $(HW_LIB_SAN) -lcmocka -o $@

# --- fuzz ---------------------------------------------------------------------------------
HW_FUZZ   := $(B)/fuzz/fuzz_hw_wire
FUZZ_BINS += $(HW_FUZZ)
HW_FUZZ_SRCS := hw/wire.c hw/link.c hw/cksum.c hw/crc32.c
$(HW_FUZZ): tests/hw/fuzz_hw_wire.c $(HW_FUZZ_SRCS) $(wildcard hw/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Ihw -o $@ tests/hw/fuzz_hw_wire.c $(HW_FUZZ_SRCS)
