#!/usr/bin/env bash
# Seeded bugs in copies of the Reliable Delivery machines (esm/reliab): each must make Spin fail
# the property that names it, in the model that names it. A mutation that no longer applies
# (the spec changed under it) fails too, so the list stays true. MUTATIONS_ONLY=a,b runs those.
# One seeded bug per core at once (tests/common/pool.sh).
set -u
cd "$(dirname "$0")/../.."
. tests/common/mutant.sh
. tests/common/pool.sh
ESMC=${ESMC:-build/bin/esmc}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# name | file | sed script | property expected to fail | model: reliab, or reliab_seqwrap
# (the model whose sequence numbers wrap, esm/reliab/seqwrap/)
mutations=(
  "no_timer_restart|sender.esm|s/snd = base; tarm = true; tgen = (tgen + 1) % TGEN -> Open;/snd = base -> Open;/|ends|reliab"
  "ack_before_delivery|receiver.esm|s/deliver(dseq); dbusy = true; expect/deliver(dseq); dbusy = true; cum = dseq; owed = true; expect/|acked_were_delivered|reliab"
  "window_off_by_one|sender.esm|s/% NSEQ < W \&\& has_new/% NSEQ <= W \&\& has_new/|in_order_exactly_once|reliab_seqwrap"
  "checksum_ignored|receiver.esm|s/on rx_data \[!dbusy \&\& rx_intact \&\& rx_kind == DATA\]/on rx_data [!dbusy \&\& rx_kind == DATA]/|in_order_exactly_once|reliab"
  "duplicate_not_reacked|receiver.esm|/^        } else {\$/{n;s/owed = true/owed = owed/}|fair_never_breaks|reliab"
  "delivery_after_break|receiver.esm|s/host_rx(RX_FLUSHED)/host_rx(RX_DONE)/|no_delivery_after_break|reliab"
)

# mutant NAME FILE SCRIPT PROP MODEL: one seeded bug, verified; prints "ok" or "FAIL".
mutant() {
  local name=$1 file=$2 script=$3 prop=$4 model=$5 dir=$work/$1
  mkdir -p "$dir/src/seqwrap"
  mutant_apply "$name" esm/reliab "$file" "$script" "$dir" || return
  local srcs=("$dir"/src/*.esm)
  if [[ $model == reliab_seqwrap ]]; then
    srcs=("$dir"/src/reliab.esm "$dir"/src/sender.esm "$dir"/src/receiver.esm
          "$dir"/src/channel.esm esm/reliab/seqwrap/*.esm)
  fi
  mutant_compile "$name" "$dir" "${srcs[@]}" || return
  mv "$dir/out/reliab.pml" "$dir/out/$model.pml" 2>/dev/null
  mutant_caught "$name" "$model" "$prop" "$dir"
}

pool_init
for m in "${mutations[@]}"; do
  IFS='|' read -r name file script prop model <<<"$m"
  [[ -z ${MUTATIONS_ONLY:-} || ,$MUTATIONS_ONLY, == *,$name,* ]] || continue
  pool_run mutant "$name" "$file" "$script" "$prop" "$model"
done
pool_wait
echo "$pool_pass passed, $pool_fail failed"
[[ $pool_fail -eq 0 ]]
