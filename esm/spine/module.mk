# esm/spine/module.mk: SPINE's IP router (README.md): the model of the forwarding loop and the
# route update protocol that `make verify` checks. The firmware (firmware/nic/fw_spine.c) is
# hand-written in one-to-one correspondence with the machines.
SPINE_ESM := esm/spine/spine.esm esm/spine/env.esm esm/spine/props.esm

$(B)/models/spine/spine.pml: $(SPINE_ESM) $(ESMC)
	@mkdir -p $(dir $@)
	$(ESMC) --pml -o $(dir $@) $(SPINE_ESM)
VERIFY_MODELS += $(B)/models/spine/spine.pml
