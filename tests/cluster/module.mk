# tests/cluster: a cluster of nicds over UDP on loopback (nicd --udp; no namespaces needed):
# VIPL and RDMA across nicds, IPv6, bad datagrams, a peer nicd killed and restarted, cluster
# file errors (test_cluster); SOVIA (socat under the shim) and a PANIC ping across nicds
# (cluster.sh). Fault-free; CLUSTER_NICD_ARGS="--loss P --seed N ..." adds options to every
# nicd they start.
CLUSTER_T := $(B)/tests/cluster
# (tests/common/module.mk comes later in the sort: its objects are spelled out.)
$(B)/san/tests/cluster/%.o: INCLUDES += $(VIPL_INCLUDES)
TEST_BINS += $(CLUSTER_T)/test_cluster
TESTS     += $(CLUSTER_T)/test_cluster tests/cluster/cluster.sh

$(CLUSTER_T)/test_cluster: $(B)/san/tests/cluster/test_cluster.o $(B)/san/tests/common/child.o $(VIPL_LIB_SAN) \
                           $(HW_LIB_SAN) $(NICD)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(filter %.o,$^) $(VIPL_LIB_SAN) $(HW_LIB_SAN) $(HW_LDLIBS) -o $@
