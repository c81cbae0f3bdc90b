#!/usr/bin/env bash
# Seeded bugs in copies of the router's machines (esm/spine): each must make Spin fail the
# property that names it. A mutation that no longer applies (the spec changed under it) fails
# too, so the list stays true. MUTATIONS_ONLY=a,b runs those. One seeded bug per core at once
# (tests/common/pool.sh).
set -u
cd "$(dirname "$0")/../.."
. tests/common/mutant.sh
. tests/common/pool.sh
ESMC=${ESMC:-build/bin/esmc}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# name | file | sed script | property expected to fail
mutations=(
  "complete_before_drain|spine.esm|s/when \[draining \&\& qdone >= mark\]/when [draining]/|none_after_delete_done"
  "ttl_one_forwarded|spine.esm|s/if (ttl <= 1) {/if (ttl < 1) {/|ttl_never_wraps"
  "send_without_pop|spine.esm|s/pop(txq, what); transmit(what)/what = head(txq); transmit(what)/|no_packet_twice"
  "old_table_kept|spine.esm|s/bank = 1 - bank; gen/bank = bank; gen/|none_after_delete_done"
)

# mutant NAME FILE SCRIPT PROP: one seeded bug, verified; prints "ok" or "FAIL".
mutant() {
  local name=$1 file=$2 script=$3 prop=$4 dir=$work/$1
  mutant_apply "$name" esm/spine "$file" "$script" "$dir" || return
  mutant_compile "$name" "$dir" "$dir/src/spine.esm" "$dir/src/env.esm" "$dir/src/props.esm" || return
  mutant_caught "$name" spine "$prop" "$dir"
}

pool_init
for m in "${mutations[@]}"; do
  IFS='|' read -r name file script prop <<<"$m"
  [[ -z ${MUTATIONS_ONLY:-} || ,$MUTATIONS_ONLY, == *,$name,* ]] || continue
  pool_run mutant "$name" "$file" "$script" "$prop"
done
pool_wait
echo "$pool_pass passed, $pool_fail failed"
[[ $pool_fail -eq 0 ]]
