# tests/common/nicd.sh: a private nicd with two NICs for shell tests and benchmarks
# (tests/sovia_lib/echo.sh, preload.sh, tests/panic/panicctl-cli.sh, bench/bench_xfer.sh).
# Sourced from the top of the tree, then `trap nicd_cleanup EXIT` (or a trap that calls it).
#
# nicd_start TAG [NICD-OPTIONS...]
#   Makes the run directory $run (/tmp/TAG-XXXXXX) with a hosts file (nic0 and 10.0.0.1 ->
#   node 0, nic1 and 10.0.0.2 -> node 1) and the window prefix $prefix (/TAG-PID-nic): NIC i
#   is ${prefix}i, the name to give SOVIA_NIC or panicctl -d (libnic always maps "nicI" to
#   /verinic-nicI and reads no variable to change it). Exports VERINIC_RUN=$run and unsets
#   VERINIC_HOSTS and VERINIC_SOCKET, so that every program started afterwards reaches this
#   nicd's connection manager and hosts file. Starts ${NICD:-build/bin/nicd} -n 2 with the
#   options in the background ($nicd; output in $run/nicd.log); with VERINIC_FIRMWARE=lanai
#   also --lanai ${VERINIC_LANAI_IMAGE:-build/lanai/firmware.img} (the LANai image on nicd's
#   instruction-set simulator), with VERINIC_CPUS=N also --cpus N. Returns 0 once its socket
#   is there (10 s at most), else 1.
# nicd_cleanup
#   Stops nicd, kills the script's other background jobs and removes $run.

nicd=
run=

nicd_start() {
  local tag=$1; shift
  run=$(mktemp -d "/tmp/$tag-XXXXXX") || return 1
  prefix=/$tag-$$-nic
  printf 'nic0 0\nnic1 1\n10.0.0.1 0\n10.0.0.2 1\n' >"$run/hosts"
  export VERINIC_RUN=$run
  unset VERINIC_HOSTS VERINIC_SOCKET
  local fw=()
  case ${VERINIC_FIRMWARE:-native} in
    native) ;;
    lanai) fw=(--lanai "${VERINIC_LANAI_IMAGE:-build/lanai/firmware.img}") ;;
    *) echo "nicd_start: VERINIC_FIRMWARE=$VERINIC_FIRMWARE: not native or lanai" >&2; return 1 ;;
  esac
  [[ -n ${VERINIC_CPUS:-} ]] && fw+=(--cpus "$VERINIC_CPUS")
  "${NICD:-build/bin/nicd}" -n 2 --run "$run" --prefix "$prefix" "${fw[@]}" "$@" \
    >"$run/nicd.log" 2>&1 &
  nicd=$!
  for _ in $(seq 100); do [[ -S $run/nicd.sock ]] && break; sleep 0.1; done
  [[ -S $run/nicd.sock ]]
}

nicd_cleanup() {
  [[ -n $nicd ]] && { kill "$nicd" 2>/dev/null; wait "$nicd" 2>/dev/null; }
  jobs -p | xargs -r kill 2>/dev/null
  [[ -n $run ]] && rm -rf "$run"
}
