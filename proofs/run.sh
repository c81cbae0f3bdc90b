#!/usr/bin/env bash
# Proves the modules listed in proofs/modules.conf with Frama-C/WP and prints one line per module:
# goals proved / total and seconds. Exits non-zero unless every goal of every module is proved
# (frama-c itself exits 0 when goals fail, so the verdict comes from its JSON report).
#   proofs/run.sh [--summary] [module...]
# --summary also prints "proofs: N passed, M failed" (modules) for tests/run.sh.
# Environment: WP_TIMEOUT (seconds per goal, default 10), WP_PAR (default 2), WP_PROVERS
# (default z3,cvc4), PROOF_MODULES (another manifest), PROOF_OUT (logs; default build/proofs).
set -uo pipefail
cd "$(dirname "$0")/.."

summary=0
[[ ${1:-} == --summary ]] && { summary=1; shift; }
want=("$@")
timeout=${WP_TIMEOUT:-10}
par=${WP_PAR:-2}
out=${PROOF_OUT:-build/proofs}
mkdir -p "$out"

command -v frama-c >/dev/null || { echo "proofs: frama-c not installed (scripts/deps.sh)" >&2; exit 2; }
# WP finds provers through why3's configuration; make sure it knows z3 and cvc4.
conf=${WHY3CONFIG:-$HOME/.why3.conf}
if ! grep -qs '"Z3"' "$conf" || ! grep -qs '"CVC4"' "$conf"; then
  why3 config detect >/dev/null 2>&1 || { echo "proofs: why3 config detect failed" >&2; exit 2; }
fi

printf '%-12s %9s %7s %8s  %s\n' module proved total seconds trusted
pass=0; fail=0; failed_goals=()
while IFS='|' read -r name files flags; do
  name=$(echo "$name" | xargs); [[ -z $name || $name == \#* ]] && continue
  if [[ ${#want[@]} -gt 0 && ! " ${want[*]} " =~ " $name " ]]; then continue; fi
  read -r -a fa <<<"$files"; read -r -a xa <<<"$flags"
  json="$out/$name.json"; log="$out/$name.log"; rm -f "$json" "$out/$name.report"
  # Only the functions of the first file are proved; the others provide contracts and tables.
  fcts=$(sed -n 's/^[^ #/*][^(]*[ *]\([A-Za-z_][A-Za-z_0-9]*\)(.*/\1/p' "${fa[0]}" | sort -u | paste -sd, -)
  # "+fct:f,g" in the flags adds functions defined elsewhere (static inline ones in headers).
  skip=""; fl=()
  for ((i = 0; i < ${#xa[@]}; i++)); do
    case ${xa[i]} in
      +fct:*) fcts="$fcts,${xa[i]#+fct:}" ;;
      -wp-skip-fct) skip=${xa[i+1]}; fl+=("${xa[i]}") ;;
      *) fl+=("${xa[i]}") ;;
    esac
  done
  start=$(date +%s.%N)
  frama-c -wp -wp-rte -wp-prover ${WP_PROVERS:-z3,cvc4} -warn-unsigned-overflow -machdep ppc_32 \
    -wp-timeout "$timeout" -wp-par "$par" -wp-fct "$fcts" "${fl[@]}" \
    -wp-report-json "$json" "${fa[@]}" -then -report -report-no-proven >"$log" 2>&1
  rc=$?
  sed -n '/Properties of Function/,$p' "$log" >"$out/$name.report"
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.0f", b-a}')
  read -r proved total < <(sed -n 's/^\[wp\] Proved goals: *\([0-9]*\) \/ \([0-9]*\).*/\1 \2/p' "$log" | tail -n1)
  proved=${proved:-0}; total=${total:-0}
  printf '%-12s %9s %7s %8s  %s\n' "$name" "$proved" "$total" "$secs" "${skip:--}"
  if [[ $rc -ne 0 || $total -eq 0 || $proved -ne $total ]] || grep -q '^\[kernel\].*User Error' "$log"; then
    fail=$((fail + 1))
    while read -r g; do failed_goals+=("$name: $g"); done < <(
      grep -E '^\[wp\] \[(Failed|Unknown|Timeout)\] Goal|^\[wp\] Goal .*(Failed|Unknown|Timeout)' "$log" |
        sed 's/^\[wp\] //')
    [[ $rc -ne 0 || $total -eq 0 ]] && failed_goals+=("$name: frama-c failed (exit $rc), see $log")
  else
    pass=$((pass + 1))
  fi
done < "${PROOF_MODULES:-proofs/modules.conf}"

if [[ ${#failed_goals[@]} -gt 0 ]]; then
  echo; echo "unproved goals (logs and JSON reports in $out/):"
  for g in "${failed_goals[@]}"; do echo "  $g"; done
  # Source positions of what is not proved, from Frama-C's property report.
  for r in "$out"/*.report; do
    awk -v m="$(basename "$r" .report)" '/^\[ *(-|Invalid|Unknown) *\]/ { prop = $0 }
      /tried with Wp/ && prop != "" { sub(/^\[[^]]*\] */, "", prop); print "    " m ": " prop; prop = "" }' "$r"
  done
fi
[[ $summary -eq 1 ]] && echo "proofs: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
