# tests/vipl: libnic and VIPL tests (unit tests against an in-process NIC window; end-to-end
# tests against nicd), and the VIPL benchmark (`make bench-vipl`, not part of `make test`).
VIPL_T := $(B)/tests/vipl
$(B)/obj/tests/vipl/%.o $(B)/san/tests/vipl/%.o: INCLUDES += $(VIPL_INCLUDES)

VIPL_UNIT := test_libnic test_vipl_api
TEST_BINS += $(VIPL_UNIT:%=$(VIPL_T)/%)
TESTS     += $(VIPL_UNIT:%=$(VIPL_T)/%)

# End to end: real processes over a private nicd (needs build/bin/nicd; helpers in tests/common).
VIPL_E2E  := test_vipl_e2e test_vipl_reliable test_vipl_rdma test_vipl_reconnect test_vipl_notify \
             test_vipl_peer test_vipl_cm_order test_vipl_fork_seg
TEST_BINS += $(VIPL_E2E:%=$(VIPL_T)/%)
TESTS     += $(VIPL_E2E:%=$(VIPL_T)/%)
$(VIPL_E2E:%=$(VIPL_T)/%): $(VIPL_T)/%: $(B)/san/tests/vipl/%.o $(NICD_RUN_OBJ_SAN) $(CHILD_OBJ_SAN) \
                                       $(VIPL_LIB_SAN) $(NICD)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(filter %.o,$^) $(VIPL_LIB_SAN) -o $@

$(VIPL_T)/%: $(B)/san/tests/vipl/%.o $(B)/san/tests/vipl/fakenic.o $(B)/san/hw/window_nic.o \
             $(VIPL_LIB_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(filter %.o,$^) $(VIPL_LIB_SAN) -o $@

# The benchmark: optimized build, not part of `make test`.
.PHONY: bench-vipl
bench-vipl: $(VIPL_T)/bench_vipl $(NICD)
	$(VIPL_T)/bench_vipl

# The native firmware beside the LANai image: per-message instructions and cycles by event
# class, the simulator's speed, latency and bandwidth (bench_lanai.c).
.PHONY: bench-lanai
bench-lanai: $(VIPL_T)/bench_vipl $(NICD) firmware-lanai
	$(VIPL_T)/bench_vipl --lanai

$(B)/obj/tests/vipl/bench_lanai.o: INCLUDES += $(PANIC_INCLUDES)
$(VIPL_T)/bench_vipl: $(B)/obj/tests/vipl/bench_vipl.o $(B)/obj/tests/vipl/bench_lanai.o \
                      $(B)/obj/tests/vipl/bench_floor.o $(B)/obj/bench/summary.o \
                      $(NICD_RUN_OBJ) $(BENCH_STATS_OBJ) $(PANIC_LIB) $(VIPL_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(filter %.o,$^) $(PANIC_LIB) $(VIPL_LIB) -lpthread -lrt -o $@
