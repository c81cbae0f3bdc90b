# Top-level build for Verinic. Each part of the tree brings its own fragment (module.mk) that
# appends to the variables below; this file only holds the shared flags and the entry points.

CC       := gcc
CSTD     := -std=c11
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS   ?= -O2 -g
ALL_CFLAGS = $(CSTD) $(WARN) $(CFLAGS) -D_POSIX_C_SOURCE=200809L
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
B        := build

# Appended to by module.mk fragments:
BINS        :=   # product binaries (built by `make`)
FUZZ_BINS   :=   # libFuzzer targets (built by `make fuzz`)
INCLUDES    :=   # -I flags added by modules
TEST_BINS   :=   # test programs, built with sanitizers
TESTS       :=   # commands run by `make test` (one test program or script each)
VERIFY_MODELS := # PROMELA models `make verify` checks
CLEAN_DIRS  := $(B) gen/out models/out

.PHONY: all test verify proofs proofs-fresh bench firmware-lanai fuzz clean deps-check demo
all:

# Shallower fragments first, so a part can use what its parent directory defines.
include $(sort $(wildcard */module.mk)) $(sort $(wildcard */*/module.mk)) \
        $(sort $(wildcard */*/*/module.mk))

all: deps-check $(BINS)

# Installs missing Debian packages when run as root, or prints the apt-get line otherwise.
deps-check:
	@scripts/deps.sh

test: deps-check $(BINS) $(TEST_BINS) $(FUZZ_BINS)
	@FUZZ_BINS="$(FUZZ_BINS)" tests/run.sh $(TESTS) tests/fuzz/smoke.sh

demo: deps-check $(BINS)
	@scripts/demo.sh

# Benchmarks print tables; they are not part of `make test`.
bench: bench-vm bench-vipl bench-sovia bench-panic

# Model-checks every ESM system: a table of every property, and counterexamples in ESM terms.
verify: deps-check $(VERIFY_MODELS)
	@ESMC=$(ESMC) models/verify.sh $(VERIFY_MODELS)

clean:
	rm -rf $(CLEAN_DIRS)

# Objects: build/obj/<path>.o for product code, build/san/<path>.o for sanitized test builds.
$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(INCLUDES) -MMD -MP -c $< -o $@

$(B)/san/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(INCLUDES) -MMD -MP -c $< -o $@

-include $(shell find $(B) -name '*.d' 2>/dev/null)

# Fuzz targets: a module appends the binary path to FUZZ_BINS and writes its link rule with
# $(FUZZ_CC) $(FUZZ_FLAGS). Seed corpora live in tests/fuzz/corpus/<binary name>/.
FUZZ_CC     := clang
FUZZ_FLAGS   = $(CSTD) -g -O1 -fsanitize=fuzzer,address,undefined $(INCLUDES) -D_POSIX_C_SOURCE=200809L

FUZZ_SECONDS ?= 60

fuzz: $(FUZZ_BINS)
	@for f in $(FUZZ_BINS); do tests/fuzz/run-fuzzer.sh $$f $(FUZZ_SECONDS) || exit 1; done
