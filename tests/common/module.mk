# tests/common: helpers shared by the test suites and benchmarks: a private nicd per process
# (nicd_run.c for C tests, nicd.sh for shell tests), free ports for shell tests (ports.sh), and
# forking and reaping helper processes (child.c). Objects for the other fragments to link
# (sanitized, and optimized for benchmarks).
$(B)/obj/tests/common/%.o $(B)/san/tests/common/%.o: INCLUDES += $(LIBNIC_INCLUDES)
NICD_RUN_OBJ     := $(B)/obj/tests/common/nicd_run.o
NICD_RUN_OBJ_SAN := $(B)/san/tests/common/nicd_run.o
CHILD_OBJ_SAN    := $(B)/san/tests/common/child.o

# --- every end-to-end suite again on the LANai firmware ------------------------------------
# build/tests/on-lanai/<suite>.lanai.sh runs the suite with VERINIC_FIRMWARE=lanai: its nicd
# (nicd_run.c, nicd.sh) runs the LANai image on the instruction-set simulator. Same suite,
# same assertions, the other firmware.
ON_LANAI_SUITES := $(B)/tests/vipl/test_vipl_e2e $(B)/tests/vipl/test_vipl_reliable \
                   $(B)/tests/vipl/test_vipl_rdma $(B)/tests/vipl/test_vipl_reconnect \
                   $(B)/tests/sovia_lib/test_sovia_lib tests/sovia_lib/preload.sh \
                   tests/sovia_lib/echo.sh $(B)/tests/panic/test_panic_e2e \
                   $(B)/tests/panic/test_panic_hostile tests/panic/panicctl-cli.sh \
                   $(B)/tests/cluster/test_cluster tests/cluster/cluster.sh $(B)/tests/eudp/test_eudp
on_lanai_name = $(B)/tests/on-lanai/$(notdir $(basename $(1))).lanai.sh
ON_LANAI := $(foreach t,$(ON_LANAI_SUITES),$(call on_lanai_name,$(t)))
TEST_BINS += $(ON_LANAI) firmware-lanai
TESTS     += $(ON_LANAI)

# $(call env_suite_rule,SUITE,WRAPPER,VAR=VALUE,WHAT): WRAPPER runs SUITE with VAR=VALUE.
define env_suite_rule
$(2): tests/common/module.mk
	@mkdir -p $$(dir $$@)
	printf '#!/bin/sh\n# %s on %s (tests/common/module.mk)\n%s exec %s "$$$$@"\n' '$(1)' '$(4)' '$(3)' '$(1)' >$$@
	chmod +x $$@
endef
# $(call on_lanai_rule,SUITE): SUITE's wrapper on the LANai firmware (for suites listed elsewhere).
on_lanai_rule = $(call env_suite_rule,$(1),$(call on_lanai_name,$(1)),VERINIC_FIRMWARE=lanai,the LANai firmware)
$(foreach t,$(ON_LANAI_SUITES),$(eval $(call on_lanai_rule,$(t))))

# --- end-to-end suites on two firmware processors per NIC -----------------------------------
# build/tests/on-cpus2/<suite>.cpus2.sh runs the suite with VERINIC_CPUS=2: its nicd runs
# every NIC's firmware on two processors (nicd --cpus 2, firmware/nic/fw_cpus.h);
# <suite>.lanai-cpus2.sh the same on the LANai image (two simulated processors per NIC).
ON_CPUS2_SUITES := $(B)/tests/vipl/test_vipl_e2e $(B)/tests/vipl/test_vipl_reliable \
                   $(B)/tests/vipl/test_vipl_rdma tests/sovia_lib/echo.sh
on_cpus2_name = $(B)/tests/on-cpus2/$(notdir $(basename $(1))).cpus2.sh
ON_CPUS2 := $(foreach t,$(ON_CPUS2_SUITES),$(call on_cpus2_name,$(t)))
TEST_BINS += $(ON_CPUS2)
TESTS     += $(ON_CPUS2)

$(foreach t,$(ON_CPUS2_SUITES),$(eval $(call env_suite_rule,$(t),$(call on_cpus2_name,$(t)),VERINIC_CPUS=2,two firmware processors)))
ON_LANAI_CPUS2_SUITES := $(B)/tests/vipl/test_vipl_e2e tests/sovia_lib/echo.sh
on_lanai_cpus2_name = $(B)/tests/on-cpus2/$(notdir $(basename $(1))).lanai-cpus2.sh
ON_LANAI_CPUS2 := $(foreach t,$(ON_LANAI_CPUS2_SUITES),$(call on_lanai_cpus2_name,$(t)))
TEST_BINS += $(ON_LANAI_CPUS2)
TESTS     += $(ON_LANAI_CPUS2)
$(foreach t,$(ON_LANAI_CPUS2_SUITES),$(eval $(call env_suite_rule,$(t),$(call on_lanai_cpus2_name,$(t)),VERINIC_FIRMWARE=lanai VERINIC_CPUS=2,two LANai processors)))

# --- end-to-end suites on two nicd threads ----------------------------------------------------
# build/tests/on-threads/<suite>.threads2.sh runs the suite with VERINIC_NICD_THREADS=2: its
# nicd runs its NICs on two threads (nicd --threads, nicd/loop.c), a benchmark's two ends on
# different threads, frames crossing between them through hw/memfab's queues.
ON_THREADS2_SUITES := $(B)/tests/vipl/test_vipl_e2e $(B)/tests/vipl/test_vipl_reliable \
                      $(B)/tests/vipl/test_vipl_rdma $(B)/tests/vipl/test_vipl_notify \
                      $(B)/tests/sovia_lib/test_sovia_lib tests/sovia_lib/echo.sh \
                      tests/sovia_apps/apps.sh
on_threads2_name = $(B)/tests/on-threads/$(notdir $(basename $(1))).threads2.sh
ON_THREADS2 := $(foreach t,$(ON_THREADS2_SUITES),$(call on_threads2_name,$(t)))
TEST_BINS += $(ON_THREADS2)
TESTS     += $(ON_THREADS2)
$(foreach t,$(ON_THREADS2_SUITES),$(eval $(call env_suite_rule,$(t),$(call on_threads2_name,$(t)),VERINIC_NICD_THREADS=2,two nicd threads)))
ON_LANAI_THREADS2 := $(B)/tests/on-threads/test_vipl_e2e.lanai-threads2.sh
TEST_BINS += $(ON_LANAI_THREADS2)
TESTS     += $(ON_LANAI_THREADS2)
$(eval $(call env_suite_rule,$(B)/tests/vipl/test_vipl_e2e,$(ON_LANAI_THREADS2),VERINIC_FIRMWARE=lanai VERINIC_NICD_THREADS=2,the LANai firmware on two nicd threads))
