#!/usr/bin/env bash
# Integration test of `make firmware-lanai`: builds the image with the real toolchain, then
# checks it from outside lanai-ld (check_image.py: llvm-objdump and an independent ELF reader).
set -u
cd "$(dirname "$0")/../.."
# A fresh make, not a child of the `make test` that may be running us.
out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory \
      firmware-lanai build/san/bin/lanai-ld 2>&1)
rc=$?
printf '%s\n' "$out" | tail -n 3
if [[ $rc -ne 0 ]]; then
  printf '%s\n' "$out" | tail -n 30
  echo "make firmware-lanai failed"
  echo "0 passed, 1 failed"
  exit 1
fi
exec python3 tests/lanai/check_image.py build/lanai build/san/bin/lanai-ld
