# tests/timing/module.mk: nicd's timing mode: the hardware profile reader against every shipped
# profile (test_profile), its fuzz target, and timing mode end to end (timing.sh).
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
