# One entry point for people and CI. Everything is installed into .venv by these targets.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup test test-fast test-rank lint demo check-example bench package clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

# heal_ls's bytecode, compiled once as pip compiles an installed package (an editable install is
# not): where PYTHONDONTWRITEBYTECODE is set, every heal-ls process and every pytest run's plugin
# compiled them again (~0.3 s of CPU a `heal-ls fix`; ~8% of the CPU of the CLI and server tests).
setup: $(STAMP)
	@scripts/setup-sandbox.sh
	@$(BIN)/python -m compileall -q -j 0 server/heal_ls

# mypy's cache lives once per machine, like the VS Code tools (MYPY_CACHE=... elsewhere): a clean
# clone's cold run re-read the stdlib's and the dependencies' stubs (~33 CPU-s, 1 core, before any
# test starts); mypy checks each cached module against its source's hash and its own version and
# options, so a cache left by another checkout is reused only where it still holds (~4 CPU-s).
MYPY_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/heal-ls-dev/mypy
lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy --cache-dir $(MYPY_CACHE)/server
	MYPYPATH=server/heal_ls/testing/agent $(BIN)/mypy --cache-dir $(MYPY_CACHE)/agent --no-check-untyped-defs --explicit-package-bases server/heal_ls/testing/agent/*.py

# `make test` on three pytest-xdist workers on the 2-core machines (WORKERS=0: one process): the
# tests wait on their subprocesses (servers, editors, pytest runs) for a quarter of the time, and
# a third worker fills part of it (clean clone, idle: 14:58 of pytest on 3 at d0f920a, 16:33 on 2
# at e5c91ec; the tests' CPU fell ~4% between the two, so most of the gain is the third worker).
# A worker takes whole files, and an editor's whole folder (tests/conftest.py).
WORKERS ?= 3
PYTEST := $(BIN)/python -m pytest -q -p no:cacheprovider

test: lint
	$(PYTEST) -n $(WORKERS) tests

# The inner loop: unit and in-process engine tests, no real editor, server or project run, on
# two workers (idle, 2 cores: 37-41 s of pytest, 39-43 s in all, against 53-57 and 57-61 s in one
# process, for ~10 CPU-s more; the tests that bound a time allow 3-100x what they measure).
FAST_WORKERS ?= 2
test-fast: setup
	$(PYTEST) -x -n $(FAST_WORKERS) tests/unit

# A ranking change's other bar, beside the corpus replay: the bundled examples' heal targets, in
# the CLI, the heal and the editor (these are e2e tests, outside test-fast).
test-rank: setup
	$(PYTEST) -n $(FAST_WORKERS) tests/e2e/test_check_examples.py tests/e2e/test_heal_examples.py \
		tests/e2e/test_fix.py tests/lsp/test_positions.py

# check exits 1 because the example has a failing test: that is the point of the demo.
demo: setup
	@$(BIN)/heal-ls check examples/inventory || echo "(exit 1: a test fails; now heal it)"
	$(BIN)/heal-ls fix --provider local --no-cache examples/inventory

bench: setup
	$(BIN)/heal-ls bench

# The wheel and the .vsix, into dist/ (DIST=... elsewhere): see scripts/package.sh.
package: setup
	scripts/package.sh

clean:
	rm -rf $(VENV) .cache
