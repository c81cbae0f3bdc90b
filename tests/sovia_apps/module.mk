# tests/sovia_apps: unmodified Debian programs (redis, memcached, nginx with ab and wrk, iperf3,
# python3 http.server, socat with and without fork, sockperf, lighttpd, a node.js http server
# (node_http.js), busybox httpd and wget, sshd and ssh) over the SOVIA shim,
# servers on NIC 0 and clients on NIC 1 in empty network namespaces (apps.sh; helpers shared
# with bench/bench_apps.sh in apps_lib.sh). Needs build/lib/libsovia_preload.so and nicd (BINS).
TESTS += tests/sovia_apps/apps.sh

# Programs of other users (PostgreSQL as postgres, memcached -u memcache, nginx's workers as
# www-data, clients as nobody) through nicd --mode and --group; refusals with EACCES (needs root).
TESTS += tests/sovia_apps/users.sh

# The shim's socket semantics (epoll, recvmsg/sendmsg, sendfile, names, fork, exit) with a
# plain BSD-sockets program, sanitized like the other test programs.
SHIM_SEM := $(B)/tests/sovia_apps/shim_sem
TEST_BINS += $(SHIM_SEM)
TESTS     += tests/sovia_apps/shim_sem.sh

$(SHIM_SEM): $(B)/san/tests/sovia_apps/shim_sem.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $< -lpthread -o $@

# A connection under other descriptors: duplicates, a stdio stream, and handed to a program
# the process execs (through a relay process, host/sovia/preload_exec.c).
SHIM_FD := $(B)/tests/sovia_apps/shim_fd
TEST_BINS += $(SHIM_FD)
TESTS     += tests/sovia_apps/shim_fd.sh

$(SHIM_FD): $(B)/san/tests/sovia_apps/shim_fd.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) $< -lpthread -o $@

# A process's end as its peers see it (_exit, a vfork child, a daemon's fork, a forking
# server, nginx as a daemon): what it sent arrives whole, then end of file.
TESTS     += tests/sovia_apps/shim_end.sh

# The same programs on the firmware deployed onto LANai (nicd --lanai, the instruction-set
# simulator): about 35 s; not in `make test`, whose on-LANai suites cover the SOVIA paths.
.PHONY: test-apps-lanai
test-apps-lanai: $(BINS) firmware-lanai
	@VERINIC_FIRMWARE=lanai tests/run.sh tests/sovia_apps/apps.sh
