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
before=$(relays)
pair_run "$BIN" $port
left=$(relays_left "$before")
[[ -n $left ]] && bad "a relay outlived its connection: $left" || ok "the relays ended with their connections"
report
