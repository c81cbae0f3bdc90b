#!/usr/bin/env bash
# Decoder conformance of the LANai ISS against llvm-objdump 14 (check_disasm.py): the
# generated corpus of every encoding class plus every word of the firmware image's text.
set -u
cd "$(dirname "$0")/../.."
# A fresh make, not a child of the `make test` that may be running us.
if ! out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory \
      firmware-lanai build/tests/iss/iss-dis 2>&1); then
  printf '%s\n' "$out" | tail -n 30
  echo "0 passed, 1 failed"
  exit 1
fi
if python3 tests/iss/check_disasm.py build/tests/iss/iss-dis build/lanai/firmware.img \
     build/lanai/firmware.map; then
  echo "1 passed, 0 failed"
else
  echo "0 passed, 1 failed"; exit 1
fi
