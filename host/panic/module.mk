# host/panic: libpanic, host control of the PANIC VM (panic.h): build/lib/libpanic.a, and a
# sanitized copy for the tests. Link with libnic after it.
PANIC_SRCS     := $(sort $(wildcard host/panic/*.c))
PANIC_LIB      := $(B)/lib/libpanic.a
PANIC_LIB_SAN  := $(B)/san/lib/libpanic.a
PANIC_INCLUDES := -Ihost/panic -Ifirmware/vm $(LIBNIC_INCLUDES)
BINS           += $(PANIC_LIB)

$(B)/obj/host/panic/%.o $(B)/san/host/panic/%.o: INCLUDES += $(PANIC_INCLUDES)

$(PANIC_LIB): $(PANIC_SRCS:%.c=$(B)/obj/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(PANIC_LIB_SAN): $(PANIC_SRCS:%.c=$(B)/san/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
