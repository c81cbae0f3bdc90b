# tests/esmc/c/module.mk: tests of esmc's C and Graphviz backends (see tests/esmc/c/README.md).
#   golden.sh   generated C and dot vs committed expected files, determinism, dot -Tsvg
#   compile.sh  generated C under gcc -pedantic -Werror and clang --target=lanai -Werror
#   duo_sim     the generated C of harness/duo.esm run against simulated hardware
# Generated C is never committed: it is regenerated into build/ by the esmc being tested.
ESMC_C_DIR  := tests/esmc/c
ESMC_C_GEN  := $(B)/gen/esmc-c/duo
ESMC_C_SIM  := $(B)/san/bin/esmc-c-duo-sim

$(ESMC_C_GEN)/stamp: $(ESMC_C_DIR)/harness/duo.esm $(ESMC_SAN)
	@rm -rf $(ESMC_C_GEN) && mkdir -p $(ESMC_C_GEN)
	$(ESMC_SAN) --c -o $(ESMC_C_GEN) $<
	@touch $@

$(ESMC_C_SIM): $(ESMC_C_GEN)/stamp $(ESMC_C_DIR)/harness/duo_sim.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) -Dduo_TRACE -I$(ESMC_C_GEN) -o $@ \
	  $(ESMC_C_DIR)/harness/duo_sim.c $(ESMC_C_GEN)/*.c

TEST_BINS += $(ESMC_C_SIM)
TESTS     += $(ESMC_C_DIR)/golden.sh $(ESMC_C_DIR)/compile.sh $(ESMC_C_SIM)
