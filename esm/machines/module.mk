# esm/machines/module.mk: the firmware's data-movement system. esmc turns its ESM sources into
# the C the firmware links (gen/datapath/) and the model `make verify` checks.
DATAPATH_ESM  := $(sort $(wildcard esm/machines/*.esm))
DATAPATH_GEN  := gen/datapath
DATAPATH_C    := $(addprefix $(DATAPATH_GEN)/,datapath.c datapath_RDMA.c datapath_RECV.c \
                   datapath_SDMA.c datapath_SEND.c datapath_VM.c)

# One esmc run writes every file; the stamp stands for all of them.
$(DATAPATH_GEN)/.stamp: $(DATAPATH_ESM) $(ESMC)
	@mkdir -p $(DATAPATH_GEN)
	$(ESMC) --c --dot -o $(DATAPATH_GEN) $(DATAPATH_ESM)
	@touch $@
$(DATAPATH_C) $(DATAPATH_GEN)/datapath.h $(DATAPATH_GEN)/datapath_hal.h: $(DATAPATH_GEN)/.stamp

# The model of the same sources, for `make verify`.
$(B)/models/datapath/datapath.pml: $(DATAPATH_ESM) $(ESMC)
	@mkdir -p $(dir $@)
	$(ESMC) --pml -o $(dir $@) $(DATAPATH_ESM)
VERIFY_MODELS += $(B)/models/datapath/datapath.pml

# The model with the PANIC VM active (vm.esm): the same machines and environment with the
# bounds and properties of vmcheck/ (one message each way, two activations), small enough to
# check beside the data path's own model, in which the VM is offered no work.
DATAPATH_VM_ESM := $(filter-out esm/machines/datapath_bounds.esm esm/machines/datapath_props.esm,\
                     $(DATAPATH_ESM)) $(sort $(wildcard esm/machines/vmcheck/*.esm))
$(B)/models/datapath_vm/datapath_vm.pml: $(DATAPATH_VM_ESM) $(ESMC)
	@mkdir -p $(dir $@)
	$(ESMC) --pml -o $(dir $@) $(DATAPATH_VM_ESM)
	mv $(dir $@)datapath.pml $@
VERIFY_MODELS += $(B)/models/datapath_vm/datapath_vm.pml
