# tests/sovia_lib: the SOVIA library with real processes over a real nicd (tests/sovia holds
# the ESM model tests): streams and closes (test_sovia_lib; `--big` adds a 100 MB stream),
# socket semantics (test_sovia_sem: w = 1, the receive ring's bound, non-blocking connect),
# helpers in svtest.c.
SOVIA_T := $(B)/tests/sovia_lib
$(B)/obj/tests/sovia_lib/%.o $(B)/san/tests/sovia_lib/%.o: INCLUDES += -Ihost/sovia -Ihost/vipl

SOVIA_TESTS := test_sovia_lib test_sovia_sem
TEST_BINS += $(SOVIA_TESTS:%=$(SOVIA_T)/%)
TESTS     += $(SOVIA_TESTS:%=$(SOVIA_T)/%)

$(SOVIA_TESTS:%=$(SOVIA_T)/%): $(SOVIA_T)/%: $(B)/san/tests/sovia_lib/%.o $(B)/san/tests/sovia_lib/svtest.o $(SOVIA_LIB_SAN) $(VIPL_LIB_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(filter %.o,$^) $(SOVIA_LIB_SAN) $(VIPL_LIB_SAN) -lpthread -lrt -o $@

# The LD_PRELOAD shim with an unmodified nc (needs build/lib/libsovia_preload.so, in BINS).
TESTS     += tests/sovia_lib/preload.sh

# An unmodified echo server and client (plain BSD sockets, not linked with SOVIA) under the
# shim (echo.sh).
SOVIA_ECHO := $(SOVIA_T)/echo_server $(SOVIA_T)/echo_client
TEST_BINS  += $(SOVIA_ECHO)
TESTS      += tests/sovia_lib/echo.sh

$(SOVIA_ECHO): $(SOVIA_T)/%: $(B)/san/tests/sovia_lib/%.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $< -o $@
