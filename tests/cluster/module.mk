# tests/cluster: a cluster of nicds over UDP on loopback (nicd --udp; no namespaces needed):
# VIPL and RDMA across nicds, IPv6, bad datagrams, a peer nicd killed and restarted, cluster
# file errors (test_cluster); SOVIA (socat under the shim) and a PANIC ping across nicds
# (cluster.sh), both fault-free (CLUSTER_NICD_ARGS="--loss P --seed N ..." adds options to
# every nicd they start); VIPL and SOVIA over a network that loses, repeats, reorders and
# damages datagrams, and one that loses 20 % (lossy.sh). fuzz_peer_parse: the parser of the
# lines between nicds.
CLUSTER_T := $(B)/tests/cluster
# (tests/common/module.mk comes later in the sort: its objects are spelled out.)
$(B)/san/tests/cluster/%.o: INCLUDES += $(VIPL_INCLUDES)
TEST_BINS += $(CLUSTER_T)/test_cluster
TESTS     += $(CLUSTER_T)/test_cluster tests/cluster/cluster.sh tests/cluster/lossy.sh

$(CLUSTER_T)/test_cluster: $(B)/san/tests/cluster/test_cluster.o $(B)/san/tests/common/child.o $(VIPL_LIB_SAN) \
                           $(HW_LIB_SAN) $(NICD)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(filter %.o,$^) $(VIPL_LIB_SAN) $(HW_LIB_SAN) $(HW_LDLIBS) -o $@

# The control protocol's line parser between nicds, fuzzed (seeds in
# tests/fuzz/corpus/fuzz_peer_parse).
PEER_FUZZ := $(B)/fuzz/fuzz_peer_parse
FUZZ_BINS += $(PEER_FUZZ)
$(PEER_FUZZ): tests/cluster/fuzz_peer_parse.c nicd/peerparse.c nicd/lineparse.c nicd/nicd.h $(FWNIC_STAMPS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(FWNIC_INC) -Inicd -o $@ tests/cluster/fuzz_peer_parse.c nicd/peerparse.c nicd/lineparse.c
