# tests/nic/module.mk: the firmware on two emulated NICs in one process (test_fw), and nicd
# as a real process driven through its windows and connection manager (test_nicd).
NIC_T     := $(B)/tests/nic
TEST_BINS += $(NIC_T)/test_fw $(NIC_T)/test_nicd
TESTS     += $(NIC_T)/test_fw $(NIC_T)/test_nicd

$(B)/san/tests/nic/%.o: INCLUDES += $(FWNIC_INC)
$(B)/san/tests/nic/%.o: $(DATAPATH_GEN)/.stamp

$(NIC_T)/test_fw: $(B)/san/tests/nic/test_fw.o $(B)/san/tests/nic/rawhost.o $(FWNIC_LIB_SAN) $(HW_LIB_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(filter %.o,$^) $(FWNIC_LIB_SAN) $(HW_LIB_SAN) -lrt -o $@

$(NIC_T)/test_nicd: $(B)/san/tests/nic/test_nicd.o $(B)/san/tests/nic/rawhost.o $(HW_LIB_SAN) $(NICD)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(filter %.o,$^) $(HW_LIB_SAN) -lrt -o $@
