#!/usr/bin/env bash
# tests/sovia_apps/shim_fd.sh: shim_fd (duplicates, a stdio stream, a connection handed to an
# exec'd program; see shim_fd.c) under the shim, server on NIC 0 and client on NIC 1 in empty
# network namespaces; then no relay process may outlive its connection. Prints "N passed,
# N failed".
set -u
cd "$(dirname "$0")/../.."
. tests/common/nicd.sh
. tests/common/ports.sh
. tests/sovia_apps/apps_lib.sh
trap nicd_cleanup EXIT
BIN=$PWD/build/tests/sovia_apps/shim_fd
shim_prog shim-fd "$BIN"
port=$(free_ports 1); SOVIA_PORTS=$port
pair_run "$BIN" $port
# live relays (an ended one may stay a zombie where nothing reaps the orphans)
relays() { ps -eo stat=,pid=,comm= | awk '$3 == "sovia-relay" && $1 !~ /^Z/ {print $2}'; }
for i in $(seq 50); do [[ -z $(relays) ]] && break; sleep 0.1; done
[[ -n $(relays) ]] && bad "a relay outlived its connection: $(relays)" || ok "the relays ended with their connections"
report
