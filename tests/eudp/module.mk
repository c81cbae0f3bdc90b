# tests/eudp: E-UDP datagram endpoints (host/eudp) end to end over a private nicd.
EUDP_T := $(B)/tests/eudp
$(B)/obj/tests/eudp/%.o $(B)/san/tests/eudp/%.o: INCLUDES += $(EUDP_INCLUDES)

TEST_BINS += $(EUDP_T)/test_eudp
TESTS     += $(EUDP_T)/test_eudp
$(EUDP_T)/test_eudp: $(B)/san/tests/eudp/test_eudp.o $(NICD_RUN_OBJ_SAN) $(EUDP_LIB_SAN) $(NICD)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(filter %.o,$^) $(EUDP_LIB_SAN) -lpthread -o $@

# Unmodified programs' UDP over E-UDP through the shim (python, socat, iperf3 -u, sockperf,
# dig and drill against dnsmasq, and dgram_fd: dup and sendmmsg/recvmmsg from C; not
# sanitized, as ASan must come before the preloaded shim).
TESTS += tests/eudp/apps.sh
TEST_BINS += $(EUDP_T)/dgram_fd
tests/eudp/apps.sh: $(SOVIA_PRELOAD) $(NICD) $(EUDP_T)/dgram_fd
$(EUDP_T)/dgram_fd: $(B)/obj/tests/eudp/dgram_fd.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -o $@

# make bench-eudp: E-UDP beside kernel UDP, latency and bandwidth vs datagram size (optimized
# build, not part of make test). EUDP_PROFILE=hw/profiles/eudp-lanai9-pci32.prof: the LANai
# firmware in nicd's timing mode, virtual time, beside the E-UDP paper's Figs. 10-11.
.PHONY: bench-eudp
bench-eudp: $(EUDP_T)/bench_eudp $(NICD) $(if $(EUDP_PROFILE),firmware-lanai)
	VERINIC_TIMING=$(EUDP_PROFILE) $(EUDP_T)/bench_eudp
$(EUDP_T)/bench_eudp: $(B)/obj/tests/eudp/bench_eudp.o $(B)/obj/tests/timing/eudp_model.o $(NICD_RUN_OBJ) $(EUDP_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(filter %.o,$^) $(EUDP_LIB) -lpthread -o $@
