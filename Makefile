PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: install test test-fast run bench lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

install: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'

test: install
	$(BIN)/python -m pytest -q

test-fast: install
	$(BIN)/python -m pytest -q -m "not slow"

run: install
	$(BIN)/planfilter run

bench: install
	$(BIN)/planfilter bench

lint: install
	$(BIN)/ruff check planfilter tests
	$(BIN)/mypy planfilter

clean:
	rm -rf $(VENV) build dist runs .pytest_cache .hypothesis .mypy_cache .ruff_cache
