# tests/tigon/module.mk: the two-processor firmware (esm/tigon/): its models under Spin, the
# seeded bugs, and the partitioned data path's C on two dispatchers against simulated hardware.
TIGON_HARNESS  := $(B)/san/tests/tigon/harness2
TEST_BINS      += $(TIGON_HARNESS)
TESTS          += $(TIGON_HARNESS) tests/tigon/verify.sh tests/tigon/mutations.sh tests/tigon/nicd-cpus2.sh

$(B)/san/tests/tigon/harness2.o: INCLUDES += -I$(TIGON_GEN)
$(B)/san/tests/tigon/harness2.o: $(TIGON_GEN)/.stamp tests/datapath/harness.c
$(TIGON_HARNESS): $(B)/san/tests/tigon/harness2.o $(patsubst %.c,$(B)/san/%.o,$(TIGON_C))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^
