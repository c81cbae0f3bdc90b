#!/usr/bin/env bash
# Proves the modules listed in proofs/modules.conf with Frama-C/WP and prints one line per module:
# goals proved / total and seconds. Exits non-zero unless every goal of every module is proved
# (frama-c itself exits 0 when goals fail, so the verdict comes from its JSON report).
#   proofs/run.sh [--summary] [module...]
# --summary also prints "proofs: N passed, M failed" (modules) for tests/run.sh.
# Environment: WP_TIMEOUT (seconds per goal, default 20), WP_PAR (prover processes in all,
# default 2), PROOF_JOBS (modules at once, default 2), WP_PROVERS
# (default z3,cvc4), PROOF_MODULES (another manifest), PROOF_OUT (logs; default build/proofs).
# A module line's own `-wp-prover P` / `-wp-timeout N` replace those defaults for that module
# (WP_FORCE_PROVERS / WP_FORCE_TIMEOUT override every module, for experiments). Its `+fct:f,g`
# adds functions to prove (static inline ones of headers), `-fct:f,g` removes some (proved by
# another module), `=fct:f,g` proves exactly those.
# Prover results are kept in WP's cache, proofs/cache (WP_CACHE_DIR), keyed by a digest of each
# goal as sent to the prover: a goal whose code, contract or context changed has a new key and
# is proved again. WP_CACHE is WP's mode: update (default: replay what is there, prove the rest,
# store it), none (prove every goal, ignore the cache), rebuild (prove every goal, store it).
# `make proofs-fresh` proves everything into an empty cache and replaces proofs/cache with it.
# A module proved whole leaves its verdict in proofs/verdicts/NAME: a digest of everything its
# run reads (the frama-c command line, the tools' versions, and the contents of its files and
# every header they include, ACSL comments and all). A later run whose digest is the same
# reports the verdict instead of running frama-c ("unchanged" in the table); any edit to those
# inputs, a new frama-c or new flags proves the module again. PROOF_VERDICTS=ignore proves every
# module (and records the verdicts); a digest that cannot be computed proves it too.
set -uo pipefail
cd "$(dirname "$0")/.."

