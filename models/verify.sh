#!/usr/bin/env bash
# models/verify.sh: checks PROMELA models written by esmc with Spin, the driver of `make verify`.
#
#   models/verify.sh [--esmc PATH] [--keep] [--witness] [--only P1,P2] [--jobs N] MODEL.pml...
#
# For each model it runs (N at a time, default 2; --only restricts to the named properties,
# where `deadlock+checks` names the first kind of run):
#   - the deadlock + run-time checks (every assert, range, capacity, overflow, resource misuse):
#     pan compiled with -DNOCLAIM, so invalid end states and assertions are both checked;
#   - the `always` properties together: one safety search (pan without -a) on the claim
#     [] (P1 && P2 && ...), which visits the same states as a search per property; a row each. If
#     it fails, each `always` property is searched alone, so the table names exactly the ones
#     violated (--only P, as the seeded-bug tests use, always searches P alone);
#   - each `reachable` property: a safety search on its ltl claim [] !P, which passes iff Spin
#     refutes it, i.e. finds a witness;
#   - each `eventually` and `leadsto` property: an acceptance-cycle search under weak fairness
#     (never -DSAFETY, which silently drops liveness). It is first searched with no fairness
#     (pan -a): if no run at all has an acceptance cycle, none of the fair ones has, and the
#     row says `none` under fairness; otherwise it is searched again under weak fairness
#     (pan -a -f), which gives the verdict (`weak`). The search without fairness stores the
#     same states but visits each about twice instead of ~20 times.
# Every run uses -b (exceeding the depth bound is an error) and -DMEMLIM, so an incomplete
# search FAILS instead of passing. pan exits 0 even when it finds errors, so the verdict comes
# from its output. Prints a table, then the counterexample of every failure in ESM terms
# (esmc --trail), and exits 1 if anything failed.
#
# Order: the runs start longest first (their seconds in the cache, else liveness before safety
# before witnesses), each model's verifiers compiled just before its first run, so the N job
# slots stay busy to the end. Cache (VERIFY_CACHE_DIR, unset: none): a passing run is stored
# under the SHA-256 of everything its verdict depends on (the model text with its added claims,
# the property, the pan compile flags and run options, the versions of Spin and the C compiler,
# and this script); a run whose key is there is not repeated, and its row, with the states,
# memory and seconds of the run that produced it, says `cached`. Failures are never stored.
#
# Environment: ESMC (esmc binary for --trail; default build/bin/esmc), VERIFY_MEMLIM (MB, 4096),
# VERIFY_DEPTH (pan -m, 1000000), VERIFY_HASH (pan -w, 22), VERIFY_TIMEOUT (s per run, 900),
# VERIFY_CFLAGS (for pan.c, -O2), VERIFY_WORKDIR (kept work directory instead of a temporary one),
# VERIFY_JOBS (runs at once, 2), VERIFY_CACHE_DIR (the cache; unset: none), VERIFY_HINTS (a cache
# directory whose rows give the expected seconds of each run; default VERIFY_CACHE_DIR).
set -u

here=$(cd "$(dirname "$0")" && pwd)
ESMC=${ESMC:-$here/../build/bin/esmc}
MEMLIM=${VERIFY_MEMLIM:-4096}
JOBS=${VERIFY_JOBS:-2}
only=
DEPTH=${VERIFY_DEPTH:-1000000}
HASH=${VERIFY_HASH:-22}
TLIMIT=${VERIFY_TIMEOUT:-900}
keep=0; witness=0; models=()
ALL_ALWAYS=all_always__   # the claim that checks every `always` property in one search

usage() {
  sed -n '2,39p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
}

while [[ $# -gt 0 ]]; do
  case $1 in
    --esmc) ESMC=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --witness) witness=1; shift ;;
    --only) only=,$2,; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "verify.sh: unknown option $1" >&2; usage ;;
    *) models+=("$1"); shift ;;
  esac
