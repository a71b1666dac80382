# Two commands on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
RUNTIME_STAMP := $(VENV)/.runtime-stamp

.PHONY: demo test quick lint typecheck unit browser-test generated bench bench-quick sim stress clean

# The demo needs qrelkit and its runtime dependencies only; the tests add the dev tools and the
# reference implementations (pytrec-eval, scipy, statsmodels, ...) on top of the same venv.
$(RUNTIME_STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e .
	@touch $(RUNTIME_STAMP)

$(STAMP): $(RUNTIME_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

demo: $(RUNTIME_STAMP)
	$(BIN)/qrelkit demo

test: $(STAMP) lint typecheck unit

lint: $(STAMP)
	$(BIN)/ruff check src tests scripts benchmarks
	$(BIN)/ruff format --check src tests scripts benchmarks
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

# One pytest process per core (pytest-xdist); tests take work from each other as they finish.
unit: $(STAMP)
	$(BIN)/pytest --ignore=tests/browser -n auto --dist worksteal

# The development loop: the unit tests without the slowest ones (marked `slow`). `make test` runs
# them all, and is what CI runs.
quick: $(STAMP)
	$(BIN)/pytest --ignore=tests/browser -n auto --dist worksteal -m "not slow"

# The HTML reports, and judging through `qrelkit serve`, in headless Chromium (screenshots in
# tests/browser/artefacts/); installs
# chromium when run as root and it is missing.
browser-test: $(STAMP)
	@if ! command -v chromium >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update && apt-get install -y chromium; \
	  else echo "browser-test needs chromium: run 'sudo apt-get install -y chromium' (Debian) and retry" >&2; exit 1; fi; \
	fi
	$(BIN)/pytest tests/browser

# Regenerate every generated file (JSON Schemas, CLI reference, measures page); a test fails when they drift.
generated: $(STAMP)
	$(BIN)/qrelkit schemas write
	$(BIN)/python scripts/write_cli_docs.py
	$(BIN)/python scripts/write_measures_docs.py

# Every benchmark at the reference sizes (30-40 minutes on 2 cores); rewrites the tables under
# "Current figures" in benchmarks/README.md. bench-quick: the same scripts on small data, printed
# only (under 2 minutes).
bench: $(STAMP)
	$(BIN)/python -m pip install --quiet ranx
	$(BIN)/python benchmarks/bench_all.py

bench-quick: $(STAMP)
	$(BIN)/python benchmarks/bench_all.py --quick

# Reliability at full size (about 10 minutes): 150 SIGKILLs, 40,000 concurrent events, 400 fuzzed
# inputs per reader, then a 10-million-line qrels import and a 7-million-line run scored in 2 GiB.
# Figures go to benchmarks/reliability.log and benchmarks/large.json (see RELIABILITY.md).
stress: $(STAMP)
	rm -f benchmarks/reliability.log
	QRELKIT_STRESS=1 QRELKIT_RELIABILITY_LOG=$(CURDIR)/benchmarks/reliability.log $(BIN)/pytest tests/reliability
	QRELKIT_STRESS=1 $(BIN)/pytest tests/test_differential_ids.py
	$(BIN)/python benchmarks/bench_large.py --json benchmarks/large.json

# The judging-queue simulation (about a minute per traffic scenario): curves as JSON and SVG; then
# every order replayed on hidden full labels (about 1.5 minutes per scenario): JSON and PNG; then
# judging until comparisons are settled (sim_settle.py, about 10 minutes): JSON and PNG.
sim: $(STAMP)
	$(BIN)/python benchmarks/sim_queue.py --traffic head --json benchmarks/sim_head.json --svg benchmarks/queue_curves.svg
	$(BIN)/python benchmarks/sim_queue.py --traffic uniform --json benchmarks/sim_uniform.json --svg benchmarks/queue_curves_uniform.svg
	$(BIN)/python benchmarks/sim_queue.py --replay --traffic head --json benchmarks/sim_replay_head.json --png benchmarks/replay_head.png
	$(BIN)/python benchmarks/sim_queue.py --replay --traffic uniform --json benchmarks/sim_replay_uniform.json --png benchmarks/replay_uniform.png
	$(BIN)/python benchmarks/sim_settle.py --json benchmarks/sim_settle.json --png benchmarks/settle.png

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
