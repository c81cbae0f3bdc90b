# iface/module.mk: the contracts host, firmware and emulated hardware share (iface/README.md):
# the host-firmware interface (hostif.h, ring.h), the NIC window and the host memory behind it
# (window, hostmem, futex), the wait/wake protocol over a window, naming (run directory, hosts
# file). Every part includes these headers as "name.h" (-iquote iface). The objects go into
# libhw (the NIC's side links them) and, through IFACE_SRCS, into the host libraries.
INCLUDES    += -iquote iface
IFACE_SRCS  := $(sort $(wildcard iface/*.c))

$(HW_LIB): $(IFACE_SRCS:%.c=$(B)/obj/%.o)
$(HW_LIB_SAN): $(IFACE_SRCS:%.c=$(B)/san/%.o)
