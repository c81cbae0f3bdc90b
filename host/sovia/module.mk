# host/sovia: SOVIA, sockets over VIPL (build/lib/libsovia.a, sanitized copy for the tests).
SOVIA_SRCS     := $(filter-out host/sovia/preload%,$(sort $(wildcard host/sovia/*.c)))
SOVIA_OBJS     := $(SOVIA_SRCS:%.c=$(B)/obj/%.o)
SOVIA_SAN_OBJS := $(SOVIA_SRCS:%.c=$(B)/san/%.o)
SOVIA_LIB      := $(B)/lib/libsovia.a
SOVIA_LIB_SAN  := $(B)/san/lib/libsovia.a
SOVIA_INCLUDES := -Ihost/sovia -Ihost/vipl -Ihost/libnic   # literal: host/vipl/module.mk is read after this one
BINS           += $(SOVIA_LIB)

$(B)/obj/host/sovia/%.o $(B)/san/host/sovia/%.o $(B)/pic/host/sovia/%.o: INCLUDES += $(SOVIA_INCLUDES)

$(SOVIA_LIB): $(SOVIA_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(SOVIA_LIB_SAN): $(SOVIA_SAN_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# The LD_PRELOAD shim build/lib/libsovia_preload.so: preload*.c with SOVIA, VIPL, libnic and
# the iface/ objects, all compiled -fPIC into build/pic/ (libsovia.a above is unchanged). The
# lists are literal: host/vipl's module.mk is read after this one.
SOVIA_PRELOAD    := $(B)/lib/libsovia_preload.so
SOVIA_PIC_SRCS   := $(sort $(wildcard host/sovia/preload*.c)) $(SOVIA_SRCS) $(sort $(wildcard host/vipl/*.c)) \
                    $(sort $(wildcard host/libnic/*.c)) $(sort $(wildcard host/eudp/*.c)) $(IFACE_SRCS)
SOVIA_PIC_OBJS   := $(SOVIA_PIC_SRCS:%.c=$(B)/pic/%.o)
BINS             += $(SOVIA_PRELOAD)

$(B)/pic/host/vipl/%.o: INCLUDES += -Ihost/vipl -Ihost/libnic
$(B)/pic/host/libnic/%.o: INCLUDES += -Ihost/libnic
$(B)/pic/host/eudp/%.o: INCLUDES += -Ihost/eudp -Ihost/libnic
$(B)/pic/host/sovia/preload_udp.o: INCLUDES += -Ihost/eudp   # E-UDP (host/eudp)

$(B)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC $(INCLUDES) -MMD -MP -c $< -o $@

$(SOVIA_PRELOAD): $(SOVIA_PIC_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared -fPIC $^ -ldl -lpthread -lrt -o $@
