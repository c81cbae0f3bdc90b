# firmware/nicd/module.mk: nicd, the NIC daemon (build/bin/nicd): the emulated NICs, the
# firmware of each (libfwnic), and the connection manager. It lives beside the firmware
# because it is the firmware's host process (it links the runtime and the emulated board, and
# the LANai instruction-set simulator for --lanai); hw/ stays a library of emulated hardware.
NICD_SRCS := $(sort $(wildcard firmware/nicd/*.c))
NICD      := $(B)/bin/nicd
BINS      += $(NICD)

$(B)/obj/firmware/nicd/%.o: INCLUDES += $(FWNIC_INC)
$(NICD_SRCS:%.c=$(B)/obj/%.o): $(DATAPATH_GEN)/.stamp

NICD_ISS_LIB := $(B)/lib/libiss.a   # hw/lanai/module.mk's ISS_LIB (included after this file)

$(NICD): $(NICD_SRCS:%.c=$(B)/obj/%.o) $(FWNIC_LIB) $(HW_LIB) $(NICD_ISS_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(filter %.o,$^) $(FWNIC_LIB) $(NICD_ISS_LIB) $(HW_LIB) -lpthread -lrt
TESTS     += tests/lanai/nicd-lanai-fault.sh
