#!/usr/bin/env bash
# Seeded bugs in copies of the router's machines (esm/spine): each must make Spin fail the
# property that names it. A mutation that no longer applies (the spec changed under it) fails
# too, so the list stays true. MUTATIONS_ONLY=a,b runs those.
set -u
cd "$(dirname "$0")/../.."
. tests/common/mutant.sh
ESMC=${ESMC:-build/bin/esmc}
work=$(mktemp -d "${TMPDIR:-/tmp}/spine-mut.XXXXXX"); trap 'rm -rf "$work"' EXIT
pass=0; fail=0

# name | file | sed script | property expected to fail
mutations=(
  "complete_before_drain|spine.esm|s/when \[draining \&\& qdone >= mark\]/when [draining]/|none_after_delete_done"
  "ttl_one_forwarded|spine.esm|s/if (ttl <= 1) {/if (ttl < 1) {/|ttl_never_wraps"
  "send_without_pop|spine.esm|s/pop(txq, what); transmit(what)/what = head(txq); transmit(what)/|no_packet_twice"
  "old_table_kept|spine.esm|s/bank = 1 - bank; gen/bank = bank; gen/|none_after_delete_done"
)

for m in "${mutations[@]}"; do
  IFS='|' read -r name file script prop <<<"$m"
  [[ -z ${MUTATIONS_ONLY:-} || ,$MUTATIONS_ONLY, == *,$name,* ]] || continue
  dir=$work/$name
  if ! mutant_apply "$name" esm/spine "$file" "$script" "$dir"; then fail=$((fail + 1)); continue; fi
  if ! mutant_compile "$name" "$dir" "$dir/src/spine.esm" "$dir/src/env.esm" "$dir/src/props.esm"; then
    fail=$((fail + 1)); continue
  fi
  if mutant_caught "$name" spine "$prop" "$dir"; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
