# host/spine: SPINE's IP router, host side (README.md): IP endpoints and the router program's
# control of the forwarding firmware. build/lib/libspine.a carries E-UDP, libnic and iface/.
SPINE_SRCS     := $(sort $(wildcard host/spine/*.c))
SPINE_LIB      := $(B)/lib/libspine.a
SPINE_LIB_SAN  := $(B)/san/lib/libspine.a
SPINE_INCLUDES := -Ihost/spine $(EUDP_INCLUDES)
BINS           += $(SPINE_LIB)

$(B)/obj/host/spine/%.o $(B)/san/host/spine/%.o: INCLUDES += $(SPINE_INCLUDES)

$(SPINE_LIB): $(SPINE_SRCS:%.c=$(B)/obj/%.o) $(EUDP_OBJS) $(LIBNIC_OBJS) $(IFACE_SRCS:%.c=$(B)/obj/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(SPINE_LIB_SAN): $(SPINE_SRCS:%.c=$(B)/san/%.o) $(EUDP_SAN_OBJS) $(LIBNIC_SAN_OBJS) $(IFACE_SRCS:%.c=$(B)/san/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
