# Two commands for a new user: `make demo` and `make test`. Both build .venv first.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# The CPU build of torch, installed before the extras so pip never resolves a CUDA one.
TORCH  ?= torch==2.13.0
# The exact versions every install here takes (pip constraints), so the same commit gives
# the same result next month; `make lock` refreshes it from the newest releases that
# pyproject.toml's ranges allow. `make test LOCK=` installs without it.
LOCK   ?= requirements/lock.txt
PIN    := $(if $(LOCK),-c $(LOCK))

.PHONY: demo tour check check-base test lint lock bench docs docs-serve system-deps clean

# nle and minihack (turngym[nethack]) go in without their dependencies: nle pins
# gymnasium==1.2.0, which the web extra's miniwob refuses; both run on the newer one.
# $(call dev_install,VENV,PIN): the whole development install into VENV.
define dev_install
	$(PYTHON) -m venv $(1)
	$(1)/bin/python -m pip install --quiet $(2) --upgrade pip setuptools
	$(1)/bin/python -m pip install --quiet $(2) '$(TORCH)'
	$(1)/bin/python -m pip install --quiet $(2) -e '.[dev]'
	$(1)/bin/python -m pip install --quiet $(2) --no-deps 'nle>=1.3' 'minihack>=1.0'
endef

$(STAMP): pyproject.toml $(LOCK)
	$(call dev_install,$(VENV),$(PIN))
	touch $(STAMP)

## lock: resolve the newest releases pyproject.toml allows in a fresh .venv-lock and write them to the lock; `make lock test` then runs the suite on them
LOCK_VENV := .venv-lock
lock: pyproject.toml
	rm -rf $(LOCK_VENV)
	$(call dev_install,$(LOCK_VENV),)
	$(LOCK_VENV)/bin/python scripts/write_lock.py $(LOCK_VENV) requirements/lock.txt
	rm -rf $(LOCK_VENV)

## demo: train a tiny model with GRPO on FrozenLake-text (~2 min on 2 cores), then evaluate it and print the `turngym view` command
demo: $(STAMP)
	$(VENV)/bin/turngym train grpo --config examples/grpo_frozenlake.toml
	$(VENV)/bin/turngym eval FrozenLake-v0 --agent hf:runs/demo/final --agent random --agent expert --episodes 50
	@echo "See the run (curves, and episodes before and after training): $(VENV)/bin/turngym view runs/demo"

## tour: play every registered env with the expert and a random agent; print the success table
tour: $(STAMP)
	$(VENV)/bin/turngym eval --all --agents expert,random --episodes 50

## check: the inner loop: the tests that need no browser, X server, sandbox, GPU, root or long run (and not the lint, which `make lint` is)
check: $(STAMP)
	TURNGYM_CHECK=1 $(PY) -m pytest -n 2 --dist worksteal -q -m "not slow and not lint and not browser and not x11 and not sandbox and not gpu"

## check-base: the base tests on an install with no extras (what `pip install turngym` gives), in .venv-base
BASE_VENV  := .venv-base
BASE_TESTS := tests/test_core.py tests/test_spaces.py tests/test_calls.py tests/registry \
              tests/test_extras.py tests/test_aliases.py tests/envs/text tests/envs/games \
              tests/envs/test_classic.py tests/wrappers tests/agents tests/test_testing.py \
              tests/test_testing_games.py tests/test_testing_toy.py tests/test_testing_degenerate.py \
              tests/test_testing_replay.py tests/test_lock.py
check-base: pyproject.toml $(LOCK)
	$(PYTHON) -m venv $(BASE_VENV)
	$(BASE_VENV)/bin/python -m pip install --quiet $(PIN) --upgrade pip setuptools
	$(BASE_VENV)/bin/python -m pip install --quiet $(PIN) -e '.[test]'
	$(BASE_VENV)/bin/python -m pytest -n 2 --dist worksteal -q -m "not slow" $(BASE_TESTS)

## test: install system packages (as root), then run the whole test suite
test: $(STAMP) system-deps
	$(PY) -m pytest -n 2 --dist worksteal -q

## lint: ruff and mypy
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

## bench: env throughput, one JSON line per env (TextArena/GEM peers: benchmarks/README.md)
bench: $(STAMP)
	$(PY) benchmarks/env_throughput.py

## docs: build the documentation site into site/ (the env gallery's pages first), offline, failing on any warning
docs: $(STAMP)
	$(PY) scripts/docs_gallery.py pages
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

## docs-serve: build the env gallery's pages, then serve the site at http://127.0.0.1:8000 while you edit
docs-serve: $(STAMP)
	$(PY) scripts/docs_gallery.py pages
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs serve --strict

system-deps:
	bash scripts/install_system_deps.sh

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache site
