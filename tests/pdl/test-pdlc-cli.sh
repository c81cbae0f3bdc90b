#!/usr/bin/env bash
# pdlc command line: --help, compiling the paper's figures, the diagnostic format with source
# line and caret, several errors per run, exit codes, -S and --dump. Run from the top directory.
set -u
pdlc=build/bin/pdlc
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
check() { if eval "$2"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: $1"; fi; }

check "--help exits 0 and shows usage" "$pdlc --help | grep -q '^usage: pdlc'"
check "no input is a usage error" "$pdlc >/dev/null 2>&1; [[ \$? -eq 2 ]]"
check "missing file is an I/O error" "$pdlc $tmp/nope.pdl 2>/dev/null; [[ \$? -eq 2 ]]"
for f in tests/pdl/examples/*.pdl; do
  out=$tmp/$(basename "${f%.pdl}").pvm
  check "compiles $f" "$pdlc $f -o $out && [[ -s $out ]] && head -c4 $out | grep -q PVM1"
  check "dumps $f" "$pdlc --dump $out | grep -q 'trigger 10 ->'"
done
cp tests/pdl/examples/delivertest.pdl "$tmp/d.pdl"
check "default output name" "$pdlc $tmp/d.pdl && [[ -s $tmp/d.pvm ]]"
check "-S prints code" "$pdlc -S tests/pdl/examples/delivertest.pdl | grep -q 'deliver 1 50'"

printf 'PROGRAM p: VAR a;\nBEGIN\n  a = b + 1;\n  DISPLAY c\nEND;\nEND;\n' > "$tmp/e.pdl"
$pdlc "$tmp/e.pdl" 2>"$tmp/err"; rc=$?
check "errors exit 1" "[[ $rc -eq 1 ]]"
check "first error with file:line:col" "grep -qx '$tmp/e.pdl:3:7: error: undeclared variable .b.' $tmp/err"
check "source line shown" "grep -qx '    a = b + 1;' $tmp/err"
check "caret under the column" "grep -qx '        ^' $tmp/err"
check "second error reported too" "grep -q ':4:11: error: undeclared variable .c.' $tmp/err"
check "error count" "grep -qx '2 errors' $tmp/err"
check "no module written on error" "[[ ! -e $tmp/e.pvm ]]"

printf 'start:\n  push 1\n  jmp start\n' > "$tmp/bad.s"
check "--asm writes even unverifiable modules (for hostile tests)" "$pdlc --asm $tmp/bad.s -o $tmp/bad.pvm && $pdlc --dump $tmp/bad.pvm | grep -q 'jmp -10'"
# The fused forms (FORMAT.md): a counting loop's iteration is INCV + JLTVK, the test at the
# bottom; a scalar-indexed copy is LOADXV + STOREXV.
printf 'PROGRAM l: VAR a[4], b[4], i;\nBEGIN WHILE i < 4 DO BEGIN b[i] = a[i]; i = i + 1 END END;\nEND;\n' >"$tmp/l.pdl"
$pdlc -S "$tmp/l.pdl" -o "$tmp/l.pvm" | awk 'NR > 1 {print $2}' | paste -sd' ' >"$tmp/l.ops"
check "loop compiles to fused forms" "grep -qx 'jmp loadxv storexv incv jltvk await' $tmp/l.ops"
check "the bottom test jumps back to the body" "$pdlc --dump $tmp/l.pvm | grep -q 'jltvk 8 4 -.*; -> 0005'"
check "--no-fuse: only the basic stack code" "$pdlc -S --no-fuse $tmp/l.pdl -o $tmp/l0.pvm | grep -q '  jz ' && ! $pdlc --dump $tmp/l0.pvm | grep -qE 'incv|jltvk|loadxv|storexv'"
printf 'jl:\n  jltvk 0 7 jl\n' >"$tmp/jl.s"
check "assembler: a label as a three-operand jump's last operand" "$pdlc --asm $tmp/jl.s -o $tmp/jl.pvm && $pdlc --dump $tmp/jl.pvm | grep -q 'jltvk 0 7 -13  ; -> 0000'"
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
