# host/vipl: the VIA 1.0 VI Provider Library over libnic. build/lib/libvipl.a is
# self-contained (VIPL + libnic + the iface/ objects): programs link it alone.
VIPL_SRCS     := $(sort $(wildcard host/vipl/*.c))
VIPL_OBJS     := $(VIPL_SRCS:%.c=$(B)/obj/%.o)
VIPL_SAN_OBJS := $(VIPL_SRCS:%.c=$(B)/san/%.o)
VIPL_LIB      := $(B)/lib/libvipl.a
VIPL_LIB_SAN  := $(B)/san/lib/libvipl.a
VIPL_INCLUDES := -Ihost/vipl $(LIBNIC_INCLUDES)
BINS          += $(VIPL_LIB)

$(B)/obj/host/vipl/%.o $(B)/san/host/vipl/%.o: INCLUDES += $(VIPL_INCLUDES)

$(VIPL_LIB): $(VIPL_OBJS) $(LIBNIC_OBJS) $(IFACE_SRCS:%.c=$(B)/obj/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(VIPL_LIB_SAN): $(VIPL_SAN_OBJS) $(LIBNIC_SAN_OBJS) $(IFACE_SRCS:%.c=$(B)/san/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
