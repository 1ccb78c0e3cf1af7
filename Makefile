# One-command entry points. `make demo` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: setup demo test test-pandas2 lint bench clean

$(BIN)/trex: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	@touch $(BIN)/trex

setup: $(BIN)/trex

demo: setup  ## summarise the hand-made example engine
	$(BIN)/trex summary examples/tiny/tiny.engine

test: setup  ## the whole test suite (real engines from ../shared/engines, or $$TREX_ENGINES_DIR)
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy
	$(BIN)/python -m pytest -q
	$(MAKE) --no-print-directory test-pandas2

# The core must also work on pandas 2.x: run the suite (without the slow fuzzing) there too.
test-pandas2:
	test -x .venv-pandas2/bin/python || $(PYTHON) -m venv .venv-pandas2
	.venv-pandas2/bin/python -m pip install --quiet "pandas>=2,<3" numpy pytest hypothesis plotly graphviz onnx \
		xlsxwriter openpyxl ipython ipywidgets nbformat nbclient "ipykernel<7" playwright
	.venv-pandas2/bin/python -m pip install --quiet --no-deps -e .
	.venv-pandas2/bin/python -m pytest -q -p no:cacheprovider --ignore=tests/test_fuzz_readers.py

lint: setup
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy

bench: setup  ## load, draw, compare and report benchmarks on generated 1k/10k/50k-layer engines
	$(BIN)/python bench/run.py
	$(BIN)/python bench/bench_draw.py
	$(BIN)/python bench/bench_compare.py
	$(BIN)/python bench/bench_report.py

clean:
	rm -rf $(VENV) .venv-pandas2 build *.egg-info bench/data .pytest_cache .ruff_cache .hypothesis
