# tests/panic: the PANIC VM inside the running firmware, through libpanic and panicctl, against
# a private nicd (real processes, shared memory); and `make bench-panic` (not in `make test`).
PANIC_T := $(B)/tests/panic
$(B)/obj/tests/panic/%.o $(B)/san/tests/panic/%.o: INCLUDES += $(PANIC_INCLUDES) -Ihost/vipl

PANIC_TESTS := test_panic_e2e test_panic_hostile
TEST_BINS   += $(PANIC_TESTS:%=$(PANIC_T)/%)
TESTS       += $(PANIC_TESTS:%=$(PANIC_T)/%) tests/panic/panicctl-cli.sh

$(PANIC_T)/test_panic_e2e: $(B)/san/tests/panic/test_panic_e2e.o $(NICD_RUN_OBJ_SAN) \
                           $(PANIC_LIB_SAN) $(LIBNIC_LIB_SAN) $(NICD) $(B)/bin/pdlc
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(filter %.o,$^) $(PANIC_LIB_SAN) $(LIBNIC_LIB_SAN) -lpthread -lrt -o $@

$(PANIC_T)/test_panic_hostile: $(B)/san/tests/panic/test_panic_hostile.o $(NICD_RUN_OBJ_SAN) \
                               $(PANIC_LIB_SAN) $(VIPL_LIB_SAN) $(NICD) $(B)/bin/pdlc
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(filter %.o,$^) $(PANIC_LIB_SAN) $(VIPL_LIB_SAN) -lpthread -lrt -o $@

# PANIC's Fig. 3 and the cost from packet arrival to trigger start; optimized build. Built by
# `make test` too: tests/timing/timing.sh runs it in timing mode.
TEST_BINS += $(PANIC_T)/bench_panic
.PHONY: bench-panic
bench-panic: $(PANIC_T)/bench_panic $(NICD) $(B)/bin/pdlc
	$(PANIC_T)/bench_panic

$(PANIC_T)/bench_panic: $(B)/obj/tests/panic/bench_panic.o $(NICD_RUN_OBJ) $(BENCH_STATS_OBJ) \
                        $(PANIC_LIB) $(VIPL_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(filter %.o,$^) $(PANIC_LIB) $(VIPL_LIB) -lpthread -lrt -o $@
