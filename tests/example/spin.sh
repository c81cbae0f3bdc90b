#!/usr/bin/env bash
# The example system under real Spin: every property of esm/examples/dmapair.esm must pass, and
# the same system with a seeded bug (Tx starts the DMA engine without acquiring it) must fail on
# the property that names the bug, with a counterexample in ESM terms.
set -u
ESMC=${ESMC:-build/san/bin/esmc}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
pass=0; fail=0
check() { if eval "$2"; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi; }

mkdir -p "$work/good" "$work/bug"
"$ESMC" --pml -o "$work/good" esm/examples/dmapair.esm
ESMC=$ESMC models/verify.sh "$work/good/dmapair.pml" >"$work/good.out" 2>&1
rc=$?
cat "$work/good.out"
check "example verifies" "[[ $rc -eq 0 ]] && ! grep -q '| FAIL' '$work/good.out'"
for p in dma_exclusive one_owner full_duplex all_delivered posted_sent deadlock; do
  check "example: $p passes" "grep -Eq '\\| *$p[a-z+]* *\\|.*\\| PASS' '$work/good.out'"
done

sed -e 's|on acquire hostdma / dma_start(false, tx_dma_done)|when / dma_start(false, tx_dma_done)|' \
    -e 's|on tx_dma_done / release hostdma; |on tx_dma_done / |' \
    esm/examples/dmapair.esm >"$work/bug/dmapair.esm"
check "the seeded bug is applied" "! cmp -s esm/examples/dmapair.esm '$work/bug/dmapair.esm'"
"$ESMC" --pml -o "$work/bug" "$work/bug/dmapair.esm"
ESMC=$ESMC models/verify.sh "$work/bug/dmapair.pml" >"$work/bug.out" 2>&1
rc=$?
cat "$work/bug.out"
check "the seeded bug fails verification" "[[ $rc -ne 0 ]]"
check "it fails dma_exclusive" "grep -Eq '\\| *dma_exclusive *\\|.*\\| FAIL' '$work/bug.out'"
check "the counterexample is in ESM terms" \
  "grep -Eq 'Tx: WaitDma --when--> Fetching .*dmapair.esm:[0-9]+' '$work/bug.out'"
check "the final state names both machines' states" \
  "grep -Eq 'Tx +in Fetching' '$work/bug.out' && grep -Eq 'Rx +in Delivering' '$work/bug.out'"
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
