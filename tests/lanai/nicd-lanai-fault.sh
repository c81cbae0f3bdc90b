#!/usr/bin/env bash
# nicd --lanai when the firmware goes wrong: a LANai image whose PANIC mailbox handler starts
# with an undefined instruction word, and one where it spins forever, each reached after boot by
# a host command to NIC 0 of three. NIC 0 must show FAULTED with the reason and pc in nicstat,
# its host program must get an error within a second or so, and nicd must go on serving the
# other NICs (a SOVIA byte stream from NIC 1 to NIC 2 afterwards). Bad images are refused with
# a named error.
set -u
P=${PANICCTL:-build/bin/panicctl}
S=build/bin/nicstat
IMG=${VERINIC_LANAI_IMAGE:-build/lanai/firmware.img}
. "$(dirname "$0")/../common/nicd.sh"
work=$(mktemp -d)
trap 'nicd_cleanup; rm -rf "$work"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
check() { local name=$1; shift; if "$@"; then ok; else bad "$name"; fi; }

map=${IMG%.img}.map
at=$(awk '$1 == "symbol" && $5 == "fw_vm_ctl_doorbell" { print $2 }' "$map")
[[ -n $at ]] || { echo "no fw_vm_ctl_doorbell in $map"; exit 1; }

# patched NAME WORD...: a copy of the image (and its map) with WORDs from fw_vm_ctl_doorbell on.
patched() {
  local name=$1; shift
  cp "$IMG" "$work/$name.img"; cp "$map" "$work/$name.map"
  python3 - "$work/$name.img" "$at" "$@" <<'PY'
import struct, sys
path, at, words = sys.argv[1], int(sys.argv[2], 16), [int(w, 16) for w in sys.argv[3:]]
b = bytearray(open(path, 'rb').read())
for i, w in enumerate(words):
    b[at + 4 * i:at + 4 * i + 4] = struct.pack('>I', w)
open(path, 'wb').write(b)
PY
}

# run_case NAME REASON WATCHDOG-OPTS...: boots the patched image on two NICs, makes NIC 0 run
# the patched code, checks what every party sees.
run_case() {
  local name=$1 reason=$2; shift 2
  VERINIC_FIRMWARE=lanai VERINIC_LANAI_IMAGE=$work/$name.img nicd_start "lf$name" -n 3 "$@" \
    || { bad "$name: nicd started"; cat "$run/nicd.log"; return; }
  echo "10.0.0.3 2" >>"$run/hosts"
  check "$name: NIC 0 running before" grep -q "running" <("$S" "${prefix}0")
  # a SOVIA server listening on NIC 0 (its listener thread waits in nicd's connection manager)
  SOVIA_NIC=${prefix}0 timeout 20 build/bin/sovia_xfer serve 5001 >"$work/s0.log" 2>&1 &
  local s0=$!
  local t0 out st secs
  t0=$(date +%s.%N)
  out=$(timeout 20 "$P" -d "${prefix}0" list 2>&1); st=$?
  secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
  check "$name: the host command fails (status $st: $out)" test "$st" = 1
  # within about a second of the fault (the watchdog's own time first); generous for a loaded CI
  check "$name: the host learns it in ${secs}s" awk -v s="$secs" 'BEGIN { exit !(s < 8) }'
  out=$("$S" "${prefix}0")
  check "$name: nicstat says FAULTED ($reason at pc $pcs)" \
    grep -Eq "FAULTED: $reason at pc ($pcs)" <<<"$out"
  grep -q "FAULTED: $reason" <<<"$out" || echo "$out"
  SOVIA_NIC=${prefix}2 timeout 20 build/bin/sovia_xfer serve 5000 >"$work/srv.log" 2>&1 &
  local srv=$!
  sleep 0.3
  check "$name: NICs 1 and 2 still carry a byte stream" \
    env SOVIA_NIC="${prefix}1" timeout 20 build/bin/sovia_xfer send 10.0.0.3 5000 262144
  check "$name: every byte arrived" wait "$srv"
  check "$name: nicd still runs" kill -0 "$nicd"
  check "$name: nicd logged the fault" grep -q "NIC 0: FAULTED: $reason" "$run/nicd.log"
  # a SOVIA connect to the listener on the faulted NIC fails
  out=$(SOVIA_NIC=${prefix}1 timeout 20 build/bin/sovia_xfer send 10.0.0.1 5001 4096 2>&1); st=$?
  check "$name: a SOVIA connect to the faulted NIC fails (status $st: $out)" test "$st" = 1
  kill "$s0" 2>/dev/null; wait "$s0" 2>/dev/null
  nicd_cleanup; nicd=; run=
}

# An undefined word (special group, operation 111) at the handler's entry.
patched undef d0000007
pcs=$(printf '0x%08x' $((at)))
run_case undef "undefined instruction"

# A loop that never reads the event register: nop; bt (back to the nop); nop (delay slot).
loop=$(printf 'e%07x' $((at)))
patched runaway 00000001 "$loop" 00000001
pcs=$(printf '0x%08x|0x%08x|0x%08x' $((at)) $((at + 4)) $((at + 8)))
run_case runaway "runaway firmware" --watchdog-ms 200

# Bad images: refused before any NIC is created.
refused() {
  local name=$1 pat=$2 file=$3 out
  out=$(timeout 10 build/bin/nicd -n 1 --run "$work" --prefix "/lfbad$$-nic" --lanai "$file" 2>&1)
  local st=$?
  if [[ $st -eq 1 ]] && grep -q -- "$pat" <<<"$out"; then ok
  else bad "image $name: status $st, output: $out"; fi
}
printf 'not an image at all, just text\n' >"$work/text.img"
refused text "not a LANai image" "$work/text.img"
refused elf "not a LANai image" /bin/true
head -c 64 "$IMG" >"$work/short.img"; cp "$map" "$work/short.map"
refused truncated "truncated" "$work/short.img"
refused missing "$work/none.img" "$work/none.img"

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
