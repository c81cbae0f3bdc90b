# host/tools: nicstat, the NIC counters tool.
BINS += $(B)/bin/nicstat
$(B)/obj/host/tools/%.o $(B)/san/host/tools/%.o: INCLUDES += $(LIBNIC_INCLUDES)

$(B)/bin/nicstat: $(B)/obj/host/tools/nicstat.o $(LIBNIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -o $@

# sovia_xfer: a byte stream over SOVIA or kernel TCP, for the demo. (libvipl's variable is
# defined by a later fragment, so its path is spelled out.)
BINS += $(B)/bin/sovia_xfer
$(B)/obj/host/tools/sovia_xfer.o: INCLUDES += -Ihost/sovia -Ihost/vipl
$(B)/bin/sovia_xfer: $(B)/obj/host/tools/sovia_xfer.o $(SOVIA_LIB) $(B)/lib/libvipl.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -lpthread -lrt -o $@

# panicctl: control of the PANIC VM (libpanic).
BINS += $(B)/bin/panicctl
$(B)/obj/host/tools/panicctl.o: INCLUDES += -Ihost/panic -Ifirmware/vm
$(B)/bin/panicctl: $(B)/obj/host/tools/panicctl.o $(B)/lib/libpanic.a $(LIBNIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -lpthread -lrt -o $@

# vipl_xfer: a checked stream of messages over one VIPL connection, for the cluster demo.
BINS += $(B)/bin/vipl_xfer
$(B)/obj/host/tools/vipl_xfer.o: INCLUDES += -Ihost/vipl
$(B)/bin/vipl_xfer: $(B)/obj/host/tools/vipl_xfer.o $(B)/lib/libvipl.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -lpthread -lrt -o $@
