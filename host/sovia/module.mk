# host/sovia: SOVIA, sockets over VIPL (build/lib/libsovia.a, sanitized copy for the tests).
SOVIA_SRCS     := $(filter-out host/sovia/preload.c,$(sort $(wildcard host/sovia/*.c)))
SOVIA_OBJS     := $(SOVIA_SRCS:%.c=$(B)/obj/%.o)
SOVIA_SAN_OBJS := $(SOVIA_SRCS:%.c=$(B)/san/%.o)
SOVIA_LIB      := $(B)/lib/libsovia.a
SOVIA_LIB_SAN  := $(B)/san/lib/libsovia.a
SOVIA_INCLUDES := -Ihost/sovia -Ihost/vipl   # literal: host/vipl/module.mk is read after this one
BINS           += $(SOVIA_LIB)

$(B)/obj/host/sovia/%.o $(B)/san/host/sovia/%.o $(B)/pic/host/sovia/%.o: INCLUDES += $(SOVIA_INCLUDES)

$(SOVIA_LIB): $(SOVIA_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(SOVIA_LIB_SAN): $(SOVIA_SAN_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
