# tests/common/ports.sh: free TCP/UDP ports for shell tests and benchmarks. Sourced from the top
# of the tree.
#
# free_ports COUNT
#   Prints BASE such that BASE..BASE+COUNT-1 carry no TCP or UDP socket now, in any state. BASE
#   is taken below the kernel's ephemeral range (ip_local_port_range), so that no client's
#   socket, in this test or a test beside it, can take one of them later (above it only when
#   the room below is under 1000 ports); where it starts is derived from the PID, so runs side
#   by side spread over the range.
free_ports() {
  local n=${1:-1} eph lo=20000 hi used try base
  read -r eph _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || eph=32768
  hi=$((eph - n))
  ((hi > lo + 1000)) || { lo=1024; hi=$((eph - n)); }
  ((hi > lo + 1000)) || { lo=$((eph + 1000)); hi=$((65535 - n)); }
  used=$(ss -Htuan 2>/dev/null | awk '{ sub(/.*:/, "", $5); print $5 }' | sort -un)
  for try in $(seq 200); do
    base=$((lo + ($$ * 7919 + try * 104729) % (hi - lo)))
    awk -v b="$base" -v n="$n" '$1 >= b && $1 < b + n { f = 1 } END { exit !f }' <<<"$used" ||
      { echo "$base"; return 0; }
  done
  echo "$base"   # every try crowded: the caller's bind will say so
}
