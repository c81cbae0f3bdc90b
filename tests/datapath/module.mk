# tests/datapath/module.mk: the generated data-movement C run against simulated hardware.
DATAPATH_HARNESS := $(B)/san/tests/datapath/harness
TEST_BINS        += $(DATAPATH_HARNESS)
TESTS            += $(DATAPATH_HARNESS) tests/datapath/verify.sh tests/datapath/mutations.sh

$(B)/san/tests/datapath/harness.o $(B)/san/gen/datapath/%.o: INCLUDES += -I$(DATAPATH_GEN)
# The generated objects too: the headers' rule has no recipe, so make would not see them change.
$(B)/san/tests/datapath/harness.o $(patsubst %.c,$(B)/san/%.o,$(DATAPATH_C)): $(DATAPATH_GEN)/.stamp
$(DATAPATH_HARNESS): $(B)/san/tests/datapath/harness.o $(patsubst %.c,$(B)/san/%.o,$(DATAPATH_C))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^
