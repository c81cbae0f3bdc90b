# bench/: the SOVIA paper's microbenchmarks (`make bench-sovia`: bench_sovia, then the file
# transfers of bench_xfer.sh; results and plots in build/bench/). Not part of `make test`,
# except a smoke run with tiny counts of a sanitized build (bench/smoke.sh), so that the
# benchmark code cannot rot.
BENCH_D        := $(B)/bench
BENCH_SRCS     := $(sort $(wildcard bench/*.c))
BENCH_BIN      := $(BENCH_D)/bench_sovia
BENCH_BIN_SAN  := $(B)/san/bench/bench_sovia
# The clock and order statistics (stats.h), linked by tests/vipl's and tests/panic's benchmarks too.
BENCH_STATS_OBJ := $(B)/obj/bench/stats.o
$(B)/obj/bench/%.o $(B)/san/bench/%.o: INCLUDES += -Ihost/sovia -Ihost/vipl

# bench_floor.o: the memcpy floor the summary compares SOVIA's streaming with (tests/vipl).
$(BENCH_BIN): $(BENCH_SRCS:%.c=$(B)/obj/%.o) $(B)/obj/tests/vipl/bench_floor.o $(SOVIA_LIB) $(VIPL_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -lpthread -lrt -o $@

$(BENCH_BIN_SAN): $(BENCH_SRCS:%.c=$(B)/san/%.o) $(B)/san/tests/vipl/bench_floor.o $(SOVIA_LIB_SAN) \
                 $(VIPL_LIB_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $^ -lpthread -lrt -o $@

.PHONY: bench-sovia
bench-sovia: $(BENCH_BIN) $(NICD) $(SOVIA_PRELOAD)
	$(BENCH_BIN) --out $(BENCH_D)
	bench/bench_xfer.sh

TEST_BINS += $(BENCH_BIN_SAN)
TESTS     += bench/smoke.sh

# Unmodified programs over the SOVIA shim beside kernel TCP (bench/bench_apps.sh).
.PHONY: bench-apps
bench-apps: $(NICD) $(SOVIA_PRELOAD)
	bench/bench_apps.sh
TESTS += bench/bench_apps_smoke.sh

# The cluster over UDP (bench/bench_cluster.sh): goodput under injected loss beside kernel TCP
# between the same namespaces, 1 GiB through a faulty network, 20 % loss. Not in `make test`,
# except a smoke run with tiny sizes.
.PHONY: bench-cluster
bench-cluster: $(NICD) $(SOVIA_PRELOAD) $(B)/bin/vipl_xfer $(B)/bin/nicstat
	bench/bench_cluster.sh
TESTS += bench/bench_cluster_smoke.sh
