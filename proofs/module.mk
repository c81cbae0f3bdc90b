# proofs/module.mk: Frama-C/WP proofs of firmware C (proofs/README.md). The modules and their files
# are listed in proofs/modules.conf; proofs/run.sh runs WP on each and fails unless every goal is
# proved. `make proofs` prints the table; `make test` runs the same as one test.
proofs: deps-check
	@proofs/run.sh
# Every goal of every module proved by the provers into an empty cache, which then replaces
# proofs/cache (only if every goal is proved): drops the entries of goals that no longer exist.
proofs-fresh: deps-check
	@rm -rf $(B)/proofs-cache.new
	@PROOF_VERDICTS=ignore WP_CACHE=rebuild WP_CACHE_DIR=$(B)/proofs-cache.new proofs/run.sh
	@rm -rf proofs/cache && mv $(B)/proofs-cache.new proofs/cache
# The dp-* modules prove esmc's generated data-path C, a build output (esm/machines/module.mk).
proofs proofs-fresh test: gen/datapath/.stamp gen/reliab/.stamp

TESTS += proofs/check.sh
