# host/libnic: the host driver (open a NIC, map its window, DMA-able memory and registration,
# VIs, the two-level work queues, waiting). Library build/lib/libnic.a, sanitized copy in
# build/san/lib/libnic.a. Both carry the hw window/host memory/futex objects they need.
LIBNIC_SRCS     := $(sort $(wildcard host/libnic/*.c))
LIBNIC_HW_SRCS  := hw/window.c hw/hostmem.c hw/futex.c $(IFACE_HOST_SRCS)
LIBNIC_OBJS     := $(LIBNIC_SRCS:%.c=$(B)/obj/%.o)
LIBNIC_SAN_OBJS := $(LIBNIC_SRCS:%.c=$(B)/san/%.o)
LIBNIC_LIB      := $(B)/lib/libnic.a
LIBNIC_LIB_SAN  := $(B)/san/lib/libnic.a
LIBNIC_INCLUDES := -Ihost/libnic -Ihw -Ifirmware/include
BINS            += $(LIBNIC_LIB)

$(B)/obj/host/libnic/%.o $(B)/san/host/libnic/%.o: INCLUDES += $(LIBNIC_INCLUDES)

$(LIBNIC_LIB): $(LIBNIC_OBJS) $(LIBNIC_HW_SRCS:%.c=$(B)/obj/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIBNIC_LIB_SAN): $(LIBNIC_SAN_OBJS) $(LIBNIC_HW_SRCS:%.c=$(B)/san/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
