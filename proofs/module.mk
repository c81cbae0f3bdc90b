# proofs/module.mk: Frama-C/WP proofs of firmware C (proofs/README.md). The modules and their files
# are listed in proofs/modules.conf; proofs/run.sh runs WP on each and fails unless every goal is
# proved. `make proofs` prints the table; `make test` runs the same as one test.
proofs: deps-check
	@proofs/run.sh
# The dp-* modules prove esmc's generated data-path C, a build output (esm/machines/module.mk).
proofs test: gen/datapath/.stamp

TESTS += proofs/check.sh
