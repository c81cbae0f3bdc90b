#!/usr/bin/env bash
# Seeded bugs in copies of the data-movement specs: each must make verification fail on the
# property that names it. A mutation that no longer applies (the spec changed under it) fails
# too, so the list stays true. MUTATIONS_ONLY=name1,name2 runs only those.
set -u
ESMC=${ESMC:-build/san/bin/esmc}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
. tests/common/pool.sh

# name | file | sed script | property expected to fail [| model: datapath (default) or
# datapath_vm, the model with the PANIC VM active (esm/machines/vmcheck/)]
mutations=(
  "sdma_skips_acquire|sdma.esm|s/on acquire hostdma \[/when [/; s/release hostdma; //|eudp4_hostdma_exclusive"
  "rdma_frees_before_dma_done|rdma.esm|s/len = rfill\[cons\]; hdma_start/len = rfill[cons]; rbuf_state[cons] = FREE; hdma_start/|recv_buffer_not_refilled_early"
  "send_threshold_check_removed|send.esm|s/when \[sbuf_state\[cons\] == FILLING \&\& sfill\[cons\] - sent >= THRESH\]/when [sbuf_state[cons] == FILLING]/|no_send_before_arrival"
  "rdma_threshold_check_removed|rdma.esm|s/when \[rbuf_state\[cons\] == FILLING \&\& rfill\[cons\] - moved >= THRESH\] -> WaitFine;/when [rbuf_state[cons] == FILLING] -> WaitFine;/|no_rdma_before_arrival"
  "send_frees_before_last_fragment|send.esm|s/on send_done \[sent + len < slen\[cons\]\] \/ sent += len -> Check;/on send_done [sent + len < slen[cons]] \/ sent += len; sbuf_state[cons] = FREE -> Check;/|send_buffer_not_refilled_early"
  "lost_doorbell|sdma.esm|s/^  initial rest state Idle {/  initial rest state Idle {\n    on doorbell [sbuf_state[prod] != FREE] -> Idle;/|every_send_on_wire"
  "missed_wakeup|sdma.esm|s/prod = (prod + 1) % NSBUF; if (pending(tx_wake) == 0) { raise tx_wake } -> Idle;/prod = (prod + 1) % NSBUF -> Idle;/|every_send_on_wire"
  "vm_dma_without_engine|vm.esm|s/on acquire hostdma \/ vm_exec/when \/ vm_exec/; s/on vm_ran \/ release hostdma -> Check;/on vm_ran -> Check;/|eudp4_hostdma_exclusive|datapath_vm"
)

# mutant NAME FILE SCRIPT PROP MODEL: one seeded bug, verified; prints "ok" or "FAIL".
mutant() {
  local name=$1 file=$2 script=$3 prop=$4 model=$5 dir=$work/$1
  mkdir -p "$dir/src" "$dir/out"
  cp esm/machines/*.esm "$dir/src/"
  if [[ $model == datapath_vm ]]; then
    rm "$dir/src/datapath_bounds.esm" "$dir/src/datapath_props.esm"
    cp esm/machines/vmcheck/*.esm "$dir/src/"
  fi
  sed -i "$script" "$dir/src/$file"
  if cmp -s "esm/machines/$file" "$dir/src/$file"; then
    echo "FAIL $name: the mutation no longer applies to $file"; return
  fi
  if ! "$ESMC" --pml -o "$dir/out" "$dir"/src/*.esm 2>"$dir/esmc.err"; then
    echo "FAIL $name: the mutant does not compile:"; sed 's/^/    /' "$dir/esmc.err"; return
  fi
  ESMC=$ESMC models/verify.sh --only "$prop" "$dir/out/datapath.pml" >"$dir/verify.out" 2>&1
  if grep -Eq "\| *$prop *\|.*\| FAIL" "$dir/verify.out"; then
    echo "ok   $name: caught by $prop"
    grep -m1 -E '^step [0-9]+:' "$dir/verify.out" >/dev/null || echo "     (no ESM trail printed)"
  else
    echo "FAIL $name: $prop did not fail"; sed 's/^/    /' "$dir/verify.out" | head -n 30
  fi
}

pool_init
for m in "${mutations[@]}"; do
  IFS='|' read -r name file script prop model <<<"$m"
  [[ -z ${MUTATIONS_ONLY:-} || ,$MUTATIONS_ONLY, == *,$name,* ]] || continue
  pool_run mutant "$name" "$file" "$script" "$prop" "${model:-datapath}"
done
pool_wait
pass=$pool_pass; fail=$pool_fail
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
