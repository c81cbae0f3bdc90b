# tests/faults: the fault suite (issue 16): peers of VIPL, SOVIA and PANIC and nicd itself
# killed at seeded moments; every survivor must end with an error within 1 s, nothing hangs,
# no data is duplicated, reordered, corrupted or lost, and a restarted nicd serves again;
# a VIA program written from the specification alone (via_echo); nicd's connection manager
# under misuse (cm_limits.py: idle and pipelining clients, strict numbers, long names);
# unmodified programs under the SOVIA shim (socat, python3 through shim_peer.py) when nicd or
# the peer process is SIGKILLed: an error, never end of file, in every kind of wait and read
# (shim_kill.sh).
# `make test` runs three seeds; `make faults-long` sweeps FAULT_SEEDS (default 20).
FAULTS_T := $(B)/tests/faults
$(B)/obj/tests/faults/%.o $(B)/san/tests/faults/%.o: INCLUDES += $(VIPL_INCLUDES) -Ihost/sovia $(PANIC_INCLUDES)

FAULTS_OBJS := $(patsubst %.c,$(B)/san/%.o,$(filter-out tests/faults/via_echo.c tests/faults/fuzz_%.c,$(wildcard tests/faults/*.c)))
TEST_BINS += $(FAULTS_T)/test_faults $(FAULTS_T)/via_echo
TESTS     += $(FAULTS_T)/test_faults tests/faults/via_echo.sh tests/faults/cm_limits.py \
             tests/faults/shim_kill.sh

# A VIA program written from the specification only (via_echo.c), run by via_echo.sh.
$(FAULTS_T)/via_echo: $(B)/san/tests/faults/via_echo.o $(VIPL_LIB_SAN) $(NICD)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $< $(VIPL_LIB_SAN) -lpthread -lrt -o $@

$(FAULTS_T)/test_faults: $(FAULTS_OBJS) $(SOVIA_LIB_SAN) $(PANIC_LIB_SAN) $(VIPL_LIB_SAN) $(NICD) $(B)/bin/pdlc
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(filter %.o,$^) $(SOVIA_LIB_SAN) $(PANIC_LIB_SAN) $(VIPL_LIB_SAN) -lpthread -lrt -o $@

FAULT_SEEDS ?= 20
.PHONY: faults-long
faults-long: $(FAULTS_T)/test_faults
	$(FAULTS_T)/test_faults --seeds $(FAULT_SEEDS)

# The connection manager's request parser, fuzzed (seeds in tests/fuzz/corpus/fuzz_cm_parse).
CM_FUZZ   := $(B)/fuzz/fuzz_cm_parse
FUZZ_BINS += $(CM_FUZZ)
$(CM_FUZZ): tests/faults/fuzz_cm_parse.c nicd/cmparse.c nicd/lineparse.c nicd/nicd.h $(FWNIC_STAMPS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(FWNIC_INC) -Inicd -o $@ tests/faults/fuzz_cm_parse.c nicd/cmparse.c nicd/lineparse.c
