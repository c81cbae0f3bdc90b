# host/eudp: E-UDP datagram endpoints over libnic (README.md). build/lib/libeudp.a carries
# libnic and the iface/ objects too: programs link it alone.
EUDP_SRCS     := $(sort $(wildcard host/eudp/*.c))
EUDP_OBJS     := $(EUDP_SRCS:%.c=$(B)/obj/%.o)
EUDP_SAN_OBJS := $(EUDP_SRCS:%.c=$(B)/san/%.o)
EUDP_LIB      := $(B)/lib/libeudp.a
EUDP_LIB_SAN  := $(B)/san/lib/libeudp.a
EUDP_INCLUDES := -Ihost/eudp $(LIBNIC_INCLUDES)
BINS          += $(EUDP_LIB)

$(B)/obj/host/eudp/%.o $(B)/san/host/eudp/%.o: INCLUDES += $(EUDP_INCLUDES)

$(EUDP_LIB): $(EUDP_OBJS) $(LIBNIC_OBJS) $(IFACE_SRCS:%.c=$(B)/obj/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(EUDP_LIB_SAN): $(EUDP_SAN_OBJS) $(LIBNIC_SAN_OBJS) $(IFACE_SRCS:%.c=$(B)/san/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
