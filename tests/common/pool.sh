# pool.sh: a test script's independent cases run POOL_JOBS at once (default: the machine's
# cores), each case's output printed whole and in order. Sourced. A case is a command (a shell
# function) whose output says "ok ..." or "FAIL ..." at the start of a line per check.
#   pool_init; pool_run CMD ARGS...; ...; pool_wait   (then $pool_pass and $pool_fail)
pool_init() {
  pool_dir=$(mktemp -d)
  pool_n=0
  pool_max=${POOL_JOBS:-$(nproc)}
}

pool_run() {
  while (($(jobs -rp | wc -l) >= pool_max)); do wait -n; done
  "$@" >"$pool_dir/$pool_n.out" 2>&1 &
  pool_n=$((pool_n + 1))
}

pool_wait() {
  local i
  wait
  pool_pass=0; pool_fail=0
  for ((i = 0; i < pool_n; i++)); do
    cat "$pool_dir/$i.out"
    pool_pass=$((pool_pass + $(grep -c '^ok ' "$pool_dir/$i.out")))
    pool_fail=$((pool_fail + $(grep -c '^FAIL ' "$pool_dir/$i.out")))
  done
  rm -rf "$pool_dir"
}
