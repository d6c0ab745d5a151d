# The fuzzing campaign (tests/fuzz/run_fuzz.py): mutated specs through the
# front end, extreme generated specs on the engines against the reference,
# hostile trace files through every trace command.  Failing inputs go to
# $(FUZZ_FAILURES)/; the run fails if any input ended in an internal error,
# a hang or a disagreement.  A small slice runs in the slow test tier.
#   make fuzz FUZZ_SPECS=10000 FUZZ_TRACES=1000 FUZZ_SEED=7 FUZZ_TIME=3600
# First, the fault cases (tests/faults, every tier: `make fuzz-faults`):
# signals at any moment, a full disk (a 64 KiB tmpfs; skipped where it
# cannot be mounted, which needs root), runs sharing one --out folder and
# one kernel cache, damaged checkpoints and kernel-cache entries.

FUZZ_SPECS          ?= 10000
FUZZ_EXTREME        ?= 1000
FUZZ_TRACES         ?= 1000
FUZZ_SEED           ?= 0
FUZZ_LIMIT          ?= 10
FUZZ_COMPILED_EVERY ?= 50
FUZZ_FAILURES       ?= .fuzz-failures
# Seconds for the whole campaign (split over its three parts); empty: no limit.
FUZZ_TIME           ?=

.PHONY: fuzz fuzz-faults

fuzz: setup fuzz-faults
	$(BIN)/python tests/fuzz/run_fuzz.py --specs $(FUZZ_SPECS) --extreme $(FUZZ_EXTREME) \
	    --traces $(FUZZ_TRACES) --seed $(FUZZ_SEED) --limit $(FUZZ_LIMIT) \
	    --compiled-every $(FUZZ_COMPILED_EVERY) --failures $(FUZZ_FAILURES) \
	    $(if $(FUZZ_TIME),--time $(FUZZ_TIME))

fuzz-faults: setup
	$(BIN)/python -m pytest -q tests/faults
