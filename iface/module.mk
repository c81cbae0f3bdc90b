# iface/module.mk: the contracts every party shares (iface/README.md): the wait/wake protocol
# over a NIC window, naming (run directory, hosts file). Read before the host/ and firmware/ fragments and after hw/'s, so it
# adds its objects to libhw (the NIC side) and names them for the host libraries.
INCLUDES          += -iquote iface
IFACE_HOST_SRCS   := iface/wait.c iface/naming.c
$(B)/obj/iface/%.o $(B)/san/iface/%.o $(B)/pic/iface/%.o: INCLUDES += -Ihw

$(HW_LIB): $(IFACE_HOST_SRCS:%.c=$(B)/obj/%.o)
$(HW_LIB_SAN): $(IFACE_HOST_SRCS:%.c=$(B)/san/%.o)
