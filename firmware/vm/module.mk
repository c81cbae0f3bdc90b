# PANIC VM (firmware): loader, verifier, interpreter. Freestanding C11; linked into the LANai
# image by `make firmware-lanai` (LANAI_SRCS) and cross-checked by tests/pdl/lanai-build.sh.
VM_SRCS      := $(sort $(wildcard firmware/vm/*.c))
VM_OBJS      := $(VM_SRCS:%.c=$(B)/obj/%.o)
VM_SAN_OBJS  := $(VM_SRCS:%.c=$(B)/san/%.o)
$(B)/obj/firmware/vm/%.o $(B)/san/firmware/vm/%.o: INCLUDES += -Ifirmware/vm
LANAI_SRCS   += $(VM_SRCS)
LANAI_INCLUDES += -Ifirmware/vm

$(VM_OBJS) $(VM_SAN_OBJS): CFLAGS += -ffreestanding
