# hw/module.mk: the emulated NIC hardware library (SRAM, registers, DMA engines, timers, the
# shared memory window, fabrics, link frames) and its tests. The message format inside link
# frames is the firmware's (firmware/nic/fw_wire.c, WIRE.md).
HW_SRCS     := $(sort $(wildcard hw/*.c))
HW_OBJS     := $(HW_SRCS:%.c=$(B)/obj/%.o)
HW_SAN_OBJS := $(HW_SRCS:%.c=$(B)/san/%.o)
HW_LIB      := $(B)/lib/libhw.a
HW_LIB_SAN  := $(B)/san/lib/libhw.a
BINS        += $(HW_LIB)
# What a program linking libhw links besides: zlib for the link CRC (crc32.c).
HW_LDLIBS   := -lz

$(HW_LIB): $(HW_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(HW_LIB_SAN): $(HW_SAN_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# --- tests --------------------------------------------------------------------------------
HW_T      := $(B)/tests/hw
HW_TESTS  := test_cksum test_wire test_fabric test_nic test_hdma test_linkdma test_window test_cpus
TEST_BINS += $(HW_TESTS:%=$(HW_T)/%)
TESTS     += $(HW_TESTS:%=$(HW_T)/%)


$(HW_T)/%: $(B)/san/tests/hw/%.o $(B)/san/tests/hw/hwtest.o $(HW_LIB_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(filter %.o,$^) $(HW_LIB_SAN) $(HW_LDLIBS) -lcmocka -o $@

