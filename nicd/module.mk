# nicd/module.mk: nicd, the NIC daemon (build/bin/nicd): the process that hosts the emulated
# NICs (libhw), runs the firmware of each (libfwnic natively, or the LANai image on the
# instruction-set simulator of hw/lanai with --lanai), and serves the connection manager and
# name service. It links the device and the firmware but is neither (nicd/README.md).
NICD_SRCS := $(sort $(wildcard nicd/*.c))
NICD      := $(B)/bin/nicd
BINS      += $(NICD)

# nicd links its own objects of its sources and libfwnic's, libhw's and libiss's with
# link-time optimization (build/lto/, Makefile): about 8% more VIPL streaming (README.md,
# Benchmarks). `make LTO=` builds them without.
NICD_LTO_SRCS := $(NICD_SRCS) $(FWNIC_CORE) $(FWNIC_EMU) $(FWNIC_GEN_C) $(FWNIC_VM) $(HW_SRCS) \
                 $(IFACE_SRCS) $(ISS_SRCS)
NICD_LTO_OBJS := $(NICD_LTO_SRCS:%.c=$(B)/lto/%.o)
$(NICD_LTO_OBJS): INCLUDES += $(FWNIC_INC)
$(NICD_LTO_OBJS): $(FWNIC_STAMPS)
$(patsubst %.c,$(B)/lto/%.o,$(FWNIC_CORE) $(RELIAB_C)): CFLAGS += -ffreestanding

$(NICD): $(NICD_LTO_OBJS)
	@mkdir -p $(dir $@)
	+$(CC) $(CFLAGS) $(LTO) -o $@ $^ $(HW_LDLIBS) -lpthread -lrt
TESTS     += tests/lanai/nicd-lanai-fault.sh