done
[[ ${#models[@]} -gt 0 ]] || usage
command -v spin >/dev/null || { echo "verify.sh: spin is not installed" >&2; exit 2; }
case $ESMC in /*) ;; *) ESMC=$PWD/$ESMC ;; esac

if [[ -n ${VERIFY_WORKDIR:-} ]]; then
  work=$VERIFY_WORKDIR; mkdir -p "$work"; keep=1
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/verify.XXXXXX")
fi
cleanup() { [[ $keep -eq 1 ]] || rm -rf "$work"; }
trap cleanup EXIT

# Runs go in parallel, each in a directory of its own; each leaves its table row in `row`, and
# the details of a failure in `report`, collected in order at the end.
runs=()        # run directories, in table order

# row MODEL PROP KIND RESULT STATES VISITED MEM SECS [FAIRNESS] (the `cached` column left
# empty). FAIRNESS, for liveness runs: `none` (passed with no fairness assumption, so it holds
# under weak fairness as well) or `weak` (the search under weak fairness, pan -f).
row() {
  printf '%-14s | %-30s | %-10s | %-6s | %10s | %11s | %8s | %7s | %-8s | %-6s\n' \
    "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "${9:--}" "" >row
}

# The cache. fingerprint covers what every run's verdict depends on besides its model and
# property; cache_key adds those (the model file as it is searched, with its added claims).
CACHE=${VERIFY_CACHE_DIR:-}
HINTS=${VERIFY_HINTS:-$CACHE}
[[ $witness -eq 1 ]] && CACHE=   # witnesses are printed from the trail of a real run
if [[ -n $CACHE ]]; then
  mkdir -p "$CACHE" || exit 2
  case $CACHE in /*) ;; *) CACHE=$PWD/$CACHE ;; esac
fi
case $HINTS in /*|'') ;; *) HINTS=$PWD/$HINTS ;; esac
fingerprint=$({ echo "verify cache 1"; cat "$0"; spin -V; ${CC:-gcc} --version | head -n1
               echo "memlim $MEMLIM depth $DEPTH hash $HASH"; } | sha256sum | cut -c1-64)
# cache_key PML WORDS...: the key of one run (WORDS: model, kind, names, pan flags and options).
cache_key() {
  local pml=$1; shift
  { echo "$fingerprint"; printf '%s\n' "$@"; cat "$pml"; } | sha256sum | cut -c1-64
}
# Stores the rows of the run in the cwd under ckey if it passed as a whole.
cache_store() {
  [[ -n $CACHE && -n ${ckey:-} && -f row && ! -f report ]] || return 0
  grep -q '| FAIL ' row && return 0
  cp row "$CACHE/.$ckey.$$" && mv "$CACHE/.$ckey.$$" "$CACHE/$ckey.row"
}
# The expected seconds of the run of MODEL PROP of kind KIND: from a cached row if any (the
# newest), else by kind, so that liveness runs start first.
hint() {
  local model=$1 prop=$2 kind=$3 secs=
  if [[ -n $HINTS && -d $HINTS ]]; then
    secs=$(ls -t "$HINTS" 2>/dev/null | grep '\.row$' | (cd "$HINTS" && xargs -r cat) |
           awk -F'|' -v m="$model" -v p="$prop" '{ gsub(/ /, "", $1); gsub(/ /, "", $2); gsub(/ /, "", $8) }
             !found && $1 == m && $2 == p && $8 ~ /^[0-9.]+$/ { print $8; found = 1 }')
  fi
  if [[ -z $secs ]]; then
    case $kind in eventually|leadsto) secs=100 ;; safety|always) secs=10 ;; *) secs=1 ;; esac
  fi
  echo "$secs"
}

# Extracts the numbers from a pan output file into globals: errors states visited mem secs.
pan_numbers() {
  errors=$(grep -Eo 'errors: [0-9]+' "$1" | tail -n1 | grep -Eo '[0-9]+$')
  states=$(grep -E '^ *[0-9.e+]+ states, stored' "$1" | tail -n1 | awk '{print $1}')
  # liveness searches visit states more than once (the nested search, the fairness copies)
  visited=$(grep -E '^ *[0-9.e+]+ states, stored' "$1" | tail -n1 |
            sed -n 's/.*(\([0-9.e+]*\) visited).*/\1/p')
  [[ -n $states && -z $visited ]] && visited=$states
  mem=$(grep -E 'total actual memory usage' "$1" | tail -n1 | awk '{print $1}')
  secs=$(grep -E '^pan: elapsed time' "$1" | tail -n1 | awk '{print $4}')
  errors=${errors:-}; states=${states:--}; visited=${visited:--}; mem=${mem:--}; secs=${secs:--}
}

# Why a pan run cannot be trusted to be complete, or empty if it can.
incomplete() {
  local out=$1 rc=$2
  if [[ $rc -eq 124 || $rc -eq 137 ]]; then echo "time limit (${TLIMIT}s) reached"; return; fi
  if grep -qE 'max search depth too small|depth limit reached' "$out"; then
    echo "search depth bound (-m$DEPTH) too small"; return
  fi
  if grep -qE 'out of memory|reached -DMEMLIM bound' "$out"; then
    echo "memory limit (${MEMLIM} MB) reached"; return
  fi
  if grep -qE '^pan: error|VECTORSZ|too many processes' "$out"; then
    grep -E '^pan: error|VECTORSZ|too many processes' "$out" | head -n1; return
  fi
  [[ -z $errors ]] && echo "pan gave no verdict (exit $rc)"
}

# Replays the trail of the last failing run in ESM terms, into file $2.
explain() {
  local pml=$1 report=$2
  if [[ -f $pml.trail ]]; then
    spin -t -p -g -l "$pml" >"$pml.replay" 2>&1
    if [[ -x $ESMC ]]; then
      "$ESMC" --trail "$pml" "$pml.replay" >>"$report" 2>&1 ||
        echo "(esmc --trail failed; raw replay in $pml.replay)" >>"$report"
    else
      echo "(no esmc at $ESMC; raw Spin replay follows)" >>"$report"
      cat "$pml.replay" >>"$report"
    fi
    rm -f "$pml.trail"
  else
    echo "(no trail was written)" >>"$report"
  fi
}

# Whether the trail of a property run ends in one of the model's own checks rather than in
# the property's claim (pan stops at the first error of either kind).
model_check_failed() {
  spin -t -p -g -l "$1" >"$1.replay" 2>&1
  grep -qE "^spin: $1:[0-9]+, Error" "$1.replay"
}

# run MODEL PML NAME KIND BINARY ARGS...: one pan run, one table row. A liveness run (ARGS with
# -a) is first searched with no fairness assumption: no acceptance cycle at all is a stronger
# result than none among the weakly fair runs. Only if that search does not pass (a cycle,
# which may be unfair, or any other error or an incomplete search) is the run searched again
# under weak fairness (-f), and that search gives the verdict, row and trail.
run() {
  local model=$1 pml=$2 name=$3 kind=$4 bin=$5; shift 5
  local out="pan.out" rc result reason="" fair=
  wait_for "$bin"
  rm -f "$pml.trail"
  timeout --kill-after=5 "$TLIMIT" "./$bin" -m"$DEPTH" -w"$HASH" -b "$@" >"$out" 2>&1
  rc=$?
  pan_numbers "$out"
  local why; why=$(incomplete "$out" "$rc")
  if [[ $kind == eventually || $kind == leadsto ]]; then
    fair=none
    if [[ -n $why || $errors -ne 0 ]]; then
      fair=weak
      rm -f "$pml.trail"
      timeout --kill-after=5 "$TLIMIT" "./$bin" -m"$DEPTH" -w"$HASH" -b -f "$@" >"$out" 2>&1
      rc=$?
      pan_numbers "$out"
      why=$(incomplete "$out" "$rc")
    fi
  fi
  if [[ -n $why ]]; then
    result=FAIL; reason="incomplete search: $why"
  elif [[ $kind == reachable ]]; then
    if [[ $errors -gt 0 ]]; then
      if model_check_failed "$pml"; then
        result=FAIL; reason="a run-time check fails before any witness (see deadlock+checks)"
      else
        result=PASS
        if [[ $witness -eq 1 ]]; then
          echo "=== $model / $name: witness ===" >report
          "$ESMC" --trail "$pml" "$pml.replay" >>report 2>&1
        fi
      fi
    else
      result=FAIL; reason="unreachable: no state satisfies it"
    fi
  elif [[ $errors -eq 0 ]]; then
    result=PASS
  else
    result=FAIL; reason="violated"
    if [[ $kind == always ]] && model_check_failed "$pml"; then
      reason="a run-time check fails first (see deadlock+checks)"
    fi
  fi
  row "$model" "$name" "$kind" "$result" "$states" "$visited" "$mem" "$secs" "$fair"
  if [[ $result == FAIL ]]; then
    local report=report
    echo "=== $model / $name ($kind): FAIL: $reason ===" >"$report"
    [[ $name == deadlock+checks ]] || grep -E "@prop [a-z]+ $name " "$pml" |
      sed 's|^/\* @prop |property: |; s| \*/$||' >>"$report"
    grep -E '^pan:[0-9]+: |^pan: (error|reached)|depth' "$out" | head -n3 >>"$report"
    if [[ $reason == unreachable* || $reason == *"fails first"* || $reason == *"fails before"* ]]; then
      rm -f "$pml.trail"
    else
      explain "$pml" "$report"
    fi
  fi
  cache_store
}

# run_always MODEL PML BINARY NAME...: the named `always` properties in one search on the
# claim ALL_ALWAYS; on failure, one search each in a directory of its own. One row each.
run_always() {
  local model=$1 pml=$2 bin=$3; shift 3
  local out="pan.out" rc why name
  wait_for "$bin"
  rm -f "$pml.trail"
  timeout --kill-after=5 "$TLIMIT" "./$bin" -m"$DEPTH" -w"$HASH" -b -N "$ALL_ALWAYS" >"$out" 2>&1
  rc=$?
  pan_numbers "$out"
  why=$(incomplete "$out" "$rc")
  if [[ -z $why && $errors -eq 0 ]]; then
    for name in "$@"; do   # one search: its figures on the first row
      row "$model" "$name" always PASS "$states" "$visited" "$mem" "$secs"; cat row >>rows
      states=same; visited=-; mem=-; secs=-
    done
    mv rows row
    cache_store
    return
  fi
  : >rows; : >reports
  for name in "$@"; do
    mkdir -p "one_$name"; cp "$pml" "one_$name/"
    (cd "one_$name" && ckey='' run "$model" "$pml" "$name" always "../$bin" -N "$name")
    cat "one_$name/row" >>rows
    [[ -f one_$name/report ]] && cat "one_$name/report" >>reports
  done
  mv rows row
  [[ -s reports ]] && mv reports report || rm -f reports
}

# A run directory of its own for one pan run (pan writes MODEL.pml.trail into the cwd).
new_run() {
  local d=$1
  mkdir -p "$d"
  runs+=("$d")
}

# The tasks, started at the end longest first, at most $JOBS at once: task_cmd[i] (a quoted
# command line run in directory task_dir[i]), task_secs[i] (expected seconds). A run's first
# task compiles its verifier (compile DIR BINARY FLAGS...; wait_for waits for it).
task_dir=(); task_cmd=(); task_secs=()
add_task() { task_dir+=("$1"); task_secs+=("$2"); shift 2; task_cmd+=("$(printf '%q ' "$@")"); }
compile() {
  local bin=$1; shift
  ${CC:-gcc} ${VERIFY_CFLAGS:--O2} -w -DMEMLIM=$MEMLIM -DVECTORSZ=4096 "$@" -o "$bin" pan.c \
    2>"$bin.cc.out"
  cat "$bin.cc.out" >&2
  touch "$bin.done"
}
wait_for() { while [[ ! -e $1.done ]]; do sleep 0.1; done; }

wanted() { [[ -z $only || $only == *",$1,"* ]]; }

verify_model() {
  local src=$1 model pml dir
  model=$(basename "$src" .pml)
  pml=$model.pml
  dir=$work/$model
  mkdir -p "$dir"
  if ! cp "$src" "$dir/$pml"; then
    new_run "$dir/model"; (cd "$dir/model" && row "$model" "(model)" "-" FAIL - - - -); return
  fi
  cd "$dir" || return
  local props always=()
  props=$(sed -n 's|^/\* @prop \([a-z]*\) \([A-Za-z0-9_]*\) .*|\1 \2|p' "$pml")
  if [[ -z $only ]]; then
    mapfile -t always < <(awk '$1 == "always" { print $2 }' <<<"$props")
  fi
  if [[ ${#always[@]} -ge 2 ]]; then
    if grep -qE "^ltl $ALL_ALWAYS " "$pml"; then
      echo "verify.sh: $model already defines ltl $ALL_ALWAYS" >&2; always=()
    else
      local conj; conj=$(printf 'P_%s && ' "${always[@]}")
      echo "ltl $ALL_ALWAYS { [] (${conj% && }) }" >>"$pml"
    fi
  fi
  if ! spin -a "$pml" >spin.out 2>&1; then
    new_run "$dir/spin"
    (cd "$dir/spin" && row "$model" "(spin -a)" "-" FAIL - - - - &&
      { echo "=== $model: spin -a failed ==="; cat ../spin.out; } >report)
    cd "$work"; return
  fi
  local nproc nfair
  nproc=$(grep -c '^active proctype' "$pml")
  # pan -DNFAIR=k admits about 4k-2 processes, the never claim included.
  nfair=$(( (nproc + 1) / 4 + 2 ))
  # Two verifiers: -DNOCLAIM for the deadlock + run-time checks, and one for every claim, safety
  # or liveness: pan without -a searches a claim for safety exactly as a -DSAFETY pan does (the
  # same states, time and memory), so a third compilation of pan.c would buy nothing.
  local -A flags=([pan_checks]=-DNOCLAIM [pan_claims]=-DNFAIR=$nfair)
  local -A need=()   # binary -> the longest expected run on it
  local n=0 kind name d
  if wanted deadlock+checks; then
    d=$dir/run$((n++)); new_run "$d"; cp "$pml" "$d/"
    plan "$d" deadlock+checks safety pan_checks run "$model" "$pml" deadlock+checks safety ../pan_checks
  fi
  if [[ ${#always[@]} -ge 2 ]]; then
    d=$dir/run$((n++)); new_run "$d"; cp "$pml" "$d/"
    plan "$d" "${always[0]}" always pan_claims run_always "$model" "$pml" ../pan_claims "${always[@]}"
  fi
  while read -r kind name; do
    [[ -n $kind ]] && wanted "$name" || continue
    [[ $kind == always && ${#always[@]} -ge 2 ]] && continue
    d=$dir/run$((n++)); new_run "$d"; cp "$pml" "$d/"
    case $kind in
      always|reachable) plan "$d" "$name" "$kind" pan_claims \
                          run "$model" "$pml" "$name" "$kind" ../pan_claims -N "$name" ;;
      eventually|leadsto) plan "$d" "$name" "$kind" pan_claims \
                          run "$model" "$pml" "$name" "$kind" ../pan_claims -a -A -N "$name" ;;
    esac
  done <<<"$props"
  # Each verifier compiles before the runs that use it (it sorts before them).
  local bin
  for bin in "${!need[@]}"; do
    add_task "$dir" "$(awk -v s="${need[$bin]}" 'BEGIN { print s + 1 }')" compile "$bin" ${flags[$bin]}
  done
  cd "$work"
}

# plan DIR HINTNAME KIND BINARY COMMAND...: one run of verify_model's model: its cached rows, or
# a task (and its verifier's compilation).
plan() {
  local d=$1 hname=$2 kind=$3 bin=$4; shift 4
  local key secs
  key=$(cache_key "$d/$pml" "$model" "$kind" "$bin ${flags[$bin]}" "$@")
  if [[ -n $CACHE && -f $CACHE/$key.row ]]; then
    sed 's/| *$/| cached/' "$CACHE/$key.row" >"$d/row"
    return
  fi
  secs=$(hint "$model" "$hname" "$kind")
  add_task "$d" "$secs" with_key "$key" "$@"
  need[$bin]=$(awk -v a="${need[$bin]:-0}" -v b="$secs" 'BEGIN { print (a > b ? a : b) }')
}
with_key() { ckey=$1; shift; "$@"; }

# Paths are made absolute first: verify_model changes directory.
for i in "${!models[@]}"; do
  case ${models[$i]} in /*) ;; *) models[$i]=$PWD/${models[$i]} ;; esac
done
for m in "${models[@]}"; do
  verify_model "$m"
done
# Longest first (ties in table order): a long run started last would leave a slot idle.
for i in $(for i in "${!task_secs[@]}"; do echo "${task_secs[$i]} $i"; done |
           sort -k1,1gr -k2,2n | awk '{ print $2 }'); do
  while [[ $(jobs -rp | wc -l) -ge $JOBS ]]; do wait -n; done
  ( cd "${task_dir[$i]}" && eval "${task_cmd[$i]}" ) &
done
wait

printf '%-14s | %-30s | %-10s | %-6s | %10s | %11s | %8s | %7s | %-8s | %-6s\n' model property \
  kind result "states" visited "mem MB" seconds fairness cached
printf '%s\n' "---------------+--------------------------------+------------+--------+------------+-------------+----------+---------+----------+-------"
nfail=0
for d in "${runs[@]}"; do
  if [[ -f $d/row ]]; then cat "$d/row"; else
    printf '%-14s | %-30s | %-10s | %-6s |\n' "?" "$(basename "$d")" "-" FAIL
  fi
  if [[ ! -f $d/row ]]; then nfail=$((nfail + 1))
  else nfail=$((nfail + $(grep -c '| FAIL ' "$d/row"))); fi
done
for d in "${runs[@]}"; do
  [[ -f $d/report ]] && { echo; cat "$d/report"; }
done
echo
if [[ ${#runs[@]} -eq 0 ]]; then
  echo "verify: no check matched${only:+ --only ${only//,/ }}"
  exit 1
fi
if [[ $nfail -gt 0 ]]; then
  echo "verify: $nfail check(s) FAILED"
  exit 1
fi
ncached=$(cat "${runs[@]/%//row}" | grep -c '| cached$')
echo "verify: all $(cat "${runs[@]/%//row}" | wc -l) checks passed${CACHE:+ ($ncached from the cache)}"
