# tests/iface: the shared contracts of iface/ (wait/wake protocol, naming, host memory; the
# window's tests are tests/hw/test_window, as they need a NIC to map).
IFACE_T     := $(B)/tests/iface
IFACE_TESTS := test_wait
TEST_BINS   += $(IFACE_TESTS:%=$(IFACE_T)/%)
TESTS       += $(IFACE_TESTS:%=$(IFACE_T)/%)

$(IFACE_T)/test_wait: $(B)/san/tests/iface/test_wait.o $(B)/san/tests/hw/hwtest.o $(HW_LIB_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(filter %.o,$^) $(HW_LIB_SAN) $(HW_LDLIBS) -lcmocka -lpthread -o $@

IFACE_TESTS += test_naming
TEST_BINS   += $(IFACE_T)/test_naming
TESTS       += $(IFACE_T)/test_naming
$(IFACE_T)/test_naming: $(B)/san/tests/iface/test_naming.o $(B)/san/iface/naming.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $^ -lcmocka -o $@

# libFuzzer: the hosts file parser; seeds in tests/fuzz/corpus/fuzz_naming/.
FUZZ_BINS += $(B)/fuzz/fuzz_naming
$(B)/fuzz/fuzz_naming: tests/iface/fuzz_naming.c iface/naming.c iface/naming.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ tests/iface/fuzz_naming.c iface/naming.c

IFACE_TESTS += test_hostmem
TEST_BINS   += $(IFACE_T)/test_hostmem
TESTS       += $(IFACE_T)/test_hostmem
$(IFACE_T)/test_hostmem: $(B)/san/tests/iface/test_hostmem.o $(B)/san/iface/hostmem.o $(B)/san/iface/futex.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $^ -lcmocka -lrt -o $@
