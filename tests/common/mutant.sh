# mutant.sh: sourced by the seeded-bug scripts of the ESM systems (tests/reliab/mutations.sh,
# tests/spine/mutations.sh): a mutant's model must compile and Spin must fail the property
# that names the bug. Needs ESMC and a directory per mutant.

# mutant_apply NAME SRCDIR FILE SCRIPT DIR: SRCDIR's ESM sources into DIR/src, sed SCRIPT on
# FILE; fails (and says so) when the script no longer changes it.
mutant_apply() {
  local name=$1 src=$2 file=$3 script=$4 dir=$5
  mkdir -p "$dir/src" "$dir/out"
  cp "$src"/*.esm "$dir/src/"
  sed -i "$script" "$dir/src/$file"
  cmp -s "$src/$file" "$dir/src/$file" || return 0
  echo "FAIL $name: the mutation no longer applies to $file"
  return 1
}

# mutant_compile NAME DIR ESM...: the mutant's model into DIR/out; prints why not.
mutant_compile() {
  local name=$1 dir=$2; shift 2
  "$ESMC" --pml -o "$dir/out" "$@" 2>"$dir/esmc.err" && return 0
  echo "FAIL $name: the mutant does not compile:"; sed 's/^/    /' "$dir/esmc.err"
  return 1
}

# mutant_caught NAME MODEL PROP DIR: Spin on DIR/out/MODEL.pml must fail PROP (violated, not
# another check first); prints the verdict.
mutant_caught() {
  local name=$1 model=$2 prop=$3 dir=$4
  ESMC=$ESMC models/verify.sh --only "$prop" "$dir/out/$model.pml" >"$dir/verify.out" 2>&1
  if grep -Eq "^=== $model / $prop \([a-z]+\): FAIL: violated ===" "$dir/verify.out"; then
    echo "ok   $name: caught by $prop ($model)"
    grep -m1 -E '^step [0-9]+:' "$dir/verify.out" >/dev/null || echo "     (no ESM trail printed)"
    return 0
  fi
  echo "FAIL $name: $prop did not fail (or failed for another reason)"
  sed 's/^/    /' "$dir/verify.out" | head -n 30
  return 1
}
