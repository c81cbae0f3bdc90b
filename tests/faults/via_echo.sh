#!/usr/bin/env bash
# tests/faults/via_echo.sh: runs via_echo (a VIA program written from the specification
# only) over a private nicd: a server on nic0, a client on nic1 that finds it by name
# (VipNSGetHostByName, then the discriminator added by the program); 200 echoes must come
# back whole. Then a server killed under a connected client: the client must fail (not hang)
# within 1 s.
set -u
cd "$(dirname "$0")/../.."
. tests/common/nicd.sh
trap nicd_cleanup EXIT
BIN=${VIA_ECHO:-build/tests/faults/via_echo}
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

nicd_start via-echo || { echo "nicd did not start"; echo "0 passed, 1 failed"; exit 1; }
"$BIN" server "${prefix}0" echo1 >"$run/server.out" 2>&1 &
srv=$!
( sleep 60; kill -9 $srv 2>/dev/null ) &
dog0=$!
if timeout 60 "$BIN" client "${prefix}1" nic0 echo1 200 >"$run/client.out" 2>&1 &&
   grep -q "client: 200 echoes" "$run/client.out"; then ok "200 echoes"; else bad "echoes: $(cat "$run/client.out")"; fi
if wait $srv && grep -q "server: 200 messages" "$run/server.out"
then ok "server saw 200 messages and the client's bye"; else bad "server: $(cat "$run/server.out")"; fi
kill $dog0 2>/dev/null; wait $dog0 2>/dev/null

# A server killed while its client waits for an echo: the client's VipRecvWait(VIP_INFINITE)
# must end (the message it waits for is flushed) and the program exit 1.
"$BIN" server "${prefix}0" echo2 >"$run/server2.out" 2>&1 &
srv=$!
"$BIN" client "${prefix}1" nic0 echo2 100000000 >"$run/client2.out" 2>&1 &
cli=$!
sleep 1
t0=$(date +%s%N)
kill -9 $srv 2>/dev/null
( sleep 10; kill -9 $cli 2>/dev/null ) &   # a hang fails, never sticks
dog=$!
wait $cli; rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
kill $dog 2>/dev/null; wait $srv $dog 2>/dev/null
if [[ $rc -eq 1 ]] && grep -q "client:" "$run/client2.out"; then ok "client failed ${ms} ms after its server was killed: $(cat "$run/client2.out")"
else bad "client after its server died: rc $rc, $(cat "$run/client2.out")"; fi
if [[ $ms -le 1000 ]]; then ok "within 1 s"; else bad "client took ${ms} ms"; fi
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
