# host/tools: nicstat, the NIC counters tool.
BINS += $(B)/bin/nicstat
$(B)/obj/host/tools/%.o $(B)/san/host/tools/%.o: INCLUDES += $(LIBNIC_INCLUDES)

$(B)/bin/nicstat: $(B)/obj/host/tools/nicstat.o $(LIBNIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -o $@
