# tests/sovia_lib: the SOVIA library with real processes over a real nicd (tests/sovia holds
# the ESM model tests). `tests/sovia_lib/test_sovia_lib --big` adds a 100 MB stream.
SOVIA_T := $(B)/tests/sovia_lib
$(B)/obj/tests/sovia_lib/%.o $(B)/san/tests/sovia_lib/%.o: INCLUDES += -Ihost/sovia -Ihost/vipl

TEST_BINS += $(SOVIA_T)/test_sovia_lib
TESTS     += $(SOVIA_T)/test_sovia_lib

$(SOVIA_T)/test_sovia_lib: $(B)/san/tests/sovia_lib/test_sovia_lib.o $(SOVIA_LIB_SAN) $(VIPL_LIB_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $< $(SOVIA_LIB_SAN) $(VIPL_LIB_SAN) -lpthread -lrt -o $@

# The LD_PRELOAD shim with an unmodified nc (needs build/lib/libsovia_preload.so, in BINS).
TESTS     += tests/sovia_lib/preload.sh
