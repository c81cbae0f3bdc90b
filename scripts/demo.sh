#!/usr/bin/env bash
# The main job (`make demo`): compile the ESM systems to models, C and diagrams, model-check
# every property with Spin, show a seeded bug being caught with its counterexample in ESM terms,
# run the generated firmware C against simulated hardware, then deploy the firmware onto LANai:
# link its LANai image, start the emulated NICs with that image running on their simulated
# LANai processors, and move a byte stream between two processes over SOVIA sockets.
set -euo pipefail
cd "$(dirname "$0")/.."
ESMC=build/bin/esmc
out=build/demo
rm -rf "$out"; mkdir -p "$out"
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "1. esmc: one ESM source, three outputs (esm/examples/dmapair.esm -> $out/dmapair/)"
$ESMC -o "$out/dmapair" esm/examples/dmapair.esm
$ESMC -o "$out/datapath" esm/machines/*.esm
for d in "$out"/dmapair "$out"/datapath; do
  for f in "$d"/*.dot; do dot -Tsvg "$f" -o "${f%.dot}.svg"; done
done
ls "$out/dmapair"
echo "diagrams: $out/*/*.svg (the data-movement machines: $out/datapath/datapath_*.svg)"

step "2. make verify: every property of every system, checked by Spin"
make -s verify

step "3. a seeded bug: Tx starts the DMA engine without acquiring it"
mkdir -p "$out/bug"
sed -e 's|on acquire hostdma / dma_start(false, tx_dma_done)|when / dma_start(false, tx_dma_done)|' \
    -e 's|on tx_dma_done / release hostdma; |on tx_dma_done / |' \
    esm/examples/dmapair.esm >"$out/bug/dmapair.esm"
diff -u esm/examples/dmapair.esm "$out/bug/dmapair.esm" || true
$ESMC --pml -o "$out/bug" "$out/bug/dmapair.esm"
if ESMC=$ESMC models/verify.sh "$out/bug/dmapair.pml"; then
  echo "demo: the seeded bug was NOT caught" >&2
  exit 1
fi
echo "(caught: the table and the counterexample above are in ESM terms)"

step "4. the generated firmware C, run against simulated hardware with real data"
make -s build/san/tests/example/harness build/san/tests/datapath/harness
build/san/tests/example/harness | tail -n 1
build/san/tests/datapath/harness 8

step "5. deploy onto LANai: the firmware linked for the LANai (build/lanai/firmware.img)"
make -s firmware-lanai >/dev/null
cat build/lanai/firmware.sizes

step "6. the emulated NICs: nicd hosts two, each runs the LANai image on its simulated LANai;"
echo "   host programs talk SOVIA sockets across them"
run=$(mktemp -d /tmp/verinic-demo.XXXXXX)
printf '10.0.0.1 0\n10.0.0.2 1\n' >"$run/hosts"
export VERINIC_RUN=$run VERINIC_HOSTS=$run/hosts
build/bin/nicd -n 2 --run "$run" --prefix /vdemo$$-nic --lanai build/lanai/firmware.img &
nicd=$!
trap 'kill $nicd 2>/dev/null; wait $nicd 2>/dev/null; rm -rf "$run"' EXIT
for _ in $(seq 50); do [[ -S $run/nicd.sock ]] && break; sleep 0.1; done
echo "nicd (pid $nicd): NICs /vdemo$$-nic0 (10.0.0.1) and /vdemo$$-nic1 (10.0.0.2)"
SOVIA_NIC=/vdemo$$-nic0 build/bin/sovia_xfer serve 5000 &
server=$!
sleep 0.5
SOVIA_NIC=/vdemo$$-nic1 build/bin/sovia_xfer send 10.0.0.1 5000 $((20 * 1024 * 1024))
wait $server
echo "the same program over kernel TCP on loopback, for comparison:"
build/bin/sovia_xfer --tcp serve 5001 &
server=$!
sleep 0.3
build/bin/sovia_xfer --tcp send 127.0.0.1 5001 $((20 * 1024 * 1024))
wait $server
echo "NIC 0 (build/bin/nicstat): its LANai processor and the firmware's counters:"
build/bin/nicstat /vdemo$$-nic0 | head -n 34 || true

step "done"
