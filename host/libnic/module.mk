# host/libnic: the host driver (open a NIC, map its window, DMA-able memory and registration,
# VIs, the two-level work queues, waiting). Library build/lib/libnic.a, sanitized copy in
# build/san/lib/libnic.a. Both carry the objects of the contracts they use (iface/: the
# window, host memory, futexes, the wait protocol, naming).
LIBNIC_SRCS     := $(sort $(wildcard host/libnic/*.c))
LIBNIC_OBJS     := $(LIBNIC_SRCS:%.c=$(B)/obj/%.o)
LIBNIC_SAN_OBJS := $(LIBNIC_SRCS:%.c=$(B)/san/%.o)
LIBNIC_LIB      := $(B)/lib/libnic.a
LIBNIC_LIB_SAN  := $(B)/san/lib/libnic.a
LIBNIC_INCLUDES := -Ihost/libnic
BINS            += $(LIBNIC_LIB)

$(B)/obj/host/libnic/%.o $(B)/san/host/libnic/%.o: INCLUDES += $(LIBNIC_INCLUDES)

$(LIBNIC_LIB): $(LIBNIC_OBJS) $(IFACE_SRCS:%.c=$(B)/obj/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIBNIC_LIB_SAN): $(LIBNIC_SAN_OBJS) $(IFACE_SRCS:%.c=$(B)/san/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
