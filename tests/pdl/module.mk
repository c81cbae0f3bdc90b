# Tests, fuzz targets and the benchmark for the PANIC VM toolchain (pdlc + firmware/vm).
PDL_T        := $(B)/tests/pdl
PDL_INCLUDES := -Itools/pdlc -Ifirmware/vm
$(B)/obj/tests/pdl/%.o $(B)/san/tests/pdl/%.o: INCLUDES += $(PDL_INCLUDES)
PDL_T_COMMON := $(B)/san/tests/pdl/nic_host.o $(PDL_LIB_SAN_OBJS) $(VM_SAN_OBJS)

TEST_BINS += $(PDL_T)/conformance $(PDL_T)/test_vm_api
TESTS     += $(PDL_T)/conformance $(PDL_T)/test_vm_api tests/pdl/test-pdlc-cli.sh \
             tests/pdl/lanai-build.sh

$(PDL_T)/conformance: $(B)/san/tests/pdl/conformance.o $(PDL_T_COMMON)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $^ -o $@

$(PDL_T)/test_vm_api: $(B)/san/tests/pdl/test_vm_api.o $(PDL_T_COMMON)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $^ -lcmocka -o $@

# libFuzzer targets: the loader+verifier(+budgeted run), and the compiler front end.
PDL_FUZZ_COMMON := tests/pdl/nic_host.c $(PDL_LIB_SRCS) $(VM_SRCS)
FUZZ_BINS += $(B)/fuzz/fuzz_pdl_vm $(B)/fuzz/fuzz_pdl_parse

$(B)/fuzz/fuzz_pdl_vm: tests/pdl/fuzz_pdl_vm.c $(PDL_FUZZ_COMMON) $(wildcard firmware/vm/*.h tools/pdlc/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(PDL_INCLUDES) $(FUZZ_FLAGS) tests/pdl/fuzz_pdl_vm.c $(PDL_FUZZ_COMMON) -o $@

$(B)/fuzz/fuzz_pdl_parse: tests/pdl/fuzz_pdl_parse.c $(PDL_FUZZ_COMMON) $(wildcard firmware/vm/*.h tools/pdlc/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(PDL_INCLUDES) $(FUZZ_FLAGS) tests/pdl/fuzz_pdl_parse.c $(PDL_FUZZ_COMMON) -o $@

# Interpreter speed per kernel against uBPF (documented, tests/pdl/UBPF.md) and native C; not
# part of `make test`.
.PHONY: bench-vm
bench-vm: $(PDL_T)/bench_vm
	$(PDL_T)/bench_vm

$(PDL_T)/bench_vm: $(B)/obj/tests/pdl/bench_vm.o $(B)/obj/tests/pdl/nic_host.o $(B)/obj/bench/summary.o $(PDL_LIB_OBJS) $(VM_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -o $@
