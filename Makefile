# modelcheck: everyday targets.  `make check` and `make test` work on a fresh
# machine with python3 >= 3.11: both create the virtual environment first.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# Re-installs when pyproject.toml changes (new dependencies), not on every run.
# Every extra: the z3 and spark engines' packages and the test tools.
STAMP  := $(VENV)/.modelcheck-installed

VERDICT_FILES := specs/examples/verdicts.toml $(wildcard specs/verdicts.toml)
GOLDEN_TESTS  := $(wildcard tests/golden) tests/cli
BENCHES       := $(sort $(wildcard bench/*.py))

.PHONY: setup check test test-fast bench golden clean distclean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e '.[all,test]'
	touch $(STAMP)

# The expected verdicts of the example specs and of the RabbitMQ specs.  The
# RabbitMQ rows' traces are committed (docs link them, and a run writes them
# again the same); the example rows' traces are written under build/ (ignored),
# so a run leaves the working tree as it found it.
EXAMPLE_VERDICTS := specs/examples/verdicts.toml
EXAMPLE_TRACES   := build/counterexamples
OTHER_VERDICTS   := $(filter-out $(EXAMPLE_VERDICTS),$(VERDICT_FILES))
# Both runs run whatever the first answers; the worse exit status is make's.
check: setup
	$(BIN)/modelcheck verdicts $(EXAMPLE_VERDICTS) --out $(EXAMPLE_TRACES); a=$$?; \
	b=0; if [ -n "$(OTHER_VERDICTS)" ]; then $(BIN)/modelcheck verdicts $(OTHER_VERDICTS); b=$$?; fi; \
	exit $$(( a > b ? a : b ))

# pytest-xdist workers: one per core, at most 4 (each may hold a Spark JVM).
# Tests that share costly fixtures share a worker: tests/conftest.py.
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -gt 4 ] && n=4; echo $$n)
PYTEST_PAR   := -n $(TEST_WORKERS) --dist loadgroup

# Every tier, the slow one included.  pytest's exit 5 ("no tests ran") fails too.
test: setup
	$(BIN)/python -m pytest $(PYTEST_PAR); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test: pytest collected no tests" >&2; exit 1; fi; \
	exit $$rc

test-fast: setup
	$(BIN)/python -m pytest $(PYTEST_PAR) -m "not slow"; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test-fast: pytest collected no tests" >&2; exit 1; fi; \
	exit $$rc

bench: setup
	@if [ -z "$(BENCHES)" ]; then echo "make bench: no bench/*.py" >&2; exit 1; fi
	@for f in $(BENCHES); do echo "== $$f"; $(BIN)/python $$f || exit 1; done

# Rewrite the golden files from the current output; review the diff before committing.
golden: setup
	$(BIN)/python -m pytest -q $(GOLDEN_TESTS) --regen-golden

clean:
	rm -rf counterexamples build dist .pytest_cache .hypothesis .modelcheck-cache \
	       spark-warehouse metastore_db derby.log
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
	find . -path ./$(VENV) -prune -o -name '*.egg-info' -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV)

-include mk/*.mk
