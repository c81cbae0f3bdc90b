# tests/esmc/pml: the PROMELA backend and the Spin driver. pml_golden.sh compares esmc --pml output
# with committed models; pml_spin.sh runs models/verify.sh on small systems, good and seeded-bad.
TESTS += tests/esmc/pml/pml_golden.sh tests/esmc/pml/pml_spin.sh
