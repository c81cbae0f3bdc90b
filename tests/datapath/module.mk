# tests/datapath/module.mk: the generated data-movement C run against simulated hardware.
DATAPATH_HARNESS := $(B)/san/tests/datapath/harness
TEST_BINS        += $(DATAPATH_HARNESS)
TESTS            += $(DATAPATH_HARNESS) tests/datapath/verify.sh tests/datapath/mutations.sh

$(B)/san/tests/datapath/harness.o $(B)/san/gen/datapath/%.o: INCLUDES += -I$(DATAPATH_GEN)
$(B)/san/tests/datapath/harness.o: $(DATAPATH_GEN)/.stamp
$(DATAPATH_HARNESS): $(B)/san/tests/datapath/harness.o $(patsubst %.c,$(B)/san/%.o,$(DATAPATH_C))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^
