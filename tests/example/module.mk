# tests/example/module.mk: the example system of the ESM manual, end to end: its generated C
# runs in a host harness, and its model is checked by Spin, with and without a seeded bug.
EXAMPLE_ESM     := esm/examples/dmapair.esm
EXAMPLE_GEN     := $(B)/gen/dmapair
EXAMPLE_HARNESS := $(B)/san/tests/example/harness
TEST_BINS       += $(EXAMPLE_HARNESS)
TESTS           += $(EXAMPLE_HARNESS) tests/example/spin.sh

$(EXAMPLE_GEN)/.stamp: $(EXAMPLE_ESM) $(ESMC)
	@mkdir -p $(EXAMPLE_GEN)
	$(ESMC) -o $(EXAMPLE_GEN) $(EXAMPLE_ESM)
	@touch $@

EXAMPLE_C := $(addprefix $(EXAMPLE_GEN)/,dmapair.c dmapair_Tx.c dmapair_Rx.c)
$(EXAMPLE_C): $(EXAMPLE_GEN)/.stamp
$(B)/san/tests/example/harness.o: $(EXAMPLE_GEN)/.stamp
$(B)/san/tests/example/harness.o: INCLUDES += -I$(EXAMPLE_GEN)

# Generated sources live under build/, so they get their own rule.
$(B)/san/example/%.o: $(EXAMPLE_GEN)/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) -I$(EXAMPLE_GEN) -c $< -o $@

$(EXAMPLE_HARNESS): $(B)/san/tests/example/harness.o \
                    $(patsubst $(EXAMPLE_GEN)/%.c,$(B)/san/example/%.o,$(EXAMPLE_C))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^

$(B)/models/dmapair/dmapair.pml: $(EXAMPLE_ESM) $(ESMC)
	@mkdir -p $(dir $@)
	$(ESMC) --pml -o $(dir $@) $(EXAMPLE_ESM)
VERIFY_MODELS += $(B)/models/dmapair/dmapair.pml
