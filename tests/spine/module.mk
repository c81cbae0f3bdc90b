# tests/spine: SPINE's IP router. test_lpm: the forwarding table and the IPv4 checks (unit);
# test_spine: the router end to end over a private nicd (spine.sh runs it on both firmwares).
SPINE_T := $(B)/tests/spine
$(B)/obj/tests/spine/%.o $(B)/san/tests/spine/%.o: INCLUDES += $(SPINE_INCLUDES) -Ifirmware/nic

SPINE_FW_UNITS := firmware/nic/fw_lpm.c firmware/nic/fw_ipv4.c firmware/nic/fw_wire.c
TEST_BINS += $(SPINE_T)/test_lpm
TESTS     += $(SPINE_T)/test_lpm
$(SPINE_T)/test_lpm: $(B)/san/tests/spine/test_lpm.o $(B)/san/host/spine/spine_lpm.o \
                     $(SPINE_FW_UNITS:%.c=$(B)/san/%.o)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $^ -o $@

TEST_BINS += $(SPINE_T)/test_spine
$(SPINE_T)/test_spine: $(B)/san/tests/spine/test_spine.o $(NICD_RUN_OBJ_SAN) $(SPINE_LIB_SAN) $(NICD) \
                      $(B)/bin/nicstat
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(filter %.o,$^) $(SPINE_LIB_SAN) -lpthread -o $@
# on both firmwares: the native one, and the LANai image (tests/common/module.mk's wrapper)
SPINE_ON_LANAI := $(call on_lanai_name,$(SPINE_T)/test_spine)
$(eval $(call on_lanai_rule,$(SPINE_T)/test_spine))
TEST_BINS += $(SPINE_ON_LANAI)
TESTS     += $(SPINE_T)/test_spine $(SPINE_ON_LANAI)

# the model of the forwarding loop (esm/spine): every property, and the seeded bugs Spin must catch
TESTS += tests/spine/verify.sh tests/spine/mutations.sh

# libFuzzer targets: the forwarding table's check, lookup and builder; the IPv4 header checks.
# Seeds in tests/fuzz/corpus/fuzz_lpm/ and fuzz_ipv4/.
FUZZ_BINS += $(B)/fuzz/fuzz_lpm $(B)/fuzz/fuzz_ipv4
$(B)/fuzz/fuzz_lpm: tests/spine/fuzz_lpm.c firmware/nic/fw_lpm.c host/spine/spine_lpm.c \
                    firmware/nic/fw_lpm.h host/spine/spine_lpm.h iface/spine_if.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Ifirmware/nic -Ihost/spine -o $@ tests/spine/fuzz_lpm.c firmware/nic/fw_lpm.c host/spine/spine_lpm.c
$(B)/fuzz/fuzz_ipv4: tests/spine/fuzz_ipv4.c firmware/nic/fw_ipv4.c firmware/nic/fw_wire.c firmware/nic/fw_ipv4.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Ifirmware/nic -o $@ tests/spine/fuzz_ipv4.c firmware/nic/fw_ipv4.c firmware/nic/fw_wire.c

# make bench-spine: the router's forwarding rate and latency, NIC (fabric, peer DMA) beside a
# host-based forwarder, native firmware in real time, then the LANai image in timing mode on the
# LANai-9 profile beside the SPINE paper's figures. A smoke run (sanitized, tiny counts) is in
# make test.
$(SPINE_T)/bench_spine: $(B)/obj/tests/spine/bench_spine.o $(NICD_RUN_OBJ) $(BENCH_STATS_OBJ) \
                        $(B)/obj/bench/summary.o $(B)/obj/firmware/nic/fw_lpm.o \
                        $(B)/obj/firmware/nic/fw_ipv4.o $(B)/obj/firmware/nic/fw_wire.o $(SPINE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(filter %.o,$^) $(SPINE_LIB) -lpthread -o $@
$(B)/san/tests/spine/bench_spine: $(B)/san/tests/spine/bench_spine.o $(NICD_RUN_OBJ_SAN) \
                        $(B)/san/bench/stats.o $(B)/san/bench/summary.o $(B)/san/firmware/nic/fw_lpm.o \
                        $(B)/san/firmware/nic/fw_ipv4.o $(B)/san/firmware/nic/fw_wire.o $(SPINE_LIB_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(filter %.o,$^) $(SPINE_LIB_SAN) -lpthread -o $@
SPINE_TIMING_PROFILE ?= hw/profiles/pci64b-lanai9-myrinet2000.prof
.PHONY: bench-spine
bench-spine: $(SPINE_T)/bench_spine $(NICD) firmware-lanai
	$(SPINE_T)/bench_spine
	VERINIC_FIRMWARE=lanai VERINIC_TIMING=$(SPINE_TIMING_PROFILE) $(SPINE_T)/bench_spine --rounds 1 --count 300 --lat 20 --window 2,8
TEST_BINS += $(B)/san/tests/spine/bench_spine
TESTS     += tests/spine/bench_smoke.sh
