#!/usr/bin/env bash
# panicctl's command line against a private nicd: what works prints what happened; every
# error (usage, bad numbers, no such NIC or file, verifier rejection, unknown program, remote
# command to a node that does not answer) exits non-zero with a named message, never hangs.
set -u
P=${PANICCTL:-build/bin/panicctl}
PDLC=${PDLC:-build/bin/pdlc}
. "$(dirname "$0")/../common/nicd.sh"
work=$(mktemp -d)
trap 'nicd_cleanup; rm -rf "$work"' EXIT
nicd_start panicctl-cli
for _ in $(seq 100); do "$P" -d ${prefix}1 list >/dev/null 2>&1 && break; sleep 0.05; done
pass=0; fail=0

# case NAME EXPECTED-STATUS PATTERN -- ARGS...: the exit status and a line of its output.
case_() {
  local name=$1 want=$2 pat=$3; shift 4
  local out; out=$(timeout 10 "$P" "$@" 2>&1); local st=$?
  if [[ $st -eq $want ]] && grep -Eq -- "$pat" <<<"$out"; then pass=$((pass + 1))
  else fail=$((fail + 1)); echo "FAIL $name: status $st (want $want), output:"; sed 's/^/    /' <<<"$out"; fi
}

"$PDLC" -o "$work/d.pvm" tests/pdl/examples/delivertest.pdl
printf 'PVM1\001\000\000\000garbage' >"$work/bad.pvm"
D=(-d ${prefix}0)
case_ usage            2 'usage: panicctl'                    -- "${D[@]}"
case_ unknown-command  2 "unknown command 'fly'"              -- "${D[@]}" fly
case_ unknown-option   2 'unknown option --frob'              -- "${D[@]}" --frob list
case_ arg-count        2 'load: wrong number of arguments'    -- "${D[@]}" load "$work/d.pvm"
case_ bad-id           2 "program id: not a number"           -- "${D[@]}" run twelve
case_ bad-byte         2 "message byte: not a number up to 255" -- "${D[@]}" send 1 10 256
case_ bad-address      2 'address byte'                        -- "${D[@]}" route 1:2:300 1 
case_ no-nic           1 'no such NIC'                         -- -d /vpc$$-none0 list
case_ no-file          1 'load /nonexistent.pvm: No such file' -- "${D[@]}" load /nonexistent.pvm 3
case_ rejected         1 'rejected by the verifier: truncated at byte' -- "${D[@]}" load "$work/bad.pvm" 3
case_ load             0 'loaded .* as program 3 on node 0'    -- "${D[@]}" load "$work/d.pvm" 3
case_ load-twice       1 'program id in use'                   -- "${D[@]}" load "$work/d.pvm" 3
case_ send-early       1 'not in a state for this'              -- "${D[@]}" send 3 10
case_ run              0 'initial block ended: await'          -- "${D[@]}" run 3
case_ no-trigger       1 'no block for this trigger'           -- "${D[@]}" send 3 99
case_ no-segment       1 'handler aborted: fault-service'      -- "${D[@]}" send 3 10
case_ list             0 '^3 +delivertest +waiting'            -- "${D[@]}" list
case_ unknown-program  1 'no such program'                     -- "${D[@]}" unload 42
case_ remote-load      0 'as program 8 on node 1'              -- "${D[@]}" --node 1 load "$work/d.pvm" 8
case_ remote-list      0 '^8 +delivertest +loaded'             -- "${D[@]}" --node 1 list
case_ remote-display   1 'only the local NIC'                  -- "${D[@]}" --node 1 display
case_ remote-timeout   1 'remote NIC did not answer'           -- "${D[@]}" --node 7 list
case_ route            0 '^$'                                  -- "${D[@]}" route 0:0:0:96:221:127:255:140 1
case_ unload           0 '^$'                                  -- "${D[@]}" unload 3
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