summary=0
[[ ${1:-} == --summary ]] && { summary=1; shift; }
want=("$@")
timeout=${WP_TIMEOUT:-20}
par=${WP_PAR:-2}
out=${PROOF_OUT:-build/proofs}
cache_mode=${WP_CACHE:-update}
cache_dir=${WP_CACHE_DIR:-proofs/cache}
mkdir -p "$out" "$cache_dir"
case $cache_dir in /*) ;; *) cache_dir=$PWD/$cache_dir ;; esac

command -v frama-c >/dev/null || { echo "proofs: frama-c not installed (scripts/deps.sh)" >&2; exit 2; }
# WP finds provers through why3's configuration; make sure it knows z3 and cvc4.
conf=${WHY3CONFIG:-$HOME/.why3.conf}
if ! grep -qs '"Z3"' "$conf" || ! grep -qs '"CVC4"' "$conf"; then
  why3 config detect >/dev/null 2>&1 || { echo "proofs: why3 config detect failed" >&2; exit 2; }
fi

printf '%-12s %9s %7s %7s %8s  %-10s %s\n' module proved total cached seconds provers trusted
pass=0; fail=0; failed_goals=(); failed_mods=(); all_proved=0; all_total=0; all_cached=0; unchanged=0
t0=$(date +%s.%N)
verdicts=${PROOF_VERDICTS_DIR:-proofs/verdicts}
mkdir -p "$verdicts"
fc_fixed="-c11 -wp -wp-rte -warn-unsigned-overflow -machdep ppc_32"   # every module's flags
fc_version=$(frama-c -version 2>&1; why3 --version 2>&1; cvc4 --version 2>&1 | head -n1; z3 --version 2>&1)
# digest TEXT FILE... -- FLAG...: a digest of TEXT, the tools' versions and the
# contents of the files with every header they include (found as frama-c's preprocessor finds
# them: the -I of -cpp-extra-args), or nothing when the headers cannot be listed.
digest() {
  local text=$1; shift
  local files=() incs=() f a deps
  while [[ $# -gt 0 && $1 != -- ]]; do files+=("$1"); shift; done
  shift
  for f in "$@"; do
    [[ $f == -cpp-extra-args=* ]] || continue
    IFS=, read -r -a a <<<"${f#-cpp-extra-args=}"; incs+=("${a[@]}")
  done
  deps=$(gcc -M -D__FRAMAC__ "${incs[@]}" "${files[@]}" 2>/dev/null | sed 's/^[^:]*://; s/\\$//' |
         tr -s ' \n' '\n\n' | grep -v '^$' | sort -u) || return 0
  [[ -n $deps ]] || return 0
  { echo "$text"; echo "$fc_version"
    while read -r f; do echo "== $f"; cat "$f"; done <<<"$deps"; } | sha256sum | cut -d' ' -f1
}

# prove NAME FILES FLAGS: one module's frama-c run (or its verdict, above); its log, report,
# provers/trusted line (NAME.meta) and seconds (NAME.secs) go to $out, read afterwards in the
# manifest's order.
prove() {
  local name=$1 files=$2 flags=$3 fa xa fcts skip="" fl=() provers=${WP_PROVERS:-z3,cvc4}
  local mtimeout=$timeout i start rc
  read -r -a fa <<<"$files"; read -r -a xa <<<"$flags"
  local json="$out/$name.json" log="$out/$name.log"
  rm -f "$json" "$out/$name.report" "$out/$name.secs"
  # Only the functions of the first file are proved; the others provide contracts and tables.
  fcts=$(sed -n 's/^[^ #/*][^(]*[ *]\([A-Za-z_][A-Za-z_0-9]*\)(.*/\1/p' "${fa[0]}" | sort -u | paste -sd, -)
  # "+fct:f,g" in the flags adds functions defined elsewhere (static inline ones in headers).
  for ((i = 0; i < ${#xa[@]}; i++)); do
    case ${xa[i]} in
      +fct:*) fcts="$fcts,${xa[i]#+fct:}" ;;
      =fct:*) fcts=${xa[i]#=fct:} ;;
      -fct:*) fcts=$(tr , '\n' <<<"$fcts" | grep -vxF -f <(tr , '\n' <<<"${xa[i]#-fct:}") | paste -sd, -) ;;
      -wp-prover) provers=${xa[i+1]}; i=$((i + 1)) ;;
      -wp-timeout) mtimeout=${xa[i+1]}; i=$((i + 1)) ;;
      -wp-skip-fct) skip=${xa[i+1]}; fl+=("${xa[i]}") ;;
      *) fl+=("${xa[i]}") ;;
    esac
  done
  provers=${WP_FORCE_PROVERS:-$provers}; mtimeout=${WP_FORCE_TIMEOUT:-$mtimeout}
  echo "$provers ${skip:--}" >"$out/$name.meta"
  start=$(date +%s.%N)
  local key
  key=$(digest "$fc_fixed $provers $mtimeout $fcts ${fl[*]} ${fa[*]}" "${fa[@]}" -- "${fl[@]}")
  if [[ -n $key && ${PROOF_VERDICTS:-use} != ignore && -f $verdicts/$name ]] &&
     read -r vkey vproved vtotal <"$verdicts/$name" && [[ $vkey == "$key" ]]; then
    printf '[wp] Proved goals: %s / %s (unchanged: verdict %s)\n' "$vproved" "$vtotal" \
      "$verdicts/$name" >"$log"
    echo "0 0" >"$out/$name.secs"
    return
  fi
  frama-c $fc_fixed -wp-prover "$provers" \
    -wp-timeout "$mtimeout" -wp-par "$mpar" -wp-cache "$cache_mode" -wp-cache-dir "$cache_dir" \
    -wp-fct "$fcts" "${fl[@]}" \
    -wp-report-json "$json" "${fa[@]}" -then -report -report-no-proven >"$log" 2>&1
  rc=$?
  local proved total
  read -r proved total < <(sed -n 's/^\[wp\] Proved goals: *\([0-9]*\) \/ \([0-9]*\).*/\1 \2/p' "$log" | tail -n1)
  if [[ -n $key && $rc -eq 0 && ${total:-0} -gt 0 && $proved == "$total" ]] &&
     ! grep -aq '^\[kernel\].*User Error' "$log"; then
    echo "$key $proved $total" >"$verdicts/$name"
  fi
  sed -n '/Properties of Function/,$p' "$log" >"$out/$name.report"
  echo "$rc $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.0f", b-a}')" >"$out/$name.secs"
}

