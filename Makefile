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

.PHONY: all test verify verify-fresh proofs proofs-fresh bench firmware-lanai fuzz clean deps-check demo
all:

# The parts' fragments in the order they build on each other: a fragment may use in its rules
# the variables of those before it (prerequisite lists are expanded as they are read). The
# compilers and the emulated hardware first, the shared contracts (iface/, which adds to libhw),
# the host tools that build the firmware (tools/), the firmware, nicd, the host libraries, then
# the tests, which use them all. A fragment not listed here is read after the listed parts.
PARTS := esm esm/machines esm/tigon esm/reliab hw iface hw/lanai tools/lanai-ld firmware/vm tools/pdlc firmware/lanai \
         firmware/nic nicd host/libnic host/panic host/sovia host/tools host/vipl host/eudp proofs bench
PART_MKS := $(PARTS:%=%/module.mk)
TEST_MKS := $(sort $(wildcard tests/*/module.mk)) $(sort $(wildcard tests/*/*/module.mk))
include $(PART_MKS) \
        $(filter-out $(PART_MKS) $(TEST_MKS),$(sort $(wildcard */module.mk */*/module.mk))) \
        $(TEST_MKS)

all: deps-check $(BINS)

# Installs missing Debian packages when run as root, or prints the apt-get line otherwise.
deps-check:
	@scripts/deps.sh

test: deps-check $(BINS) $(TEST_BINS) $(FUZZ_BINS)
	@FUZZ_BINS="$(FUZZ_BINS)" tests/run.sh $(TESTS) tests/fuzz/smoke.sh

demo: deps-check $(BINS)
	@scripts/demo.sh

# Benchmarks print tables; they are not part of `make test`. Each goal line they print is also
# collected and printed again at the end (bench/summary.h).
bench:
	@mkdir -p $(B)/bench && rm -f $(B)/bench/summary.txt
	@$(MAKE) --no-print-directory VERINIC_BENCH_SUMMARY=$(abspath $(B)/bench/summary.txt) \
	  bench-vm bench-vipl bench-sovia bench-panic bench-cluster bench-paper bench-tigon
	@bench/summary.sh $(B)/bench/summary.txt

# Model-checks every ESM system: a table of every property, and counterexamples in ESM terms.
# Passing runs are kept in models/cache, keyed by the SHA-256 of the model text, the property,
# the pan options and the Spin, C compiler and verify.sh versions: a run whose key is there is
# not repeated, and its row says `cached`. `make verify-fresh` runs everything into an empty
# cache, which then replaces models/cache (only if every check passed).
VERIFY_CACHE_DIR ?= models/cache
verify: deps-check $(VERIFY_MODELS)
	@ESMC=$(ESMC) VERIFY_CACHE_DIR=$(VERIFY_CACHE_DIR) models/verify.sh $(VERIFY_MODELS)

verify-fresh: deps-check $(VERIFY_MODELS)
	@rm -rf $(B)/verify-cache.new
	@ESMC=$(ESMC) VERIFY_CACHE_DIR=$(B)/verify-cache.new VERIFY_HINTS=$(VERIFY_CACHE_DIR) \
	  models/verify.sh $(VERIFY_MODELS)
	@rm -rf $(VERIFY_CACHE_DIR) && mv $(B)/verify-cache.new $(VERIFY_CACHE_DIR)

clean:
	rm -rf $(CLEAN_DIRS)

# Objects: build/obj/<path>.o for product code, build/san/<path>.o for sanitized test builds.
$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(INCLUDES) -MMD -MP -c $< -o $@

$(B)/san/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(INCLUDES) -MMD -MP -c $< -o $@

# build/lto/<path>.o: GCC's intermediate code for a link-time optimized binary (nicd, whose
# link inlines across the firmware, the emulated engines and its loop). Only that link sees
# them: a link of intermediate code runs the optimizer, whose -Werror diagnostics would differ.
LTO ?= -flto=auto
$(B)/lto/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LTO) $(INCLUDES) -MMD -MP -c $< -o $@

-include $(shell find $(B) -name '*.d' 2>/dev/null)

# Fuzz targets: a module appends the binary path to FUZZ_BINS and writes its link rule with
# $(FUZZ_CC) $(FUZZ_FLAGS). Seed corpora live in tests/fuzz/corpus/<binary name>/.
FUZZ_CC     := clang
FUZZ_FLAGS   = $(CSTD) -g -O1 -fsanitize=fuzzer,address,undefined $(INCLUDES) -D_POSIX_C_SOURCE=200809L

FUZZ_SECONDS ?= 60

fuzz: $(FUZZ_BINS)
	@for f in $(FUZZ_BINS); do tests/fuzz/run-fuzzer.sh $$f $(FUZZ_SECONDS) || exit 1; done
