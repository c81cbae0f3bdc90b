# tests/timing/module.mk: nicd's timing mode: the hardware profile reader against every shipped
# profile (test_profile), its fuzz target, timing mode end to end (timing.sh), and the papers'
# figures (bench-paper, bench-tigon).
TIMING_T  := $(B)/tests/timing
TEST_BINS += $(TIMING_T)/test_profile
TESTS     += $(TIMING_T)/test_profile

$(TIMING_T)/test_profile: $(B)/san/tests/timing/test_profile.o $(HW_LIB_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(filter %.o,$^) $(HW_LIB_SAN) $(HW_LDLIBS) -o $@

# libFuzzer: arbitrary bytes through profile_parse; seeds in tests/fuzz/corpus/fuzz_profile/.
FUZZ_BINS += $(B)/fuzz/fuzz_profile
$(B)/fuzz/fuzz_profile: tests/timing/fuzz_profile.c hw/profile.c hw/profile.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Ihw -o $@ tests/timing/fuzz_profile.c hw/profile.c

# E-UDP's analytic model (eudp_model.c) for the test bed profile, against hand-computed values.
TEST_BINS += $(TIMING_T)/test_eudp_model
TESTS     += $(TIMING_T)/test_eudp_model
$(TIMING_T)/test_eudp_model: $(B)/san/tests/timing/test_eudp_model.o $(B)/san/tests/timing/eudp_model.o $(HW_LIB_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(filter %.o,$^) $(HW_LIB_SAN) $(HW_LDLIBS) -lm -o $@

# `make bench-paper`: the papers' figures in timing mode (bench_paper.c), tables and plots into
# build/bench/paper/.
BENCH_PAPER := $(B)/bench/timing/bench_paper
$(B)/obj/tests/timing/%.o: INCLUDES += -Ihost/vipl -Ihost/libnic
$(BENCH_PAPER): $(B)/obj/tests/timing/bench_paper.o $(B)/obj/tests/timing/eudp_model.o \
                $(B)/obj/bench/summary.o $(NICD_RUN_OBJ) $(BENCH_STATS_OBJ) $(VIPL_LIB) $(HW_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(filter %.o,$^) $(VIPL_LIB) $(HW_LIB) $(HW_LDLIBS) -lpthread -lrt -lm -o $@
TEST_BINS += $(BENCH_PAPER)
TESTS     += tests/timing/timing.sh

.PHONY: bench-paper
bench-paper: $(BENCH_PAPER) $(B)/tests/panic/bench_panic $(NICD) firmware-lanai
	@mkdir -p $(B)/bench/paper
	@for p in $(sort $(filter-out hw/profiles/tigon-%,$(wildcard hw/profiles/*.prof))); do n=$$(basename $$p .prof); \
	  $(BENCH_PAPER) eudp $$p $(B)/bench/paper/$$n.dat | grep -v '^nicd:' | tee $(B)/bench/paper/$$n.txt \
	  || exit 1; done
	@$(BENCH_PAPER) fig9 hw/profiles/eudp-lanai9-pci32.prof $(B)/bench/paper/fig9.trace | grep -v '^nicd:'
	@VERINIC_FIRMWARE=lanai VERINIC_TIMING=hw/profiles/eudp-lanai9-pci32.prof \
	  $(B)/tests/panic/bench_panic | grep -v '^nicd:' | tee $(B)/bench/paper/panic-fig3.txt
	@bench/paper-plots.sh $(B)/bench/paper

# `make bench-tigon`: the Tigon paper's Fig. 10 in timing mode (bench_paper tigon): bidirectional
# throughput on one and two firmware processors per NIC, the speed-up beside the paper's; table
# and plot in build/bench/tigon/. BENCH_TIGON_MSGS: messages each way per round.
BENCH_TIGON_MSGS ?= 48
.PHONY: bench-tigon
bench-tigon: $(BENCH_PAPER) $(NICD) firmware-lanai
	@mkdir -p $(B)/bench/tigon
	@$(BENCH_PAPER) tigon hw/profiles/tigon-88mhz-gige-pci64.prof $(B)/bench/tigon/fig10.dat \
	  $(BENCH_TIGON_MSGS) | grep -v '^nicd:' | tee $(B)/bench/tigon/fig10.txt
	@bench/tigon-plot.sh $(B)/bench/tigon
