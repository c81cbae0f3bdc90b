# esm/reliab/module.mk: Reliable Delivery with retransmission (esm/reliab/README.md). esmc turns
# its ESM sources into the C the firmware links (gen/reliab/: firmware/nic/module.mk builds it
# into libfwnic.a and the LANai image; libreliab.a holds it alone) and into the two models
# `make verify` checks.
RELIAB_ESM  := esm/reliab/reliab.esm esm/reliab/sender.esm esm/reliab/receiver.esm \
               esm/reliab/channel.esm
RELIAB_GEN  := gen/reliab
RELIAB_C    := $(addprefix $(RELIAB_GEN)/,reliab.c reliab_Receiver.c reliab_Sender.c)
RELIAB_LIB  := $(B)/lib/libreliab.a
BINS        += $(RELIAB_LIB)

$(RELIAB_GEN)/.stamp: $(RELIAB_ESM) esm/reliab/bounds.esm esm/reliab/props.esm $(ESMC)
	@mkdir -p $(RELIAB_GEN)
	$(ESMC) --c --dot -o $(RELIAB_GEN) $(RELIAB_ESM) esm/reliab/bounds.esm esm/reliab/props.esm
	@touch $@
$(RELIAB_C) $(RELIAB_GEN)/reliab.h $(RELIAB_GEN)/reliab_hal.h: $(RELIAB_GEN)/.stamp
$(B)/obj/gen/reliab/%.o $(B)/san/gen/reliab/%.o: INCLUDES += -I$(RELIAB_GEN)

$(RELIAB_LIB): $(RELIAB_C:%.c=$(B)/obj/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# The models: reliab (the network loses, duplicates, reorders, damages) and reliab_seqwrap
# (sequence numbers wrap, at the least safe modulus: seqwrap/bounds.esm).
$(B)/models/reliab/reliab.pml: $(RELIAB_ESM) esm/reliab/bounds.esm esm/reliab/props.esm $(ESMC)
	@mkdir -p $(dir $@)
	$(ESMC) --pml -o $(dir $@) $(RELIAB_ESM) esm/reliab/bounds.esm esm/reliab/props.esm
$(B)/models/reliab_seqwrap/reliab_seqwrap.pml: $(RELIAB_ESM) $(wildcard esm/reliab/seqwrap/*.esm) $(ESMC)
	@mkdir -p $(dir $@)
	$(ESMC) --pml -o $(dir $@) $(RELIAB_ESM) $(sort $(wildcard esm/reliab/seqwrap/*.esm))
	mv $(dir $@)reliab.pml $@
VERIFY_MODELS += $(B)/models/reliab/reliab.pml $(B)/models/reliab_seqwrap/reliab_seqwrap.pml
