#!/usr/bin/env bash
# lanai-ld on bad input, with objects made by the real toolchain: every failure must be a
# named "lanai-ld: <file>: error: ..." with exit status 1 and no image left behind; and no
# truncated or corrupted object may crash it (sanitized build).
set -u
cd "$(dirname "$0")/../.."
LD=${LANAI_LD:-build/san/bin/lanai-ld}
[[ -x $LD ]] || env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s "$LD"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0

ok()  { pass=$((pass + 1)); echo "ok    $1"; }
bad() { fail=$((fail + 1)); echo "FAIL  $1"; shift; printf '    | %s\n' "$@"; }

lanai_c() { # lanai_c OUT.o [clang flags] < source
  local out=$1; shift
  clang --target=lanai -ffreestanding -O2 "$@" -c -x c - -o "$tmp/$out"
}
lanai_s() { llvm-mc -triple=lanai -filetype=obj -o "$tmp/$1"; }

# expect_error NAME REGEX lanai-ld-args...
expect_error() {
  local name=$1 regex=$2; shift 2
  rm -f "$tmp/out.img"
  "$LD" -q -o "$tmp/out.img" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
  local rc=$? err
  err=$(cat "$tmp/stderr")
  if [[ $rc -eq 1 ]] && grep -Eq -- "$regex" "$tmp/stderr" && [[ ! -e $tmp/out.img ]] &&
     ! grep -q 'Sanitizer' "$tmp/stderr"; then
    ok "$name"
  else
    bad "$name" "exit $rc, want 1 and stderr matching: $regex" "$err"
  fi
}

expect_ok() {
  local name=$1; shift
  if "$LD" -q -o "$tmp/ok.img" "$@" 2>"$tmp/stderr"; then ok "$name"
  else bad "$name" "$(cat "$tmp/stderr")"; fi
}

P="^lanai-ld: $tmp"

# --- unresolved and conflicting symbols -------------------------------------------------
lanai_c u.o <<<'int missing(int); void _start(void) { missing(1); }'
expect_error "undefined symbol is named" "$P/u\.o: error: undefined symbol 'missing'\$" "$tmp/u.o"

lanai_c d1.o <<<'int dup = 1; void _start(void) {}'
lanai_c d2.o <<<'int dup = 2;'
expect_error "duplicate definition" \
  "$P/d2\.o: error: duplicate symbol 'dup' \(also defined in $tmp/d1\.o\)\$" "$tmp/d1.o" "$tmp/d2.o"

lanai_c noentry.o <<<'int f(void) { return 1; }'
expect_error "missing entry symbol" "^lanai-ld: error: entry symbol '_start' is not defined\$" \
  "$tmp/noentry.o"

# Weak loses to strong, commons merge: links, and the map holds the strong definition.
lanai_c w1.o -fcommon <<<'__attribute__((weak)) int pick(void) { return 1; }
int shared; void _start(void) { shared = pick(); }'
lanai_c w2.o -fcommon <<<'int shared; int pick(void) { return 40 + shared * 3; }'
expect_ok "weak and common symbols link" "$tmp/w1.o" "$tmp/w2.o"
weak=$(llvm-readelf -s "$tmp/w1.o" | awk '$8 == "pick" { print $3 }')
strong=$(llvm-readelf -s "$tmp/w2.o" | awk '$8 == "pick" { print $3 }')
mapped=$(( $(awk '$1 == "symbol" && $5 == "pick" { print $3 }' "$tmp/ok.img.map") ))
commons=$(awk '$1 == "symbol" && $5 == "shared" && $4 == "B"' "$tmp/ok.img.map" | wc -l)
if [[ -n $strong && $weak != "$strong" && $strong == "$mapped" && $commons -eq 1 ]]; then
  ok "strong definition wins over weak, one common 'shared' in .bss"
else
  bad "strong definition wins over weak" "weak size $weak, strong $strong, mapped $mapped, commons $commons"
fi

# --- memory budget and relocation ranges -------------------------------------------------
lanai_c big.o <<<'char big[600000]; void _start(void) { big[0] = 1; }'
expect_error "SRAM budget exceeded" \
  "^lanai-ld: error: image does not fit the SRAM budget: .* bss 600000 .*over by [0-9]+\)\$" \
  --budget 512K "$tmp/big.o"
expect_ok "the same image fits the default budget" "$tmp/big.o"
expect_error "stack larger than budget" "stack .* is larger than --budget" \
  --budget 64K --stack 128K "$tmp/big.o"
expect_error "budget must be a multiple of 8" "--budget '7': want a multiple of 8" \
  --budget 7 "$tmp/big.o"

# 'far' is a common, and commons go after every .bss section: above the 3 MiB pad.
lanai_c far21.o -fcommon <<<'char pad[3 << 20] = {0}; int far;
void _start(void) { int v; __asm__ volatile("ld [%1], %0" : "=r"(v) : "i"(&far)); pad[0] = (char)v; }'
expect_error "R_LANAI_21 overflow above 2 MiB" \
  "$P/far21\.o: error: relocation R_LANAI_21 at \.text\+0x[0-9a-f]+ against '[^']+' overflows: value 0x00[3-9a-f][0-9a-f]{5}, must be below 0x00200000\$" \
  --budget 8M "$tmp/far21.o"

