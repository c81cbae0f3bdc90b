# tests/eudp: E-UDP datagram endpoints (host/eudp) end to end over a private nicd.
EUDP_T := $(B)/tests/eudp
$(B)/obj/tests/eudp/%.o $(B)/san/tests/eudp/%.o: INCLUDES += $(EUDP_INCLUDES)

TEST_BINS += $(EUDP_T)/test_eudp
TESTS     += $(EUDP_T)/test_eudp
$(EUDP_T)/test_eudp: $(B)/san/tests/eudp/test_eudp.o $(NICD_RUN_OBJ_SAN) $(EUDP_LIB_SAN) $(NICD)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(filter %.o,$^) $(EUDP_LIB_SAN) -lpthread -o $@

# Unmodified programs' UDP over E-UDP through the shim (python, socat, iperf3 -u, sockperf).
TESTS += tests/eudp/apps.sh
tests/eudp/apps.sh: $(SOVIA_PRELOAD) $(NICD)
