# Two commands on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo test lint typecheck unit generated bench sim clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/qrelkit demo

test: $(STAMP) lint typecheck unit

lint: $(STAMP)
	$(BIN)/ruff check src tests scripts benchmarks
	$(BIN)/ruff format --check src tests scripts benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest

# Regenerate every generated file (JSON Schemas, CLI reference); a test fails when they drift.
generated: $(STAMP)
	$(BIN)/qrelkit schemas write
	$(BIN)/python scripts/write_cli_docs.py

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet ranx
	$(BIN)/python benchmarks/bench_score.py
	$(BIN)/python benchmarks/bench_tui.py

# The judging-queue simulation (about a minute per traffic scenario): curves as JSON and SVG.
sim: $(STAMP)
	$(BIN)/python benchmarks/sim_queue.py --traffic head --json benchmarks/sim_head.json --svg benchmarks/queue_curves.svg
	$(BIN)/python benchmarks/sim_queue.py --traffic uniform --json benchmarks/sim_uniform.json --svg benchmarks/queue_curves_uniform.svg

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
