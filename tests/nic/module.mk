# tests/nic/module.mk: the firmware on two emulated NICs in one process (test_fw), and nicd
# as a real process driven through its windows and connection manager (test_nicd).
NIC_T     := $(B)/tests/nic
TEST_BINS += $(NIC_T)/test_fw $(NIC_T)/test_nicd
TESTS     += $(NIC_T)/test_fw $(NIC_T)/test_nicd

$(B)/san/tests/nic/%.o: INCLUDES += $(FWNIC_INC)
# Explicit objects: a pattern rule without a recipe would add no prerequisite (make -j).
NIC_T_OBJS := $(patsubst %.c,$(B)/san/%.o,$(filter-out tests/nic/fuzz_%,$(wildcard tests/nic/*.c)))
$(NIC_T_OBJS): $(FWNIC_STAMPS)

$(NIC_T)/test_fw: $(B)/san/tests/nic/test_fw.o $(B)/san/tests/nic/rawhost.o $(FWNIC_LIB_SAN) $(HW_LIB_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(filter %.o,$^) $(FWNIC_LIB_SAN) $(HW_LIB_SAN) $(HW_LDLIBS) -lrt -o $@

$(NIC_T)/test_nicd: $(B)/san/tests/nic/test_nicd.o $(B)/san/tests/nic/rawhost.o $(HW_LIB_SAN) $(NICD)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(filter %.o,$^) $(HW_LIB_SAN) $(HW_LDLIBS) -lrt -o $@

# The wire codec against the host DMA engine's checksum (tests/nic/test_fw_wire.c)
TEST_BINS += $(NIC_T)/test_fw_wire
TESTS     += $(NIC_T)/test_fw_wire
$(NIC_T)/test_fw_wire: $(B)/san/tests/nic/test_fw_wire.o $(B)/san/firmware/nic/fw_wire.o $(B)/san/hw/cksum.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $^ -lcmocka -o $@

# libFuzzer: arbitrary bytes through the link frame parser (hw/link.c) and the wire codec the
# firmware runs (fw_wire_decode, the trailer check, re-encoding); seeds in
# tests/fuzz/corpus/fuzz_wire/.
FUZZ_BINS += $(B)/fuzz/fuzz_wire
$(B)/fuzz/fuzz_wire: tests/nic/fuzz_wire.c firmware/nic/fw_wire.c hw/link.c hw/crc32.c $(wildcard firmware/nic/fw_wire.h hw/link.h hw/crc32.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Ifirmware/nic -Ihw -o $@ tests/nic/fuzz_wire.c firmware/nic/fw_wire.c hw/link.c hw/crc32.c -lz

# Reliable Delivery's retransmission in the real firmware over a faulty in-memory fabric
# (tests/nic/test_reliab.c).
TEST_BINS += $(NIC_T)/test_reliab
TESTS     += $(NIC_T)/test_reliab
$(NIC_T)/test_reliab: $(B)/san/tests/nic/test_reliab.o $(B)/san/tests/nic/rawhost.o $(FWNIC_LIB_SAN) $(HW_LIB_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(filter %.o,$^) $(FWNIC_LIB_SAN) $(HW_LIB_SAN) $(HW_LDLIBS) -lrt -o $@
