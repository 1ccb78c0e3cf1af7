# One-command entry points. `make demo` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# A pandas requirement for the main venv, e.g. PANDAS="pandas>=2,<3" (CI's matrix); default: newest.
PANDAS ?=

.PHONY: setup demo test test-pandas2 package-check notebooks lint typecheck-js js-types docs pictures bench clean

# Two installs into the same venv, each remembered by a stamp file: the demo needs only trex and
# the runtime extras its commands use (DEMO_EXTRAS: plotly for the report's charts, orjson); the
# test toolchain (pytest, mypy, ruff, playwright, mkdocs, jupyter) is `make setup`'s, and includes
# the demo's (so it stamps both).
DEMO_EXTRAS ?= plot,fast

$(VENV)/.trex-demo: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e ".[$(DEMO_EXTRAS)]" $(if $(PANDAS),"$(PANDAS)")
	@touch $@

$(BIN)/trex: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]" $(if $(PANDAS),"$(PANDAS)")
	@touch $(BIN)/trex $(VENV)/.trex-demo

setup: $(BIN)/trex

demo: $(VENV)/.trex-demo  ## summary, reformat linters and two HTML reports of NVIDIA's ResNet18 Q/DQ engines (out/demo)
	$(BIN)/python examples/demo.py

test: setup  ## ruff, the whole test suite, the docs site, the package check, then the suite on pandas 2
	$(BIN)/ruff check src tests bench examples notebooks/*.py .ci scripts docs/hooks
	$(BIN)/mypy
	@if command -v npm >/dev/null 2>&1; then $(MAKE) --no-print-directory typecheck-js; \
	else echo "npm not found: the report page's script is not type-checked"; fi
	$(BIN)/python -m pytest -q
	$(MAKE) --no-print-directory docs
	$(MAKE) --no-print-directory package-check
	$(MAKE) --no-print-directory test-pandas2

# sdist and wheel (the wheel is built from the sdist, i.e. from a clean tree), twine's metadata
# check, then the wheel alone in an empty venv must write an HTML report of an example engine.
package-check: setup
	rm -rf dist
	$(BIN)/python -m pip install --quiet build twine
	$(BIN)/python -m build --outdir dist . >/dev/null
	$(BIN)/twine check --strict dist/*
	$(BIN)/python .ci/wheel_check.py dist examples/a100-resnet18-qat

# The core must also work on pandas 2.x: run the suite there too, without the tests marked slow
# (fuzzing, time and memory bounds, notebook runs: the main run has them) and the fresh-clone
# installs (their venvs get the newest pandas whichever venv runs them).
test-pandas2:
	test -x .venv-pandas2/bin/python || $(PYTHON) -m venv .venv-pandas2
	.venv-pandas2/bin/python -m pip install --quiet "pandas>=2,<3" numpy msgspec pytest hypothesis plotly graphviz onnx \
		xlsxwriter openpyxl ipython ipywidgets nbformat nbclient nbconvert ipykernel playwright matplotlib \
		pyyaml markdown-it-py "mkdocs==1.6.1" "mkdocs-material==9.8.2" "mkdocstrings==1.0.8" "mkdocstrings-python==2.0.11" \
		"griffelib==2.4.1"
	.venv-pandas2/bin/python -m pip install --quiet --no-deps -e .
	.venv-pandas2/bin/python -m pytest -q -p no:cacheprovider -m "not slow" \
		--ignore=tests/test_fuzz_readers.py --ignore=tests/test_fresh_clone.py

notebooks: setup  ## every notebook 10 times in a row with a stock `jupyter nbconvert --execute`
	$(BIN)/python notebooks/run_all.py --repeat 10

lint: setup
	$(BIN)/ruff check src tests bench examples notebooks/*.py .ci scripts docs/hooks
	$(BIN)/mypy

# The HTML report's script (src/trex/html_report/assets/js) checked by TypeScript (pinned in
# package.json): tsc --noEmit --allowJs --checkJs over its JSDoc types.
node_modules/.bin/tsc: package.json package-lock.json
	npm ci --no-audit --no-fund --silent
	@touch $@

typecheck-js: node_modules/.bin/tsc
	node_modules/.bin/tsc -p tsconfig.json --noEmit --allowJs --checkJs
	@echo "typecheck-js: the report page's script passes tsc"

# The page's declarations of its layer columns (assets/js/layer-columns.d.ts), generated from
# trex/html_report/layer_columns.py: run after changing a column (a test says when they are stale).
js-types: setup  ## assets/js/layer-columns.d.ts from the report's layer-column declarations
	$(BIN)/python scripts/make_js_types.py

# The documentation site (mkdocs-material, mkdocstrings) into site/, warnings as errors; the CLI
# reference is generated from trex's argparse parsers while it builds (docs/hooks/cli_reference.py).
docs: setup  ## the documentation site in site/ (open site/index.html)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet --site-dir site
	@echo "docs: site/index.html"

# The README's and the gallery's pictures from the example engines (headless Chromium, Graphviz).
pictures: setup  ## docs/images/*.png from examples/ (trex report, trex draw, Chromium)
	$(BIN)/python scripts/make_pictures.py

bench: setup  ## load, draw, compare and report benchmarks on generated 1k/10k/50k-layer engines
	$(BIN)/python bench/run.py
	$(BIN)/python bench/bench_draw.py
	$(BIN)/python bench/bench_compare.py
	$(BIN)/python bench/bench_report.py  # 1k/10.8k/54k/200k layers beside TREx and the parse floor

clean:
.PHONY: setup demo test test-pandas2 package-check notebooks lint typecheck bench clean
