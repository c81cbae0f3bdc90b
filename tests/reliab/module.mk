# tests/reliab/module.mk: Reliable Delivery (esm/reliab): the generated C over a simulated lossy
# network (harness), every property of both models (verify.sh) and the seeded bugs
# (mutations.sh).
RELIAB_HARNESS := $(B)/san/tests/reliab/harness
TEST_BINS      += $(RELIAB_HARNESS)
TESTS          += $(RELIAB_HARNESS) tests/reliab/verify.sh tests/reliab/mutations.sh

$(B)/san/tests/reliab/harness.o: INCLUDES += -I$(RELIAB_GEN)
$(B)/san/tests/reliab/harness.o: $(RELIAB_GEN)/.stamp
$(RELIAB_HARNESS): $(B)/san/tests/reliab/harness.o $(patsubst %.c,$(B)/san/%.o,$(RELIAB_C))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^
