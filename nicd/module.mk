# nicd/module.mk: nicd, the NIC daemon (build/bin/nicd): the process that hosts the emulated
# NICs (libhw), runs the firmware of each (libfwnic natively, or the LANai image on the
# instruction-set simulator of hw/lanai with --lanai), and serves the connection manager and
# name service. It links the device and the firmware but is neither (nicd/README.md).
NICD_SRCS := $(sort $(wildcard nicd/*.c))
NICD      := $(B)/bin/nicd
BINS      += $(NICD)

$(B)/obj/nicd/%.o: INCLUDES += $(FWNIC_INC)
$(NICD_SRCS:%.c=$(B)/obj/%.o): $(FWNIC_STAMPS)

$(NICD): $(NICD_SRCS:%.c=$(B)/obj/%.o) $(FWNIC_LIB) $(HW_LIB) $(ISS_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(filter %.o,$^) $(FWNIC_LIB) $(ISS_LIB) $(HW_LIB) $(HW_LDLIBS) -lpthread -lrt
TESTS     += tests/lanai/nicd-lanai-fault.sh
