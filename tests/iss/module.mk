# tests/iss/module.mk: tests of the LANai ISS (hw/lanai/): differential programs built both
# natively and for LANai (run by lanai-run), decoder conformance against llvm-objdump,
# faults, the image reader, and the fuzz targets.
ISS_T        := $(B)/tests/iss
ISS_PROGS    := libcalls suite demo vm crc datapath reliab
ISS_PROG_RT  := $(LANAI_OUT)/obj/firmware/lanai/crt0.o $(LANAI_RT_SRCS:%.c=$(LANAI_OUT)/obj/%.o)
ISS_IMGS     := $(ISS_PROGS:%=$(ISS_T)/%.img)
ISS_NATIVE   := $(ISS_PROGS:%=$(ISS_T)/%.native)
TEST_BINS    += $(ISS_IMGS) $(ISS_NATIVE)
TESTS        += tests/iss/iss-diff.sh tests/iss/iss-image.sh

$(LANAI_OUT)/obj/tests/iss/%.o: LANAI_INCLUDES += -Ihw/lanai -Itests/iss/progs

# A LANai test program: crt0 + runtime + the program, linked like the firmware.
$(ISS_T)/%.img: $(LANAI_OUT)/obj/tests/iss/progs/%.o $(ISS_PROG_RT) $(LANAI_LD)
	@mkdir -p $(dir $@)
	ld.lld -r $(ISS_PROG_RT) $(filter-out $(ISS_PROG_RT),$(filter %.o,$^)) -o $(ISS_T)/$*.lanai.o
	$(LANAI_LD) -q -o $@ --map $(ISS_T)/$*.map --elf $(ISS_T)/$*.elf $(ISS_T)/$*.lanai.o

# Its native twin, sanitized (the runtime renamed lanai_*, for demo_main.c).
$(B)/san/tests/iss/progs/%.o: INCLUDES += -Itests/iss/progs -Ifirmware/lanai/rt
$(ISS_T)/%.native: $(B)/san/tests/iss/progs/%.o $(LANAI_RT_SRCS:%.c=$(B)/san/%.o)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $^ -o $@

