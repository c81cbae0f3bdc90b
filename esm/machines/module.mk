# esm/machines/module.mk: the firmware's data-movement system. esmc turns its ESM sources into
# the C the firmware links (gen/datapath/) and the model `make verify` checks.
DATAPATH_ESM  := $(sort $(wildcard esm/machines/*.esm))
DATAPATH_GEN  := gen/datapath
DATAPATH_C    := $(addprefix $(DATAPATH_GEN)/,datapath.c datapath_RDMA.c datapath_RECV.c \
                   datapath_SDMA.c datapath_SEND.c)

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
