# tests/udpfab/module.mk: the UDP fabric (hw/udpfab.c, udpwire.c, udpfault.c) with real sockets
# on loopback, and the libFuzzer target of its datagram checks (seeds in
# tests/fuzz/corpus/fuzz_udpwire/).
UDPFAB_T := $(B)/tests/udpfab
TEST_BINS += $(UDPFAB_T)/test_udpfab
TESTS     += $(UDPFAB_T)/test_udpfab

$(UDPFAB_T)/test_udpfab: $(B)/san/tests/udpfab/test_udpfab.o $(HW_LIB_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(filter %.o,$^) $(HW_LIB_SAN) $(HW_LDLIBS) -lcmocka -o $@

FUZZ_BINS += $(B)/fuzz/fuzz_udpwire
$(B)/fuzz/fuzz_udpwire: tests/udpfab/fuzz_udpwire.c hw/udpwire.c hw/udpwire.h hw/link.c hw/crc32.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ tests/udpfab/fuzz_udpwire.c hw/udpwire.c hw/link.c hw/crc32.c -lz
