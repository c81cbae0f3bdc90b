#!/usr/bin/env bash
# Makes sure the Debian packages Verinic needs are present. As root it installs what is missing
# (running apt-get update first); otherwise it prints the exact apt-get command and fails.
set -euo pipefail

# command-or-file : package
NEEDS=(
  "gcc:gcc" "make:make" "clang:clang" "ld.lld:lld" "llvm-objdump:llvm"
  "spin:spin" "dot:graphviz" "/usr/include/cmocka.h:libcmocka-dev"
  "/usr/include/zlib.h:zlib1g-dev"   # the emulated link's CRC (hw/crc32.c)
  "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a:libclang-rt-14-dev"
  "nc:netcat-openbsd" "ss:iproute2"
  "frama-c:frama-c-base" "why3:why3" "z3:z3" "cvc4:cvc4"
  "gnuplot:gnuplot-nox"     # plots of `make bench-sovia`
  "python3:python3"         # test scripts (tests/faults/cm_limits.py, tests/sovia, tests/lanai)
  # unmodified programs over the SOVIA shim (tests/sovia_apps, `make bench-apps`)
  "redis-server:redis-server" "redis-benchmark:redis-tools" "memcached:memcached"
  "memccp:libmemcached-tools" "nginx:nginx-light" "curl:curl" "iperf3:iperf3" "socat:socat"
  "sockperf:sockperf" "lighttpd:lighttpd" "wrk:wrk" "ab:apache2-utils" "node:nodejs"
  "unshare:util-linux" "setpriv:util-linux"
  # a connection on stdin and stdout, a stdio stream, a connection handed across exec
  "busybox:busybox" "/usr/sbin/sshd:openssh-server" "ssh:openssh-client"
  # a server of its own user over the shim (tests/sovia_apps/users.sh)
  "/usr/lib/postgresql/*/bin/postgres:postgresql" "psql:postgresql-client"
  # a DNS query over E-UDP (tests/eudp/apps.sh): the server and two resolver clients
  "dnsmasq:dnsmasq-base" "drill:ldnsutils" "dig:bind9-dnsutils"
)

missing=()
for entry in "${NEEDS[@]}"; do
  what=${entry%%:*}; pkg=${entry#*:}
  if [[ $what == /* ]]; then
    compgen -G "$what" >/dev/null || missing+=("$pkg")
  else
    command -v "$what" >/dev/null 2>&1 || missing+=("$pkg")
  fi
done

[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -eq 0 ]]; then
  echo "deps: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # servers are installed, not started (no service comes up during the install)
  printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d.verinic
  [[ -e /usr/sbin/policy-rc.d ]] || { cp /usr/sbin/policy-rc.d.verinic /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; trap 'rm -f /usr/sbin/policy-rc.d' EXIT; }
  rm -f /usr/sbin/policy-rc.d.verinic
  apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "deps: missing packages; run as root:" >&2
  echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
  exit 1
fi
