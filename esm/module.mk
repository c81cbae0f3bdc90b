# esm/module.mk: the ESM compiler esmc, its tests and its fuzz target.
ESMC_SRCS := $(filter-out esm/src/main.c,$(wildcard esm/src/*.c))
ESMC      := $(B)/bin/esmc
BINS      += $(ESMC)

$(ESMC): $(patsubst %.c,$(B)/obj/%.o,$(ESMC_SRCS) esm/src/main.c)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^

# The same compiler built with sanitizers; the tests run this one.
ESMC_SAN  := $(B)/san/bin/esmc
TEST_BINS += $(ESMC_SAN)
$(ESMC_SAN): $(patsubst %.c,$(B)/san/%.o,$(ESMC_SRCS) esm/src/main.c)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^

# Diagnostics: one source per error class, with the expected message and position.
TESTS     += tests/esmc/diag.sh

# libFuzzer target on the front end (lexer, parser, semantic analysis).
ESMC_FUZZ := $(B)/fuzz/fuzz_esmc
FUZZ_BINS += $(ESMC_FUZZ)
$(ESMC_FUZZ): tests/esmc/fuzz_esmc.c $(ESMC_SRCS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -Iesm/src $(FUZZ_FLAGS) -o $@ $^
