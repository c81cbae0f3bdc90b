#!/usr/bin/env bash
# The image reader (hw/lanai/iss_image.c) through lanai-run: a flat image with its map and
# its ELF twin load and run alike; every bad image is refused with exit status 1 and a named
# message: not a LANai image, truncated, over the SRAM budget.
set -u
cd "$(dirname "$0")/../.."
B=build
# The firmware image, by a fresh make (not a child of the `make test` that may be running us).
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory firmware-lanai >/dev/null 2>&1 ||
  { echo "make firmware-lanai failed"; echo "0 passed, 1 failed"; exit 1; }
run=$B/san/bin/lanai-run
t=$B/tests/iss
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok()  { echo "ok   $1"; pass=$((pass+1)); }
bad() { echo "FAIL $1"; fail=$((fail+1)); }

# refuse DESC SUBSTRING ARGS...: lanai-run must exit 1 with SUBSTRING in its message.
refuse() {
  local desc=$1 want=$2; shift 2
  local msg; msg=$("$run" "$@" 2>&1 >/dev/null); local rc=$?
  if [[ $rc -eq 1 && $msg == *"$want"* ]]; then ok "$desc: $msg"
  else bad "$desc: exit $rc, message '$msg', wanted '$want'"; fi
}

want=$("$t/demo.native")
got=$("$run" "$t/demo.img"); [[ $? -eq 0 && $got == "$want" ]] && ok "flat image + map runs" || bad "flat image: '$got'"
got=$("$run" "$t/demo.elf"); [[ $? -eq 0 && $got == "$want" ]] && ok "ELF twin runs alike" || bad "ELF: '$got'"
cp "$t/demo.img" "$tmp/copy.img"; cp "$t/demo.map" "$tmp/copy.img.map"
got=$("$run" "$tmp/copy.img"); [[ $got == "$want" ]] && ok "map found as IMAGE.map" || bad "IMAGE.map: '$got'"

refuse "no such file" "cannot open" "$tmp/none.img"
: > "$tmp/empty.img"; refuse "empty file" "not a LANai image (empty file)" "$tmp/empty.img"
echo "hello" > "$tmp/text.img"; refuse "text without a map" "not a LANai image (no ELF header and no map" "$tmp/text.img"
refuse "host ELF" "not a LANai image" /bin/true
refuse "relocatable object" "not an executable" "$B/lanai/obj/firmware/lanai/crt0.o"

# truncated: flat (map says more), ELF (header, segment)
cp "$t/demo.map" "$tmp/short.map"; head -c 1000 "$t/demo.img" > "$tmp/short.img"
refuse "flat image cut short" "truncated" "$tmp/short.img"
head -c 40 "$t/demo.elf" > "$tmp/hdr.elf"; refuse "ELF header cut" "truncated ELF header" "$tmp/hdr.elf"
head -c 2000 "$t/demo.elf" > "$tmp/seg.elf"; refuse "ELF segment cut" "truncated" "$tmp/seg.elf"
cp "$t/demo.map" "$tmp/long.map"; { cat "$t/demo.img"; echo extra; } > "$tmp/long.img"
refuse "flat image longer than its map" "not the image of" "$tmp/long.img"

# budget and SRAM
refuse "budget above the SRAM" "do not fit the SRAM budget" --sram 0x10000 "$t/demo.img"
refuse "ELF budget above the SRAM" "do not fit the SRAM budget" --sram 0x10000 "$t/demo.elf"
sed 's/^memory  0x[0-9a-f]*/memory  0x00000100/' "$t/demo.map" > "$tmp/tiny.map"; cp "$t/demo.img" "$tmp/tiny.img"
refuse "image over its own budget" "do not fit the SRAM budget" "$tmp/tiny.img"

# map damage
printf 'garbage line\n' > "$tmp/junk.map"; cp "$t/demo.img" "$tmp/junk.img"
refuse "map with an unknown record" "not a LANai map (unknown record)" "$tmp/junk.img"
grep -v '^output  text' "$t/demo.map" > "$tmp/notext.map"; cp "$t/demo.img" "$tmp/notext.img"
refuse "map without the text record" "not a LANai map" "$tmp/notext.img"

# lanai-run itself: a fault is reported with its pc; the budget ends a spin
msg=$("$run" "$B/lanai/firmware.img" 2>&1 >/dev/null); rc=$?
[[ $rc -eq 2 && $msg == *"bus error at pc 0x"* ]] && ok "firmware without its NIC: $msg" || bad "firmware: exit $rc '$msg'"
msg=$("$run" --max-insns 1000 "$t/suite.img" 2>&1 >/dev/null); rc=$?
[[ $rc -eq 3 && $msg == *"budget of 1000 instructions exhausted"* ]] && ok "budget: $msg" || bad "budget: exit $rc '$msg'"
out=$("$run" --trace --max-insns 3 "$t/demo.img" 2>&1 >/dev/null | head -2)
[[ $out == "00000000: "*"mov"*"%sp"* ]] && ok "trace: ${out%%$'\n'*}" || bad "trace: '$out'"

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