# Unit tests (cmocka), and the disassembler as a filter for the conformance check against
# llvm-objdump.
ISS_DIS   := $(ISS_T)/iss-dis
TEST_BINS += $(ISS_T)/test_iss $(ISS_DIS)
TESTS     += $(ISS_T)/test_iss tests/iss/iss-disasm-conformance.sh
$(B)/san/tests/iss/%.o: INCLUDES += -Ihw/lanai
$(ISS_T)/test_iss: $(B)/san/tests/iss/test_iss.o $(ISS_LIB_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $^ -lcmocka -o $@
$(ISS_DIS): $(B)/san/tests/iss/iss_dis.o $(ISS_LIB_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $^ -o $@

# The PANIC VM conformance suite as a freestanding program: the cases extracted on the host.
ISS_VM_GEN := $(ISS_T)/vm_cases_gen
$(B)/san/tests/iss/vm_cases_gen.o: INCLUDES += -Itools/pdlc -Ifirmware/vm
$(ISS_VM_GEN): $(B)/san/tests/iss/vm_cases_gen.o $(PDL_LIB_SAN_OBJS) $(VM_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $^ -o $@
$(ISS_T)/vm_cases.h: $(ISS_VM_GEN) $(wildcard tests/pdl/conformance/*.data)
	$(ISS_VM_GEN) $(sort $(wildcard tests/pdl/conformance/*.data)) > $@.tmp && mv $@.tmp $@
$(LANAI_OUT)/obj/tests/iss/progs/vm.o $(B)/san/tests/iss/progs/vm.o: $(ISS_T)/vm_cases.h
$(LANAI_OUT)/obj/tests/iss/progs/vm.o: LANAI_INCLUDES += -I$(ISS_T) -Ifirmware/vm
$(B)/san/tests/iss/progs/vm.o: INCLUDES += -I$(ISS_T) -Ifirmware/vm
$(ISS_T)/vm.img: $(VM_SRCS:%.c=$(LANAI_OUT)/obj/%.o)
$(ISS_T)/vm.native: $(VM_SAN_OBJS)

# The data-path harness (tests/datapath/harness.c) over the generated machines.
ISS_DP_OBJS := $(LANAI_OUT)/obj/tests/iss/progs/datapath.o $(B)/san/tests/iss/progs/datapath.o
$(ISS_DP_OBJS): $(DATAPATH_GEN)/.stamp tests/datapath/harness.c
$(DATAPATH_C:%.c=$(LANAI_OUT)/obj/%.o): $(DATAPATH_GEN)/.stamp
$(LANAI_OUT)/obj/tests/iss/progs/datapath.o: LANAI_INCLUDES += -Itests/datapath -I$(DATAPATH_GEN)
$(B)/san/tests/iss/progs/datapath.o: INCLUDES += -Itests/datapath -I$(DATAPATH_GEN)
$(ISS_T)/datapath.img: $(DATAPATH_C:%.c=$(LANAI_OUT)/obj/%.o)
$(ISS_T)/datapath.native: $(DATAPATH_C:%.c=$(B)/san/%.o)

# libFuzzer: images and instruction streams through the ISS; files through the image reader.
ISS_FUZZ := $(B)/fuzz/fuzz_iss $(B)/fuzz/fuzz_iss_image
FUZZ_BINS += $(ISS_FUZZ)
$(ISS_FUZZ): $(B)/fuzz/%: tests/iss/%.c $(ISS_SRCS) $(wildcard hw/lanai/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Ihw/lanai -o $@ $< $(ISS_SRCS)

# The speed benchmark: ISS M instructions/s on compute-heavy programs beside their native
# builds (optimized, unsanitized). Not part of `make test`.
ISS_BENCH_PROGS := crc vm suite
ISS_BENCH_NATIVE := $(ISS_BENCH_PROGS:%=$(B)/bench/iss/%.native)
$(B)/obj/tests/iss/progs/%.o: INCLUDES += -Ihw/lanai -Itests/iss/progs -Ifirmware/lanai/rt -I$(ISS_T) -Ifirmware/vm
$(B)/obj/tests/iss/progs/vm.o: $(ISS_T)/vm_cases.h
$(B)/obj/tests/iss/bench_iss.o: INCLUDES += -Ihw/lanai
$(B)/bench/iss/%.native: $(B)/obj/tests/iss/progs/%.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -o $@
$(B)/bench/iss/vm.native: $(VM_OBJS)
$(B)/bench/iss/bench_iss: $(B)/obj/tests/iss/bench_iss.o $(ISS_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -o $@

.PHONY: bench-lanai-iss
bench-lanai-iss: $(B)/bench/iss/bench_iss $(ISS_BENCH_NATIVE) $(ISS_BENCH_PROGS:%=$(ISS_T)/%.img)
	$(B)/bench/iss/bench_iss $(foreach p,$(ISS_BENCH_PROGS),$(ISS_T)/$(p).img $(B)/bench/iss/$(p).native)

# Objects reached through the pattern chains above are kept, not deleted as intermediates.
.SECONDARY: $(ISS_PROGS:%=$(LANAI_OUT)/obj/tests/iss/progs/%.o) \
            $(ISS_PROGS:%=$(B)/san/tests/iss/progs/%.o) $(ISS_BENCH_PROGS:%=$(B)/obj/tests/iss/progs/%.o)

# Reliable Delivery's generated machines (gen/reliab), with the LANai objects the firmware links
# (built with the flags firmware/nic/module.mk gives them).
ISS_RL_OBJS := $(LANAI_OUT)/obj/tests/iss/progs/reliab.o $(B)/san/tests/iss/progs/reliab.o
$(ISS_RL_OBJS): $(RELIAB_GEN)/.stamp
$(LANAI_OUT)/obj/tests/iss/progs/reliab.o: LANAI_INCLUDES += -I$(RELIAB_GEN)
$(B)/san/tests/iss/progs/reliab.o: INCLUDES += -I$(RELIAB_GEN)
$(ISS_T)/reliab.img: $(RELIAB_C:%.c=$(LANAI_OUT)/obj/%.o)
$(ISS_T)/reliab.native: $(RELIAB_C:%.c=$(B)/san/%.o)
