# tests/common: helpers shared by the test suites and benchmarks: a private nicd per process
# (nicd_run.c for C tests, nicd.sh for shell tests) and forking and reaping helper processes
# (child.c). Objects for the other fragments to link (sanitized, and optimized for benchmarks).
$(B)/obj/tests/common/%.o $(B)/san/tests/common/%.o: INCLUDES += $(LIBNIC_INCLUDES)
NICD_RUN_OBJ     := $(B)/obj/tests/common/nicd_run.o
NICD_RUN_OBJ_SAN := $(B)/san/tests/common/nicd_run.o
CHILD_OBJ_SAN    := $(B)/san/tests/common/child.o
