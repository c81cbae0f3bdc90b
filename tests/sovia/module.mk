# tests/sovia/module.mk: the SOVIA protocol models (esm/sovia): the connection state machine
# with its close protocol (conn) and the window/delayed-ACK protocol (window). `make verify`
# checks them; `make test` verifies the unmutated models and checks that every seeded bug of
# tests/sovia/mutate.py fails the property that names it. Both scripts run $(ESMC).
TESTS     += tests/sovia/verify.sh tests/sovia/mutations.sh
# mutations.sh would first verify the unmutated models; verify.sh above already does.
export SOVIA_BASELINE := 0

$(B)/models/sovia_conn/sovia_conn.pml: esm/sovia/conn.esm esm/sovia/conn_a.esm \
                                       esm/sovia/conn_b.esm $(ESMC)
	@mkdir -p $(dir $@)
	$(ESMC) --pml -o $(dir $@) esm/sovia/conn.esm esm/sovia/conn_a.esm esm/sovia/conn_b.esm
$(B)/models/sovia_window/sovia_window.pml: esm/sovia/window.esm esm/sovia/win_a.esm \
                                           esm/sovia/win_b.esm $(ESMC)
	@mkdir -p $(dir $@)
	$(ESMC) --pml -o $(dir $@) esm/sovia/window.esm esm/sovia/win_a.esm esm/sovia/win_b.esm
VERIFY_MODELS += $(B)/models/sovia_conn/sovia_conn.pml $(B)/models/sovia_window/sovia_window.pml
