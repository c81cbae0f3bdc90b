#!/usr/bin/env bash
# Compiles the C that esmc generates for every golden input and for the harness system with
# gcc -std=c11 -pedantic -Werror (plus the project's warnings, with and without SYS_TRACE) and
# with clang --target=lanai -ffreestanding -Werror -O2, and checks that the LANai objects need
# nothing but each other, the HAL and the compiler's arithmetic helpers (no libc).
set -u
cd "$(dirname "$0")/../../.."
ESMC=${ESMC:-build/san/bin/esmc}
out=build/test/esmc-c/compile
GCC_FLAGS="-std=c11 -Wall -Wextra -Werror -pedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes"
LANAI_FLAGS="--target=lanai -ffreestanding -std=c11 -Wall -Wextra -Werror -O2"
NM=$(command -v llvm-nm-14 || command -v llvm-nm || echo nm)
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

for src in tests/esmc/c/golden/*.esm tests/esmc/c/harness/*.esm; do
  name=$(basename "$src" .esm)
  dir=$out/$name
  rm -rf "$dir"; mkdir -p "$dir"
  if ! "$ESMC" --c -o "$dir" "$src"; then bad "$name: esmc failed"; continue; fi
  sys=$(basename "$(ls "$dir"/*_hal.h)" _hal.h)
  for c in "$dir"/*.c; do
    b=$(basename "$c" .c)
    if gcc $GCC_FLAGS -c "$c" -o "$dir/$b.o"; then ok; else bad "$name: gcc $b.c"; fi
    if gcc $GCC_FLAGS -D"${sys}_TRACE" -c "$c" -o "$dir/$b.trace.o"; then ok; else bad "$name: gcc -D${sys}_TRACE $b.c"; fi
    if clang $LANAI_FLAGS -c "$c" -o "$dir/$b.lanai.o"; then ok; else bad "$name: clang --target=lanai $b.c"; continue; fi
    # Undefined symbols must be the system's own (SYS_...) or LANai arithmetic helpers (__*si3).
    extra=$("$NM" -u "$dir/$b.lanai.o" | awk '{print $NF}' | grep -v -E "^(${sys}_|__(mul|div|udiv|mod|umod)[sd]i3$)")
    if [[ -z $extra ]]; then ok; else bad "$name: $b.c needs $extra"; fi
  done
done
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
