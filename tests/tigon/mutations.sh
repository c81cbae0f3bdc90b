#!/usr/bin/env bash
# Seeded bugs in the two-processor specs (esm/tigon/): each must be caught, by esmc or by Spin
# with the message that names it. The counter both processors update without its lock is
# rejected by esmc; forced through (--unlocked-shared) Spin must show the lost update.
set -u
ESMC=${ESMC:-build/san/bin/esmc}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
pass=0; fail=0
ok()  { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

# name | file (under esm/tigon) | sed script | how it is caught: esmc:MESSAGE or spin:MESSAGE |
# esmc options
mutations=(
  "counter_without_lock|stats/stats.esm|s/ lock statlock;/;/; s/on acquire statlock \/ frames += 1; release statlock/when \/ frames += 1/|esmc:'frames' is written from processor 0 (TXSTAT|"
  "counter_lost_update|stats/stats.esm|s/ lock statlock;/;/; s/on acquire statlock \/ frames += 1; release statlock/when \/ frames += 1/|spin:lost update of frames|--unlocked-shared"
  "counter_update_without_acquire|stats/stats.esm|0,/on acquire statlock \/ frames += 1; release statlock/s//when \/ frames += 1/|spin:TXSTAT writes frames without holding its lock statlock|"
  "send_on_receive_processor|partition.esm|s/^processor 0: SDMA, SEND;/processor 0: SDMA;/; s/^processor 1: RECV, RDMA, VM;/processor 1: SEND, RECV, RDMA, VM;/|esmc:'sbuf_state' is written from both processors|"
)

for m in "${mutations[@]}"; do
  IFS='|' read -r name file script how opts <<<"$m"
  dir=$work/$name; mkdir -p "$dir/src" "$dir/out"
  if [[ $file == stats/* ]]; then srcs=("$dir/src/stats.esm"); cp esm/tigon/stats/stats.esm "$dir/src/"
  else
    cp esm/machines/*.esm esm/tigon/*.esm "$dir/src/"; rm "$dir/src/datapath_bounds.esm"
    srcs=("$dir"/src/*.esm)
  fi
  target=$dir/src/$(basename "$file")
  sed -i "$script" "$target"
  if cmp -s "esm/tigon/$file" "$target"; then bad "$name: the mutation no longer applies"; continue; fi
  # shellcheck disable=SC2086
  "$ESMC" $opts --pml -o "$dir/out" "${srcs[@]}" >"$dir/esmc.out" 2>&1; rc=$?
  want=${how#*:}
  if [[ $how == esmc:* ]]; then
    if [[ $rc -eq 1 ]] && grep -qF -- "$want" "$dir/esmc.out"; then ok "$name: rejected by esmc"
    else bad "$name: esmc did not reject it ($rc)"; sed 's/^/    /' "$dir/esmc.out" | head; fi
    continue
  fi
  [[ $rc -eq 0 ]] || { bad "$name: the mutant does not compile"; sed 's/^/    /' "$dir/esmc.out"; continue; }
  ESMC=$ESMC models/verify.sh --only deadlock+checks "$dir"/out/*.pml >"$dir/verify.out" 2>&1
  if grep -qF -- "assertion failed: " "$dir/verify.out" && grep -qF -- "$want" "$dir/verify.out"; then
    ok "$name: caught by Spin ($want)"
  else bad "$name: Spin did not report '$want'"; sed 's/^/    /' "$dir/verify.out" | head -n 30; fi
done
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
