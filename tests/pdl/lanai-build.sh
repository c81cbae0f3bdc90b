#!/usr/bin/env bash
# The VM must build freestanding, warning-free, for the LANai target (clang --target=lanai).
set -u
out=build/lanai-check/vm; mkdir -p "$out"
pass=0; fail=0
for f in firmware/vm/*.c; do
  if clang --target=lanai -ffreestanding -O2 -Wall -Wextra -Werror -std=c11 -Ifirmware/vm \
       -c "$f" -o "$out/$(basename "${f%.c}").o"; then pass=$((pass+1)); else fail=$((fail+1)); fi
done
# Only the compiler runtime (LANai has no mul/div) may be left undefined: no libc.
undef=$(llvm-nm -u "$out"/*.o 2>/dev/null | awk '{print $2}' | grep -v '^__\(mul\|div\|mod\|udiv\|umod\)si3$' \
        | grep -v '^vm_' | sort -u)
if [[ -n $undef ]]; then echo "unexpected undefined symbols: $undef"; fail=$((fail+1)); else pass=$((pass+1)); fi
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
