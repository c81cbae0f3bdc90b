# esm/tigon/module.mk: the data path on two firmware processors (Tigon's partition) and the
# shared-counter model; `make verify` checks them. The data path's machines, environment and
# properties are reused unchanged; only the partition and the bounds are Tigon's.
TIGON_ESM := $(filter-out esm/machines/datapath_bounds.esm,$(DATAPATH_ESM)) \
             esm/tigon/partition.esm esm/tigon/bounds.esm
TIGON_GEN := gen/tigon

# The models (esm/tigon/models.sh): tigon (safety, 3 messages), tigon_live (liveness, 2
# messages) and tigonstats.
TIGON_MODELS := $(addprefix $(B)/models/tigon/,tigon.pml tigon_live.pml tigonstats.pml)
$(B)/models/tigon/.stamp: $(DATAPATH_ESM) $(wildcard esm/tigon/*.esm esm/tigon/stats/*.esm) \
                          esm/tigon/models.sh $(ESMC)
	esm/tigon/models.sh $(ESMC) $(dir $@)
	@touch $@
$(TIGON_MODELS): $(B)/models/tigon/.stamp
VERIFY_MODELS += $(TIGON_MODELS)

# The per-processor dispatchers of the partitioned data path (datapath_step_p0/_p1,
# datapath_run_cpu): the firmware links this output (firmware/nic/module.mk). It is
# gen/datapath's C (which `make proofs` proves) plus the partition's functions and one field.
TIGON_C := $(addprefix $(TIGON_GEN)/,datapath.c datapath_RDMA.c datapath_RECV.c \
             datapath_SDMA.c datapath_SEND.c datapath_VM.c)
$(TIGON_GEN)/.stamp: $(TIGON_ESM) $(ESMC)
	@mkdir -p $(TIGON_GEN)
	$(ESMC) --c -o $(TIGON_GEN) $(TIGON_ESM)
	@touch $@
$(TIGON_C) $(TIGON_GEN)/datapath.h $(TIGON_GEN)/datapath_hal.h: $(TIGON_GEN)/.stamp