printf '\t.text\n\t.globl _start\n_start:\n\tbt far\n\tnop\n' | lanai_s far25.o
printf '\t.globl far\n\t.set far, 0x4000000\n' | lanai_s abs.o
expect_error "R_LANAI_25 overflow beyond 32 MiB" \
  "$P/far25\.o: error: relocation R_LANAI_25 at \.text\+0x0 against 'far' overflows: value 0x04000000, must be below 0x02000000\$" \
  "$tmp/far25.o" "$tmp/abs.o"

printf '\t.text\n\t.globl _start\n_start:\n\tbt _start+2\n\tnop\n' | lanai_s odd.o
expect_error "misaligned branch target" \
  "$P/odd\.o: error: relocation R_LANAI_25 at \.text\+0x0 against '_start': value 0x00000002 is not word-aligned\$" \
  "$tmp/odd.o"

# --- relocation types and malformed files ------------------------------------------------
lanai_c rel.o <<<'int g; void _start(void) { g = 1; }'
python3 -B - "$tmp/rel.o" "$tmp/unsup.o" <<'PY'
import sys
sys.path.insert(0, "tests/lanai")
from elfread import Elf
src, dst = sys.argv[1], sys.argv[2]
obj = Elf(src)
data = bytearray(obj.data)
rela = [s for s in obj.sections if s["type"] == 4 and s["size"]][0]
data[rela["offset"] + 7] = 9   # r_info low byte: the type
open(dst, "wb").write(data)
PY
expect_error "unsupported relocation type" "$P/unsup\.o: error: unsupported relocation type 9 at \.text\+0x" \
  "$tmp/unsup.o"

echo "not an object" >"$tmp/text.o"
expect_error "not an ELF file" "$P/text\.o: error: malformed ELF: not an ELF file\$" "$tmp/text.o"
echo 'int x;' | gcc -x c -c - -o "$tmp/host.o"
expect_error "host (x86-64) object" "$P/host\.o: error: malformed ELF: not ELF32 big-endian" "$tmp/host.o"
printf '\t.long 0\n' | llvm-mc -triple=armebv7 -filetype=obj -o "$tmp/arm.o" 2>/dev/null &&
  expect_error "big-endian object of another machine" "$P/arm\.o: error: not a LANai object \(e_machine 40" "$tmp/arm.o"
lanai_c m.o <<<'int missing(int x) { return x; }'
"$LD" -q -o "$tmp/e.img" --elf "$tmp/exec.elf" "$tmp/u.o" "$tmp/m.o" 2>/dev/null
expect_error "executable as input" "$P/exec\.elf: error: not a relocatable object \(e_type 2\)" "$tmp/exec.elf"
head -c 100 "$tmp/u.o" >"$tmp/trunc.o"
expect_error "truncated object" "$P/trunc\.o: error: malformed ELF: section headers .* extend past the end of the file \(100 bytes\)" \
  "$tmp/trunc.o"
expect_error "unreadable input" "$P/nope\.o: error: cannot read: No such file or directory" "$tmp/nope.o"

# An older image must not survive a failed link.
echo stale >"$tmp/stale.img"
"$LD" -q -o "$tmp/stale.img" "$tmp/u.o" 2>/dev/null
[[ ! -e $tmp/stale.img ]] && ok "failed link removes the stale image" || bad "failed link removes the stale image"

# --- corruption sweep: exit 0 or 1, never a crash or sanitizer report ---------------------
lanai_c sweep.o <<<'int g = 5; static int t[3] = {1, 2, 3}; int h(int x) { return x * g + t[x & 1]; }
void _start(void) { g = h(g) / 3; }'
python3 - "$tmp/sweep.o" "$tmp/mut" <<'PY'
import os, random, sys
data = open(sys.argv[1], "rb").read()
os.makedirs(sys.argv[2])
rnd = random.Random(7)
n = 0
for cut in range(0, len(data), max(1, len(data) // 60)):
    open(os.path.join(sys.argv[2], "cut%d" % n), "wb").write(data[:cut]); n += 1
for _ in range(150):
    d = bytearray(data)
    for _ in range(rnd.randint(1, 4)):
        d[rnd.randrange(len(d))] = rnd.choice([0, 1, 0x7f, 0x80, 0xff, rnd.randrange(256)])
    open(os.path.join(sys.argv[2], "flip%d" % n), "wb").write(d); n += 1
PY
crashes=()
runs=0
for f in "$tmp"/mut/*; do
  "$LD" -q -o "$tmp/m.img" "$f" >/dev/null 2>"$tmp/stderr"
  rc=$?; runs=$((runs + 1))
  if [[ $rc -gt 1 ]] || grep -q Sanitizer "$tmp/stderr"; then crashes+=("$(basename "$f") exit $rc"); fi
done
[[ ${#crashes[@]} -eq 0 ]] && ok "corruption sweep: $runs truncated/mutated objects, no crash" ||
  bad "corruption sweep" "${crashes[@]}"

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