# Modules run PROOF_JOBS at a time (default 2): building goals and Qed are single-threaded, so
# one module alone leaves a core idle while the cache answers its prover calls. The provers'
# parallelism (WP_PAR) is shared out among the jobs.
jobs_max=${PROOF_JOBS:-2}
mpar=$(( par / jobs_max )); [[ $mpar -ge 1 ]] || mpar=1
names=()
while IFS='|' read -r name files flags; do
  name=$(sed 's/^[[:space:]]*//; s/[[:space:]]*$//' <<<"$name"); [[ -z $name || $name == \#* ]] && continue
  if [[ ${#want[@]} -gt 0 && ! " ${want[*]} " =~ " $name " ]]; then continue; fi
  names+=("$name")
  while [[ $(jobs -rp | wc -l) -ge $jobs_max ]]; do wait -n; done
  prove "$name" "$files" "$flags" &
done < "${PROOF_MODULES:-proofs/modules.conf}"
wait

for name in "${names[@]}"; do
  log="$out/$name.log"
  read -r provers skip <"$out/$name.meta"
  read -r rc secs <"$out/$name.secs" || { rc=1; secs=-; }
  read -r proved total < <(sed -n 's/^\[wp\] Proved goals: *\([0-9]*\) \/ \([0-9]*\).*/\1 \2/p' "$log" | tail -n1)
  proved=${proved:-0}; total=${total:-0}
  # Goals whose prover result came from the cache (WP's summary: "(cached: N)" per prover).
  cached=$(sed -n '/^\[wp\] Proved goals:/,$s/.*(cached: \([0-9]*\)).*/\1/p' "$log" | awk '{n += $1} END {print n + 0}')
  all_cached=$((all_cached + cached))
  if grep -q '(unchanged: verdict' "$log"; then cached=unchanged; unchanged=$((unchanged + 1)); fi
  printf '%-12s %9s %7s %7s %8s  %-10s %s\n' "$name" "$proved" "$total" "$cached" "$secs" "$provers" "$skip"
  all_proved=$((all_proved + proved)); all_total=$((all_total + total))
  if [[ $rc -ne 0 || $total -eq 0 || $proved -ne $total ]] || grep -aq '^\[kernel\].*User Error' "$log"; then
    fail=$((fail + 1)); failed_mods+=("$name")
    while read -r g; do failed_goals+=("$name: $g"); done < <(
      grep -a -E '^\[wp\] \[(Failed|Unknown|Timeout)\] Goal|^\[wp\] Goal .*(Failed|Unknown|Timeout)|^\[wp\] \[[^]]*\] Goal .* : (Failed|Unknown|Timeout)' "$log" |
        sed 's/^\[wp\] //')
    [[ $rc -ne 0 || $total -eq 0 ]] && failed_goals+=("$name: frama-c failed (exit $rc), see $log")
  else
    pass=$((pass + 1))
  fi
done
secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.0f", b-a}')
printf '%-12s %9s %7s %7s %8s  %s\n' total "$all_proved" "$all_total" "$all_cached" "$secs" \
  "$pass of $((pass + fail)) modules proved ($unchanged unchanged since their verdict)"

if [[ ${#failed_goals[@]} -gt 0 ]]; then
  echo; echo "unproved goals (logs and JSON reports in $out/):"
  for g in "${failed_goals[@]}"; do echo "  $g"; done
  # Source positions of what is not proved, from Frama-C's property report.
  for m in "${failed_mods[@]}"; do
    r="$out/$m.report"; [[ -f $r ]] || continue
    awk -v m="$m" '/^\[ *(-|Invalid|Unknown) *\]/ { prop = $0 }
      /tried with Wp/ && prop != "" { sub(/^\[[^]]*\] */, "", prop); print "    " m ": " prop; prop = "" }' "$r"
  done
fi
[[ $summary -eq 1 ]] && echo "proofs: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
